//! The engines that need no special hardware (ftruncate, falloc, the file
//! operation engines, cpuio) and exit_what / exitall_on_error, run by
//! ferrio beside fio 3.33 on the same job files: what each changes on
//! disk, the I/Os it counts, and which jobs it stops.

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use common::{JSON, Outcome, Pair, Run, json};
use serde_json::Value;

impl Pair {
    /// (size, allocated 512-byte blocks) of a file in each folder, or
    /// `None` where it does not exist.
    fn file(&self, name: &str) -> [Option<(u64, u64)>; 2] {
        let of = |dir: &Path| {
            std::fs::metadata(dir.join(name))
                .ok()
                .map(|m| (m.len(), m.blocks()))
        };
        [of(&self.fio.0), of(&self.ferrio.0)]
    }
}

/// Per job: name, error, and per direction (I/Os, bytes, clat samples,
/// lat samples).
fn counts(doc: &Value) -> Vec<(String, i64, Vec<[u64; 4]>)> {
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let dirs = ["read", "write", "trim"]
                .iter()
                .map(|d| {
                    let x = &j[d];
                    [
                        n(&x["total_ios"]),
                        n(&x["io_bytes"]),
                        n(&x["clat_ns"]["N"]),
                        n(&x["lat_ns"]["N"]),
                    ]
                })
                .collect();
            let error = j["error"].as_i64().unwrap();
            (j["jobname"].as_str().unwrap().to_string(), error, dirs)
        })
        .collect()
}

/// The sum of a job's I/O latency distribution (latency_ns/us/ms).
fn latency_share(job: &Value) -> f64 {
    ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|k| job[k].as_object().unwrap().values())
        .map(|v| v.as_f64().unwrap())
        .sum()
}

#[test]
fn file_engines_time_one_operation_per_file() {
    let pair = Pair::new("fileops");
    let job = "[global]\nfilename=a:b:c\nfilesize=8k\nbs=4k\n\
               [create]\nioengine=filecreate\nloops=2\n\
               [stat]\nstonewall\nioengine=filestat\nstat_type=lstat\nrw=write\n\
               [statx]\nstonewall\nioengine=filestat\nstat_type=statx\n\
               [delete]\nstonewall\nioengine=filedelete\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    let (w, g) = (json(&want), json(&got));
    // Two passes over three files: 12 I/Os, 6 file creations timed.
    assert_eq!(counts(&w), counts(&g));
    assert_eq!(counts(&g)[0].2[0], [12, 49152, 6, 0]);
    // The I/Os themselves are no latency samples.
    for doc in [&w, &g] {
        for j in doc["jobs"].as_array().unwrap() {
            assert_eq!(latency_share(j), 0.0, "{j}");
        }
    }
    for name in ["a", "b", "c"] {
        assert_eq!(pair.file(name), [None, None], "{name} deleted by both");
    }
    // Deleting again fails at the first file, after the first pass.
    let job = "[global]\nfilename=a:b\nfilesize=8k\nbs=4k\n\
               [create]\nioengine=filecreate\n\
               [delete]\nstonewall\nioengine=filedelete\nloops=2\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(
        want.code, got.code,
        "fio: {}\nferrio: {}",
        want.stderr, got.stderr
    );
    let (w, g) = (json(&want), json(&got));
    assert_eq!(counts(&w), counts(&g));
    assert_eq!(counts(&g)[1].1, libc::ENOENT as i64);
    // filecreate leaves empty files behind.
    let job = "[create]\nioengine=filecreate\nfilename=e\nfilesize=4k\n";
    pair.run_job(job, JSON);
    assert_eq!(pair.file("e"), [Some((0, 0)), Some((0, 0))]);
}

#[test]
fn ftruncate_sets_lengths_and_falloc_allocates_and_punches() {
    let pair = Pair::new("alloc");
    let job = "[grow]\nioengine=ftruncate\nfilename=a:b:c\nfilesize=16k\nbs=4k\nrw=write\n\
               [fa]\nstonewall\nioengine=falloc\nfilename=fa\nrw=write\nbs=64k\nsize=1m\n\
               [keep]\nstonewall\nioengine=falloc\nfilename=fb\nrw=randwrite\nbs=32k\nsize=512k\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    assert_eq!(counts(&json(&want)), counts(&json(&got)));
    // Each file's last length is its last write's offset.
    for name in ["a", "b", "c", "fa", "fb"] {
        let [w, g] = pair.file(name);
        assert_eq!(w, g, "{name}: (size, blocks) fio vs ferrio");
    }
    assert_eq!(pair.file("a")[1], Some((12288, 0)));
    // Punching every block frees the whole file but keeps its size.
    let job = "[punch]\nioengine=falloc\nfilename=fa\nrw=randtrim\nbs=64k\nsize=1m\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    assert_eq!(counts(&json(&want)), counts(&json(&got)));
    let [w, g] = pair.file("fa");
    assert_eq!(w, g, "fa after punching");
    assert_eq!(g, Some((1 << 20, 0)));
    // ftruncate only writes: a read fails with EINVAL.
    let job = "[r]\nioengine=ftruncate\nfilename=x\nrw=read\nsize=16k\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(want.code, got.code);
    let (w, g) = (json(&want), json(&got));
    assert_eq!(counts(&w), counts(&g));
    assert_eq!(counts(&g)[0].1, libc::EINVAL as i64);
}

