//! Running a plan: groups one after another, each job of a group on its
//! own OS thread, all started together.

pub mod config;
pub mod errors;
pub mod job_loop;
pub mod offload;
pub mod pacing;
pub mod place;
pub mod records;
pub mod refusal;
pub mod result;
pub mod scheduling;
pub mod status;
pub mod storage;
pub mod verification;
pub mod workload;

use std::sync::atomic::AtomicBool;

use crate::engine::EngineOptions;

use crate::result::{JobError, JobResult};
use crate::run::status::progress::JobProgress;
use config::JobConfig;
use refusal::Refusal;

use crate::plan::Plan;
use crate::stats::disk::{DiskUsage, DiskWatch};

/// Checks every job of the plan before any I/O: a plan runs whole or not
/// at all.
pub fn prepare(plan: &Plan, readonly: bool) -> Result<Vec<JobConfig>, Refusal> {
    // fio's clocksource is one for the run: the last job's that sets it.
    let source = plan
        .jobs()
        .filter_map(|j| match j.value("clocksource") {
            Some(crate::options::Value::Word { word, .. }) => Some(*word),
            _ => None,
        })
        .last();
    crate::run::pacing::clock::use_source(match source {
        Some("gettimeofday") => crate::run::pacing::clock::Source::TimeOfDay,
        Some("clock_gettime") => crate::run::pacing::clock::Source::ClockGettime,
        _ => crate::run::pacing::clock::Source::Cpu,
    });
    let mut jobs = plan
        .jobs()
        .map(|j| JobConfig::from_spec(j, readonly))
        .collect::<Result<Vec<_>, _>>()?;
    crate::run::pacing::steady::check_groups(
        &jobs.iter().map(JobConfig::steady_job).collect::<Vec<_>>(),
    )?;
    if readonly {
        crate::run::storage::readonly::check(jobs.iter().map(JobConfig::storage_parts))?;
    }
    let mut contents: Vec<(u64, &mut storage::content::ContentConfig)> = jobs
        .iter_mut()
        .map(|j| (j.placement.seed, &mut j.content))
        .collect();
    crate::run::storage::content::share_working_sets(&mut contents);
    // fio's exitall is global: one job asking for it makes every job's
    // end stop others.
    if jobs.iter().any(|j| j.scheduling.exitall) {
        for job in &mut jobs {
            job.scheduling.exitall = true;
        }
    }
    let flows: Vec<(u64, u64)> = plan
        .jobs()
        .map(|j| (j.num("flow_id").unwrap_or(0), j.num("flow").unwrap_or(0)))
        .collect();
    for (job, member) in jobs
        .iter_mut()
        .zip(crate::run::pacing::flow::join_flows(&flows))
    {
        job.pacing.flow = member;
    }
    crate::run::place::zbd::spec::share(
        jobs.iter_mut()
            .map(|j| (&j.files.paths[..], &mut j.placement.zbd)),
    );
    Ok(jobs)
}

/// fio's `group_reporting` and `stats`, as fio 3.33 lays out its report
/// slots: one slot per job without group_reporting, one per run of
/// consecutive group_reporting jobs of a group that has a stats=1 job.
/// The jobs with stats=1 then fill the slots in order, a group_reporting
/// job joining the slot of the stats=1 job before it when that one is of
/// the same group. A stats=0 job still takes its slot in the count but
/// fills none, so the count can exceed what is filled: fio reports each
/// slot left over, at the end, as an unnamed, zeroed job of group -1.
pub fn group_results(jobs: &[JobConfig], results: Vec<JobResult>) -> Vec<JobResult> {
    let mut slots = 0;
    let mut last_counted: Option<u32> = None;
    for cfg in jobs {
        if !cfg.reporting.group_reporting {
            slots += 1;
        } else if last_counted != Some(cfg.group) && cfg.reporting.stats {
            last_counted = Some(cfg.group);
            slots += 1;
        }
    }
    let mut out: Vec<JobResult> = Vec::with_capacity(slots);
    let mut last_group: Option<u32> = None;
    for (cfg, result) in jobs.iter().zip(results) {
        if !cfg.reporting.stats {
            continue;
        }
        match out.last_mut() {
            Some(merged) if cfg.reporting.group_reporting && last_group == Some(cfg.group) => {
                merged.absorb(&result)
            }
            _ => out.push(result),
        }
        last_group = Some(cfg.group);
    }
    if let Some(first) = jobs.first() {
        while out.len() < slots {
            out.push(JobResult::unreported(first));
        }
    }
    out
}

