//! Running a plan and reporting it as fio does: the job header lines,
//! `fio-3.33`, `Starting N processes`, the laying-out lines, then the
//! end-of-run reports in the formats asked for, on stdout or in the
//! `--output` file; fio's exit status.

use std::io::IsTerminal;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::cli::Args;
use crate::live::Live;
use crate::metrics::Board;
use crate::plan::{JobSpec, Plan};
use crate::report::eta::{StatusLine, write_aggregate_logs};
use crate::report::num2str::{Unit, num2str};
use crate::report::{Formats, Report};
use crate::result::JobResult;
use crate::result::live_job::LiveJob;
use crate::run::Observer;
use crate::run::config::JobConfig;
use crate::run::status::progress::{JobProgress, State};
use crate::stats::disk::DiskWatch;

/// Where fio's informational output goes: stdout, or the `--output` file;
/// it remembers the first write that failed, so that a lost report is not
/// a silent success.
struct Sink {
    out: Box<dyn Write>,
    /// What the user calls it in an error: `stdout` or `--output=PATH`.
    name: String,
    /// The first write error, if the report was (partly) lost.
    lost: Option<std::io::Error>,
    /// The stream is one machine-read document or a stream of them
    /// (NDJSON status lines, an HTML page): fio's free text goes to stderr
    /// instead, where it cannot break it.
    structured: bool,
}

impl Sink {
    fn open(args: &Args) -> Result<Sink, i32> {
        let (out, name): (Box<dyn Write>, String) = match args.flag("output").flatten() {
            Some(path) => match std::fs::File::create(path) {
                Ok(f) => (Box::new(f), format!("--output={path}")),
                Err(e) => {
                    eprintln!("fio: output file open error: {e}");
                    eprintln!("ferrio: --output={path}: the file could not be created");
                    return Err(1);
                }
            },
            None => (Box::new(std::io::stdout()), "stdout".to_string()),
        };
        Ok(Sink {
            out,
            name,
            lost: None,
            structured: false,
        })
    }

    fn say(&mut self, text: &str) {
        // Bytes of the job file that were not UTF-8 go out as they came.
        let bytes = crate::raw_text::to_bytes(text);
        let written = self.out.write_all(&bytes).and_then(|()| self.out.flush());
        if let Err(e) = written {
            self.lost.get_or_insert(e);
        }
    }

    /// fio's free-text notes that may come between reports (a signal's
    /// "terminating" line): in the stream as fio puts them, unless the
    /// stream is structured.
    fn note(&mut self, text: &str) {
        if self.structured {
            eprint!("{text}");
        } else {
            self.say(text);
        }
    }

    /// The run's exit status once the report is written: fio exits as if
    /// all went well when its report could not be written (`--output` on a
    /// full disk); ferrio says so and fails, unless it answers as fio.
    fn status(&mut self, code: i32) -> i32 {
        let Some(e) = self.lost.take() else {
            return code;
        };
        if crate::persona::as_fio() {
            return code;
        }
        eprintln!(
            "ferrio: {}: the report could not be written: {}",
            self.name,
            crate::strerror(&e)
        );
        code.max(1)
    }
}

/// `--merge-blktrace-only`: each job's header line is printed, as for a
/// run, and a job with merge_blktrace_file merges its traces; then fio
/// drops the job before its numjobs clones are made and before its
/// files or replay log are opened, so nothing runs, no report follows,
/// and the status is 0.
pub fn merge_only(plan: &Plan, args: &Args) -> Result<i32, i32> {
    use crate::run::refusal::Refusal;
    let mut sink = Sink::open(args)?;
    let normal = Formats::from_flags(&args.flags).normal;
    let refused = |refusal: Refusal| {
        eprintln!("ferrio: {}", refusal.0);
        1
    };
    for spec in plan.jobs().filter(|j| j.subjob == 0) {
        if normal {
            // As fio prints it before the job's files or log are opened:
            // from the options alone.
            let bs = crate::run::workload::block_sizes(spec).map_err(refused)?;
            let report = crate::result::options::ReportOptions::from_spec(spec);
            let iodepth = spec.num("iodepth").unwrap_or(1).max(1) as usize;
            if let Some(line) = header(spec, &bs, &report, &spec.engine, iodepth) {
                sink.say(&line);
            }
        }
        crate::run::records::merge_blktrace::merge_traces(spec).map_err(refused)?;
    }
    Ok(sink.status(0))
}

