//! A stop (SIGINT, SIGTERM) ends every kind of wait at once and the run
//! ends with the partial report, as fio's does: the same exit status, the
//! same "fio: terminating on signal N" line, the same jobs and, where the
//! count does not depend on timing, the same I/O counts. Each wait is
//! long (15 s or more, or for ever) and the signal comes 1.5 s into it,
//! so a wait that ignores the stop outlives the bound by far; the bound
//! itself is generous for a loaded machine. The cases run side by side,
//! fio beside ferrio, so the whole takes about as long as fio's slowest
//! stop (fio does not cut a thinktime_spin, a flow_sleep or exec's
//! grace_time short; ferrio does).

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Scratch, ferrio, fio};
use serde_json::Value;

/// How long ferrio may take from the signal to its exit.
const BOUND: Duration = Duration::from_secs(5);
/// The hard limit of every run, fio's included (its slowest stop here
/// lasts about 14 s); a run still going then is killed and fails.
const LIMIT: Duration = Duration::from_secs(60);
/// How far into its wait a run is when the signal comes.
const INTO_WAIT: Duration = Duration::from_millis(1500);

/// One kind of wait.
struct Case {
    name: &'static str,
    /// The job file; `{dir}` is the run's folder.
    job: &'static str,
    /// Arguments before the job file (besides the JSON output format).
    args: fn() -> Vec<String>,
    signal: i32,
    /// Whether the I/O counts are the same on every run (fio's included).
    counts: bool,
    /// The job fio runs instead (without `args`), for an option fio
    /// lacks (--start-at); None: the same job and arguments.
    fio_job: Option<&'static str>,
    env: &'static [(&'static str, &'static str)],
}

fn none() -> Vec<String> {
    Vec::new()
}

/// `--start-at` 30 s from now.
fn start_at() -> Vec<String> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    vec![format!("--start-at={}", now.as_secs() + 30)]
}

const NULL: &str = "[j]\nioengine=null\nrw=read\nsize=64k\n";

const CASES: &[Case] = &[
    Case {
        name: "thinktime",
        job: "[j]\nioengine=null\nrw=read\nsize=64k\nthinktime=15s\n",
        args: none,
        signal: libc::SIGINT,
        counts: true,
        fio_job: None,
        env: &[],
    },
    // fio sleeps until a stop (its runtime does not end the sleep).
    Case {
        name: "thinktime=-1, SIGTERM",
        job: "[j]\nioengine=null\nrw=read\nsize=64k\nthinktime=-1\nruntime=3\n",
        args: none,
        signal: libc::SIGTERM,
        counts: true,
        fio_job: None,
        env: &[],
    },
    Case {
        name: "thinktime_spin",
        job: "[j]\nioengine=null\nrw=read\nsize=64k\nthinktime=15s\nthinktime_spin=15s\n",
        args: none,
        signal: libc::SIGINT,
        counts: true,
        fio_job: None,
        env: &[],
    },
    Case {
        name: "thinktime_blocks",
        job: "[j]\nioengine=null\nrw=read\nsize=64k\nthinktime=15s\nthinktime_blocks=4\n",
        args: none,
        signal: libc::SIGINT,
        counts: true,
        fio_job: None,
        env: &[],
    },
    // a gets ahead of its share of the flow after two I/Os and sleeps;
    // b waits out a start delay (which stops at once already).
    Case {
        name: "flow_sleep",
        job: "[a]\nioengine=null\nrw=read\nsize=64k\nflow_id=1\nflow=1\nflow_sleep=15000000\n\
              [b]\nioengine=null\nrw=read\nsize=64k\nflow_id=1\nflow=1\nstartdelay=100\n",
        args: none,
        signal: libc::SIGINT,
        counts: true,
        fio_job: None,
        env: &[],
    },
    // A 30 s gap after the first I/O: fio issues the I/Os after a gap the
    // stop cut short.
    Case {
        name: "read_iolog gap",
        job: "[j]\nioengine=psync\nread_iolog={dir}/replay.log\n",
        args: none,
        signal: libc::SIGINT,
        counts: true,
        fio_job: None,
        env: &[],
    },
    // The program ignores SIGTERM. Without a runtime the engine asks it
    // to stop at its second I/O, then waits grace_time.
    Case {
        name: "exec grace_time",
        job: "[j]\nioengine=exec\nprogram={dir}/stubborn.sh\ngrace_time=15\n",
        args: none,
        signal: libc::SIGINT,
        counts: true,
        fio_job: None,
        env: &[],
    },
    Case {
        name: "cpuio chunk",
        job: "[j]\nioengine=cpuio\ncpuload=50\ncpuchunks=15000000\nruntime=60\ntime_based\n",
        args: none,
        signal: libc::SIGINT,
        counts: false,
        fio_job: None,
        env: &[],
    },
    Case {
        name: "cpuio idle",
        job: "[j]\nioengine=cpuio\ncpuload=1\ncpuchunks=200000\nruntime=60\ntime_based\n",
        args: none,
        signal: libc::SIGINT,
        counts: false,
        fio_job: None,
        env: &[],
    },
    // fio has no --start-at: its report of a job stopped before it began
    // (in its start delay) is the reference.
    Case {
        name: "--start-at",
        job: NULL,
        args: start_at,
        signal: libc::SIGINT,
        counts: true,
        fio_job: Some("[j]\nioengine=null\nrw=read\nsize=64k\nstartdelay=30\n"),
        env: &[],
    },
    // A monitor that does not answer (a closed port): fio waits for
    // librados' client_mount_timeout (6 s here) before it reports.
    Case {
        name: "rbd connect",
        job: "[j]\nioengine=rbd\npool=rbd\nrbdname=img\nclientname=admin\nrw=read\nsize=1m\n",
        args: none,
        signal: libc::SIGINT,
        counts: true,
        fio_job: None,
        env: &[("CEPH_CONF", "{dir}/ceph.conf")],
    },
];

