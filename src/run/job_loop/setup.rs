//! Setting the job up: its engine, files and buffers, then the loop's
//! state once the start delay is over.

use crate::engine::caps;
use std::io;

use super::buffers::Carver;
use super::pace::wait_until;
use super::slots::{Slot, fills_buffers};
use super::{JobLoop, PUBLISH_EVERY, Records, Stops, Thinking, Traits, errno};
use crate::engine::{self, Dir, Engine, FioFailure, OpenMode, WriteHintFailed};
use crate::rand::fio_rand::{Draws, FioRng, Purpose};
use crate::result::JobResult;
use crate::run::config::JobConfig;
use crate::run::pacing::clock::{self, LoopClock, Nanos, nanos};
use crate::run::pacing::flow::Seat;
use crate::run::pacing::latency_target::LatencyTarget;
use crate::run::pacing::rate::{FloorCheck, PoissonArrivals};
use crate::run::place::files::FileChooser;
use crate::run::place::offsets::Rng;
use crate::run::place::placement::{
    Placement, Placer, draws_wide, job_draws, rw_min_bs, used_dirs,
};
use crate::run::records::iolog::IoLogWriter;
use crate::run::records::logs::JobLogs;
use crate::run::records::replay::Replayer;
use crate::run::status::depth::DepthTracker;
use crate::run::status::live::Tally;
use crate::run::status::progress::{JobProgress, State};
use crate::run::status::sampler::RateSampler;
use crate::run::storage::content::Content;
use crate::run::storage::file_lock::FileLocks;
use crate::run::storage::iomem::Region;
use crate::run::storage::lazy_open::{LazyOpen, UNOPENED};
use crate::run::storage::sync_range::Written;
use crate::run::verification::trim_backlog::TrimBacklog;
use crate::run::verification::verifying::Verifying;
use crate::stats::CpuUsage;

/// The job's engine and files, as it opens them before its buffers.
struct Opened {
    eng: Box<dyn Engine>,
    mode: OpenMode,
    iolog: Option<IoLogWriter>,
    /// Each file's length, found before the job opens any.
    lens: Vec<u64>,
    files: Vec<usize>,
    lazy: Option<LazyOpen>,
    at_start: usize,
}

/// The job's buffers: one slot per I/O of the depth, with the memory
/// they are carved from.
struct Buffers {
    max_len: usize,
    rng: Rng,
    region: Option<Region>,
    slots: Vec<Slot>,
    content: Option<Content>,
    queues: Queues,
}

/// The loop's lists of slots, each with room for the whole depth so that
/// the loop never grows them.
struct Queues {
    free: Vec<usize>,
    done: Vec<crate::engine::Completion>,
    requeued: Vec<usize>,
    unsubmitted: Vec<usize>,
}

impl Queues {
    /// The lists for `depth` slots, all free; `None` when the memory is
    /// not to be had.
    fn new(depth: usize) -> Option<Queues> {
        use crate::run::storage::alloc::with_capacity;
        let mut free = with_capacity(depth)?;
        free.extend((0..depth).rev());
        Some(Queues {
            free,
            done: with_capacity(depth)?,
            requeued: with_capacity(depth)?,
            unsubmitted: with_capacity(depth)?,
        })
    }
}

/// What the job has made before its start delay, for the loop to hold.
struct Ready<'a> {
    opened: Opened,
    bufs: Buffers,
    draws: Draws,
    prio_draws: FioRng,
    verifying: Option<Verifying<'a>>,
    trims: Option<TrimBacklog>,
    placer: Placer,
    real_sizes: Vec<u64>,
    chooser: FileChooser,
    loop_bytes: u64,
}