/// What a preset prints after the report, from the reported results.
pub type Summary = dyn Fn(&[JobResult]) -> Option<Told>;

/// A preset's summary: its text, and charts for the HTML page.
pub struct Told {
    pub text: String,
    pub html: Option<String>,
}

/// Runs every job of the plan (each checked before any I/O) and reports;
/// then, for a preset, its summary of the results.
pub fn execute(plan: &Plan, args: &Args, summary: Option<&Summary>) -> Result<i32, i32> {
    let started = Instant::now();
    // Before the jobs are prepared: preparing may wait (for a Ceph
    // cluster's monitors), and a stop must end that wait too.
    crate::sys::signals::install();
    let jobs = prepare(plan, args)?;
    let formats = Formats::from_flags(&args.flags);
    let terse_version = match args.flag("terse-version").flatten() {
        Some(v) => v.parse().unwrap_or(3),
        None => 3,
    };
    let status = status_line(args, formats, started)?;
    let trigger = crate::run::verification::trigger::Trigger::from_args(args)?;
    let every = status_interval(args)?;
    let live_setup = crate::live::setup(args, formats, every).map_err(|e| {
        eprintln!("ferrio: {e}");
        1
    })?;
    let specs: Vec<&JobSpec> = plan.jobs().collect();
    let for_sink = describe(&specs, &jobs, args)?;
    let mut sink = Sink::open(args)?;
    sink.structured = live_setup.ndjson || formats.html;
    for info in jobs.iter().flat_map(|j| &j.info) {
        sink.say(&format!("{info}\n"));
    }
    sink.say(&for_sink);
    // fio aborts a run that would write to a mounted device before any
    // job starts; the jobs are reported as having done nothing.
    let aborted =
        crate::run::storage::mounts::mounted_write(jobs.iter().map(JobConfig::storage_parts));
    if formats.normal {
        say_version(&mut sink, args, &jobs, aborted.is_some());
    }
    let stop = crate::sys::signals::stop_flag();
    let progress: Vec<JobProgress> = jobs.iter().map(|_| JobProgress::default()).collect();
    let board = Mutex::new(Board::new(jobs.len()));
    let watched: Vec<LiveJob> = jobs.iter().map(JobConfig::live_job).collect();
    let live = live_setup;
    let interim = Interim {
        // NDJSON lines take the place of fio's timed full reports.
        every: if live.ndjson { None } else { every },
        last: started,
        formats,
        terse_version,
        started,
        compact: live.ndjson,
    };
    let mut watcher = Watcher {
        sink: &mut sink,
        normal: formats.normal,
        status,
        interim,
        live: live
            .period
            .map(|p| Live::new(p, live.ndjson, started, &watched, &progress, &board)),
        jobs: &jobs,
        watched: &watched,
        progress: &progress,
        trigger,
        stop,
        signalled: false,
        start_at: args
            .flag("start-at")
            .flatten()
            .and_then(|at| crate::distributed::parse_start_at(at).ok()),
    };
    let served = AtomicBool::new(false);
    let sources = crate::metrics::Sources {
        jobs: &watched,
        progress: &progress,
        board: &board,
    };
    let (results, disks) = match &aborted {
        Some(line) => {
            eprintln!("{line}");
            (jobs.iter().map(JobResult::new).collect(), Vec::new())
        }
        None => std::thread::scope(|s| {
            if let Some(listener) = live.listener {
                s.spawn(|| crate::metrics::serve(listener, &sources, &served));
            }
            let ran = crate::run::run(&jobs, &progress, stop, &mut watcher);
            served.store(true, Ordering::Relaxed);
            ran
        }),
    };
    if let Some(line) = watcher.live.as_mut().and_then(Live::finish) {
        watcher.sink.say(&line);
    }
    if args.has("bandwidth-log")
        && let Err(e) = write_aggregate_logs(watcher.status.as_ref())
    {
        eprintln!("fio: writing the aggregate bandwidth logs failed: {e}");
    }
    let trigger_signalled = watcher.signalled;
    // Each failed job says so, and fio's exit status counts them.
    let failed = say_failures(&results, &jobs, args, &mut sink);
    let stopped_in_setup = results.iter().filter(|r| r.stopped_in_setup).count();
    let results = crate::run::group_results(&jobs, results);
    let signal = crate::sys::signals::received();
    if let Some(signal) = signal {
        sink.note(&format!("\nfio: terminating on signal {signal}\n"));
        // fio's main process ends a job process still setting up with
        // SIGTERM, and that process says so too.
        for _ in 0..stopped_in_setup {
            sink.note("\nfio: terminating on signal 15\n");
        }
    }
    // ferrio's own warnings, when the tool rather than the device set the
    // pace: for a person at a terminal, or when asked with --notes. Scripts
    // that read stderr (fio-plot's bench_fio, fio's job tests) require it
    // empty; machine formats carry the warnings in JSON under `ferrio`.
    let wanted = args.has("notes") || std::io::stderr().is_terminal();
    if formats.normal && wanted && !crate::persona::as_fio() {
        say_ferrio_warnings(&results);
    }
    let last_group = jobs.iter().map(|j| j.group).max();
    let report = Report::new(results, last_group, disks, started.elapsed(), terse_version);
    let told = summary
        .filter(|_| aborted.is_none())
        .and_then(|summary| summary(&report.results));
    let mut text = report.render(formats);
    if let Some(html) = told.as_ref().and_then(|t| t.html.as_ref())
        && formats.html
    {
        crate::report::html::append_to_page(&mut text, html);
    }
    sink.say(&if live.ndjson {
        crate::report::ndjson::compact(&text)
    } else {
        text
    });
    if let Some(told) = told {
        say_summary(&told.text, args, formats);
    }
    let signalled = signal.is_some() || trigger_signalled;
    // fio exits 0 when it refuses a mounted device; a preset, ferrio's
    // own command, says that it did not run with its status.
    let refused = i32::from(summary.is_some() && aborted.is_some());
    Ok(sink.status(failed + refused + if signalled { 128 } else { 0 }))
}

