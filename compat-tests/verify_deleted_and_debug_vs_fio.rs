//! Beside fio 3.33: experimental_verify with loops, io_size, number_ios
//! and time_based; a job's file deleted while a time-based job runs; and
//! `--debug=parse`'s trace of the options read.

mod common;

use common::{Run, json, parallel};

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