impl<'a, 'f> JobLoop<'a, 'f> {
    /// Sets the job up and waits out its start delay; on a failure (or a
    /// stop during the delay), the job's result as it ends (boxed: it is
    /// large, and rarely returned).
    pub(super) fn new(
        cfg: &'a JobConfig,
        stop: Stops<'a>,
        progress: &'a JobProgress,
        mut result: JobResult,
        flow: Option<&'a mut Seat<'f>>,
    ) -> Result<Self, Box<JobResult>> {
        let Some(mut opened) = open(cfg, &mut result, progress) else {
            return Err(Box::new(result));
        };
        let Some(mut bufs) = buffers(cfg, &mut result) else {
            return Err(Box::new(result));
        };
        let place = cfg.place_parts();
        let draws = job_draws(&place);
        let prio_draws = cfg.placement.seeds.generator(Purpose::PrioCmds, false);
        let Some(mut regions) = crate::run::storage::alloc::with_capacity(bufs.slots.len()) else {
            eprintln!("fio: failed setting up IO queues");
            return Err(Box::new(result));
        };
        regions.extend(bufs.slots.iter_mut().map(Slot::region));
        let verifying = match Verifying::new(
            place,
            cfg.verification.verify.as_ref(),
            cfg.timing.pass_bytes,
            cfg.depth.iodepth,
            cfg.kind.has(crate::engine::caps::FAKE_IO),
        ) {
            Ok(v) => v,
            Err(message) => {
                eprintln!("{message}");
                return Err(Box::new(result));
            }
        };
        let trims = cfg
            .verification
            .trim
            .map(|spec| TrimBacklog::new(spec, &cfg.placement.seeds, draws_wide(&place)));
        // SAFETY: the regions are the slots' buffers, which stay put when
        // the slots move. Wherever the engine goes with them (`Opened`
        // before `Buffers` here and in `Ready`, `eng` before `slots` and
        // `_region` in the `JobLoop`) it is declared first, so dropped
        // first, and `close` never frees them if it is abandoned. A slot's
        // buffer is touched only while it is on the free list.
        if let Err(e) = unsafe { opened.eng.register_buffers(&regions) } {
            let text = format!("fio: registering the job's buffers failed: {e}");
            result.fail(errno(&e), "register buffers", text);
            return Err(Box::new(result));
        }
        // A random map that cannot be allocated ends the job as fio's
        // ends, with its message and no error code.
        let Some(placer) = Placer::new(&place, &opened.lens, &mut |line| progress.say(line)) else {
            return Err(Box::new(result));
        };
        let real_sizes = real_sizes(cfg);
        let chooser = FileChooser::new(&cfg.placement, cfg.files.open_files, opened.files.len());
        // Random offsets without a map never run out.
        let endless = cfg.workload.pattern.random && !placer.files.iter().all(Placement::has_map);
        let ready = Ready {
            opened,
            bufs,
            draws,
            prio_draws,
            verifying,
            trims,
            placer,
            real_sizes,
            chooser,
            loop_bytes: loop_bytes(cfg, endless),
        };
        if !wait_until(clock::now() + nanos(cfg.timing.startdelay), None, stop) {
            return Err(Box::new(result));
        }
        Ok(Self::start(cfg, stop, progress, flow, result, ready))
    }