/// A preset's summary: on stdout after the report, unless a machine
/// format is on stdout, which the summary goes beside on stderr so that
/// stdout stays one document.
fn say_summary(text: &str, args: &Args, formats: Formats) {
    let to_file = args.flag("output").flatten().is_some();
    let machine = formats.json || formats.terse || formats.html;
    if to_file || !machine {
        print!("\n{text}");
    } else {
        eprint!("\n{text}");
    }
}

/// Prepares the plan's jobs (each checked before any I/O), with
/// --aux-path's place for verify files and the verify states they
/// resume from; the jobs' notices go to stderr.
fn prepare(plan: &Plan, args: &Args) -> Result<Vec<JobConfig>, i32> {
    let mut jobs = crate::run::prepare(plan, args.has("readonly")).map_err(|refusal| {
        eprintln!("ferrio: {}", refusal.0);
        1
    })?;
    // fio writes verify_dump's files under --aux-path when one is given.
    if let Some(dir) = args.flag("aux-path").flatten() {
        for spec in jobs
            .iter_mut()
            .filter_map(|j| j.verification.verify.as_mut())
        {
            std::sync::Arc::make_mut(spec).dump_dir = Some(dir.into());
        }
    }
    let aux_path = args
        .flag("aux-path")
        .flatten()
        .map(std::path::PathBuf::from);
    load_verify_states(&mut jobs, aux_path.as_deref())?;
    for notice in jobs.iter().flat_map(|j| &j.notices) {
        eprintln!("{notice}");
    }
    Ok(jobs)
}

