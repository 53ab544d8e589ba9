//! fio 3.33's nbd engine and ferrio's, side by side against exports that
//! nbdkit serves here (its memory plugin, on a Unix socket in a scratch
//! folder or on a free TCP port of 127.0.0.1), each tool against an
//! export of its own. Both learn the export's size as the job is set up,
//! connect again for the job's I/O (saying so on stdout), hold the depth
//! and send reads, writes, trims and flushes; fdatasync is refused; a
//! server that dies ends the job at once; one that stops answering hangs
//! fio for good, where ferrio ends the job after the runtime and a grace.

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::need::require;
use common::report_rules::{self, fixed};
use common::{Outcome, Run, Scratch, json};
use serde_json::Value;

/// One nbdkit serving a memory export, ended with the test (and with the
/// test process: --exit-with-parent).
struct Nbdkit {
    child: Child,
    uri: String,
    _dir: Scratch,
}

impl Nbdkit {
    /// Serves `size` bytes on a Unix socket, with nbdkit's `filters`.
    fn unix(size: &str, filters: &[&str]) -> Option<Nbdkit> {
        let dir = Scratch::new("nbdkit");
        let socket = dir.0.join("nbd.sock");
        let args = ["-U", socket.to_str().unwrap()];
        let child = Self::spawn(&args, size, filters)?;
        let deadline = Instant::now() + Duration::from_secs(10);
        // A probe's connection would count as a client's, which ends an
        // exitlast server as it leaves: that one is waited for by its
        // socket's name, then a moment for its listen(2).
        let listening = || match filters.is_empty() {
            true => std::os::unix::net::UnixStream::connect(&socket).is_ok(),
            false => socket.exists(),
        };
        while !listening() {
            assert!(
                Instant::now() < deadline,
                "nbdkit never listened on {socket:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        if !filters.is_empty() {
            std::thread::sleep(Duration::from_millis(100));
        }
        let uri = format!("nbd+unix:///?socket={}", socket.display());
        Some(Nbdkit {
            child,
            uri,
            _dir: dir,
        })
    }

    /// Serves `size` bytes on a free TCP port of 127.0.0.1.
    fn tcp(size: &str) -> Option<Nbdkit> {
        let port = common::free_port(false).to_string();
        let child = Self::spawn(&["-i", "127.0.0.1", "-p", &port], size, &[])?;
        let at = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(&at).is_err() {
            assert!(Instant::now() < deadline, "nbdkit never listened on {at}");
            std::thread::sleep(Duration::from_millis(10));
        }
        Some(Nbdkit {
            child,
            uri: format!("nbd://{at}/"),
            _dir: Scratch::new("nbdkit-tcp"),
        })
    }

    fn spawn(listen: &[&str], size: &str, filters: &[&str]) -> Option<Child> {
        let found = Command::new("nbdkit").arg("--version").output().is_ok();
        if !require("nbdkit", found) {
            return None;
        }
        let mut cmd = Command::new("nbdkit");
        cmd.args(["-f", "--exit-with-parent"]).args(listen);
        for f in filters {
            cmd.arg(format!("--filter={f}"));
        }
        cmd.args(["memory", size])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        Some(cmd.spawn().expect("nbdkit starts"))
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) with our child's pid and a signal number.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }
}

impl Drop for Nbdkit {
    fn drop(&mut self) {
        // A stopped server must go on to die.
        self.signal(libc::SIGCONT);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `job` with URI in place of the export's address.
fn with_uri(job: &str, server: &Nbdkit) -> String {
    job.replace("URI", &server.uri)
}

/// Each job's (name, error, reads, writes, trims).
fn counts(report: &Value) -> Vec<(String, u64, [u64; 3])> {
    report["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str| j[d]["total_ios"].as_u64().unwrap_or(0);
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["error"].as_u64().unwrap(),
                [n("read"), n("write"), n("trim")],
            )
        })
        .collect()
}

/// Both tools on `job`, each against a fresh 16 MiB export of its own,
/// the export's URI in their output put back to `URI`.
fn both(job: &str, args: &[&str]) -> [Outcome; 2] {
    [Run::fio(), Run::ferrio()].map(|tool| {
        let server = Nbdkit::unix("16M", &[]).expect("nbdkit");
        let mut out = tool.args(args).job(&with_uri(job, &server)).out();
        out.stdout = out.stdout.replace(&server.uri, "URI");
        out
    })
}

/// A run of `job` against `server` under way, in a scratch folder.
fn started(tool: Run, job: &str, server: &Nbdkit) -> (Scratch, common::Running) {
    let dir = Scratch::new("nbd-run");
    let run = tool.job(&with_uri(job, server)).in_dir(&dir.0).spawn();
    (dir, run)
}

const JOBS: &str = "[global]\nioengine=nbd\nuri=URI\nbs=4k\n\
    [qd16]\nrw=randwrite\niodepth=16\nsize=8m\n\
    [whole]\nstonewall\nrw=randread\niodepth=4\n\
    [past-end]\nstonewall\nrw=write\niodepth=4\nsize=20m\n\
    [trim]\nstonewall\nrw=randtrim\niodepth=8\nsize=4m\n\
    [two]\nstonewall\nrw=randread\niodepth=2\nsize=4m\nnumjobs=2\n\
    [verify]\nstonewall\nrw=randwrite\niodepth=8\nsize=4m\nverify=crc32c\n";

/// Every figure a script reads, as fio has it: the counts (the export's
/// 16 MiB bound a job without a size and one sized past the end), each
/// tool's document passing fio's report rules (proven on fio's own
/// first), the same fixed values (structure, options, counts), and the
/// "connected" line once per job, before the report.
#[test]
fn nbd_jobs_report_as_fios() {
    common::fio();
    if Nbdkit::unix("1M", &[]).is_none() {
        return;
    }
    let [want, got] = both(JOBS, &["--output-format=json+,terse,normal"]);
    assert_eq!(
        (want.code, got.code),
        (0, 0),
        "{}\n{}",
        want.stderr,
        got.stderr
    );
    assert_eq!((want.stderr.as_str(), got.stderr.as_str()), ("", ""));
    let (want, got) = (
        report_rules::split(&want.stdout).unwrap_or_else(|e| panic!("fio: {e}")),
        report_rules::split(&got.stdout).unwrap_or_else(|e| panic!("ferrio: {e}")),
    );
    let fio_verdict = report_rules::check(&want, |_| false);
    assert!(
        fio_verdict.problems.is_empty(),
        "the rules fail on fio's: {:?}",
        fio_verdict.problems
    );
    let verdict = report_rules::check(&got, |_| false);
    assert!(
        verdict.problems.is_empty(),
        "ferrio: {:?}",
        verdict.problems
    );
    assert!(verdict.normal_numbers > 0 && verdict.terse_numbers > 0);
    let fixed_of = |p: &report_rules::Parts| {
        let mut out = p.headers.clone();
        out.extend(fixed::fixed_json_values(&p.json, true, false));
        out
    };
    let differ = fixed::differences(&fixed_of(&want), &fixed_of(&got));
    assert!(differ.is_empty(), "{differ:?}");
    let jobs = |name: &str, error: u64, ios: [u64; 3]| (name.to_string(), error, ios);
    assert_eq!(
        counts(&got.json),
        vec![
            jobs("qd16", 0, [0, 2048, 0]),
            jobs("whole", 0, [4096, 0, 0]),
            jobs("past-end", 0, [0, 4096, 0]),
            jobs("trim", 0, [0, 0, 1024]),
            jobs("two", 0, [1024, 0, 0]),
            jobs("two", 0, [1024, 0, 0]),
            jobs("verify", 0, [1024, 1024, 0]),
        ]
    );
    assert_eq!(counts(&got.json), counts(&want.json));
    for parts in [&want, &got] {
        let connected = parts
            .headers
            .iter()
            .filter(|l| *l == "fio: connected to NBD server");
        assert_eq!(connected.count(), 7, "{:?}", parts.headers);
    }
    // The depth is held: at 16 for nearly every write, as in fio.
    for report in [&want.json, &got.json] {
        let level = report["jobs"][0]["iodepth_level"]["16"].as_f64().unwrap();
        assert!(level > 90.0, "{}", report["jobs"][0]["iodepth_level"]);
    }
}

/// TCP on loopback (`nbd://127.0.0.1:PORT/`): the same I/O as fio's.
#[test]
fn nbd_over_tcp_on_loopback() {
    common::fio();
    let job = "[m]\nioengine=nbd\nuri=URI\nrw=randrw\nbs=4k\niodepth=8\nsize=4m\nrandseed=7\n";
    let reports = [Run::fio(), Run::ferrio()].map(|tool| {
        let server = Nbdkit::tcp("8M")?;
        assert!(server.uri.starts_with("nbd://127.0.0.1:"), "{}", server.uri);
        let out = tool
            .arg("--output-format=json")
            .job(&with_uri(job, &server))
            .out();
        assert_eq!(out.code, 0, "{}", out.stderr);
        Some(json(&out))
    });
    let [Some(want), Some(got)] = reports else {
        return;
    };
    assert_eq!(counts(&got), counts(&want));
    let [r, w, _] = counts(&got)[0].2;
    assert_eq!(r + w, 1024);
}

/// Periodic flushes go through the queue in both; fdatasync, which NBD
/// has no command for, fails the job in the queueing as fio's does, and
/// fio's figures of that end come out the same: the four writes in
/// flight are counted, the refused sync sits in the depth table and in
/// the short reads' column.
#[test]
fn flushes_and_a_refused_fdatasync() {
    common::fio();
    if Nbdkit::unix("1M", &[]).is_none() {
        return;
    }
    let job = "[global]\nioengine=nbd\nuri=URI\nbs=4k\niodepth=8\n\
        [f]\nrw=write\nsize=2m\nfsync=4\n";
    let [want, got] = both(job, &["--output-format=json"]);
    let (want, got) = (json(&want), json(&got));
    assert_eq!(counts(&got), counts(&want));
    for report in [&want, &got] {
        let syncs = report["jobs"][0]["sync"]["total_ios"].as_u64().unwrap();
        assert!((128..=512).contains(&syncs), "{syncs}");
    }
    let job = "[global]\nioengine=nbd\nuri=URI\nbs=4k\niodepth=8\n\
        [d]\nrw=write\nsize=1m\nfdatasync=4\n";
    let [want, got] = both(job, &[]);
    assert_eq!((want.code, got.code), (1, 1));
    let lines = |o: &Outcome| -> Vec<String> {
        o.stdout
            .lines()
            .map(|l| l.split(": pid=").next().unwrap().to_string())
            .filter(|l| {
                [
                    "fio: pid",
                    "d: (groupid",
                    "  IO depths",
                    "     submit",
                    "     complete",
                    "     issued",
                    "  WRITE:",
                ]
                .iter()
                .any(|p| l.starts_with(p))
            })
            .collect()
    };
    let pid_free = |o: &Outcome| -> Vec<String> {
        o.stdout
            .lines()
            .filter(|l| l.starts_with("fio: pid="))
            .map(|l| l.split_once(", ").unwrap().1.to_string())
            .collect()
    };
    assert_eq!(pid_free(&got), pid_free(&want));
    assert_eq!(
        pid_free(&want),
        ["err=22/file:ioengines.c:399, func=td_io_queue, error=Invalid argument"]
    );
    let without_rates = |o: &Outcome| -> Vec<String> {
        lines(o)
            .into_iter()
            .map(|l| match l.split_once("io=") {
                Some((_, rest)) => rest.split(", run=").next().unwrap().to_string(),
                None => l,
            })
            .collect()
    };
    assert_eq!(without_rates(&got), without_rates(&want));
    assert!(
        without_rates(&want)
            .iter()
            .any(|l| l.contains("total=0,4,0,0 short=1,0,0,0")),
        "{:?}",
        without_rates(&want)
    );
}

/// No URI, a socket nobody serves, and a server that is gone by the
/// time the job connects for its I/O (the exitlast filter ends nbdkit
/// when the setup's probe disconnects): fio's messages, status 1, and
/// its error codes (none for a setup failure, 1 for the engine's init).
#[test]
fn failures_before_any_io_as_fios() {
    common::fio();
    let Some(gone) = Nbdkit::unix("1M", &[]) else {
        return;
    };
    let nobody = gone.uri.clone();
    drop(gone);
    let job = "[w]\nioengine=nbd\nrw=randwrite\nbs=4k\nsize=1m\n";
    let runs =
        [Run::fio(), Run::ferrio()].map(|tool| tool.arg("--output-format=json").job(job).out());
    for out in &runs {
        assert_eq!(out.code, 1);
        assert_eq!(out.stderr, "fio: nbd: uri parameter was not specified\n");
        assert_eq!(counts(&json(out)), [("w".to_string(), 0, [0, 0, 0])]);
    }
    let job = format!("[w]\nioengine=nbd\nrw=randwrite\nbs=4k\nsize=1m\nuri={nobody}\n");
    let runs = [Run::fio(), Run::ferrio()].map(|tool| tool.job(&job).out());
    for out in &runs {
        assert_eq!(out.code, 1);
        assert_eq!(
            common::fio_part(&out.stderr),
            "fio: nbd_connect_uri: nbd_connect_uri: connect: No such file or directory\n"
        );
        assert!(!out.stdout.contains("w: (groupid"), "{}", out.stdout);
    }
    assert!(
        runs[1]
            .stderr
            .contains(&format!("ferrio: nbd export {nobody}: ")),
        "{}",
        runs[1].stderr
    );
    let outs = [Run::fio(), Run::ferrio()].map(|tool| {
        let server = Nbdkit::unix("1M", &["exitlast"]).expect("nbdkit");
        let job = "[w]\nioengine=nbd\nrw=randwrite\nbs=4k\nsize=1m\nuri=URI\n";
        tool.arg("--output-format=json")
            .job(&with_uri(job, &server))
            .out()
    });
    // Refused, or gone with its socket, by the time the job connects.
    let lost = ["Connection refused", "No such file or directory"];
    for out in &outs {
        assert_eq!(out.code, 1);
        let said = common::fio_part(&out.stderr);
        let ends = |why: &str| {
            said.ends_with(&format!(
                "nbd_connect_uri: connect: {why}\nfio: io engine nbd init failed.\n"
            ))
        };
        assert!(lost.iter().any(|why| ends(why)), "{said}");
        assert!(!out.stdout.contains("connected"), "{}", out.stdout);
        assert_eq!(counts(&json(out)), [("w".to_string(), 1, [0, 0, 0])]);
    }
}

/// A server killed mid-run: both end at once, in one of the ways fio
/// does, by where libnbd first sees the loss: in a poll (getevents fails,
/// error -1 at ioengines.c:320, libnbd's message for each poll on
/// stderr; the first says what the socket said, or already that the
/// connection is dead, when a send saw it first), in the replies (the
/// commands out fail with ENOTCONN), or as a command is queued.
#[test]
fn a_killed_server_ends_the_job_at_once() {
    common::fio();
    if Nbdkit::unix("1M", &[]).is_none() {
        return;
    }
    let job =
        "[w]\nioengine=nbd\nuri=URI\nrw=randwrite\nbs=4k\niodepth=16\ntime_based=1\nruntime=20\n";
    let poll = "fio: nbd_poll: nbd_poll: ";
    let dead = "fio: nbd_poll: nbd_poll: nothing to poll for in state DEAD: Invalid argument";
    let replied = "fio: io_u error on file nbd: Transport endpoint is not connected: write offset=";
    for tool in [Run::fio(), Run::ferrio()] {
        let server = Nbdkit::unix("64M", &[]).expect("nbdkit");
        let (_dir, run) = started(tool, job, &server);
        // Killed once the job's I/O is under way.
        std::thread::sleep(Duration::from_secs(1));
        let killed = Instant::now();
        server.signal(libc::SIGKILL);
        let out = run.wait();
        let took = killed.elapsed();
        assert!(took < Duration::from_secs(5), "{took:?}");
        assert_eq!(out.code, 1);
        let said = common::fio_part(&out.stderr);
        let lines: Vec<&str> = said.lines().collect();
        let error = match lines[..] {
            [first, last] if first.starts_with(poll) && last == dead => {
                "err=-1/file:ioengines.c:320, func=get_events, error=Unknown error -1"
            }
            [] => "file:ioengines.c:399, func=td_io_queue",
            _ => {
                assert!(lines.iter().all(|l| l.starts_with(replied)), "{said}");
                "err=107/func=io_u error, error=Transport endpoint is not connected"
            }
        };
        assert!(out.stdout.contains(error), "{}", out.stdout);
    }
}

/// A server that stops answering (SIGSTOP): fio 3.33 waits for its
/// replies for good; ferrio ends the job once the runtime and a 10 s
/// grace are over, naming the export and how many commands got no
/// reply, and a stop signal ends that wait at once.
#[test]
fn a_server_that_stops_answering_ends_the_job_in_ferrio() {
    common::fio();
    if Nbdkit::unix("1M", &[]).is_none() {
        return;
    }
    let job =
        "[w]\nioengine=nbd\nuri=URI\nrw=randwrite\nbs=4k\niodepth=16\ntime_based=1\nruntime=1\n";
    let server = Nbdkit::unix("64M", &[]).expect("nbdkit");
    let (_fio_dir, fio) = started(Run::fio().limit(Duration::from_secs(60)), job, &server);
    let pid = fio.program_pid();
    std::thread::sleep(Duration::from_millis(500));
    server.signal(libc::SIGSTOP);
    // Past its runtime and ferrio's grace, fio is still waiting.
    std::thread::sleep(Duration::from_secs(13));
    assert!(
        std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "fio ended"
    );
    drop(server);
    drop(fio.wait());

    let server = Nbdkit::unix("64M", &[]).expect("nbdkit");
    let start = Instant::now();
    let (_dir, run) = started(Run::ferrio(), job, &server);
    std::thread::sleep(Duration::from_millis(500));
    server.signal(libc::SIGSTOP);
    let out = run.wait();
    let took = start.elapsed();
    assert!(
        (Duration::from_secs(10)..Duration::from_secs(16)).contains(&took),
        "{took:?}"
    );
    assert_eq!(out.code, 1);
    let named = format!("commands to nbd export {} got no reply", server.uri);
    assert!(out.stderr.contains(&named), "{}", out.stderr);
    assert!(
        out.stdout.contains("err=110/func=get_events"),
        "{}",
        out.stdout
    );

    // A stop signal ends the wait within a fraction of a second.
    let job = job.replace("runtime=1", "runtime=30");
    let server = Nbdkit::unix("64M", &[]).expect("nbdkit");
    let (_dir, run) = started(Run::ferrio(), &job, &server);
    std::thread::sleep(Duration::from_millis(500));
    server.signal(libc::SIGSTOP);
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    run.signal_when_caught(libc::SIGINT);
    let out = run.wait();
    let took = signalled.elapsed();
    assert!(took < Duration::from_millis(1000), "{took:?}");
    assert!(out.stdout.contains("w: (groupid=0"), "{}", out.stdout);
}
