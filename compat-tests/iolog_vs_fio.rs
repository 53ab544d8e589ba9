//! I/O logs beside fio 3.33: the iolog each tool writes for the same job,
//! the I/O each issues replaying a log fio wrote, the replay options that
//! move offsets, and the replay's pacing.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{Outcome, Run, Scratch, blk_record, ferrio, fio, json, lat_log_ios};

/// Runs `job` (and any extra files) with `tool` in a fresh scratch folder.
fn run_in(tool: &str, job: &str, files: &[(&str, &str)]) -> (Scratch, Outcome) {
    let s = Scratch::new("iolog");
    s.write("job.fio", job);
    for (name, text) in files {
        s.write(name, text);
    }
    let out = Run::tool(tool)
        .args(["--output-format=json", "job.fio"])
        .in_dir(&s.0)
        .out();
    assert_eq!(out.code, 0, "{tool}: {}\n{job}", out.stderr);
    (s, out)
}

/// An iolog with each line's time left out (the only thing fio varies
/// from run to run), after checking that the times are microsecond counts
/// that never go back.
fn untimed(text: &str) -> Vec<String> {
    let mut lines = text.lines();
    let mut out = vec![lines.next().unwrap_or("").to_string()];
    let mut last = 0u64;
    for line in lines {
        let (time, rest) = line.split_once(' ').expect("a timed line");
        let time: u64 = time.parse().unwrap_or_else(|_| panic!("bad time: {line}"));
        assert!(time >= last, "time goes back: {line}");
        last = time;
        out.push(rest.to_string());
    }
    out
}

/// (direction, length, offset) of each I/O in a write_lat_log made with
/// log_offset=1.
fn issued(dir: &Path) -> Vec<(u64, u64, u64)> {
    lat_log_ios(&std::fs::read_to_string(dir.join("ios_lat.1.log")).expect("latency log"))
}

/// The bytes each direction moved, from the JSON report.
fn bytes(out: &Outcome) -> Vec<u64> {
    let job = &json(out)["jobs"][0];
    ["read", "write", "trim"]
        .iter()
        .map(|d| job[d]["io_bytes"].as_u64().unwrap())
        .collect()
}

/// The regular files a run left in its folder, with their sizes.
fn files(dir: &Path) -> BTreeMap<String, u64> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().to_string(),
                e.metadata().unwrap().len(),
            )
        })
        .filter(|(name, _)| !name.ends_with(".log") && !name.ends_with(".fio"))
        .collect()
}

#[test]
fn written_iologs_match_fios_line_for_line() {
    for body in [
        "ioengine=null\nfilename=data\nsize=256k\nbs=4k\nrw=randrw\n",
        "ioengine=null\nnrfiles=3\nsize=192k\nbsrange=4k-16k\nrw=randwrite\niodepth=8\n",
        "ioengine=psync\nnrfiles=2\nsize=64k\nbs=8k\nrw=write\nfsync=3\nend_fsync=1\n",
        "ioengine=psync\nfilename=data\nsize=64k\nbs=4k\nrw=randrw\nfdatasync=2\n",
        "ioengine=null\nfilename=data\nsize=64k\nbs=4k\nrw=trim\n",
        "ioengine=psync\nnrfiles=2\nsize=32k\nbs=8k\nrw=randwrite\nloops=3\n",
        "ioengine=psync\nfilename=data\nsize=32k\nbs=4k\nrw=randwrite\nverify=crc32c\n",
        "ioengine=libaio\nfilename=data\nsize=32k\nbs=4k\nrw=write\nverify=md5\niodepth=4\n",
    ] {
        let job = format!("[job]\n{body}write_iolog=io.log\n");
        let (want, _) = run_in(fio(), &job, &[]);
        let (got, _) = run_in(ferrio(), &job, &[]);
        let read = |s: &Scratch| std::fs::read_to_string(s.0.join("io.log")).unwrap();
        let (want, got) = (untimed(&read(&want)), untimed(&read(&got)));
        assert!(want.len() > 5, "{body}: {want:?}");
        assert_eq!(got, want, "{body}");
    }
}

/// A log fio wrote for `body`, with relative file names.
fn log_by_fio(body: &str) -> String {
    let job = format!("[job]\n{body}write_iolog=io.log\n");
    let (s, _) = run_in(fio(), &job, &[]);
    std::fs::read_to_string(s.0.join("io.log")).unwrap()
}

