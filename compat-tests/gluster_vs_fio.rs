//! fio 3.33's gfapi and gfapi_async engines and ferrio's, side by side on
//! a real one-brick GlusterFS volume that `scripts/gluster-local` starts
//! (about 2 s) and stops when the test ends, even when a check fails.
//!
//! One test function owns the volume and runs its checks in order. Every
//! run of either tool spends about 10 s in libgfapi's unmount
//! (glfs_fini), so the checks put several jobs in one file where they
//! can. Each tool's jobs are named after it, so that what one tool left
//! in the volume never feeds the other's run; the brick's folder shows
//! what each wrote.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::report_rules::{self, fixed};
use common::{Outcome, Run, json};
use serde_json::Value;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gluster-local")
}

fn bounded(seconds: u32, args: &[&str]) -> Output {
    Command::new("timeout")
        .args(["-k", "5", &seconds.to_string()])
        .arg(script())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("timeout runs")
}

/// A started volume, stopped on drop.
struct Volume {
    dir: PathBuf,
}

impl Volume {
    fn start() -> Volume {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gluster-local");
        // Daemons left by a run that was killed before it could stop them.
        bounded(60, &["stop", dir.to_str().unwrap()]);
        let out = bounded(120, &["start", dir.to_str().unwrap()]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "scripts/gluster-local start failed:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("GLUSTER_VOLUME=gv0"), "{stdout}");
        assert!(stdout.contains("GLUSTER_BRICK=127.0.0.1"), "{stdout}");
        Volume { dir }
    }

    /// Kills the brick's process (glusterfsd) with SIGKILL.
    fn kill_brick(&self) {
        let pids = self.dir.join("run/vols/gv0");
        let mut killed = 0;
        for entry in std::fs::read_dir(&pids).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let pid: i32 = text.trim().parse().unwrap();
            // SAFETY: a plain kill(2) of the brick's recorded pid.
            assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
            killed += 1;
        }
        assert_eq!(killed, 1, "one brick pid file in {}", pids.display());
    }