/// Whether a job lays out its files in its own thread (create_serialize
/// =0), rather than before its group starts.
fn laid_in_job(cfg: &JobConfig) -> bool {
    cfg.files.lay_out_in_job && cfg.setup_failure.is_none() && cfg.workload.replay.is_none()
}

/// A failed layout as the job's error.
fn layout_error(cfg: &JobConfig, e: &std::io::Error) -> JobError {
    JobError {
        // A refusal of ferrio's own (allow_file_create) has only its kind.
        errno: e.raw_os_error().unwrap_or(match e.kind() {
            std::io::ErrorKind::NotFound => libc::ENOENT,
            _ => libc::EIO,
        }),
        func: "file layout".to_string(),
        message: format!("fio: laying out the files of {} failed: {e}", cfg.name),
    }
}

/// Passes on what the jobs that laid out their own files said, and
/// watches their disks from then on, as for the others once laid out.
fn tell_layouts(
    laid: &std::sync::mpsc::Receiver<LaidNote>,
    members: &[JobConfig],
    disks: &mut DiskWatch,
    observer: &mut dyn Observer,
) {
    for (i, line, warnings) in laid.try_iter() {
        let cfg = &members[i];
        if watches_disks(cfg) {
            for path in &cfg.files.paths {
                disks.watch(path);
            }
        }
        for text in line.iter().chain(&warnings) {
            observer.notice(text);
        }
    }
}

/// Prints what the group's jobs said in their setup, as fio prints it
/// from their threads (on stdout, whatever the output format).
fn tell_lines(slots: &[JobProgress], observer: &mut dyn Observer) {
    for slot in slots {
        for line in slot.take_lines() {
            observer.engine_line(&line);
        }
    }
}

/// What the caller sees of a run while it goes on.
pub trait Observer {
    /// fio's progress lines (laying out files).
    fn notice(&mut self, line: &str);
    /// Called every ~20 ms while jobs run (the status line's and the
    /// interim reports' chance), with the disks watched so far.
    fn tick(&mut self, disks: &DiskWatch);
    /// A line an engine prints as its job starts (cpuio's), or zbd's
    /// note of a rounded region, whatever the output format.
    fn engine_line(&mut self, _line: &str) {}
    /// Called once, when the first group's files are laid out and its
    /// jobs are about to start (where `--start-at` waits).
    fn starting(&mut self) {}
}

/// What fio says of a depth above one on a synchronous engine.
const SYNC_DEPTH_NOTE: &str = "note: both iodepth >= 1 and synchronous I/O engine are selected, \
                               queue depth will be capped at 1";

/// How often the main thread looks at running jobs.
const TICK: std::time::Duration = std::time::Duration::from_millis(20);

/// What a job that lays out its own files sends the main thread: its
/// place in the group and what the layout had to say.
type LaidNote = (usize, Option<String>, Vec<String>);

