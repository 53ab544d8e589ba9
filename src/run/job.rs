//! One job on its own thread: lay out the file, then keep `iodepth` I/Os
//! in flight until the size is done or the runtime is up, timing each I/O.
//!
//! The loop allocates nothing: buffers and slots are made once. It reads
//! the clock once per submitted batch and once per reaped batch.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::clock::{self, LoopClock, Nanos, ms_between, nanos};
use super::file_lock::FileLocks;
use crate::engine::WriteHintFailed;

use super::config::{BufferFill, ExitWhat, JobConfig};
use super::content::Content;
use super::depth::DepthTracker;
use super::errors::{self, Verdict};
use super::files::FileChooser;
use super::fio_rand::{Draws, Purpose};
use super::iolog::IoLogWriter;
use super::iomem::{MemKind, Region};
use super::latency_target::{self, LatencyTarget};
use super::layout::fill_random;
use super::live::{Measured, Tally};
use super::logs::{Completed, JobLogs};
use super::offsets::Rng;
use super::placement::{Placement, Placer, rw_min_bs, used_dirs};
use super::progress::{JobProgress, State};
use super::rate::{self, FloorCheck, PoissonArrivals};
use super::replay::{Action, Replayer, Step};
use super::result::{DirStats, JobResult, strerror};
use super::sampler::RateSampler;
use super::sync_range::Written;
use super::trim_backlog::{self, TrimBacklog};
use super::verify_trail;
use super::verifying::Verifying;
use crate::engine::{self, Completion, Dir, Engine, OpenMode, Queued, Request};
use crate::stats::CpuUsage;
use crate::verify::pattern::repeat_into;
use crate::verify::state::{RandState, VerifyState};

use super::lazy_open::{LazyOpen, UNOPENED};

/// Buffer alignment: enough for O_DIRECT on any Linux block device.
const ALIGN: usize = 4096;

/// One I/O's place in the queue.
struct Slot {
    /// The slot's own memory when buffers come from the heap (held only
    /// to own it; empty when the job's region holds the buffers).
    _heap: Vec<u8>,
    /// The buffer: `cap` bytes at `base`, aligned as the job asks, in
    /// `_heap` or in the job's buffer region (which outlives the slots).
    base: *mut u8,
    cap: usize,
    dir: Dir,
    offset: u64,
    len: usize,
    /// How far into the buffer the I/O starts: past what a short transfer
    /// already moved, when fio hands the rest back to the engine.
    skip: usize,
    /// Which of the job's files the I/O goes to.
    file: usize,
    /// When the I/O was prepared, and when it was handed to the device.
    prepared: Nanos,
    submitted: Option<Nanos>,
    /// When a rate-capped direction's schedule meant the I/O to be
    /// issued (`DirStats::intended`).
    intended: Option<Nanos>,
    /// Whether it went through an asynchronous engine's queue (only those
    /// have a submission latency).
    queued: bool,
    /// Handed to an asynchronous engine and not reaped yet.
    flying: bool,
    /// For a verifying job, the logged block this I/O writes or checks.
    piece: Option<usize>,
    /// The I/O's priority, and its entry in the direction's list of
    /// priorities reported apart (0: the job's own).
    ioprio: u16,
    prio_index: u8,
    /// A periodic sync queued like an I/O, on the engines that flush
    /// asynchronously.
    sync: Option<SyncKind>,
}

/// Where the job's buffers are carved from: each slot's own heap memory,
/// or one region for all.
struct Carver<'r> {
    region: Option<&'r Region>,
    max_len: usize,
    /// iomem_align: each buffer starts this far past a page boundary.
    skew: usize,
    /// Bytes per slot: the buffer, a page for alignment, and the skew.
    stride: usize,
}

impl<'r> Carver<'r> {
    fn new(region: Option<&'r Region>, max_len: usize, skew: usize) -> Self {
        Carver {
            region,
            max_len,
            skew,
            stride: (max_len + ALIGN + skew).div_ceil(ALIGN) * ALIGN,
        }
    }

    /// The memory slot `index` needs (the job's region is `stride` per
    /// slot, page aligned).
    fn slot(&self, index: usize, fill: BufferFill, rng: &mut Rng) -> Slot {
        let (mut heap, chunk) = match self.region {
            None => {
                let mut heap = vec![0u8; self.max_len + ALIGN + self.skew];
                let start = heap.as_ptr().align_offset(ALIGN);
                let chunk = heap[start..].as_mut_ptr();
                (heap, chunk)
            }
            // SAFETY: the region holds `stride` bytes for every slot.
            Some(r) => (Vec::new(), unsafe { r.ptr.add(index * self.stride) }),
        };
        let filled = self.max_len + ALIGN;
        if fill != BufferFill::Zeros {
            if heap.is_empty() {
                // SAFETY: `filled` <= stride bytes of this slot's chunk.
                fill_random(
                    unsafe { std::slice::from_raw_parts_mut(chunk, filled) },
                    rng,
                );
            } else {
                fill_random(&mut heap, rng);
            }
        }
        Slot {
            _heap: heap,
            // SAFETY: the chunk has room for the skew and the buffer.
            base: unsafe { chunk.add(self.skew) },
            cap: self.max_len,
            file: 0,
            dir: Dir::Read,
            offset: 0,
            len: 0,
            skip: 0,
            prepared: 0,
            submitted: None,
            intended: None,
            queued: false,
            flying: false,
            piece: None,
            ioprio: 0,
            prio_index: 0,
            sync: None,
        }
    }
}

impl Slot {
    /// Prepares a write buffer as the job's buffer options ask.
    fn prepare_write(&mut self, cfg: &JobConfig, rng: &mut Rng, serial: u64) {
        let offset = self.offset;
        let buf = self.buf();
        match cfg.buffers {
            BufferFill::Pattern { refill: true } => {
                if let Some(p) = &cfg.buffer_pattern {
                    repeat_into(p, buf);
                }
            }
            BufferFill::Refill => fill_random(buf, rng),
            BufferFill::RandomScrambled => {
                // Stamp each 512-byte sector with the offset and a serial
                // number so that no two written blocks are alike.
                for (i, sector) in buf.chunks_mut(512).enumerate() {
                    let stamp = (offset + i as u64 * 512) ^ serial.rotate_left(32);
                    let n = sector.len().min(8);
                    sector[..n].copy_from_slice(&stamp.to_le_bytes()[..n]);
                }
            }
            BufferFill::Random | BufferFill::Zeros | BufferFill::Pattern { .. } => {}
        }
    }

    /// The whole buffer, for engines that register it.
    fn region(&mut self) -> libc::iovec {
        libc::iovec {
            iov_base: self.base.cast(),
            iov_len: self.cap,
        }
    }

    /// The buffer for the current I/O.
    #[inline]
    fn buf(&mut self) -> &mut [u8] {
        debug_assert!(self.skip + self.len <= self.cap);
        let skip = self.skip.min(self.cap);
        // SAFETY: `base` points at `cap` bytes that only this slot uses,
        // alive as long as the slot (see `Carver`), and skip + len <= cap.
        unsafe {
            std::slice::from_raw_parts_mut(self.base.add(skip), self.len.min(self.cap - skip))
        }
    }

    /// After a transfer of `r` bytes: whether it fell short of the I/O
    /// (some bytes moved, not all, of a read or write). If so the slot now
    /// holds the rest of the I/O, as fio's io_u does before it requeues it,
    /// and the direction counts one short I/O.
    #[inline]
    fn shortened(&mut self, r: i64, result: &mut JobResult) -> bool {
        let moved = r.max(0) as usize;
        if moved == 0 || moved >= self.len || self.dir == Dir::Trim {
            return false;
        }
        self.keep_rest(moved, result);
        true
    }

    /// The rare half of [`shortened`](Self::shortened), out of the loop.
    #[cold]
    fn keep_rest(&mut self, moved: usize, result: &mut JobResult) {
        self.offset += moved as u64;
        self.skip += moved;
        self.len -= moved;
        result.dir_mut(self.dir).short += 1;
    }
}

/// Where a finished I/O is written besides the job's result: the job's
/// log files, and the tally of a job watched live.
struct Records {
    logs: Option<JobLogs>,
    live: Option<Tally>,
    /// Under sync_file_range: each file's span written since its last
    /// sync.
    written: Option<Written>,
}

/// The flags that end a job early: a terminating signal, another job of
/// the group ending with `exitall`, and the job's own (steady state
/// reached); and the one that keeps the groups still to come from
/// starting (`exit_what=all`).
#[derive(Clone, Copy)]
pub struct Stops<'a> {
    pub run: &'a AtomicBool,
    pub group: &'a AtomicBool,
    pub rest: &'a AtomicBool,
    /// Set once no job that does I/O runs or is still to run (what
    /// cpuio's exit_on_io_done waits for).
    pub io_done: &'a AtomicBool,
    pub own: &'a AtomicBool,
}

impl Stops<'_> {
    fn any(&self) -> bool {
        self.run.load(Ordering::Relaxed)
            || self.group.load(Ordering::Relaxed)
            || self.own.load(Ordering::Relaxed)
    }
}

