//! dd's closing line (`N bytes (SI, IEC) copied, S s, R/s`) for the jobs
//! of jobs/desktop/dd-*.fio, in the units and roundings GNU dd 9.1 uses,
//! from the figures fio's report holds: the bytes written and the
//! direction's runtime in milliseconds (so the rate is fio's bw_bytes).

use crate::result::JobResult;

/// dd's line for each dd job of the run: its name, then the line.
pub fn summary(results: &[JobResult]) -> String {
    let mut out = String::new();
    for r in results.iter().filter(|r| r.name.starts_with("dd-")) {
        let w = &r.dirs[1];
        out.push_str(&format!("{}: {}\n", r.name, line(w.bytes, w.runtime_ms)));
    }
    out
}

/// `N bytes (…) copied, S s, R/s` for `bytes` moved in `ms` milliseconds.
pub fn line(bytes: u64, ms: u64) -> String {
    let size = if bytes < 1000 {
        String::new()
    } else if bytes < 1024 {
        format!(" ({})", human(bytes, 1, 1, 1000))
    } else {
        format!(
            " ({}, {})",
            human(bytes, 1, 1, 1000),
            human(bytes, 1, 1, 1024)
        )
    };
    let rate = if ms == 0 {
        "Infinity B".to_string()
    } else {
        human(bytes, 1000, ms, 1000)
    };
    format!(
        "{bytes} bytes{size} copied, {} s, {rate}/s",
        c_g(ms as f64 / 1000.0)
    )
}

/// `n` units of `from` bytes counted in units of `to`, scaled to the
/// largest power of `base` (1000: kB, MB, …; 1024: KiB, MiB, …) that
/// leaves at least 1, rounded to the nearest as dd rounds: exact integer
/// arithmetic where `from` and `to` divide one another, floating point
/// otherwise, as gnulib's human_readable does.
pub fn human(n: u64, from: u64, to: u64, base: u64) -> String {
    let (digits, exponent) = if to <= from && from.is_multiple_of(to) {
        exact(u128::from(n) * u128::from(from / to), 0, 0, base)
    } else if to.is_multiple_of(from) {
        let divisor = u128::from(to / from);
        let n = u128::from(n);
        let r10 = (n % divisor) * 10;
        let r2 = (r10 % divisor) * 2;
        let rounding = if r2 < divisor {
            u32::from(r2 > 0)
        } else {
            2 + u32::from(r2 > divisor)
        };
        exact(n / divisor, (r10 / divisor) as u32, rounding, base)
    } else {
        inexact(n as f64 * (from as f64 / to as f64), base)
    };
    format!("{digits} {}", unit(exponent, base))
}

/// The unit of `base` to the power `exponent`, with dd's `B`.
fn unit(exponent: usize, base: u64) -> String {
    const LETTERS: &[u8] = b"KMGTPEZYRQ";
    match (exponent, base) {
        (0, _) => "B".to_string(),
        (1, 1000) => "kB".to_string(),
        (e, 1000) => format!("{}B", LETTERS[e - 1] as char),
        (e, _) => format!("{}iB", LETTERS[e - 1] as char),
    }
}

/// The exact path: `amt` and a tenth digit, with `rounding` saying where
/// the rest lies (0: nothing, 1: below half a tenth, 2: half, 3: above).
fn exact(mut amt: u128, mut tenths: u32, mut rounding: u32, base: u64) -> (String, usize) {
    let base32 = base as u32;
    let base = u128::from(base);
    let mut exponent = 0;
    let mut tenth_shown = None;
    if amt >= base {
        while amt >= base && exponent < 10 {
            let r10 = (amt % base) as u32 * 10 + tenths;
            let r2 = (r10 % base32) * 2 + (rounding >> 1);
            amt /= base;
            tenths = r10 / base32;
            rounding = if r2 < base32 {
                u32::from(r2 + rounding != 0)
            } else {
                2 + u32::from(base32 < r2 + rounding)
            };
            exponent += 1;
        }
        if amt < 10 {
            if 2 < rounding + (tenths & 1) {
                tenths += 1;
                rounding = 0;
                if tenths == 10 {
                    amt += 1;
                    tenths = 0;
                }
            }
            if amt < 10 {
                tenth_shown = Some(tenths);
                tenths = 0;
                rounding = 0;
            }
        }
    }
    if 5 < tenths + u32::from(0 < rounding + (amt & 1) as u32) {
        amt += 1;
        if amt == base && exponent < 10 && exponent > 0 {
            exponent += 1;
            amt = 1;
            tenth_shown = Some(0);
        }
    }
    let digits = match tenth_shown {
        Some(t) => format!("{amt}.{t}"),
        None => amt.to_string(),
    };
    (digits, exponent)
}