/// fio's version line and, unless the run is aborted before any job
/// starts, its `Starting N processes` line.
fn say_version(sink: &mut Sink, args: &Args, jobs: &[JobConfig], aborted: bool) {
    // fio prints its version once the command line is parsed, unless
    // the jobs are to come from a profile (loaded later, without it).
    let version = if args.has("profile") {
        String::new()
    } else {
        format!("{}\n", crate::FIO_VERSION)
    };
    if aborted {
        sink.say(&version);
    } else {
        sink.say(&format!("{version}{}\n", starting(jobs)));
    }
}

/// Says what each failed job's errors were, where fio says them; returns
/// how many jobs failed (what fio's exit status counts).
fn say_failures(results: &[JobResult], jobs: &[JobConfig], args: &Args, sink: &mut Sink) -> i32 {
    let mut failed = 0;
    for (r, cfg) in results.iter().zip(jobs) {
        // A job that carried on after its errors has not failed; fio
        // warned at its first direct I/O if that failed.
        if r.carried_on {
            if r.warn_direct {
                sink.say(FIRST_DIRECT_IO_ERRORED);
            }
        } else if let Some(e) = &r.error {
            failed += 1;
            // Some errors have no text of their own (fio's "full resid").
            let later = r.later_errors.iter();
            for message in std::iter::once(&e.message)
                .filter(|m| !m.is_empty())
                .chain(later)
            {
                eprintln!("{message}");
                // fio writes its error text to the --output file too.
                if args.flag("output").flatten().is_some() {
                    sink.say(&format!("{message}\n"));
                }
            }
            if cfg.files.direct
                && e.errno == libc::EINVAL
                && e.func == "io_u error"
                && r.issued() == 1
            {
                sink.say(FIRST_DIRECT_IO_ERRORED);
            }
            // A failure fio gives no error code to (a zbd setup check)
            // says no more than its message.
            if e.errno == 0 && e.func.is_empty() {
                continue;
            }
            let line = format!("fio: pid={}, err={}/{}", r.pid, e.errno, e.context());
            // A job that failed before it started (pid 0) says so on
            // stderr; a running job on stdout.
            if r.pid == 0 {
                eprintln!("{line}");
            } else {
                sink.say(&format!("{line}\n"));
            }
        }
    }
    failed
}

/// ferrio's own warnings, for each result whose pace the tool rather
/// than the device set.
fn say_ferrio_warnings(results: &[JobResult]) {
    for r in results {
        for w in crate::report::ferrio::verdict(r).warnings {
            eprintln!("ferrio: warning: {w}");
        }
    }
}

/// Follows the run: prints the laying-out lines, and the status line when
/// it is on.
struct Watcher<'a> {
    sink: &'a mut Sink,
    normal: bool,
    status: Option<StatusLine>,
    interim: Interim,
    /// Live metrics (NDJSON status lines, the OpenMetrics endpoint).
    live: Option<Live<'a>>,
    jobs: &'a [JobConfig],
    /// What the status line shows of each job.
    watched: &'a [LiveJob],
    progress: &'a [JobProgress],
    /// `--trigger-file`, `--trigger-timeout` and `--trigger`.
    trigger: crate::run::verification::trigger::Trigger,
    /// Ends every job early (the trigger sets it).
    stop: &'a AtomicBool,
    /// The trigger sent fio's own process a SIGTERM (see `starting`).
    signalled: bool,
    /// `--start-at`: when the jobs start, on every host of a distributed
    /// run.
    start_at: Option<std::time::SystemTime>,
}

/// Interim reports: every `--status-interval`, on SIGUSR1, or when the
/// file `$TMPDIR/fio-dump-status` appears (fio deletes it).
struct Interim {
    every: Option<Duration>,
    last: Instant,
    formats: Formats,
    terse_version: u32,
    started: Instant,
    /// Each report on one line (the output is NDJSON).
    compact: bool,
}

