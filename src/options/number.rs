//! Number reading with the exact rules of C's `strtoll`/`sscanf` as fio
//! uses them, because job files rely on the corners: `bs = 4k` (a blank
//! before the number) is 4 bytes, `size=1.5m` is 1 byte, `runtime=5x` is 5
//! seconds, `iodepth=0x10` is 16.

/// The length of the run of digits `t` starts with; `None` when there is
/// none (what makes C's number readers fail).
fn digit_run(t: &str, base: u32) -> Option<usize> {
    let n = t
        .bytes()
        .take_while(|b| (*b as char).is_digit(base))
        .count();
    (n > 0).then_some(n)
}

/// Parses like `strtoll(s, &end, base)`: leading blanks, an optional sign,
/// digits. Returns the value and the unread rest, or `None` when no digit
/// was read or the value overflowed upwards (fio's failure cases).
pub fn strtoll(s: &str, base: u32) -> Option<(i64, &str)> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (neg, mut t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if base == 16
        && (t.starts_with("0x") || t.starts_with("0X"))
        && t[2..].starts_with(|c: char| c.is_ascii_hexdigit())
    {
        t = &t[2..];
    }
    let digits = digit_run(t, base)?;
    let mut value: i128 = 0;
    for b in t[..digits].bytes() {
        value = (value * base as i128 + (b as char).to_digit(base).unwrap_or(0) as i128)
            .min(i64::MAX as i128 + 1);
    }
    let value = if neg { -value } else { value };
    if value > i64::MAX as i128 {
        return None;
    }
    let value = value.max(i64::MIN as i128) as i64;
    Some((value, &t[digits..]))
}

/// Size multiplier from a suffix, honouring `kb_base` the way fio does:
/// with the default base 1024, `k`/`kb` are 1024 and `kib` is 1000 (fio's
/// inverted meaning); with `kb_base=1000` the SI/IEC meanings are literal.
fn suffix_multiplier(suffix: &str, kb_base: u64) -> Multiplier {
    let lower: String = suffix
        .chars()
        .take_while(|c| !matches!(c, ':' | '-' | ',' | '/'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let iec = if kb_base == 1000 { 1024 } else { 1000 };
    let (pow, mult) = if let Some(p) = ["kib", "mib", "gib", "tib", "pib"]
        .iter()
        .position(|u| lower.starts_with(u))
    {
        (
            p as u32 + 1,
            if kb_base == 1000 || kb_base == 1024 {
                iec
            } else {
                kb_base
            },
        )
    } else if let Some(p) = ['k', 'm', 'g', 't', 'p']
        .iter()
        .position(|u| lower.starts_with(*u))
    {
        (p as u32 + 1, kb_base)
    } else if lower.starts_with('%') {
        return Multiplier::Percent;
    } else {
        (0, kb_base)
    };
    Multiplier::Times(mult.wrapping_pow(pow))
}

enum Multiplier {
    Times(u64),
    Percent,
}

/// A number read from a size-like value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeValue {
    Bytes(u64),
    /// `N%`: a share of the file or device size.
    Percent(u64),
}

/// The number a value starts with, read as fio reads it: hexadecimal
/// when "0x" appears anywhere in the text, else decimal.
fn leading_number(s: &str) -> Option<i64> {
    if s.is_empty() {
        return None;
    }
    let base = if s.contains("0x") || s.contains("0X") {
        16
    } else {
        10
    };
    strtoll(s, base).map(|(v, _)| v)
}

/// The part of one size (`4q`, `1.5m`) that fio reads past without a
/// word: a suffix that is no multiplier, or a fraction with whatever
/// follows it. Returns the number fio keeps and the text it ignores, for
/// `--explain` to point at; `None` when every character counts.
pub fn ignored_suffix(s: &str) -> Option<(i64, &str)> {
    if s.contains("0x") || s.contains("0X") {
        return None;
    }
    let (v, rest) = strtoll(s, 10)?;
    let rest = rest.trim_end();
    // As in `size`: a blank before the number hides any suffix from fio.
    let blank_first = s.starts_with(|c: char| c.is_ascii_whitespace());
    let multiplier = rest
        .to_ascii_lowercase()
        .starts_with(['k', 'm', 'g', 't', 'p', 'b', '%']);
    let counted = rest.is_empty() || multiplier && !blank_first;
    (!counted).then_some((v, rest))
}

/// Reads a size with suffixes (fio's `str_to_decimal` with `kilo`).
/// Values are returned as fio stores them: the bit pattern of a wrapped
/// signed result, so `-1` is `u64::MAX`.
pub fn size(s: &str, kb_base: u64) -> Option<SizeValue> {
    let v = leading_number(s)?;
    // The suffix is looked for after a run of digits that may start with a
    // sign; a blank or '.' before the suffix means "no suffix".
    let suffix = if s.len() < 2 {
        Some(s)
    } else {
        let mut digit_seen = false;
        let idx = s
            .char_indices()
            .find(|&(_, c)| {
                let stop = !c.is_ascii_digit() && (!matches!(c, '+' | '-') || digit_seen);
                digit_seen |= c.is_ascii_digit();
                stop
            })
            .map_or(s.len(), |(i, _)| i);
        let rest = &s[idx..];
        rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '%')
            .then_some(rest)
    };
    match suffix.map(|sfx| suffix_multiplier(sfx, kb_base)) {
        Some(Multiplier::Percent) => Some(SizeValue::Percent(v as u64)),
        Some(Multiplier::Times(m)) => Some(SizeValue::Bytes((v as u64).wrapping_mul(m))),
        None => Some(SizeValue::Bytes(v as u64)),
    }
}