/// Holds a job back until every job it waits for has ended (or the run
/// is stopped).
pub fn wait_for(waitees: &[&JobProgress], stops: Stops<'_>) {
    while !stops.any()
        && waitees
            .iter()
            .any(|p| !matches!(p.state(), State::Done | State::Failed | State::Killed))
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// How often a job publishes its progress for the status line.
const PUBLISH_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Runs one job to its end, or until `stops` say so, publishing its
/// progress to `progress` as it goes.
pub fn run(cfg: &JobConfig, stops: Stops<'_>, progress: &JobProgress) -> JobResult {
    progress.set_state(State::SettingUp);
    let result = run_job(cfg, stops, progress);
    if cfg.exitall || (cfg.exitall_on_error && result.failed()) {
        stops.group.store(true, Ordering::Relaxed);
        if cfg.exit_what == ExitWhat::All {
            stops.rest.store(true, Ordering::Relaxed);
        }
    }
    let totals = |f: fn(&DirStats) -> u64| [0, 1, 2].map(|d| f(&result.dirs[d]));
    progress.publish(totals(|d| d.bytes), totals(|d| d.ios));
    progress.give_snapshot(result.clone());
    progress.set_state(if result.failed() {
        State::Failed
    } else if stops.run.load(Ordering::Relaxed) {
        State::Killed
    } else {
        State::Done
    });
    result
}

fn run_job(cfg: &JobConfig, stop: Stops<'_>, progress: &JobProgress) -> JobResult {
    // The job's place in its flow, left (its weight and I/Os taken out)
    // however the job ends.
    let mut flow = cfg.flow.as_ref().map(|f| f.seat());
    let mut result = JobResult::new(cfg);
    // SAFETY: gettid has no preconditions.
    result.pid = unsafe { libc::gettid() };
    // A clone whose generated file names were all taken by its first
    // instance has nothing to do (as in fio).
    // create_only: the files are laid out, which was all to do.
    if cfg.paths.is_empty() || cfg.create_only {
        result.finish(std::time::Duration::ZERO);
        return result;
    }
    let _held = match cfg.thread_setup.apply(&cfg.name) {
        Ok(held) => held,
        Err(e) => {
            // A failed exec_prerun ends the job quietly, as in fio.
            if e.errno != 0 {
                result.fail(e.errno, &e.func, e.message);
            }
            return result;
        }
    };
    let result = run_io(cfg, stop, progress, result, flow.as_mut());
    cfg.thread_setup.finish(&cfg.name);
    result
}

/// The job's I/O, once its thread is set up.
#[allow(clippy::too_many_lines)] // issue 16: being split by the job-loop/config work
fn run_io(
    cfg: &JobConfig,
    stop: Stops<'_>,
    progress: &JobProgress,
    mut result: JobResult,
    mut flow: Option<&mut super::flow::Seat<'_>>,
) -> JobResult {
    let capped = super::fill_read::capped(cfg);
    let cfg = capped.as_ref().unwrap_or(cfg);
    let offloaded;
    let cfg = if cfg.offload {
        offloaded = super::offload::one_at_a_time(cfg);
        &offloaded
    } else {
        cfg
    };
    // fio opens a trimming job's files (trim, randtrim, trimwrite)
    // without the flags the job asks for: no O_DIRECT, O_ATOMIC or
    // O_SYNC/O_DSYNC, and O_CREAT only as a writing job (trimwrite).
    // An iolog's replay takes only reads and writes for the job's
    // directions in fio (a blktrace's takes its discards too).
    let trimming = cfg.pattern.trim && cfg.replay.as_ref().is_none_or(|log| log.depth.is_some());
    let mode = OpenMode {
        // Discards need a writable descriptor.
        write: cfg.pattern.write || cfg.pattern.trim,
        direct: cfg.direct && !trimming,
        invalidate: cfg.invalidate,
        advice: cfg.advice,
        // fio creates a replay's files as it opens them for writing.
        create: (cfg.create_on_open && cfg.allow_file_create && (!trimming || cfg.pattern.write))
            || (cfg.replay.is_some() && cfg.pattern.write),
        sync_flags: if trimming { 0 } else { cfg.sync_flags },
        atomic: cfg.atomic && !trimming,
        write_hint: cfg.write_hint,
    };
    let mut eng = match engine::create(&cfg.engine, cfg.iodepth, &cfg.engine_options) {
        Some(Ok(e)) => e,
        Some(Err(e)) => {
            result.fail(
                errno(&e),
                "io engine init",
                format!("fio: failed to set up ioengine {}: {e}", cfg.engine),
            );
            return result;
        }
        None => {
            result.fail(
                22,
                "load engine",
                format!("ioengine {} is not available", cfg.engine),
            );
            return result;
        }
    };
    // fio's mmap engine maps whole pages: with direct or periodic syncs
    // (which act on the mapping) it refuses blocks smaller than a page
    // as its engine setup fails.
    if cfg.engine == "mmap"
        && !rw_min_bs(cfg).is_multiple_of(page_size())
        && (cfg.direct || cfg.fsync_blocks > 0 || cfg.fdatasync_blocks > 0)
    {
        let text = format!(
            "fio: mmap options dictate a minimum block size of {} bytes\n\
             fio: io engine mmap init failed.",
            page_size()
        );
        result.fail(libc::EPERM, "", text);
        return result;
    }
    // fio switches the disks' scheduler once its engine is set up.
    if let Some(name) = &cfg.ioscheduler
        && let Err((code, func, text)) = super::iosched::switch(&cfg.paths, name)
    {
        result.fail(code, func, text);
        return result;
    }
    // fio starts its write_iolog before it opens the job's files.
    let mut iolog = match &cfg.write_iolog {
        Some(path) => match IoLogWriter::create(path, &cfg.paths) {
            Ok(w) => Some(w),
            Err(e) => {
                let text = format!("fio: fopen write iolog {}: {e}", path.display());
                result.fail(errno(&e), "failed initializing iolog", text);
                return result;
            }
        },
        None => None,
    };
    // Each file's length, found before the job opens any (as fio sizes
    // its files before it opens them).
    let lens: Vec<u64> = cfg
        .paths
        .iter()
        .zip(&cfg.regions)
        .map(|(p, &region)| file_length(cfg, p, region))
        .collect();
    // Engine handles of the job's files, and one placement per file.
    let mut files = Vec::with_capacity(cfg.paths.len());
    // A replay opens each file when its log says.
    if cfg.replay.is_some() {
        files.resize(cfg.paths.len(), UNOPENED);
    }
    // With openfiles below the file count, fio opens each file only when
    // the job comes to it.
    let mut lazy = LazyOpen::new(cfg);
    let at_start = LazyOpen::at_start(&lazy, cfg.paths.len());
    for (i, path) in cfg.paths.iter().enumerate() {
        if cfg.replay.is_some() {
            break;
        }
        if i >= at_start {
            files.push(UNOPENED);
            continue;
        }
        match eng.open(path, mode) {
            Ok(f) => files.push(f),
            Err(e) => {
                let hint = e
                    .get_ref()
                    .and_then(|i| i.downcast_ref::<WriteHintFailed>());
                if let Some(WriteHintFailed(code)) = hint {
                    result.fail(*code, "fcntl write hint", String::new());
                    return result;
                }
                let func = format!("open({})", path.display());
                result.fail(errno(&e), &func, format!("fio: {func}: {e}"));
                return result;
            }
        }
    }
    if cfg.pre_read
        && cfg.engine != "null"
        && let Err(e) = pre_read(cfg)
    {
        result.fail(errno(&e), "pre_read", String::new());
        return result;
    }
    // A replay's buffers fit the largest I/O of its log.
    let max_len = match &cfg.replay {
        Some(log) => log.max_len.max(1),
        None => used_dirs(cfg)
            .map(|d| cfg.bs[d].max())
            .max()
            .unwrap_or(4096),
    } as usize;
    let mut rng = Rng::new(cfg.seed);
    let mut draws = job_draws(cfg);
    let mut prio_draws = cfg.seeds.generator(Purpose::PrioCmds, false);
    // Declared before the slots, so that it outlives them.
    let region = match &cfg.mem {
        MemKind::Malloc => None,
        kind => {
            let stride = Carver::new(None, max_len, cfg.iomem_align).stride;
            match Region::new(kind, stride * cfg.iodepth, cfg.hugepage_size) {
                Ok(r) => Some(r),
                Err(e) => {
                    result.fail(e.errno, &e.func, e.message);
                    return result;
                }
            }
        }
    };
    let carver = Carver::new(region.as_ref(), max_len, cfg.iomem_align);
    let mut slots: Vec<Slot> = (0..cfg.iodepth)
        .map(|i| carver.slot(i, cfg.buffers, &mut rng))
        .collect();
    let mut content = cfg
        .buffer_shape
        .map(|shape| Content::new(shape, cfg.seed, cfg.dedupe_peers.as_ref()));
    if let Some(content) = &mut content
        && cfg.pattern.write
    {
        // fio fills every buffer of a writing job once before the first
        // I/O, from the same generator: those draws are not written.
        for slot in &mut slots {
            slot.len = max_len;
            content.fill(slot.buf());
        }
    }
    if let Some(p) = &cfg.buffer_pattern {
        for slot in &mut slots {
            slot.len = max_len;
            repeat_into(p, slot.buf());
        }
    }
    let regions: Vec<libc::iovec> = slots.iter_mut().map(Slot::region).collect();
    let mut verifying = Verifying::new(cfg);
    // trim_percentage's list of blocks to trim, and whether fio's job
    // would have died on its first backlog trim (see trim_backlog.rs).
    let mut trims = cfg
        .trim
        .map(|spec| TrimBacklog::new(spec, &cfg.seeds, draws_wide(cfg)));
    let mut died = false;
    // fio's td->last_ddir: whether the last I/O completed was a read.
    let mut last_was_read = false;
    if let Err(e) = eng.register_buffers(&regions) {
        let text = format!("fio: registering the job's buffers failed: {e}");
        result.fail(errno(&e), "register buffers", text);
        return result;
    }
    let mut free: Vec<usize> = (0..cfg.iodepth).rev().collect();
    let mut done: Vec<Completion> = Vec::with_capacity(cfg.iodepth);
    let mut placer = Placer::new(cfg, &lens);
    // fio's real_file_size of each regular file: a short transfer that
    // reaches it ends there instead of asking for the rest.
    let real_sizes: Vec<u64> = cfg
        .paths
        .iter()
        .map(|p| match std::fs::metadata(p) {
            Ok(m) if m.is_file() => m.len(),
            _ => u64::MAX,
        })
        .collect();
    // I/Os cut short, waiting to hand the engine the rest (fio's requeued
    // io_us, which go before any new I/O).
    let mut requeued: Vec<usize> = Vec::with_capacity(cfg.iodepth);
    let mut chooser = FileChooser::new(cfg, files.len());
    // Set when every file ran out of offsets before the pass's bytes were
    // done, and when no further pass follows (the job is over).
    let mut out_of_offsets = false;
    let finished = std::cell::Cell::new(false);
    let mut passes = 0u64;
    // Bytes of the pass queued to be completed later (fio's bytes_issued
    // in do_io), and the time spent in verify passes between loops.
    let mut loop_queued = 0u64;
    let mut verify_spent: Nanos = 0;
    // Whether a verify pass followed the last writes: fio reseeds its
    // generators before each pass, which its verify state file shows.
    let mut verify_reseeded = false;
    // Random offsets without a map never run out.
    let endless = cfg.pattern.random && !placer.files.iter().all(Placement::has_map);
    let runs_on = cfg.pattern.read && cfg.pattern.write && !cfg.time_based && cfg.replay.is_none();
    // fio's bytes per loop (do_io's total_bytes): the size, io_size if
    // more for random writes without a map, and the size again for the
    // reads of a verify backlog.
    let loop_bytes = {
        let base = if endless && cfg.io_size_given {
            cfg.size.max(cfg.pass_bytes)
        } else {
            cfg.size
        };
        let backlog = cfg.verify.as_ref().is_some_and(|v| v.backlog > 0);
        base + if backlog { cfg.size } else { 0 }
    };
    // Bytes read by verify_backlog and the verify passes.
    let mut verify_moved = 0u64;
    // trimwrite's write to come: (file, offset, length) of the last trim.
    let mut pending_write: Option<(usize, u64, u64)> = None;
    // Queued but not yet submitted, and submitted but not yet reaped.
    let mut unsubmitted: Vec<usize> = Vec::with_capacity(cfg.iodepth);
    let mut in_flight = 0usize;
    if !wait_until(clock::now() + nanos(cfg.startdelay), None, stop) {
        return result;
    }
    let start = clock::now();
    let engine_stamps = matches!(cfg.engine.as_str(), "libaio" | "io_uring")
        || (cfg.engine == "null" && cfg.iodepth > 1);
    let mut replayer = cfg
        .replay
        .as_deref()
        .map(|log| Replayer::new(log, start, engine_stamps));
    // Statistics start after ramp_time; runtime counts from there too.
    let mut ramp_end = start + nanos(cfg.ramp);
    progress.set_state(if cfg.ramp.is_zero() {
        State::Running
    } else {
        State::Ramp
    });
    progress.set_epoch(start);
    // Steady state samples the published totals once a second: publish
    // often enough that a sample is off by well under a percent.
    let publish_every = if cfg.steady.is_some() {
        nanos(std::time::Duration::from_millis(2))
    } else {
        nanos(PUBLISH_EVERY)
    };
    let mut next_publish = start + publish_every;
    // A latency_target's final window starts the runtime over.
    let deadline = std::cell::Cell::new(cfg.runtime.map(|r| ramp_end.saturating_add(nanos(r))));
    let mut sampler = RateSampler::new(ramp_end, cfg.bw_every, cfg.iops_every);
    let mut records = Records {
        logs: JobLogs::new(&cfg.logs),
        live: progress.watched_live().then(|| Tally::starting(ramp_end)),
        written: cfg.sync_range.map(|_| Written::new(cfg.paths.len())),
    };
    let m = cfg.measure;
    let mut ticker = LoopClock::new(!(m.slat || m.clat || m.lat) && records.logs.is_none());
    let mut depth = DepthTracker::new(ramp_end);
    // Sampled periodically unless logged (and so sampled) per I/O.
    let sample_bw = cfg.measure.bw && !records.logs.as_ref().is_some_and(JobLogs::bw_per_io);
    let sample_iops = !records.logs.as_ref().is_some_and(JobLogs::iops_per_io);
    // CPU use counts from the end of ramp_time, like every statistic.
    let mut cpu_start = (cfg.ramp.is_zero()).then(CpuUsage::of_this_thread);
    // Engines without a commit step count one submit and one reap per I/O.
    let counts_each_io = !eng.commits();
    // A synchronous engine holds its one I/O whenever it runs.
    let synchronous = !eng.commits() || cfg.iodepth == 1;
    let counts_submits = eng.counts_submits();
    let submits_in_queue = eng.submits_in_queue();
    // I/Os and bytes issued per direction since the start, ramp included:
    // what the size budget, periodic syncs and rate caps go by.
    let mut work = [(0u64, 0u64); 3];
    let issued = |work: &[(u64, u64); 3]| {
        work.iter()
            .fold((0, 0), |(n, b), &(ios, bytes)| (n + ios, b + bytes))
    };
    // The time of the latest clock read.
    let mut clock = start;
    let mut last_was_sync = false;
    // Set while in-flight I/O is reaped ahead of a periodic sync or a new
    // pass over the files.
    let mut draining = false;
    // Bytes issued when the current pass over the files began, and the
    // bytes the job may issue in all.
    let mut pass_start = 0u64;
    // Bytes issued when the current loop began (a loop may hold passes).
    let mut loop_start = 0u64;
    let exit_on_io_done = cfg.engine_options.cpu.exit_on_io_done;
    // A replay ends with its log, whatever its size.
    let budget = if cfg.replay.is_some() {
        u64::MAX
    } else {
        cfg.io_bytes
    };
    let may_issue = |clock: Nanos, work: &[(u64, u64); 3], budget: u64| {
        let (ios, bytes) = issued(work);
        !stop.any()
            && !finished.get()
            && deadline.get().is_none_or(|d| clock < d)
            && (cfg.time_based || bytes < budget)
            && cfg.number_ios.is_none_or(|n| ios < n)
            && !(exit_on_io_done && stop.io_done.load(Ordering::Relaxed))
    };
    // fio's loop: queue one I/O at a time, submit every `batch_submit`,
    // and once the queue is full reap between `batch_complete_min` and
    // `batch_complete_max` completions, until it has drained to
    // `iodepth_low`.
    // The earliest of the periodic duties below, so that the loop makes
    // one comparison for all of them.
    let mut next_tick = start;
    // Only fio's null engine ever declines new I/O.
    let may_be_busy = cfg.engine == "null" && cfg.iodepth > 1;
    let no_data = engine::moves_no_data(&cfg.engine);
    // Asked once rather than per I/O: whether the engine does file
    // operations (the file engines) or thinks after its I/Os (those
    // without data).
    let file_ops = !cfg.io_stats;
    let engine_thinks = no_data;
    // Set once a replay's log has run out: fio reaps the I/O still in
    // flight then without counting it (a replay's own quirk).
    let mut replay_over = false;
    // Set when fio would have tried the next I/O on the busy engine.
    let mut handed_to_busy = false;
    let rate_capped = cfg.rate_capped();
    // The directions under a cap of their own.
    let capped = [0, 1, 2].map(|d| cfg.rate_bytes[d] > 0 || cfg.rate_iops[d] > 0);
    let mut floor_check = FloorCheck::new(cfg.rate_floors, start);
    let mut rate_credit = [0u64; 3];
    let mut poisson = cfg.rate_poisson.then(|| {
        let min_bs = [0, 1, 2].map(|d| cfg.bs[d].min());
        PoissonArrivals::new(cfg.rate_bytes, cfg.rate_iops, min_bs, cfg.seed)
    });
    let mut lat_target = cfg.latency_target.map(|g| {
        LatencyTarget::new(
            g.target_ns,
            g.window_ns,
            g.percentile,
            g.keep_running,
            cfg.iodepth,
            start,
        )
    });
    // Why the I/O in flight is being drained, when it is not for a
    // periodic sync or a new pass.
    let mut quiesce: Option<Quiesce> = None;
    let file_locks = cfg
        .lockfile
        .map(|(shared_reads, origin)| FileLocks::new(shared_reads, origin, &cfg.paths));
    // An I/O serialize_overlap held back until the one it overlaps is done.
    let mut held = None;
    // openfiles: the next file found no room while I/O was in flight;
    // the job reaps before it picks again.
    let mut files_busy = false;
    let thinks = !cfg.think_sleep.is_zero() || !cfg.think_spin.is_zero();
    // The direction of the I/O just handed out, while its pause is to be
    // weighed, with the completions counted when it was the last one.
    let mut think_after: Option<(usize, Option<u64>)> = None;
    // The block count and the time of the last pause.
    let mut think_last_blocks = 0u64;
    let mut think_last_time = start;
    'run: loop {
        if let Some((d, completed)) = think_after.take()
            && quiesce.is_none()
        {
            let (ios, _) = issued(&work);
            let blocks = if cfg.think_counts_issues {
                ios
            } else {
                completed.unwrap_or(ios.saturating_sub((in_flight + unsubmitted.len()) as u64))
            };
            let mut stall = false;
            let mut count_blocks = true;
            let mut now = clock;
            if !cfg.think_iotime.is_zero() {
                now = clock::now();
                let period = cfg.think_iotime + cfg.think_spin + cfg.think_sleep;
                if now.saturating_sub(think_last_time) >= nanos(period) {
                    stall = true;
                } else {
                    count_blocks = cfg.think_blocks_set;
                }
            }
            stall |= count_blocks && blocks >= think_last_blocks + cfg.think_blocks;
            if stall {
                // The block count before the I/O in flight drains, as fio
                // keeps it.
                think_last_blocks = blocks;
                if !cfg.think_iotime.is_zero() {
                    think_last_time = now;
                }
                quiesce = Some(Quiesce::Think(d));
                draining = true;
            }
        }
        // rate_min and rate_iops_min, as fio checks them between I/Os.
        if let Some(check) = &mut floor_check
            && clock >= ramp_end
            && let Some(text) = check.check(clock, issued(&work).0, &result.dirs, &cfg.name)
        {
            result.fail(libc::EIO, "check_min_rate", text);
            break;
        }
        if clock >= ramp_end
            && let Some(lt) = &mut lat_target
        {
            match lt.check(clock, result.dirs.iter().map(|d| d.ios).sum()) {
                latency_target::Step::Drain if quiesce.is_none() => quiesce = Some(Quiesce::Depth),
                latency_target::Step::FinalWindow => quiesce = Some(Quiesce::FinalWindow),
                latency_target::Step::Done => finished.set(true),
                _ => {}
            }
            draining |= quiesce.is_some();
        }
        let issuing = may_issue(clock, &work, budget);
        // A trigger's request for the job's state is answered where the
        // job first may not issue: what is still in flight is not listed
        // as written yet, as fio has it when its trigger fires.
        if !issuing && progress.vstate.asked() {
            let verifying = verifying.as_ref();
            answer_trigger(progress, cfg, verifying, &draws, verify_reseeded, &result);
        }
        if clock >= next_tick {
            if clock >= sampler.next && issuing {
                let ms = ms_between(ramp_end, clock);
                sampler.sample(
                    clock,
                    &mut result.dirs,
                    [sample_bw, sample_iops],
                    &mut |iops, dir, value| {
                        if let Some(logs) = &mut records.logs {
                            // Averaged entries carry the block size only when
                            // it is fixed.
                            let bs = &cfg.bs[dir];
                            let bs = if bs.min() == bs.max() { bs.min() } else { 0 };
                            logs.sampled(iops, dir, value, ms, bs);
                        }
                    },
                );
            }
            if cpu_start.is_none() && clock >= ramp_end {
                cpu_start = Some(CpuUsage::of_this_thread());
                progress.set_state(State::Running);
                if !cfg.ramp.is_zero() {
                    progress.set_epoch(ramp_end);
                    if let Some(v) = &mut verifying {
                        v.trail.stats_restarted();
                    }
                    if let Some(lt) = &mut lat_target {
                        lt.restart(clock, 0);
                    }
                }
            }
            if clock >= next_publish {
                let dirs = &result.dirs;
                progress.publish(
                    [0, 1, 2].map(|d| dirs[d].bytes),
                    [0, 1, 2].map(|d| dirs[d].ios),
                );
                if let Some(tally) = &mut records.live
                    && clock >= ramp_end
                {
                    progress.hand_over(tally, clock);
                    progress.set_depth(if synchronous { 1 } else { in_flight });
                }
                if progress.snapshot_wanted() {
                    let mut so_far = result.clone();
                    so_far.finish(std::time::Duration::from_nanos(
                        clock.saturating_sub(ramp_end),
                    ));
                    if let Some(start) = cpu_start {
                        so_far.cpu = CpuUsage::of_this_thread().since(&start);
                    }
                    progress.give_snapshot(so_far);
                }
                next_publish = clock + publish_every;
            }
            next_tick = sampler.next.min(next_publish);
            if cpu_start.is_none() {
                next_tick = next_tick.min(ramp_end);
            }
        }
        // Room for another I/O: below the depth, and the engine willing.
        // latency_target holds the queue to the depth it is trying.
        let depth_limit = lat_target.as_ref().map_or(cfg.iodepth, |l| l.depth);
        let below_depth = in_flight + unsubmitted.len() < depth_limit;
        let room = below_depth && !(may_be_busy && eng.busy()) && !files_busy;
        // fio hands a busy null engine its next I/O anyway, which logs it,
        // and hands it over again once the engine has been reaped.
        if iolog.is_some() && issuing && !draining && below_depth && may_be_busy && eng.busy() {
            handed_to_busy = true;
        }
        // fio finds a replay's end as soon as it looks for another I/O,
        // which it does below the depth even when the engine is busy.
        if issuing
            && below_depth
            && let Some(rp) = &mut replayer
            && !rp.io_left()
        {
            rp.finish(&|| stop.any());
            finished.set(true);
            replay_over = true;
            continue;
        }
        if let Some(q) = quiesce
            && in_flight == 0
            && unsubmitted.is_empty()
        {
            quiesce = None;
            draining = false;
            match q {
                Quiesce::Flow => {
                    std::thread::sleep(cfg.flow_sleep);
                    clock = clock::now();
                    continue;
                }
                Quiesce::Depth => {}
                Quiesce::Think(d) => {
                    let thought = think(cfg.think_spin, cfg.think_sleep);
                    // The next I/O starts once the job has thought:
                    // thinking is no part of its latency.
                    clock = clock::now();
                    if cfg.rate_ignore_thinktime {
                        rate_credit[d] += rate::thinktime_credit(cfg, d, thought);
                        if let Some(p) = &mut poisson {
                            p.delay(d, thought);
                        }
                    }
                    continue;
                }
                Quiesce::FinalWindow => {
                    // fio starts the statistics, and the runtime, over
                    // for the window at the depth found.
                    clock = clock::now();
                    ramp_end = clock;
                    deadline.set(cfg.runtime.map(|r| clock.saturating_add(nanos(r))));
                    let pid = result.pid;
                    result = JobResult::new(cfg);
                    result.pid = pid;
                    sampler = RateSampler::new(clock, cfg.bw_every, cfg.iops_every);
                    depth = DepthTracker::new(clock);
                    cpu_start = Some(CpuUsage::of_this_thread());
                    progress.set_epoch(clock);
                    if let Some(v) = &mut verifying {
                        v.trail.stats_restarted();
                    }
                    if let Some(lt) = &mut lat_target {
                        lt.stats_restarted(clock);
                    }
                    next_tick = clock;
                }
            }
        }
        // Set when a batch was submitted while the queue has room for more.
        let mut keep_filling = false;
        // Set when a periodic sync went into the engine's queue in place
        // of an I/O.
        let mut sync_queued = false;
        if issuing && room {
            // A replay's next step, unless it is an I/O: the end of the
            // log, a file action or wait (which only pace it), or a sync.
            let mut replay_sync = None;
            if let Some(rp) = &mut replayer {
                if let Some(step) = rp.peek()
                    && matches!(
                        step.action,
                        Action::Open | Action::Io { .. } | Action::Sync { .. }
                    )
                    && files[step.file] == UNOPENED
                {
                    let path = &cfg.paths[step.file];
                    match eng.open(path, mode) {
                        Ok(f) => files[step.file] = f,
                        Err(e) => {
                            let func = format!("open({})", path.display());
                            result.fail(errno(&e), &func, format!("fio: {func}: {e}"));
                            break;
                        }
                    }
                }
                match rp.peek() {
                    None => {
                        finished.set(true);
                        replay_over = true;
                        continue;
                    }
                    Some(Step {
                        file,
                        action: Action::Sync { data_only },
                        ..
                    }) => replay_sync = Some((file, data_only)),
                    Some(Step {
                        action: Action::Io { .. },
                        ..
                    }) => {}
                    Some(_) => {
                        rp.take(&|| stop.any());
                        clock = clock::now();
                        continue;
                    }
                }
            }
            // fio's periodic syncs: due whenever the writes issued so far
            // are a multiple of fsync (or fdatasync), but never twice in a
            // row. They wait for the I/O in flight, then for the device.
            let due = replay_sync
                .map(|(file, data_only)| (Some(file), SyncKind::of(data_only)))
                .or_else(|| {
                    sync_due(cfg, work[Dir::Write as usize].0, last_was_sync).map(|d| (None, d))
                });
            if let Some((None, kind)) =
                due.filter(|&(_, kind)| kind != SyncKind::Range && eng.syncs_in_queue())
            {
                let data_only = kind == SyncKind::Data;
                let Some(index) = free.pop() else { break };
                let target = chooser.pick().unwrap_or(0);
                if let Some(l) = &mut lazy
                    && let Err(e) =
                        l.ensure(eng.as_mut(), &mut files, target, &cfg.paths[target], mode)
                {
                    let func = format!("open({})", cfg.paths[target].display());
                    result.fail(errno(&e), &func, String::new());
                    break;
                }
                if let Some(w) = &mut iolog {
                    let offset = free.last().map_or(0, |&i| slots[i].offset);
                    w.sync(target, data_only, offset);
                }
                // Any sync ends the file's written span, as in fio.
                if let Some(w) = records.written.as_mut() {
                    w.take(target);
                }
                let slot = &mut slots[index];
                slot.file = target;
                slot.offset = 0;
                slot.len = 0;
                slot.piece = None;
                slot.prepared = clock;
                slot.submitted = Some(clock);
                match eng.queue_sync(index, files[target], data_only) {
                    Queued::Pending => {
                        if submits_in_queue && clock >= ramp_end {
                            result.done_in_queue_async();
                        }
                        slot.sync = Some(kind);
                        slot.queued = true;
                        slot.flying = true;
                        unsubmitted.push(index);
                    }
                    Queued::Done(r) => {
                        free.push(index);
                        // A sync the engine refused to start (rbd's
                        // fdatasync): fio's error line says it all.
                        if r < 0 {
                            result.fail((-r) as i32, "xfer", String::new());
                            break;
                        }
                    }
                }
                sync_queued = true;
                let full = in_flight + unsubmitted.len() >= depth_limit;
                if unsubmitted.len() < cfg.batch_submit && !full {
                    continue;
                }
                keep_filling = !full;
            } else if let Some((replayed, kind)) = due {
                let data_only = kind == SyncKind::Data;
                if !unsubmitted.is_empty() || in_flight > 0 {
                    draining = true;
                } else {
                    if let Some(rp) = &mut replayer
                        && replayed.is_some()
                        && !rp.take(&|| stop.any())
                    {
                        continue;
                    }
                    let before = clock::now();
                    // Like fio, sync the file the next I/O would go to
                    // (the sync takes that file's turn).
                    let target = replayed.unwrap_or_else(|| chooser.pick().unwrap_or(0));
                    // Nothing is in flight during a sync, so it never
                    // finds the choice busy.
                    chooser.take_busy();
                    if let Some(l) = &mut lazy
                        && let Err(e) =
                            l.ensure(eng.as_mut(), &mut files, target, &cfg.paths[target], mode)
                    {
                        let func = format!("open({})", cfg.paths[target].display());
                        result.fail(errno(&e), &func, String::new());
                        break;
                    }
                    if let Some(w) = &mut iolog {
                        // fio's sync goes in the I/O unit freed last.
                        let offset = free.last().map_or(0, |&i| slots[i].offset);
                        w.sync(target, data_only, offset);
                    }
                    if let Some(rp) = &mut replayer {
                        rp.issued(before);
                    }
                    // Any sync ends the file's written span, as in fio.
                    let span = records.written.as_mut().map(|w| w.take(target));
                    let synced = match (kind, span, cfg.sync_range) {
                        (SyncKind::Range, Some((offset, len)), Some(range)) => {
                            eng.sync_range(files[target], offset, len, range.flags)
                        }
                        _ => eng.sync(files[target], data_only),
                    };
                    if let Err(e) = synced {
                        let path = cfg.paths[target].display();
                        let text = format!("fio: sync of {path} failed: {e}");
                        result.fail(errno(&e), kind.call(), text);
                        break;
                    }
                    clock = clock::now();
                    count_sync(&mut result, kind, clock - before);
                    result.done_in_queue(counts_each_io);
                    last_was_sync = true;
                    draining = false;
                    continue;
                }
            }
            // A new pass over the files (fio's next loop, or a time-based
            // job that has covered its size): fio waits for the I/O in
            // flight and reopens the files, which drops their cached
            // pages again; offsets and the random map start over.
            // A job that reads and writes (not time-based) ends a pass
            // only when its offsets run out or its loop's bytes were
            // queued to an engine that completes later: its directions
            // keep their own positions, so one loop may issue more than
            // its size.
            let pass_done = if runs_on {
                loop_queued >= loop_bytes
            } else {
                issued(&work).1 - pass_start >= cfg.pass_bytes
            };
            if out_of_offsets || pass_done {
                if !unsubmitted.is_empty() || in_flight > 0 {
                    draining = true;
                } else {
                    // A pass that ran out of offsets is followed by another
                    // only as fio's keep_running allows.
                    // A pass that issued nothing would repeat forever.
                    let idle = issued(&work).1 == loop_start;
                    // fio's loop (its do_io) ends when the files' offsets
                    // run out, when the job's bytes for all its loops are
                    // done, or once its size was queued to an engine that
                    // completes I/O later (fio does not count what a
                    // synchronous engine completes); a pass of ferrio's
                    // may be less. So a first loop whose offsets last
                    // (reads and writes each with their own position,
                    // norandommap) goes on past its size.
                    let loop_over = if cfg.time_based {
                        // A time-based loop wraps its files: only the
                        // bytes queued end it.
                        loop_queued >= loop_bytes
                    } else {
                        out_of_offsets
                            || issued(&work).1 >= cfg.io_bytes
                            || loop_queued >= loop_bytes
                    };
                    // A verifying writer checks its blocks at the end of
                    // each loop; then the reads count in fio's
                    // keep_running as much as the writes.
                    let verifier = verifying
                        .as_ref()
                        .is_some_and(|v| cfg.pattern.write && v.spec.read_back && !v.spec.only);
                    let verifies = verifier && loop_over;
                    // A pass within one of fio's loops is not a loop.
                    if loop_over || (!verifier && cfg.time_based) {
                        passes += 1;
                    }
                    if verifies
                        && let (Some(t), Some(v)) = (&mut trims, &verifying)
                        && t.writes_over(v, last_was_read)
                    {
                        died = true;
                        break 'run;
                    }
                    if verifies && !idle {
                        loop_queued = 0;
                        verify_reseeded = true;
                        // The checks may go to any file: open those closed
                        // (openfiles).
                        if let Some(l) = &mut lazy
                            && let Err((e, path)) =
                                l.ensure_all(eng.as_mut(), &mut files, &cfg.paths, mode)
                        {
                            let func = format!("open({})", path.display());
                            result.fail(errno(&e), &func, String::new());
                            break 'run;
                        }
                        if let Some(v) = &mut verifying {
                            let rest = v.rest();
                            verify_moved += rest.iter().map(|w| u64::from(w.len)).sum::<u64>();
                            let began = clock::now();
                            let mut pass = Pass {
                                cfg,
                                eng: eng.as_mut(),
                                files: &files,
                                slots: &mut slots,
                                result: &mut result,
                                records: &mut records,
                                epoch: ramp_end,
                                deadline: deadline.get(),
                                counts_each_io,
                                counts_submits,
                                iolog: &mut iolog,
                            };
                            pass.check_all(v, &rest, stop);
                            clock = clock::now();
                            verify_spent += clock.saturating_sub(began);
                        }
                        if result.error.is_some() || stop.any() {
                            break 'run;
                        }
                    }
                    let another = if verifies {
                        let moved = issued(&work).1 + verify_moved;
                        cfg.time_based
                            || passes < cfg.loops
                            || (cfg.io_size_given
                                && cfg.pass_bytes.saturating_sub(moved) >= max_len as u64)
                    } else {
                        // Past its loops, fio's keep_running goes on
                        // while the bytes done fall short of one
                        // io_size (not one per loop) by a block or more.
                        cfg.time_based
                            || passes < cfg.loops
                            || (cfg.io_size_given
                                && cfg.pass_bytes.saturating_sub(issued(&work).1) >= max_len as u64)
                    };
                    if (out_of_offsets || verifies) && (idle || !another) {
                        finished.set(true);
                        draining = false;
                        continue;
                    }
                    out_of_offsets = false;
                    // Within one of fio's loops the I/O goes on from
                    // where it is.
                    if !loop_over && !cfg.time_based {
                        pass_start = issued(&work).1;
                        draining = false;
                        continue;
                    }
                    // fio closes the files between loops (and logs it), but
                    // not when a time-based job starts its files over.
                    if let Some(w) = &mut iolog
                        && !cfg.time_based
                    {
                        for file in 0..cfg.paths.len() {
                            w.close(file);
                        }
                    }
                    chooser.restart();
                    pass_start = issued(&work).1;
                    loop_start = pass_start;
                    if runs_on {
                        loop_queued = 0;
                    }
                    // fio closes the files between loops (openfiles: and
                    // opens each again when the job comes to it).
                    if let Some(l) = &mut lazy {
                        l.close_all(eng.as_mut(), &mut files);
                    }
                    if cfg.unlink_each_loop
                        && !cfg.time_based
                        && let Err((code, func, text)) =
                            unlink_and_reopen(cfg, eng.as_mut(), mode, &mut files, at_start)
                    {
                        result.fail(code, &func, text);
                        break 'run;
                    }
                    if cfg.invalidate && cfg.engine != "null" {
                        for path in &cfg.paths {
                            if let Err(e) = eng.invalidate(path) {
                                let path = path.display();
                                let text = format!("fio: invalidating {path}: {e}");
                                result.fail(errno(&e), "invalidate_cache", text);
                                break 'run;
                            }
                        }
                    }
                    placer.restart(cfg);
                    verify_reseeded = false;
                    eng.new_pass();
                    // fio's next loop draws again from the start of each
                    // sequence when the job repeats its randomness.
                    // (fio's clear_io_state: after a time-based loop too,
                    // when one ends to verify.)
                    if cfg.seeds.repeat && (!cfg.time_based || verifies) {
                        draws.start_over(job_draws(cfg));
                        if let Some(v) = &mut verifying {
                            v.reseed();
                        }
                        chooser.reseed(cfg);
                        if let Some(t) = &mut trims {
                            t.start_over(&cfg.seeds, draws_wide(cfg));
                        }
                    }
                    draining = false;
                    continue;
                }
            }
        }
        // Flow control: a job ahead of its share of the flow waits, with
        // flow_sleep after the I/O in flight has drained, else spinning.
        if issuing
            && room
            && !draining
            && let Some(seat) = flow.as_deref_mut()
            && seat.held_back()
        {
            if cfg.flow_sleep.is_zero() {
                std::hint::spin_loop();
                clock = clock::now();
                continue;
            }
            quiesce = Some(Quiesce::Flow);
            draining = true;
        }
        if issuing && room && !draining && !sync_queued {
            // The rest of an I/O cut short goes first, as it stands; then
            // an I/O held back by serialize_overlap, as it was.
            let resumed = requeued.pop();
            let (backlog, (index, dir, file_index, offset, len, intended)) = if let Some(index) =
                resumed
            {
                let s = &slots[index];
                (
                    None,
                    (index, s.dir, s.file, s.offset, s.len as u64, s.intended),
                )
            } else if let Some(h) = held.take() {
                h
            } else {
                // verify_backlog: in place of the next I/O, a read that checks
                // a block written earlier.
                let backlog = verifying
                    .as_mut()
                    .and_then(|v| v.backlog_next(last_was_read).map(|p| (p, v.piece(p))));
                // trim_percentage: a block read back leaves the trim
                // list; else fio fetches a trim here when its backlog
                // is due, and its job dies of it.
                if let (Some(t), Some(v)) = (&mut trims, &verifying) {
                    match backlog {
                        Some((piece, _)) => t.off_list(piece),
                        None if t.due(v.unchecked(), last_was_read) => {
                            died = true;
                            break 'run;
                        }
                        None => {}
                    }
                }
                let io = if let Some((_, block)) = backlog {
                    let Some(index) = free.pop() else { break };
                    let (file, len) = (block.file as usize, u64::from(block.len));
                    (index, Dir::Read, file, block.offset, len, None)
                } else {
                    let replayed = replayer.as_ref().and_then(Replayer::peek);
                    let mixed = replayed.is_none() && cfg.pattern.read && cfg.pattern.write;
                    let drawn = if let Some(Step {
                        action: Action::Io { dir, .. },
                        ..
                    }) = replayed
                    {
                        dir
                    } else if cfg.pattern.trim {
                        Dir::Trim
                    } else if mixed {
                        [Dir::Read, Dir::Write][draws.mix.next([work[0].0, work[1].0])]
                    } else if cfg.pattern.read {
                        Dir::Read
                    } else {
                        Dir::Write
                    };
                    // Rate caps (fio's rate_ddir): a direction ahead of its rate
                    // gives way to the other if that one is due, else the job
                    // sleeps until the earlier of the two is due.
                    let due = |d: Dir| {
                        let (ios, bytes) = work[d as usize];
                        // rate_ignore_thinktime: what the job would have issued
                        // while it thought counts as issued.
                        let credit = rate_credit[d as usize];
                        let (ios, bytes) = (
                            ios + credit / cfg.bs[d as usize].min().max(1),
                            bytes + credit,
                        );
                        start
                            + match &poisson {
                                Some(p) => p.due_us(d as usize) * 1000,
                                None => nanos(
                                    super::config::rate_due(cfg, d as usize, ios, bytes)
                                        .unwrap_or_default(),
                                ),
                            }
                    };
                    let other = if drawn == Dir::Read {
                        Dir::Write
                    } else {
                        Dir::Read
                    };
                    // trimwrite: the write that follows each trim goes to the
                    // block just trimmed.
                    let follow = pending_write.take();
                    // Only rate-capped jobs read the clock here; the I/O's
                    // latencies count from after any wait for its turn, as
                    // fio's do.
                    if rate_capped {
                        clock = clock::now();
                    }
                    let mut dir = if follow.is_some() {
                        Dir::Write
                    } else if !rate_capped || due(drawn) <= clock {
                        drawn
                    } else if mixed && due(other) <= clock {
                        other
                    } else {
                        let dir = if !mixed || due(drawn) <= due(other) {
                            drawn
                        } else {
                            other
                        };
                        let waited = wait_until(due(dir), deadline.get(), stop);
                        // The I/O starts after the wait: its latency must not
                        // include it (fio sleeps before taking the I/O's time).
                        clock = clock::now();
                        if !waited {
                            continue;
                        }
                        dir
                    };
                    // When the schedule meant this I/O to go, had nothing
                    // held it up.
                    let intended =
                        (rate_capped && follow.is_none() && capped[dir as usize]).then(|| due(dir));
                    let Some(index) = free.pop() else { break };
                    last_was_sync = false;
                    let (file_index, offset, len) = match (follow, replayed) {
                        // zbd: trimwrite's write goes to the write
                        // pointer of the zone just reset, as fio's does.
                        (Some(block), _) => match placer.zbd_write(cfg, block) {
                            Some(block) => block,
                            None => {
                                free.push(index);
                                if zbd_failed(&mut placer, &mut result) {
                                    break 'run;
                                }
                                out_of_offsets = true;
                                continue;
                            }
                        },
                        // An engine that moves no data takes I/Os without a
                        // place or a length.
                        (None, _) if no_data => (0, 0, 0),
                        (
                            None,
                            Some(Step {
                                file,
                                action: Action::Io { offset, len, .. },
                                ..
                            }),
                        ) => {
                            // The recorded gap before this I/O (fio waits as
                            // it hands out the I/O).
                            if let Some(rp) = &mut replayer
                                && !rp.take(&|| stop.any())
                            {
                                free.push(index);
                                clock = clock::now();
                                continue;
                            }
                            (file, offset, len)
                        }
                        (None, _) => {
                            chooser.set_in_flight(in_flight + unsubmitted.len() > 0);
                            // fio draws the mix's direction again for
                            // each file it tries.
                            let redraw = (mixed && !rate_capped).then_some([work[0].0, work[1].0]);
                            match next_io(
                                cfg,
                                &mut chooser,
                                &mut lazy,
                                &mut placer,
                                (&mut dir, redraw),
                                &mut draws,
                                &mut iolog,
                            ) {
                                Some(io) => io,
                                None => {
                                    free.push(index);
                                    if zbd_failed(&mut placer, &mut result) {
                                        break 'run;
                                    }
                                    // No room for the next file while
                                    // I/O is in flight: reap, then
                                    // try again (fio's busy open).
                                    if chooser.take_busy() {
                                        files_busy = true;
                                    } else {
                                        out_of_offsets = true;
                                    }
                                    continue;
                                }
                            }
                        }
                    };
                    if cfg.pattern.trimwrite && dir == Dir::Trim {
                        pending_write = Some((file_index, offset, len));
                    }
                    (index, dir, file_index, offset, len, intended)
                };
                (backlog, io)
            };
            // verify_state_load: a job that only reads checks up to where
            // the loaded state's writes stopped, and there its I/O ends.
            if verifying.as_ref().is_some_and(|v| {
                dir == Dir::Read
                    && !cfg.pattern.write
                    && resumed.is_none()
                    && v.past_saved_writes(file_index, offset)
            }) {
                free.push(index);
                break 'run;
            }
            // serialize_overlap: an I/O that overlaps one in flight waits,
            // as it is, until something completes (fio's busy queue).
            if cfg.serialize_overlap
                && slots.iter().any(|o| {
                    o.flying
                        && o.file == file_index
                        && offset < o.offset + o.len as u64
                        && o.offset < offset + len
                })
            {
                // The rest of a short I/O waits among the requeued ones
                // (it keeps what it already moved); any other I/O is held.
                if resumed.is_some() {
                    requeued.push(index);
                } else {
                    held = Some((backlog, (index, dir, file_index, offset, len, intended)));
                }
            } else {
                if let Some(l) = &mut lazy {
                    while let Some(f) = chooser.take_retired() {
                        l.retire(f);
                    }
                    l.flush(eng.as_mut(), &mut files, &mut chooser);
                    let path = &cfg.paths[file_index];
                    if let Err(e) = l.ensure(eng.as_mut(), &mut files, file_index, path, mode) {
                        free.push(index);
                        let func = format!("open({})", path.display());
                        result.fail(errno(&e), &func, String::new());
                        break 'run;
                    }
                    if resumed.is_none() {
                        l.issued(file_index);
                    }
                }
                // The file engines' operation, when this is the file's first
                // I/O of the pass (fio's open of the file).
                match (file_ops && resumed.is_none())
                    .then(|| eng.file_op(files[file_index]))
                    .flatten()
                {
                    None => {}
                    Some(Ok(took)) => {
                        clock = ticker.read();
                        if clock >= ramp_end && cfg.measure.lat {
                            let at = ms_between(ramp_end, clock);
                            file_op_sample(cfg, &mut result, &mut records.logs, took, at);
                        }
                    }
                    Some(Err(e)) => {
                        free.push(index);
                        // fio says no more than its error line does.
                        result.fail(errno(&e.error), &e.func, String::new());
                        break 'run;
                    }
                }
                let file = files[file_index];
                let slot = &mut slots[index];
                slot.file = file_index;
                slot.dir = dir;
                slot.offset = offset;
                slot.len = len as usize;
                slot.prepared = clock;
                slot.submitted = Some(clock);
                slot.intended = intended;
                if resumed.is_none() {
                    slot.skip = 0;
                    slot.piece = backlog.map(|(piece, _)| piece);
                }
                if clock >= ramp_end {
                    result.issue(dir);
                }
                // The rest of a short I/O counts as issued again, as in fio.
                if resumed.is_some() {
                    work[dir as usize].0 += 1;
                    work[dir as usize].1 += len;
                }
                // Backlog reads are not part of the job's amount of I/O.
                if backlog.is_some() && resumed.is_none() {
                    verify_moved += len;
                }
                if backlog.is_none() && resumed.is_none() {
                    work[dir as usize].0 += 1;
                    work[dir as usize].1 += len;
                    if let Some(p) = &mut poisson {
                        p.issued(dir as usize);
                    }
                    let issued_ios = issued(&work).0;
                    if dir == Dir::Write {
                        match (&mut verifying, &mut content) {
                            (Some(v), _) => {
                                let numberio = work[Dir::Write as usize].0 - 1;
                                let mapped = placer.files[file_index].has_map();
                                slot.piece =
                                    Some(v.stamp(slot.buf(), file_index, offset, numberio, mapped));
                                if let (Some(t), Some(piece)) = (&mut trims, slot.piece) {
                                    t.logged(piece);
                                    // fio's log drops overwritten blocks
                                    // from the trim list too.
                                    for &old in v.dropped() {
                                        t.off_list(old);
                                    }
                                }
                            }
                            (None, Some(content)) => content.fill(slot.buf()),
                            (None, None) => slot.prepare_write(cfg, &mut rng, issued_ios),
                        }
                    }
                }
                if let Some(w) = &mut iolog
                    && resumed.is_none()
                {
                    if handed_to_busy {
                        w.io(file_index, dir, offset, len);
                        handed_to_busy = false;
                    }
                    w.io(file_index, dir, offset, len);
                }
                if let Some(rp) = &mut replayer {
                    // With room left behind this I/O, fio looks for the next
                    // one before it reaps anything, and finds the log's end.
                    if !rp.io_left() && in_flight + unsubmitted.len() + 1 < cfg.iodepth {
                        rp.finish(&|| stop.any());
                        finished.set(true);
                        replay_over = true;
                    }
                    let now = clock::now();
                    rp.issued(now);
                    slot.prepared = now;
                    slot.submitted = Some(now);
                }
                // fio weighs a pause after each I/O it hands out (and any reap
                // a full queue needs), before it looks for the next one.
                think_after = thinks.then_some((dir as usize, None));
                // verify_only: the writes are only replayed, to know what to
                // check (and the reads of a job that writes, as fio's dry
                // run goes through them too).
                let replay = (dir == Dir::Write || cfg.pattern.write)
                    && verifying.as_ref().is_some_and(|v| v.spec.only);
                // zbd: a trim resets its zone rather than reaching the file.
                let zone_reset = (dir == Dir::Trim)
                    .then(|| placer.zbd_trim(file_index, offset, len))
                    .flatten();
                let queued = if replay {
                    Queued::Done(len as i64)
                } else if let Some(r) = zone_reset {
                    Queued::Done(r)
                } else {
                    let raised = cfg
                        .cmdprio
                        .as_ref()
                        .and_then(|c| c.choose(dir as usize, len, &mut prio_draws));
                    (slot.ioprio, slot.prio_index) = raised.unwrap_or((cfg.default_ioprio, 0));
                    let _held = file_locks.as_ref().map(|l| l.hold(file_index, dir));
                    eng.queue(Request {
                        slot: index,
                        file,
                        offset,
                        dir,
                        buf: slot.buf(),
                        ioprio: raised.map(|r| r.0),
                    })
                };
                match queued {
                    Queued::Pending => {
                        loop_queued += len;
                        if submits_in_queue && clock >= ramp_end {
                            result.done_in_queue_async();
                        }
                        slot.queued = true;
                        slot.flying = true;
                        unsubmitted.push(index);
                    }
                    Queued::Done(0) if eng.ended() => {
                        // The other end closed the link (net): the job is
                        // done, and this I/O never happened, as in fio.
                        slot.submitted = None;
                        if clock >= ramp_end {
                            result.unissue(dir);
                        }
                        free.push(index);
                        break 'run;
                    }
                    Queued::Done(mut r) => {
                        last_was_read = dir == Dir::Read;
                        // A synchronous engine: this I/O's end is the next one's start.
                        clock = ticker.read();
                        if clock >= ramp_end {
                            result.done_in_queue(counts_each_io);
                        }
                        // A short transfer: the rest goes back to the engine,
                        // unless it starts at the file's end, where fio ends
                        // the I/O with nothing more counted.
                        let mut ends_at_eof = false;
                        if !replay && slot.shortened(r, &mut result) {
                            if slot.offset != real_sizes[file_index] {
                                requeued.push(index);
                                continue;
                            }
                            ends_at_eof = true;
                            r = 0;
                        }
                        if let Some(l) = &mut lazy {
                            l.ended(eng.as_mut(), &mut files, file_index, &mut chooser);
                        }
                        free.push(index);
                        // Nothing transferred at all (a read at the end of a
                        // file created on open, say): fio fails the job with
                        // EIO, saying only "full resid".
                        if r == 0 && slot.len > 0 && !ends_at_eof {
                            result.fail(libc::EIO, "full resid", String::new());
                            break 'run;
                        }
                        let mut done = Finishing {
                            result: &mut result,
                            records: &mut records,
                            lat_target: &mut lat_target,
                            quiesce: &mut quiesce,
                            verifying: &mut verifying,
                        };
                        if !done.finish(cfg, slot, r, clock, ramp_end, "io_u_sync_complete") {
                            break 'run;
                        }
                        // An engine's own think time (cpuio's) follows the
                        // I/O, before the job decides whether to go on.
                        if let Some(pause) = engine_thinks.then(|| eng.think_time()).flatten() {
                            think(std::time::Duration::ZERO, pause);
                            clock = clock::now();
                        }
                        continue;
                    }
                }
                // Polling for completions (no batch_complete minimum or
                // maximum), fio reaps after every I/O as if the queue were full.
                let full = in_flight + unsubmitted.len() >= depth_limit
                    || (may_be_busy && eng.busy())
                    || cfg.reap_after_each_io;
                let last = !may_issue(clock, &work, budget);
                // fio weighs the pause after the last I/O before it reaps
                // what is in flight (unless the queue is full): count the
                // completions now.
                if last
                    && !full
                    && let Some((_, completed)) = &mut think_after
                {
                    let (ios, _) = issued(&work);
                    *completed = Some(ios.saturating_sub((in_flight + unsubmitted.len()) as u64));
                }
                if unsubmitted.len() < cfg.batch_submit && !full && !last {
                    continue;
                }
                keep_filling = !full && !last;
            }
        }
        // Submit what is queued: a full batch, a full queue, the last I/Os,
        // or the I/Os a periodic sync has to wait for.
        if !unsubmitted.is_empty() {
            let batch = unsubmitted.len();
            if let Err(e) = submit(
                eng.as_mut(),
                &mut slots,
                &mut unsubmitted,
                &mut in_flight,
                &mut clock,
                &mut ticker,
            ) {
                result.fail(
                    errno(&e),
                    "io commit",
                    format!("fio: io commit failed: {e}"),
                );
                break;
            }
            depth.set(clock, in_flight);
            if clock >= ramp_end {
                result.depth_sample(in_flight, batch);
                if counts_submits {
                    result.submitted(batch);
                }
            }
            if keep_filling {
                continue;
            }
        }
        if in_flight == 0 && std::mem::take(&mut files_busy) {
            continue;
        }
        if in_flight == 0 {
            // A drain for a sync or a new pass goes on to it only while
            // the job may still issue: when its time ran out during the
            // drain, the job is over (looping here would spin forever).
            if (draining && may_issue(clock, &work, budget)) || !unsubmitted.is_empty() {
                continue;
            }
            break;
        }
        // Reap: at least one when the queue is full or nothing more will
        // be issued, then on until the queue has drained to iodepth_low.
        let full = in_flight + unsubmitted.len() >= depth_limit || (may_be_busy && eng.busy());
        loop {
            // At the end fio waits for everything in flight in one call.
            let stopping = !may_issue(clock, &work, budget);
            let ending = !draining && stopping;
            if stopping && progress.vstate.asked() {
                let verifying = verifying.as_ref();
                answer_trigger(progress, cfg, verifying, &draws, verify_reseeded, &result);
            }
            let (min, max) = if ending {
                (in_flight, in_flight)
            } else {
                (
                    cfg.batch_complete_min.min(in_flight).max(1),
                    cfg.batch_complete_max,
                )
            };
            done.clear();
            if let Err(e) = eng.reap(min.min(in_flight), max, &mut done) {
                let text = format!("fio: reaping I/O failed: {e}");
                result.fail(errno(&e), "get_events", text);
                break 'run;
            }
            // One clock read per reaped batch.
            clock = ticker.read();
            if clock >= ramp_end {
                result.reaped(done.len());
            }
            // All of them are out of the engine, even if an error stops
            // the accounting part way.
            in_flight -= done.len();
            let epoch = if replay_over { Nanos::MAX } else { ramp_end };
            let mut failed_in_batch = false;
            for c in &done {
                let slot = &mut slots[c.slot];
                if failed_in_batch {
                    // An earlier completion of this batch ended the job.
                    note_later_error(cfg, &mut result, slot, c.result);
                    continue;
                }
                slot.flying = false;
                if let Some(kind) = slot.sync.take() {
                    free.push(c.slot);
                    if !sync_done(&mut result, slot, kind, c.result, clock, epoch) {
                        break 'run;
                    }
                    last_was_sync = true;
                    continue;
                }
                last_was_read = slot.dir == Dir::Read;
                // A short transfer short of the file's end: fio hands the
                // engine the rest before any new I/O.
                if slot.shortened(c.result, &mut result) && slot.offset < real_sizes[slot.file] {
                    requeued.push(c.slot);
                    continue;
                }
                if let Some(l) = &mut lazy {
                    l.ended(eng.as_mut(), &mut files, slot.file, &mut chooser);
                }
                free.push(c.slot);
                let mut done = Finishing {
                    result: &mut result,
                    records: &mut records,
                    lat_target: &mut lat_target,
                    quiesce: &mut quiesce,
                    verifying: &mut verifying,
                };
                if !done.finish(cfg, slot, c.result, clock, epoch, "io_u_queued_complete") {
                    failed_in_batch = true;
                }
            }
            if failed_in_batch {
                break 'run;
            }
            depth.set(clock, in_flight);
            files_busy = false;
            let draining = draining || !may_issue(clock, &work, budget);
            let keep_reaping = draining || (full && in_flight > cfg.iodepth_low);
            if in_flight == 0 || !keep_reaping {
                break;
            }
        }
    }
    // Wait for anything still in flight (an error or a stop ended the job).
    while in_flight > 0 && !eng.abandoned() {
        done.clear();
        if eng.reap(in_flight, in_flight, &mut done).is_err() {
            break;
        }
        in_flight -= done.len().min(in_flight);
        for c in &done {
            note_later_error(cfg, &mut result, &slots[c.slot], c.result);
        }
    }
    if let Some(v) = &mut verifying {
        settle(cfg, &mut result, v);
    }
    if !died && let (Some(t), Some(v)) = (&mut trims, &verifying) {
        died = t.writes_over(v, last_was_read);
    }
    let writes_end = clock::now();
    // The read-back pass over the blocks not checked yet (fio's
    // do_verify); its time is the read direction's runtime.
    let mut verify_took = None;
    // fio's verify pass ends at once when the runtime is over.
    let time_left = deadline.get().is_none_or(|d| writes_end < d);
    if let Some(v) = &mut verifying
        && cfg.pattern.write
        && v.spec.read_back
        && result.error.is_none()
        && !stop.any()
        && time_left
        && !died
    {
        verify_reseeded = true;
        let rest = v.rest();
        // The read-back may go to any file: open those closed (openfiles).
        if let Some(l) = &mut lazy
            && let Err((e, path)) = l.ensure_all(eng.as_mut(), &mut files, &cfg.paths, mode)
        {
            let func = format!("open({})", path.display());
            result.fail(errno(&e), &func, String::new());
        }
        let mut pass = Pass {
            cfg,
            eng: eng.as_mut(),
            files: &files,
            slots: &mut slots,
            result: &mut result,
            records: &mut records,
            epoch: ramp_end,
            deadline: deadline.get(),
            counts_each_io,
            counts_submits,
            iolog: &mut iolog,
        };
        if !pass.result.failed() {
            pass.check_all(v, &rest, stop);
        }
        verify_took = Some(clock::now().saturating_sub(writes_end));
    }
    // The verify passes between loops count in the reads' runtime, not
    // the writes'.
    if verify_spent > 0 {
        verify_took = Some(verify_took.unwrap_or(0) + verify_spent);
    }
    result.zone_resets = placer.zbd.resets;
    let end = clock::now();
    progress.set_state(State::Finishing);
    result.finish(std::time::Duration::from_nanos(
        writes_end
            .saturating_sub(ramp_end)
            .saturating_sub(verify_spent),
    ));
    if let Some(took) = verify_took {
        // A job that reads as well times its reads over the loops and the
        // passes both (fio adds each pass to the read time of its loop).
        let loops_ns = if cfg.pattern.read && result.dirs[Dir::Read as usize].runtime_ms > 0 {
            result.runtime.as_nanos() as u64
        } else {
            0
        };
        result.dirs[Dir::Read as usize].runtime_ms =
            ((loops_ns + took) / 1000).div_ceil(1000).max(1);
        result.runtime += std::time::Duration::from_nanos(took);
    } else if cfg.pattern.write
        && !cfg.pattern.read
        && verifying.as_ref().is_some_and(|v| v.spec.read_back)
    {
        // A writer's reads are timed only by its verify passes: backlog
        // reads of a job whose runtime ran out before one have none.
        result.dirs[Dir::Read as usize].runtime_ms = 0;
    }
    if let Some(lt) = &lat_target {
        result.latency_depth = lt.depth;
    }
    if verifying.as_ref().is_some_and(|v| v.spec.only) {
        // fio's dry run of the writes takes no time, and skips the setup
        // of its I/O loop, latency depth included.
        result.dirs[Dir::Write as usize].runtime_ms = 0;
        result.latency_depth = 0;
    }
    (result.depth_mean, result.depth_per_second) = if synchronous {
        let seconds = result.runtime.as_secs() as usize;
        (1.0, vec![1.0; seconds])
    } else {
        (depth.mean(end), std::mem::take(&mut depth.per_second))
    };
    // The last of the live tally: everything up to the end of the I/O.
    if let Some(tally) = &mut records.live {
        progress.hand_over(tally, end.max(ramp_end));
        progress.set_depth(0);
    }
    // A job that died as fio's does never writes its logs out.
    if let Some(logs) = records.logs.take().filter(|_| !died) {
        let end_ms = ms_between(ramp_end, end);
        if let Err(e) = logs.write(end_ms) {
            result.fail(
                errno(&e),
                "write log",
                format!("fio: writing the job's logs failed: {e}"),
            );
        }
    }
    if let Some(start) = cpu_start {
        result.cpu = CpuUsage::of_this_thread().since(&start);
    }
    if died {
        trim_backlog::died(&mut result, trim_backlog::ABORT_SIGNAL);
    }
    // end_fsync and fsync_on_close: a last sync of every file, not
    // counted in the stats.
    if !result.failed() && !died && (cfg.end_fsync || cfg.fsync_on_close) && cfg.pattern.write {
        for (i, (&file, path)) in files.iter().zip(&cfg.paths).enumerate() {
            if file == UNOPENED {
                continue;
            }
            if let Some(w) = &mut iolog {
                w.final_sync(i, free.last().map_or(0, |&i| slots[i].offset));
            }
            if let Err(e) = eng.sync(file, false) {
                result.fail(
                    errno(&e),
                    "fsync",
                    format!("fio: final sync of {} failed: {e}", path.display()),
                );
            }
        }
    }
    // verify_state_save: a writing, verifying job records how far its
    // writes got, however it ended, unless a trigger saved its state
    // (then, or now if it asked and the job had not answered yet).
    let replayed = verifying.as_ref().map_or(0, |v| v.trail.replayed);
    let rand = || verify_trail::rand_state(cfg, &draws.offsets, verify_reseeded, replayed);
    answer_trigger(
        progress,
        cfg,
        verifying.as_ref(),
        &draws,
        verify_reseeded,
        &result,
    );
    if !progress.vstate.saved()
        && let Some(v) = &verifying
        && v.spec.state_save
        && cfg.pattern.write
    {
        verify_trail::save(v.spec.dump_dir.as_deref(), &v.trail.state(cfg, rand()));
    }
    progress
        .vstate
        .ended(writes_issued(verifying.as_ref(), &result), rand());
    result.connection = eng.connection();
    result.dir_mut(Dir::Read).dropped = eng.dropped();
    result.slowest.name(|file, offset| {
        let object = files.get(file).and_then(|&f| eng.object_of(f, offset));
        let path = cfg.paths.get(file).map(|p| p.display().to_string());
        (path.unwrap_or_default(), object)
    });
    if eng.abandoned() {
        // I/O given up on may still land in these buffers: they stay
        // allocated for the rest of the process.
        std::mem::forget(slots);
    }
    drop(eng);
    if let Some(w) = iolog
        && let Err(e) = w.finish()
    {
        let path = cfg
            .write_iolog
            .as_deref()
            .unwrap_or(std::path::Path::new(""));
        let text = format!("fio: writing iolog {}: {e}", path.display());
        result.fail(errno(&e), "write iolog", text);
    }
    if cfg.unlink {
        // Only regular files, as in fio: a job on a device or /dev/null
        // must never remove the node.
        let regular = |p: &std::path::Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
        for path in cfg.paths.iter().filter(|p| regular(p)) {
            if let Err(e) = std::fs::remove_file(path) {
                result.fail(
                    errno(&e),
                    "unlink",
                    format!("fio: unlink of {} failed: {e}", path.display()),
                );
            }
        }
    }
    result
}

