//! Structured values that need more than their `Kind` to read: the work
//! fio's option callbacks do. Each `Check` is implemented here once.

use super::def::{Check, OptDef};
use super::number::{self, SizeValue, c_atoi, directions};
use super::parsed::{ParseContext, Parsed, SplitEntry, Value};

fn ok(value: Value) -> Parsed {
    Parsed::accept(value)
}

fn err(message: impl Into<String>) -> Parsed {
    Parsed::fail(message.into())
}

/// Reads an option whose value only its check understands, into the typed
/// value the run uses.
pub fn apply(def: &OptDef, raw: Option<&str>, ctx: &ParseContext) -> Parsed {
    // fio hands a missing value to the callback, which takes it as empty
    // (`write_bw_log` alone logs under the job's name). A check that
    // refuses empty text leaves it as empty text.
    let Some(raw) = raw else {
        let parsed = apply(def, Some(""), ctx);
        return match parsed.value {
            Some(_) => parsed,
            None => ok(Value::Text(String::new())),
        };
    };
    let text = || Value::Text(raw.to_string());
    let read = |value: Result<Value, String>| match value {
        Ok(value) => ok(value),
        Err(m) => err(m),
    };
    match def.check {
        Check::BsSplit => read(parse_bssplit(raw, ctx.kb_base).map(Value::BsSplit)),
        // fio checks these only when it is about to run the job, so a
        // plan that is not run keeps them as unchecked text.
        Check::CpuList
        | Check::CpuMask
        | Check::NumaPolicy
        | Check::NumaNodes
        | Check::ErrorList
            if ctx.dry_run =>
        {
            ok(text())
        }
        Check::ErrorList => read(error_lists(raw).map(Value::ErrorLists)),
        Check::NumaNodes => read(crate::sys::numa::parse_nodes(raw).map(Value::NumaNodes)),
        Check::NumaPolicy => read(crate::sys::numa::MemPolicy::parse(raw).map(Value::NumaPolicy)),
        Check::CpuList => match cpu_list(raw, ctx.ncpus) {
            // An empty list is kept as text: the run tells it from a list.
            Ok(_) if raw.is_empty() => ok(text()),
            Ok(cpus) => ok(Value::CpuList(cpus)),
            Err(m) => err(m),
        },
        // Only verify_pattern takes formats (%o), as in fio.
        Check::Pattern => {
            let formats = def.name == "verify_pattern";
            match crate::verify::pattern::DataPattern::parse(raw, formats) {
                Ok(pattern) => ok(Value::Pattern(pattern)),
                Err(_) => err(format!("fio: failed parsing {}={}", def.name, raw)),
            }
        }
        Check::CpuMask => match number::size(raw, ctx.kb_base) {
            Some(_) => ok(text()),
            None => err(format!("fio: failed parsing {}={}", def.name, raw)),
        },
        _ => ok(text()),
    }
}