/// Reads a duration in microseconds (fio's `str_to_decimal` for times). A
/// bare number is seconds when `seconds` is set, else microseconds; an
/// unknown suffix multiplies by one, as in fio.
pub fn time_us(s: &str, seconds: bool) -> Option<u64> {
    let v = leading_number(s)?;
    let idx = s
        .char_indices()
        .find(|&(_, c)| !c.is_ascii_digit() && !matches!(c, '+' | '-'))
        .map_or(s.len(), |(i, _)| i);
    let rest = &s[idx..];
    let mult: u64 = if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        if seconds { 1_000_000 } else { 1 }
    } else {
        let lower = rest.to_ascii_lowercase();
        if lower.starts_with("us") {
            1
        } else if lower.starts_with("ms") {
            1_000
        } else {
            match lower.as_str() {
                "s" => 1_000_000,
                "m" => 60_000_000,
                "h" => 3_600_000_000,
                "d" => 86_400_000_000,
                _ => 1,
            }
        }
    };
    Some((v as u64).wrapping_mul(mult))
}

/// Reads a boolean-like integer as `sscanf("%u")` or `"%x"` would.
pub fn c_int(s: &str) -> Option<i32> {
    if s.is_empty() {
        return None;
    }
    let base = if s.contains("0x") || s.contains("0X") {
        16
    } else {
        10
    };
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') if base == 10 => (true, &t[1..]),
        Some(b'+') if base == 10 => (false, &t[1..]),
        _ => (false, t),
    };
    let t = if base == 16 {
        t.strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t)
    } else {
        t
    };
    let digits = digit_run(t, base)?;
    let mut v: u32 = 0;
    for b in t[..digits].bytes() {
        v = v
            .wrapping_mul(base)
            .wrapping_add((b as char).to_digit(base).unwrap_or(0));
    }
    let v = v as i32;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// Reads a floating point number as `sscanf("%lf")` would.
pub fn c_float(s: &str) -> Option<f64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let mut end = 0;
    let bytes = t.as_bytes();
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    let mut seen_digit = false;
    let mut seen_dot = false;
    let mut seen_exp = false;
    let mut best = None;
    while end < bytes.len() {
        let c = bytes[end];
        if c.is_ascii_digit() {
            seen_digit = true;
            end += 1;
            best = Some(end);
        } else if c == b'.' && !seen_dot && !seen_exp {
            seen_dot = true;
            end += 1;
            if seen_digit {
                best = Some(end);
            }
        } else if (c == b'e' || c == b'E') && seen_digit && !seen_exp {
            seen_exp = true;
            end += 1;
            if matches!(bytes.get(end), Some(b'+' | b'-')) {
                end += 1;
            }
        } else {
            break;
        }
    }
    let end = best?;
    t[..end].parse().ok()
}