/// A job's CPU use in percent of its runtime.
fn cpu(job: &Value) -> f64 {
    job["usr_cpu"].as_f64().unwrap() + job["sys_cpu"].as_f64().unwrap()
}

/// The engine's start lines on stdout, before the JSON document.
fn banner(out: &Outcome) -> String {
    out.stdout[..out.stdout.find('{').unwrap_or(0)].to_string()
}

#[test]
fn cpuio_burns_the_cpu_share_it_is_given() {
    let pair = Pair::new("cpuio");
    // Run as threads in both (common::spread says why): beside
    // `stress-ng --cpu 2` fio's forked burn job gets 31 % of a CPU,
    // its threaded one 13.6-14.4 %, ferrio 13.1 %.
    let job = "[global]\nthread\n[burn]\nioengine=cpuio\ncpuload=40\ncpuchunks=20000\ntime_based\nruntime=1\n\
               [sort]\nstonewall\nioengine=cpuio\ncpuload=60\ncpumode=qsort\ntime_based\nruntime=1\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    assert_eq!(banner(&want), banner(&got));
    let (w, g) = (json(&want), json(&got));
    let (wj, gj) = (&w["jobs"][0], &g["jobs"][0]);
    // Busy 20 ms, then 30 ms of think: 20 busy periods a second, each
    // one I/O with no data and one latency sample. ferrio's count lies in
    // the range of fio's own runs (this one and two more of the burn job)
    // widened by their spread (common::spread), and by at least one I/O: the period the
    // runtime's end cuts counts or not. Measured: fio 20 in every run,
    // idle and beside stress-ng --cpu 2; ferrio 20 idle, 19-20 loaded.
    let ios = |j: &Value| j["read"]["total_ios"].as_u64().unwrap();
    let burn = job.split("[sort]").next().unwrap();
    let more: Vec<Value> = (0..2)
        .map(|_| json(&Run::fio().args(JSON).job(burn).ok())["jobs"][0].clone())
        .collect();
    let mut fio_ios: Vec<u64> = more.iter().map(ios).collect();
    fio_ios.push(ios(wj));
    common::spread::assert_within("burn I/Os", &fio_ios, 1, ios(gj));
    for j in [wj, gj] {
        let read = &j["read"];
        assert_eq!(read["io_bytes"], 0);
        assert_eq!(read["clat_ns"]["N"], read["total_ios"]);
        let mean = read["clat_ns"]["mean"].as_f64().unwrap();
        assert!(mean >= 20e6, "a busy period lasts its 20 ms: {mean}");
    }
    // The CPU share: a busy period is 20 ms of the wall clock, so a
    // job busy beside other work (the tests running alongside, a CPU
    // hog) burns less than its 40 %, fio's as much as ferrio's. So
    // ferrio's share must not pass the 40 % asked for (by more than the
    // accounting's slack), nor fall short of fio's lowest of its three
    // runs by more than 15 points. Seen: fio 21.6 % in one run of the
    // suite beside the other tests, where ferrio burnt 39.3 %.
    let fio_cpu: Vec<f64> = more.iter().chain([wj]).map(cpu).collect();
    let lowest = fio_cpu.iter().copied().fold(f64::MAX, f64::min);
    let b = cpu(gj);
    assert!(
        b <= 48.0 && b >= lowest - 15.0,
        "CPU: fio {fio_cpu:?}%, ferrio {b}%"
    );
    // qsort mode: whole sorts, as many as fit.
    for doc in [&w, &g] {
        let read = &doc["jobs"][1]["read"];
        assert!(read["total_ios"].as_u64().unwrap() >= 1, "{read}");
        assert_eq!(read["io_bytes"], 0);
    }
    // Without a load the engine fails its job with EINVAL.
    let (want, got) = pair.run_job("[c]\nioengine=cpuio\ntime_based\nruntime=1\n", JSON);
    assert_eq!(want.code, got.code);
    assert_eq!(counts(&json(&want)), counts(&json(&got)));
    assert_eq!(counts(&json(&got))[0].1, libc::EINVAL as i64);
}

