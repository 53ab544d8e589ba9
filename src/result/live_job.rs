//! What the run-wide live reporters (the status line, the NDJSON
//! intervals, the OpenMetrics endpoint) read of each job's settings: a
//! copy made once before the run, so that report/ and metrics/ take no
//! part of the run's configuration.

use std::time::Duration;

/// One job's settings, as the live reporters describe it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveJob {
    pub name: String,
    pub group: u32,
    /// How many files the job does its I/O on.
    pub files: usize,
    /// The directions the job uses: read, write, trim.
    pub uses: [bool; 3],
    /// Whether its offsets are random.
    pub random: bool,
    /// rwmixread, for a job that both reads and writes.
    pub read_percent: u64,
    /// rate and rate_iops, per direction.
    pub rate_bytes: [u64; 3],
    pub rate_iops: [u64; 3],
    pub runtime: Option<Duration>,
    pub ramp: Duration,
    pub startdelay: Duration,
    pub time_based: bool,
    /// Bytes the job moves in all.
    pub io_bytes: u64,
    /// Whether it measures completion and total latency.
    pub clat: bool,
    pub lat: bool,
    /// How its numbers print: in binary units, to how many significant
    /// figures, with which percentiles.
    pub binary: bool,
    pub sig_figs: usize,
    pub percentile_list: Vec<f64>,
}

impl LiveJob {
    /// The directions it uses, as indexes (read 0, write 1, trim 2).
    pub fn directions(&self) -> impl Iterator<Item = usize> + '_ {
        (0..3).filter(|&d| self.uses[d])
    }
}