/// Answers a trigger's request for the job's verify state, with the
/// state as it is now.
fn answer_trigger(
    progress: &JobProgress,
    cfg: &JobConfig,
    verifying: Option<&Verifying>,
    draws: &Draws,
    reseeded: bool,
    result: &JobResult,
) {
    progress.vstate.answer(|| {
        let replayed = verifying.map_or(0, |v| v.trail.replayed);
        let rand = verify_trail::rand_state(cfg, &draws.offsets, reseeded, replayed);
        trigger_state(cfg, verifying, result, rand)
    });
}

/// The job's verify state as a trigger saves it: the completed writes
/// are listed only where verify_state_save keeps them.
fn trigger_state(
    cfg: &JobConfig,
    verifying: Option<&Verifying>,
    result: &JobResult,
    rand: RandState,
) -> VerifyState {
    match verifying {
        Some(v) if v.spec.state_save => v.trail.state(cfg, rand),
        _ => {
            let issued = writes_issued(verifying, result);
            verify_trail::unlisted(cfg, cfg.paths.len() as u32, issued, rand)
        }
    }
}

/// The writes the job issued, as its verify state counts them.
fn writes_issued(verifying: Option<&Verifying>, result: &JobResult) -> u64 {
    verifying.map_or(result.dirs[Dir::Write as usize].issued, |v| v.trail.issued)
}

