//! System-facing options beside fio 3.33 on the same job files in temp
//! dirs: stats=0's report slots, write_barrier, atomic, uncached,
//! cmd_type, ioscheduler and io_submit_mode=offload. Each test compares
//! what the option changes (report layout, I/O counts, syscalls, error
//! text and exit status) between the two tools.

mod common;

use common::{Outcome, Pair, Run, Scratch, ferrio, fio, json};
use serde_json::Value;

impl Pair {
    /// A file as each tool left it (None if absent).
    fn read(&self, name: &str) -> [Option<String>; 2] {
        [&self.fio, &self.ferrio].map(|s| std::fs::read_to_string(s.0.join(name)).ok())
    }
}

// ---------------------------------------------------------------- stats

/// Job files mixing stats=0 with reported jobs, grouped and not.
const STATS_JOBS: [&str; 5] = [
    "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\nstats=0\n",
    "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\nstats=0\n[b]\nrw=write\n\
     [c]\nrw=randread\nstats=0\nnew_group\n",
    "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\ngroup_reporting\n",
    "[global]\nioengine=null\nsize=1m\ngroup_reporting\n[a]\nrw=read\nstats=0\n\
     [b]\nrw=write\n[c]\nrw=read\n[d]\nrw=read\nstats=0\nnew_group\n",
    "[global]\nioengine=null\nsize=1m\nnumjobs=2\n[a]\nrw=read\nstats=0\n\
     [b]\nrw=write\nstats=1\ndescription=kept\n",
];

/// The normal report's skeleton: job headers (name, group, members),
/// the directions each job shows, the group blocks and their directions.
fn normal_skeleton(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            if let Some((name, rest)) = l.split_once(": (groupid=") {
                let (group, rest) = rest.split_once(", jobs=")?;
                let members = rest.split(')').next()?;
                return Some(format!("job {name} {group} {members}"));
            }
            let t = l.trim_start();
            let dir = ["read:", "write:", "READ:", "WRITE:", "Run status group"]
                .iter()
                .find(|d| t.starts_with(*d))?;
            Some(if dir.starts_with("Run") {
                t.to_string()
            } else {
                dir.to_string()
            })
        })
        .collect()
}

/// A terse line's identity (version, fio version, name, group, error)
/// and its I/O counts; an unfilled slot's line whole.
fn terse_skeleton(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(';').collect();
            if f.get(3) == Some(&"-1") {
                return l.to_string();
            }
            // Read and write KiB are fields 5 and 46 of version 3.
            format!("{} io={}/{}", f[..5].join(";"), f[5], f[46])
        })
        .collect()
}

/// Each JSON job without what differs from run to run: the whole record
/// for an unfilled slot; name, group, error, option keys and I/O counts
/// for the others.
fn json_skeleton(doc: &Value) -> Vec<Value> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let mut j = j.clone();
            let o = j.as_object_mut().unwrap();
            for volatile in ["eta", "elapsed", "ferrio"] {
                o.shift_remove(volatile);
            }
            if o["groupid"] == 4294967295u64 {
                return j;
            }
            let keys: Vec<&String> = o.keys().collect();
            serde_json::json!({
                "keys": keys,
                "jobname": o.get("jobname"),
                "groupid": o["groupid"],
                "error": o["error"],
                "job options": o.get("job options"),
                "ios": [o["read"]["total_ios"], o["write"]["total_ios"], o["trim"]["total_ios"]],
            })
        })
        .collect()
}

/// stats=0: fio still counts a report slot for each such job (outside
/// group_reporting) but fills it with nothing, so the slots left over
/// come last as unnamed, zeroed jobs of group -1 (4294967295 in JSON),
/// absent from the normal report; a group of stats=0 jobs alone still
/// gets its empty `Run status` block.
#[test]
fn stats_zero_report_slots_as_fio() {
    let pair = Pair::new("stats");
    for job in STATS_JOBS {
        let (want, got) = pair.run_alike(job, &["--output-format=normal"]);
        assert_eq!(
            normal_skeleton(&want.stdout),
            normal_skeleton(&got.stdout),
            "{job}\n{}\n{}",
            want.stdout,
            got.stdout
        );
        let (want, got) = pair.run_alike(job, &["--output-format=terse"]);
        assert_eq!(
            terse_skeleton(&want.stdout),
            terse_skeleton(&got.stdout),
            "{job}"
        );
        let (want, got) = pair.run_alike(job, &["--output-format=json"]);
        let (want, got) = (json(&want), json(&got));
        assert_eq!(want["global options"], got["global options"], "{job}");
        assert_eq!(json_skeleton(&want), json_skeleton(&got), "{job}");
    }
}