/// What one run printed and how long it took to end after the signal.
struct Stopped {
    code: i32,
    stdout: String,
    stderr: String,
    latency: Duration,
}

/// The files the jobs use, in the run's folder.
fn furnish(dir: &Path) {
    let data = dir.join("data.bin");
    std::fs::write(&data, vec![0u8; 64 * 1024]).unwrap();
    let d = data.display();
    let log = format!(
        "fio version 3 iolog\n0 {d} add\n0 {d} open\n0 {d} read 0 4096\n\
         30000000000 {d} read 4096 4096\n30000000001 {d} read 8192 4096\n\
         60000000000 {d} read 12288 4096\n60000000001 {d} close\n"
    );
    std::fs::write(dir.join("replay.log"), log).unwrap();
    let script = dir.join("stubborn.sh");
    std::fs::write(&script, "#!/bin/sh\ntrap '' TERM\nsleep 100\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Port 1 on the loopback: nothing listens, and nothing answers.
    std::fs::write(
        dir.join("ceph.conf"),
        "[global]\nmon_host = 127.0.0.1:1\nauth_supported = none\nclient_mount_timeout = 6\n",
    )
    .unwrap();
}

/// Whether the process has its SIGINT handler in place (bit 1 of the
/// caught-signal mask): before that a signal would kill it outright.
fn catches_sigint(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (libc::SIGINT - 1)) != 0)
}

/// Waits for `child` until `limit`; its exit code, or None on a timeout
/// (the child is then killed).
fn wait_bounded(child: &mut Child, limit: Duration) -> Option<i32> {
    let began = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            // A death by signal shows as 128 + the signal, as a shell says.
            use std::os::unix::process::ExitStatusExt;
            return Some(
                status
                    .code()
                    .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
            );
        }
        if began.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `program` on `job` in a fresh folder, signals it (its own pid,
/// not its process group) 1.5 s after it has its handlers in place, and
/// reports how it ended.
fn stop_run(program: &str, job: &str, args: &[String], case: &Case) -> Result<Stopped, String> {
    let scratch = Scratch::new("stop");
    let dir = scratch.0.as_path();
    furnish(dir);
    let fill = |s: &str| s.replace("{dir}", &dir.display().to_string());
    std::fs::write(dir.join("job.fio"), fill(job)).unwrap();
    let mut child = Command::new(program)
        .arg("--output-format=json")
        .args(args)
        .arg("job.fio")
        .current_dir(dir)
        .envs(case.env.iter().map(|(k, v)| (k, fill(v))))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let pid = child.id();
    let began = Instant::now();
    while !catches_sigint(pid) && began.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(INTO_WAIT);
    let read = |name: &str| {
        String::from_utf8_lossy(&std::fs::read(dir.join(name)).unwrap_or_default()).into_owned()
    };
    if let Ok(Some(status)) = child.try_wait() {
        return Err(format!(
            "{program} ended before the signal (status {status}); stderr: {}",
            read("stderr")
        ));
    }
    // SAFETY: a signal to our own child, by its pid.
    unsafe { libc::kill(pid as i32, case.signal) };
    let sent = Instant::now();
    let code = wait_bounded(&mut child, LIMIT);
    let latency = sent.elapsed();
    let code = code.ok_or_else(|| format!("{program} still ran {LIMIT:?} after the signal"))?;
    Ok(Stopped {
        code,
        stdout: read("stdout"),
        stderr: read("stderr"),
        latency,
    })
}

fn report(run: &Stopped) -> Result<Value, String> {
    let s = &run.stdout;
    s.find('{')
        .and_then(|at| serde_json::from_str(&s[at..]).ok())
        .ok_or_else(|| format!("no JSON report on stdout: {s:?}\nstderr: {}", run.stderr))
}

/// Each job's name and its read and write I/O counts.
fn jobs(doc: &Value) -> Vec<(String, u64, u64)> {
    doc["jobs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|j| {
            let ios = |d: &str| j[d]["total_ios"].as_u64().unwrap_or(u64::MAX);
            (
                j["jobname"].as_str().unwrap_or("").to_string(),
                ios("read"),
                ios("write"),
            )
        })
        .collect()
}