/// Validates the `:tail` after a recognised word.
pub fn word_tail(
    def: &OptDef,
    word: &str,
    tail: Option<&str>,
    ctx: &ParseContext,
) -> Result<(), String> {
    if def.check == Check::SteadyState {
        return steady_limit(word, tail);
    }
    let Some(tail) = tail.map(str::trim) else {
        return Ok(());
    };
    match def.check {
        Check::RwMode if !ctx.dry_run => {
            let random = word.starts_with("rand");
            if !random && number::size(tail, ctx.kb_base).is_none() {
                return Err("fio: rw postfix parsing failed".to_string());
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The limit after a steady-state criterion: a percentage, else IOPS (a
/// number) or bandwidth (a size).
fn steady_limit(word: &str, tail: Option<&str>) -> Result<(), String> {
    let tail = tail
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or("fio: steadystate threshold must be specified in addition to criterion")?;
    if let Some((n, _)) = tail.split_once('%') {
        return number::c_float(n.trim())
            .map(drop)
            .ok_or_else(|| "fio: could not parse steadystate threshold percentage".into());
    }
    if word.starts_with("iops") {
        return number::c_float(tail)
            .map(drop)
            .ok_or_else(|| "fio: steadystate IOPS threshold postfix parsing failed".into());
    }
    number::size(tail, 1024)
        .map(drop)
        .ok_or_else(|| "fio: steadystate BW threshold postfix parsing failed".into())
}

/// fio's limit on the entries of one direction's split.
const MAX_SPLIT_ENTRIES: usize = 64;

/// Reads `bs/pct:bs/pct[,...]` as fio does: no comma means one split for
/// every direction; `A,B` is read A and write and trim B; `A,B,C` one
/// each. A share is read like C's `atoi`, capped at 100, and a missing or
/// zero share gets an equal part of what the others leave.
pub fn parse_bssplit(raw: &str, kb_base: u64) -> Result<[Vec<SplitEntry>; 3], String> {
    let text = raw.trim();
    let (read, write, trim) = directions(text);
    Ok([
        split_direction(read, kb_base)?,
        split_direction(write, kb_base)?,
        split_direction(trim, kb_base)?,
    ])
}

fn split_direction(text: &str, kb_base: u64) -> Result<Vec<SplitEntry>, String> {
    let mut entries: Vec<(u64, Option<u64>)> = Vec::new();
    for entry in text.split(':') {
        if entry.is_empty() {
            break;
        }
        let (bs, share) = match entry.split_once('/') {
            Some((b, p)) => (b, Some(c_atoi(p))),
            None => (entry, None),
        };
        let bs = match number::size(bs, kb_base) {
            Some(SizeValue::Bytes(b)) => b,
            _ => return Err("fio: split conversion failed".to_string()),
        };
        let share = share
            .map(|p| if p > 100 { 100 } else { p })
            .filter(|&p| p != 0);
        entries.push((bs, share));
        if entries.len() == MAX_SPLIT_ENTRIES {
            break;
        }
    }
    let given: u64 = entries.iter().filter_map(|e| e.1).sum();
    let missing = entries.iter().filter(|e| e.1.is_none()).count() as u64;
    if given > 100 && missing > 1 {
        return Err("fio: bssplit percentages add to more than 100%".to_string());
    }
    let base = if missing == 1 && entries.len() == 1 {
        100
    } else {
        given
    };
    let fill = 100u64
        .saturating_sub(base)
        .checked_div(missing)
        .unwrap_or(0);
    Ok(entries
        .into_iter()
        .map(|(bs, share)| SplitEntry {
            bs,
            percent: share.unwrap_or(fill) as u32,
        })
        .collect())
}

/// The error names fio's ignore_error knows, in errno order from EPERM (1).
const ERROR_NAMES: [&str; 34] = [
    "EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC", "EBADF", "ECHILD",
    "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY", "EEXIST", "EXDEV", "ENODEV",
    "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC",
    "ESPIPE", "EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
];

/// Reads ignore_error's `read,write,verify` lists, each of errnos or
/// names separated by ':', as fio does: an empty entry ends a list, a
/// negative number counts as positive, an empty list leaves that kind
/// with fio's default (EIO and EILSEQ).
pub fn error_lists(raw: &str) -> Result<[Vec<i32>; 3], String> {
    let mut lists: [Vec<i32>; 3] = Default::default();
    for (kind, part) in raw.trim().split(',').enumerate() {
        let Some(list) = lists.get_mut(kind) else {
            return Err("Illegal error type".to_string());
        };
        for name in part.split(':') {
            if name.is_empty() {
                break;
            }
            let errno = if name.starts_with('E') {
                ERROR_NAMES
                    .iter()
                    .position(|&n| n == name)
                    .map_or(0, |i| i as i32 + 1)
            } else {
                // C's atoi: an int, made positive.
                let n = number::strtoll(name, 10).map_or(0, |(v, _)| v as i32);
                n.wrapping_abs()
            };
            if errno == 0 {
                return Err(format!("Unknown error {name}, please use number value"));
            }
            list.push(errno);
        }
    }
    Ok(lists)
}

/// fio's CPU set size (FIO_MAX_CPUS on Linux).
const MAX_CPUS: u64 = 1024;

/// Reads a `0-3,5,7` style CPU list, every CPU of which must exist on this
/// machine: the CPUs up to the first empty entry, sorted, without repeats
/// (the entries after it are checked all the same).
fn cpu_list(raw: &str, ncpus: u64) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    let mut listing = true;
    for part in raw.split(',') {
        if part.is_empty() {
            listing = false;
            continue;
        }
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a, b),
            None => (part, part),
        };
        let lo: u64 = lo
            .trim()
            .parse()
            .map_err(|_| format!("fio: bad CPU list entry '{part}'"))?;
        let hi: u64 = hi
            .trim()
            .parse()
            .map_err(|_| format!("fio: bad CPU list entry '{part}'"))?;
        if hi < lo {
            return Err(format!("fio: bad CPU range {part}"));
        }
        if hi >= ncpus {
            // fio walks the range up and stops at the first CPU it
            // cannot set, checking its own limit first.
            let first = lo.max(ncpus);
            if first >= MAX_CPUS {
                return Err(format!("fio: your OS only supports up to {MAX_CPUS} CPUs"));
            }
            return Err(format!(
                "fio: CPU {first} too large (max={})",
                ncpus.saturating_sub(1)
            ));
        }
        if listing {
            cpus.extend(lo as usize..=hi as usize);
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}
