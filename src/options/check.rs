//! Structured values that need more than their `Kind` to read: the work
//! fio's option callbacks do. Each `Check` is implemented here once.

use super::def::{Check, OptDef};
use super::number::{self, SizeValue};
use super::value::{ParseContext, Parsed, Value};

fn ok(value: Value) -> Parsed {
    Parsed::accept(value)
}

fn err(message: impl Into<String>) -> Parsed {
    Parsed::fail(message.into())
}

/// Reads an option whose value only its check understands.
pub fn apply(def: &OptDef, raw: Option<&str>, ctx: &ParseContext) -> Parsed {
    // fio hands a missing value to the callback, which takes it as empty
    // (`write_bw_log` alone logs under the job's name).
    let Some(raw) = raw else {
        return ok(Value::Text(String::new()));
    };
    let text = Value::Text(raw.to_string());
    match def.check {
        Check::BsSplit => match bssplit(raw, ctx) {
            Ok(()) => ok(text),
            Err(m) => err(m),
        },
        // fio checks these only when it is about to run the job.
        Check::CpuList | Check::CpuMask | Check::NumaPolicy | Check::ErrorList if ctx.dry_run => {
            ok(text)
        }
        Check::CpuList => match cpu_list(raw, ctx.ncpus) {
            Ok(()) => ok(text),
            Err(m) => err(m),
        },
        Check::CpuMask => match number::size(raw, ctx.kb_base) {
            Some(_) => ok(text),
            None => err(format!("fio: failed parsing {}={}", def.name, raw)),
        },
        _ => ok(text),
    }
}

/// Validates the `:tail` after a recognised word.
pub fn word_tail(
    def: &OptDef,
    word: &str,
    tail: Option<&str>,
    ctx: &ParseContext,
) -> Result<(), String> {
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
        Check::Distribution => distribution(word, tail),
        _ => Ok(()),
    }
}

fn distribution(word: &str, tail: &str) -> Result<(), String> {
    match word {
        "zipf" | "pareto" | "normal" => {
            let mut parts = tail.splitn(2, ':');
            let val = parts
                .next()
                .and_then(number::c_float)
                .ok_or("fio: random postfix parsing failed")?;
            if let Some(center) = parts.next() {
                let c = number::c_float(center).ok_or("fio: random postfix parsing failed")?;
                if !(0.0..=1.0).contains(&c) {
                    return Err("fio: distribution center out of range (0 <= center <= 1.0)".into());
                }
            }
            match word {
                "zipf" if val == 1.0 => Err("fio: zipf theta must different than 1.0".into()),
                "pareto" if val <= 0.0 || val >= 1.0 => {
                    Err("fio: pareto input out of range (0 < input < 1.0)".into())
                }
                "normal" if !(0.0..100.0).contains(&val) => {
                    Err("fio: normal deviation out of range (0 <= input < 100.0)".into())
                }
                _ => Ok(()),
            }
        }
        "zoned" | "zoned_abs" => zoned(tail),
        _ => Ok(()),
    }
}

/// `zoned:60/10:30/20:10/70` per direction (`,`-separated), each
/// direction's access percentages adding up to 100.
fn zoned(tail: &str) -> Result<(), String> {
    for dir in tail.split(',').filter(|d| !d.is_empty()) {
        let mut total = 0u64;
        for zone in dir.split(':').filter(|z| !z.is_empty()) {
            let (pct, _) = zone.split_once('/').ok_or_else(|| {
                format!("fio: zoned distribution entry '{zone}' must be access%/size%")
            })?;
            let pct: u64 = pct
                .trim()
                .parse()
                .map_err(|_| "fio: bad zone percentage".to_string())?;
            total = total.saturating_add(pct);
        }
        if total != 100 {
            return Err("fio: zone access percentages must add up to 100%".to_string());
        }
    }
    Ok(())
}

/// `bs/pct:bs/pct` per direction, separated by `,`.
fn bssplit(raw: &str, ctx: &ParseContext) -> Result<(), String> {
    for dir in raw.trim().split(',') {
        let mut perc = 0u64;
        let mut missing = 0u64;
        for entry in dir.split(':').filter(|e| !e.is_empty()) {
            let (bs, pct) = match entry.split_once('/') {
                Some((b, p)) => (b, Some(p)),
                None => (entry, None),
            };
            match number::size(bs, ctx.kb_base) {
                Some(SizeValue::Bytes(_)) => {}
                _ => return Err("fio: bssplit conversion failed".to_string()),
            }
            match pct.map(|p| number::size(p, ctx.kb_base)) {
                Some(Some(SizeValue::Bytes(p))) => perc = perc.saturating_add(p),
                Some(_) => return Err("fio: bssplit conversion failed".to_string()),
                None => missing += 1,
            }
        }
        if perc > 100 && missing > 1 {
            return Err("fio: bssplit percentages add to more than 100%".to_string());
        }
    }
    Ok(())
}

/// `0-3,5,7` style CPU lists; every CPU must exist on this machine.
fn cpu_list(raw: &str, ncpus: u64) -> Result<(), String> {
    for part in raw.split(',').filter(|p| !p.is_empty()) {
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
            return Err(format!(
                "fio: CPU {hi} too large (max={})",
                ncpus.saturating_sub(1)
            ));
        }
    }
    Ok(())
}
