//! One job on its own thread: lay out the file, then keep `iodepth` I/Os
//! in flight until the size is done or the runtime is up, timing each I/O.
//!
//! The loop allocates nothing: buffers and slots are made once. It reads
//! the clock once per submitted batch and once per reaped batch.
//!
//! The loop is a `JobLoop`: its state is the type's fields, made once
//! by its setup (`setup`), and each turn of the loop goes through its
//! phases, one method each (files by phase): the periodic duties and
//! pauses (`turn`), filling the queue (`fill`, `sync`, `pass_end`) and
//! handing each I/O over (`issue`), submitting (`submit`), reaping and
//! finishing each I/O (`reap`, `complete`), and after the loop the
//! read-back pass and the report's wrap-up (`verify_pass`, `finish`).
//! A phase that ends the turn early says whether the loop goes on
//! (`Next::Again`) or is over (`Next::End`).

mod buffers;
mod complete;
pub mod depth;
mod fill;
mod finish;
mod issue;
mod pace;
mod pass_end;
mod reap;
mod setup;
mod slots;
mod submit;
mod sync;
mod turn;
mod verify_pass;
mod vstate;

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::{Completion, Dir, Engine, OpenMode};
use crate::rand::fio_rand::{Draws, FioRng};
use crate::result::{DirStats, JobResult};
use crate::run::config::JobConfig;
use crate::run::pacing::clock::{LoopClock, Nanos};
use crate::run::pacing::flow::Seat;
use crate::run::pacing::latency_target::LatencyTarget;
use crate::run::pacing::rate::{FloorCheck, PoissonArrivals};
use crate::run::place::files::FileChooser;
use crate::run::place::offsets::Rng;
use crate::run::place::parts::PlaceParts;
use crate::run::place::placement::Placer;
use crate::run::records::iolog::IoLogWriter;
use crate::run::records::logs::JobLogs;
use crate::run::records::replay::Replayer;
use crate::run::scheduling::ExitWhat;
use crate::run::status::depth::DepthTracker;
use crate::run::status::live::Tally;
use crate::run::status::progress::{JobProgress, State};
use crate::run::status::sampler::RateSampler;
use crate::run::storage::content::Content;
use crate::run::storage::file_lock::FileLocks;
use crate::run::storage::iomem::Region;
use crate::run::storage::lazy_open::LazyOpen;
use crate::run::storage::sync_range::Written;
use crate::run::verification::trim_backlog::TrimBacklog;
use crate::run::verification::verifying::Verifying;
use crate::stats::CpuUsage;
use slots::Slot;

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
        crate::sys::signals::sleep_or_stop(std::time::Duration::from_millis(5), || stops.any());
    }
}