/// unlink_each_loop between two loops: fio removes the job's regular
/// files, then opens them as any loop does, which creates a writing job's
/// files empty (nothing is laid out again) and fails a reading job's.
/// Only the `first` files are opened (openfiles); the rest as the job
/// comes to them.
fn unlink_and_reopen(
    cfg: &JobConfig,
    eng: &mut dyn Engine,
    mode: OpenMode,
    files: &mut [usize],
    first: usize,
) -> Result<(), (i32, String, String)> {
    // fio closes the files before it removes them.
    for file in files.iter_mut() {
        if *file != UNOPENED {
            eng.close(*file);
            *file = UNOPENED;
        }
    }
    for path in &cfg.paths {
        if std::fs::metadata(path).is_ok_and(|m| m.is_file())
            && let Err(e) = std::fs::remove_file(path)
        {
            let text = format!("fio: unlink of {} failed: {e}", path.display());
            return Err((errno(&e), "unlink_all_files".to_string(), text));
        }
    }
    // fio opens a writing job's files with O_CREAT when it may create them.
    let mode = OpenMode {
        create: mode.create || (cfg.pattern.write && cfg.allow_file_create),
        ..mode
    };
    for (file, path) in files.iter_mut().zip(&cfg.paths).take(first) {
        match eng.open(path, mode) {
            Ok(f) => *file = f,
            Err(e) => {
                // fio says no more than its error line does.
                let func = format!("open({})", path.display());
                return Err((errno(&e), func, String::new()));
            }
        }
    }
    Ok(())
}

