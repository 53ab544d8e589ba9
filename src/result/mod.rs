//! What a job measured: everything fio's reports are computed from, and
//! the options that say how it is reported. The run fills these types
//! (`run::result` seeds a job's from its config) and the reports read
//! them; this module reads neither.

pub mod live_job;
pub mod options;
pub mod slowest;
pub mod steady;

use std::sync::Arc;
use std::time::Duration;

use crate::engine::Dir;
use crate::stats::fine::FineHistogram;
use crate::stats::{CpuUsage, Histogram, LatencyMoments, Moments};
use options::ReportOptions;
use steady::SteadyResult;

/// One direction's numbers.
#[derive(Debug, Clone, Default)]
pub struct DirStats {
    /// Completed I/Os and the bytes they moved.
    pub ios: u64,
    pub bytes: u64,
    /// Issued I/Os (including any that failed or were cut short): what
    /// fio's IOPS and `issued rwts` count.
    pub issued: u64,
    /// Completions that moved fewer bytes than asked.
    pub short: u64,
    /// Messages that never arrived (a UDP reader's gaps in the sender's
    /// sequence numbers).
    pub dropped: u64,
    /// Milliseconds spent in the I/O loop, rounded up (0 for a direction
    /// that moved no data).
    pub runtime_ms: u64,
    /// Submission latency (asynchronous engines only), completion latency
    /// and total latency, in nanoseconds.
    pub slat: LatencyMoments,
    pub clat: LatencyMoments,
    pub lat: LatencyMoments,
    /// fio's histograms of the same, fed while their percentiles are on.
    pub slat_hist: Histogram,
    pub clat_hist: Histogram,
    pub lat_hist: Histogram,
    /// High-resolution histograms of clat (always) and lat (with
    /// lat_percentiles): tails past fio's 17 s ceiling stay exact.
    pub clat_fine: FineHistogram,
    pub lat_fine: FineHistogram,
    /// For a direction under a rate cap (rate, rate_iops, poisson
    /// arrivals): the time from when the schedule meant each I/O to be
    /// issued to its completion. A stall delays the I/Os queued behind
    /// it, whose own clat stays short; this latency counts the wait, as
    /// wrk2 corrects for coordinated omission. ferrio's own measure.
    pub intended: LatencyMoments,
    pub intended_fine: FineHistogram,
    /// Bandwidth samples (KiB/s) and IOPS samples, taken every
    /// bw_avg_time / iops_avg_time.
    pub bw: Moments,
    pub iops: Moments,
    /// The same samples over time: (ms since the stats epoch, value).
    pub bw_series: Vec<(u64, u64)>,
    pub iops_series: Vec<(u64, u64)>,
    /// Completion latency (total latency under lat_percentiles) per I/O
    /// priority, when the job sends I/Os at several (fio's clat_prio):
    /// the job's own priority first.
    pub prios: Option<Vec<PrioStats>>,
}

/// The latencies of the I/Os sent at one priority.
#[derive(Debug, Clone, Default)]
pub struct PrioStats {
    pub ioprio: u16,
    pub lat: LatencyMoments,
    pub hist: Histogram,
}

impl PrioStats {
    pub fn new(ioprio: u16) -> Self {
        PrioStats {
            ioprio,
            ..PrioStats::default()
        }
    }
}