    /// The loop's state as the job starts, its start delay over.
    fn start(
        cfg: &'a JobConfig,
        stop: Stops<'a>,
        progress: &'a JobProgress,
        flow: Option<&'a mut Seat<'f>>,
        result: JobResult,
        ready: Ready<'a>,
    ) -> Self {
        let opened = ready.opened;
        let bufs = ready.bufs;
        let start = clock::now();
        let engine_stamps = cfg.kind.stamps_completions(cfg.depth.iodepth);
        let replayer = cfg
            .workload
            .replay
            .as_deref()
            .map(|log| Replayer::new(log, start, engine_stamps));
        // Statistics start after ramp_time; runtime counts from there too.
        let ramp_end = start + nanos(cfg.timing.ramp);
        progress.set_state(if cfg.timing.ramp.is_zero() {
            State::Running
        } else {
            State::Ramp
        });
        progress.set_epoch(start);
        let publish_every = publish_every(cfg);
        let records = Records {
            logs: JobLogs::new(&cfg.logging.logs),
            live: progress.watched_live().then(|| Tally::starting(ramp_end)),
            written: cfg
                .sync
                .sync_range
                .map(|_| Written::new(cfg.files.paths.len())),
        };
        let m = cfg.reporting.measure;
        let ticker = LoopClock::new(!(m.slat || m.clat || m.lat) && records.logs.is_none());
        let traits = Traits::of(cfg, opened.eng.as_ref(), &records);
        JobLoop {
            cfg,
            place: cfg.place_parts(),
            stop,
            progress,
            flow,
            result,
            traits,
            eng: opened.eng,
            mode: opened.mode,
            iolog: opened.iolog,
            files: opened.files,
            lazy: opened.lazy,
            at_start: opened.at_start,
            real_sizes: ready.real_sizes,
            chooser: ready.chooser,
            placer: ready.placer,
            file_locks: cfg.files.lockfile.map(|(shared_reads, origin)| {
                FileLocks::new(shared_reads, origin, &cfg.files.paths)
            }),
            max_len: bufs.max_len,
            rng: bufs.rng,
            draws: ready.draws,
            prio_draws: ready.prio_draws,
            slots: bufs.slots,
            _region: bufs.region,
            content: bufs.content,
            free: bufs.queues.free,
            done: bufs.queues.done,
            requeued: bufs.queues.requeued,
            unsubmitted: bufs.queues.unsubmitted,
            in_flight: 0,
            held: None,
            verifying: ready.verifying,
            trims: ready.trims,
            died: false,
            last_was_read: false,
            verify_reseeded: false,
            verify_moved: 0,
            verify_ios: 0,
            replayed_bytes: 0,
            verify_spent: 0,
            out_of_offsets: false,
            finished: false,
            passes: 0,
            loop_queued: 0,
            loop_bytes: ready.loop_bytes,
            pass_start: 0,
            // A replay ends with its log, whatever its size.
            budget: if cfg.workload.replay.is_some() {
                u64::MAX
            } else {
                cfg.timing.io_bytes
            },
            loop_start: 0,
            pending_write: None,
            work: [(0, 0); 3],
            draining: false,
            last_was_sync: false,
            quiesce: None,
            files_busy: false,
            start,
            clock: start,
            ramp_end,
            // A latency_target's final window starts the runtime over.
            deadline: cfg
                .timing
                .runtime
                .map(|r| ramp_end.saturating_add(nanos(r))),
            ticker,
            publish_every,
            next_publish: start + publish_every,
            next_tick: start,
            sampler: RateSampler::new(ramp_end, cfg.reporting.bw_every, cfg.reporting.iops_every),
            depth: DepthTracker::new(ramp_end),
            // CPU use counts from the end of ramp_time, like every statistic.
            cpu_start: (cfg.timing.ramp.is_zero()).then(CpuUsage::of_this_thread),
            records,
            replayer,
            replay_over: false,
            handed_to_busy: false,
            floor_check: FloorCheck::new(cfg.pacing.rate_floors, start),
            capped: [0, 1, 2].map(|d| cfg.pacing.rate_bytes[d] > 0 || cfg.pacing.rate_iops[d] > 0),
            rate_credit: [0; 3],
            poisson: poisson(cfg),
            lat_target: latency_target(cfg, start),
            think: Thinking {
                after: None,
                last_blocks: 0,
                last_time: start,
            },
        }
    }
}

/// fio's real_file_size of each regular file: a short transfer that
/// reaches it ends there instead of asking for the rest.
fn real_sizes(cfg: &JobConfig) -> Vec<u64> {
    cfg.files
        .paths
        .iter()
        .map(|p| match std::fs::metadata(p) {
            Ok(m) if m.is_file() => m.len(),
            _ => u64::MAX,
        })
        .collect()
}

/// How often the job publishes its progress.
fn publish_every(cfg: &JobConfig) -> Nanos {
    // Steady state samples the published totals once a second: publish
    // often enough that a sample is off by well under a percent.
    if cfg.pacing.steady.is_some() {
        nanos(std::time::Duration::from_millis(2))
    } else {
        nanos(PUBLISH_EVERY)
    }
}

/// rate_process=poisson's arrivals.
fn poisson(cfg: &JobConfig) -> Option<PoissonArrivals> {
    cfg.pacing.rate_poisson.then(|| {
        let min_bs = [0, 1, 2].map(|d| cfg.workload.bs[d].min());
        PoissonArrivals::new(
            cfg.pacing.rate_bytes,
            cfg.pacing.rate_iops,
            min_bs,
            cfg.placement.seed,
        )
    })
}

/// latency_target's search for a depth, from `start`.
fn latency_target(cfg: &JobConfig, start: Nanos) -> Option<LatencyTarget> {
    cfg.pacing.latency_target.map(|g| {
        LatencyTarget::new(
            g.target_ns,
            g.window_ns,
            g.percentile,
            g.keep_running,
            cfg.depth.iodepth,
            start,
        )
    })
}

