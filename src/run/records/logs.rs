//! fio's per-job log files (write_lat_log, write_bw_log, write_iops_log,
//! write_hist_log): entries are kept in memory while the job runs and
//! written when it ends, in fio 3.33's line format (`time, value, ddir,
//! bs[, offset], prio`), with fio's averaging windows and file names
//! (`../shared/spec/fio-output.md` §8).

use std::io::{self, Write};
use std::path::PathBuf;

use crate::run::records::log_codec::{self, Layout, Sample as Entry};
use crate::run::records::log_gz::{Compressor, Handoff};
use crate::stats::Histogram;
use crate::stats::histogram::BUCKETS;

/// The logs a job writes and how.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogPlan {
    /// File paths per kind (absent: not logged).
    pub lat: Option<PathBuf>,
    pub slat: Option<PathBuf>,
    pub clat: Option<PathBuf>,
    pub bw: Option<PathBuf>,
    pub iops: Option<PathBuf>,
    pub hist: Option<PathBuf>,
    /// Averaging window of the latency logs (0: one entry per I/O), and
    /// of the bw and IOPS logs.
    pub lat_avg_ms: u64,
    pub bw_avg_ms: u64,
    pub iops_avg_ms: u64,
    /// Log each window's largest value rather than its mean.
    pub max_value: bool,
    pub offset: bool,
    pub prio: bool,
    pub hist_ms: u64,
    pub hist_coarseness: u32,
    /// Stamp entries with a clock's own time (in ms) at the job's start
    /// added (log_unix_epoch or log_alternate_epoch): the
    /// clock_gettime clock, log_alternate_epoch_clock_id (0, Unix time,
    /// by default), whichever of the two options asked.
    pub epoch_clock: Option<libc::clockid_t>,
    /// File names without the job number (per_job_logs=0): shared.
    pub shared: bool,
    /// Milliseconds added to every time stamp: set when the job starts.
    pub epoch_ms: u64,
    /// log_entries: how many entries fio's logs first hold in memory.
    pub entries: u64,
    /// log_compression: hand each filled batch of entries (the first of
    /// this many, log_entries, each next one twice as large up to fio's
    /// cap) to a helper thread that deflates it.
    pub gz_batch: Option<usize>,
    /// log_compression_cpus: where that thread may run.
    pub gz_cpus: Option<Vec<usize>>,
    /// log_store_compressed: the files hold the deflated records
    /// (`.log.fz`, read back with `--inflate-log`), not text.
    pub gz_store: bool,
    /// stats=0: fio still creates the files but never adds a sample, so
    /// they stay empty.
    pub muted: bool,
}

/// The logs of one entry per I/O or window: lat, slat, clat, bw, IOPS.
const RATE_LOGS: usize = 5;

/// fio's largest batch of log entries kept in memory at once.
const MAX_BATCH: usize = 1024 * 1024;

impl LogPlan {
    pub fn any(&self) -> bool {
        self.lat.is_some()
            || self.slat.is_some()
            || self.clat.is_some()
            || self.bw.is_some()
            || self.iops.is_some()
            || self.hist.is_some()
    }
}

/// Opens a log file for writing: afresh, or, when jobs share it
/// (per_job_logs=0), for appending, as fio's do.
fn open_log(path: &std::path::Path, shared: bool) -> io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(shared)
        .truncate(!shared)
        .open(path)
}

/// fio's log file name: `<prefix>_<kind>.<job number>.log`, or without
/// the number when per_job_logs is off.
pub fn log_name(prefix: &str, kind: &str, number: u32, per_job: bool) -> PathBuf {
    if per_job {
        format!("{prefix}_{kind}.{number}.log").into()
    } else {
        format!("{prefix}_{kind}.log").into()
    }
}

/// A running mean and maximum of the values of one averaging window
/// (fio's add_stat_sample on the window).
#[derive(Debug, Clone, Copy, Default)]
struct Window {
    samples: u64,
    mean: f64,
    max: u64,
}

impl Window {
    fn add(&mut self, v: u64) {
        let delta = v as f64 - self.mean;
        if delta != 0.0 {
            self.mean += delta / (self.samples as f64 + 1.0);
        }
        self.max = self.max.max(v);
        self.samples += 1;
    }
}

/// One log: its entries and, when averaging, a window per direction.
#[derive(Debug)]
struct Log {
    entries: Vec<Entry>,
    avg_ms: u64,
    /// Latency logs are fed from the I/O path and flush a window only once
    /// it has fully passed; rate logs allow fio's 1 ms of slack.
    slack_ms: u64,
    windows: [Window; 3],
    window_start: [u64; 3],
    /// Under log_compression: where filled batches go, and how large
    /// the current batch may grow.
    gz: Option<(Handoff, usize)>,
    /// Entries kept so far, all told.
    kept: u64,
    /// Fed once per I/O (not from periodic samples): every unaveraged
    /// log, and, as fio has it, every compressed one.
    per_io: bool,
}