impl DirStats {
    /// Adds another record of the same direction: counts add up, the
    /// runtime is the longest, latencies combine, rate samples add up.
    pub fn absorb(&mut self, other: &DirStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.issued += other.issued;
        self.short += other.short;
        self.dropped += other.dropped;
        self.runtime_ms = self.runtime_ms.max(other.runtime_ms);
        self.slat.merge(&other.slat);
        self.clat.merge(&other.clat);
        self.lat.merge(&other.lat);
        self.slat_hist.merge(&other.slat_hist);
        self.clat_hist.merge(&other.clat_hist);
        self.lat_hist.merge(&other.lat_hist);
        self.clat_fine.merge(&other.clat_fine);
        self.lat_fine.merge(&other.lat_fine);
        self.intended.merge(&other.intended);
        self.intended_fine.merge(&other.intended_fine);
        self.bw.sum(&other.bw);
        self.iops.sum(&other.iops);
        // Jobs sample side by side: their rates add up, sample by sample.
        for (mine, theirs) in [
            (&mut self.bw_series, &other.bw_series),
            (&mut self.iops_series, &other.iops_series),
        ] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), (0, 0));
            }
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m = (m.0.max(t.0), m.1 + t.1);
            }
        }
    }

    /// Counts one latency under the priority entry `index`, if the
    /// direction reports priorities apart.
    #[inline]
    pub fn add_prio_sample(&mut self, index: u8, ns: u64, hist: bool) {
        if let Some(p) = self.prios.as_mut().and_then(|p| p.get_mut(index as usize)) {
            p.lat.add(ns);
            if hist {
                p.hist.add(ns);
            }
        }
    }

    /// The priorities with samples, when at least two have some (fio
    /// reports them apart only then).
    pub fn reported_prios(&self) -> Option<impl Iterator<Item = &PrioStats>> {
        let prios = self.prios.as_ref()?;
        let used = || prios.iter().filter(|p| p.lat.count > 0);
        (used().count() >= 2).then(used)
    }

    /// This direction as a single priority's entry: all its I/Os went
    /// at `ioprio`.
    fn as_single_prio(&self, ioprio: u16, lat_percentiles: bool) -> PrioStats {
        let (lat, hist) = if lat_percentiles {
            (self.lat, &self.lat_hist)
        } else {
            (self.clat, &self.clat_hist)
        };
        PrioStats {
            ioprio,
            lat,
            hist: hist.clone(),
        }
    }

    /// All directions as one (unified_rw_reporting's `mixed`).
    pub fn folded(dirs: &[DirStats; 3]) -> DirStats {
        let mut mixed = DirStats::default();
        for d in dirs {
            mixed.absorb(d);
        }
        mixed
    }
}

/// Completion latencies counted in fio's coarse buckets: below 1 µs by
/// nanoseconds, below 1 ms by microseconds, then by milliseconds. The
/// bounds are 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000 (2000, >=2000).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LatencyBuckets {
    pub ns: [u64; 10],
    pub us: [u64; 10],
    pub ms: [u64; 12],
}

impl LatencyBuckets {
    #[inline]
    pub fn add(&mut self, ns: u64) {
        if ns < 1000 {
            self.ns[coarse_bucket(ns)] += 1;
        } else if ns < 1_000_000 {
            self.us[coarse_bucket(ns / 1000)] += 1;
        } else {
            self.ms[coarse_bucket(ns / 1_000_000)] += 1;
        }
    }

    fn absorb(&mut self, other: &LatencyBuckets) {
        let pairs = self
            .ns
            .iter_mut()
            .chain(self.us.iter_mut())
            .chain(self.ms.iter_mut())
            .zip(other.ns.iter().chain(&other.us).chain(&other.ms));
        for (mine, theirs) in pairs {
            *mine += theirs;
        }
    }
}

/// The bucket of a value in 0..=1999 (or more, for milliseconds).
#[inline]
fn coarse_bucket(v: u64) -> usize {
    match v {
        0..=1 => 0,
        2..=3 => 1,
        4..=9 => 2,
        10..=19 => 3,
        20..=49 => 4,
        50..=99 => 5,
        100..=249 => 6,
        250..=499 => 7,
        500..=749 => 8,
        750..=999 => 9,
        1000..=1999 => 10,
        _ => 11,
    }
}

