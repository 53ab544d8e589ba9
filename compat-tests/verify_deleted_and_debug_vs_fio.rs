//! Beside fio 3.33: experimental_verify with loops, io_size, number_ios
//! and time_based; a job's file deleted while a time-based job runs; and
//! `--debug=parse`'s trace of the options read.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{Run, Scratch, ferrio, fio, json, parallel};

/// A verifying psync job over 16 blocks, with `extra` options.
fn verify_job(rw: &str, extra: &str) -> String {
    format!(
        "[v]\nioengine=psync\nfilename=data\nsize=64k\nbs=4k\nrw={rw}\nverify=crc32c\nexperimental_verify=1\n{}\n",
        extra.replace(' ', "\n")
    )
}

/// (exit status, reads, writes, job error, stderr lines that name a
/// verify failure) of one run.
fn verify_outcome(out: &common::Outcome) -> (i32, u64, u64, u64, Vec<String>) {
    let doc = json(out);
    let job = &doc["jobs"][0];
    let ios = |d: &str| job[d]["total_ios"].as_u64().unwrap();
    let failures = out
        .stderr
        .lines()
        .filter(|l| l.contains("verify") || l.contains("bad "))
        .map(str::to_string)
        .collect();
    (
        out.code,
        ios("read"),
        ios("write"),
        job["error"].as_u64().unwrap(),
        failures,
    )
}

#[test]
fn experimental_verify_runs_loops_io_size_and_number_ios_as_fio_does() {
    // fio counts each replayed read among the writes issued (a later loop
    // is cut short or skipped), its bytes verified over the whole job (a
    // later loop's pass reads nothing), and number_ios every I/O done.
    let cases: Vec<(&str, &str)> = ["write", "randwrite"]
        .into_iter()
        .flat_map(|rw| {
            [
                "loops=2",
                "loops=3",
                "loops=3 io_size=48k",
                "loops=4 io_size=48k",
                "io_size=48k",
                "io_size=128k",
                "number_ios=5",
                "loops=3 number_ios=5",
                "loops=2 number_ios=20",
                // Without the replay, number_ios counts the verify reads
                // (the passes' and the backlog's) as well.
                "experimental_verify=0 loops=2 number_ios=20",
                "experimental_verify=0 number_ios=25 verify_backlog=4",
            ]
            .map(|extra| (rw, extra))
        })
        .collect();
    let seen = parallel(&cases, |(rw, extra)| {
        let (want, got) = Run::new()
            .arg("--output-format=json")
            .job(&verify_job(rw, extra))
            .both();
        (verify_outcome(&want), verify_outcome(&got))
    });
    for ((rw, extra), (want, got)) in cases.iter().zip(seen) {
        assert_eq!(want.0, 0, "fio {rw} {extra}");
        assert_eq!(want.3, 0, "fio {rw} {extra}");
        assert!(want.4.is_empty(), "fio {rw} {extra}: {:?}", want.4);
        assert_eq!(
            got, want,
            "{rw} {extra}: (status, reads, writes, error, failures)"
        );
    }
}

#[test]
fn experimental_verify_under_time_based_writes_all_runtime_as_fio_does() {
    // The writes take the whole runtime: no read is ever made, and both
    // say so before the report.
    for rw in ["write", "randwrite"] {
        let (want, got) = Run::new()
            .arg("--output-format=json")
            .job(&verify_job(rw, "runtime=300ms time_based"))
            .both();
        for (tool, out) in [("fio", &want), ("ferrio", &got)] {
            let (code, reads, writes, error, failures) = verify_outcome(out);
            assert_eq!(
                (code, reads, error),
                (0, 0, 0),
                "{tool} {rw}: {}",
                out.stderr
            );
            assert!(writes > 16, "{tool} {rw}: {writes} writes");
            assert!(failures.is_empty(), "{tool} {rw}: {failures:?}");
        }
        let first = |o: &common::Outcome| o.stdout.lines().next().map(str::to_string);
        assert_eq!(first(&got), first(&want), "{rw}");
    }
}

/// The processes under `pid` (fio runs each job in a process of its own;
/// ferrio in a thread), all generations.
fn descendants(pid: u32) -> Vec<u32> {
    let path = format!("/proc/{pid}/task/{pid}/children");
    let children: Vec<u32> = std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect();
    let mut all = children.clone();
    all.extend(children.into_iter().flat_map(descendants));
    all
}

/// Whether process `pid` holds `file` open.
fn holds_open(pid: u32, file: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == file))
}

