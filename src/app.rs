//! The program: reads the command line, plans, and answers the requested
//! action, printing what fio prints on the streams where fio prints it.

use std::io::Write;

use crate::cli::{self, Args};
use crate::jobfile::{FsLoader, expand::Environment};
use crate::plan::{self, Input};
use crate::{explain, help};

/// fio's output formats, and ferrio's own `html`.
const OUTPUT_FORMATS: &[&str] = &["normal", "terse", "minimal", "csv", "json", "json+", "html"];

/// Runs ferrio with `argv` (without the program name); returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    match subcommand(argv) {
        Some("merge") => return crate::merge::run(&argv[1..]),
        Some("report") => return crate::saved_report::run(&argv[1..]),
        Some("preset") => {
            return match crate::preset::prepare(&argv[1..]) {
                Ok((args, preset)) => run_builtin(&args, &preset),
                Err(code) => code,
            };
        }
        _ => {}
    }
    let args = match cli::parse(argv) {
        Ok(a) => a,
        Err(e) => {
            // fio's getopt reports an unknown option and fio repeats it.
            for line in &e.fio_stderr {
                eprintln!("{line}");
            }
            crate::persona::explain(&e.detail);
            return 1;
        }
    };
    let code = match run_args(&args) {
        Ok(code) => code,
        Err(code) => code,
    };
    if let Some(note) = crate::run::verification::trim_backlog::exit_note() {
        eprintln!("{note}");
    }
    code
}

/// `ferrio merge ...`, `ferrio report ...` and `ferrio preset ...`:
/// only as the first argument, only when ferrio does not answer as fio,
/// and only when no file of that name is there to be read as a job file
/// (fio's reading of the same command line).
fn subcommand(argv: &[String]) -> Option<&str> {
    let first = argv.first()?.as_str();
    (["merge", "report", "preset"].contains(&first)
        && !crate::persona::as_fio()
        && !std::path::Path::new(first).exists())
    .then_some(first)
}

fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

fn run_args(args: &Args) -> Result<i32, i32> {
    if let Some(outcome) = answer_alone(args) {
        return outcome;
    }
    check_flags(args)?;
    let parse_only = args.has("parse-only");
    let profiled;
    let args = match args.flag("profile") {
        Some(name) => match with_profile(args, name.unwrap_or(""))? {
            Some(more) => {
                profiled = more;
                &profiled
            }
            None => return Ok(0),
        },
        None => args,
    };
    let merge_only = args.has("merge-blktrace-only");
    // fio counts --merge-blktrace-only as a request in itself: without a
    // job it has nothing to merge, and exits quietly.
    if args.files.is_empty() && args.job_options.is_empty() && merge_only {
        return Ok(0);
    }
    if args.files.is_empty() && args.job_options.is_empty() && !parse_only && !args.has("demo") {
        eprintln!("No job(s) defined\n");
        out(&help::usage());
        return Err(1);
    }
    let target = demo_target();
    let demo = args.has("demo").then(|| demo_job(&target));
    let plan = make_plan(args, demo.as_ref(), parse_only)?;
    if let Some(done) = before_run(&plan, args, parse_only, merge_only) {
        return done;
    }
    let outcome = crate::execute::execute(&plan, args, None);
    if demo.is_some() {
        // The demo's scratch file is ours: leave nothing behind.
        let _ = std::fs::remove_file(&target);
    }
    outcome
}

/// The flags that are answered on their own, before any job is read
/// (version, help, --install-alias, --inflate-log, fio's self-acting
/// flags): the run's outcome, or `None` to go on.
fn answer_alone(args: &Args) -> Option<Result<i32, i32>> {
    if args.has("version") {
        if crate::persona::as_fio() {
            out(&format!("{}\n", crate::FIO_VERSION));
        } else {
            out(&format!(
                "{} (ferrio {})\n",
                crate::FIO_VERSION,
                env!("CARGO_PKG_VERSION")
            ));
        }
        return Some(Ok(0));
    }
    if let Some(dir) = args.flag("install-alias") {
        return Some(match crate::persona::install_alias(dir) {
            Ok(alias) => {
                if alias.made_dir {
                    out(&format!(
                        "ferrio: created {}\n",
                        alias.link.parent().unwrap_or(&alias.link).display()
                    ));
                }
                let what = if alias.existed {
                    "already links"
                } else {
                    "now links"
                };
                out(&format!(
                    "ferrio: {} {what} to this ferrio, which answers as fio when run by that name\n",
                    alias.link.display()
                ));
                let path = std::env::var("PATH").unwrap_or_default();
                if let Some(w) = crate::persona::alias_warning(&alias.link, &path) {
                    eprintln!("ferrio: {w}");
                }
                Ok(0)
            }
            Err(e) => {
                eprintln!("ferrio: --install-alias: {e}");
                Err(1)
            }
        });
    }
    if args.has("help") {
        out(&help::usage());
        return Some(Ok(0));
    }
    if let Some(name) = args.flag("cmdhelp") {
        let (text, err, code) = help::cmdhelp(name);
        out(&text);
        eprint!("{err}");
        return Some(Ok(code));
    }
    if let Some(engine) = args.flag("enghelp") {
        let (text, err, code) = help::enghelp(engine);
        out(&text);
        eprint!("{err}");
        return Some(Ok(code));
    }
    // fio decodes the stored log named first (it reads no further
    // --inflate-log) and exits with its status, running no job.
    if let Some(file) = args.all("inflate-log").first() {
        return Some(Ok(crate::run::records::log_codec::inflate_file(file)));
    }
    crate::fio_flags::act(args).map(Ok)
}