/// When no I/O could be placed: whether that is because no zone could
/// take it (zbd), which fails the job, recorded in `result`.
fn zbd_failed(placer: &mut Placer, result: &mut JobResult) -> bool {
    let Some(e) = placer.zbd.error.take() else {
        return false;
    };
    result.fail(e.errno, &e.func, e.message);
    true
}

/// The file, offset and length of the next I/O: fio's set_io_u_file,
/// which retires each file that has no offset left and tries the next;
/// `None` once every file is done. With `redraw` (a read/write mix's I/Os
/// issued so far per direction), each file after the first gets a
/// direction drawn afresh, as fio's fill_io_u draws one each time.
// The job loop's state it reads and moves on, each its own part.
#[allow(clippy::too_many_arguments)]
fn next_io(
    cfg: &JobConfig,
    chooser: &mut FileChooser,
    lazy: &mut Option<LazyOpen>,
    placer: &mut Placer,
    (dir, mix): (&mut Dir, Option<[u64; 2]>),
    draws: &mut Draws,
    iolog: &mut Option<IoLogWriter>,
) -> Option<(usize, u64, u64)> {
    // A skewed choice starts a finished file over; give up if even that
    // yields nothing (zones past the file's end).
    for attempt in 0..=2 * placer.files.len() {
        let file = chooser.pick()?;
        if let (true, Some(issued)) = (attempt > 0, mix) {
            *dir = [Dir::Read, Dir::Write][draws.mix.next(issued)];
        }
        *dir = placer.direction(cfg, file, *dir);
        if let Some((offset, len)) = placer.next(cfg, file, *dir, draws) {
            return Some((file, offset, len));
        }
        // A file closes at once unless I/O on it is in flight (openfiles).
        chooser.finished(file, lazy.as_ref().is_some_and(|l| l.in_flight(file)));
        if let Some(l) = lazy {
            while let Some(f) = chooser.take_retired() {
                l.retire(f);
            }
        }
        // fio closes a file it has no offset left for.
        if let Some(w) = iolog {
            w.close(file);
        }
        if cfg.file_service.skewed() {
            placer.files[file].reset(cfg);
        }
    }
    None
}

