//! The option table and the reading of option values.

pub mod check;
pub mod def;
pub mod distribution;
pub mod number;
pub mod parsed;
pub mod table;
pub mod value;

pub use def::{Category, Kind, OptDef, Support};
pub use parsed::{ParseContext, Parsed, Value};

/// The generic option (one that every job has) called `name`.
pub fn find(name: &str) -> Option<&'static OptDef> {
    table::OPTIONS
        .iter()
        .find(|o| o.engines.is_empty() && o.matches(name))
}

/// The private option `name` of `engine`.
pub fn find_engine_option(engine: &str, name: &str) -> Option<&'static OptDef> {
    table::OPTIONS
        .iter()
        .find(|o| o.engines.contains(&engine) && o.matches(name))
}

/// All private options of `engine`, in table order.
pub fn engine_options(engine: &str) -> impl Iterator<Item = &'static OptDef> + '_ {
    table::OPTIONS
        .iter()
        .filter(move |o| o.engines.contains(&engine))
}

/// Levenshtein distance, for "did you mean" hints.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The generic option closest to a misspelled `name`, when close enough
/// to be worth suggesting (within half the name's length, as fio judges).
pub fn suggest(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return None;
    }
    let (best, d) = table::OPTIONS
        .iter()
        .filter(|o| o.engines.is_empty())
        .map(|o| (o, distance(name, o.name)))
        .min_by_key(|(_, d)| *d)?;
    let ok = close_enough(name, d) && best.kind != Kind::Unsupported;
    ok.then_some(best.name)
}

/// Whether a word at `distance` from a misspelt `name` is near enough to
/// suggest: within half the name's length, as fio judges.
pub fn close_enough(name: &str, distance: usize) -> bool {
    distance <= name.chars().count().div_ceil(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_find_near_names() {
        assert_eq!(suggest("iodepht"), Some("iodepth"));
        assert_eq!(suggest("qwertyuiopasdf"), None);
    }

    #[test]
    fn every_option_name_is_unique_per_owner() {
        let mut seen = std::collections::HashSet::new();
        for o in table::OPTIONS {
            for name in o.names() {
                let owners = if o.engines.is_empty() {
                    vec![""]
                } else {
                    o.engines.to_vec()
                };
                for e in owners {
                    assert!(
                        seen.insert((e, name)),
                        "duplicate option {name} for engine '{e}'"
                    );
                }
            }
        }
    }

    #[test]
    fn aliases_resolve_to_canonical_names() {
        assert_eq!(find("blocksize").unwrap().name, "bs");
        assert_eq!(find("readwrite").unwrap().name, "rw");
        assert_eq!(find("timeout").unwrap().name, "runtime");
    }
}