/// Runs the built-in job files of a preset (`ferrio preset`) as any job
/// file is run, with the flags of `args`, then prints the preset's
/// summary of the results; returns the exit status.
fn run_builtin(args: &Args, preset: &crate::preset::Preset) -> i32 {
    let run = || {
        check_flags(args)?;
        let parse_only = args.has("parse-only");
        let builtin = Builtin {
            files: preset.files.clone(),
            env: preset.env.clone(),
        };
        let plan = make_plan(args, Some(&builtin), parse_only)?;
        if let Some(done) = before_run(&plan, args, parse_only, false) {
            return done;
        }
        crate::execute::execute(&plan, args, Some(&*preset.summary))
    };
    run().unwrap_or_else(|code| code)
}

/// Job files built into the binary (the demo's, the presets'), read from
/// memory before any named on the command line, with the environment
/// variables they name.
struct Builtin {
    files: Vec<(&'static str, &'static str)>,
    env: Vec<(String, String)>,
}

/// Reads the jobs (from the files and the command line, after the
/// built-in ones if any) into a plan, saying fio's notes; a plan that
/// fails says why and ends the run with status 1.
fn make_plan(
    args: &Args,
    builtin: Option<&Builtin>,
    parse_only: bool,
) -> Result<crate::plan::Plan, i32> {
    let mut env = Environment::capture();
    if !crate::persona::as_fio() {
        // Job files name per-instance targets with ${FERRIO_RANK}.
        let rank = crate::distributed::rank().map_err(|e| {
            eprintln!("ferrio: {e}");
            1
        })?;
        env.vars.insert("FERRIO_RANK".to_string(), rank.to_string());
    }
    let mut files = args.files.clone();
    let mut mem = crate::jobfile::MemLoader::default();
    if let Some(builtin) = builtin {
        env.vars.extend(builtin.env.iter().cloned());
        for (at, (path, text)) in builtin.files.iter().enumerate() {
            mem.0.insert(path.into(), text.as_bytes().to_vec());
            files.insert(at, path.to_string());
        }
    }
    let loader: &dyn crate::jobfile::Loader = match builtin {
        Some(_) => &mem,
        None => &FsLoader,
    };
    let input = Input {
        cmdline: args.job_options.clone(),
        files,
        sections: args.all("section"),
        env,
        loader,
        // --explain shows the plan, as --parse-only checks it: the values
        // fio checks only when a job is about to run are not checked yet.
        dry_run: parse_only || args.has("showcmd") || args.has("explain"),
        showcmd: args.has("showcmd"),
        // fio 3.33 takes --max-jobs and ignores its value, whatever it
        // is: its limit on jobs is fixed.
        max_jobs: 4096,
    };
    // fio traces its reading as it goes, before what the jobs say.
    if crate::parse_trace::enabled() {
        out(&crate::parse_trace::trace(
            &input.files,
            &input.cmdline,
            &input.env,
            parse_only,
        ));
    }
    let plan = match plan::plan(&input) {
        Ok(p) => p,
        Err(e) => {
            out(&e.fio_stdout);
            for line in &e.fio_stderr {
                eprintln!("{line}");
            }
            crate::persona::explain(&e.to_string());
            return Err(1);
        }
    };
    out(&plan.notes.stdout);
    for w in &plan.notes.stderr {
        eprintln!("{w}");
    }
    if args.has("warnings-fatal") && !plan.notes.stderr.is_empty() {
        return Err(1);
    }
    Ok(plan)
}