    /// The gluster CLI on this volume's glusterd.
    fn cli(&self, args: &[&str]) -> String {
        let sock = self.dir.join("run/glusterd.socket");
        let out = Command::new("timeout")
            .args(["-k", "5", "60", "gluster", "--mode=script"])
            .arg(format!("--glusterd-sock={}", sock.display()))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("gluster runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "gluster {args:?}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    }

    /// A second one-brick volume beside gv0, its brick in the same folder.
    fn add_volume(&self, name: &str) {
        let brick = self.dir.join(format!("brick-{name}"));
        // A brick left by an earlier run holds its files and the old
        // volume's marks: it starts empty.
        let _ = std::fs::remove_dir_all(&brick);
        std::fs::create_dir_all(&brick).unwrap();
        self.cli(&[
            "volume",
            "create",
            name,
            &format!("127.1:{}", brick.display()),
            "force",
        ]);
        self.cli(&["volume", "start", name]);
        let started = std::time::Instant::now();
        while !self
            .cli(&["volume", "status", name, "detail"])
            .lines()
            .any(|l| l.starts_with("Online") && l.trim_end().ends_with('Y'))
        {
            assert!(
                started.elapsed().as_secs() < 60,
                "{name}'s brick never came up"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// The size of a file of the volume, read in the brick's folder.
    fn size(&self, name: &str) -> Option<u64> {
        std::fs::metadata(self.dir.join("brick1").join(name))
            .ok()
            .map(|m| m.len())
    }
}

impl Drop for Volume {
    fn drop(&mut self) {
        bounded(60, &["stop", self.dir.to_str().unwrap()]);
    }
}

const VOLUME: &str = "ioengine=gfapi\nvolume=gv0\nbrick=127.0.0.1\n";

/// Runs `program` on `job` in a fresh folder: what it printed, and the
/// folder (where no file of the job's may appear: its files are in the
/// volume).
fn run(program: Run, job: &str, json_out: bool) -> (Outcome, common::Scratch) {
    let run = if json_out {
        program.arg("--output-format=json")
    } else {
        program
    };
    let (dir, out) = run.job(job).out_kept("gluster");
    (out, dir)
}

/// Both tools on the job `template`, its `TOOL` replaced by the tool's
/// name: (fio's JSON, ferrio's JSON, fio's stderr, ferrio's stderr).
fn both(template: &str) -> (Value, Value, String, String) {
    let mut out = Vec::new();
    for (tool, program) in [("fio", Run::fio()), ("ferrio", Run::ferrio())] {
        let (o, dir) = run(program, &template.replace("TOOL", tool), true);
        assert_eq!(o.code, 0, "{tool}: {}\n{}", o.stderr, o.stdout);
        let left: Vec<_> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n != "job.fio")
            .collect();
        assert!(left.is_empty(), "{tool} wrote {left:?} outside the volume");
        out.push(o);
    }
    (
        json(&out[0]),
        json(&out[1]),
        out[0].stderr.clone(),
        out[1].stderr.clone(),
    )
}

/// (jobname without its tool, error, [ios, KiB] for reads and writes).
fn counts(report: &Value) -> Vec<(String, u64, [u64; 4])> {
    report["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let name = j["jobname"].as_str().unwrap();
            let name = name.split('-').next().unwrap().to_string();
            let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
            (
                name,
                j["error"].as_u64().unwrap(),
                [
                    n("read", "total_ios"),
                    n("read", "io_kbytes"),
                    n("write", "total_ios"),
                    n("write", "io_kbytes"),
                ],
            )
        })
        .collect()
}

#[test]
fn gfapi_engines_run_as_fios_on_a_local_volume() {
    common::fio();
    let volume = Volume::start();
    reads_writes_depths_layout_and_unlink(&volume);
    several_files_of_a_job(&volume);
    an_unreachable_server_or_volume_fails_the_setup_as_in_fio();
    the_gluster_job_files_report_as_fios(&volume);
    drop(volume);
    a_killed_brick_ends_the_job();
}

/// A synchronous random writer, an asynchronous random reader of a file
/// that does not exist yet (both tools write it out to the job's size
/// first), and a reader that removes its file (unlink=1).
fn reads_writes_depths_layout_and_unlink(volume: &Volume) {
    let job = format!(
        "[global]\n{VOLUME}bs=4k\nsize=8m\n\
         [w-TOOL]\nrw=randwrite\n\
         [r-TOOL]\nioengine=gfapi_async\niodepth=16\nrw=randread\n\
         [u-TOOL]\nrw=read\nsize=1m\nunlink=1\n"
    );
    let (want, got, want_err, got_err) = both(&job);
    assert_eq!(counts(&got), counts(&want));
    assert_eq!(
        counts(&got),
        vec![
            ("w".to_string(), 0, [0, 0, 2048, 8192]),
            ("r".to_string(), 0, [2048, 8192, 0, 0]),
            ("u".to_string(), 0, [256, 1024, 0, 0]),
        ]
    );
    // gfapi_async holds its depth: the same depth distribution as fio's.
    assert_eq!(
        got["jobs"][1]["iodepth_level"],
        want["jobs"][1]["iodepth_level"]
    );
    assert_eq!(got["jobs"][0]["iodepth_level"]["1"], 100.0);
    // fio's note on its async engine, on stderr in both.
    for stderr in [&want_err, &got_err] {
        assert_eq!(
            stderr.lines().collect::<Vec<_>>(),
            vec!["the async interface is still very experimental..."],
            "{stderr}"
        );
    }
    for tool in ["fio", "ferrio"] {
        assert_eq!(volume.size(&format!("w-{tool}.0.0")), Some(8 << 20));
        assert_eq!(volume.size(&format!("r-{tool}.0.0")), Some(8 << 20));
        assert_eq!(
            volume.size(&format!("u-{tool}.0.0")),
            None,
            "{tool} unlinked it"
        );
    }
}

/// nrfiles=2: the same counts, but fio 3.33's gfapi engines keep one
/// descriptor per job and send every file's I/O through the last one
/// opened (its second file gets 124 KiB of the 128, its first one 4);
/// ferrio writes each file's I/O to that file.
fn several_files_of_a_job(volume: &Volume) {
    let job = format!("[global]\n{VOLUME}bs=4k\n[n-TOOL]\nrw=write\nnrfiles=2\nfilesize=64k\n");
    let (want, got, _, _) = both(&job);
    assert_eq!(counts(&got), counts(&want));
    assert_eq!(counts(&got)[0].2, [0, 0, 32, 128]);
    let sizes = |tool: &str| [0, 1].map(|i| volume.size(&format!("n-{tool}.0.{i}")).unwrap_or(0));
    assert_eq!(sizes("fio"), [4096, 126_976]);
    assert_eq!(sizes("ferrio"), [65_536, 65_536]);
}

/// A server with no management daemon, and a volume the daemon does not
/// have: fio's engine init fails, the job with error -EIO and no
/// function (`err=-5/`, 4294967291 in the JSON), the run with status 1,
/// after `fio: io engine gfapi init failed.`; ferrio's line before it
/// names the call, the volume and the errno.
fn an_unreachable_server_or_volume_fails_the_setup_as_in_fio() {
    for (setting, errno_text) in [
        (
            "volume=gv0\nbrick=127.0.0.2",
            "Transport endpoint is not connected (errno 107)",
        ),
        (
            "volume=nope\nbrick=127.0.0.1",
            "No such file or directory (errno 2)",
        ),
    ] {
        let job = format!("[w]\nioengine=gfapi\n{setting}\nsize=1m\nrw=write\n");
        let mut runs = Vec::new();
        for program in [Run::fio(), Run::ferrio()] {
            let (o, _dir) = run(program.clone(), &job, true);
            let (text, _dir) = run(program, &job, false);
            runs.push((o, text));
        }
        let [(want, want_text), (got, got_text)] = <[_; 2]>::try_from(runs).unwrap();
        assert_eq!((want.code, got.code), (1, 1), "{}", got.stderr);
        for report in [json(&want), json(&got)] {
            assert_eq!(report["jobs"][0]["error"], 4_294_967_291_u64);
            assert_eq!(report["jobs"][0]["write"]["total_ios"], 0);
        }
        let error_line = |o: &Outcome| {
            let line = o.stdout.lines().find(|l| l.starts_with("fio: pid="));
            line.map(|l| l.split_once(", ").unwrap().1.to_string())
        };
        assert_eq!(error_line(&got_text), error_line(&want_text));
        assert_eq!(error_line(&got_text).as_deref(), Some("err=-5/"));
        let last = |o: &Outcome| o.stderr.lines().last().map(str::to_string);
        assert_eq!(last(&got_text), last(&want_text));
        assert_eq!(
            last(&got_text).as_deref(),
            Some("fio: io engine gfapi init failed.")
        );
        // fio's words first, then ferrio's line naming the call, the
        // volume and the errno.
        let fio_first = want_text.stderr.lines().next();
        assert_eq!(
            fio_first,
            Some("glfs_init failed. Is glusterd running on brick?")
        );
        assert_eq!(got_text.stderr.lines().next(), fio_first);
        let ours: Vec<&str> = got_text
            .stderr
            .lines()
            .filter(|l| l.starts_with("ferrio: "))
            .collect();
        assert_eq!(ours.len(), 1, "{}", got_text.stderr);
        assert!(
            ours[0].starts_with("ferrio: glfs_init (volume ") && ours[0].ends_with(errno_text),
            "{}",
            ours[0]
        );
        assert_eq!(
            common::fio_part(&got_text.stderr),
            common::fio_part(&want_text.stderr)
        );
    }
}

/// A brick killed (SIGKILL) while a 10 s time_based writer runs, on a
/// fresh volume per run, once the job's file in the brick holds 64 KiB.
/// Measured in both tools, then checked as measured: fio's gfapi and
/// ferrio's fail the job at once with ENOTCONN, named alike (`IO
/// failed.`, glusterfs_sync.c:76, func=xfer); fio's gfapi_async ignores
/// what its completions return, so its job goes on for its whole runtime
/// and ends with error 0, while ferrio's fails at once with the error.
fn a_killed_brick_ends_the_job() {
    const RUNTIME_MS: u64 = 10_000;
    for engine in ["gfapi", "gfapi_async\niodepth=16"] {
        let mut reports = Vec::new();
        for (tool, program) in [("fio", Run::fio()), ("ferrio", Run::ferrio())] {
            let volume = Volume::start();
            let job = format!(
                "[k-{tool}]\nioengine={engine}\nvolume=gv0\nbrick=127.0.0.1\nrw=randwrite\n\
                 bs=4k\nsize=16m\ntime_based\nruntime={RUNTIME_MS}ms\n"
            );
            let scratch = common::Scratch::new("gluster-kill");
            let running = program
                .arg("--output-format=json")
                .job(&job)
                .in_dir(&scratch.0)
                .spawn();
            let file = format!("k-{tool}.0.0");
            let started = std::time::Instant::now();
            while volume.size(&file).unwrap_or(0) < 64 << 10 {
                assert!(
                    started.elapsed() < std::time::Duration::from_secs(60),
                    "{tool}'s job wrote nothing in 60 s"
                );
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            volume.kill_brick();
            let out = running.wait();
            let report = json(&out);
            let j = &report["jobs"][0];
            reports.push((
                j["error"].as_u64().unwrap(),
                j["job_runtime"].as_u64().unwrap(),
                out.stderr.lines().any(|l| l == "IO failed."),
                out.code,
            ));
        }
        let (fio, ferrio) = (reports[0], reports[1]);
        assert_eq!(ferrio.0, 107, "{engine}: {reports:?}");
        assert!(ferrio.1 < RUNTIME_MS, "{engine}: {reports:?}");
        assert_eq!(ferrio.3, 1, "{engine}: {reports:?}");
        if engine == "gfapi" {
            assert_eq!((fio.0, fio.2, fio.3), (107, true, 1), "{reports:?}");
            assert!(ferrio.2, "{reports:?}");
        } else {
            assert_eq!((fio.0, fio.3), (0, 0), "{reports:?}");
            assert!(fio.1 >= RUNTIME_MS - 100, "{reports:?}");
        }
    }
}

/// A FUSE mount of a volume, unmounted on drop.
struct Mount(PathBuf);

impl Mount {
    fn new(volume: &Volume, name: &str) -> Mount {
        let at = volume.dir.join(format!("mnt-{name}"));
        std::fs::create_dir_all(&at).unwrap();
        let log = volume.dir.join(format!("log/mnt-{name}.log"));
        let out = Command::new("timeout")
            .args(["-k", "5", "60", "mount", "-t", "glusterfs", "-o"])
            .arg(format!("log-file={}", log.display()))
            .arg(format!("127.0.0.1:/{name}"))
            .arg(&at)
            .stdin(Stdio::null())
            .output()
            .expect("mount runs");
        assert!(
            out.status.success(),
            "mount of {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Mount(at)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Every job file of jobs/gluster/, run by fio on gv0 and its FUSE mount
/// and at the same time by ferrio on a second volume, gv1, and its mount
/// (each libgfapi unmount takes about 10 s, and a file has four; the two
/// volumes keep the tools' files apart). ferrio's output has gv1's names
/// put back to gv0's before the comparison. Each document must follow
/// fio's report rules (proven on fio's own document first), and both
/// must have the same fixed values: job structure, options, I/O counts.
fn the_gluster_job_files_report_as_fios(volume: &Volume) {
    volume.add_volume("gv1");
    let mounts = [Mount::new(volume, "gv0"), Mount::new(volume, "gv1")];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs/gluster");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 4, "{files:?}");
    let runs: Vec<(PathBuf, [Outcome; 2])> = common::parallel(&files, |file| {
        let tool = |program: Run, name: &str, mount: &Mount| {
            program
                .env("GLUSTER_VOLUME", name)
                .env("GLUSTER_BRICK", "127.0.0.1")
                .env("GLUSTER_MOUNT", mount.0.to_str().unwrap())
                .env("GLUSTER_SIZE", "8m")
                .args(["--output-format=json+,terse,normal", file.to_str().unwrap()])
                .limit(std::time::Duration::from_secs(600))
                .spawn()
        };
        let fio = tool(Run::fio(), "gv0", &mounts[0]);
        let ferrio = tool(Run::ferrio(), "gv1", &mounts[1]);
        (file.clone(), [fio.wait(), ferrio.wait()])
    });
    let (from, to) = (mounts[1].0.to_str().unwrap(), mounts[0].0.to_str().unwrap());
    for (file, [want, got]) in runs {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            (want.code, got.code),
            (0, 0),
            "{name}: {}\n{}",
            want.stderr,
            got.stderr
        );
        let got_text = got.stdout.replace(from, to).replace("\"gv1\"", "\"gv0\"");
        let want = report_rules::split(&want.stdout).unwrap_or_else(|e| panic!("{name}: fio: {e}"));
        let got = report_rules::split(&got_text).unwrap_or_else(|e| panic!("{name}: ferrio: {e}"));
        let fio_verdict = report_rules::check(&want, |_| false);
        assert!(
            fio_verdict.problems.is_empty(),
            "{name}: the rules fail on fio's: {:?}",
            fio_verdict.problems
        );
        let verdict = report_rules::check(&got, |l| l.trim_start().starts_with("ferrio "));
        assert!(
            verdict.problems.is_empty(),
            "{name}: ferrio: {:?}",
            verdict.problems
        );
        assert!(
            verdict.normal_numbers > 0 && verdict.terse_numbers > 0,
            "{name}"
        );
        let fixed_of = |p: &report_rules::Parts| {
            let mut out = p.headers.clone();
            out.extend(fixed::fixed_json_values(&p.json, true, false));
            out
        };
        let differ = fixed::differences(&fixed_of(&want), &fixed_of(&got));
        assert!(differ.is_empty(), "{name}: {differ:?}");
        let jobs = want.json["jobs"].as_array().unwrap().len();
        assert_eq!(jobs, if name == "files-1000.fio" { 4 } else { 8 }, "{name}");
    }
}
