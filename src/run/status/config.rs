//! The reporting part of a job's config: what the job measures per I/O,
//! how often it samples bandwidth and IOPS, and how its results are
//! reported.

use std::sync::Arc;
use std::time::Duration;

use crate::engine::{self, caps};
use crate::plan::JobSpec;
use crate::result::options::ReportOptions;

/// What the job measures and how it is reported.
#[derive(Debug, Clone)]
pub struct ReportingConfig {
    pub report: Arc<ReportOptions>,
    /// Which latencies are measured (disable_* and gtod_reduce turn
    /// them off).
    pub measure: Measure,
    /// stats=0: the job runs, but fio gives it no slot of its own in the
    /// reports and logs nothing (see `run::group_results`).
    pub stats: bool,
    /// Whether each I/O is a latency sample (not for the file-operation
    /// engines, whose samples are their file operations).
    pub io_stats: bool,
    /// How often bandwidth and IOPS are sampled (bwavgtime, iopsavgtime).
    pub bw_every: Duration,
    pub iops_every: Duration,
    /// Report the job's group as one (fio's group_reporting).
    pub group_reporting: bool,
    /// Watch the disks under the job's files (disk_util).
    pub disk_util: bool,
}

impl ReportingConfig {
    /// Reads the report options and what the job measures.
    pub fn from_spec(job: &JobSpec, kind: &engine::Kind) -> Self {
        let report = ReportOptions::from_spec(job);
        let reduced = job.flag("gtod_reduce");
        let measure = Measure {
            slat: !reduced && !job.flag("disable_slat"),
            clat: !reduced && !job.flag("disable_clat"),
            lat: !reduced && !job.flag("disable_lat"),
            bw: !job.flag("disable_bw_measurement"),
            slat_hist: report.slat_percentiles,
            clat_hist: report.clat_percentiles,
            lat_hist: report.lat_percentiles,
        };
        // A bw (IOPS) log sets the sampling interval to its own averaging
        // unless bwavgtime (iopsavgtime) is set; 0 means per I/O.
        let every = |name, log| {
            let ms = match job.setting(name) {
                Some(s) => s.value.number().unwrap_or(500),
                None if job.setting(log).is_some() => job.num("log_avg_msec").unwrap_or(0),
                None => 500,
            };
            Duration::from_millis(ms.max(1))
        };
        ReportingConfig {
            measure,
            stats: job.flag("stats"),
            io_stats: !kind.has(caps::NO_STATS),
            bw_every: every("bwavgtime", "write_bw_log"),
            iops_every: every("iopsavgtime", "write_iops_log"),
            group_reporting: job.flag("group_reporting"),
            disk_util: job.flag("disk_util"),
            report: Arc::new(report),
        }
    }
}

/// What a job measures per I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measure {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
    pub bw: bool,
    /// Feed the slat, clat and lat histograms (their percentiles are on).
    pub slat_hist: bool,
    pub clat_hist: bool,
    pub lat_hist: bool,
}
