//! Compressed logs (log_compression, log_store_compressed and
//! `--inflate-log`), sync_file_range and create_serialize=0, each beside
//! real fio 3.33 on the same job.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{Outcome, Run, Scratch, ferrio, fio};

/// A log's lines without their first two fields (time and latency or
/// rate, which differ from run to run): direction, size, offset and
/// priority, which the null engine's fixed seeds make the same.
fn steady_part(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.splitn(3, ", ").nth(2).unwrap_or("").to_string())
        .collect()
}

/// The files of a folder whose names end in `suffix`, with their bytes.
fn files(dir: &Path, suffix: &str) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// `tool --inflate-log=file` in `dir`.
fn inflate(tool: &str, dir: &Path, file: &str) -> Outcome {
    let arg = format!("--inflate-log={file}");
    Run::tool(tool).args([&arg]).in_dir(dir).out()
}

/// 16384 writes: more than the first batches of 1024, 2048, 4096 and
/// 8192 entries, so compressing jobs compress several batches.
const LOGGED: &str = "[j]\nioengine=null\nrw=randwrite\nbs=4k\nsize=64m\n\
                      write_lat_log=z\nwrite_bw_log=z\nwrite_iops_log=z\nlog_offset=1\n";

#[test]
fn log_compression_leaves_the_logs_text_as_fio_writes_it() {
    let job = format!("{LOGGED}log_compression=1024\nlog_compression_cpus=0\n");
    let (want, _) = Run::fio().job(&job).ok_kept("logz");
    let (got, _) = Run::ferrio().job(&job).ok_kept("logz");
    let (plain, _) = Run::ferrio().job(LOGGED).ok_kept("logz");
    let want = files(&want.0, ".log");
    let got = files(&got.0, ".log");
    let plain = files(&plain.0, ".log");
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        plain.keys().collect::<Vec<_>>()
    );
    for (name, text) in &want {
        let (want, got) = (
            String::from_utf8_lossy(text),
            String::from_utf8_lossy(&got[name]),
        );
        let plain = String::from_utf8_lossy(&plain[name]);
        assert_eq!(steady_part(&got), steady_part(&want), "{name}");
        assert_eq!(steady_part(&got), steady_part(&plain), "{name}");
    }
}

#[test]
fn stored_logs_are_read_by_fio_and_fios_by_ferrio() {
    for extra in ["", "log_compression=4096\n", "log_prio=1\nlog_offset=0\n"] {
        let job = format!("{LOGGED}log_store_compressed=1\n{extra}");
        let (want, _) = Run::fio().job(&job).ok_kept("logz");
        let (got, _) = Run::ferrio().job(&job).ok_kept("logz");
        let fio_files = files(&want.0, ".log.fz");
        let ferrio_files = files(&got.0, ".log.fz");
        assert_eq!(
            fio_files.keys().collect::<Vec<_>>(),
            ferrio_files.keys().collect::<Vec<_>>(),
            "{extra}"
        );
        for (name, bytes) in &fio_files {
            // An empty log (slat, with a synchronous engine) is one empty
            // stream in both, once the logs outgrew their first batch.
            assert_eq!(bytes.is_empty(), ferrio_files[name].is_empty(), "{name}");
            let fio_reads_fio = inflate(fio(), &want.0, name);
            let ferrio_reads_fio = inflate(ferrio(), &want.0, name);
            let fio_reads_ferrio = inflate(fio(), &got.0, name);
            assert_eq!(fio_reads_fio.code, 0, "{name}: {}", fio_reads_fio.stderr);
            assert_eq!(
                fio_reads_ferrio.code, 0,
                "{name}: {}",
                fio_reads_ferrio.stderr
            );
            assert_eq!(ferrio_reads_fio.code, 0, "{name}");
            assert_eq!(ferrio_reads_fio.stdout, fio_reads_fio.stdout, "{name}");
            assert_eq!(
                steady_part(&fio_reads_ferrio.stdout),
                steady_part(&fio_reads_fio.stdout),
                "{name} {extra}"
            );
            assert_eq!(fio_reads_fio.stdout.lines().count() % 16384, 0, "{name}");
        }
    }
}

