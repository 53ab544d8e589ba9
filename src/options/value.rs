//! Turning an option's raw text into a typed [`Value`], with fio's rules
//! for comma-separated per-direction values and its error messages.

use super::check;
use super::def::{Check, Kind, OptDef, Word};
use super::distribution;
use super::number::{self, SizeValue};
use super::parsed::{ParseContext, Parsed, Value};

/// Reads `raw` (None when the option was given without `=`) for `def`.
pub fn parse(def: &OptDef, raw: Option<&str>, ctx: &ParseContext) -> Parsed {
    if raw.is_none() && !matches!(def.kind, Kind::Flag | Kind::Choice(_)) {
        return Parsed::fail(format!("Option {} requires an argument", def.name));
    }
    match def.kind {
        Kind::Choice(words) if def.name == "sync_file_range" => multi_words(def, words, raw),
        Kind::Choice(words) => choice(def, words, raw, ctx),
        Kind::Text(words) => text(def, words, raw.unwrap_or(""), ctx),
        Kind::FloatList { max_len, min, max } => floats(def, raw.unwrap_or(""), max_len, min, max),
        Kind::Deprecated => Parsed {
            value: None,
            messages: vec![],
            show_words: false,
            notices: vec![format!("Option {} is deprecated", def.name)],
        },
        Kind::SoftDeprecated => Parsed {
            value: Some(Value::Ignored),
            messages: vec![],
            show_words: false,
            notices: vec![format!("Option {} is deprecated", def.name)],
        },
        Kind::Unsupported => Parsed::fail(format!("Option <{}>: {}", def.name, def.help)),
        Kind::Int | Kind::Size | Kind::Time | Kind::Bool | Kind::Flag | Kind::Range => {
            pieces(def, raw, ctx)
        }
    }
}

/// fio's loop over `,`-separated pieces (and for numbers also `:` or `-`
/// when there is no comma). The option is accepted when any piece parses;
/// the first piece sets the read value, later ones the next directions,
/// and the last given value fills the directions left.
fn pieces(def: &OptDef, raw: Option<&str>, ctx: &ParseContext) -> Parsed {
    let Some(raw) = raw else {
        // A flag given alone.
        return match piece_value(def, None, ctx) {
            Ok(v) => Parsed::accept(Value::Bool(v != 0)),
            Err(m) => Parsed::fail(m),
        };
    };
    let raw = raw.strip_suffix(',').unwrap_or(raw);
    let mut messages = Vec::new();
    let mut slots: [Option<Slot>; 3] = [None, None, None];
    let mut any_ok = false;
    let mut last = None;
    let mut rest = raw;
    let mut index = 0usize;
    loop {
        let split_more = !matches!(def.kind, Kind::Range);
        let next = rest
            .find(',')
            .or_else(|| if split_more { rest.find(':') } else { None })
            .or_else(|| if split_more { rest.find('-') } else { None });
        let this = rest.split(',').next().unwrap_or("");
        match piece(def, this, ctx) {
            Ok(slot) => {
                any_ok = true;
                last = Some(slot);
                if index < 3 {
                    slots[index] = Some(slot);
                }
            }
            Err(m) if m.is_empty() => {}
            Err(m) => messages.push(m),
        }
        match next {
            Some(at) => {
                rest = &rest[at + 1..];
                index += 1;
            }
            None => break,
        }
    }
    if def.each_piece {
        slots[0] = last;
    }
    if !any_ok {
        return Parsed {
            value: None,
            messages,
            show_words: false,
            notices: vec![],
        };
    }
    Parsed {
        value: Some(fill(def, slots, ctx.previous)),
        messages,
        show_words: false,
        notices: vec![],
    }
}

#[derive(Debug, Clone, Copy)]
enum Slot {
    Num(u64),
    Percent(u64),
    Range(u64, u64),
}

/// Spreads the parsed pieces over the three directions as fio stores them.
fn fill(def: &OptDef, slots: [Option<Slot>; 3], previous: [u64; 3]) -> Value {
    let n = def.per_dir.clamp(1, 3) as usize;
    let mut out: [Option<Slot>; 3] = [None; 3];
    let mut last = None;
    for i in 0..n {
        if let Some(s) = slots[i] {
            out[i] = Some(s);
            last = Some(s);
        } else if slots[i..n].iter().all(Option::is_none) {
            out[i] = last;
        }
    }
    if n == 1 {
        out = [slots[0]; 3];
    }
    let kept = |i: usize| Some(Slot::Num(previous[i]));
    let out = [0, 1, 2].map(|i| out[i].or(kept(i)));
    match def.kind {
        Kind::Bool | Kind::Flag => Value::Bool(matches!(out[0], Some(Slot::Num(v)) if v != 0)),
        Kind::Range => {
            let r = |s: Option<Slot>| match s {
                Some(Slot::Range(a, b)) => (a, b),
                _ => (0, 0),
            };
            Value::Ranges([r(out[0]), r(out[1]), r(out[2])])
        }
        _ => {
            if let Some(Slot::Percent(p)) = out[0] {
                return Value::Percent(p);
            }
            let v = |s: Option<Slot>| match s {
                Some(Slot::Num(v)) => v,
                _ => 0,
            };
            Value::Nums([v(out[0]), v(out[1]), v(out[2])])
        }
    }
}