impl Interim {
    fn due(&mut self, now: Instant) -> bool {
        let timed = self
            .every
            .is_some_and(|every| now.saturating_duration_since(self.last) >= every);
        let dump_file = std::env::temp_dir().join("fio-dump-status");
        let asked = crate::sys::signals::report_requested()
            || (dump_file.exists() && std::fs::remove_file(&dump_file).is_ok());
        if timed || asked {
            self.last = now;
        }
        timed || asked
    }
}

impl Watcher<'_> {
    /// Fires the trigger over every job's verify state; `running`:
    /// whether the first group's jobs have been let go.
    fn fire_trigger(&self, running: bool) {
        let states: Vec<_> = self.jobs.iter().map(JobConfig::state_parts).collect();
        self.trigger
            .fire(&states, self.progress, self.stop, running);
    }

    /// A full report of the results so far: running jobs hand over a copy
    /// of theirs, finished jobs their final ones.
    fn interim_report(&mut self, disks: &DiskWatch) {
        let running = |p: &JobProgress| {
            matches!(
                p.state(),
                State::Running | State::Ramp | State::Finishing | State::SettingUp
            )
        };
        for p in self.progress.iter().filter(|p| running(p)) {
            p.request_snapshot();
        }
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline
            && self
                .progress
                .iter()
                .any(|p| running(p) && p.snapshot_wanted())
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        let results = self
            .jobs
            .iter()
            .zip(self.progress)
            .map(|(cfg, p)| p.snapshot().unwrap_or_else(|| JobResult::new(cfg)))
            .collect();
        let results = crate::run::group_results(self.jobs, results);
        let i = &self.interim;
        let last_group = self.jobs.iter().map(|j| j.group).max();
        let report = Report::new(
            results,
            last_group,
            disks.usage(),
            i.started.elapsed(),
            i.terse_version,
        );
        let text = report.render(i.formats);
        self.sink.say(&if i.compact {
            crate::report::ndjson::compact(&text)
        } else {
            text
        });
    }
}

impl Observer for Watcher<'_> {
    fn engine_line(&mut self, line: &str) {
        self.sink.say(&format!("{line}\n"));
    }

    fn notice(&mut self, line: &str) {
        if self.normal {
            self.sink.say(&format!("{line}\n"));
        }
    }

    /// Files are laid out before the wait, so that every instance starts
    /// its I/O at the instant, however long its layout took.
    fn starting(&mut self) {
        if let Some(at) = self.start_at {
            crate::distributed::wait_until(at);
        }
        crate::distributed::mark_started();
        self.trigger.started();
        // fio's first look comes while the first group's jobs wait to be
        // let go: it ends each of them with SIGTERM then, and each says
        // so. A job that is a thread shares fio's process, which then
        // exits with 128 as after any terminating signal.
        if self.trigger.due() {
            let first = self.jobs.first().map(|j| j.group);
            for job in self.jobs.iter().filter(|j| Some(j.group) == first) {
                self.sink.note("\nfio: terminating on signal 15\n");
                self.signalled |= job.scheduling.thread;
            }
            self.fire_trigger(false);
        }
    }

    fn tick(&mut self, disks: &DiskWatch) {
        if self.trigger.due() {
            self.fire_trigger(true);
        }
        if let Some(line) = self.live.as_mut().and_then(|l| l.tick(Instant::now())) {
            self.sink.say(&line);
        }
        if self.interim.due(Instant::now()) {
            self.interim_report(disks);
        }
        if let Some(status) = &mut self.status
            && let Some(line) = status.tick(Instant::now(), self.watched, self.progress)
        {
            // The status line goes to the terminal even with --output.
            write_stdout(&line);
        }
    }
}