impl Log {
    fn new(avg_ms: u64, slack_ms: u64) -> Self {
        Log {
            entries: Vec::with_capacity(1024),
            avg_ms,
            slack_ms,
            windows: Default::default(),
            window_start: [0; 3],
            gz: None,
            kept: 0,
            per_io: avg_ms == 0,
        }
    }

    /// Keeps an entry; a full batch under log_compression goes to the
    /// helper as records, and the next batch may be twice as large.
    fn push(&mut self, e: Entry, plan: &LogPlan) {
        self.entries.push(e);
        self.kept += 1;
        if let Some((handoff, batch)) = &mut self.gz
            && self.entries.len() >= *batch
        {
            *batch = (*batch * 2).min(MAX_BATCH);
            let full = std::mem::replace(&mut self.entries, Vec::with_capacity(*batch));
            handoff.send(full, layout(plan), plan.epoch_ms);
        }
    }

    fn add(&mut self, e: Entry, plan: &LogPlan) {
        if self.avg_ms == 0 {
            self.push(e, plan);
            return;
        }
        let d = e.dir as usize;
        self.windows[d].add(e.value);
        let start = self.window_start[d];
        if e.time_ms < start {
            return;
        }
        let span = e.time_ms - start;
        if span < self.avg_ms && self.avg_ms - span > self.slack_ms {
            return;
        }
        self.close_window(d, e.time_ms, plan);
        self.window_start[d] = e.time_ms - e.time_ms % self.avg_ms;
    }

    fn close_window(&mut self, d: usize, time_ms: u64, plan: &LogPlan) {
        let max_value = plan.max_value;
        let w = std::mem::take(&mut self.windows[d]);
        if w.samples == 0 {
            return;
        }
        let value = if max_value {
            w.max
        } else {
            (w.mean + 0.5) as u64
        };
        self.push(
            Entry {
                time_ms,
                value,
                dir: d as u8,
                bs: 0,
                offset: 0,
                prio: 0,
            },
            plan,
        );
    }

    fn finish(&mut self, time_ms: u64, plan: &LogPlan) {
        if self.avg_ms > 0 {
            for d in 0..3 {
                self.close_window(d, time_ms, plan);
            }
        }
    }

    fn text(&self, plan: &LogPlan) -> String {
        let mut out = String::with_capacity(self.entries.len() * 24);
        for e in &self.entries {
            let stamped = Entry {
                time_ms: e.time_ms + plan.epoch_ms,
                ..*e
            };
            log_codec::line(&mut out, &stamped, layout(plan));
        }
        out
    }
}

/// The record layout of a job's logs.
fn layout(plan: &LogPlan) -> Layout {
    Layout {
        offset: plan.offset,
        prio: plan.prio,
    }
}

/// The clat histogram log: a cumulative snapshot per direction every
/// log_hist_msec, written as the change since the previous line.
#[derive(Debug, Default)]
struct HistLog {
    last_ms: [Option<u64>; 3],
    snapshots: Vec<(u64, u8, u64, Box<[u64]>)>,
}

/// The logs of one running job.
#[derive(Debug)]
pub struct JobLogs {
    plan: LogPlan,
    lat: Option<Log>,
    slat: Option<Log>,
    clat: Option<Log>,
    bw: Option<Log>,
    iops: Option<Log>,
    hist: Option<HistLog>,
    /// The log_compression helper, when there is one.
    gz: Option<Compressor>,
}

/// One completed I/O, as the logs see it.
#[derive(Debug, Clone, Copy)]
pub struct Completed {
    pub time_ms: u64,
    pub dir: usize,
    pub bytes: u64,
    pub offset: u64,
    pub slat_ns: Option<u64>,
    pub clat_ns: Option<u64>,
    pub lat_ns: Option<u64>,
    pub ioprio: u16,
}