fn piece(def: &OptDef, text: &str, ctx: &ParseContext) -> Result<Slot, String> {
    match def.kind {
        Kind::Range => range(text, ctx).ok_or_else(|| failed(def, text)),
        Kind::Bool | Kind::Flag => piece_value(def, Some(text), ctx).map(|v| Slot::Num(v as u64)),
        _ => number_piece(def, text, ctx),
    }
}

/// A piece that does not read as a number: fio prints nothing for the
/// piece itself (the caller reports the whole option if no piece parses).
fn failed(_def: &OptDef, _text: &str) -> String {
    String::new()
}

fn range(text: &str, ctx: &ParseContext) -> Option<Slot> {
    let sep = text.find('-').or_else(|| text.find(':'))?;
    let lo = bytes_of(number::size(&text[..sep], ctx.kb_base)?);
    let hi = bytes_of(number::size(&text[sep + 1..], ctx.kb_base)?);
    Some(if (lo as i64) > (hi as i64) {
        Slot::Range(hi, lo)
    } else {
        Slot::Range(lo, hi)
    })
}

fn bytes_of(v: SizeValue) -> u64 {
    match v {
        SizeValue::Bytes(b) => b,
        SizeValue::Percent(p) => u64::MAX - p,
    }
}

/// A boolean or flag piece, with fio's range checks.
fn piece_value(def: &OptDef, text: Option<&str>, _ctx: &ParseContext) -> Result<i32, String> {
    let v = match text {
        Some(t) => {
            number::c_int(t).ok_or_else(|| format!("fio: failed parsing {}={}", def.name, t))?
        }
        None if def.kind == Kind::Flag => 1,
        None => return Err(format!("Option {} requires an argument", def.name)),
    };
    let (min, max) = def.limits();
    if let Some(max) = max.filter(|m| *m != 0)
        && v as i64 > max as i64
    {
        return Err(format!("max value out of range: {v} ({max} max)"));
    }
    if let Some(min) = min.filter(|m| *m != 0)
        && (v as i64) < min
    {
        return Err(format!("min value out of range: {v} ({min} min)"));
    }
    Ok(v)
}

fn number_piece(def: &OptDef, text: &str, ctx: &ParseContext) -> Result<Slot, String> {
    let text = text.split(',').next().unwrap_or("");
    if text.ends_with('z') {
        if def.check == Check::Zone {
            // fio reads the count with strtoul (a sign wraps it) and
            // keeps its low 32 bits.
            return match number::strtoll(text, 10) {
                Some((v, rest)) if rest.starts_with('z') => {
                    Ok(Slot::Num((1u64 << 63) + u64::from(v as u32)))
                }
                _ => Err(format!("{}: unexpected zone value '{}'", def.name, text)),
            };
        }
        return Err(format!("{}: 'z' suffix isn't applicable", def.name));
    }
    let is_time = def.kind == Kind::Time || def.time;
    let parsed = if is_time {
        number::time_us(text, def.seconds).map(SizeValue::Bytes)
    } else {
        number::size(text, ctx.kb_base)
    };
    let Some(parsed) = parsed else {
        return Err(failed(def, text));
    };
    let v = bytes_of(parsed);
    if def.pow2 && !v.is_power_of_two() {
        return Err(format!("{}: must be a power-of-2", def.name));
    }
    let is_int = def.kind == Kind::Int;
    if let Some(max) = def.max.filter(|m| *m != 0) {
        let too_large = if is_int {
            if (v as i32) < 0 {
                (v as i32) > (max as i32)
            } else {
                (v as u32 as u64) > max
            }
        } else {
            v > max
        };
        if too_large {
            return Err(format!(
                "{}: max value out of range: {} ({} max)",
                def.name, v, max
            ));
        }
    }
    if let Some(min) = def.min.filter(|m| *m != 0) {
        let too_small = if is_int {
            ((v as i32) as i64) < min
        } else {
            v < min as u64
        };
        if too_small {
            return Err(format!(
                "{}: min value out of range: {} ({} min)",
                def.name, v as i64, min
            ));
        }
    }
    Ok(match parsed {
        // A share fio stores as -1-p: above 100% (or below 0) it is no
        // share but a byte count, except where the option refuses it.
        // io_size takes any value in the top half above the zone counts
        // as a share, so a negative size (`-1m`) is a share too large.
        _ if def.shares_to_100 && v > (1u64 << 63) + u64::from(u32::MAX) => match u64::MAX - v {
            p if p > 100 => {
                return Err(format!(
                    "fio: {} values greater than 100% aren't supported",
                    def.name
                ));
            }
            p => Slot::Percent(p),
        },
        SizeValue::Percent(p) if p > 100 => Slot::Num(v),
        SizeValue::Percent(p) => Slot::Percent(p),
        SizeValue::Bytes(_) if is_int => Slot::Num(v as u32 as u64),
        SizeValue::Bytes(_) => Slot::Num(v),
    })
}