/// fio's buckets for depths (1, 2, 4, 8, 16, 32, >=64).
#[inline]
fn depth_bucket(depth: usize) -> usize {
    match depth {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// fio's buckets for submit and complete batch sizes (0, 4, 8, 16, 32,
/// 64, >=64).
#[inline]
fn batch_bucket(n: usize) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// Why a job ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobError {
    pub errno: i32,
    /// What failed, as fio names it in its error context (`io_u error`,
    /// `open(/path)`, ...).
    pub func: String,
    /// The message for stderr, naming the file, offset and errno.
    pub message: String,
}

impl JobError {
    /// fio's error context: `func=<what>, error=<strerror>`.
    pub fn context(&self) -> String {
        if self.func.is_empty() {
            return String::new();
        }
        // An error fio raised outside an I/O names its source place too,
        // and the func then carries it.
        if self.func.starts_with("file:") {
            return format!("{}, error={}", self.func, strerror(self.errno));
        }
        format!("func={}, error={}", self.func, strerror(self.errno))
    }
}

/// C's strerror text of an errno.
pub fn strerror(errno: i32) -> String {
    crate::strerror(&std::io::Error::from_raw_os_error(errno))
}

/// A job's result (or a group's, under group_reporting).
#[derive(Debug, Clone)]
pub struct JobResult {
    pub name: String,
    pub group: u32,
    /// The job thread's kernel id (fio's pid for thread jobs).
    pub pid: i32,
    /// Jobs folded into this result.
    pub members: u32,
    pub dirs: [DirStats; 3],
    /// From the end of ramp_time to the end of the job.
    pub runtime: Duration,
    /// The error that ended the job, or, under continue_on_error, the
    /// first error it carried on after (see `carried_on`).
    pub error: Option<JobError>,
    /// The job survived `error`: fio reports it but does not count the
    /// job as failed.
    pub carried_on: bool,
    /// fio's warning about a first direct I/O that failed is due for
    /// an error the job carried on after.
    pub warn_direct: bool,
    /// A stop (SIGINT, SIGTERM) interrupted the job's setup while it
    /// waited (a net listener for its peer): no error, but fio's job
    /// process says it was terminated.
    pub stopped_in_setup: bool,
    /// fsync calls issued (fdatasync calls are timed but not counted
    /// here, as in fio's report).
    pub syncs: u64,
    /// Latency of every periodic fsync and fdatasync, in nanoseconds.
    pub sync_lat: LatencyMoments,
    pub sync_hist: Histogram,
    /// I/Os handed to the engine, counted at the queue depth of the
    /// moment (fio's `IO depths`).
    pub depths: [u64; 7],
    /// Engine submit calls and reap calls by batch size.
    pub submits: [u64; 7],
    pub completes: [u64; 7],
    pub latency: LatencyBuckets,
    /// Errors counted under continue_on_error, and the first one's errno.
    pub total_err: u64,
    pub first_error: i32,
    /// The error lines of I/Os that failed after the one that ended the
    /// job (the rest of its batch, and those reaped as the job drained):
    /// fio prints one for every failed completion.
    pub later_errors: Vec<String>,
    pub cpu: CpuUsage,
    /// The queue depth fio reports on the `latency` line.
    pub latency_depth: usize,
    /// The time-weighted mean of the I/Os in flight, overall and per
    /// second (ferrio's own measure of the depth achieved).
    pub depth_mean: f64,
    pub depth_per_second: Vec<f64>,
    /// steadystate: the window of rates and whether it settled.
    pub steady: Option<SteadyResult>,
    /// The slowest I/Os and where they went (ferrio's own report).
    pub slowest: slowest::Slowest,
    /// Which connection to its storage the engine used (rbd and rados:
    /// the librados client), so jobs can tell whether they shared one.
    pub connection: Option<String>,
    pub report: Arc<ReportOptions>,
    /// The job's own I/O priority (prio/prioclass).
    pub ioprio: u16,
    /// zonemode=zbd: zones the job reset before writing them again.
    pub zone_resets: u64,
}

impl JobResult {
    /// Records the error that ends the job (the first one counts):
    /// `func` names what failed, `message` is the full text for stderr.
    pub fn fail(&mut self, errno: i32, func: &str, message: String) {
        match &mut self.error {
            // fio reports the error that ended the job in the context
            // of the first one it carried on after.
            Some(e) if self.carried_on => {
                e.errno = errno;
                e.message = message;
                self.carried_on = false;
            }
            Some(_) => {}
            None => {
                self.error = Some(JobError {
                    errno,
                    func: func.to_string(),
                    message,
                })
            }
        }
    }

    /// Whether an error ended the job.
    pub fn failed(&self) -> bool {
        self.error.is_some() && !self.carried_on
    }

    /// Counts an error under continue_on_error; the first one's errno is
    /// kept.
    pub fn count_error(&mut self, errno: i32) {
        self.total_err += 1;
        if self.first_error == 0 {
            self.first_error = errno;
        }
    }

    /// Records an error the job carries on after (continue_on_error):
    /// counted, and the first one reported with `func` as its context
    /// (empty for none).
    pub fn carry_on(&mut self, errno: i32, func: &str) {
        self.count_error(errno);
        if self.error.is_none() {
            self.error = Some(JobError {
                errno,
                func: func.to_string(),
                message: String::new(),
            });
            self.carried_on = true;
        }
    }

    /// The error a report shows: the job's own, else, under
    /// continue_on_error, the first error it went past (with an empty
    /// context, as fio has none for it); 0 when there was none.
    pub fn reported_error(&self) -> (i32, String) {
        match &self.error {
            Some(e) => (e.errno, e.context()),
            None if self.report.continue_on_error && self.first_error != 0 => {
                (self.first_error, String::new())
            }
            None => (0, String::new()),
        }
    }

    #[inline]
    pub fn issue(&mut self, dir: Dir) {
        self.dirs[dir as usize].issued += 1;
    }

    /// Takes back an issue the engine never started (a net link found
    /// closed), which fio does not count.
    pub fn unissue(&mut self, dir: Dir) {
        self.dirs[dir as usize].issued -= 1;
    }

    #[inline]
    pub fn dir_mut(&mut self, dir: Dir) -> &mut DirStats {
        &mut self.dirs[dir as usize]
    }

    /// `n` I/Os handed to the engine while `depth` were in the queue.
    #[inline]
    pub fn depth_sample(&mut self, depth: usize, n: usize) {
        self.depths[depth_bucket(depth)] += n as u64;
    }

    /// One engine submit call that sent `n` I/Os.
    #[inline]
    pub fn submitted(&mut self, n: usize) {
        self.submits[batch_bucket(n)] += 1;
    }

    /// One I/O (or sync) that the engine finished inside its queue call:
    /// counted at depth 1, and, for engines without a commit step, as one
    /// submit and one reap, as fio counts them.
    #[inline]
    pub fn done_in_queue(&mut self, counts_each_io: bool) {
        self.depth_sample(1, 1);
        if counts_each_io {
            self.submitted(1);
            self.reaped(1);
        }
    }

    /// One I/O that an engine without a commit step (posixaio) started
    /// inside its queue call: fio counts a submit and a reap of one.
    #[inline]
    pub fn done_in_queue_async(&mut self) {
        self.submitted(1);
        self.reaped(1);
    }

    /// One reap call that returned `n` completions.
    #[inline]
    pub fn reaped(&mut self, n: usize) {
        self.completes[batch_bucket(n)] += 1;
    }

    /// Closes the job's accounts: its runtime since `epoch` and each
    /// direction's runtime, which fio counts only for directions that
    /// moved data.
    pub fn finish(&mut self, runtime: Duration) {
        self.runtime = runtime;
        let ms = (self.runtime.as_micros() as u64).div_ceil(1000);
        for d in &mut self.dirs {
            if d.bytes > 0 {
                d.runtime_ms = ms;
            }
        }
    }

    /// Folds another job's numbers into this one, as fio's
    /// `group_reporting` reports a group as one job: counts, histograms,
    /// CPU use and runtimes add up, latencies combine, each direction's
    /// runtime is the longest, and the first error is kept.
    pub fn absorb(&mut self, other: &JobResult) {
        self.absorb_prios(other);
        for (mine, theirs) in self.dirs.iter_mut().zip(&other.dirs) {
            mine.absorb(theirs);
        }
        self.members += other.members;
        self.zone_resets += other.zone_resets;
        self.runtime += other.runtime;
        if self.error.is_none() {
            self.error = other.error.clone();
            self.carried_on = other.carried_on;
        }
        self.syncs += other.syncs;
        self.sync_lat.merge(&other.sync_lat);
        self.sync_hist.merge(&other.sync_hist);
        let maps = [
            (&mut self.depths, &other.depths),
            (&mut self.submits, &other.submits),
            (&mut self.completes, &other.completes),
        ];
        for (mine, theirs) in maps {
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
        self.latency.absorb(&other.latency);
        self.total_err += other.total_err;
        self.first_error = other.first_error;
        self.cpu.add(&other.cpu);
        self.latency_depth = other.latency_depth;
        // fio shows a merged group with its last job's options and
        // percentile settings (the name and description stay the first's).
        if !Arc::ptr_eq(&self.report, &other.report) {
            let theirs = &other.report;
            let mut report = (*self.report).clone();
            report.job_options = theirs.job_options.clone();
            report.percentile_list = theirs.percentile_list.clone();
            report.percentile_precision = theirs.percentile_precision;
            report.clat_percentiles = theirs.clat_percentiles;
            report.lat_percentiles = theirs.lat_percentiles;
            report.slat_percentiles = theirs.slat_percentiles;
            self.report = Arc::new(report);
        }
        // A reporting group shows the steady state its last job kept.
        if other.steady.is_some() {
            self.steady = other.steady.clone();
        }
        self.slowest.absorb(&other.slowest);
        // Jobs run side by side: their depths add up.
        self.depth_mean += other.depth_mean;
        let seconds = self
            .depth_per_second
            .len()
            .max(other.depth_per_second.len());
        self.depth_per_second.resize(seconds, 0.0);
        for (mine, theirs) in self
            .depth_per_second
            .iter_mut()
            .zip(&other.depth_per_second)
        {
            *mine += theirs;
        }
    }

    /// fio's per-priority latencies of a group: kept when any member
    /// sends I/Os at several priorities or the members' own priorities
    /// differ; a member at one priority adds its latencies under it.
    fn absorb_prios(&mut self, other: &JobResult) {
        let split = |r: &JobResult| r.dirs.iter().any(|d| d.prios.is_some());
        if !split(self) && !split(other) && self.ioprio == other.ioprio {
            return;
        }
        let lat_percentiles = self.report.lat_percentiles;
        for d in 0..2 {
            let (ioprio, mine) = (self.ioprio, &mut self.dirs[d]);
            if mine.prios.is_none() {
                mine.prios = Some(vec![mine.as_single_prio(ioprio, lat_percentiles)]);
            }
            let theirs = &other.dirs[d];
            let single;
            let theirs = match &theirs.prios {
                Some(list) => list.as_slice(),
                None => {
                    single = [theirs.as_single_prio(other.ioprio, other.report.lat_percentiles)];
                    &single[..]
                }
            };
            let list = mine.prios.as_mut().expect("set above");
            for t in theirs {
                match list.iter_mut().find(|p| p.ioprio == t.ioprio) {
                    Some(p) => {
                        p.lat.merge(&t.lat);
                        p.hist.merge(&t.hist);
                    }
                    None => list.push(t.clone()),
                }
            }
        }
    }

    /// All directions as one (unified_rw_reporting's `mixed`), with the
    /// per-priority latencies of every direction merged as fio merges
    /// them (a direction without its own list counts at the job's
    /// priority).
    pub fn mixed(&self) -> DirStats {
        let mut mixed = DirStats::folded(&self.dirs);
        if self.dirs.iter().all(|d| d.prios.is_none()) {
            return mixed;
        }
        let lat_percentiles = self.report.lat_percentiles;
        let mut list: Vec<PrioStats> = Vec::new();
        for d in &self.dirs {
            let single;
            let entries = match &d.prios {
                Some(l) => l.as_slice(),
                None => {
                    single = [d.as_single_prio(self.ioprio, lat_percentiles)];
                    &single[..]
                }
            };
            for e in entries {
                match list.iter_mut().find(|p| p.ioprio == e.ioprio) {
                    Some(p) => {
                        p.lat.merge(&e.lat);
                        p.hist.merge(&e.hist);
                    }
                    None => list.push(e.clone()),
                }
            }
        }
        mixed.prios = Some(list);
        mixed
    }

    /// Bytes moved and I/Os issued in all directions: fio prints a job's
    /// block only if either is non-zero.
    pub fn did_io(&self) -> bool {
        self.dirs.iter().any(|d| d.bytes > 0 || d.issued > 0)
    }

    /// I/Os issued in all directions, the denominator of fio's depth and
    /// latency distributions.
    pub fn issued(&self) -> u64 {
        self.dirs.iter().map(|d| d.issued).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarse_latency_buckets_follow_fio_bounds() {
        let mut b = LatencyBuckets::default();
        for ns in [
            0,
            1,
            999,
            1000,
            1999,
            2000,
            249_999,
            999_999,
            1_000_000,
            1_999_999_999,
        ] {
            b.add(ns);
        }
        b.add(2_000_000_000);
        b.add(u64::MAX);
        assert_eq!(b.ns[0], 2);
        assert_eq!(b.ns[9], 1);
        assert_eq!(b.us[0], 2);
        assert_eq!(b.us[1], 1);
        assert_eq!(b.us[6], 1);
        assert_eq!(b.us[9], 1);
        assert_eq!(b.ms[0], 1);
        assert_eq!(b.ms[10], 1);
        assert_eq!(b.ms[11], 2);
    }

    #[test]
    fn batch_and_depth_buckets() {
        let d: Vec<usize> = [1, 2, 3, 4, 8, 16, 31, 32, 63, 64]
            .map(depth_bucket)
            .to_vec();
        assert_eq!(d, [0, 1, 1, 2, 3, 4, 4, 5, 5, 6]);
        let b: Vec<usize> = [0, 1, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65]
            .map(batch_bucket)
            .to_vec();
        assert_eq!(b, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]);
    }
}