impl JobLogs {
    /// The logs of a job whose statistics start now.
    pub fn new(plan: &LogPlan) -> Option<JobLogs> {
        if !plan.any() {
            return None;
        }
        let mut plan = plan.clone();
        if let Some(clock) = plan.epoch_clock {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: clock_gettime writes one timespec into `ts`; an
            // unknown clock leaves it zero, as fio's unchecked call does.
            unsafe { libc::clock_gettime(clock, &mut ts) };
            plan.epoch_ms = ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000;
        }
        let lat = |p: &Option<PathBuf>| p.as_ref().map(|_| Log::new(plan.lat_avg_ms, 0));
        // fio feeds a compressed bw or IOPS log once per I/O, averaged
        // or not (and samples the job's bw and IOPS statistics so too).
        let compressed = plan.gz_batch.is_some() || plan.gz_store;
        let rate = |avg_ms| {
            let mut log = Log::new(avg_ms, 1);
            log.per_io |= compressed;
            log
        };
        let mut logs = JobLogs {
            lat: lat(&plan.lat),
            slat: lat(&plan.slat),
            clat: lat(&plan.clat),
            bw: plan.bw.as_ref().map(|_| rate(plan.bw_avg_ms)),
            iops: plan.iops.as_ref().map(|_| rate(plan.iops_avg_ms)),
            hist: plan.hist.as_ref().map(|_| HistLog::default()),
            gz: None,
            plan,
        };
        // Without a helper thread (it could not start), batches simply
        // stay in memory: the files come out the same.
        if let Some(batch) = logs.plan.gz_batch
            && let Ok(gz) = Compressor::start(RATE_LOGS, logs.plan.gz_cpus.clone())
        {
            for (i, log) in logs.rate_logs().into_iter().enumerate() {
                if let Some(log) = log {
                    log.gz = Some((gz.handoff(i), batch.max(1)));
                }
            }
            logs.gz = Some(gz);
        }
        Some(logs)
    }

    /// The logs of one entry per I/O or window, in a fixed order (the
    /// helper's log numbers).
    fn rate_logs(&mut self) -> [Option<&mut Log>; RATE_LOGS] {
        [
            self.lat.as_mut(),
            self.slat.as_mut(),
            self.clat.as_mut(),
            self.bw.as_mut(),
            self.iops.as_mut(),
        ]
    }

    /// Whether bandwidth (IOPS) is logged per I/O: then fio also samples
    /// its bw (iops) statistics per I/O instead of periodically.
    pub fn bw_per_io(&self) -> bool {
        self.bw.as_ref().is_some_and(|l| l.per_io)
    }

    pub fn iops_per_io(&self) -> bool {
        self.iops.as_ref().is_some_and(|l| l.per_io)
    }

    /// Logs one completed I/O; `clat_hist` is the direction's clat
    /// histogram after it.
    pub fn completed(&mut self, io: &Completed, clat_hist: &Histogram) {
        if self.plan.muted {
            return;
        }
        let plan = &self.plan;
        let entry = |value| Entry {
            time_ms: io.time_ms,
            value,
            dir: io.dir as u8,
            bs: io.bytes,
            offset: io.offset,
            prio: io.ioprio,
        };
        let pairs = [
            (&mut self.lat, io.lat_ns),
            (&mut self.slat, io.slat_ns),
            (&mut self.clat, io.clat_ns),
        ];
        for (log, value) in pairs {
            if let (Some(log), Some(v)) = (log, value) {
                log.add(entry(v), plan);
            }
        }
        if let (Some(log), Some(clat)) = (&mut self.bw, io.clat_ns)
            && log.per_io
        {
            let rate = (io.bytes * 1_000_000).checked_div(clat).unwrap_or(0);
            log.add(entry(rate), plan);
        }
        if let Some(log) = &mut self.iops
            && log.per_io
        {
            log.add(entry(1), plan);
        }
        if let (Some(h), true) = (&mut self.hist, self.plan.hist_ms > 0) {
            let last = h.last_ms[io.dir].get_or_insert(io.time_ms);
            let span = io.time_ms.saturating_sub(*last);
            if span >= self.plan.hist_ms {
                let counts: Box<[u64]> = (0..BUCKETS).map(|b| clat_hist.count(b)).collect();
                h.snapshots
                    .push((io.time_ms, io.dir as u8, io.bytes, counts));
                *last = io.time_ms - (span - self.plan.hist_ms);
            }
        }
    }

    /// A periodic bandwidth (KiB/s) or IOPS sample, for averaged logs.
    pub fn sampled(&mut self, iops: bool, dir: usize, value: u64, time_ms: u64, bs: u64) {
        let log = if iops { &mut self.iops } else { &mut self.bw };
        if let Some(log) = log
            && !log.per_io
            && !self.plan.muted
        {
            log.add(
                Entry {
                    time_ms,
                    value,
                    dir: dir as u8,
                    bs,
                    offset: 0,
                    prio: 0,
                },
                &self.plan,
            );
        }
    }