#[test]
fn replaying_fios_log_issues_fios_ios() {
    let random = log_by_fio("ioengine=null\nnrfiles=2\nsize=512k\nbsrange=4k-32k\nrw=randrw\n");
    let synced = log_by_fio("ioengine=psync\nnrfiles=2\nsize=64k\nbs=4k\nrw=randwrite\nfsync=4\n");
    for (log, body) in [
        (&random, "ioengine=null\n"),
        (&random, "ioengine=null\nread_iolog_chunked=1\n"),
        (&random, "ioengine=null\nreplay_skip=write\n"),
        (&synced, "ioengine=psync\niodepth=4\nreplay_time_scale=50\n"),
        (&synced, "ioengine=psync\n"),
    ] {
        let job = format!(
            "[job]\n{body}read_iolog=in.log\nreplay_no_stall=1\nwrite_lat_log=ios\nlog_offset=1\n"
        );
        let (want_dir, want) = run_in(fio(), &job, &[("in.log", log)]);
        let (got_dir, got) = run_in(ferrio(), &job, &[("in.log", log)]);
        let ios = issued(&want_dir.0);
        assert!(ios.len() > 10, "{body}");
        // Completion order may differ at depth > 1; the set may not.
        let sorted = |mut v: Vec<(u64, u64, u64)>| {
            if body.contains("iodepth") {
                v.sort();
            }
            v
        };
        assert_eq!(sorted(issued(&got_dir.0)), sorted(ios), "{body}");
        assert_eq!(bytes(&got), bytes(&want), "{body}");
        assert_eq!(files(&got_dir.0), files(&want_dir.0), "{body}");
        let syncs = |o: &Outcome| json(o)["jobs"][0]["sync"]["total_ios"].as_u64();
        assert_eq!(syncs(&got), syncs(&want), "{body}");
    }
}

#[test]
fn replay_redirect_scale_and_align_move_offsets_as_fio_does() {
    let log = "fio version 2 iolog\na add\nb add\na open\nb open\n\
               a write 40960 4096\nb write 1000000 8192\na read 40960 4096\n\
               b write 123456 4096\nb read 1000000 8192\na close\nb close\n";
    for options in [
        "replay_redirect=target\n",
        "replay_scale=3\n",
        "replay_align=8192\n",
        "replay_redirect=target\nreplay_scale=7\nreplay_align=16384\n",
    ] {
        let job = format!(
            "[job]\nioengine=psync\nread_iolog=in.log\n{options}write_lat_log=ios\nlog_offset=1\n"
        );
        let (want_dir, _) = run_in(fio(), &job, &[("in.log", log)]);
        let (got_dir, _) = run_in(ferrio(), &job, &[("in.log", log)]);
        assert_eq!(issued(&got_dir.0), issued(&want_dir.0), "{options}");
        // Which files the replay created, and how far it wrote in each.
        assert_eq!(files(&got_dir.0), files(&want_dir.0), "{options}");
    }
}

#[test]
fn timed_replay_takes_fios_time() {
    // Eight reads 60 ms apart, recorded in fio's version 3 format.
    let mut log = String::from("fio version 3 iolog\n1 f add\n2 f open\n");
    for i in 0..8u64 {
        log += &format!("{} f read {} 4096\n", 1000 + i * 60_000, i * 4096);
    }
    log += "421005 f close\n";
    for (options, tolerance) in [
        ("", 60),
        ("replay_time_scale=200\n", 40),
        ("replay_time_scale=50\n", 100),
        ("replay_no_stall=1\n", 20),
    ] {
        let job = format!("[job]\nioengine=null\nread_iolog=in.log\n{options}");
        let runtime = |out: &Outcome| json(out)["jobs"][0]["read"]["runtime"].as_u64().unwrap();
        let (_, want) = run_in(fio(), &job, &[("in.log", &log)]);
        let (_, got) = run_in(ferrio(), &job, &[("in.log", &log)]);
        let (want, got) = (runtime(&want), runtime(&got));
        assert!(
            want.abs_diff(got) <= tolerance,
            "{options}: fio {want} ms, ferrio {got} ms"
        );
    }
}

/// A small trace: a notify with a payload, queued reads and writes
/// (one merged, some completed), a discard, a flush and a zero-byte read.
fn blktrace(swap: bool) -> Vec<u8> {
    const QUEUE: u32 = 1 | 1 << 20;
    const MERGE: u32 = 2 | 1 << 20;
    const COMPLETE: u32 = 8 | 1 << 23;
    const READ: u32 = 1 << 16;
    const WRITE: u32 = 1 << 17;
    const FLUSH: u32 = 1 << 18;
    const NOTIFY: u32 = 1 << 26;
    const DISCARD: u32 = 1 << 29;
    let ms = 1_000_000u64;
    let mut t = ms;
    let mut out = blk_record(swap, 0, 0, 0, NOTIFY, b"fio-test\0\0\0\0\0\0\0\0");
    out.extend(blk_record(swap, t, 0, 4096, QUEUE | READ, &[]));
    t += 20 * ms;
    out.extend(blk_record(swap, t, 64, 8192, QUEUE | WRITE, &[]));
    t += 5 * ms;
    out.extend(blk_record(swap, t, 72, 4096, MERGE | WRITE, &[]));
    out.extend(blk_record(swap, t, 0, 4096, COMPLETE | READ, &[]));
    t += 20 * ms;
    out.extend(blk_record(swap, t, 128, 4096, QUEUE | DISCARD, &[]));
    t += ms;
    out.extend(blk_record(swap, t, 0, 0, QUEUE | FLUSH, &[]));
    t += ms;
    out.extend(blk_record(swap, t, 256, 0, QUEUE | READ, &[]));
    for i in 0..6u64 {
        t += if i == 0 { ms } else { 30 * ms };
        let dir = if i % 2 == 1 { READ } else { WRITE };
        out.extend(blk_record(
            swap,
            t,
            1030 + i * 16,
            4096 * (1 + i as u32 % 3),
            QUEUE | dir,
            &[],
        ));
    }
    out.extend(blk_record(swap, t, 64, 8192, COMPLETE | WRITE, &[]));
    out
}

