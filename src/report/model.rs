//! The result type every report format renders: the jobs' results as
//! fio groups them, each group's run-status aggregates, the disks' use,
//! and the rules of fio's that several formats share (bandwidth, IOPS,
//! CPU shares, distributions). It names no format, so that each format's
//! module depends on it alone.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::result::options::Unified;
use crate::result::{DirStats, JobResult};
use crate::stats::disk::DiskUsage;

/// One group's aggregate for one direction (fio's `Run status group`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupDir {
    pub min_run: u64,
    pub max_run: u64,
    pub min_bw: u64,
    pub max_bw: u64,
    pub io_bytes: u64,
    /// All bytes over the longest runtime, in bytes per second.
    pub agg: u64,
}

/// The aggregates of one group, with the number settings of its last
/// reported job.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupStats {
    pub id: u32,
    pub dirs: [GroupDir; 3],
    pub kb_base: u64,
    pub bits: bool,
    pub sig_figs: usize,
    pub mixed: bool,
    pub both: bool,
}

/// Everything a report is made of.
#[derive(Debug, Clone)]
pub struct Report {
    /// One result per reported job (or per group under group_reporting),
    /// with directions already folded for unified_rw_reporting=mixed.
    pub results: Vec<JobResult>,
    pub groups: Vec<GroupStats>,
    pub disks: Vec<DiskUsage>,
    pub global_options: Vec<(String, String)>,
    /// When the report is made, and how long since the run started.
    pub time: SystemTime,
    pub elapsed: Duration,
    pub terse_version: u32,
}

/// The group of a report slot that no job filled (fio's -1, see
/// `run::group_results`): it belongs to no group and has no aggregates.
pub const NO_GROUP: u32 = u32::MAX;

/// What fio reads as the group aggregates of a slot that no job filled:
/// nothing (its zeroed record never looks at them).
const UNGROUPED: GroupStats = GroupStats {
    id: NO_GROUP,
    dirs: [GroupDir {
        min_run: 0,
        max_run: 0,
        min_bw: 0,
        max_bw: 0,
        io_bytes: 0,
        agg: 0,
    }; 3],
    kb_base: 1024,
    bits: false,
    sig_figs: 4,
    mixed: false,
    both: false,
};

impl Report {
    /// `last_group`: the highest group id of the run's jobs; fio writes a
    /// `Run status` block for every group up to it, even one whose jobs
    /// all have stats=0.
    pub fn new(
        results: Vec<JobResult>,
        last_group: Option<u32>,
        disks: Vec<DiskUsage>,
        elapsed: Duration,
        terse_version: u32,
    ) -> Report {
        let results: Vec<JobResult> = results.into_iter().map(fold_mixed).collect();
        let global_options = results
            .last()
            .map(|r| r.report.global_options.clone())
            .unwrap_or_default();
        let groups = last_group
            .map(|last| (0..=last).map(|g| group_stats(g, &results)).collect())
            .unwrap_or_default();
        Report {
            results,
            groups,
            disks,
            global_options,
            time: SystemTime::now(),
            elapsed,
            terse_version,
        }
    }

    pub fn group(&self, id: u32) -> &GroupStats {
        self.groups.get(id as usize).unwrap_or(&UNGROUPED)
    }

    /// The report time as C's ctime prints it, without the newline.
    pub fn ctime(&self) -> String {
        ctime(self.time)
    }
}

/// unified_rw_reporting=mixed: every direction folded into the first.
fn fold_mixed(mut r: JobResult) -> JobResult {
    if r.report.unified == Unified::Mixed {
        let mixed = r.mixed();
        r.dirs = [mixed, DirStats::default(), DirStats::default()];
    }
    r
}

fn group_stats(id: u32, results: &[JobResult]) -> GroupStats {
    let unset = GroupDir {
        min_run: u64::MAX,
        max_run: 0,
        min_bw: u64::MAX,
        max_bw: 0,
        io_bytes: 0,
        agg: 0,
    };
    let mut g = GroupStats {
        id,
        dirs: [unset; 3],
        ..UNGROUPED
    };
    for r in results.iter().filter(|r| r.group == id) {
        g.kb_base = r.report.kb_base;
        g.bits = r.report.bits;
        g.sig_figs = r.report.sig_figs;
        g.mixed |= r.report.unified == Unified::Mixed;
        g.both |= r.report.unified == Unified::Both;
        for (gd, d) in g.dirs.iter_mut().zip(&r.dirs) {
            if d.runtime_ms == 0 {
                continue;
            }
            gd.min_run = gd.min_run.min(d.runtime_ms);
            gd.max_run = gd.max_run.max(d.runtime_ms);
            let bw = bytes_per_sec(d);
            gd.min_bw = gd.min_bw.min(bw);
            gd.max_bw = gd.max_bw.max(bw);
            gd.io_bytes = gd.io_bytes.saturating_add(d.bytes);
        }
    }
    for gd in &mut g.dirs {
        gd.agg = per_second(gd.io_bytes, gd.max_run);
    }
    g
}

/// A time as `Www Mmm dd hh:mm:ss yyyy` in local time (C's ctime).
pub fn ctime(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as libc::time_t;
    let mut buf = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes into the 64-byte buffer,
    // NUL-terminated.
    let ok = unsafe { !libc::ctime_r(&secs, buf.as_mut_ptr()).is_null() };
    if !ok {
        return String::new();
    }
    // SAFETY: the buffer holds a NUL-terminated string written above.
    let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    text.to_string_lossy().trim_end().to_string()
}

/// fio's distribution percentages: each bucket's share of `total`, with
/// any non-empty bucket below `floor` raised to it.
pub fn distribution(counts: &[u64], total: u64, floor: f64) -> Vec<f64> {
    counts
        .iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let share = c as f64 / total as f64 * 100.0;
            if share < floor && c > 0 { floor } else { share }
        })
        .collect()
}

/// CPU use in percent of the job's runtime: (user, system).
pub fn cpu_percent(r: &JobResult) -> (f64, f64) {
    let runtime = r.runtime.as_millis() as u64;
    if runtime == 0 {
        return (0.0, 0.0);
    }
    let pct = |us: u64| (us / 1000) as f64 * 100.0 / runtime as f64;
    (pct(r.cpu.user_us), pct(r.cpu.system_us))
}

/// A direction's share of its group's bandwidth, as fio's `per=` and JSON
/// `bw_agg` compute it from the truncated mean of the samples.
pub fn share_of_group(mean_kib: f64, agg: u64) -> f64 {
    if agg <= 1024 {
        return 100.0;
    }
    (mean_kib as i64 as f64 * 100.0 / (agg as f64 / 1024.0)).min(100.0)
}

/// fio's bandwidth of a direction, bytes per second (0 without runtime).
pub fn bytes_per_sec(d: &DirStats) -> u64 {
    per_second(d.bytes, d.runtime_ms)
}

/// fio's integer IOPS of a direction (issued I/Os over its runtime).
pub fn iops(d: &DirStats) -> u64 {
    per_second(d.issued, d.runtime_ms)
}

/// `count` per second over `ms` milliseconds (0 without a runtime), in
/// 128 bits so that a count near 2^64 (a merged result) cannot overflow
/// the scaling; a rate past u64 saturates.
fn per_second(count: u64, ms: u64) -> u64 {
    let rate = (u128::from(count) * 1000).checked_div(u128::from(ms));
    rate.map_or(0, |r| u64::try_from(r).unwrap_or(u64::MAX))
}