/// stats=0 logs nothing: fio creates each log file and leaves it empty.
#[test]
fn stats_zero_logs_stay_empty_as_fio() {
    let pair = Pair::new("stats-logs");
    let job = "[a]\nioengine=null\nsize=1m\nrw=read\nstats=0\nwrite_lat_log=x\n\
               write_bw_log=x\nwrite_iops_log=x\nwrite_hist_log=x\nlog_hist_msec=1\n\
               [b]\nioengine=null\nsize=1m\nrw=read\nstats=0\nwrite_bw_log=y\n\
               log_avg_msec=10\nrate=20m\n";
    pair.run_alike(job, &[]);
    for name in [
        "x_lat.1.log",
        "x_clat.1.log",
        "x_slat.1.log",
        "x_bw.1.log",
        "x_iops.1.log",
        "x_clat_hist.1.log",
        "y_bw.2.log",
    ] {
        let [want, got] = pair.read(name);
        assert_eq!(want, got, "{name}");
    }
}

// ---------------------------------------------------- syscalls, strace

/// Runs `job` (JSON output) under strace with both tools, tracing
/// `calls`; returns each tool's (JSON document, trace lines).
fn traced(pair: &Pair, job: &str, calls: &str) -> [(Value, Vec<String>); 2] {
    let mut out = Vec::new();
    for (dir, bin) in [(&pair.fio, fio()), (&pair.ferrio, ferrio())] {
        dir.write("job.fio", job);
        let _ = std::fs::remove_file(dir.0.join("trace"));
        let args = [
            "-f",
            "-qq",
            "-o",
            "trace",
            "-e",
            &format!("trace={calls}"),
            bin,
            "--output-format=json",
            "job.fio",
        ];
        let o = Run::tool("strace").args(args).in_dir(&dir.0).out();
        assert_eq!(o.code, 0, "{bin}: {job}\n{}", o.stderr);
        let trace = std::fs::read_to_string(dir.0.join("trace")).unwrap();
        let lines = trace.lines().map(str::to_string).collect();
        out.push((json(&o), lines));
    }
    let [a, b]: [_; 2] = out.try_into().unwrap();
    [a, b]
}

/// Issued I/Os per direction of the first job.
fn total_ios(doc: &Value) -> [u64; 3] {
    ["read", "write", "trim"].map(|d| doc["jobs"][0][d]["total_ios"].as_u64().unwrap())
}

/// How many traced calls of each name a trace holds (writes of less
/// than a block left out: the tools' output and fio's wake-up pipe).
fn call_counts(trace: &[String]) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for line in trace {
        // `pid name(args) = ret`
        let call = line.split_whitespace().nth(1).unwrap_or("");
        let Some((name, _)) = call.split_once('(') else {
            continue;
        };
        let ret: i64 = line
            .rsplit("= ")
            .next()
            .and_then(|r| r.trim().parse().ok())
            .unwrap_or(0);
        if name == "write" && ret < 512 {
            continue;
        }
        *counts.entry(name.to_string()).or_insert(0) += 1;
    }
    counts
}

// -------------------------------------------------------- write_barrier

