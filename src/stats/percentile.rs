//! Percentiles from fio's latency histogram, selected exactly as fio 3.33
//! selects them: the p-th percentile is the value of the first bucket at
//! which the running count reaches `p / 100 × N`.
//!
//! The threshold is where exactness bites. Debian's x86-64 fio computes it
//! in x87 80-bit arithmetic as `p × (0.01 × N)`, with 0.01 rounded to a
//! 64-bit significand, and each product rounded to 64 significant bits.
//! Plain f64 arithmetic picks a different sample in hundreds of (N, p)
//! cases (e.g. every N = 2000·k at p = 99.95), so the products are
//! reproduced here in exact integer arithmetic.

use super::histogram::{BUCKETS, Histogram, value_of};

/// 0.01 as the x87 unit holds it: this significand times 2^-70.
const ONE_HUNDREDTH: u128 = 0xA3D7_0A3D_70A3_D70A;
const ONE_HUNDREDTH_EXP: i32 = -70;

/// fio's default `percentile_list`.
pub const DEFAULT_LIST: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// `m × 2^e` rounded to 64 significant bits, ties to even.
fn round64(m: u128, e: i32) -> (u128, i32) {
    let bits = 128 - m.leading_zeros() as i32;
    if bits <= 64 {
        return (m, e);
    }
    let shift = bits - 64;
    let mut q = m >> shift;
    let rest = m & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rest > half || (rest == half && q & 1 == 1) {
        q += 1;
        if q >> 64 != 0 {
            return (q >> 1, e + shift + 1);
        }
    }
    (q, e + shift)
}

/// The smallest count that reaches the p-th percentile of `n` samples:
/// `ceil(p × (0.01 × n))` in fio's extended precision.
pub fn threshold(p: f64, n: u64) -> u128 {
    let (k, k_exp) = round64(ONE_HUNDREDTH * n as u128, ONE_HUNDREDTH_EXP);
    // p as an exact binary fraction: mantissa × 2^exp.
    let bits = p.to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i32;
    let fraction = (bits & ((1u64 << 52) - 1)) as u128;
    let (p_m, p_exp) = if raw_exp == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u128 << 52), raw_exp - 1075)
    };
    let (t, t_exp) = round64(p_m * k, p_exp + k_exp);
    if t_exp >= 0 {
        return t.checked_shl(t_exp as u32).unwrap_or(u128::MAX);
    }
    let shift = -t_exp;
    if shift >= 128 {
        return u128::from(t > 0);
    }
    let whole = t >> shift;
    whole + u128::from(t & ((1u128 << shift) - 1) != 0)
}

/// How `percentile_list` values are used: sorted, at most 20, ending at
/// the first zero.
pub fn normalise_list(list: &[f64]) -> Vec<f64> {
    let mut list: Vec<f64> = list.iter().copied().take_while(|p| *p != 0.0).collect();
    list.truncate(20);
    list.sort_by(|a, b| a.total_cmp(b));
    list
}

/// The bucket values of each percentile of `list` (sorted), over `n`
/// samples of `hist`. With `n` = 0 every value is 0, as in fio.
pub fn percentiles(hist: &Histogram, n: u64, list: &[f64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(list.len());
    let mut cumulative: u128 = 0;
    let mut next = list.iter();
    let Some(mut wanted) = next.next() else {
        return out;
    };
    for bucket in 0..BUCKETS {
        cumulative += u128::from(hist.count(bucket));
        while cumulative >= threshold(*wanted, n) {
            out.push(value_of(bucket));
            match next.next() {
                Some(p) => wanted = p,
                None => return out,
            }
        }
    }
    // Not reached when n is the histogram's total; keep the list whole.
    out.resize(list.len(), value_of(BUCKETS - 1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_follow_fio_extended_precision() {
        // The spec's two decisive cases: the 30th percentile of 100
        // samples is the 30th sample, and the 99.95th of 2000 the 2000th.
        assert!(threshold(30.0, 100) <= 30);
        assert_eq!(threshold(99.95, 2000), 2000);
        assert_eq!(threshold(50.0, 10), 5);
        assert_eq!(threshold(1.0, 10), 1);
        assert_eq!(threshold(100.0, 7), 7);
        assert_eq!(threshold(1.0, 0), 0);
    }

    #[test]
    fn worked_example_of_the_spec() {
        let mut h = Histogram::default();
        let samples = [
            100, 130, 1000, 1500, 2000, 5000, 47000, 47360, 100_000, 5_000_000,
        ];
        for s in samples {
            h.add(s);
        }
        let got = percentiles(&h, 10, &DEFAULT_LIST);
        let want = [
            100, 100, 100, 131, 1004, 1496, 2008, 5024, 46848, 47360, 99840, 5_013_504, 5_013_504,
            5_013_504, 5_013_504, 5_013_504, 5_013_504,
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn no_samples_give_zeros() {
        let got = percentiles(&Histogram::default(), 0, &DEFAULT_LIST);
        assert_eq!(got, vec![0; 17]);
    }

    #[test]
    fn list_is_sorted_capped_and_cut_at_zero() {
        assert_eq!(normalise_list(&[90.0, 50.0, 0.0, 10.0]), vec![50.0, 90.0]);
        assert_eq!(normalise_list(&[1.0; 25]).len(), 20);
    }
}