impl Traits {
    fn of(cfg: &JobConfig, eng: &dyn Engine, records: &Records) -> Traits {
        let no_data = cfg.kind.has(caps::NO_IO);
        Traits {
            sample_bw: cfg.reporting.measure.bw
                && !records.logs.as_ref().is_some_and(JobLogs::bw_per_io),
            sample_iops: !records.logs.as_ref().is_some_and(JobLogs::iops_per_io),
            counts_each_io: !eng.commits(),
            synchronous: !eng.commits() || cfg.depth.iodepth == 1,
            counts_submits: eng.counts_submits(),
            submits_in_queue: eng.submits_in_queue(),
            exit_on_io_done: matches!(&cfg.engine_options, engine::EngineOptions::Cpu(c) if c.exit_on_io_done),
            runs_on: cfg.workload.pattern.read
                && cfg.workload.pattern.write
                && !cfg.timing.time_based
                && cfg.workload.replay.is_none(),
            may_be_busy: cfg.kind.may_be_busy(cfg.depth.iodepth),
            no_data,
            // Asked once rather than per I/O: whether the engine does file
            // operations (the file engines) or thinks after its I/Os (those
            // without data).
            file_ops: !cfg.reporting.io_stats,
            engine_thinks: no_data,
            rate_capped: cfg.pacing.rate_capped(),
            thinks: !cfg.pacing.think_sleep.is_zero() || !cfg.pacing.think_spin.is_zero(),
        }
    }
}

/// fio's bytes per loop (do_io's total_bytes): the size, io_size if
/// more for random writes without a map, and the size again for the
/// reads of a verify backlog.
fn loop_bytes(cfg: &JobConfig, endless: bool) -> u64 {
    let base = if endless && cfg.timing.io_size_given {
        cfg.files.size.max(cfg.timing.pass_bytes)
    } else {
        cfg.files.size
    };
    let backlog = cfg
        .verification
        .verify
        .as_ref()
        .is_some_and(|v| v.backlog > 0);
    base + if backlog { cfg.files.size } else { 0 }
}

/// How the job opens its files.
///
/// fio opens a trimming job's files (trim, randtrim, trimwrite)
/// without the flags the job asks for: no O_DIRECT, O_ATOMIC or
/// O_SYNC/O_DSYNC, and O_CREAT only as a writing job (trimwrite).
/// An iolog's replay takes only reads and writes for the job's
/// directions in fio (a blktrace's takes its discards too).
fn open_mode(cfg: &JobConfig) -> OpenMode {
    let trimming = cfg.workload.pattern.trim
        && cfg
            .workload
            .replay
            .as_ref()
            .is_none_or(|log| log.depth.is_some());
    OpenMode {
        // Discards need a writable descriptor.
        write: cfg.workload.pattern.write || cfg.workload.pattern.trim,
        direct: cfg.files.direct && !trimming,
        invalidate: cfg.files.invalidate,
        advice: cfg.files.advice,
        // fio opens a writing job's files with O_CREAT (allow_file_create
        // permitting), so one removed since the layout (unlink in an
        // earlier group) is made again; a replay's too.
        create: (cfg.files.allow_file_create
            && (cfg.workload.pattern.write || (cfg.files.create_on_open && !trimming)))
            || (cfg.workload.replay.is_some() && cfg.workload.pattern.write),
        sync_flags: if trimming { 0 } else { cfg.files.sync_flags },
        atomic: cfg.files.atomic && !trimming,
        write_hint: cfg.files.write_hint,
    }
}

/// The job's engine, its write_iolog and its files, opened as fio does
/// before it makes the job's buffers; `None` on a failure, recorded in
/// `result`.
fn open(cfg: &JobConfig, result: &mut JobResult, progress: &JobProgress) -> Option<Opened> {
    let mode = open_mode(cfg);
    let mut eng = create_engine(cfg, result)?;
    if let Some(line) = eng.set_up_line() {
        progress.say(line.to_string());
    }
    // fio starts its write_iolog before it opens the job's files.
    let iolog = match &cfg.logging.write_iolog {
        Some(path) => match IoLogWriter::create(path, &cfg.files.paths) {
            Ok(w) => Some(w),
            Err(e) => {
                let text = format!("fio: fopen write iolog {}: {e}", path.display());
                result.fail(errno(&e), "failed initializing iolog", text);
                return None;
            }
        },
        None => None,
    };
    // Each file's length, found before the job opens any (as fio sizes
    // its files before it opens them).
    let lens: Vec<u64> = cfg
        .files
        .paths
        .iter()
        .zip(&cfg.files.regions)
        .map(|(p, &region)| file_length(cfg, p, region))
        .collect();
    // With openfiles below the file count, fio opens each file only when
    // the job comes to it.
    let lazy = LazyOpen::new(&cfg.files, cfg.workload.replay.is_some());
    let at_start = LazyOpen::at_start(&lazy, cfg.files.paths.len());
    let files = open_files(cfg, eng.as_mut(), mode, at_start, result)?;
    if cfg.files.pre_read
        && !cfg.kind.has(caps::FAKE_IO)
        && let Err(e) = pre_read(cfg)
    {
        result.fail(errno(&e), "pre_read", String::new());
        return None;
    }
    Some(Opened {
        eng,
        mode,
        iolog,
        lens,
        files,
        lazy,
        at_start,
    })
}

