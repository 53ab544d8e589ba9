//! Engines, rate floors, error lists and buffer contents, run by ferrio
//! beside the same job files run by fio 3.33.

mod common;

use std::collections::HashMap;

use common::{JSON, Run, json};
use serde_json::Value;

/// Job 0's depth, submit and complete distributions, as
/// (map, bucket) → percent for the buckets of at least `floor` percent.
fn distributions(doc: &Value, floor: f64) -> HashMap<(String, String), f64> {
    ["iodepth_level", "iodepth_submit", "iodepth_complete"]
        .iter()
        .flat_map(|map| {
            doc["jobs"][0][map]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, v)| v.as_f64().unwrap() >= floor)
                .map(|(k, v)| ((map.to_string(), k.clone()), v.as_f64().unwrap()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Asserts that the buckets holding at least `floor` percent in either
/// run are within `points` of each other.
fn close_distributions(want: &Value, got: &Value, floor: f64, points: f64, label: &str) {
    let (w, g) = (distributions(want, floor), distributions(got, floor));
    for key in w.keys().chain(g.keys()) {
        let (a, b) = (w.get(key), g.get(key));
        let (a, b) = (
            a.copied().unwrap_or_else(|| bucket(want, key)),
            b.copied().unwrap_or_else(|| bucket(got, key)),
        );
        assert!(
            (a - b).abs() <= points,
            "{label}: {key:?}: fio {a}, ferrio {b}\nfio {w:?}\nferrio {g:?}"
        );
    }
}

fn bucket(doc: &Value, key: &(String, String)) -> f64 {
    doc["jobs"][0][&key.0][&key.1].as_f64().unwrap_or(0.0)
}

fn ios(doc: &Value, dir: &str) -> u64 {
    doc["jobs"][0][dir]["total_ios"].as_u64().unwrap()
}

/// The side-by-side runs of [`within_fios_spread`], per tool.
const RUNS: usize = 5;

/// A figure of one run: (name, value, how far beyond fio's range of runs
/// ferrio's median may lie).
type Figure = (String, f64, f64);

/// How many of a posixaio job's I/Os finish together depends on when
/// glibc's helper threads run, which a busy machine shifts for both tools
/// alike, and a run delayed that way lands far from the others: a single
/// pair of runs can differ by fio's whole spread. So both tools run
/// [`RUNS`] times, interleaved; submission, one I/O per call in both, is
/// exact in every run; and each figure's median over ferrio's runs (which
/// one delayed run does not move) must lie within the range of fio's runs
/// here and now, widened by fio's measured spread of that figure (given
/// with the figures, by [`posixaio_holds_the_depth_as_fio_does`]).
fn within_fios_spread(job: &str, label: &str, figures: impl Fn(&Value) -> Vec<Figure>) {
    let (mut want, mut got) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let (w, g) = Run::new().args(JSON).job(job).both_json();
        assert_eq!(ios(&g, "read"), ios(&w, "read"), "{label}");
        assert_eq!(
            g["jobs"][0]["iodepth_submit"], w["jobs"][0]["iodepth_submit"],
            "{label}: submit"
        );
        want.push(figures(&w));
        got.push(figures(&g));
    }
    for (i, (name, _, widen)) in want[0].iter().enumerate() {
        let sorted = |runs: &[Vec<Figure>]| {
            let mut v: Vec<f64> = runs.iter().map(|r| r[i].1).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let (w, g) = (sorted(&want), sorted(&got));
        let (low, high, median) = (w[0], w[RUNS - 1], g[RUNS / 2]);
        assert!(
            (low - widen..=high + widen).contains(&median),
            "{label}: {name}: fio's runs {w:?}, ferrio's {g:?} (median {median}, allowed {widen} beyond fio's)"
        );
    }
}

#[test]
fn posixaio_holds_the_depth_as_fio_does() {
    let job = |depth: u32| {
        format!("[j]\nioengine=posixaio\nrw=randread\nbs=4k\nsize=16m\ndirect=1\niodepth={depth}\n")
    };
    // One I/O in flight at a time: every map is exact.
    let (want, got) = Run::new().args(JSON).job(&job(1)).both_json();
    assert_eq!(ios(&got, "read"), ios(&want, "read"), "depth 1");
    assert_eq!(
        distributions(&got, 0.0),
        distributions(&want, 0.0),
        "depth 1"
    );
    // Depth 8: beside the other builds of a loaded 2-core machine (load
    // 7), 20 runs of fio 3.33 issued 94.9 to 99.8 % of their I/Os at the
    // full depth (15 of them 99.2 or more, a few delayed runs lower), the
    // rest at 4 and below; 26 of ferrio's, 91.7 to 99.8. Beside
    // `stress-ng --cpu 2` (the suite's run with a CPU hog) the helper
    // threads fall further behind, and more so ferrio's: fio's five runs
    // 94.3 to 98.6, ferrio's 84.9 to 92.7 (median 87.8). Every bucket may
    // lie 12 points beyond fio's runs: a queue that no longer holds its
    // depth (most I/Os at 4 or below) still fails.
    within_fios_spread(&job(8), "depth 8", |doc| {
        let mut all: Vec<Figure> = distributions(doc, 0.0)
            .into_iter()
            .map(|((map, b), v)| (format!("{map} {b}"), v, 12.0))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    });
    // Depth 32: glibc serves one file's requests in order, and the reaper
    // sleeps on the first unfinished ones in slot order: about a quarter
    // of the I/Os go out at the full depth, the rest at 8 to 16, split
    // between those two as the timing falls. 10 runs of fio (same
    // machine): 20.0 to 24.4 % at 32, 75.4 to 77.4 at 8-16, reaps of all
    // 32 at once 2.3 to 2.5 % but 0.5 in one delayed run (its other reaps
    // at 16). Allowed beyond fio's runs: 5, 5 and 1.5 points.
    within_fios_spread(&job(32), "depth 32", |doc| {
        let at = |map: &str, b: &str| bucket(doc, &(map.into(), b.into()));
        vec![
            ("at 32".into(), at("iodepth_level", "32"), 5.0),
            (
                "at 8-16".into(),
                at("iodepth_level", "8") + at("iodepth_level", "16"),
                5.0,
            ),
            ("reaps of 32".into(), at("iodepth_complete", "32"), 1.5),
        ]
    });
}

#[test]
fn libaio_userspace_reap_polls_as_fio_does() {
    for depth in [1, 8, 32] {
        for extra in [
            // Polling reaps after every I/O: the queue never grows.
            "iodepth_batch_complete_min=0\nuserspace_reap",
            "iodepth_batch_complete_min=0",
            // Reaping waits for a completion: the ring is not read.
            "userspace_reap",
        ] {
            let job = format!(
                "[j]\nioengine=libaio\nrw=randread\nbs=4k\nsize=8m\ndirect=1\niodepth={depth}\n{extra}\n"
            );
            let (want, got) = Run::new().args(JSON).job(&job).both_json();
            let label = format!("iodepth={depth} {extra}");
            assert_eq!(ios(&got, "read"), ios(&want, "read"), "{label}");
            close_distributions(&want, &got, 1.0, 2.0, &label);
        }
    }
}

/// stderr lines with every number after "got " masked: the rate a job
/// reached varies from run to run.
fn masked(stderr: &str) -> Vec<String> {
    let mut lines: Vec<String> = stderr
        .lines()
        .filter(|l| !l.starts_with("ferrio: "))
        .map(|l| match l.find(" got ") {
            Some(i) => {
                let rest = l[i + 5..].trim_start_matches(|c: char| c.is_ascii_digit());
                format!("{} got N{rest}", &l[..i])
            }
            None => l.to_string(),
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn rate_floors_end_the_job_as_fio_does() {
    // Capped at 1 MiB/s (256 IOPS) but asked for 1000 IOPS; slowed by
    // think time below a 1 MiB/s floor measured over 500 ms.
    let job = "[j]\nioengine=psync\nrw=read\nbs=4k\nsize=16m\nrate=1m\nrate_iops_min=1000\n\
               [k]\nioengine=psync\nrw=write\nsize=16m\nthinktime=20ms\nrate_min=1m\nratecycle=500\n";
    let (want, got, _, _) = Run::new()
        .args(["--output-format=json"])
        .job(job)
        .both_kept();
    assert_eq!(got.code, want.code, "{}", got.stderr);
    assert_eq!(masked(&got.stderr), masked(&want.stderr));
    let (want, got) = (json(&want), json(&got));
    // The most I/Os each job's limit lets through in a millisecond: the
    // cap of 256 IOPS, and one I/O per 20 ms of think time.
    for (i, dir, per_ms) in [(0, "read", 0.256), (1, "write", 0.05)] {
        let (w, g) = (&want["jobs"][i], &got["jobs"][i]);
        assert_eq!(g["error"], w["error"], "job {i}");
        // The floor is first measured 2 s in, then one cycle later.
        let (wr, gr) = (
            w[dir]["runtime"].as_u64().unwrap(),
            g[dir]["runtime"].as_u64().unwrap(),
        );
        assert!(
            wr.abs_diff(gr) <= 150,
            "job {i}: fio ran {wr} ms, ferrio {gr} ms"
        );
        // How close to its limit a job gets is the machine's (a loaded
        // one oversleeps the think time), so each tool's count is held to
        // its own limit over its own runtime, not to the other's count.
        for (tool, ios, ms) in [
            ("fio", w[dir]["total_ios"].as_u64().unwrap(), wr),
            ("ferrio", g[dir]["total_ios"].as_u64().unwrap(), gr),
        ] {
            assert!(
                ios > 0 && ios as f64 <= ms as f64 * per_ms + 2.0,
                "job {i}: {tool} {ios} I/Os in {ms} ms"
            );
        }
    }
}

#[test]
fn poisson_arrivals_keep_the_rate_on_average() {
    let job = "[global]\nrate_process=poisson\ntime_based\nruntime=3\nsize=16m\n\
               [j]\nioengine=psync\nrw=randread\nbs=4k\nrate_iops=400\n\
               [k]\nioengine=libaio\niodepth=4\nrw=write\nbs=8k\nrate=2m\n";
    let (want, got) = Run::new().args(JSON).job(job).both_json();
    // 400 IOPS and 256 IOPS for 3 s; the count of a Poisson process over
    // that span has a spread of about its square root.
    for (i, dir, expected) in [(0, "read", 1200.0), (1, "write", 768.0)] {
        for (tool, doc) in [("fio", &want), ("ferrio", &got)] {
            let n = doc["jobs"][i][dir]["total_ios"].as_u64().unwrap() as f64;
            assert!(
                (n - expected).abs() <= 4.0 * f64::sqrt(expected),
                "{tool} job {i}: {n} I/Os, expected about {expected}"
            );
        }
    }
}

#[test]
fn rate_floors_above_their_caps_are_refused_as_fio_refuses_them() {
    for job in [
        "[j]\nioengine=null\nsize=1m\nrate=1m\nrate_min=2m\n",
        "[j]\nioengine=null\nsize=1m\nrate=1m\nrate_min=2m,1k\n",
        "[j]\nioengine=null\nsize=1m\nrate_iops=10\nrate_iops_min=20\n",
        "[j]\nioengine=null\nsize=1m\nrate=1k\nrate_iops=5\n",
        "[j]\nioengine=null\nsize=1m\nrate_min=1k\nrate_iops_min=5\n",
    ] {
        let (want, got, _, _) = Run::new().job(job).both_kept();
        assert_eq!(got.code, want.code, "{job}");
        assert_eq!(common::fio_part(&got.stderr), want.stderr, "{job}");
    }
}

#[test]
fn rate_ignore_thinktime_gives_up_the_time_spent_thinking() {
    for ignore in [0, 1] {
        let job = format!(
            "[global]\nioengine=psync\nrw=read\nbs=4k\nsize=16m\nthinktime=200ms\nthinktime_blocks=64\n\
             rate_ignore_thinktime={ignore}\ntime_based\nruntime=3\n\
             [j]\nrate=1m\n[k]\nrate_iops=256\nrate_process=poisson\n"
        );
        let (want, got) = Run::new().args(JSON).job(&job).both_json();
        for i in 0..2 {
            let w = want["jobs"][i]["read"]["total_ios"].as_u64().unwrap() as f64;
            let g = got["jobs"][i]["read"]["total_ios"].as_u64().unwrap() as f64;
            // Linear arrivals land within a block or two; Poisson ones
            // within the spread of their count.
            let slack = if i == 0 { 4.0 } else { 4.0 * w.sqrt() };
            assert!(
                (w - g).abs() <= slack,
                "ignore={ignore} job {i}: fio {w}, ferrio {g}"
            );
        }
    }
}

/// The lines of a normal report that speak of errors, without pids,
/// dates and fio's source locations (which ferrio cannot have).
fn error_lines(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| {
            ["err=", "errors    :", "issued rwts", "first direct IO"]
                .iter()
                .any(|k| l.contains(k))
        })
        .map(|l| {
            let mut l = l.to_string();
            if let Some(i) = l.find("file:") {
                let end = l[i..].find(", func=").map_or(i, |e| i + e + 2);
                l.replace_range(i..end, "");
            }
            if let Some(i) = l.find("pid=") {
                l.truncate(i);
            }
            l
        })
        .collect()
}

#[test]
fn ignore_error_lists_decide_which_errors_a_job_survives() {
    // O_DIRECT with 4000-byte blocks: every I/O fails with EINVAL.
    for (engine, extra) in [
        ("psync", "continue_on_error=all"),
        ("psync", "ignore_error=EINVAL"),
        ("psync", "ignore_error=EINVAL\nerror_dump=1"),
        (
            "psync",
            "continue_on_error=write\nignore_error=EIO:22,ENOSPC:EILSEQ",
        ),
        ("psync", "ignore_error=,22"),
        ("psync", "ignore_error=-22"),
        ("psync", "ignore_error=EFOO"),
        ("psync", "ignore_error=0"),
        ("libaio", "ignore_error=EINVAL"),
        ("libaio", "ignore_error=EINVAL\nerror_dump=1"),
        ("posixaio", "ignore_error=EINVAL"),
    ] {
        let job = format!(
            "[j]\nioengine={engine}\niodepth=4\nrw=read\nbs=4000\nsize=16000\ndirect=1\n{extra}\n"
        );
        let (want, got, _, _) = Run::new().job(&job).both_kept();
        let label = format!("{engine} {extra}");
        assert_eq!(got.code, want.code, "{label}: {}", got.stderr);
        assert_eq!(common::fio_part(&got.stderr), want.stderr, "{label}");
        assert_eq!(
            error_lines(&got.stdout),
            error_lines(&want.stdout),
            "{label}"
        );
    }
}

/// (compressed size / size with `gzip -1`, share of 4 KiB blocks that
/// repeat an earlier one) of a file.
fn compress_and_dedupe(path: &std::path::Path) -> (f64, f64) {
    let data = std::fs::read(path).unwrap();
    let gz = std::process::Command::new("gzip")
        .args(["-1", "-c"])
        .arg(path)
        .output()
        .expect("gzip");
    let blocks = data.len() / 4096;
    let mut seen = std::collections::HashSet::new();
    let repeats = data
        .chunks_exact(4096)
        .filter(|b| !seen.insert(b.to_vec()))
        .count();
    (
        gz.stdout.len() as f64 / data.len() as f64,
        repeats as f64 / blocks as f64,
    )
}

#[test]
fn written_data_compresses_and_dedupes_as_fio_s() {
    for extra in [
        "buffer_compress_percentage=50",
        "buffer_compress_percentage=70\nbuffer_compress_chunk=4k",
        "bs=64k\nbuffer_compress_percentage=25\nbuffer_compress_chunk=0",
        "buffer_compress_percentage=100",
        "dedupe_percentage=30",
        "dedupe_percentage=30\nbuffer_compress_percentage=40\nioengine=libaio\niodepth=8",
        "dedupe_percentage=40\ndedupe_mode=working_set\ndedupe_working_set_percentage=10",
        "dedupe_percentage=100",
        "rw=randwrite\ndedupe_percentage=20\nrefill_buffers=1",
    ] {
        let job =
            format!("[j]\nioengine=psync\nrw=write\nbs=4k\nsize=16m\nfilename=data\n{extra}\n");
        let (want, got, a, b) = Run::new().job(&job).both_kept();
        assert_eq!(want.code, 0, "fio: {}", want.stderr);
        assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
        let (w, g) = (
            compress_and_dedupe(&a.0.join("data")),
            compress_and_dedupe(&b.0.join("data")),
        );
        assert!(
            (w.0 - g.0).abs() <= 0.03 && (w.1 - g.1).abs() <= 0.03,
            "{extra}: fio (ratio, repeats) {w:?}, ferrio {g:?}"
        );
    }
}

#[test]
fn impossible_dedupe_working_sets_are_refused_as_fio_refuses_them() {
    for extra in [
        "size=1m\ndedupe_percentage=40\ndedupe_mode=working_set\nnrfiles=2",
        "filesize=1m\ndedupe_percentage=40\ndedupe_mode=working_set",
        "size=1m\ndedupe_percentage=96\ndedupe_mode=working_set",
        "size=1m\ndedupe_percentage=96\ndedupe_mode=working_set\nrate=1k\nrate_iops=3",
    ] {
        let job = format!("[j]\nioengine=null\nrw=write\n{extra}\n");
        let (want, got, _, _) = Run::new().job(&job).both_kept();
        assert_eq!(got.code, want.code, "{extra}");
        assert_eq!(common::fio_part(&got.stderr), want.stderr, "{extra}");
    }
}

/// Share of the 4 KiB blocks of `b` that also occur in `a`.
fn shared_blocks(a: &std::path::Path, b: &std::path::Path) -> f64 {
    let a = std::fs::read(a).unwrap();
    let b = std::fs::read(b).unwrap();
    let seen: std::collections::HashSet<&[u8]> = a.chunks_exact(4096).collect();
    let blocks = b.len() / 4096;
    b.chunks_exact(4096).filter(|x| seen.contains(x)).count() as f64 / blocks as f64
}

#[test]
fn a_global_dedupe_working_set_is_shared_between_jobs_as_in_fio() {
    // The setup of fio's dedupe-global example, at 16 MiB per job.
    let job = "[global]\nioengine=libaio\niodepth=256\nsize=16m\nbs=4k\nrw=write\n\
               dedupe_mode=working_set\ndedupe_global=1\ndedupe_percentage=50\n\
               dedupe_working_set_percentage=50\nbuffer_compress_percentage=50\n[a]\n[b]\n";
    let (want, got, a, b) = Run::new().job(job).both_kept();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    for file in ["a.0.0", "b.0.0"] {
        let (w, g) = (
            compress_and_dedupe(&a.0.join(file)),
            compress_and_dedupe(&b.0.join(file)),
        );
        assert!(
            (w.0 - g.0).abs() <= 0.03 && (w.1 - g.1).abs() <= 0.03,
            "{file}: fio {w:?}, ferrio {g:?}"
        );
    }
    let w = shared_blocks(&a.0.join("a.0.0"), &a.0.join("b.0.0"));
    let g = shared_blocks(&b.0.join("a.0.0"), &b.0.join("b.0.0"));
    assert!(
        (w - g).abs() <= 0.05,
        "blocks of b also in a: fio {w}, ferrio {g}"
    );
}

#[test]
fn rate_floors_are_measured_only_when_io_is_issued() {
    // One 4 KiB read every 1.6 s: after the last one, the job waits for
    // its runtime to end without a new measurement, so the floor holds.
    let job = "[j]\nioengine=psync\nrw=read\nbs=4k\nsize=1m\nrate=2500\nrate_min=2048\n\
               ratecycle=500\ntime_based\nruntime=4\n";
    let (want, got, _, _) = Run::new()
        .args(["--output-format=json"])
        .job(job)
        .both_kept();
    assert_eq!((got.code, want.code), (0, 0), "{}", got.stderr);
    let (want, got) = (json(&want), json(&got));
    assert_eq!(got["jobs"][0]["error"], want["jobs"][0]["error"]);
    assert_eq!(got["jobs"][0]["error"], 0);
}

/// The syncs of job 0: (fsync count, all syncs timed).
fn syncs(doc: &Value) -> (u64, u64) {
    let sync = &doc["jobs"][0]["sync"];
    (
        sync["total_ios"].as_u64().unwrap(),
        sync["lat_ns"]["N"].as_u64().unwrap_or(0),
    )
}

/// io_uring and posixaio flush asynchronously: fio queues its periodic
/// syncs beside the writes and counts one done only when it completes, so
/// until then it keeps finding a sync due and issues more than one per
/// `fsync` writes. ferrio must do the same (it used to drain and sync
/// once). fio's posixaio asks for O_SYNC even for an fdatasync.
#[test]
fn async_engines_queue_periodic_syncs_beside_the_writes_as_fio_does() {
    let writes = 2048u64;
    let once_each = writes / 4 - 1;
    for (engine, option, fsyncs) in [
        ("io_uring", "fsync", true),
        ("io_uring", "fdatasync", false),
        ("posixaio", "fsync", true),
    ] {
        let job = format!(
            "[w]\nioengine={engine}\nfilename=f\nsize=8m\nbs=4k\nrw=write\n\
             iodepth=8\n{option}=4\n"
        );
        let (want, got) = Run::new().args(JSON).job(&job).both_json();
        for (tool, doc) in [("fio", &want), ("ferrio", &got)] {
            assert_eq!(ios(doc, "write"), writes, "{tool} {engine} {option}");
            let (total, timed) = syncs(doc);
            assert_eq!(
                total,
                if fsyncs { timed } else { 0 },
                "{tool} {engine} {option}"
            );
            // More than one per four writes, never more than a queue of
            // them each time.
            assert!(
                timed > once_each + once_each / 8 && timed <= once_each * 8,
                "{tool} {engine} {option}: {timed} syncs for {writes} writes"
            );
        }
    }
}

/// A trim that the file system refuses (a regular file here: ENOTTY)
/// ends the job with the error where fio puts it: its queueing
/// (td_io_queue) for the engines that trim inside their queue call, the
/// trim itself for mmap, and no `io_u error` line on stderr in either.
#[test]
fn a_refused_trim_fails_the_job_where_fio_reports_it() {
    for engine in [
        "sync", "psync", "pvsync", "pvsync2", "libaio", "io_uring", "posixaio", "mmap",
    ] {
        let job = format!("[t]\nioengine={engine}\nrw=randtrim\nbs=4k\nsize=64k\nfilename=data\n");
        let pair = common::Pair::new(&format!("trimerr-{engine}"));
        let (want, got) = pair.run_alike(&job, &[]);
        // fio's error context names its source file; ferrio's does not.
        let context = |out: &common::Outcome| {
            let line = out
                .stdout
                .lines()
                .find(|l| l.starts_with("fio: pid="))
                .unwrap_or("");
            let context = line.split_once('/').map_or("", |(_, c)| c);
            context
                .split(", ")
                .filter(|p| !p.starts_with("file:"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        assert_eq!(want.code, 1, "{engine}: {}", want.stdout);
        assert_eq!(context(&got), context(&want), "{engine}");
        assert!(
            context(&want).contains("Inappropriate ioctl"),
            "{engine}: {}",
            want.stdout
        );
        assert_eq!(
            got.stderr.contains("io_u error"),
            want.stderr.contains("io_u error"),
            "{engine}: fio {:?}, ferrio {:?}",
            want.stderr,
            got.stderr
        );
    }
}
