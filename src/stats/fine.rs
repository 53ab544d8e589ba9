//! A high-resolution latency histogram beside fio's: log-linear buckets
//! (128 per power of two, so any value is kept within 0.4 %) from 1 ns up
//! to 2^46 ns (about 19.5 hours), so that no tail is clipped at fio's
//! 17-second ceiling. Its counters are allocated on the first sample, so
//! unused directions cost nothing.

use super::LatencyMoments;
use super::counters::LazyCounters;

/// Sub-buckets per power of two (2^7).
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;
/// Powers of two covered above the exact range.
const GROUPS: u64 = 46 - SUB_BITS as u64 + 1;
const BUCKETS: usize = ((GROUPS + 1) * SUB) as usize;

/// Latency counts in nanoseconds. The exact minimum, maximum and count
/// come from the statistic's moments, which are kept anyway.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FineHistogram {
    counts: LazyCounters<BUCKETS>,
}

fn bucket_of(ns: u64) -> usize {
    if ns < SUB {
        return ns as usize;
    }
    let msb = 63 - ns.leading_zeros() as u64;
    let shift = msb - SUB_BITS as u64;
    let index = (shift + 1) * SUB + ((ns >> shift) & (SUB - 1));
    (index as usize).min(BUCKETS - 1)
}

/// The smallest and largest value a bucket holds.
fn bounds_of(bucket: usize) -> (u64, u64) {
    let b = bucket as u64;
    if b < SUB {
        return (b, b);
    }
    let shift = b / SUB - 1;
    let low = (SUB + b % SUB) << shift;
    (low, low + (1u64 << shift) - 1)
}

impl FineHistogram {
    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.counts.add(bucket_of(ns), 1);
    }

    /// Empties the histogram but keeps its counters, so that a histogram
    /// reused interval after interval allocates only once.
    pub fn clear(&mut self) {
        self.counts.clear();
    }

    pub fn merge(&mut self, other: &FineHistogram) {
        self.counts.merge(&other.counts);
    }

    /// The non-empty buckets by index, with their counts (for `ferrio
    /// merge`).
    pub fn buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts.nonzero()
    }

    /// The same counts as an HdrHistogram (2 significant digits: 128
    /// sub-buckets per power of two above 256, as fine as these buckets),
    /// each bucket's samples recorded at its lowest value, so that tools
    /// that read HdrHistogram's interchange format see these buckets.
    pub fn to_hdr(&self) -> hdrhistogram::Histogram<u64> {
        // Up to the top bucket's last value: samples past 2^46 ns land
        // there (it starts above 2^46).
        let top = bounds_of(BUCKETS - 1).1;
        let mut hdr = hdrhistogram::Histogram::new_with_bounds(1, top, 2)
            .expect("the layout's bounds are valid for HdrHistogram");
        for (bucket, count) in self.buckets() {
            // Every bucket's lowest value is within 1..=top.
            let _ = hdr.record_n(bounds_of(bucket).0, count);
        }
        hdr
    }

    /// Adds `n` samples to bucket `bucket` (a saved histogram read back);
    /// `None` for a bucket the layout does not have.
    pub fn add_to_bucket(&mut self, bucket: usize, n: u64) -> Option<()> {
        if bucket >= BUCKETS {
            return None;
        }
        self.counts.add(bucket, n);
        Some(())
    }

    /// The p-th percentile (nearest rank) of the `m.count` samples whose
    /// exact extremes are `m.min` and `m.max`: the middle of the bucket
    /// that holds the ⌈p/100·N⌉-th smallest sample, kept within the
    /// extremes, so never above the largest latency seen.
    pub fn percentile(&self, p: f64, m: &LatencyMoments) -> u64 {
        let Some(counts) = self.counts.all() else {
            return 0;
        };
        let total = m.count;
        if total == 0 {
            return 0;
        }
        let rank = ((p / 100.0 * total as f64).ceil() as u64).clamp(1, total);
        // The smallest and largest samples are known exactly.
        if rank == total {
            return m.max;
        }
        if rank == 1 {
            return m.min;
        }
        let mut seen = 0;
        for (bucket, c) in counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, high) = bounds_of(bucket);
                return (low + (high - low) / 2).clamp(m.min, m.max);
            }
        }
        m.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_lands_in_a_bucket_that_holds_it() {
        for ns in [
            0,
            1,
            127,
            128,
            129,
            1000,
            47_360,
            5_000_000,
            17_179_869_184,
            3_600_000_000_000,
        ] {
            let (low, high) = bounds_of(bucket_of(ns));
            assert!(low <= ns && ns <= high, "{ns} in {low}..={high}");
            assert!((high - low) as f64 <= ns as f64 / 127.0 + 1.0);
        }
    }

    #[test]
    fn tails_beyond_fios_ceiling_are_kept() {
        let mut h = FineHistogram::default();
        let mut m = LatencyMoments::default();
        for ms in 1..=100u64 {
            h.add(ms * 1_000_000);
            m.add(ms * 1_000_000);
        }
        // An hour-long outlier: fio's histogram would report 17.1 s.
        h.add(3_600_000_000_000);
        m.add(3_600_000_000_000);
        assert_eq!(h.percentile(100.0, &m), 3_600_000_000_000);
        let p50 = h.percentile(50.0, &m) as f64;
        assert!((p50 - 51e6).abs() / 51e6 < 0.005, "{p50}");
        assert!(h.percentile(99.99, &m) <= m.max);
    }

    #[test]
    fn the_hdr_copy_keeps_every_bucket() {
        let mut h = FineHistogram::default();
        for ns in [
            0,
            5,
            127,
            128,
            1000,
            1001,
            47_360,
            5_000_000,
            3_600_000_000_000,
            // Past 2^46 ns: the top bucket, which starts above 2^46.
            100_000_000_000_000,
        ] {
            h.add(ns);
        }
        let hdr = h.to_hdr();
        assert_eq!(hdr.len(), 10);
        let mut seen: Vec<(u64, u64)> = hdr
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect();
        seen.sort();
        // Each bucket comes back at an HdrHistogram value inside it.
        let buckets: Vec<(usize, u64)> = h.buckets().collect();
        assert_eq!(seen.len(), buckets.len());
        for ((value, count), (bucket, n)) in seen.iter().zip(&buckets) {
            let (low, high) = bounds_of(*bucket);
            assert!(low <= *value && *value <= high, "{value} in {low}..={high}");
            assert_eq!(count, n);
        }
    }
}