/// The "terminating on signal" lines a run printed, wherever it put them.
fn banners(run: &Stopped) -> Vec<String> {
    run.stdout
        .lines()
        .chain(run.stderr.lines())
        .filter(|l| l.starts_with("fio: terminating on signal"))
        .map(str::to_string)
        .collect()
}

/// Compares ferrio's stop with fio's; the latencies (fio's, ferrio's)
/// for the table.
fn check(case: &Case) -> Result<(Duration, Duration), String> {
    let (want, got) = std::thread::scope(|s| {
        // The reference job of an option fio lacks runs without it.
        let fio_args = if case.fio_job.is_some() {
            Vec::new()
        } else {
            (case.args)()
        };
        let want =
            s.spawn(move || stop_run(fio(), case.fio_job.unwrap_or(case.job), &fio_args, case));
        let got = stop_run(ferrio(), case.job, &(case.args)(), case);
        (want.join().unwrap(), got)
    });
    let (want, got) = (want?, got?);
    if got.latency > BOUND {
        return Err(format!(
            "ferrio took {:?} to stop (bound {BOUND:?}; fio {:?})",
            got.latency, want.latency
        ));
    }
    if got.code != want.code {
        return Err(format!(
            "exit status {} (fio {}); stderr: {}",
            got.code, want.code, got.stderr
        ));
    }
    if banners(&got) != banners(&want) {
        return Err(format!(
            "signal lines {:?} (fio {:?})",
            banners(&got),
            banners(&want)
        ));
    }
    let (want_doc, got_doc) = (report(&want)?, report(&got)?);
    let (want_jobs, got_jobs) = (jobs(&want_doc), jobs(&got_doc));
    let names = |j: &[(String, u64, u64)]| j.iter().map(|j| j.0.clone()).collect::<Vec<_>>();
    if names(&got_jobs) != names(&want_jobs) {
        return Err(format!("jobs {got_jobs:?} (fio {want_jobs:?})"));
    }
    if case.counts && got_jobs != want_jobs {
        return Err(format!("I/O counts {got_jobs:?} (fio {want_jobs:?})"));
    }
    Ok((want.latency, got.latency))
}

#[test]
fn every_wait_ends_on_a_stop_with_fios_report() {
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = CASES.iter().map(|c| s.spawn(|| check(c))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failed = Vec::new();
    for (case, result) in CASES.iter().zip(results) {
        match result {
            Ok((fio_took, ferrio_took)) => eprintln!(
                "{:<24} fio {:>6} ms  ferrio {:>6} ms",
                case.name,
                fio_took.as_millis(),
                ferrio_took.as_millis()
            ),
            Err(e) => failed.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The run's own stop wakes a wait too: a job ending with `exitall` ends
/// its group, the one thinking for 30 s included, as fio's does (fio's
/// sleeps watch the terminate flag that exitall sets).
#[test]
fn exitall_wakes_a_job_that_thinks() {
    let job = "[a]\nioengine=null\nrw=read\nsize=64k\nruntime=2\ntime_based\nexitall\n\
               [b]\nioengine=null\nrw=read\nsize=64k\nthinktime=30s\n";
    let timed = |run: common::Run| {
        let began = Instant::now();
        let out = run.arg("--output-format=json").job(job).limit(LIMIT).out();
        (began.elapsed(), out)
    };
    let ((fio_took, want), (took, got)) = std::thread::scope(|s| {
        let want = s.spawn(|| timed(common::Run::fio()));
        let got = timed(common::Run::ferrio());
        (want.join().unwrap(), got)
    });
    assert_eq!(got.code, want.code, "{}", got.stderr);
    // a runs 2 s; b's 30 s sleep must end with it.
    assert!(
        took < Duration::from_secs(12),
        "ferrio took {took:?} (fio {fio_took:?})"
    );
    let b = |out: &common::Outcome| jobs(&common::json(out))[1].clone();
    assert_eq!(b(&got), b(&want));
}