/// write_barrier: fio 3.33 flags writes only on engines that declare
/// barriers (libpmem) and no engine reads the flag, so the I/O counts
/// and the data syscalls are those of the same job without it, in both
/// tools.
#[test]
fn write_barrier_changes_nothing_as_in_fio() {
    if !common::need::require("strace", common::need::program("strace")) {
        return;
    }
    let pair = Pair::new("barrier");
    for engine in ["psync", "libaio", "sync"] {
        let job = |n: u32| {
            format!(
                "[a]\nioengine={engine}\nfilename=data\nsize=256k\nbs=4k\nrw=randwrite\n\
                 iodepth=4\nfsync=8\nwrite_barrier={n}\n"
            )
        };
        // Laid out beforehand, so the traces hold the job's I/O alone.
        for dir in [&pair.fio, &pair.ferrio] {
            std::fs::write(dir.0.join("data"), vec![7u8; 256 << 10]).unwrap();
        }
        let calls = "pwrite64,write,lseek,fsync,fdatasync,io_submit,io_getevents";
        let [(fio0, fio0_t), (fer0, fer0_t)] = traced(&pair, &job(0), calls);
        let [(fio3, fio3_t), (fer3, fer3_t)] = traced(&pair, &job(3), calls);
        assert_eq!(total_ios(&fio0), total_ios(&fio3), "{engine}: fio");
        assert_eq!(total_ios(&fer0), total_ios(&fer3), "{engine}: ferrio");
        assert_eq!(total_ios(&fio3), total_ios(&fer3), "{engine}");
        let data = |t: &[String]| {
            let mut c = call_counts(t);
            c.retain(|k, _| ["pwrite64", "write", "fsync", "io_submit"].contains(&k.as_str()));
            c
        };
        assert_eq!(data(&fio0_t), data(&fio3_t), "{engine}: fio's syscalls");
        assert_eq!(data(&fer0_t), data(&fer3_t), "{engine}: ferrio's syscalls");
        assert_eq!(data(&fio3_t), data(&fer3_t), "{engine}: fio vs ferrio");
    }
}

// --------------------------------------------------------------- atomic

/// The flags of each open of `file` after the first that asks for
/// O_DIRECT or not: what the I/O phase opens with, split at `|`, without
/// O_CLOEXEC and O_CREAT (which differ in how each tool lays out).
fn io_open_flags(trace: &[String], file: &str) -> Vec<Vec<String>> {
    trace
        .iter()
        .filter(|l| l.contains(&format!("\"{file}\"")) && l.contains("openat("))
        .map(|l| {
            let flags = l.split(", ").nth(2).unwrap_or("");
            let flags = flags.split(')').next().unwrap_or(flags);
            let mut v: Vec<String> = flags
                .split('|')
                .filter(|f| !matches!(*f, "O_CLOEXEC" | "O_CREAT" | "O_LARGEFILE"))
                .map(str::to_string)
                .collect();
            v.sort();
            v
        })
        .filter(|v| v.iter().any(|f| f == "O_RDWR" || f == "O_DIRECT"))
        .collect()
}

/// atomic=1: fio 3.33 turns direct on and opens with O_DIRECT and its
/// O_ATOMIC bit (0x800000), which Linux ignores: a direct run with the
/// same I/O and no error, whatever `buffered` says.
#[test]
fn atomic_opens_direct_with_fios_bit() {
    if !common::need::require("strace", common::need::program("strace")) {
        return;
    }
    let pair = Pair::new("atomic");
    for (engine, extra) in [
        ("psync", ""),
        ("libaio", "iodepth=4\n"),
        ("psync", "buffered=1\n"),
        ("io_uring", "iodepth=2\n"),
    ] {
        let job = format!(
            "[a]\nioengine={engine}\nfilename=data\nsize=128k\nbs=4k\nrw=write\natomic=1\n{extra}"
        );
        let [(want, want_t), (got, got_t)] = traced(&pair, &job, "openat");
        assert_eq!(total_ios(&want), total_ios(&got), "{job}");
        assert_eq!(want["jobs"][0]["error"], got["jobs"][0]["error"], "{job}");
        let (want_f, got_f) = (
            io_open_flags(&want_t, "data"),
            io_open_flags(&got_t, "data"),
        );
        assert!(
            want_f.last().unwrap().contains(&"0x800000".to_string()),
            "{want_f:?}"
        );
        assert_eq!(want_f.last(), got_f.last(), "{job}");
    }
}

// ------------------------------------------------------------- uncached

/// Lines about errors, without fio's source locations (which ferrio
/// cannot have) and pids.
fn error_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("err") && !l.starts_with("ferrio: "))
        .map(|l| {
            let mut l = l.to_string();
            if let Some(i) = l.find("file:") {
                let end = l[i..].find("func=").map_or(i, |e| i + e);
                l.replace_range(i..end, "");
            }
            if let Some(rest) = l.strip_prefix("fio: pid=") {
                l = format!("fio: pid{}", &rest[rest.find(',').unwrap_or(0)..]);
            } else if let Some(i) = l.find(" pid=") {
                l.truncate(i);
            }
            l
        })
        .collect()
}