/// The length fio sees for a job file (its real_file_size): the file's
/// or device's size, but at least the region's end (fio counts a file it
/// laid out for a writing job at its full size, data or not).
fn file_length(cfg: &JobConfig, path: &std::path::Path, region: u64) -> u64 {
    use std::io::{Seek, SeekFrom};
    let region_end = cfg.offset.saturating_add(region);
    // A file created on open counts as its region's size, as in fio.
    if engine::diskless(&cfg.engine) || cfg.create_on_open {
        return region_end;
    }
    std::fs::File::open(path)
        .and_then(|mut f| f.seek(SeekFrom::End(0)))
        .map_or(region_end, |len| len.max(region_end))
}

/// A file engine's operation as the job's completion-latency sample, in
/// the direction fio files it under: read for a job that reads, else
/// write; a clat log gets it as an entry of no size at offset 0.
fn file_op_sample(
    cfg: &JobConfig,
    result: &mut JobResult,
    logs: &mut Option<JobLogs>,
    took: u64,
    time_ms: u64,
) {
    let dir = if !cfg.pattern.read && cfg.pattern.write {
        Dir::Write
    } else {
        Dir::Read
    };
    let stats = result.dir_mut(dir);
    stats.clat.add(took);
    stats.clat_fine.add(took);
    if cfg.measure.clat_hist {
        stats.clat_hist.add(took);
    }
    if let Some(logs) = logs {
        let op = Completed {
            time_ms,
            dir: dir as usize,
            bytes: 0,
            offset: 0,
            slat_ns: None,
            clat_ns: Some(took),
            lat_ns: None,
            ioprio: cfg.default_ioprio,
        };
        logs.completed(&op, &stats.clat_hist);
    }
}