#[test]
fn inflate_log_fails_as_fio_does() {
    let (fio_run, _) = Run::fio()
        .job(&format!("{LOGGED}log_store_compressed=1\n"))
        .ok_kept("logz");
    let dir = &fio_run.0;
    let good = std::fs::read(dir.join("z_bw.1.log.fz")).unwrap();
    std::fs::write(dir.join("cut.fz"), &good[..good.len() / 2]).unwrap();
    std::fs::write(dir.join("junk.fz"), b"no zlib stream here").unwrap();
    std::fs::write(dir.join("empty.fz"), b"").unwrap();
    let mut tail = good.clone();
    tail.extend_from_slice(b"trailing junk");
    std::fs::write(dir.join("tail.fz"), tail).unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    for file in [
        "cut.fz",
        "junk.fz",
        "empty.fz",
        "tail.fz",
        "folder",
        "missing.fz",
    ] {
        let want = inflate(fio(), dir, file);
        let got = inflate(ferrio(), dir, file);
        assert_eq!(got.code, want.code, "{file}");
        assert_eq!(got.stdout, want.stdout, "{file}");
        assert_eq!(got.stderr, want.stderr, "{file}");
    }
    // Only the first --inflate-log is read.
    let args = ["--inflate-log=junk.fz", "--inflate-log=z_bw.1.log.fz"];
    let want = Run::fio().args(args).in_dir(dir).out();
    let got = Run::ferrio().args(args).in_dir(dir).out();
    assert_eq!((got.code, &got.stdout), (want.code, &want.stdout));
}

#[test]
fn compressed_histogram_logs_stay_refused() {
    let job = "[j]\nioengine=null\nsize=1m\nwrite_hist_log=h\nlog_compression=1024\n";
    let s = Scratch::new("logz");
    s.write("job.fio", job);
    let out = Run::ferrio().args(["job.fio"]).in_dir(&s.0).out();
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("write_hist_log"), "{}", out.stderr);
}

/// Runs `job` under strace, keeping only the calls of `syscall`: the
/// calls (first argument, a descriptor or an address, left out) and the
/// JSON report.
fn traced(tool: &str, job: &str, syscall: &str) -> (Vec<String>, serde_json::Value) {
    let s = Scratch::new("logz");
    s.write("job.fio", job);
    let filter = format!("trace={syscall}");
    let call = format!("{syscall}(");
    let args = [
        "-f",
        "-e",
        &filter,
        "-o",
        "trace.txt",
        tool,
        "--output-format=json",
        "job.fio",
    ];
    let out = Run::tool("strace").args(args).in_dir(&s.0).out();
    assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
    let trace = std::fs::read_to_string(s.0.join("trace.txt")).unwrap();
    let calls = trace
        .lines()
        .filter_map(|l| l.split_once(&call))
        .map(|(_, args)| {
            args.split_once(", ")
                .map_or("", |(_, rest)| rest)
                .to_string()
        })
        .collect();
    (calls, common::json(&out))
}

/// What a periodic sync changes in fio's report: the sync latency
/// count, the fsync count, and the short read and write counts (where
/// fio counts fdatasync and sync_file_range calls).
fn sync_figures(report: &serde_json::Value) -> Vec<u64> {
    let job = &report["jobs"][0];
    [
        &job["sync"]["lat_ns"]["N"],
        &job["sync"]["total_ios"],
        &job["read"]["short_ios"],
        &job["write"]["short_ios"],
        &job["write"]["total_ios"],
    ]
    .iter()
    .map(|v| v.as_u64().unwrap_or(u64::MAX))
    .collect()
}