/// Runs prepared jobs group by group, each job publishing its progress in
/// its slot of `progress`. `stop` ends every job early. Returns each
/// job's result and the use of the disks the jobs' files are on.
pub fn run(
    jobs: &[JobConfig],
    progress: &[JobProgress],
    stop: &AtomicBool,
    observer: &mut dyn Observer,
) -> (Vec<JobResult>, Vec<DiskUsage>) {
    // gtod_cpu: the run's clock comes from a thread on that CPU (the
    // last job that names one decides, as in fio).
    let _gtod = jobs
        .iter()
        .rev()
        .find_map(|j| j.scheduling.thread_setup.gtod_cpu)
        .map(crate::run::pacing::clock::GtodThread::start);
    let mut results = Vec::with_capacity(jobs.len());
    let mut disks = DiskWatch::default();
    let run_start = crate::run::pacing::clock::now();
    let mut start = 0;
    // Set when a job's end stopped every job (exit_what=all): the groups
    // still to come never start, and report nothing done.
    let rest_stop = AtomicBool::new(false);
    // fio sets up every job's files, in job order, before the first group
    // starts (create_serialize, on by default): a later group's file that
    // an earlier group removes or writes through another path (unlink,
    // filedelete, a GlusterFS volume's FUSE mount) is laid out all the
    // same, and one that does not exist yet is never looked at again.
    let stopped_before = crate::sys::signals::stop_requested();
    let laid_out_all = lay_out_group(jobs, progress, &mut disks, observer);
    // The later groups' jobs wait, set up, for their turn (fio shows them
    // pending, and a trigger saves their state as not started).
    let first = jobs.first().map(|j| j.group);
    for ((cfg, slot), laid) in jobs.iter().zip(progress).zip(&laid_out_all) {
        if laid.is_ok() && Some(cfg.group) != first {
            slot.set_state(crate::run::status::progress::State::Pending);
        }
    }
    let mut laid_out_all = laid_out_all.into_iter();
    // fio's genesis: the run's time zero, once the jobs' files are set up
    // (what an iolog's waits count from).
    crate::run::pacing::clock::genesis();
    observer.starting();
    // A stop during the layout: fio starts no job, and each reports
    // nothing done.
    let stopped_in_layout = !stopped_before && crate::sys::signals::stop_requested();
    while start < jobs.len() {
        let group = jobs[start].group;
        let end = jobs[start..]
            .iter()
            .position(|j| j.group != group)
            .map_or(jobs.len(), |n| start + n);
        let members = &jobs[start..end];
        let slots = &progress[start..end];
        let laid_out: Vec<_> = laid_out_all.by_ref().take(members.len()).collect();
        if rest_stop.load(std::sync::atomic::Ordering::Relaxed) {
            results.extend(members.iter().map(JobResult::new));
            for slot in slots {
                slot.set_state(crate::run::status::progress::State::Done);
            }
            start = end;
            continue;
        }
        if stopped_in_layout {
            results.extend(members.iter().map(JobResult::new));
            start = end;
            continue;
        }
        announce_group(members, &laid_out, observer);
        let group = Group {
            members,
            slots,
            stop,
            rest_stop: &rest_stop,
            // fio's test for cpuio's exit_on_io_done: no job that does
            // I/O is running or still to come (a later group's jobs are
            // to come, whatever their engine), and there was one.
            io_jobs_ahead: end < jobs.len(),
            had_io_jobs: jobs[..end].iter().any(moves_data),
            run_start,
        };
        results.extend(group.run(laid_out, &mut disks, observer));
        start = end;
    }
    // fio removes the control groups it made once every job is done.
    crate::sys::cgroup::remove_made();
    (results, disks.usage())
}

/// Whether a job's engine moves data (what cpuio's exit_on_io_done
/// waits on the end of).
fn moves_data(cfg: &JobConfig) -> bool {
    !cfg.kind.has(crate::engine::caps::NO_IO)
}

/// Whether fio watches the disks under a job's files: engines that do
/// I/O on files (a rados job's files are objects), unless disk_util=0
/// leaves the job's disks out.
fn watches_disks(cfg: &JobConfig) -> bool {
    cfg.reporting.disk_util && cfg.kind.on_disk()
}

/// The result of a job whose files could not be laid out: it never runs,
/// so it leaves its flow at once and its slot shows it failed.
fn layout_failed(cfg: &JobConfig, slot: &JobProgress, e: JobError) -> JobResult {
    drop(cfg.pacing.flow.as_ref().map(|f| f.seat()));
    let mut failed = JobResult::new(cfg);
    failed.fail(e.errno, &e.func, e.message);
    // fio sets the depth it reports as the job's thread starts, which a
    // job failed in its setup never does.
    failed.latency_depth = 0;
    slot.set_state(crate::run::status::progress::State::Failed);
    failed
}

/// Sets up the jobs' files before any starts (the jobs that lay out
/// their own are left to their threads), watching the disks under those
/// laid out. Each job's entry is the result it ends with when its setup
/// failed.
fn lay_out_group(
    members: &[JobConfig],
    slots: &[JobProgress],
    disks: &mut DiskWatch,
    observer: &mut dyn Observer,
) -> Vec<Result<(), Box<JobResult>>> {
    let mut laid_out = Vec::with_capacity(members.len());
    let stopped_before = crate::sys::signals::stop_requested();
    for (cfg, slot) in members.iter().zip(slots) {
        slot.set_state(crate::run::status::progress::State::SettingUp);
        let laid = lay_out_before(cfg, observer);
        // fio watches the disks once the files are in place (not after a
        // stop cut this layout short).
        let cut = !stopped_before && crate::sys::signals::stop_requested();
        if laid.is_ok() && !cut && !laid_in_job(cfg) && watches_disks(cfg) {
            for path in &cfg.files.paths {
                disks.watch(path);
            }
        }
        match laid {
            Ok((line, warnings)) => {
                for text in line.iter().chain(&warnings) {
                    observer.notice(text);
                }
                laid_out.push(Ok(()));
            }
            Err(e) => laid_out.push(Err(Box::new(layout_failed(cfg, slot, e)))),
        }
    }
    laid_out
}