/// Why a job waits for its I/O in flight to complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quiesce {
    /// Flow control held it back: it sleeps flow_sleep after.
    Flow,
    /// Think time is due (after an I/O of this direction): the job pauses
    /// once nothing is in flight, as fio's thinktime does.
    Think(usize),
    /// latency_target lowered the depth.
    Depth,
    /// latency_target settled on a depth: the statistics start over.
    FinalWindow,
}

/// What finishing an I/O updates, from the job loop's state: the same
/// steps whether a synchronous engine returned the I/O or an asynchronous
/// one reaped it.
struct Finishing<'a, 'v> {
    result: &'a mut JobResult,
    records: &'a mut Records,
    lat_target: &'a mut Option<LatencyTarget>,
    quiesce: &'a mut Option<Quiesce>,
    verifying: &'a mut Option<Verifying<'v>>,
}

impl Finishing<'_, '_> {
    /// Accounts the I/O, then lets the latency limits and verify judge
    /// it; false when the job ends. The judges that a job does not use
    /// are skipped here, so that the common job pays no call for them.
    #[inline(always)]
    fn finish(
        &mut self,
        cfg: &JobConfig,
        slot: &mut Slot,
        r: i64,
        at: Nanos,
        epoch: Nanos,
        func: &str,
    ) -> bool {
        if !complete(cfg, self.result, self.records, slot, r, at, epoch) {
            return false;
        }
        let judges_latency = self.lat_target.is_some() || cfg.max_latency_ns != [0; 3];
        if judges_latency
            && !judge_latency(cfg, self.result, self.lat_target, self.quiesce, slot, r, at)
        {
            return false;
        }
        self.verifying.is_none() || after_io(cfg, self.result, self.verifying, slot, r, func)
    }
}

/// max_latency's and latency_target's look at a completed I/O's total
/// latency; false when it ends the job (ETIMEDOUT, as in fio).
fn judge_latency(
    cfg: &JobConfig,
    result: &mut JobResult,
    lat_target: &mut Option<LatencyTarget>,
    quiesce: &mut Option<Quiesce>,
    slot: &Slot,
    r: i64,
    now: Nanos,
) -> bool {
    if r < 0 || !cfg.measure.lat || slot.dir == Dir::Trim {
        return true;
    }
    let lat = now.saturating_sub(slot.prepared);
    let max = cfg.max_latency_ns[slot.dir as usize];
    let mut over = (max > 0 && lat > max).then_some(max);
    if let Some(lt) = lat_target {
        let ios = result.dirs.iter().map(|d| d.ios).sum();
        match lt.completed(lat, now, ios) {
            latency_target::Step::Drain => *quiesce = Some(Quiesce::Depth),
            latency_target::Step::Fatal => over = over.or(cfg.latency_target.map(|g| g.target_ns)),
            _ => {}
        }
    }
    let Some(max) = over else {
        return true;
    };
    let text = format!(
        "fio: latency of {lat} nsec exceeds specified max ({max} nsec): {} {} {} {}",
        cfg.paths[slot.file].display(),
        if slot.dir == Dir::Read {
            "read"
        } else {
            "write"
        },
        slot.offset,
        slot.len
    );
    result.fail(libc::ETIMEDOUT, "max latency exceeded", text);
    false
}

/// Whether the job's generators are 64-bit: asked for, or needed to
/// reach every block of the job's size.
pub fn draws_wide(cfg: &JobConfig) -> bool {
    let smallest = rw_min_bs(cfg);
    cfg.wide_draws || cfg.size / smallest > u64::from(u32::MAX)
}

/// A verifying job's part in finishing an I/O: a written block may now be
/// read back, and a block read back is checked. False when a verify
/// failure ends the job.
fn after_io(
    cfg: &JobConfig,
    result: &mut JobResult,
    verifying: &mut Option<Verifying<'_>>,
    slot: &mut Slot,
    r: i64,
    func: &str,
) -> bool {
    let Some(v) = verifying.as_mut() else {
        return true;
    };
    let block = match (slot.piece, slot.dir) {
        (Some(piece), Dir::Write) => {
            v.write_done(piece);
            return true;
        }
        // verify_only: fio's dry run reads nothing, and checks nothing,
        // before its pass (a verify_backlog read only leaves the log).
        (Some(_), _) if v.spec.only && cfg.pattern.write => return true,
        (Some(piece), _) => v.piece(piece),
        // A job that only reads checks every block it reads.
        (None, Dir::Read) if !cfg.pattern.write => crate::verify::Written {
            file: slot.file as u32,
            offset: slot.offset,
            len: slot.len as u32,
            numberio: 0,
        },
        (None, _) => return true,
    };
    let logged = slot.piece.is_some();
    let func = if v.offloaded() { "async_verify" } else { func };
    match v.check(slot.buf(), &block, logged, None) {
        Ok(()) => true,
        Err(text) => verify_failed(cfg, result, text, func, r),
    }
}

/// verify_async: waits for the helpers to finish what they were handed,
/// and treats each failure they found as the job's; false when one ends
/// the job.
fn settle(cfg: &JobConfig, result: &mut JobResult, v: &mut Verifying<'_>) -> bool {
    while let Some(text) = v.settle() {
        if !verify_failed(cfg, result, text, "async_verify", 0) {
            return false;
        }
    }
    true
}

/// Records a failed check: fio's EILSEQ, which ends the job unless
/// continue_on_error covers verify errors.
fn verify_failed(
    cfg: &JobConfig,
    result: &mut JobResult,
    text: String,
    func: &str,
    r: i64,
) -> bool {
    if r < 0 {
        return true;
    }
    if cfg.continue_on_error & 4 != 0 {
        eprintln!("{text}");
        result.total_err += 1;
        if result.first_error == 0 {
            result.first_error = libc::EILSEQ;
        }
        return true;
    }
    result.fail(libc::EILSEQ, func, text);
    false
}

/// What the read-back pass works with.
struct Pass<'p, 'e> {
    cfg: &'p JobConfig,
    eng: &'p mut (dyn Engine + 'e),
    files: &'p [usize],
    slots: &'p mut [Slot],
    result: &'p mut JobResult,
    records: &'p mut Records,
    epoch: Nanos,
    /// When the job's runtime is over, if it has one.
    deadline: Option<Nanos>,
    counts_each_io: bool,
    counts_submits: bool,
    iolog: &'p mut Option<IoLogWriter>,
}

impl Pass<'_, '_> {
    /// Drops the files' cached pages, then reads every block of `rest` back, `iodepth` at a
    /// time, checking each as it completes. The reads count in the read
    /// direction, as fio's do.
    fn check_all(
        &mut self,
        v: &mut Verifying<'_>,
        rest: &[crate::verify::Written],
        stop: Stops<'_>,
    ) {
        let cfg = self.cfg;
        // fio closes the files between the writes and the verify pass, and
        // opens each again for its first read.
        if let Some(w) = self.iolog.as_mut() {
            for file in 0..cfg.paths.len() {
                w.close(file);
            }
        }
        // fio's do_verify syncs only the files still open, and they never
        // are (clear_io_state closed them): the reopen only drops the
        // cached pages (invalidate), which leaves the dirty ones.
        for path in &cfg.paths {
            if cfg.invalidate
                && cfg.engine != "null"
                && let Err(e) = self.eng.invalidate(path)
            {
                let text = format!("fio: preparing {} for verify: {e}", path.display());
                self.result.fail(errno(&e), "invalidate_cache", text);
                return;
            }
        }
        let func = if self.eng.commits() {
            "io_u_queued_complete"
        } else {
            "io_u_sync_complete"
        };
        let mut free: Vec<usize> = (0..self.slots.len()).rev().collect();
        let mut unsubmitted: Vec<usize> = Vec::with_capacity(self.slots.len());
        let mut done: Vec<Completion> = Vec::with_capacity(self.slots.len());
        let (mut next, mut in_flight) = (0usize, 0usize);
        // Where the pass ends: the last block, or where a loaded verify
        // state says the writes stopped.
        let mut end = rest.len();
        v.trail.replayed = 0;
        let mut clock = clock::now();
        // Verifying reads are timed one by one.
        let mut precise = LoopClock::new(false);
        'pass: loop {
            let out_of_time = self.deadline.is_some_and(|d| clock >= d);
            while next < end && !stop.any() && !out_of_time {
                if v.past_saved_writes(rest[next].file as usize, rest[next].offset) {
                    // A loaded verify state ends the pass here (fio has
                    // drawn a replayed I/O's offset by then).
                    if v.spec.replay {
                        v.trail.replayed += 1;
                    }
                    end = next;
                    break;
                }
                let Some(index) = free.pop() else { break };
                let block = rest[next];
                let slot = &mut self.slots[index];
                slot.file = block.file as usize;
                slot.dir = Dir::Read;
                slot.offset = block.offset;
                slot.len = block.len as usize;
                slot.skip = 0;
                slot.piece = Some(next);
                slot.prepared = clock;
                slot.submitted = Some(clock);
                slot.intended = None;
                next += 1;
                if clock >= self.epoch {
                    self.result.issue(Dir::Read);
                }
                // fio draws a replayed read as the write it repeats, and
                // counts it among the writes issued.
                if v.spec.replay {
                    v.trail.issued += 1;
                    v.trail.replayed += 1;
                }
                if let Some(w) = self.iolog.as_mut() {
                    w.io(slot.file, Dir::Read, slot.offset, slot.len as u64);
                }
                slot.ioprio = self.cfg.default_ioprio;
                slot.prio_index = 0;
                match self.eng.queue(Request {
                    slot: index,
                    file: self.files[slot.file],
                    offset: slot.offset,
                    dir: Dir::Read,
                    buf: slot.buf(),
                    ioprio: None,
                }) {
                    Queued::Pending => {
                        slot.queued = true;
                        unsubmitted.push(index);
                    }
                    Queued::Done(r) => {
                        clock = clock::now();
                        if clock >= self.epoch {
                            self.result.done_in_queue(self.counts_each_io);
                        }
                        free.push(index);
                        if !self.finished(v, rest, index, r, clock, func) {
                            break 'pass;
                        }
                    }
                }
                if unsubmitted.len() >= cfg.batch_submit {
                    break;
                }
            }
            if !unsubmitted.is_empty() {
                let batch = unsubmitted.len();
                if let Err(e) = submit(
                    self.eng,
                    self.slots,
                    &mut unsubmitted,
                    &mut in_flight,
                    &mut clock,
                    &mut precise,
                ) {
                    let text = format!("fio: io commit failed: {e}");
                    self.result.fail(errno(&e), "io commit", text);
                    break;
                }
                if clock >= self.epoch {
                    self.result.depth_sample(in_flight, batch);
                    if self.counts_submits {
                        self.result.submitted(batch);
                    }
                }
            }
            let more = next < end && !stop.any() && !out_of_time;
            if in_flight == 0 {
                if !more {
                    break;
                }
                continue;
            }
            if !free.is_empty() && more {
                continue;
            }
            done.clear();
            if let Err(e) = self.eng.reap(1, in_flight, &mut done) {
                let text = format!("fio: reaping I/O failed: {e}");
                self.result.fail(errno(&e), "get_events", text);
                break;
            }
            clock = clock::now();
            if clock >= self.epoch {
                self.result.reaped(done.len());
            }
            in_flight -= done.len();
            // A failure ends the pass after the batch it came in: fio
            // accounts and checks every completion it reaped.
            let mut failed = false;
            for c in std::mem::take(&mut done) {
                free.push(c.slot);
                failed |= !self.finished(v, rest, c.slot, c.result, clock, func);
            }
            if failed {
                break 'pass;
            }
        }
        // An error or a stop ended the pass: wait for what is in flight.
        while in_flight > 0 {
            done.clear();
            if self.eng.reap(in_flight, in_flight, &mut done).is_err() {
                break;
            }
            in_flight -= done.len().min(in_flight);
        }
        settle(cfg, self.result, v);
    }

    /// Accounts and checks one finished read-back; false when the job ends.
    fn finished(
        &mut self,
        v: &mut Verifying<'_>,
        rest: &[crate::verify::Written],
        index: usize,
        r: i64,
        at: Nanos,
        func: &str,
    ) -> bool {
        let slot = &mut self.slots[index];
        // A read-back that finds nothing is fio's "full resid".
        if r == 0 && slot.len > 0 {
            self.result.fail(libc::EIO, "full resid", String::new());
            return false;
        }
        if !complete(self.cfg, self.result, self.records, slot, r, at, self.epoch) {
            return false;
        }
        let Some(piece) = slot.piece else { return true };
        let func = if v.offloaded() { "async_verify" } else { func };
        // A replayed read (experimental_verify) is not from fio's log.
        let logged = !v.spec.replay;
        let failed_before = self.result.failed();
        match v.check(slot.buf(), &rest[piece], logged, v.expected_seed(piece)) {
            Ok(()) => true,
            // The rest of the batch that ended the job: fio checks each
            // read of it and reports every failure.
            Err(text) if failed_before => {
                self.result.later_errors.push(text);
                false
            }
            Err(text) => verify_failed(self.cfg, self.result, text, func, r),
        }
    }
}

