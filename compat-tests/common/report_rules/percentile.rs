//! fio's percentile selection over a latency histogram, and the json+
//! histogram's buckets.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::bin_value;

/// The histogram's last bucket, which holds every latency from 2^34 ns on.
pub const LAST_BUCKET: usize = 1855;

/// The histogram bucket of a latency of `ns`: values below 128 have a
/// bucket each; above, every power of two is cut into 64 equal buckets
/// (the last bucket takes everything from 2^34 ns on).
pub fn bucket_of(ns: u64) -> usize {
    if ns < 128 {
        return ns as usize;
    }
    let top_bit = 63 - ns.leading_zeros() as usize;
    let dropped = top_bit - 6;
    ((dropped + 1) * 64 + ((ns >> dropped) & 63) as usize).min(LAST_BUCKET)
}

/// The value fio reports for a bucket (its json+ key and percentile
/// value): its own value below 128, else the middle of the range it covers.
pub fn bucket_middle(idx: usize) -> u64 {
    bin_value(idx, 0.5) as u64
}

/// Half the width of a bucket: how far a latency in it may lie from the
/// value reported for it (0 below 128, where each value has its own).
pub fn bucket_half_width(idx: usize) -> f64 {
    bin_value(idx, 1.0) - bin_value(idx, 0.5)
}

/// A positive binary number held exactly as `significand × 2^exponent`.
#[derive(Clone, Copy, Debug)]
struct Exact {
    significand: u128,
    exponent: i32,
}

impl Exact {
    fn of_f64(x: f64) -> Exact {
        let bits = x.to_bits();
        let stored_exp = ((bits >> 52) & 0x7ff) as i32;
        let fraction = u128::from(bits & ((1 << 52) - 1));
        if stored_exp == 0 {
            Exact {
                significand: fraction,
                exponent: -1074,
            }
        } else {
            Exact {
                significand: fraction | (1 << 52),
                exponent: stored_exp - 1075,
            }
        }
    }

    /// The product as the x87 unit leaves it: rounded to a 64-bit
    /// significand, to nearest, ties to even.
    fn times_x87(self, other: Exact) -> Exact {
        let product = self.significand * other.significand;
        let exponent = self.exponent + other.exponent;
        let width = 128 - product.leading_zeros() as i32;
        if width <= 64 {
            return Exact {
                significand: product,
                exponent,
            };
        }
        let drop = width - 64;
        let kept = product >> drop;
        let lost = product - (kept << drop);
        let half = 1u128 << (drop - 1);
        let up = lost > half || (lost == half && kept & 1 == 1);
        Exact {
            significand: kept + u128::from(up),
            exponent: exponent + drop,
        }
    }

    fn ceil(self) -> u128 {
        if self.exponent >= 0 {
            return self.significand << self.exponent;
        }
        let shift = -self.exponent;
        if shift >= 127 {
            return u128::from(self.significand != 0);
        }
        (self.significand + (1u128 << shift) - 1) >> shift
    }
}

/// How many of `n` samples the running count must reach for the p-th
/// percentile. fio writes `p / 100 × n` in long double; Debian's x86-64
/// build evaluates it as `p × (0.01 × n)` on the x87 unit, 0.01 being
/// 1/100 rounded to 64 bits (0xA3D70A3D70A3D70A × 2^-70) and each product
/// rounded to 64 bits (spec §3.2). Plain f64 arithmetic picks another
/// sample in hundreds of cases, e.g. p = 99.95 of n = 2000.
pub fn rank_threshold(p: f64, n: u64) -> u128 {
    let hundredth = Exact {
        significand: 0xA3D7_0A3D_70A3_D70A,
        exponent: -70,
    };
    let count = Exact {
        significand: u128::from(n),
        exponent: 0,
    };
    Exact::of_f64(p)
        .times_x87(hundredth.times_x87(count))
        .ceil()
}

/// fio's percentile rule over a histogram given as json+ bins (bucket
/// value → count): each percentile of `list` (ascending) is the value of
/// the first bucket where the running count reaches its threshold over
/// all the samples. With no samples every percentile is bucket 0's value.
pub fn percentiles_of_bins(bins: &BTreeMap<u64, u64>, list: &[f64]) -> Vec<u64> {
    let n: u64 = bins.values().sum();
    let mut buckets: Vec<(usize, u64)> = bins.iter().map(|(v, c)| (bucket_of(*v), *c)).collect();
    buckets.sort();
    let mut out = Vec::new();
    let mut seen = 0u128;
    let mut at = 0;
    for p in list {
        let wanted = rank_threshold(*p, n);
        while seen < wanted && at < buckets.len() {
            seen += u128::from(buckets[at].1);
            at += 1;
        }
        out.push(match at {
            0 => 0,
            _ if seen >= wanted => bucket_middle(buckets[at - 1].0),
            _ => u64::MAX,
        });
    }
    out
}

/// The json+ `bins` of a latency object as numbers.
pub fn bins_of(latency: &Value) -> BTreeMap<u64, u64> {
    latency["bins"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

/// A latency object's percentile map as (percentile, value) pairs.
pub fn percentile_map(latency: &Value) -> Vec<(f64, u64)> {
    latency["percentile"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
                .collect()
        })
        .unwrap_or_default()
}
