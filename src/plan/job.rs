//! A fully planned job: its identity and every option that was set, typed.

use std::sync::OnceLock;

use super::apply::Origin;
use crate::options::{self, OptDef, Value, table::OPTIONS};

/// One option as it applies to a job: the value, the text it came from and
/// where that text was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub def: &'static OptDef,
    /// The text as written (before `${VAR}` expansion), `None` for a bare
    /// option such as `time_based`.
    pub raw: Option<String>,
    /// The value text after `${VAR}` and keyword expansion, as fio records
    /// it for `--showcmd` and JSON `job options`.
    pub text: Option<String>,
    pub value: Value,
    pub origin: Origin,
}

/// A job of the plan, after clones were expanded.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// The name fio reports (`name=` if set, else the section name).
    pub name: String,
    /// The group this job runs in.
    pub group: u32,
    /// 1-based position among all jobs, clones included (fio's thread
    /// number, used in log file names).
    pub number: u32,
    /// 0 for the job as written; its clones count down from numjobs-1.
    pub subjob: u32,
    /// The engine that runs this job.
    pub engine: String,
    /// Options that were set, in the order fio applied them. Options left
    /// at their defaults are not listed; [`JobSpec::value`] resolves both.
    pub settings: Vec<Setting>,
    /// The errno of an include in the job's section that could not be
    /// opened: fio keeps it as the job's error, so the job stops after
    /// its first I/O and fails.
    pub include_errno: Option<i32>,
}

impl JobSpec {
    /// The setting for option `name` when it was set explicitly.
    #[track_caller]
    pub fn setting(&self, name: &str) -> Option<&Setting> {
        debug_assert_option(name);
        self.settings.iter().rev().find(|s| s.def.matches(name))
    }

    /// The effective value of a generic option: as set, else its default.
    #[track_caller]
    pub fn value(&self, name: &str) -> Option<&Value> {
        if let Some(s) = self.setting(name) {
            return Some(&s.value);
        }
        let def = options::find(name)?;
        default_value(def)
    }

    /// A number-valued option for the read direction (or the only value).
    #[track_caller]
    pub fn num(&self, name: &str) -> Option<u64> {
        self.value(name)?.number()
    }

    /// A boolean option's effective value.
    #[track_caller]
    pub fn flag(&self, name: &str) -> bool {
        self.num(name).is_some_and(|v| v != 0)
    }

    /// Whether the job verifies, as fio's verify option reads it: any
    /// `verify` but 0, or `verify_pattern` alone.
    pub fn verifies(&self) -> bool {
        match self.setting("verify").map(|s| &s.value) {
            Some(Value::Word { word: "0", .. }) => false,
            Some(_) => true,
            None => self.setting("verify_pattern").is_some(),
        }
    }

    /// The files named by `filename`: `:` separates names and `\:` keeps a
    /// colon inside one (`/dev/dsk/foo@3,0\:c`). Empty when not set.
    pub fn filenames(&self) -> Vec<String> {
        self.colon_list("filename")
    }

    /// The `directory` list, split at unescaped colons as fio splits it:
    /// clone N of a job takes entry N (modulo the count) for the names
    /// fio makes up, and names given take the first.
    pub fn directories(&self) -> Vec<String> {
        self.colon_list("directory")
    }

    fn colon_list(&self, name: &str) -> Vec<String> {
        match self.value(name) {
            Some(Value::Text(t)) => split_names(t),
            _ => Vec::new(),
        }
    }
}

/// Checks, in debug builds, that `name` is an option of the table (generic
/// or an engine's, by its name or an alias). The accessors answer an
/// unknown name as an option left unset, so a misspelt name in the code
/// would otherwise quietly read the default.
#[track_caller]
pub fn debug_assert_option(name: &str) {
    debug_assert!(
        OPTIONS.iter().any(|o| o.matches(name)),
        "no option is called {name:?}"
    );
}

/// Splits a `filename` (or `directory`) value at unescaped colons.
fn split_names(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                current.push(':');
                chars.next();
            }
            ':' => names.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    names.push(current);
    names.retain(|n| !n.is_empty());
    names
}

/// The parsed default of an option, computed once for the whole table.
pub fn default_value(def: &'static OptDef) -> Option<&'static Value> {
    static DEFAULTS: OnceLock<Vec<Option<Value>>> = OnceLock::new();
    let defaults = DEFAULTS.get_or_init(|| {
        let ctx = options::ParseContext {
            kb_base: 1024,
            ncpus: u64::MAX,
            dry_run: true,
            previous: [0; 3],
        };
        OPTIONS
            .iter()
            .map(|o| {
                o.default
                    .and_then(|d| options::value::parse(o, Some(d), &ctx).value)
            })
            .collect()
    });
    let index = OPTIONS.iter().position(|o| std::ptr::eq(o, def))?;
    defaults[index].as_ref()
}

#[cfg(test)]
mod tests {
    #[test]
    fn filenames_split_at_unescaped_colons() {
        assert_eq!(super::split_names("/a:/b"), vec!["/a", "/b"]);
        assert_eq!(
            super::split_names("/dev/dsk/foo@3,0\\:c:/x"),
            vec!["/dev/dsk/foo@3,0:c", "/x"]
        );
        assert_eq!(super::split_names("/only"), vec!["/only"]);
    }
}
