//! Per-I/O priorities (the io_uring and libaio engines' `cmdprio_*`
//! options): which I/Os are sent with a raised priority, and the list of
//! priorities whose latencies a direction reports apart.
//!
//! fio keeps, per direction, a list of the distinct priorities in use with
//! the job's own priority first; each I/O carries the index of its entry
//! so the statistics need no search. The choice per I/O is one draw in
//! 0..=99 from the job's priority generator, taken only when the I/O's
//! size (or the direction, for cmdprio_percentage) has a non-zero share.

use crate::options::number::{self, SizeValue};
use crate::plan::JobSpec;
use crate::rand::fio_rand::FioRng;
use crate::sys::sched::ioprio_value;

/// The real-time class, which cmdprio_class defaults to.
const CLASS_RT: u16 = 1;

/// One priority a share of an I/O size (or direction) is sent at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Share {
    percent: u32,
    ioprio: u16,
    /// Its entry in the direction's list of priorities.
    index: u8,
}

/// All shares of one block size, in the order they were written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SizeShares {
    bs: u64,
    total: u32,
    shares: Vec<Share>,
}

/// One direction's rule: a single share for every I/O
/// (cmdprio_percentage), or shares per block size (cmdprio_bssplit).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    Percent(Share),
    BySize(Vec<SizeShares>),
}

/// A job's per-I/O priority plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmdPrio {
    /// Per direction (read, write): the rule, if any I/O of that
    /// direction may be raised.
    rules: [Option<Rule>; 2],
    /// Per direction: the distinct priorities reported apart, the job's
    /// own first (empty when the direction has no rule).
    pub priorities: [Vec<u16>; 2],
}

impl CmdPrio {
    /// Reads the cmdprio options of a job whose own priority is
    /// `default_prio`; `None` when the job raises no I/O. `reads` and
    /// `writes` say which directions the job does.
    pub fn from_job(
        job: &JobSpec,
        default_prio: u16,
        reads: bool,
        writes: bool,
    ) -> Result<Option<CmdPrio>, String> {
        let per_dir = |name: &str| -> [u64; 2] {
            match job.value(name) {
                Some(crate::options::Value::Nums(v)) => [v[0], v[1]],
                _ => [0; 2],
            }
        };
        let percentage = per_dir("cmdprio_percentage");
        let level = per_dir("cmdprio");
        // An unset class means real-time (fio sets it for every direction).
        let class = per_dir("cmdprio_class").map(|c| if c == 0 { CLASS_RT } else { c as u16 });
        let split = match job.value("cmdprio_bssplit") {
            Some(crate::options::Value::Text(t)) if !t.trim().is_empty() => Some(t.trim()),
            _ => None,
        };
        let by_percent = percentage.iter().any(|&p| p > 0);
        if by_percent && split.is_some() {
            return Err(format!(
                "{}: cmdprio_percentage and cmdprio_bssplit options are mutually exclusive",
                job.name
            ));
        }
        if !by_percent && split.is_none() {
            return Ok(None);
        }
        let enabled = [reads, writes];
        let implicit = [0, 1].map(|d| ioprio_value(class[d], level[d] as u16));
        let kb_base = job.num("kb_base").unwrap_or(1024);
        let mut plan = CmdPrio {
            rules: [None, None],
            priorities: [Vec::new(), Vec::new()],
        };
        let entries = match split {
            Some(text) => Some(split_entries(text, kb_base)?),
            None => None,
        };
        for d in 0..2 {
            let mut list = vec![default_prio];
            let rule = match &entries {
                None => {
                    if percentage[d] == 0 || !enabled[d] {
                        continue;
                    }
                    Rule::Percent(share(percentage[d] as u32, implicit[d], &mut list))
                }
                Some(entries) => {
                    if entries[d].is_empty() || !enabled[d] {
                        continue;
                    }
                    let mut sizes: Vec<SizeShares> = Vec::new();
                    for e in &entries[d] {
                        let ioprio = e.ioprio.unwrap_or(implicit[d]);
                        let s = share(e.percent, ioprio, &mut list);
                        match sizes.last_mut() {
                            Some(last) if last.bs == e.bs => {
                                last.total += e.percent;
                                last.shares.push(s);
                            }
                            _ => sizes.push(SizeShares {
                                bs: e.bs,
                                total: e.percent,
                                shares: vec![s],
                            }),
                        }
                        let last = sizes.last().expect("just pushed");
                        if last.total > 100 {
                            return Err(format!(
                                "fio: cmdprio_bssplit total percentage for bs: {} exceeds 100",
                                last.bs
                            ));
                        }
                    }
                    Rule::BySize(sizes)
                }
            };
            plan.rules[d] = Some(rule);
            plan.priorities[d] = list;
        }
        Ok(Some(plan))
    }