/// fio compares a word with the value like `strncmp` over the longer of
/// the word and the value's head (up to the first `,`, else `:`), so the
/// whole word must match and may only be followed by `,` or `:`.
fn word_matches(word: &str, value: &str) -> bool {
    let head = value
        .find(',')
        .or_else(|| value.find(':'))
        .unwrap_or(value.len());
    let n = word.len().max(head);
    let (w, v) = (word.as_bytes(), value.as_bytes());
    for i in 0..n {
        let (a, b) = (
            w.get(i).copied().unwrap_or(0),
            v.get(i).copied().unwrap_or(0),
        );
        if a != b {
            return false;
        }
        if a == 0 {
            break;
        }
    }
    true
}

fn find_word(words: &'static [Word], value: &str) -> Option<&'static Word> {
    words.iter().find(|w| word_matches(w.word, value))
}

fn choice(def: &OptDef, words: &'static [Word], raw: Option<&str>, ctx: &ParseContext) -> Parsed {
    if words.is_empty() {
        return check::apply(def, raw, ctx);
    }
    let Some(raw) = raw else {
        return Parsed::unknown_word();
    };
    match find_word(words, raw) {
        Some(w) if def.check == Check::Distribution => {
            let tail = raw.find(':').map(|i| raw[i + 1..].to_string());
            match distribution::shape(w.word, tail.as_deref(), ctx.kb_base) {
                Ok(shape) => Parsed::accept(Value::Distribution {
                    word: w.word,
                    tail,
                    shape,
                }),
                Err(m) => Parsed::fail(m),
            }
        }
        Some(w) => {
            let tail = raw.find(':').map(|i| raw[i + 1..].to_string());
            match check::word_tail(def, w.word, tail.as_deref(), ctx) {
                Ok(()) => Parsed::accept(Value::Word { word: w.word, tail }),
                Err(m) => Parsed::fail(m),
            }
        }
        None => Parsed::unknown_word(),
    }
}

/// `sync_file_range` takes several words joined by `,`, plus `:N`.
fn multi_words(def: &OptDef, words: &'static [Word], raw: Option<&str>) -> Parsed {
    let Some(raw) = raw else {
        return Parsed::unknown_word();
    };
    let head = raw.split(':').next().unwrap_or("");
    if head.split(',').all(|part| find_word(words, part).is_some()) {
        Parsed::accept(Value::Text(raw.to_string()))
    } else {
        let _ = def;
        Parsed::unknown_word()
    }
}

fn text(def: &OptDef, words: &'static [Word], raw: &str, ctx: &ParseContext) -> Parsed {
    if raw.is_empty() {
        return Parsed::fail(format!("fio: failed parsing {}=", def.name));
    }
    if def.check != Check::None {
        return check::apply(def, Some(raw), ctx);
    }
    let _ = words;
    Parsed::accept(Value::Text(raw.to_string()))
}

fn floats(def: &OptDef, raw: &str, max_len: u8, min: f64, max: f64) -> Parsed {
    let mut values = Vec::new();
    let mut precision = 0;
    let mut messages = Vec::new();
    let mut any_ok = false;
    for (i, part) in raw.split(':').enumerate() {
        if i >= max_len as usize {
            messages.push(format!("the list exceeding max length {max_len}"));
            continue;
        }
        let Some(f) = number::c_float(part) else {
            messages.push(format!("not a floating point value: {part}"));
            continue;
        };
        if min != 0.0 || max != 0.0 {
            if f > max {
                messages.push(format!("value out of range: {f:.6} (range max: {max:.6})"));
                continue;
            }
            if f < min {
                messages.push(format!("value out of range: {f:.6} (range min: {min:.6})"));
                continue;
            }
        }
        any_ok = true;
        values.push(f);
        if let Some(dot) = part.find('.') {
            let decimals = part[dot + 1..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            precision = precision.max(decimals);
        }
    }
    let _ = def;
    Parsed {
        value: any_ok.then_some(Value::Floats { values, precision }),
        messages,
        show_words: false,
        notices: vec![],
    }
}

#[cfg(test)]
mod tests;
