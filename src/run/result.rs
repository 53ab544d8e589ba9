//! What a job measured, and its plain JSON form (a dump of the collected
//! statistics until the fio-format reports exist).

use std::time::Duration;

use serde_json::{Value as J, json};

use super::config::JobConfig;
use crate::engine::Dir;
use crate::stats::{Histogram, Moments};

/// One direction's numbers.
#[derive(Debug, Clone, Default)]
pub struct DirStats {
    pub ios: u64,
    pub bytes: u64,
    /// Issued I/Os (including any that failed or were cut short).
    pub issued: u64,
    /// Submission latency (asynchronous engines only), completion latency
    /// and total latency, in nanoseconds.
    pub slat: Moments,
    pub clat: Moments,
    pub clat_hist: Histogram,
    pub lat: Moments,
}

/// A job's result.
#[derive(Debug, Clone)]
pub struct JobResult {
    pub name: String,
    pub group: u32,
    pub dirs: [DirStats; 3],
    pub runtime: Duration,
    /// errno and message of the error that ended the job.
    pub error: Option<(i32, String)>,
    /// fsync calls issued (fdatasync calls are timed but not counted
    /// here, as in fio's report).
    pub syncs: u64,
    /// Latency of every periodic fsync and fdatasync, in nanoseconds.
    pub sync_lat: Moments,
    /// How many I/Os were in flight after each submitted batch, counted
    /// in fio's depth buckets 1, 2, 4, 8, 16, 32, >=64.
    pub depths: [u64; 7],
}

impl JobResult {
    pub fn new(cfg: &JobConfig) -> Self {
        JobResult {
            name: cfg.name.clone(),
            group: cfg.group,
            dirs: Default::default(),
            runtime: Duration::ZERO,
            error: None,
            syncs: 0,
            sync_lat: Moments::default(),
            depths: [0; 7],
        }
    }

    pub fn fail(&mut self, errno: i32, message: String) {
        self.error.get_or_insert((errno, message));
    }

    #[inline]
    pub fn issue(&mut self, dir: Dir) {
        self.dirs[dir as usize].issued += 1;
    }

    #[inline]
    pub fn dir_mut(&mut self, dir: Dir) -> &mut DirStats {
        &mut self.dirs[dir as usize]
    }

    #[inline]
    pub fn depth_sample(&mut self, depth: usize) {
        let bucket = match depth {
            0 | 1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            8..=15 => 3,
            16..=31 => 4,
            32..=63 => 5,
            _ => 6,
        };
        self.depths[bucket] += 1;
    }

    pub fn finish(&mut self, runtime: Duration) {
        self.runtime = runtime;
    }

    /// Folds another job's numbers into this one, as fio's
    /// `group_reporting` reports a group as one job: counts and histograms
    /// add up, latencies combine, the runtime is the longest, and the
    /// first error is kept.
    pub fn absorb(&mut self, other: &JobResult) {
        for (mine, theirs) in self.dirs.iter_mut().zip(&other.dirs) {
            mine.ios += theirs.ios;
            mine.bytes += theirs.bytes;
            mine.issued += theirs.issued;
            mine.slat.merge(&theirs.slat);
            mine.clat.merge(&theirs.clat);
            mine.clat_hist.merge(&theirs.clat_hist);
            mine.lat.merge(&theirs.lat);
        }
        self.runtime = self.runtime.max(other.runtime);
        if self.error.is_none() {
            self.error = other.error.clone();
        }
        self.syncs += other.syncs;
        self.sync_lat.merge(&other.sync_lat);
        for (mine, theirs) in self.depths.iter_mut().zip(other.depths) {
            *mine += theirs;
        }
    }

    /// The plain JSON dump of this job.
    pub fn to_json(&self) -> J {
        let moments = |m: &Moments| json!({"min": m.min, "max": m.max, "mean": m.mean(), "stddev": m.stddev(), "N": m.count});
        let dir = |d: &DirStats| {
            let mut clat = moments(&d.clat);
            clat["bins"] = d.clat_hist.bins().map(|(v, c)| json!([v, c])).collect();
            json!({
                                "io_bytes": d.bytes,
                "io_kbytes": d.bytes >> 10,
                "total_ios": d.ios,
                "issued": d.issued,
                "slat_ns": moments(&d.slat),
                "clat_ns": clat,
                "lat_ns": moments(&d.lat),
            })
        };
        let depths: serde_json::Map<String, J> = ["1", "2", "4", "8", "16", "32", ">=64"]
            .iter()
            .zip(self.depths)
            .map(|(k, v)| (k.to_string(), J::from(v)))
            .collect();
        json!({
            "jobname": self.name,
            "groupid": self.group,
            "error": self.error.as_ref().map_or(0, |e| e.0),
            "error_message": self.error.as_ref().map(|e| e.1.clone()),
            "runtime_ms": self.runtime.as_millis() as u64,
            "read": dir(&self.dirs[0]),
            "write": dir(&self.dirs[1]),
                        "trim": dir(&self.dirs[2]),
            "sync": {"total_ios": self.syncs, "lat_ns": moments(&self.sync_lat)},
            "iodepth_level": depths,
        })
    }
}