/// uncached: fio sets its RWF_UNCACHED bit (0x40) on buffered reads and
/// writes of io_uring and pvsync2. This kernel knows 0x40 as RWF_ATOMIC
/// and refuses it on buffered I/O: the first I/O fails with EOPNOTSUPP,
/// every I/O in flight reports its error, and the job exits 1. With
/// direct=1 fio sends no such bit and the job runs.
#[test]
fn uncached_fails_or_runs_as_fio() {
    let pair = Pair::new("uncached");
    for (engine, depth) in [("pvsync2", 1), ("io_uring", 1), ("io_uring", 4)] {
        for rw in ["read", "randwrite"] {
            for direct in [0, 1] {
                let job = format!(
                    "[a]\nioengine={engine}\nfilename=data\nsize=64k\nbs=4k\nrw={rw}\n\
                     iodepth={depth}\nuncached=1\ndirect={direct}\n"
                );
                let (want, got) = pair.run_alike(&job, &[]);
                assert_eq!(error_lines(&want.stderr), error_lines(&got.stderr), "{job}");
                assert_eq!(error_lines(&want.stdout), error_lines(&got.stdout), "{job}");
                let issued = |o: &Outcome| {
                    o.stdout
                        .lines()
                        .find(|l| l.contains("issued rwts"))
                        .map(str::to_string)
                };
                assert_eq!(issued(&want), issued(&got), "{job}");
            }
        }
    }
}

// ------------------------------------------------------------- cmd_type

/// cmd_type: io_uring shares io_uring_cmd's option table, so fio takes
/// cmd_type=nvme for io_uring and ignores it (the same run as without);
/// a bad value fails parsing, named without its value as for any engine
/// option of a job file; a job of another engine does not know it.
#[test]
fn cmd_type_is_ignored_by_io_uring_as_in_fio() {
    let pair = Pair::new("cmd-type");
    let base = "[a]\nioengine=io_uring\nfilename=data\nsize=64k\nbs=4k\nrw=randread\niodepth=4\n";
    let (plain_fio, plain_ferrio) = pair.run_alike(base, &["--output-format=json"]);
    let (want, got) = pair.run_alike(&format!("{base}cmd_type=nvme\n"), &["--output-format=json"]);
    let ios = |o: &Outcome| total_ios(&json(o));
    assert_eq!(ios(&want), ios(&got));
    assert_eq!(ios(&want), ios(&plain_fio));
    assert_eq!(ios(&got), ios(&plain_ferrio));
    for job in [
        format!("{base}cmd_type=foo\n"),
        base.replace("io_uring", "psync") + "cmd_type=nvme\n",
    ] {
        let (want, got) = pair.run_alike(&job, &[]);
        assert_ne!(want.code, 0, "{job}");
        assert_eq!(want.stderr, common::fio_part(&got.stderr), "{job}");
    }
}

// ------------------------------------------------------------- offload

/// What offload shows in a JSON report: I/O counts, the depth, submit
/// and complete distributions, whether submission latency was measured,
/// and the depth on the `latency` line.
fn offload_figures(doc: &Value) -> Value {
    let j = &doc["jobs"][0];
    serde_json::json!({
        "ios": total_ios(doc),
        "level": j["iodepth_level"],
        "submit": j["iodepth_submit"],
        "complete": j["iodepth_complete"],
        "slat": j["read"]["slat_ns"]["N"].as_u64().unwrap() > 0,
        "latency_depth": j["latency_depth"],
    })
}

/// fio under offload, asked again when its helper threads hang (a race
/// at iodepth above 1): the report of the first run that finishes. A hung
/// fio is killed with its process group, and so are the job processes it
/// forked into sessions of their own (found by their working directory,
/// the test's scratch folder).
fn fio_offloaded(dir: &Scratch) -> Option<Value> {
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};
    for _ in 0..4 {
        let out = std::fs::File::create(dir.0.join("out.json")).unwrap();
        let mut child = std::process::Command::new(fio())
            .args(["--output-format=json", "job.fio"])
            .current_dir(&dir.0)
            .stdin(std::process::Stdio::null())
            .stdout(out)
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(8);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if Instant::now() > deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let group = format!("-{}", child.id());
        let _ = std::process::Command::new("kill")
            .args(["-9", "--", &group])
            .stderr(std::process::Stdio::null())
            .status();
        let _ = child.wait();
        if status.is_none() {
            kill_left_in(&dir.0);
        }
        if status.is_some_and(|s| s.success()) {
            let text = std::fs::read_to_string(dir.0.join("out.json")).unwrap();
            return Some(serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap());
        }
    }
    None
}