/// The job's engine, set up: `None` when it is not available, fails
/// its setup, or refuses the job's options.
fn create_engine(cfg: &JobConfig, result: &mut JobResult) -> Option<Box<dyn Engine>> {
    let eng = match cfg.kind.make(cfg.depth.iodepth, &cfg.engine_options) {
        Ok(e) => e,
        Err(e) if e.get_ref().is_some_and(|i| i.is::<FioFailure>()) => {
            let failed = e.get_ref().and_then(|i| i.downcast_ref::<FioFailure>());
            let (code, func) = failed.map_or((-libc::EIO, ""), |f| (f.code, f.func));
            let last = format!("fio: io engine {} init failed.", cfg.kind.name);
            let text = match e.to_string() {
                detail if detail.is_empty() => last,
                detail => format!("{detail}\n{last}"),
            };
            result.fail(code, func, text);
            return None;
        }
        Err(e) => {
            result.fail(
                errno(&e),
                "io engine init",
                format!("fio: failed to set up ioengine {}: {e}", cfg.kind.name),
            );
            return None;
        }
    };
    // fio's mmap engine maps whole pages: with direct or periodic syncs
    // (which act on the mapping) it refuses blocks smaller than a page
    // as its engine setup fails.
    if cfg.kind.has(caps::MAPS_FILES)
        && !rw_min_bs(&cfg.workload).is_multiple_of(page_size())
        && (cfg.files.direct || cfg.sync.fsync_blocks > 0 || cfg.sync.fdatasync_blocks > 0)
    {
        let text = format!(
            "fio: mmap options dictate a minimum block size of {} bytes\n\
             fio: io engine mmap init failed.",
            page_size()
        );
        result.fail(libc::EPERM, "", text);
        return None;
    }
    // fio switches the disks' scheduler once its engine is set up.
    if let Some(name) = &cfg.files.ioscheduler
        && let Err((code, func, text)) = crate::sys::iosched::switch(&cfg.files.paths, name)
    {
        result.fail(code, func, text);
        return None;
    }
    Some(eng)
}

/// Engine handles of the job's files: the first `at_start` opened, the
/// rest left closed (openfiles), all of them for a replay (which opens
/// each file when its log says).
fn open_files(
    cfg: &JobConfig,
    eng: &mut dyn Engine,
    mode: OpenMode,
    at_start: usize,
    result: &mut JobResult,
) -> Option<Vec<usize>> {
    let mut files = Vec::with_capacity(cfg.files.paths.len());
    // A replay opens each file when its log says.
    if cfg.workload.replay.is_some() {
        files.resize(cfg.files.paths.len(), UNOPENED);
        return Some(files);
    }
    for (i, path) in cfg.files.paths.iter().enumerate() {
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
                    return None;
                }
                // An engine that names the failure as fio's does (libpmem).
                if let Some(f) = e.get_ref().and_then(|i| i.downcast_ref::<FioFailure>()) {
                    result.fail(f.code, f.func, f.detail.clone());
                    return None;
                }
                // A wait in the open (a net listener's) cut by a stop is
                // no error: the job ends with nothing done, as fio's.
                let stopped = crate::sys::signals::stop_requested();
                if stopped && e.kind() == std::io::ErrorKind::Interrupted {
                    result.stopped_in_setup = true;
                    return None;
                }
                let func = format!("open({})", path.display());
                result.fail(errno(&e), &func, format!("fio: {func}: {e}"));
                return None;
            }
        }
    }
    Some(files)
}