/// Runs `tool` on a 2 s time-based job over an existing 1 MiB file and
/// removes the file once the job holds it open and 700 ms have passed.
fn run_while_deleted(tool: &str, rw: &str) -> (common::Outcome, bool) {
    let dir = Scratch::new("deleted");
    let data = dir.0.join("data");
    std::fs::write(&data, vec![7u8; 1 << 20]).unwrap();
    let data = data.canonicalize().unwrap();
    let job = format!(
        "[d]\nioengine=psync\nfilename=data\nsize=1m\nbs=4k\nrw={rw}\nruntime=2\ntime_based\n"
    );
    let run = Run::tool(tool)
        .arg("--output-format=json")
        .job(&job)
        .in_dir(&dir.0)
        .limit(Duration::from_secs(60))
        .spawn();
    let began = Instant::now();
    let mut held = false;
    while !held && began.elapsed() < Duration::from_secs(20) {
        held = descendants(run.child.id())
            .into_iter()
            .any(|pid| holds_open(pid, &data));
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(held, "{tool} {rw}: the job never opened its file");
    std::thread::sleep(Duration::from_millis(700));
    std::fs::remove_file(&data).unwrap();
    let out = run.wait();
    (out, data.exists())
}

#[test]
fn a_file_deleted_during_a_time_based_run_is_used_to_the_end_as_fio_does() {
    let cases: Vec<(&str, &str)> = ["write", "read", "randwrite", "randread"]
        .into_iter()
        .flat_map(|rw| [(fio(), rw), (ferrio(), rw)])
        .collect();
    let seen = parallel(&cases, |(tool, rw)| run_while_deleted(tool, rw));
    for (pair, runs) in cases.chunks(2).zip(seen.chunks(2)) {
        let rw = pair[0].1;
        // (status, error, I/Os in the job's direction > 0, runtime >= the
        // whole 2 s, the file there again, stderr)
        let shape = |(out, exists): &(common::Outcome, bool)| {
            let doc = json(out);
            let job = &doc["jobs"][0];
            let dir = if rw.contains("write") {
                "write"
            } else {
                "read"
            };
            (
                out.code,
                job["error"].as_u64(),
                job[dir]["total_ios"].as_u64() > Some(0),
                job["job_runtime"].as_u64() >= Some(1990),
                *exists,
                out.stderr.clone(),
            )
        };
        let (want, got) = (shape(&runs[0]), shape(&runs[1]));
        assert_eq!(
            want,
            (0, Some(0), true, true, false, String::new()),
            "fio {rw}"
        );
        assert_eq!(got, want, "{rw}");
    }
}

/// A trace with each process id (fio's pid, then ferrio's) made `PID`.
/// The id is printed left-aligned in five columns, so a pid of fewer
/// digits is followed by padding that is part of the id's field, not of
/// the message: it goes too, and the messages' own indents stay.
fn without_pids(trace: &str) -> String {
    trace
        .split("parse    ")
        .map(|piece| {
            let digits = piece.len() - piece.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 {
                let rest = &piece[digits..];
                let padding = " ".repeat(5usize.saturating_sub(digits));
                let rest = rest.strip_prefix(padding.as_str()).unwrap_or(rest);
                format!("PID{rest}")
            } else {
                piece.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("parse    ")
}

/// CI's fresh machine gave fio a 4-digit pid and ferrio a 5-digit one;
/// the traces must still compare equal, indents kept.
#[test]
fn pids_of_any_width_are_masked_alike() {
    let short = "parse    9982  Parsing x\nparse    9982    ret=0, out=1\n";
    let long = "parse    12345 Parsing x\nparse    12345   ret=0, out=1\n";
    assert_eq!(without_pids(short), without_pids(long));
    assert_eq!(
        without_pids(long),
        "parse    PID Parsing x\nparse    PID   ret=0, out=1\n"
    );
}

#[test]
fn debug_parse_prints_fios_trace_of_the_options_read() {
    let files = [
        // Sections, a global one, numjobs, per-direction values.
        "[global]\nioengine=null\nsize=1m\n\n[a]\nrw=randread\nbs=4k\n\n[b]\nrw=write\nbs=8k\nnumjobs=2\n",
        // Comments, blanks around `=`, a flag, times, a list of floats,
        // kb_base, shares of the size, a last line without its newline.
        "; note\n[global]\n  bs = 4k , 8k  # tail\n# c2\nruntime=2\nthinktime=10ms\ntime_based\nrate=1m,2m\npercentile_list=50:99.5\nverify=md5\n\n[x]\nioengine=null\nkb_base=1000\nsize=50%\nio_size=1g\noffset=10%\nfilesize=1m\nbsrange=1k-4k\nbssplit=4k/60:8k/40\nrw=randrw\nrwmixread=70\ndirect=0\nrate_iops=100,200",
        // What the callbacks of worded options trace.
        "[z]\nioengine=null\nsize=1m\nrandom_distribution=zoned:60/10:40/90\nsteadystate=iops:100\n[z2]\nioengine=null\nsize=1m\nrandom_distribution=zoned_abs:60/10k:40/1m\nss=bw:10m\n[z3]\nioengine=null\nsize=1m\nss=iops_slope:0.5%\n",
        // A variable put in.
        "[v]\nioengine=null\nsize=${TRACE_SIZE}\nrw=read\n",
    ];
    for (i, text) in files.iter().enumerate() {
        let (want, got) = Run::new()
            .args(["--debug=parse", "--parse-only"])
            .env("TRACE_SIZE", "2m")
            .job(text)
            .both();
        assert_eq!(want.code, 0, "fio, file {i}: {}", want.stderr);
        assert!(
            want.stdout
                .contains("__handle_option=ioengine, type=OPT_STR_STORE, ptr=null\n")
        );
        assert_eq!(got.code, want.code, "file {i}: {}", got.stderr);
        assert_eq!(
            without_pids(&got.stdout),
            without_pids(&want.stdout),
            "file {i}"
        );
        assert_eq!(got.stderr, want.stderr, "file {i}");
    }
    // Job options on the command line.
    let args = [
        "--debug=parse",
        "--parse-only",
        "--name=c",
        "--ioengine=null",
        "--size=1m",
        "--rw=read",
        "--iodepth=4",
    ];
    let (want, got) = Run::new().args(args).both();
    assert_eq!(want.code, 0, "{}", want.stderr);
    assert_eq!(without_pids(&got.stdout), without_pids(&want.stdout));
    // The run's other traces are not ferrio's: it says so, naming what
    // to use instead, and runs nothing.
    let io = Run::ferrio()
        .args(["--debug=io", "--name=c", "--ioengine=null", "--size=1m"])
        .out();
    assert_eq!(io.code, 1);
    assert!(
        io.stderr
            .contains("ferrio: --debug=io: ferrio traces only the parse area"),
        "{}",
        io.stderr
    );
}
