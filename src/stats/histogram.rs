//! fio's latency histogram: 1856 counters over nanoseconds, exact below
//! 128 ns and in 64 buckets per power of two above, clamped at 2^34 ns.
//! Its layout decides every percentile and every json+ bin, so it is
//! reproduced exactly (see `../shared/spec/fio-output.md` §3.1).

use super::counters::LazyCounters;

/// Buckets per group (2^6).
const GROUP_BUCKETS: u64 = 64;
/// Number of buckets: 29 groups of 64.
pub const BUCKETS: usize = 1856;

/// A latency histogram in fio's layout. Its 1,856 counters (14.5 KiB)
/// are allocated on the first sample: a job keeps nine of these (slat,
/// clat and lat per direction) and most stay empty, which with many jobs
/// was most of the heap.
#[derive(Clone, Default)]
pub struct Histogram {
    counts: LazyCounters<BUCKETS>,
    total: u64,
}

/// Equal when they hold the same samples, allocated or not.
impl PartialEq for Histogram {
    fn eq(&self, other: &Self) -> bool {
        self.total == other.total && self.buckets().eq(other.buckets())
    }
}

impl Eq for Histogram {}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram")
            .field("total", &self.total)
            .finish()
    }
}

/// The bucket a latency of `ns` nanoseconds falls into.
pub fn bucket_of(ns: u64) -> usize {
    let msb = 63 - ns.max(1).leading_zeros() as u64;
    if msb <= 6 {
        return ns as usize;
    }
    let discarded = msb - 6;
    let index = (discarded + 1) * GROUP_BUCKETS + ((ns >> discarded) & (GROUP_BUCKETS - 1));
    (index as usize).min(BUCKETS - 1)
}

/// The value fio reports for a bucket: the bucket itself below 128, else
/// the middle of the bucket's range.
pub fn value_of(bucket: usize) -> u64 {
    let bucket = bucket as u64;
    if bucket < 2 * GROUP_BUCKETS {
        return bucket;
    }
    let discarded = bucket / GROUP_BUCKETS - 1;
    let low = 1u64 << (discarded + 6);
    // (offset + 0.5) * 2^discarded, kept in integers.
    low + ((2 * (bucket % GROUP_BUCKETS) + 1) << discarded) / 2
}

impl Histogram {
    /// Counts one latency sample.
    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.counts.add(bucket_of(ns), 1);
        self.total += 1;
    }

    /// Adds all of `other`'s samples (merging jobs or clients).
    pub fn merge(&mut self, other: &Histogram) {
        self.counts.merge(&other.counts);
        self.total += other.total;
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// Samples in one bucket.
    pub fn count(&self, bucket: usize) -> u64 {
        self.counts.get(bucket)
    }

    /// The non-empty buckets by index, with their counts: the compact form
    /// a result saves for `ferrio merge`.
    pub fn buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts.nonzero()
    }

    /// Adds `n` samples to bucket `bucket` (a saved histogram read back);
    /// `None` for a bucket fio's layout does not have.
    pub fn add_to_bucket(&mut self, bucket: usize, n: u64) -> Option<()> {
        if bucket >= BUCKETS {
            return None;
        }
        self.counts.add(bucket, n);
        self.total += n;
        Some(())
    }

    /// Non-empty buckets as (reported value, count), in order: json+ `bins`.
    pub fn bins(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.buckets().map(|(i, c)| (value_of(i), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked examples of the output specification (§3.1), which were
    /// checked against fio 3.33's json+ bins.
    #[test]
    fn layout_matches_fio() {
        let cases: &[(u64, usize, u64)] = &[
            (0, 0, 0),
            (1, 1, 1),
            (127, 127, 127),
            (128, 128, 129),
            (130, 129, 131),
            (255, 191, 255),
            (256, 192, 258),
            (1000, 317, 1004),
            (1024, 320, 1032),
            (2128, 386, 2128),
            (47000, 667, 46848),
            (47360, 668, 47360),
            (100_000, 737, 99840),
            (1_000_000, 954, 1_003_520),
            (5_000_000, 1100, 5_013_504),
            (1 << 33, 1792, 8_657_043_456),
            (100_000_000_000, 1855, 17_112_760_320),
        ];
        for &(ns, bucket, value) in cases {
            assert_eq!(bucket_of(ns), bucket, "bucket of {ns}");
            assert_eq!(value_of(bucket), value, "value of bucket {bucket}");
        }
    }

    /// Counters made by a zero-sample read-back equal none at all, and an
    /// empty histogram merged in leaves the other as it was.
    #[test]
    fn unallocated_counters_are_empty_ones() {
        let mut zeroed = Histogram::default();
        assert_eq!(zeroed.add_to_bucket(5, 0), Some(()));
        assert_eq!(zeroed, Histogram::default());
        assert_eq!(Histogram::default().count(5), 0);
        assert_eq!(zeroed.add_to_bucket(BUCKETS, 1), None);
        let mut one = Histogram::default();
        one.add(1000);
        let before = one.clone();
        one.merge(&Histogram::default());
        assert_eq!(one, before);
        let mut empty = Histogram::default();
        empty.merge(&before);
        assert_eq!((empty.total(), empty.count(317)), (1, 1));
    }

    #[test]
    fn every_bucket_holds_its_own_value() {
        for b in 0..BUCKETS {
            assert_eq!(bucket_of(value_of(b)), b);
        }
    }

    #[test]
    fn merging_adds_counts() {
        let mut a = Histogram::default();
        let mut b = Histogram::default();
        a.add(100);
        b.add(100);
        b.add(5000);
        a.merge(&b);
        assert_eq!(a.total(), 3);
        assert_eq!(
            a.bins().collect::<Vec<_>>(),
            vec![(100, 2), (bucket_value(5000), 1)]
        );
    }

    fn bucket_value(ns: u64) -> u64 {
        value_of(bucket_of(ns))
    }
}