/// How often a job publishes its progress for the status line.
const PUBLISH_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Runs one job to its end, or until `stops` say so, publishing its
/// progress to `progress` as it goes.
pub fn run(cfg: &JobConfig, stops: Stops<'_>, progress: &JobProgress) -> JobResult {
    progress.set_state(State::SettingUp);
    let result = run_job(cfg, stops, progress);
    if cfg.scheduling.exitall || (cfg.scheduling.exitall_on_error && result.failed()) {
        stops.group.store(true, Ordering::Relaxed);
        if cfg.scheduling.exit_what == ExitWhat::All {
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
    let mut flow = cfg.pacing.flow.as_ref().map(|f| f.seat());
    let mut result = JobResult::new(cfg);
    // SAFETY: gettid has no preconditions.
    result.pid = unsafe { libc::gettid() };
    // A clone whose generated file names were all taken by its first
    // instance has nothing to do (as in fio).
    // create_only: the files are laid out, which was all to do.
    if cfg.files.paths.is_empty() || cfg.files.create_only {
        result.finish(std::time::Duration::ZERO);
        return result;
    }
    let _held = match cfg.scheduling.thread_setup.apply(&cfg.name) {
        Ok(held) => held,
        Err(e) => {
            // A failed exec_prerun ends the job quietly, as in fio.
            if e.errno != 0 {
                result.fail(e.errno, e.func, e.message);
            }
            return result;
        }
    };
    let result = run_io(cfg, stop, progress, result, flow.as_mut());
    cfg.scheduling.thread_setup.finish(&cfg.name);
    result
}
/// The job's I/O, once its thread is set up.
fn run_io(
    cfg: &JobConfig,
    stop: Stops<'_>,
    progress: &JobProgress,
    result: JobResult,
    flow: Option<&mut Seat<'_>>,
) -> JobResult {
    let capped = crate::run::storage::fill_read::capped(cfg);
    let cfg = capped.as_ref().unwrap_or(cfg);
    let offloaded;
    let cfg = if cfg.depth.offload {
        offloaded = crate::run::offload::one_at_a_time(cfg);
        &offloaded
    } else {
        cfg
    };
    let mut job = match JobLoop::new(cfg, stop, progress, result, flow) {
        Ok(job) => job,
        Err(result) => return *result,
    };
    job.run();
    job.finish()
}

/// One job's I/O loop: what fio's do_io keeps between one I/O and the
/// next, from the job's setup to its report.
struct JobLoop<'a, 'f> {
    cfg: &'a JobConfig,
    stop: Stops<'a>,
    progress: &'a JobProgress,
    /// The job's place in its flow, if it has one.
    flow: Option<&'a mut Seat<'f>>,
    result: JobResult,
    traits: Traits,

    eng: Box<dyn Engine>,
    /// How the job's files are opened, each time the job opens one.
    mode: OpenMode,
    iolog: Option<IoLogWriter>,
    /// Engine handles of the job's files (`UNOPENED` while closed).
    files: Vec<usize>,
    /// With openfiles below the file count, fio opens each file only when
    /// the job comes to it.
    lazy: Option<LazyOpen>,
    /// How many files the job opens at its start.
    at_start: usize,
    /// fio's real_file_size of each regular file: a short transfer that
    /// reaches it ends there instead of asking for the rest.
    real_sizes: Vec<u64>,
    chooser: FileChooser,
    /// One placement per file.
    placer: Placer,
    /// The parts of the configuration the placer reads.
    place: PlaceParts<'a>,
    file_locks: Option<FileLocks>,

    /// The largest I/O: each slot's buffer holds one.
    max_len: usize,
    rng: Rng,
    draws: Draws,
    prio_draws: FioRng,
    slots: Vec<Slot>,
    /// The slots' memory when it is not the heap's; it outlives them.
    _region: Option<Region>,
    content: Option<Content>,
    /// Slots free for the next I/O.
    free: Vec<usize>,
    /// The completions of the latest reap.
    done: Vec<Completion>,
    /// I/Os cut short, waiting to hand the engine the rest (fio's requeued
    /// io_us, which go before any new I/O).
    requeued: Vec<usize>,
    /// Queued but not yet submitted, and submitted but not yet reaped.
    unsubmitted: Vec<usize>,
    in_flight: usize,
    /// An I/O serialize_overlap held back until the one it overlaps is done.
    held: Option<(Option<Backlog>, Io)>,

    verifying: Option<Verifying<'a>>,
    /// trim_percentage's list of blocks to trim, and whether fio's job
    /// would have died on its first backlog trim (see trim_backlog.rs).
    trims: Option<TrimBacklog>,
    died: bool,
    /// fio's td->last_ddir: whether the last I/O completed was a read.
    last_was_read: bool,
    /// Whether a verify pass followed the last writes: fio reseeds its
    /// generators before each pass, which its verify state file shows.
    verify_reseeded: bool,
    /// Bytes read by verify_backlog and the verify passes.
    verify_moved: u64,
    /// Reads issued by verify_backlog and the verify passes between
    /// loops: fio's number_ios counts every I/O the job completes, these
    /// too.
    verify_ios: u64,
    /// experimental_verify: bytes of the replayed reads between loops,
    /// which fio counts among the writes issued (each is drawn as the
    /// write it repeats), against the job's bytes for all its loops.
    replayed_bytes: u64,
    /// The time spent in verify passes between loops.
    verify_spent: Nanos,

    /// Set when every file ran out of offsets before the pass's bytes were
    /// done, and when no further pass follows (the job is over).
    out_of_offsets: bool,
    finished: bool,
    passes: u64,
    /// Bytes of the pass queued to be completed later (fio's bytes_issued
    /// in do_io).
    loop_queued: u64,
    /// fio's bytes per loop (do_io's total_bytes).
    loop_bytes: u64,
    /// Bytes issued when the current pass over the files began, and the
    /// bytes the job may issue in all.
    pass_start: u64,
    budget: u64,
    /// Bytes issued when the current loop began (a loop may hold passes).
    loop_start: u64,
    /// trimwrite's write to come: (file, offset, length) of the last trim.
    pending_write: Option<(usize, u64, u64)>,
    /// I/Os and bytes issued per direction since the start, ramp included:
    /// what the size budget, periodic syncs and rate caps go by.
    work: [(u64, u64); 3],
    /// Set while in-flight I/O is reaped ahead of a periodic sync or a new
    /// pass over the files.
    draining: bool,
    /// fio's td->last_was_sync: set when a periodic sync completes and
    /// cleared when any other I/O completes (not when one is issued), so
    /// a write reaped after a sync, with the write count still at a
    /// multiple of fsync, makes another sync due: how fio's flush count
    /// on an async engine grows with the completions each reap brings.
    last_was_sync: bool,
    /// Why the I/O in flight is being drained, when it is not for a
    /// periodic sync or a new pass.
    quiesce: Option<Quiesce>,
    /// openfiles: the next file found no room while I/O was in flight;
    /// the job reaps before it picks again.
    files_busy: bool,

    start: Nanos,
    /// The time of the latest clock read.
    clock: Nanos,
    /// Statistics start after ramp_time; runtime counts from there too.
    ramp_end: Nanos,
    /// When the runtime is over (a latency_target's final window starts
    /// it over).
    deadline: Option<Nanos>,
    ticker: LoopClock,
    publish_every: Nanos,
    next_publish: Nanos,
    /// The earliest of the periodic duties, so that the loop makes one
    /// comparison for all of them.
    next_tick: Nanos,
    sampler: RateSampler,
    depth: DepthTracker,
    /// CPU use counts from the end of ramp_time, like every statistic.
    cpu_start: Option<CpuUsage>,
    records: Records,
    replayer: Option<Replayer<'a>>,
    /// Set once a replay's log has run out: fio reaps the I/O still in
    /// flight then without counting it (a replay's own quirk).
    replay_over: bool,
    /// Set when fio would have tried the next I/O on the busy engine.
    handed_to_busy: bool,

    floor_check: Option<FloorCheck>,
    /// The directions under a cap of their own.
    capped: [bool; 3],
    rate_credit: [u64; 3],
    poisson: Option<PoissonArrivals>,
    lat_target: Option<LatencyTarget>,
    think: Thinking,
}

/// What the loop asks once rather than per I/O, of the engine and the
/// job.
#[derive(Clone, Copy)]
struct Traits {
    /// Sampled periodically unless logged (and so sampled) per I/O.
    sample_bw: bool,
    sample_iops: bool,
    /// Engines without a commit step count one submit and one reap per I/O.
    counts_each_io: bool,
    /// A synchronous engine holds its one I/O whenever it runs.
    synchronous: bool,
    counts_submits: bool,
    submits_in_queue: bool,
    exit_on_io_done: bool,
    /// A job that reads and writes, not time-based, nor a replay: its
    /// passes end by the bytes queued (see `pass_done`).
    runs_on: bool,
    /// Only fio's null engine ever declines new I/O.
    may_be_busy: bool,
    no_data: bool,
    /// Whether the engine does file operations (the file engines) or
    /// thinks after its I/Os (those without data).
    file_ops: bool,
    engine_thinks: bool,
    rate_capped: bool,
    thinks: bool,
}

/// fio's thinktime, between the I/Os that weigh it.
struct Thinking {
    /// The direction of the I/O just handed out, while its pause is to be
    /// weighed, with the completions counted when it was the last one.
    after: Option<(usize, Option<u64>)>,
    /// The block count and the time of the last pause.
    last_blocks: u64,
    last_time: Nanos,
}

/// A verify_backlog read: the logged block's index, and the block.
type Backlog = (usize, crate::verify::Written);

/// The next I/O, as the queue is filled: its slot, direction, file, place
/// and length, and when a rate cap's schedule meant it to go.
#[derive(Clone, Copy)]
struct Io {
    index: usize,
    dir: Dir,
    file: usize,
    offset: u64,
    len: u64,
    intended: Option<Nanos>,
}

/// How a phase of the loop's turn leaves it early: for the next turn
/// (fio's loop goes on), or out of the loop (the job's I/O is over).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    Again,
    End,
}

/// A phase's outcome: `Ok` to go on to the turn's next phase.
type Phase<T = ()> = Result<T, Next>;

/// What one turn of the loop found before it fills the queue.
struct Turn {
    /// Whether the job may issue another I/O.
    issuing: bool,
    /// Room for another I/O: below the depth, and the engine willing.
    room: bool,
    /// latency_target holds the queue to the depth it is trying.
    depth_limit: usize,
    /// Set when a batch was submitted while the queue has room for more.
    keep_filling: bool,
    /// Set when a periodic sync went into the engine's queue in place
    /// of an I/O.
    sync_queued: bool,
}

impl JobLoop<'_, '_> {
    /// fio's loop: queue one I/O at a time, submit every `batch_submit`,
    /// and once the queue is full reap between `batch_complete_min` and
    /// `batch_complete_max` completions, until it has drained to
    /// `iodepth_low`.
    fn run(&mut self) {
        while self.turn() != Err(Next::End) {}
    }

    /// I/Os and bytes issued since the start.
    #[inline]
    fn issued(&self) -> (u64, u64) {
        issued(&self.work)
    }

    /// Whether the job may issue another I/O now.
    #[inline]
    fn may_issue(&self) -> bool {
        let cfg = self.cfg;
        let (ios, bytes) = self.issued();
        !self.stop.any()
            && !self.finished
            && self.deadline.is_none_or(|d| self.clock < d)
            && (cfg.timing.time_based || bytes + self.replayed_bytes < self.budget)
            && cfg
                .timing
                .number_ios
                .is_none_or(|n| ios + self.verify_ios < n)
            && !(self.traits.exit_on_io_done && self.stop.io_done.load(Ordering::Relaxed))
    }

    /// Opens every file that openfiles has closed, for a pass that may
    /// go to any of them; a failure is the job's open error.
    fn open_all(&mut self) -> Result<(), Next> {
        let cfg = self.cfg;
        if let Some(l) = &mut self.lazy
            && let Err((e, path)) = l.ensure_all(
                self.eng.as_mut(),
                &mut self.files,
                &cfg.files.paths,
                self.mode,
            )
        {
            return Err(self.open_failed(&e, path));
        }
        Ok(())
    }

    /// Records a failed open of a job file (fio says no more than its
    /// error line does); the job's I/O ends.
    #[cold]
    fn open_failed(&mut self, e: &io::Error, path: &std::path::Path) -> Next {
        let func = format!("open({})", path.display());
        self.result.fail(errno(e), &func, String::new());
        Next::End
    }
}

/// I/Os and bytes issued over the directions in `work`.
#[inline]
fn issued(work: &[(u64, u64); 3]) -> (u64, u64) {
    work.iter()
        .fold((0, 0), |(n, b), &(ios, bytes)| (n + ios, b + bytes))
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