    /// Closes the last windows and writes every log file (each is
    /// created even if it stays empty, as fio does).
    pub fn write(mut self, end_ms: u64) -> io::Result<()> {
        let plan = self.plan.clone();
        // The last windows may fill a batch; then the helper is told
        // there is no more and handed back what it deflated.
        for log in self.rate_logs().into_iter().flatten() {
            if !plan.muted {
                log.finish(end_ms, &plan);
            }
            log.gz = None;
        }
        let mut streams = self.gz.take().map(Compressor::finish).unwrap_or_default();
        // Once one of fio's logs outgrows its first batch, fio gives every
        // log of the job a batch of its own, and stores even an empty
        // one as a stream (which `--inflate-log` then reads as nothing,
        // where a file with no stream is a short read to it).
        let outgrown = self
            .rate_logs()
            .into_iter()
            .flatten()
            .any(|l| l.kept > plan.entries);
        let paths = [&plan.lat, &plan.slat, &plan.clat, &plan.bw, &plan.iops];
        for (i, (log, path)) in self.rate_logs().into_iter().zip(paths).enumerate() {
            let (Some(log), Some(path)) = (log, path) else {
                continue;
            };
            let done = streams.get_mut(i).map(std::mem::take).unwrap_or_default();
            let bytes = if plan.gz_store {
                // What is still in memory becomes one more stream.
                let mut out = done.concat();
                if !log.entries.is_empty() || (log.kept == 0 && outgrown) {
                    let records = layout(&plan).records(&log.entries, plan.epoch_ms);
                    out.extend(log_codec::deflate(&records));
                }
                out
            } else {
                let mut text = String::new();
                for stream in &done {
                    text.push_str(&log_codec::inflate_streams(stream).0);
                }
                text.push_str(&log.text(&plan));
                text.into_bytes()
            };
            // Jobs sharing a file (per_job_logs=0) append to it, as
            // fio's do.
            open_log(path, plan.shared)?.write_all(&bytes)?;
        }
        if let (Some(h), Some(path)) = (&self.hist, &plan.hist) {
            let mut f = io::BufWriter::new(open_log(path, plan.shared)?);
            let stride = 1usize << plan.hist_coarseness.min(6);
            let mut before: [Option<&[u64]>; 3] = [None; 3];
            for (time, dir, bs, counts) in &h.snapshots {
                let prev = before[*dir as usize];
                let sums: Vec<String> = (0..BUCKETS)
                    .step_by(stride)
                    .map(|j| {
                        (j..j + stride)
                            .map(|k| counts[k] - prev.map_or(0, |p| p[k]))
                            .sum::<u64>()
                            .to_string()
                    })
                    .collect();
                writeln!(
                    f,
                    "{}, {dir}, {bs}, {}",
                    time + plan.epoch_ms,
                    sums.join(", ")
                )?;
                before[*dir as usize] = Some(counts);
            }
            f.flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(time_ms: u64, value: u64, dir: u8) -> Entry {
        Entry {
            time_ms,
            value,
            dir,
            bs: 4096,
            offset: 0,
            prio: 0,
        }
    }

    #[test]
    fn per_io_entries_are_kept_as_they_come() {
        let mut log = Log::new(0, 0);
        let plan = LogPlan::default();
        log.add(entry(1, 297289, 0), &plan);
        assert_eq!(log.text(&plan), "1, 297289, 0, 4096, 0\n");
        let with_offset = LogPlan {
            offset: true,
            prio: true,
            ..LogPlan::default()
        };
        assert_eq!(log.text(&with_offset), "1, 297289, 0, 4096, 0, 0x0000\n");
    }

    #[test]
    fn windows_average_round_and_restart_on_their_boundary() {
        let mut log = Log::new(500, 1);
        let plan = LogPlan::default();
        log.add(entry(100, 10, 0), &plan);
        log.add(entry(300, 13, 0), &plan);
        assert!(log.entries.is_empty());
        log.add(entry(499, 20, 0), &plan);
        assert_eq!(log.entries.len(), 1, "1 ms of slack closes the window");
        assert_eq!((log.entries[0].time_ms, log.entries[0].value), (499, 14));
        assert_eq!(log.window_start[0], 0);
        log.add(entry(1003, 7, 0), &plan);
        assert_eq!(log.entries[1].value, 7);
        assert_eq!(log.window_start[0], 1000);
        // A direction's first window starts at 0 too.
        log.add(entry(1200, 9, 1), &plan);
        assert_eq!((log.entries[2].time_ms, log.entries[2].dir), (1200, 1));
        log.add(entry(1250, 4, 0), &plan);
        log.finish(1300, &plan);
        assert_eq!(log.entries.len(), 4, "the final partial window is written");
        assert_eq!((log.entries[3].time_ms, log.entries[3].value), (1300, 4));
    }

    #[test]
    fn names_follow_fio() {
        assert_eq!(
            log_name("lg", "iops", 2, true),
            PathBuf::from("lg_iops.2.log")
        );
        assert_eq!(
            log_name("lg", "clat", 1, false),
            PathBuf::from("lg_clat.log")
        );
    }
}
