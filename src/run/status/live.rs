//! Live metrics, the job's side: what each job completed since it last
//! handed its numbers over. A job that is watched live (NDJSON status
//! lines, the OpenMetrics endpoint) counts every finished I/O here too,
//! and every publication (~100 ms) adds this tally to the one its
//! progress slot holds for the watcher, then starts afresh. The watcher
//! swaps that shared tally for an empty one at each interval, so both
//! sides reuse the same few histograms: memory stays bounded however
//! long the run, and the I/O path allocates nothing after the first
//! samples.

use crate::run::pacing::clock::Nanos;
use crate::stats::LatencyMoments;
use crate::stats::fine::FineHistogram;

/// One latency series of an interval: its exact moments (count, min,
/// max, mean) and its distribution.
#[derive(Debug, Clone, Default)]
pub struct Latencies {
    pub moments: LatencyMoments,
    pub hist: FineHistogram,
}

impl Latencies {
    #[inline]
    fn add(&mut self, ns: u64) {
        self.moments.add(ns);
        self.hist.add(ns);
    }

    fn merge(&mut self, other: &Latencies) {
        self.moments.merge(&other.moments);
        self.hist.merge(&other.hist);
    }

    fn clear(&mut self) {
        self.moments = LatencyMoments::default();
        self.hist.clear();
    }

    /// The p-th percentile of the interval (0 when it had no samples).
    pub fn percentile(&self, p: f64) -> u64 {
        self.hist.percentile(p, &self.moments)
    }
}

/// One direction's share of an interval.
#[derive(Debug, Clone, Default)]
pub struct TallyDir {
    /// Completed I/Os and the bytes they moved.
    pub ios: u64,
    pub bytes: u64,
    /// Completion latency, total latency, and latency from the time a
    /// rate-capped job meant to issue the I/O (see `DirStats::intended`).
    pub clat: Latencies,
    pub lat: Latencies,
    pub intended: Latencies,
}

/// What a job completed between `since` and `until` (monotonic clock).
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub since: Nanos,
    pub until: Nanos,
    pub dirs: [TallyDir; 3],
}

/// The latencies one finished I/O measured (`None`: not measured).
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub clat: Option<u64>,
    pub lat: Option<u64>,
    pub intended: Option<u64>,
}

impl Tally {
    /// A tally counting from `since`.
    pub fn starting(since: Nanos) -> Tally {
        Tally {
            since,
            until: since,
            ..Tally::default()
        }
    }

    /// Counts one finished I/O of direction `dir` that moved `bytes`.
    #[inline]
    pub fn record(&mut self, dir: usize, bytes: u64, m: Measured) {
        let d = &mut self.dirs[dir];
        d.ios += 1;
        d.bytes += bytes;
        for (series, ns) in [
            (&mut d.clat, m.clat),
            (&mut d.lat, m.lat),
            (&mut d.intended, m.intended),
        ] {
            if let Some(ns) = ns {
                series.add(ns);
            }
        }
    }

    /// Adds a later tally of the same job: the span grows to cover both.
    pub fn absorb(&mut self, later: &Tally) {
        if self.is_empty_span() {
            self.since = later.since;
        }
        self.until = later.until;
        for (mine, theirs) in self.dirs.iter_mut().zip(&later.dirs) {
            mine.ios += theirs.ios;
            mine.bytes += theirs.bytes;
            mine.clat.merge(&theirs.clat);
            mine.lat.merge(&theirs.lat);
            mine.intended.merge(&theirs.intended);
        }
    }

    /// Empties the tally, which now counts from `since`; its histograms
    /// keep their memory.
    pub fn restart(&mut self, since: Nanos) {
        self.since = since;
        self.until = since;
        for d in &mut self.dirs {
            d.ios = 0;
            d.bytes = 0;
            d.clat.clear();
            d.lat.clear();
            d.intended.clear();
        }
    }

    /// Whether the tally covers no time yet (nothing was handed over).
    pub fn is_empty_span(&self) -> bool {
        self.until <= self.since
    }

    /// The time covered, in seconds.
    pub fn seconds(&self) -> f64 {
        self.until.saturating_sub(self.since) as f64 / 1e9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(ns: u64) -> Measured {
        Measured {
            clat: Some(ns),
            lat: Some(ns + 10),
            intended: None,
        }
    }

    #[test]
    fn handed_over_tallies_add_up_and_restart_empty() {
        let mut job = Tally::starting(1_000);
        let mut shared = Tally::default();
        for ns in [100, 200, 300] {
            job.record(0, 4096, io(ns));
        }
        job.until = 2_000;
        shared.absorb(&job);
        job.restart(2_000);
        job.record(0, 4096, io(5_000));
        job.record(1, 512, io(7));
        job.until = 3_000;
        shared.absorb(&job);
        assert_eq!((shared.since, shared.until), (1_000, 3_000));
        assert_eq!(shared.dirs[0].ios, 4);
        assert_eq!(shared.dirs[0].bytes, 4 * 4096);
        assert_eq!(shared.dirs[0].clat.moments.max, 5_000);
        assert_eq!(shared.dirs[0].clat.percentile(100.0), 5_000);
        assert_eq!(shared.dirs[1].lat.moments.min, 17);
        assert_eq!(shared.dirs[2].intended.moments.count, 0);
        shared.restart(0);
        assert!(shared.is_empty_span());
        assert_eq!(shared.dirs[0].clat.percentile(99.0), 0);
        assert_eq!(shared.dirs[0].ios, 0);
    }
}
