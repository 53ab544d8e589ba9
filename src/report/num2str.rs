//! fio's number formatting for humans: a value shrunk by powers of 1000
//! or 1024 until its integer part fits a width, with one rounded fraction
//! taken from the last division's remainder only (`../shared/spec/
//! fio-output.md` §2.3). Its quirks (`10.00KiB`, `99.9k` for 99950) are
//! part of the output scripts see, so they are reproduced.

/// What the number counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    None,
    Bytes,
    /// Bits: the value is multiplied by 8 first.
    Bits,
    BytesPerSec,
    BitsPerSec,
}

impl Unit {
    fn suffix(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Bytes => "B",
            Unit::Bits => "bit",
            Unit::BytesPerSec => "B/s",
            Unit::BitsPerSec => "bit/s",
        }
    }
}

const BINARY: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
const DECIMAL: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// `n` (counted in units of `base_mult`: 1, or 1024 for KiB inputs) in
/// at most about `maxlen` characters before the prefix.
pub fn num2str(n: u64, maxlen: usize, base_mult: u64, binary: bool, unit: Unit) -> String {
    let k: u64 = if binary { 1024 } else { 1000 };
    let prefixes = if binary { &BINARY } else { &DECIMAL };
    let mut p = 0;
    let mut base = base_mult;
    while base > 1 {
        base /= k;
        p += 1;
    }
    let mut n = if matches!(unit, Unit::Bits | Unit::BitsPerSec) {
        n.wrapping_mul(8)
    } else {
        n
    };
    let mut rem = None;
    let mut carry = 0;
    while p < 7 && digits(n) > maxlen {
        let r = n % k;
        n /= k;
        carry = u64::from(r >= k / 2);
        rem = Some(r);
        p += 1;
    }
    if p == 7 {
        p = 0;
    }
    let tail = format!("{}{}", prefixes[p], unit.suffix());
    let Some(rem) = rem else {
        return format!("{n}{tail}");
    };
    let room = maxlen as isize - digits(n) as isize;
    if room <= 1 {
        return format!("{}{tail}", n + carry);
    }
    let fraction = format!("{:.*}", (room - 1) as usize, rem as f64 / k as f64);
    if fraction.starts_with('1') {
        n += 1;
    }
    format!("{n}.{}{tail}", &fraction[2..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases the output specification records (§2.3), which were
    /// checked against fio's own routine.
    #[test]
    fn matches_fio_on_recorded_cases() {
        let none = |n| num2str(n, 4, 1, false, Unit::None);
        let cases = [
            (999, "999"),
            (1000, "1000"),
            (9999, "9999"),
            (10000, "10.0k"),
            (12345, "12.3k"),
            (99949, "99.9k"),
            (99950, "99.9k"),
            (123456, "123k"),
            (999499, "999k"),
            (999500, "1000k"),
            (1234567, "1235k"),
        ];
        for (n, want) in cases {
            assert_eq!(none(n), want, "{n}");
        }
        let bytes = |n| num2str(n, 4, 1, true, Unit::Bytes);
        let cases = [
            (4096, "4096B"),
            (16384, "16.0KiB"),
            (1048576, "1024KiB"),
            (10239, "10.00KiB"),
            (10240, "10.0KiB"),
            (102399, "100.0KiB"),
            (1047552, "1023KiB"),
            (38797312, "37.0MiB"),
        ];
        for (n, want) in cases {
            assert_eq!(bytes(n), want, "{n}");
        }
        assert_eq!(num2str(38797312, 4, 1, false, Unit::Bytes), "38.8MB");
        let rate = |n, binary| num2str(n, 4, 1, binary, Unit::BytesPerSec);
        assert_eq!(rate(19392512, true), "18.5MiB/s");
        assert_eq!(rate(19392512, false), "19.4MB/s");
        assert_eq!(rate(1048576000, true), "1000MiB/s");
        assert_eq!(rate(16777216000, true), "15.6GiB/s");
        assert_eq!(rate(0, true), "0B/s");
        let lat = |n| num2str(n, 6, 1, false, Unit::None);
        assert_eq!(lat(99999), "99999");
        assert_eq!(lat(1000000), "1000.0k");
        assert_eq!(lat(5550712), "5550.7k");
        assert_eq!(lat(123456789), "123457k");
        let eta = |n| num2str(n, 4, 1024, true, Unit::BytesPerSec);
        assert_eq!(eta(49392), "48.2MiB/s");
        assert_eq!(eta(12), "12KiB/s");
    }

    #[test]
    fn bits_and_tiny_widths() {
        // 223 KB/s in bits: fio's net-engine example 1784Kibit/s.
        assert_eq!(num2str(228352, 4, 1, true, Unit::BitsPerSec), "1784Kibit/s");
        assert_eq!(num2str(8388608, 0, 1, true, Unit::Bytes), "0B");
    }
}