/// Each job's (name, group, total I/Os) and whether it ran for under
/// `ms` milliseconds.
fn stops(doc: &Value, ms: u64) -> Vec<(String, u64, u64, bool)> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let ios: u64 = ["read", "write", "trim"]
                .iter()
                .map(|d| j[d]["total_ios"].as_u64().unwrap())
                .sum();
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
                ios,
                j["job_runtime"].as_u64().unwrap() < ms,
            )
        })
        .collect()
}

#[test]
fn exit_what_decides_which_jobs_an_ending_job_stops() {
    let pair = Pair::new("exitwhat");
    // exit_what=all: the next group never starts; =stonewall: it does.
    for (what, later) in [("all", 0), ("stonewall", 256), ("group", 256)] {
        let job = format!(
            "[a]\nioengine=null\nsize=1m\nexitall\nexit_what={what}\n\
             [b]\nstonewall\nioengine=null\nsize=1m\n"
        );
        let (want, got) = pair.run_job(&job, JSON);
        assert_eq!((want.code, got.code), (0, 0), "{what}");
        let (w, g) = (json(&want), json(&got));
        assert_eq!(stops(&w, 5000), stops(&g, 5000), "exit_what={what}");
        assert_eq!(stops(&g, 5000)[1].2, later, "exit_what={what}");
    }
    // exitall is for the whole run: a job without it ending stops the
    // long one that has it.
    let job = "[short]\nioengine=null\nsize=1m\n\
               [long]\nioengine=null\nsize=1m\ntime_based\nruntime=10\nexitall\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!((want.code, got.code), (0, 0));
    let (w, g) = (json(&want), json(&got));
    let (ws, gs) = (stops(&w, 5000), stops(&g, 5000));
    assert!(
        ws[1].3 && gs[1].3,
        "long stopped early: fio {ws:?}, ferrio {gs:?}"
    );
    // exitall_on_error: a failing job stops its group.
    let job = "[bad]\nioengine=ftruncate\nfilename=x\nrw=read\nsize=16k\nexitall_on_error\n\
               [long]\nioengine=null\nsize=1m\ntime_based\nruntime=10\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(want.code, got.code);
    let (w, g) = (json(&want), json(&got));
    let (ws, gs) = (stops(&w, 5000), stops(&g, 5000));
    assert!(
        ws[1].3 && gs[1].3,
        "long stopped early: fio {ws:?}, ferrio {gs:?}"
    );
    assert_eq!(counts(&w)[0].1, counts(&g)[0].1);
}

#[test]
fn cpuio_exit_on_io_done_ends_with_the_io_jobs() {
    let pair = Pair::new("iodone");
    let job = "[io]\nioengine=null\nsize=1g\ntime_based\nruntime=1\n\
               [burn]\nioengine=cpuio\ncpuload=10\ncpuchunks=10000\nexit_on_io_done=1\n\
               time_based\nruntime=10\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(
        (want.code, got.code),
        (0, 0),
        "{}\n{}",
        want.stderr,
        got.stderr
    );
    let (ws, gs) = (stops(&json(&want), 3000), stops(&json(&got), 3000));
    assert!(
        ws[1].3 && gs[1].3,
        "burn ended with io: fio {ws:?}, ferrio {gs:?}"
    );
}

#[test]
fn exec_runs_the_program_beside_the_job() {
    let pair = Pair::new("exec");
    let job =
        "[e]\nioengine=exec\nprogram=/bin/echo\narguments=hi %n %r\nruntime=1\ngrace_time=0\n";
    let (want, got) = pair.run_job(job, JSON);
    assert_eq!(
        (want.code, got.code),
        (0, 0),
        "{}\n{}",
        want.stderr,
        got.stderr
    );
    assert_eq!(banner(&want), banner(&got));
    // The program's output, with its arguments filled in.
    let read = |dir: &Path| std::fs::read_to_string(dir.join("e.stdout")).ok();
    assert_eq!(read(&pair.fio.0), read(&pair.ferrio.0));
    assert_eq!(read(&pair.ferrio.0).as_deref(), Some("hi e 1\n"));
    // One I/O starts it, then one every 100 ms until the runtime is over.
    let (w, g) = (json(&want), json(&got));
    let ios = |d: &Value| d["jobs"][0]["read"]["total_ios"].as_u64().unwrap() as i64;
    assert!(
        (ios(&w) - ios(&g)).abs() <= 2,
        "I/Os: fio {}, ferrio {}",
        ios(&w),
        ios(&g)
    );
    assert_eq!(g["jobs"][0]["read"]["io_bytes"], 0);
    // Without a program the job fails with EINVAL.
    let (want, got) = pair.run_job("[e]\nioengine=exec\nruntime=1\n", JSON);
    assert_eq!(want.code, got.code);
    assert_eq!(counts(&json(&want)), counts(&json(&got)));
}