/// One job's setup before its group starts: its progress line and
/// warnings, or why it cannot run.
fn lay_out_before(
    cfg: &JobConfig,
    observer: &mut dyn Observer,
) -> Result<(Option<String>, Vec<String>), JobError> {
    match &cfg.setup_failure {
        Some(e) => Err(e.clone()),
        // fio lays out no file for a replay: the log's I/O goes to the
        // files as they are. What fio said (on stderr) of the log's
        // entries it skipped is said here.
        None if let Some(log) = &cfg.workload.replay => {
            for warning in &log.warnings {
                eprintln!("{warning}");
            }
            Ok((None, Vec::new()))
        }
        // zonemode=zbd: fio makes the zones from the file's size before
        // it lays the file out (and says what it rounds whatever the
        // output format).
        None if let Err(e) = crate::run::place::zbd::set_up(&cfg.place_parts(), &mut |line| {
            observer.engine_line(line)
        }) =>
        {
            Err(e)
        }
        // create_serialize=0: the job's own thread lays them out.
        None if laid_in_job(cfg) => Ok((None, Vec::new())),
        None => crate::run::storage::layout::lay_out(&cfg.storage_parts())
            .map_err(|e| layout_error(cfg, &e)),
    }
}

/// What the engines of a group's ready jobs say as the group starts, and
/// the net listeners they bind.
fn announce_group(
    members: &[JobConfig],
    laid_out: &[Result<(), Box<JobResult>>],
    observer: &mut dyn Observer,
) {
    for (cfg, ready) in members.iter().zip(laid_out) {
        if ready.is_err() {
            continue;
        }
        match &cfg.engine_options {
            EngineOptions::Cpu(cpu) if cpu.load > 0 => {
                observer.engine_line(&crate::engine::cpuio::CpuIo::banner(&cfg.name, cpu));
            }
            EngineOptions::Exec(exec) if exec.program.is_some() => {
                observer.engine_line(&exec.banner());
            }
            _ => {}
        }
        // fio notes, per job and whatever the output format, that a
        // synchronous engine has one I/O in flight at most.
        if cfg.depth.iodepth > 1 && cfg.kind.synchronous(cfg.depth.iodepth) {
            observer.engine_line(SYNC_DEPTH_NOTE);
        }
    }
    // fio's listeners are bound in their setup, before any job of the
    // group opens its files (a sender connects as it opens its own).
    for (cfg, ready) in members.iter().zip(laid_out) {
        if let (Ok(_), EngineOptions::Net(net)) = (ready, &cfg.engine_options) {
            crate::engine::net::prebind(net);
        }
    }
}

/// One group of jobs about to run together, and what its run shares
/// with the rest of the run.
struct Group<'a> {
    members: &'a [JobConfig],
    slots: &'a [JobProgress],
    /// Ends every job early (a terminating signal).
    stop: &'a AtomicBool,
    /// Keeps the groups still to come from starting (exit_what=all).
    rest_stop: &'a AtomicBool,
    /// Whether a later group is still to come (its jobs count as I/O to
    /// come for exit_on_io_done).
    io_jobs_ahead: bool,
    /// Whether this group or an earlier one has a job that moves data.
    had_io_jobs: bool,
    /// When the run started (steady state's clock).
    run_start: crate::run::pacing::clock::Nanos,
}

/// The flags a group's jobs share while it runs.
struct GroupFlags {
    /// Set when a job's end stops the others of its group (exitall).
    group_stop: AtomicBool,
    /// Set once no job that moves data runs or is to come.
    io_done: AtomicBool,
}