/// Which periodic sync is due before the next I/O, if any: `Some(true)`
/// for fdatasync, `Some(false)` for fsync.
/// The job's draws from fio's generators. A file with more blocks than a
/// 32-bit draw can reach makes fio switch to its 64-bit generator.
pub fn job_draws(cfg: &JobConfig) -> Draws {
    Draws::new(
        &cfg.seeds,
        draws_wide(cfg),
        cfg.read_percent,
        cfg.verify.is_some(),
        cfg.pattern.trimwrite,
    )
}

/// Accounts a periodic sync that an engine completed from its queue (in
/// the statistics only after `epoch`); on an error, fails the job as fio
/// does and returns false.
fn sync_done(
    result: &mut JobResult,
    slot: &mut Slot,
    kind: SyncKind,
    r: i64,
    at: Nanos,
    epoch: Nanos,
) -> bool {
    let submitted = slot.submitted.take().unwrap_or(at);
    if r < 0 {
        let code = (-r) as i32;
        let text = std::io::Error::from_raw_os_error(code);
        result.fail(code, kind.call(), format!("fio: sync failed: {text}"));
        return false;
    }
    if at >= epoch {
        count_sync(result, kind, at.saturating_sub(submitted));
    }
    true
}

/// Accounts one periodic sync that took `took` nanoseconds: every kind is
/// timed, but only fsyncs count as syncs; fio counts its fdatasync and
/// sync_file_range calls one slot past its fsync count, where the short
/// read and short write counts lie.
fn count_sync(result: &mut JobResult, kind: SyncKind, took: Nanos) {
    result.sync_lat.add(took);
    result.sync_hist.add(took);
    result.syncs += u64::from(kind == SyncKind::Full);
    match kind {
        SyncKind::Data => result.dir_mut(Dir::Read).short += 1,
        SyncKind::Range => result.dir_mut(Dir::Write).short += 1,
        SyncKind::Full => {}
    }
}

fn sync_due(cfg: &JobConfig, writes: u64, last_was_sync: bool) -> Option<SyncKind> {
    if writes == 0 || last_was_sync {
        return None;
    }
    if cfg.fsync_blocks > 0 && writes.is_multiple_of(cfg.fsync_blocks) {
        return Some(SyncKind::Full);
    }
    if cfg.fdatasync_blocks > 0 && writes.is_multiple_of(cfg.fdatasync_blocks) {
        return Some(SyncKind::Data);
    }
    if let Some(range) = cfg.sync_range
        && range.every > 0
        && writes.is_multiple_of(range.every)
    {
        return Some(SyncKind::Range);
    }
    None
}

/// The periodic syncs, in the order fio checks which is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SyncKind {
    /// fsync
    Full,
    /// fdatasync
    Data,
    /// sync_file_range
    Range,
}

impl SyncKind {
    fn of(data_only: bool) -> SyncKind {
        if data_only {
            SyncKind::Data
        } else {
            SyncKind::Full
        }
    }

    /// The call's name, for its failure.
    fn call(self) -> &'static str {
        match self {
            SyncKind::Full | SyncKind::Data => "fsync",
            SyncKind::Range => "sync_file_range",
        }
    }
}

/// Sleeps until `until`, waking for stops; false when the run was stopped
/// or the deadline came first.
fn wait_until(until: Nanos, deadline: Option<Nanos>, stop: Stops<'_>) -> bool {
    loop {
        let now = clock::now();
        if now >= until {
            return true;
        }
        if stop.any() || deadline.is_some_and(|d| now >= d) {
            return false;
        }
        let limit = deadline.map_or(until, |d| d.min(until));
        std::thread::sleep(std::time::Duration::from_nanos(
            (limit - now).min(50_000_000),
        ));
    }
}

/// pre_read: reads each file's region once, in blocks of the largest
/// read size, so that the job's reads find it in the page cache.
fn pre_read(cfg: &JobConfig) -> io::Result<()> {
    use std::os::unix::fs::{FileExt, FileTypeExt};
    let bs = cfg.bs[Dir::Read as usize].max().max(1);
    for (path, &region) in cfg.paths.iter().zip(&cfg.regions) {
        let file = std::fs::File::open(path)?;
        if file.metadata()?.file_type().is_char_device() {
            continue;
        }
        let mut buf = vec![0u8; bs.min(region).max(1) as usize];
        let mut at = cfg.offset;
        let end = cfg.offset.saturating_add(region);
        while at < end {
            let n = ((end - at) as usize).min(buf.len());
            if file.read_at(&mut buf[..n], at)? != n {
                return Err(io::Error::from_raw_os_error(libc::EIO));
            }
            at += n as u64;
        }
    }
    Ok(())
}

/// fio's think time: busy-spin for `thinktime_spin`, sleep the rest;
/// returns how long it took, in µs.
fn think(spin: std::time::Duration, sleep: std::time::Duration) -> u64 {
    let began = Instant::now();
    let spin_until = began + spin;
    while Instant::now() < spin_until {
        std::hint::spin_loop();
    }
    std::thread::sleep(sleep);
    began.elapsed().as_micros() as u64
}

/// Submits the queued I/Os: one system call, then one clock read that
/// marks them all as handed to the device (so their submission latency
/// includes the call, as fio measures it).
fn submit(
    eng: &mut dyn Engine,
    slots: &mut [Slot],
    unsubmitted: &mut Vec<usize>,
    in_flight: &mut usize,
    clock: &mut Nanos,
    ticker: &mut LoopClock,
) -> io::Result<()> {
    let result = eng.commit();
    *clock = ticker.read();
    for &i in unsubmitted.iter() {
        slots[i].submitted = Some(*clock);
    }
    *in_flight += unsubmitted.len();
    unsubmitted.clear();
    result
}

fn errno(e: &io::Error) -> i32 {
    // A Ceph call's error carries the errno the library returned.
    let ceph = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<crate::ceph::CephError>());
    // An engine refusing its options is fio's EINVAL; a wait that ferrio
    // bounded itself (ferrio_ceph_grace) is a timeout.
    let kind = match e.kind() {
        io::ErrorKind::InvalidInput => Some(libc::EINVAL),
        io::ErrorKind::TimedOut => Some(libc::ETIMEDOUT),
        _ => None,
    };
    e.raw_os_error()
        .or(ceph.map(crate::ceph::CephError::errno))
        .or(kind)
        .unwrap_or(5)
}

/// fio's line about a failed I/O.
fn io_error_text(cfg: &JobConfig, slot: &Slot, code: i32) -> String {
    let what = match slot.dir {
        Dir::Read => "read",
        Dir::Write => "write",
        Dir::Trim => "trim",
    };
    format!(
        "fio: io_u error on file {}: {}: {what} offset={}, buflen={}",
        cfg.paths[slot.file].display(),
        strerror(code),
        slot.offset,
        slot.len
    )
}

/// Keeps the error line of an I/O that failed after the job had ended
/// (or was ending) on an error: fio logs every failed completion, as
/// long as its error is one that ends a job and the engine reports I/O
/// errors itself.
fn note_later_error(cfg: &JobConfig, result: &mut JobResult, slot: &Slot, r: i64) {
    if r >= 0 || engine::unlogged_error_func(&cfg.engine, slot.dir).is_some() {
        return;
    }
    let code = (-r) as i32;
    if cfg.error_dump || errors::verdict(cfg, slot.dir, code) != Verdict::CarriesOn {
        result.later_errors.push(io_error_text(cfg, slot, code));
    }
}

/// Accounts one finished I/O (in the statistics and logs only after
/// `epoch`, the end of ramp_time); on an error, marks the job failed as
/// fio does and returns false.
fn complete(
    cfg: &JobConfig,
    result: &mut JobResult,
    records: &mut Records,
    slot: &mut Slot,
    r: i64,
    at: Nanos,
    epoch: Nanos,
) -> bool {
    let submitted = slot.submitted.take().unwrap_or(at);
    if r < 0 {
        let code = (-r) as i32;
        // fill_device: a full device is the expected end. fio reports the
        // I/O's error, then ends the job without failing it.
        if cfg.fill_device && matches!(code, libc::ENOSPC | libc::EDQUOT) {
            eprintln!("{}", io_error_text(cfg, slot, code));
            return false;
        }
        let verdict = errors::verdict(cfg, slot.dir, code);
        if verdict == Verdict::CarriesOn {
            if cfg.error_dump {
                eprintln!("{}", io_error_text(cfg, slot, code));
            }
            let first = result.total_err == 0 && result.issued() == 1;
            result.warn_direct |= first && errors::warns_of_direct_io(cfg, code);
            result.carry_on(code, errors::carried_on_context(cfg));
            slot.queued = false;
            return true;
        }
        if verdict == Verdict::EndsCounted {
            result.count_error(code);
        }
        // Engines that only flag the I/O's error leave fio to report it
        // where it queued the I/O, with no line of its own.
        if let Some(func) = engine::unlogged_error_func(&cfg.engine, slot.dir) {
            result.fail(code, func, String::new());
            return false;
        }
        result.fail(code, "io_u error", io_error_text(cfg, slot, code));
        return false;
    }
    let queued = std::mem::take(&mut slot.queued);
    // fio notes what was written for sync_file_range even while ramping.
    if let (Some(w), Dir::Write) = (&mut records.written, slot.dir) {
        w.note(slot.file, slot.offset, r as u64);
    }
    if at < epoch {
        return true;
    }
    if !cfg.io_stats {
        // Counted, but no latency sample (fio's FIO_NOSTATS engines).
        let stats = result.dir_mut(slot.dir);
        stats.bytes += r as u64;
        stats.ios += 1;
        return true;
    }
    let ns = |from: Nanos, to: Nanos| to.saturating_sub(from);
    let m = cfg.measure;
    let clat = ns(submitted, at);
    if m.clat {
        result.latency.add(clat);
    }
    let stats = result.dir_mut(slot.dir);
    let bytes = r as u64;
    stats.bytes += bytes;
    stats.ios += 1;
    let slat = (queued && m.slat).then(|| ns(slot.prepared, submitted));
    if let Some(slat) = slat {
        stats.slat.add(slat);
        if m.slat_hist {
            stats.slat_hist.add(slat);
        }
    }
    if m.clat {
        stats.clat.add(clat);
        stats.clat_fine.add(clat);
        if m.clat_hist {
            stats.clat_hist.add(clat);
        }
        if !m.lat_hist {
            stats.add_prio_sample(slot.prio_index, clat, m.clat_hist);
        }
    }
    let lat = m.lat.then(|| ns(slot.prepared, at));
    if let Some(lat) = lat {
        stats.lat.add(lat);
        if m.lat_hist {
            stats.lat_hist.add(lat);
            stats.lat_fine.add(lat);
            stats.add_prio_sample(slot.prio_index, lat, true);
        }
    }
    let intended = slot.intended.map(|t| ns(t, at));
    if let Some(late) = intended {
        stats.intended.add(late);
        stats.intended_fine.add(late);
    }
    if let Some(tally) = &mut records.live {
        let clat = m.clat.then_some(clat);
        tally.record(
            slot.dir as usize,
            bytes,
            Measured {
                clat,
                lat,
                intended,
            },
        );
    }
    if let Some(logs) = &mut records.logs {
        // fio samples bw and IOPS per I/O when their logs are not
        // averaged.
        if logs.bw_per_io() && m.bw {
            stats
                .bw
                .add((bytes * 1_000_000).checked_div(clat).unwrap_or(0));
        }
        if logs.iops_per_io() {
            stats.iops.add(1);
        }
        let io = Completed {
            time_ms: ms_between(epoch, at),
            dir: slot.dir as usize,
            bytes,
            offset: slot.offset,
            slat_ns: slat,
            clat_ns: m.clat.then_some(clat),
            lat_ns: lat,
            ioprio: slot.ioprio,
        };
        logs.completed(&io, &stats.clat_hist);
    }
    if let Some(slow) = lat.or(m.clat.then_some(clat)) {
        let d = slot.dir as usize;
        result.slowest.offer(slow, d, slot.file, slot.offset, bytes);
    }
    true
}

/// The machine's page size.
fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as u64,
        _ => 4096,
    }
}