/// The status line, if fio would show one: `--eta=always`, or `auto`
/// (the default) on a terminal; never when stdout carries only JSON or
/// terse output.
fn status_line(args: &Args, formats: Formats, started: Instant) -> Result<Option<StatusLine>, i32> {
    let time_ms = |flag: &str| -> Result<Option<u64>, i32> {
        match args.flag(flag).flatten() {
            None => Ok(None),
            Some(v) => match crate::options::number::time_us(v, true) {
                Some(us) => Ok(Some(us / 1000)),
                None => {
                    eprintln!("fio: failed parsing {flag} time {v}");
                    Err(1)
                }
            },
        }
    };
    let interval = time_ms("eta-interval")?.unwrap_or(1000);
    if interval < 250 {
        eprintln!("fio: eta interval time too short (250msec min)");
        return Err(1);
    }
    let newline = time_ms("eta-newline")?;
    if newline == Some(0) {
        eprintln!("fio: eta new line time too short");
        return Err(1);
    }
    let mode = args.flag("eta").flatten().unwrap_or("auto");
    let aggregate = args.has("bandwidth-log");
    let to_stdout = args.flag("output").flatten().is_none();
    let wanted = match mode {
        "always" => true,
        "never" => false,
        // SAFETY: isatty only inspects the descriptor.
        _ => unsafe { libc::isatty(1) == 1 },
    };
    if !wanted || (!formats.normal && to_stdout) {
        return Ok(None);
    }
    let line = StatusLine::new(
        started,
        Duration::from_millis(interval),
        newline.map(Duration::from_millis),
    );
    Ok(Some(if aggregate {
        line.with_aggregate_log()
    } else {
        line
    }))
}

/// `--status-interval`: seconds unless a unit is given.
fn status_interval(args: &Args) -> Result<Option<Duration>, i32> {
    match args.flag("status-interval").flatten() {
        None => Ok(None),
        // fio reads the time as a signed number: below a millisecond
        // (zero, negative, an unknown unit that leaves microseconds) is
        // too small.
        Some(v) => match crate::options::number::time_us(v, true) {
            Some(us) if us as i64 >= 1000 => Ok(Some(Duration::from_micros(us))),
            Some(_) => {
                eprintln!("fio: status interval too small");
                eprintln!("ferrio: --status-interval={v}: expected at least 1ms");
                Err(1)
            }
            None => {
                eprintln!("fio: failed parsing time {v}");
                eprintln!("ferrio: --status-interval={v}: expected a time such as 1 or 500ms");
                Err(1)
            }
        },
    }
}

/// What fio says when a job's very first O_DIRECT I/O fails with EINVAL.
const FIRST_DIRECT_IO_ERRORED: &str = "fio: first direct IO errored. File system may not support direct IO, or iomem_align= is bad, or invalid block size. Try setting direct=0.\n";

/// Writes each job's description line where fio would have, given the
/// format and `--output` file in effect when it added the job (see
/// `announce`): stdout, or an `--output` file named before the last one,
/// which fio creates in turn (the last is the sink's). Returns the lines
/// for the sink, which come after the jobs' other setup output there.
fn describe(specs: &[&JobSpec], jobs: &[JobConfig], args: &Args) -> Result<String, i32> {
    let outputs = args.all("output");
    let mut per_output = vec![String::new(); outputs.len()];
    let mut before_any = String::new();
    for (line, spec) in headers(specs, jobs).into_iter().zip(specs) {
        let added = crate::announce::added(spec, args);
        match line {
            Some(line) if added.normal => match added.output {
                Some(i) => per_output[i] += &line,
                None => before_any += &line,
            },
            _ => {}
        }
    }
    let Some(for_sink) = per_output.pop() else {
        return Ok(before_any);
    };
    write_stdout(&before_any);
    for (path, text) in outputs.iter().zip(per_output) {
        std::fs::write(path, text).map_err(|e| {
            eprintln!("fio: output file open error: {}", crate::strerror(&e));
            eprintln!("ferrio: --output={path}: the file could not be written");
            1
        })?;
    }
    Ok(for_sink)
}