impl Group<'_> {
    /// Runs the group's ready jobs, each on its own thread, watching them
    /// until all have ended; returns every member's result in order.
    fn run(
        &self,
        laid_out: Vec<Result<(), Box<JobResult>>>,
        disks: &mut DiskWatch,
        observer: &mut dyn Observer,
    ) -> Vec<JobResult> {
        let flags = GroupFlags {
            group_stop: AtomicBool::new(false),
            io_done: AtomicBool::new(false),
        };
        let steady_jobs: Vec<_> = self.members.iter().map(JobConfig::steady_job).collect();
        let mut steady = crate::run::pacing::steady::Checker::new(&steady_jobs, self.run_start);
        // What the jobs that lay out their own files have to say of it,
        // by their place in the group.
        let (laid_tx, laid_rx) = std::sync::mpsc::channel::<LaidNote>();
        let mut group_results: Vec<JobResult> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .members
                .iter()
                .zip(self.slots)
                .zip(laid_out)
                .enumerate()
                .map(|(i, ((cfg, slot), ready))| {
                    ready.map(|()| {
                        let waitees = self.waitees(cfg);
                        let stops = self.stops(&flags, slot);
                        let laid_tx = laid_tx.clone();
                        s.spawn(move || job_thread(i, cfg, slot, &waitees, stops, &laid_tx))
                    })
                })
                .collect();
            while !handles
                .iter()
                .all(|h| h.as_ref().map_or(true, |h| h.is_finished()))
            {
                let io_running =
                    self.members.iter().zip(&handles).any(|(cfg, h)| {
                        moves_data(cfg) && h.as_ref().is_ok_and(|h| !h.is_finished())
                    });
                if self.had_io_jobs && !self.io_jobs_ahead && !io_running {
                    flags
                        .io_done
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                tell_layouts(&laid_rx, self.members, disks, observer);
                tell_lines(self.slots, observer);
                disks.sample();
                observer.tick(disks);
                let mut nap = TICK;
                if let Some(checker) = &mut steady {
                    checker.tick(self.slots);
                    // Wake for the next check on time.
                    nap = nap.min(checker.until_next());
                }
                std::thread::sleep(nap);
            }
            tell_layouts(&laid_rx, self.members, disks, observer);
            tell_lines(self.slots, observer);
            handles
                .into_iter()
                .zip(self.members)
                .map(|(h, cfg)| match h {
                    Ok(handle) => handle.join().unwrap_or_else(|_| thread_lost(cfg)),
                    Err(failed) => *failed,
                })
                .collect()
        });
        if let Some(checker) = steady {
            for (r, s) in group_results.iter_mut().zip(checker.results()) {
                r.steady = s;
            }
        }
        group_results
    }

    /// wait_for: the progress of the jobs of that name in this group
    /// (earlier groups have ended already).
    fn waitees(&self, cfg: &JobConfig) -> Vec<&JobProgress> {
        self.members
            .iter()
            .zip(self.slots)
            .filter(|(other, _)| cfg.scheduling.wait_for.as_deref() == Some(&other.name))
            .map(|(_, p)| p)
            .collect()
    }

    /// The flags that end one job of the group early.
    fn stops<'a>(&'a self, flags: &'a GroupFlags, slot: &'a JobProgress) -> job_loop::Stops<'a> {
        job_loop::Stops {
            run: self.stop,
            group: &flags.group_stop,
            rest: self.rest_stop,
            io_done: &flags.io_done,
            own: &slot.terminate,
        }
    }
}

/// A job's thread: it waits for the jobs it follows, lays out its own
/// files when create_serialize=0 leaves that to it (telling the main
/// thread what the layout said), then runs.
fn job_thread(
    i: usize,
    cfg: &JobConfig,
    slot: &JobProgress,
    waitees: &[&JobProgress],
    stops: job_loop::Stops<'_>,
    laid_tx: &std::sync::mpsc::Sender<LaidNote>,
) -> JobResult {
    job_loop::wait_for(waitees, stops);
    if laid_in_job(cfg) {
        match crate::run::storage::layout::lay_out(&cfg.storage_parts()) {
            Ok((line, warnings)) => {
                let _ = laid_tx.send((i, line, warnings));
            }
            Err(e) => return layout_failed(cfg, slot, layout_error(cfg, &e)),
        }
    }
    job_loop::run(cfg, stops, slot)
}

/// The result of a job whose thread panicked.
fn thread_lost(cfg: &JobConfig) -> JobResult {
    let mut r = JobResult::new(cfg);
    r.fail(
        5,
        "thread",
        "the job's thread stopped unexpectedly".to_string(),
    );
    r
}
