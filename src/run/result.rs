//! How a job's config seeds its result: the result types know nothing of
//! the run (see `crate::result`), so what a job starts its accounts with
//! is read here, beside the config it comes from.

use std::sync::Arc;
use std::time::Duration;

use crate::result::options::{ReportOptions, Unified};
use crate::result::{JobResult, LatencyBuckets, PrioStats};
use crate::run::config::JobConfig;
use crate::stats::{CpuUsage, Histogram, LatencyMoments};

impl JobResult {
    /// A job's result before its first I/O: its name, group, depth,
    /// report options and priorities, and nothing counted.
    pub fn new(cfg: &JobConfig) -> Self {
        let mut result = JobResult {
            name: cfg.name.clone(),
            group: cfg.group,
            pid: 0,
            members: 1,
            dirs: Default::default(),
            runtime: Duration::ZERO,
            error: None,
            carried_on: false,
            warn_direct: false,
            stopped_in_setup: false,
            syncs: 0,
            sync_lat: LatencyMoments::default(),
            sync_hist: Histogram::default(),
            depths: [0; 7],
            submits: [0; 7],
            completes: [0; 7],
            latency: LatencyBuckets::default(),
            total_err: 0,
            first_error: 0,
            later_errors: Vec::new(),
            cpu: CpuUsage::default(),
            latency_depth: cfg.depth.iodepth,
            depth_mean: 0.0,
            depth_per_second: Vec::new(),
            steady: None,
            slowest: Default::default(),
            connection: None,
            report: cfg.reporting.report.clone(),
            ioprio: cfg.scheduling.default_ioprio,
            zone_resets: 0,
        };
        if let Some(cmdprio) = &cfg.scheduling.cmdprio {
            for (dir, list) in result.dirs.iter_mut().zip(&cmdprio.priorities) {
                if !list.is_empty() {
                    dir.prios = Some(list.iter().map(|&p| PrioStats::new(p)).collect());
                }
            }
        }
        result
    }

    /// A report slot fio counted but no stats=1 job filled (see
    /// `run::group_results`): fio prints it from a zeroed record, so it
    /// has no name, group -1, no job options or percentiles, and none of
    /// the job's settings but the global options of the document.
    pub fn unreported(cfg: &JobConfig) -> Self {
        let report = ReportOptions {
            description: String::new(),
            percentile_list: Vec::new(),
            percentile_precision: 0,
            clat_percentiles: false,
            lat_percentiles: false,
            slat_percentiles: false,
            sig_figs: 0,
            kb_base: 0,
            bits: false,
            unified: Unified::None,
            continue_on_error: false,
            latency_target_ns: 0,
            latency_window_us: 0,
            latency_percentile: 0.0,
            job_options: Vec::new(),
            ..(*cfg.reporting.report).clone()
        };
        JobResult {
            name: String::new(),
            group: u32::MAX,
            members: 0,
            dirs: Default::default(),
            latency_depth: 0,
            ioprio: 0,
            report: Arc::new(report),
            ..JobResult::new(cfg)
        }
    }
}