#[test]
fn sync_file_range_makes_fios_calls_over_fios_spans() {
    if !common::need::require("strace", common::need::program("strace")) {
        return;
    }
    for extra in [
        "filename=data\nsize=1m\nrw=write\nsync_file_range=write:8\n",
        "nrfiles=2\nsize=512k\nrw=randwrite\nsync_file_range=wait_before,write,wait_after:5\n",
        "filename=data\nsize=1m\nrw=randrw\nioengine=libaio\nsync_file_range=wait_after:3\n",
        "filename=data\nsize=256k\nrw=write\nioengine=splice\nsync_file_range=write:4\n",
        "filename=data\nsize=256k\nrw=randwrite\nioengine=mmap\nsync_file_range=write:6\n",
        "filename=data\nsize=256k\nrw=write\nioengine=posixaio\nsync_file_range=write:4\n",
        "filename=data\nsize=1m\nrw=write\nsync_file_range=write\nfsync=4\n",
        "filename=data\nsize=1m\nrw=write\nfdatasync=8\n",
    ] {
        let job = format!("[j]\nbs=4k\n{extra}");
        // fio's mmap engine msyncs for it, and posixaio fsyncs.
        let syscall = if extra.contains("mmap") {
            "msync"
        } else if extra.contains("posixaio") {
            "fsync"
        } else {
            "sync_file_range"
        };
        let (want_calls, want) = traced(fio(), &job, syscall);
        let (got_calls, got) = traced(ferrio(), &job, syscall);
        assert!(
            !want_calls.is_empty() || extra.contains("fdatasync"),
            "{extra}"
        );
        let first_difference = got_calls
            .iter()
            .zip(&want_calls)
            .position(|(g, w)| g != w)
            .map(|i| (&got_calls[i], &want_calls[i]));
        assert_eq!(first_difference, None, "{extra}: (ferrio, fio)");
        assert_eq!(got_calls.len(), want_calls.len(), "{extra}");
        assert_eq!(sync_figures(&got), sync_figures(&want), "{extra}");
    }
}

#[test]
fn sync_file_range_stays_refused_where_fio_does_not_call_it() {
    let job = "[j]\nioengine=io_uring\nfilename=data\nsize=64k\nrw=write\nsync_file_range=write\n";
    let s = Scratch::new("logz");
    s.write("job.fio", job);
    let out = Run::ferrio().args(["job.fio"]).in_dir(&s.0).out();
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("sync_file_range"), "{}", out.stderr);
}

/// Each file of a folder but the job file, with its size.
fn sizes(dir: &Path) -> BTreeMap<String, u64> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "job.fio")
        .map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            (name, e.metadata().unwrap().len())
        })
        .collect()
}

/// Each job's name with its read and write I/O counts.
fn totals(out: &Outcome) -> Vec<(String, u64, u64)> {
    let report = common::json(out);
    report["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str| j[d]["total_ios"].as_u64().unwrap_or(u64::MAX);
            (
                j["jobname"].as_str().unwrap_or("").to_string(),
                n("read"),
                n("write"),
            )
        })
        .collect()
}

#[test]
fn create_serialize_0_lays_out_fios_files_in_each_job() {
    let job = "[global]\nbs=4k\ncreate_serialize=0\n\
               [a]\nfilename=fa\nsize=2m\nrw=write\n\
               [b]\nnumjobs=2\nnrfiles=2\nsize=2m\nrw=randwrite\n\
               [c]\nfilename=fc\nsize=1m\nrw=read\n\
               [d]\nfilename=fd\nsize=1m\noffset=512k\nrw=randrw\n";
    let (want, want_out) = Run::fio()
        .args(["--output-format=json"])
        .job(job)
        .ok_kept("logz");
    let (got, got_out) = Run::ferrio()
        .args(["--output-format=json"])
        .job(job)
        .ok_kept("logz");
    assert_eq!(sizes(&got.0), sizes(&want.0));
    assert_eq!(totals(&got_out), totals(&want_out));
    // The normal report tells of each layout, as fio's does.
    let (_, want_out) = Run::fio().job(job).ok_kept("logz");
    let (_, got_out) = Run::ferrio().job(job).ok_kept("logz");
    let layouts = |o: &Outcome| {
        let mut l: Vec<String> = o
            .stdout
            .lines()
            .filter(|l| l.contains("Laying out"))
            .map(str::to_string)
            .collect();
        l.sort();
        l
    };
    assert_eq!(layouts(&got_out), layouts(&want_out));
}