    /// The priority of the next I/O of direction `dir` and size `len`,
    /// with its entry in the direction's list; `None` keeps the job's
    /// own priority (and its entry 0).
    #[inline]
    pub fn choose(&self, dir: usize, len: u64, rng: &mut FioRng) -> Option<(u16, u8)> {
        let rule = self.rules.get(dir)?.as_ref()?;
        let (total, shares) = match rule {
            Rule::Percent(s) => (s.percent, std::slice::from_ref(s)),
            Rule::BySize(sizes) => {
                let size = sizes.iter().find(|s| s.bs == len)?;
                (size.total, size.shares.as_slice())
            }
        };
        if total == 0 {
            return None;
        }
        let draw = rng.between(0, 99) as u32;
        if draw >= total {
            return None;
        }
        let mut cumulative = 0;
        shares.iter().find_map(|s| {
            cumulative += s.percent;
            (draw < cumulative).then_some((s.ioprio, s.index))
        })
    }
}

/// Adds `ioprio` to the direction's list if it is new; returns its share.
fn share(percent: u32, ioprio: u16, list: &mut Vec<u16>) -> Share {
    let index = match list.iter().position(|&p| p == ioprio) {
        Some(i) => i,
        None => {
            list.push(ioprio);
            list.len() - 1
        }
    };
    Share {
        percent,
        ioprio,
        index: index as u8,
    }
}

/// One `bs/percent[/class/level]` entry of cmdprio_bssplit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SplitEntry {
    bs: u64,
    percent: u32,
    /// The entry's own priority, when it names a class and level.
    ioprio: Option<u16>,
}

/// fio's most entries per direction.
const MAX_ENTRIES: usize = 64;

/// Splits cmdprio_bssplit per direction as fio's split parser does: one
/// list for all, or `read,write[,trim]`. Entries of zero percent are
/// dropped and the rest sorted by block size (stably).
fn split_entries(text: &str, kb_base: u64) -> Result<[Vec<SplitEntry>; 2], String> {
    let mut parts = text.splitn(3, ',');
    let read = parts.next().unwrap_or("");
    let write = parts.next().unwrap_or(read);
    Ok([direction(read, kb_base)?, direction(write, kb_base)?])
}

fn direction(text: &str, kb_base: u64) -> Result<Vec<SplitEntry>, String> {
    let raw: Vec<&str> = text.split(':').take_while(|e| !e.is_empty()).collect();
    if raw.len() > MAX_ENTRIES {
        return Err("fio: too many cmdprio_bssplit entries".to_string());
    }
    let mut entries = Vec::with_capacity(raw.len());
    for e in raw {
        let entry = entry(e, kb_base).ok_or_else(|| {
            "fio: invalid cmdprio_bssplit format\nfio: failed to parse cmdprio_bssplit entry"
                .to_string()
        })?;
        if entry.percent > 0 {
            entries.push(entry);
        }
    }
    entries.sort_by_key(|e| e.bs);
    Ok(entries)
}

/// `bs/`, `bs/percent` or `bs/percent/class/level` (fields past the
/// fourth, such as later fio's priority hints, are not read, as in fio
/// 3.33). Class and level are capped at 3 and 7.
fn entry(text: &str, kb_base: u64) -> Option<SplitEntry> {
    let mut fields = text.split('/');
    let bs = match number::size(fields.next().filter(|b| !b.is_empty())?, kb_base)? {
        SizeValue::Bytes(b) => b,
        _ => return None,
    };
    let nums: Vec<u32> = fields
        .map_while(|f| f.trim().parse().ok())
        .take(3)
        .collect();
    let percent = nums.first().copied().unwrap_or(0).min(100);
    let ioprio = match nums.len() {
        0 | 1 => None,
        3 => Some(ioprio_value(nums[1].min(3) as u16, nums[2].min(7) as u16)),
        _ => return None,
    };
    Some(SplitEntry {
        bs,
        percent,
        ioprio,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_and_sort() {
        let d = direction("1024k/0:64k/25/1/1:64k/75/3/2", 1024).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].ioprio, Some(ioprio_value(1, 1)));
        assert_eq!(d[1].ioprio, Some(ioprio_value(3, 2)));
        assert_eq!(d[1].percent, 75);
        // A fifth field (a priority hint) is not read.
        let h = entry("1M/10/2/0/1", 1024).unwrap();
        assert_eq!((h.bs, h.percent, h.ioprio), (1 << 20, 10, Some(0x4000)));
        assert!(entry("64k/5/1", 1024).is_none());
    }

    #[test]
    fn write_list_repeats_a_single_list() {
        let [r, w] = split_entries("4k/50", 1024).unwrap();
        assert_eq!(r, w);
    }
}