fn write_stdout(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(&crate::raw_text::to_bytes(text));
    let _ = stdout.flush();
}

/// fio's line per job as it reads them: `name: (g=0): rw=..., bs=...`;
/// the second job of a numjobs set has `...` and the others nothing.
/// Whether each is printed is [`crate::announce`]'s call.
fn headers(specs: &[&JobSpec], jobs: &[JobConfig]) -> Vec<Option<String>> {
    let mut out = Vec::with_capacity(specs.len());
    let mut previous_subjob = None;
    for (spec, cfg) in specs.iter().zip(jobs) {
        let line = if spec.subjob == 0 {
            header(
                spec,
                &cfg.workload.bs,
                &cfg.reporting.report,
                &cfg.engine,
                cfg.depth.iodepth,
            )
        } else if spec.subjob > 0 && previous_subjob == Some(0) {
            Some("...\n".to_string())
        } else {
            None
        };
        out.push(line);
        previous_subjob = Some(spec.subjob);
    }
    out
}

/// One job's header line (none for an engine that moves no data, as in
/// fio).
fn header(
    spec: &JobSpec,
    bs: &[crate::run::workload::BlockSizes; 3],
    report: &crate::result::options::ReportOptions,
    engine: &str,
    iodepth: usize,
) -> Option<String> {
    if crate::engine::moves_no_data(engine) {
        return None;
    }
    let range = |d: usize| {
        let n = |v| num2str(v, report.sig_figs, 1, report.binary(), Unit::Bytes);
        format!("{}-{}", n(bs[d].min()), n(bs[d].max()))
    };
    Some(format!(
        "{}: (g={}): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine={engine}, iodepth={iodepth}\n",
        spec.name,
        spec.group,
        rw_name(spec),
        range(0),
        range(1),
        range(2),
    ))
}

/// The canonical name of a job's `rw` (fio prints `readwrite` as `rw`).
fn rw_name(spec: &JobSpec) -> &'static str {
    match spec.value("rw") {
        Some(crate::options::Value::Word { word, .. }) => match *word {
            "readwrite" => "rw",
            w => w,
        },
        _ => "read",
    }
}

/// `Starting 2 threads and 1 process`.
fn starting(jobs: &[JobConfig]) -> String {
    let threads = jobs.iter().filter(|j| j.scheduling.thread).count();
    let processes = jobs.len() - threads;
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = Vec::new();
    if threads > 0 {
        parts.push(count(threads, "thread", "threads"));
    }
    if processes > 0 {
        parts.push(count(processes, "process", "processes"));
    }
    format!("Starting {}", parts.join(" and "))
}

/// verify_state_load: reads each such job's state file before any job
/// runs, from where fio looks for it (`--aux-path`, else the working
/// directory). fio gives up on the run when one cannot be read, with its
/// messages, and exits 1; it reads the file even for a job that does not
/// verify, which then makes no use of it.
fn load_verify_states(
    jobs: &mut [crate::run::config::JobConfig],
    aux_path: Option<&std::path::Path>,
) -> Result<(), i32> {
    use crate::verify::state::{self, VerifyState};
    for job in jobs.iter_mut().filter(|j| j.verification.verify_state_load) {
        let index = job.placement.seeds.thread_number.saturating_sub(1);
        let path = state::file_name(&state::prefix(aux_path), &job.name, index);
        let bytes = std::fs::read(&path).map_err(|e| {
            eprintln!("fio: open state file: {}", crate::strerror(&e));
            eprintln!("fio: state file: {} (for_write=0)", path.display());
            1
        })?;
        let loaded = VerifyState::decode(&bytes).map_err(|text| {
            eprintln!("{text}");
            1
        })?;
        if let Some(spec) = job.verification.verify.as_mut() {
            std::sync::Arc::make_mut(spec).loaded = Some(std::sync::Arc::new(loaded));
        }
    }
    Ok(())
}
