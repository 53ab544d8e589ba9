//! fio 3.33's e4defrag engine and ferrio's, side by side on a loop-mounted
//! ext4 file system (8 MiB, made and removed by the test; root,
//! losetup, mkfs.ext4 and strace). Each case runs both tools in turn on
//! an emptied file system and compares the counts, the errors as fio
//! names them, what became of the donor file, and the EXT4_IOC_MOVE_EXT
//! ioctls each tool made (traced).

mod common;

use std::path::Path;

use common::mounted::MountedLoop;
use common::{Outcome, Run, json};

/// Removes every file the last run left (lost+found stays).
fn empty(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::remove_file(path).unwrap();
        }
    }
}

/// What one tool's run came to: its outcome, the donor's size after it
/// (None if there is none) and how many EXT4_IOC_MOVE_EXT ioctls it made.
struct Ran {
    out: Outcome,
    donor: Option<u64>,
    moves: usize,
}

fn run(program: &str, job: &str, fs: &MountedLoop, json_out: bool) -> Ran {
    empty(&fs.mountpoint);
    let dir = common::Scratch::new("e4defrag");
    let trace = dir.0.join("trace");
    let mut run = Run::tool("strace")
        .args(["-f", "-qq", "-e", "trace=ioctl", "-o"])
        .arg(trace.to_str().unwrap())
        .arg(program);
    if json_out {
        run = run.arg("--output-format=json");
    }
    let out = run.job(job).in_dir(&dir.0).out();
    let traced = std::fs::read_to_string(&trace).unwrap_or_default();
    let moves = traced
        .lines()
        // strace names EXT4_IOC_MOVE_EXT by its bits.
        .filter(|l| l.contains("_IOC(_IOC_READ|_IOC_WRITE, 0x66, 0xf, 0x28)") && l.ends_with("= 0"))
        .count();
    let donor = std::fs::metadata(fs.mountpoint.join("donor"))
        .ok()
        .map(|m| m.len());
    Ran { out, donor, moves }
}

fn both(job: &str, fs: &MountedLoop, json_out: bool) -> [Ran; 2] {
    [
        run(common::fio(), job, fs, json_out),
        run(common::ferrio(), job, fs, json_out),
    ]
}

fn job(fs: &MountedLoop, body: &str) -> String {
    format!(
        "[d]\nioengine=e4defrag\ndirectory={}\nbs=256k\n{body}",
        fs.mountpoint.display()
    )
}

/// (error, writes, KiB written, reads) of the only job.
fn counts(out: &Outcome) -> (u64, u64, u64, u64) {
    let doc = json(out);
    let j = &doc["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
    (
        j["error"].as_u64().unwrap(),
        n("write", "total_ios"),
        n("write", "io_kbytes"),
        n("read", "total_ios"),
    )
}

/// The error context of fio's `fio: pid=N, err=...` line.
fn error_context(out: &Outcome) -> Option<String> {
    let line = out.stdout.lines().find(|l| l.starts_with("fio: pid="))?;
    Some(line.split_once(", ").unwrap().1.to_string())
}

#[test]
fn e4defrag_moves_extents_and_fails_as_fio_does() {
    use common::need::{program, require, root};
    if !require("root", root()) || !require("strace", program("strace")) {
        return;
    }
    let fs = MountedLoop::new();
    // A writer: each 256 KiB write one move of its blocks from the donor,
    // which init allocated to the file's size (filesize) and which stays.
    let writer = job(&fs, "filesize=2m\ndonorname=donor\nrw=write\n");
    let [want, got] = both(&writer, &fs, true);
    assert_eq!(counts(&got.out), counts(&want.out));
    assert_eq!(counts(&got.out), (0, 8, 2048, 0));
    assert_eq!((want.donor, got.donor), (Some(2 << 20), Some(2 << 20)));
    assert_eq!((want.moves, got.moves), (8, 8));
    // inplace=1: the donor's blocks allocated and freed at each write.
    let inplace = job(&fs, "size=2m\ndonorname=donor\ninplace=1\nrw=randwrite\n");
    let [want, got] = both(&inplace, &fs, true);
    assert_eq!(counts(&got.out), counts(&want.out));
    assert_eq!(counts(&got.out), (0, 8, 2048, 0));
    assert_eq!((want.donor, got.donor), (Some(0), Some(0)));
    assert_eq!((want.moves, got.moves), (8, 8));
    // A read fails the job with EINVAL in fio's queueing, no io_u line.
    let reader = job(&fs, "filesize=2m\ndonorname=donor\nrw=read\n");
    let [want, got] = both(&reader, &fs, false);
    assert_eq!((want.out.code, got.out.code), (1, 1));
    assert_eq!(error_context(&got.out), error_context(&want.out));
    assert_eq!(
        error_context(&got.out).as_deref(),
        Some("err=22/file:ioengines.c:399, func=td_io_queue, error=Invalid argument")
    );
    assert!(!got.out.stderr.contains("io_u error"), "{}", got.out.stderr);
    assert_eq!((want.moves, got.moves), (0, 0));
    // Without filesize (and inplace=0) fio's init allocates no bytes,
    // which fallocate refuses; without donorname it fails with status 1.
    let cases = [
        (
            "size=2m\ndonorname=donor\nrw=write\n",
            "err=22/file:engines/e4defrag.c:113, func=io_queue_init, error=Invalid argument",
            vec!["fio: io engine e4defrag init failed."],
        ),
        (
            "size=2m\nrw=write\n",
            "err=1/",
            vec![
                "'donorname' options required",
                "fio: io engine e4defrag init failed.",
            ],
        ),
    ];
    for (body, context, stderr) in cases {
        let [want, got] = both(&job(&fs, body), &fs, false);
        assert_eq!((want.out.code, got.out.code), (1, 1), "{body}");
        assert_eq!(error_context(&want.out).as_deref(), Some(context), "{body}");
        assert_eq!(error_context(&got.out).as_deref(), Some(context), "{body}");
        for out in [&want.out, &got.out] {
            assert_eq!(out.stderr.lines().collect::<Vec<_>>(), stderr, "{body}");
        }
    }
}