/// The job's buffers: one region for all of them, made once, its pages
/// untouched until each slot's first I/O fills them (see
/// `Slot::first_use`). Memory that is not to be had fails the job as
/// fio's fails (err=12 for the heap's), never the process.
fn buffers(cfg: &JobConfig, result: &mut JobResult) -> Option<Buffers> {
    // A replay's buffers fit the largest I/O of its log.
    let max_len = match &cfg.workload.replay {
        Some(log) => log.max_len.max(1),
        None => used_dirs(&cfg.workload)
            .map(|d| cfg.workload.bs[d].max())
            .max()
            .unwrap_or(4096),
    } as usize;
    // What fio says when its lists of I/Os, its I/O units or their
    // buffers cannot be had (only the last with an error code).
    let Some(queues) = Queues::new(cfg.depth.iodepth) else {
        eprintln!("fio: failed setting up IO queues");
        return None;
    };
    let Some(mut slots) = crate::run::storage::alloc::with_capacity(cfg.depth.iodepth) else {
        eprintln!("fio: unable to allocate aligned memory");
        return None;
    };
    let no_memory = |result: &mut JobResult| {
        result.fail(libc::ENOMEM, "iomem allocation", String::new());
        None
    };
    let Some(total) = Carver::stride(max_len, cfg.content.iomem_align)
        .and_then(|s| s.checked_mul(cfg.depth.iodepth))
    else {
        return no_memory(result);
    };
    // Every slot's buffer; the slots only point into it, and it goes
    // with them into the loop.
    let region = match Region::new(&cfg.content.mem, total, cfg.content.hugepage_size) {
        Ok(r) => r,
        Err(e) => {
            result.fail(e.errno, &e.func, e.message);
            return None;
        }
    };
    let carver = Carver::new(&region, max_len, cfg.content.iomem_align);
    let fresh = fills_buffers(cfg);
    slots.extend((0..cfg.depth.iodepth).map(|i| carver.slot(i, fresh)));
    let mut content = cfg
        .content
        .buffer_shape
        .map(|shape| Content::new(shape, cfg.placement.seed, cfg.content.dedupe_peers.as_ref()));
    if let Some(content) = &mut content
        && cfg.workload.pattern.write
    {
        // fio fills every buffer of a writing job once before the first
        // I/O, from the same generator: those draws are not written
        // (each write is filled afresh), so they are only drawn.
        for _ in 0..cfg.depth.iodepth {
            content.skip(max_len);
        }
    }
    Some(Buffers {
        max_len,
        rng: Rng::new(cfg.placement.seed),
        region: Some(region),
        slots,
        content,
        queues,
    })
}

/// The length fio sees for a job file (its real_file_size): the file's
/// or device's size, but at least the region's end (fio counts a file it
/// laid out for a writing job at its full size, data or not).
fn file_length(cfg: &JobConfig, path: &std::path::Path, region: u64) -> u64 {
    use std::io::{Seek, SeekFrom};
    let region_end = cfg.files.offset.saturating_add(region);
    // An engine that fakes its I/O stretches its file to the region's
    // end, as fio does, but never shrinks it.
    if cfg.kind.has(caps::DISKLESS) && cfg.kind.has(caps::FAKE_IO) {
        return region_end.max(cfg.files.diskless_len);
    }
    // A file created on open counts as its region's size, as in fio.
    if cfg.kind.has(caps::DISKLESS) || cfg.files.create_on_open {
        return region_end;
    }
    std::fs::File::open(path)
        .and_then(|mut f| f.seek(SeekFrom::End(0)))
        .map_or(region_end, |len| len.max(region_end))
}

/// pre_read: reads each file's region once, in blocks of the largest
/// read size, so that the job's reads find it in the page cache.
fn pre_read(cfg: &JobConfig) -> io::Result<()> {
    use std::os::unix::fs::{FileExt, FileTypeExt};
    let bs = cfg.workload.bs[Dir::Read as usize].max().max(1);
    for (path, &region) in cfg.files.paths.iter().zip(&cfg.files.regions) {
        let file = std::fs::File::open(path)?;
        if file.metadata()?.file_type().is_char_device() {
            continue;
        }
        let len = bs.min(region).max(1) as usize;
        let mut buf = Vec::new();
        buf.try_reserve_exact(len)
            .map_err(|_| io::Error::from_raw_os_error(libc::ENOMEM))?;
        buf.resize(len, 0);
        let mut at = cfg.files.offset;
        let end = cfg.files.offset.saturating_add(region);
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

/// The machine's page size.
fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as u64,
        _ => 4096,
    }
}