/// Kills the processes whose working directory is `dir`.
fn kill_left_in(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd == dir) {
            let _ = std::process::Command::new("kill")
                .args(["-9", pid])
                .status();
        }
    }
}

/// io_submit_mode=offload: fio's helpers each run the job at iodepth=1,
/// so the report shows every I/O at depth 1 with the submit and complete
/// counts of a depth-1 run, while the latency line keeps the iodepth
/// asked for. ferrio, which runs the I/O one at a time, reports the same.
/// io_uring refuses offload as the job file is read, in both tools.
#[test]
fn offload_reports_as_fio() {
    let pair = Pair::new("offload");
    let engines = [
        ("null", 1),
        ("psync", 1),
        ("sync", 1),
        ("vsync", 1),
        ("pvsync", 1),
        ("pvsync2", 1),
        ("libaio", 1),
        ("mmap", 1),
        ("libaio", 4),
        ("null", 4),
    ];
    for (engine, depth) in engines {
        let job = format!(
            "[a]\nioengine={engine}\nfilename=data\nsize=512k\nbs=4k\nrw=randread\n\
             iodepth={depth}\nio_submit_mode=offload\n"
        );
        pair.fio.write("job.fio", &job);
        pair.ferrio.write("job.fio", &job);
        let Some(want) = fio_offloaded(&pair.fio) else {
            eprintln!("fio hung on every try: ioengine={engine} iodepth={depth}");
            continue;
        };
        let got = Run::ferrio()
            .args(["--output-format=json", "job.fio"])
            .in_dir(&pair.ferrio.0)
            .out();
        assert_eq!(got.code, 0, "{job}\n{}", got.stderr);
        assert_eq!(
            offload_figures(&want),
            offload_figures(&json(&got)),
            "{job}"
        );
    }
    let job = "[a]\nioengine=io_uring\nfilename=data\nsize=64k\nio_submit_mode=offload\n\
               [b]\nioengine=null\nsize=64k\n";
    let (want, got) = pair.run_alike(job, &[]);
    assert_ne!(want.code, 0);
    assert_eq!(want.stdout, got.stdout);
    assert_eq!(want.stderr, common::fio_part(&got.stderr));
}

// ---------------------------------------------------------- ioscheduler

/// The scheduler file of the disk under `dir`, and what it says now.
fn scheduler_of(dir: &std::path::Path) -> Option<(String, String)> {
    let disk = ferrio::stats::disk::disk_of(dir)?;
    let path = format!("/sys/block/{disk}/queue/scheduler");
    let text = std::fs::read_to_string(&path).ok()?;
    Some((path, text))
}

/// ioscheduler: fio writes the name to the scheduler file of the disk
/// under each file and reads it back. A name the kernel refuses fails the
/// job (`unable to set io scheduler`, err=22 in iosched_switch); engines
/// without disks and disk_util=0 never look. The only name written to a
/// real disk here is the one it already has, so nothing changes.
#[test]
fn ioscheduler_switches_or_fails_as_fio() {
    let pair = Pair::new("iosched");
    let before = scheduler_of(&pair.fio.0);
    let base = "[a]\nioengine=psync\nfilename=data\nsize=64k\nbs=4k\nrw=read\n";
    let mut jobs = vec![
        format!("{base}ioscheduler=bogus\n"),
        format!("{base}ioscheduler=bogus\ndisk_util=0\n"),
        "[a]\nioengine=null\nsize=64k\nrw=read\nioscheduler=bogus\n".to_string(),
    ];
    // The scheduler in use, between brackets, if the disk has a choice.
    let current = before.as_ref().and_then(|(_, text)| {
        let start = text.find('[')? + 1;
        Some(text[start..start + text[start..].find(']')?].to_string())
    });
    if let Some(name) = &current {
        jobs.push(format!("{base}ioscheduler={name}\n"));
    }
    for job in &jobs {
        let (want, got) = pair.run_alike(job, &[]);
        assert_eq!(error_lines(&want.stdout), error_lines(&got.stdout), "{job}");
        assert_eq!(want.stderr, common::fio_part(&got.stderr), "{job}");
        assert_eq!(
            scheduler_of(&pair.fio.0),
            before,
            "{job} changed the scheduler"
        );
    }
}