#[test]
fn blktrace_replay_issues_fios_ios() {
    for options in [
        "",
        "replay_skip=write,sync\n",
        "replay_align=8192\nreplay_scale=2\n",
        "replay_no_stall=1\niodepth=1\n",
        // The same trace written on a machine of the other byte order.
        "swapped\n",
    ] {
        let job = format!(
            "[job]\nioengine=null\nread_iolog=trace.bin\nreplay_redirect=data\n\
             {options}write_lat_log=ios\nlog_offset=1\n"
        );
        let run_with = |tool: &str| {
            let s = Scratch::new("blktrace");
            let swap = options == "swapped\n";
            let job = job.replace("swapped\n", "");
            s.write("job.fio", &job);
            std::fs::write(s.0.join("trace.bin"), blktrace(swap)).unwrap();
            let out = Run::tool(tool)
                .args(["--output-format=json", "job.fio"])
                .in_dir(&s.0)
                .out();
            assert_eq!(out.code, 0, "{tool}: {}\n{job}", out.stderr);
            (s, out)
        };
        let (want_dir, want) = run_with(fio());
        let (got_dir, got) = run_with(ferrio());
        let want_ios = issued(&want_dir.0);
        assert!(want_ios.len() >= 4, "{options}: {want_ios:?}");
        assert_eq!(issued(&got_dir.0), want_ios, "{options}");
        assert_eq!(bytes(&got), bytes(&want), "{options}");
        let count = |o: &Outcome, d: &str| json(o)["jobs"][0][d]["total_ios"].as_u64();
        for d in ["read", "write", "trim", "sync"] {
            assert_eq!(count(&got, d), count(&want, d), "{options}: {d}");
        }
        let runtime = |o: &Outcome| json(o)["jobs"][0]["read"]["runtime"].as_u64().unwrap();
        let (want_ms, got_ms) = (runtime(&want), runtime(&got));
        assert!(
            want_ms.abs_diff(got_ms) <= 25,
            "{options}: fio {want_ms} ms, ferrio {got_ms} ms"
        );
        assert!(
            got.stderr.contains("ignoring zero byte trace")
                == want.stderr.contains("ignoring zero byte trace"),
            "{options}: {}",
            got.stderr
        );
    }
}

#[test]
fn merge_blktrace_does_what_fio_333_does() {
    for options in [
        "",
        "merge_blktrace_scalars=100:50\nmerge_blktrace_iters=1:2\n",
        "merge_blktrace_scalars=100\n",
        "merge_blktrace_iters=2:1:3\n",
    ] {
        let job = format!(
            "[job]\nioengine=null\nread_iolog=a.bin:b.bin\nmerge_blktrace_file=merged.bin\n\
             replay_redirect=data\n{options}"
        );
        let run_with = |tool: &str| {
            let s = Scratch::new("merge");
            s.write("job.fio", &job);
            std::fs::write(s.0.join("a.bin"), blktrace(false)).unwrap();
            std::fs::write(s.0.join("b.bin"), blktrace(false)).unwrap();
            let out = Run::tool(tool)
                .args(["--output-format=json", "job.fio"])
                .in_dir(&s.0)
                .out();
            assert_eq!(out.code, 0, "{tool}: {}\n{job}", out.stderr);
            let merged = std::fs::metadata(s.0.join("merged.bin"))
                .map(|m| m.len())
                .ok();
            (out, merged)
        };
        let (want, want_merged) = run_with(fio());
        let (got, got_merged) = run_with(ferrio());
        assert_eq!(common::fio_part(&got.stderr), want.stderr, "{options}");
        assert_eq!(got_merged, want_merged, "{options}");
        assert_eq!(bytes(&got), bytes(&want), "{options}");
    }
}

/// fio 3.33 reads a trim line of an iolog but does not replay it: it says
/// "bad ddir: 2" and goes on with the next line.
#[test]
fn replayed_trims_are_skipped_as_fio_skips_them() {
    let log = "fio version 2 iolog\ndata add\ndata open\ndata write 0 8192\n\
               data trim 4096 4096\ndata read 0 4096\ndata trim 0 8192\ndata close\n";
    let job = "[r]\nioengine=psync\nsize=64k\nfilename=data\nread_iolog=log.txt\n";
    let (_, want) = run_in(fio(), job, &[("log.txt", log)]);
    let (_, got) = run_in(ferrio(), job, &[("log.txt", log)]);
    assert_eq!(bytes(&got), bytes(&want));
    assert_eq!(bytes(&want), vec![4096, 8192, 0]);
    assert_eq!(got.stderr, want.stderr);
}