#[test]
fn compressed_averaged_rate_logs_are_fed_per_io_as_fios() {
    // fio feeds a compressed bw or IOPS log from each I/O, averaged or
    // not, and samples the job's bw and IOPS statistics per I/O with it.
    let job = "[j]\nfilename=d\nsize=4m\nrw=randread\nruntime=1\ntime_based\n\
               write_bw_log=a\nwrite_iops_log=a\nlog_avg_msec=100\nlog_compression=1024\n";
    for tool in [fio(), ferrio()] {
        let (dir, out) = Run::tool(tool)
            .args(["--output-format=json"])
            .job(job)
            .ok_kept("logz");
        let read = &common::json(&out)["jobs"][0]["read"];
        let n = |k: &str| read[k].as_u64().unwrap_or(u64::MAX);
        assert_eq!(n("bw_samples"), n("total_ios"), "{tool}");
        assert_eq!(n("iops_samples"), n("total_ios"), "{tool}");
        assert_eq!((n("iops_min"), n("iops_max")), (1, 1), "{tool}");
        let iops = std::fs::read_to_string(dir.0.join("a_iops.1.log")).unwrap();
        // Averages of ones, a window (or a window's last millisecond)
        // at a time: several entries per 100 ms.
        assert!(
            iops.lines().all(|l| l.split(", ").nth(1) == Some("1")),
            "{tool}"
        );
        assert!(iops.lines().count() >= 10, "{tool}: {iops}");
    }
}

#[test]
fn log_compression_cpus_pins_the_compressing_thread() {
    // fio's own thread cannot be told apart by name; ferrio's is
    // `log-gz`, and only it is pinned to the CPUs given.
    let s = Scratch::new("logz");
    s.write(
        "job.fio",
        "[j]\nioengine=null\nrw=randread\nsize=1g\ntime_based\nruntime=2\nrate_iops=50000\n\
         write_iops_log=p\nlog_compression=1024\nlog_compression_cpus=0\n",
    );
    let mut child = std::process::Command::new(ferrio())
        .args(["--output=/dev/null", "job.fio"])
        .current_dir(&s.0)
        .spawn()
        .unwrap();
    let tasks = format!("/proc/{}/task", child.id());
    let mut pinned = None;
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let Ok(dir) = std::fs::read_dir(&tasks) else {
            break;
        };
        for task in dir.flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            if comm.trim() == "log-gz" {
                let status =
                    std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
                pinned = status
                    .lines()
                    .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                    .map(|v| v.trim().to_string());
            }
        }
        // The thread pins itself as it starts: look again until then.
        if pinned.as_deref() == Some("0") {
            break;
        }
    }
    let _ = child.wait();
    assert_eq!(pinned.as_deref(), Some("0"));
}

/// fio 3.33 once hung here with its job process orphaned (its main
/// process gone) and holding the run's output open: the suite waited on
/// it for good. A run whose leftover process holds its output now fails
/// after a grace instead, and the leftover is killed.
#[test]
fn a_process_left_holding_the_output_fails_the_run_instead_of_hanging() {
    let run = Run::tool("sh").args(["-c", "sleep 60 & exit 0"]);
    let started = std::time::Instant::now();
    let failed = std::panic::catch_unwind(|| run.out()).expect_err("the run should fail");
    let message = failed.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("still held its output"), "{message}");
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}