/// What ends the run once the plan is made, before any job runs:
/// --showcmd, --explain, --parse-only, an empty plan, or
/// --merge-blktrace-only (which merges and runs nothing). `None` when the
/// jobs are to run.
fn before_run(
    plan: &crate::plan::Plan,
    args: &Args,
    parse_only: bool,
    merge_only: bool,
) -> Option<Result<i32, i32>> {
    if args.has("showcmd") {
        return Some(Ok(0));
    }
    if args.has("explain") {
        let json = args
            .all("output-format")
            .iter()
            .any(|f| f.split(',').any(|f| f.starts_with("json")));
        out(&if json {
            explain::explain_json(plan)
        } else {
            explain::explain(plan, args.has("explain-defaults"))
        });
        return Some(Ok(0));
    }
    if parse_only {
        return Some(Ok(0));
    }
    if plan.groups.is_empty() && merge_only {
        return Some(Ok(0));
    }
    if plan.groups.is_empty() {
        eprintln!("No job(s) defined\n");
        out(&help::usage());
        return Some(Err(1));
    }
    if merge_only {
        return Some(crate::execute::merge_only(plan, args));
    }
    None
}

/// The job file built into the binary for `--demo`: the README's first
/// command runs it without anything else on the machine.
const DEMO_JOB: &str = include_str!("../jobs/default.fio");
const DEMO_PATH: &str = "<built-in>/default.fio";

/// The demo job aimed at `target`.
fn demo_job(target: &str) -> Builtin {
    Builtin {
        files: vec![(DEMO_PATH, DEMO_JOB)],
        env: vec![("FERRIO_TARGET".to_string(), target.to_string())],
    }
}

/// A scratch file name in the temporary directory, unique to this run.
fn demo_target() -> String {
    std::env::temp_dir()
        .join(format!("ferrio-demo-{}.dat", std::process::id()))
        .display()
        .to_string()
}

/// `--profile=NAME`: the command line with the profile's options after
/// its own, or `None` for a dry run (`--showcmd`, `--parse-only`), where
/// fio loads the profile but adds none of its jobs.
fn with_profile(args: &Args, name: &str) -> Result<Option<Args>, i32> {
    if !args.files.is_empty() || args.job_options.iter().any(|o| o.name == "name") {
        eprintln!(
            "ferrio: --profile together with job files or --name jobs is not run yet \
             (fio adds the profile's jobs after those, sharing its global options); \
             run the profile on its own"
        );
        return Err(1);
    }
    let mb_memory = Environment::capture().mb_memory;
    let act_devices = args.job_options.iter().any(|o| o.name == "device-names");
    let more = crate::profile::options(name, mb_memory, act_devices).map_err(|e| {
        eprintln!("{}", e.message);
        e.code
    })?;
    if args.has("showcmd") || args.has("parse-only") {
        return Ok(None);
    }
    let mut args = args.clone();
    args.job_options.extend(more);
    Ok(Some(args))
}

/// Flags that fio checks before reading any job.
fn check_flags(args: &Args) -> Result<(), i32> {
    for value in args.all("output-format") {
        for format in value.split(',') {
            let ferrio_only = format == "html" && crate::persona::as_fio();
            if !OUTPUT_FORMATS.contains(&format) || ferrio_only {
                eprintln!("fio: invalid output format {format}");
                eprintln!("fio: failed parsing output-format");
                crate::persona::explain(&format!(
                    "--output-format={value}: expected a comma list of {}",
                    OUTPUT_FORMATS.join(", ")
                ));
                return Err(1);
            }
        }
    }
    let formats = crate::report::Formats::from_flags(&args.flags);
    if formats.html && (formats.normal || formats.json || formats.terse) {
        eprintln!(
            "ferrio: --output-format=html cannot share one stream with another format: \
             the page would be neither; write json+ (--output-format=json+ --output=run.json) \
             and render the page from it with `ferrio report run.json`"
        );
        return Err(1);
    }
    if let Some(Some(v)) = args.flag("terse-version")
        && !matches!(v, "2" | "3" | "4" | "5")
    {
        eprintln!("fio: bad terse version format");
        crate::persona::explain(&format!("--terse-version={v}: expected 2, 3, 4 or 5"));
        return Err(1);
    }
    if let Some(at) = args.flag("start-at") {
        crate::distributed::parse_start_at(at.unwrap_or_default()).map_err(|e| {
            eprintln!("ferrio: {e}");
            1
        })?;
    }
    if args.has("latency-log") {
        eprintln!("fio: --latency-log is deprecated. Use per-job latency log options.");
        crate::persona::explain("--latency-log: expected write_lat_log=NAME in the job instead");
        return Err(1);
    }
    for flag in [
        "client",
        "server",
        "server-internal",
        "daemonize",
        "remote-config",
    ] {
        if args.has(flag) {
            eprintln!(
                "ferrio: --{flag} (fio's client/server mode) is not supported; run ferrio on each host instead"
            );
            return Err(1);
        }
    }
    Ok(())
}