/// The floating-point path: at least one step of `base`, one decimal
/// unless that makes more than four characters (three for 1024).
fn inexact(amount: f64, base: u64) -> (String, usize) {
    let b = base as f64;
    let (mut e, mut exponent) = (b, 1);
    while e * b <= amount && exponent < 10 {
        e *= b;
        exponent += 1;
    }
    let scaled = amount / e;
    let one = format!("{scaled:.1}");
    let limit = if base == 1024 { 3 } else { 4 };
    if one.len() > limit {
        (format!("{scaled:.0}"), exponent)
    } else {
        (one, exponent)
    }
}

/// C's `%g`: six significant digits, trailing zeros dropped, in
/// exponent form below 1e-4 or from 1e6 on.
pub fn c_g(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let mantissa = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    let decimals = (5 - exp).max(0) as usize;
    trim_zeros(&format!("{x:.decimals$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_dd_prints_them() {
        // What dd 9.1 printed for these byte counts on this machine.
        assert_eq!(human(1_048_576, 1, 1, 1000), "1.0 MB");
        assert_eq!(human(1_048_576, 1, 1, 1024), "1.0 MiB");
        assert_eq!(human(16_777_216, 1, 1, 1000), "17 MB");
        assert_eq!(human(104_857_600, 1, 1, 1000), "105 MB");
        assert_eq!(human(104_857_600, 1, 1, 1024), "100 MiB");
        assert_eq!(human(1_048_576_000, 1, 1, 1000), "1.0 GB");
        assert_eq!(human(1_048_576_000, 1, 1, 1024), "1000 MiB");
        assert_eq!(human(1536, 1, 1, 1024), "1.5 KiB");
        assert_eq!(human(10240, 1, 1, 1000), "10 kB");
        assert_eq!(human(1023, 1, 1, 1000), "1.0 kB");
    }

    #[test]
    fn lines_take_dds_shape() {
        assert_eq!(line(999, 1), "999 bytes copied, 0.001 s, 999 kB/s");
        assert_eq!(
            line(1000, 3),
            "1000 bytes (1.0 kB) copied, 0.003 s, 333 kB/s"
        );
        assert_eq!(
            line(4_194_304, 7),
            "4194304 bytes (4.2 MB, 4.0 MiB) copied, 0.007 s, 599 MB/s"
        );
        // 1 s divides 1000 ms: dd's exact path.
        assert_eq!(
            line(104_857_600, 2000),
            "104857600 bytes (105 MB, 100 MiB) copied, 2 s, 52 MB/s"
        );
        assert_eq!(
            line(1 << 20, 0),
            "1048576 bytes (1.0 MB, 1.0 MiB) copied, 0 s, Infinity B/s"
        );
    }

    #[test]
    fn rates_keep_one_decimal_up_to_four_characters() {
        // 12.7 MB/s keeps its decimal, 474 MB/s does not (dd's lines).
        assert_eq!(human(1024, 1000, 3, 1000), "341 kB");
        assert_eq!(inexact(12_715_127.0, 1000).0, "12.7");
        assert_eq!(inexact(474_000_500.0, 1000).0, "474");
        assert_eq!(inexact(1_700_000_000.0, 1000), ("1.7".to_string(), 3));
        assert_eq!(inexact(500.0, 1000), ("0.5".to_string(), 1));
    }

    #[test]
    fn seconds_print_as_c_g() {
        assert_eq!(c_g(0.00221441), "0.00221441");
        assert_eq!(c_g(8.0534e-05), "8.0534e-05");
        assert_eq!(c_g(5.61136), "5.61136");
        assert_eq!(c_g(0.066), "0.066");
        assert_eq!(c_g(12.0), "12");
        assert_eq!(c_g(1234567.0), "1.23457e+06");
    }
}