/// The read, write and trim parts of a per-direction split, as fio's
/// str_split_parse cuts them: no comma means one split for every
/// direction, `A,B` is read A and write and trim B, `A,B,C` one each.
pub fn directions(text: &str) -> (&str, &str, &str) {
    let parts: Vec<&str> = text.splitn(3, ',').collect();
    match parts.as_slice() {
        [all] => (*all, *all, *all),
        [r, w] => (*r, *w, *w),
        [r, w, t] => (*r, *w, *t),
        _ => (text, text, text),
    }
}

/// C's `atoi` as an unsigned share: leading blanks, a sign, digits; a
/// negative number wraps to a huge one (then capped at 100 by the caller).
pub fn c_atoi(text: &str) -> u64 {
    strtoll(text, 10).map_or(0, |(v, _)| v as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_suffixes_are_those_size_reads_past() {
        assert_eq!(ignored_suffix("4q"), Some((4, "q")));
        assert_eq!(ignored_suffix("1.5m"), Some((1, ".5m")));
        assert_eq!(ignored_suffix(" 4k"), Some((4, "k")));
        assert_eq!(ignored_suffix("4 k"), Some((4, " k")));
        for counted in ["4k", "4KiB", "8kb", "50%", "4096", "4096b", "0x10", "1g "] {
            assert_eq!(ignored_suffix(counted), None, "{counted}");
        }
    }

    #[test]
    fn sizes_follow_fio() {
        assert_eq!(size("4k", 1024), Some(SizeValue::Bytes(4096)));
        assert_eq!(size("4K", 1024), Some(SizeValue::Bytes(4096)));
        assert_eq!(size("4kb", 1024), Some(SizeValue::Bytes(4096)));
        assert_eq!(size("4KiB", 1024), Some(SizeValue::Bytes(4000)));
        assert_eq!(size("4KiB", 1000), Some(SizeValue::Bytes(4096)));
        assert_eq!(size("4k", 1000), Some(SizeValue::Bytes(4000)));
        assert_eq!(size("1g", 1024), Some(SizeValue::Bytes(1 << 30)));
        assert_eq!(size("2t", 1024), Some(SizeValue::Bytes(2 << 40)));
        assert_eq!(size(" 4k", 1024), Some(SizeValue::Bytes(4)));
        assert_eq!(size("1.5m", 1024), Some(SizeValue::Bytes(1)));
        assert_eq!(size("50%", 1024), Some(SizeValue::Percent(50)));
        assert_eq!(size("0x10", 1024), Some(SizeValue::Bytes(16)));
        assert_eq!(size("abc", 1024), None);
        assert_eq!(size("", 1024), None);
        assert_eq!(size("4096B", 1024), Some(SizeValue::Bytes(4096)));
        assert_eq!(size("99999999999999999999", 1024), None);
    }

    #[test]
    fn times_follow_fio() {
        assert_eq!(time_us("10", true), Some(10_000_000));
        assert_eq!(time_us("10", false), Some(10));
        assert_eq!(time_us("10ms", true), Some(10_000));
        assert_eq!(time_us("2m", true), Some(120_000_000));
        assert_eq!(time_us("1h", true), Some(3_600_000_000));
        assert_eq!(time_us("1d", true), Some(86_400_000_000));
        assert_eq!(time_us("5us", true), Some(5));
        assert_eq!(time_us("5x", true), Some(5));
        assert_eq!(time_us("10sec", true), Some(10));
    }

    #[test]
    fn c_scanners() {
        assert_eq!(c_int("1"), Some(1));
        assert_eq!(c_int(" 1x"), Some(1));
        assert_eq!(c_int("0x1f"), Some(31));
        assert_eq!(c_int("-1"), Some(-1));
        assert_eq!(c_int("x"), None);
        assert_eq!(c_float("99.5"), Some(99.5));
        assert_eq!(c_float("1e3x"), Some(1000.0));
        assert_eq!(c_float("."), None);
    }
}
