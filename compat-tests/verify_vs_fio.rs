//! Data verification beside fio 3.33: data written by one tool with a
//! verify header checks out in the other; corrupted data fails in ferrio
//! with fio's error, messages and exit status; buffer_pattern writes fio's
//! bytes.

mod common;

use std::os::unix::fs::FileExt;
use std::path::Path;

use common::{JSON, Outcome, Run, Scratch, ferrio, fio, json};
use serde_json::Value;

/// A job over `data` in 4k blocks, 64 of them, with `options`.
fn job(options: &str, phase: &str) -> String {
    let options = options.replace(';', "\n");
    let rw = if options.contains("rw=") {
        ""
    } else {
        "rw=write\n"
    };
    format!("[v]\nioengine=psync\nfilename=data\nbs=4k\nsize=256k\n{rw}{options}\n{phase}\n")
}

/// Writes the data with `writer` (do_verify=0), lets `corrupt` change the
/// file, then checks it with each of `checkers` (verify_only=1).
fn write_then_check(
    writer: &str,
    checkers: &[&str],
    options: &str,
    corrupt: impl Fn(&Path),
) -> Vec<Outcome> {
    let dir = Scratch::new("verify");
    let wrote = Run::tool(writer)
        .arg(JSON[0])
        .job_named("write.fio", &job(options, "do_verify=0"))
        .in_dir(&dir.0)
        .out();
    assert_eq!(wrote.code, 0, "{writer} {options}: {}", wrote.stderr);
    corrupt(&dir.0.join("data"));
    checkers
        .iter()
        .map(|checker| {
            Run::tool(checker)
                .arg(JSON[0])
                .job_named("check.fio", &job(options, "verify_only=1"))
                .in_dir(&dir.0)
                .out()
        })
        .collect()
}

/// A change made to the data file between writing and checking.
type Corruption = Box<dyn Fn(&Path)>;

fn overwrite(path: &Path, at: u64, bytes: &[u8]) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.write_all_at(bytes, at).unwrap();
}

const KINDS: &[&str] = &[
    "verify=crc32c",
    "verify=crc32c-intel",
    "verify=md5",
    "verify=sha256",
    "verify=xxhash",
    "verify=crc32",
    "verify=crc64",
    "verify=sha1",
    "verify=crc16",
    "verify=crc7",
    "verify=crc7;rw=randwrite;verify_interval=512",
    "verify=sha512",
    "verify=sha3-224",
    "verify=sha3-512",
    "verify=meta",
    "verify_pattern=0xfeed\"ab\"%o",
    "verify=pattern;verify_pattern=0x01020304",
    "verify=md5;verify_interval=1k;verify_offset=100",
    "verify=crc32c;rw=randwrite",
    "verify=sha256;rw=randwrite;verify_interval=512",
];

#[test]
fn data_written_by_either_tool_checks_out_in_the_other() {
    for options in KINDS {
        for (writer, checker) in [(fio(), ferrio()), (ferrio(), fio())] {
            let out = &write_then_check(writer, &[checker], options, |_| {})[0];
            let label = format!("{options}: written by {writer}, checked by {checker}");
            assert_eq!(out.code, 0, "{label}: {}", out.stderr);
            let doc = json(out);
            assert_eq!(doc["jobs"][0]["error"], 0, "{label}");
            assert_eq!(doc["jobs"][0]["read"]["total_ios"], 64, "{label}");
        }
    }
}

/// stderr with fio's source location (`file:io_u.c:N, `, which ferrio
/// does not print) and the pid masked.
fn messages(out: &Outcome) -> Vec<String> {
    out.stderr
        .lines()
        .filter(|l| !l.starts_with("ferrio: "))
        .map(|l| {
            let l = match l.find("/file:").map(|at| at + 1) {
                Some(at) => {
                    let end = at + l[at..].find(", ").map_or(0, |e| e + 2);
                    format!("{}{}", &l[..at], &l[end..])
                }
                None => l.to_string(),
            };
            match (l.find("pid="), l.find(", err=")) {
                (Some(a), Some(b)) if a < b => format!("{}pid=#{}", &l[..a], &l[b..]),
                _ => l,
            }
        })
        .collect()
}

#[test]
fn corrupted_data_fails_with_fios_error_messages_and_status() {
    let header_of_block = |n: u64| n * 4096;
    let cases: Vec<(&str, Corruption)> = vec![
        // A data byte: the checksum no longer matches.
        (
            "verify=crc32c",
            Box::new(|p| overwrite(p, 8192 + 300, b"XXXX")),
        ),
        (
            "verify=sha256",
            Box::new(|p| overwrite(p, 8192 + 100, b"XXXX")),
        ),
        (
            "verify=crc16",
            Box::new(|p| overwrite(p, 8192 + 300, b"XXXX")),
        ),
        ("verify=crc7", Box::new(|p| overwrite(p, 4096 + 41, b"X"))),
        // The magic number of a header.
        ("verify=md5", Box::new(|p| overwrite(p, 16384, b"ZZ"))),
        // A block copied over another: its header names the wrong offset.
        (
            "verify=xxhash",
            Box::new(move |p| {
                let data = std::fs::read(p).unwrap();
                let at = header_of_block(3) as usize;
                overwrite(p, at as u64, &data[..4096]);
            }),
        ),
        // Two bad intervals in a block followed by good ones: fio reports
        // both but the block passes (its last interval is good); the bad
        // magic of a later block ends the job.
        (
            "verify=crc32c;verify_interval=1k",
            Box::new(|p| {
                overwrite(p, 8192 + 100, b"XXXX");
                overwrite(p, 8192 + 1024 + 100, b"YY");
                overwrite(p, 16384, b"ZZ");
            }),
        ),
        // verify_fatal stops at the first bad interval.
        (
            "verify=crc32c;verify_interval=1k;verify_fatal=1",
            Box::new(|p| {
                overwrite(p, 8192 + 100, b"XXXX");
                overwrite(p, 8192 + 1024 + 100, b"YY");
            }),
        ),
        // Patterns: the first byte that differs.
        (
            "verify_pattern=0xfeed\"ab\"%o",
            Box::new(|p| overwrite(p, 8192 + 300, b"XXXX")),
        ),
        (
            "verify=pattern;verify_pattern=0xfeed",
            Box::new(|p| overwrite(p, 4096 + 77, b"X")),
        ),
    ];
    for (options, corrupt) in &cases {
        let outs = write_then_check(fio(), &[fio(), ferrio()], options, corrupt);
        let (want, got) = (&outs[0], &outs[1]);
        assert_ne!(want.code, 0, "{options}: fio should fail");
        assert_eq!(got.code, want.code, "{options}: exit status");
        let (wd, gd) = (json(want), json(got));
        assert_eq!(wd["jobs"][0]["error"], 84, "{options}");
        assert_eq!(gd["jobs"][0]["error"], wd["jobs"][0]["error"], "{options}");
        // The failing read is the last one issued (psync, one at a time).
        assert_eq!(
            gd["jobs"][0]["read"]["total_ios"], wd["jobs"][0]["read"]["total_ios"],
            "{options}: reads issued"
        );
        assert_eq!(messages(got), messages(want), "{options}: stderr");
    }
}

#[test]
fn continue_on_error_verify_reports_every_bad_block_and_goes_on() {
    let options = "verify=crc32c;continue_on_error=verify";
    let corrupt = |p: &Path| {
        overwrite(p, 8192 + 300, b"XXXX");
        overwrite(p, 40960 + 300, b"XXXX");
    };
    let outs = write_then_check(fio(), &[fio(), ferrio()], options, corrupt);
    let (want, got) = (&outs[0], &outs[1]);
    assert_eq!(got.code, want.code, "exit status");
    let (wd, gd) = (json(want), json(got));
    for key in ["error", "total_err", "first_error"] {
        assert_eq!(gd["jobs"][0][key], wd["jobs"][0][key], "{key}");
    }
    assert_eq!(gd["jobs"][0]["read"]["total_ios"], 64);
    assert_eq!(messages(got), messages(want));
}

#[test]
fn buffer_pattern_writes_the_bytes_fio_writes() {
    for pattern in [
        "0xdeadbeef",
        "\"hello\"0x0a",
        "1234567\"xyz\"0x00ff",
        "0xab",
    ] {
        for rw in ["write", "randwrite"] {
            let text = format!(
                "[b]\nioengine=psync\nfilename=data\nbs=4k\nsize=256k\nrw={rw}\nbuffer_pattern={pattern}\n"
            );
            let written = |tool: &str| {
                let dir = Scratch::new("bufpat");
                let out = Run::tool(tool)
                    .arg(JSON[0])
                    .job_named("job.fio", &text)
                    .in_dir(&dir.0)
                    .out();
                assert_eq!(out.code, 0, "{tool} {pattern}: {}", out.stderr);
                std::fs::read(dir.0.join("data")).unwrap()
            };
            let (want, got) = (written(fio()), written(ferrio()));
            assert!(want == got, "{pattern} {rw}: the files differ");
        }
    }
}

#[test]
fn verify_jobs_issue_the_reads_and_writes_fio_issues() {
    // The read-back pass counts in the read direction: one read per block
    // written, whether checked while writing (verify_backlog) or after.
    let dirs = ["read", "write"];
    for (engine, options) in [
        ("psync", "rw=write;verify=md5"),
        ("psync", "rw=randwrite;verify=crc32c"),
        ("psync", "rw=write;verify=sha256;bs=16k"),
        ("psync", "rw=randwrite;verify=xxhash;verify_backlog=16"),
        (
            "psync",
            "rw=write;verify=crc32c;verify_backlog=10;verify_backlog_batch=3",
        ),
        ("psync", "rw=write;verify=pattern;verify_pattern=0xaa55"),
        ("psync", "rw=randwrite;verify_pattern=\"abc\"%o"),
        ("psync", "rw=write;verify=md5;do_verify=0"),
        ("libaio", "rw=randwrite;verify=crc32c;iodepth=8;direct=1"),
        (
            "io_uring",
            "rw=write;verify=sha1;iodepth=4;verify_backlog=32",
        ),
    ] {
        let text = format!(
            "[v]\nioengine={engine}\nfilename=data\nbs=4k\nsize=1m\n{}\n",
            options.replace(';', "\n")
        );
        let counts = |tool: &str| {
            let dir = Scratch::new("verifyio");
            let out = Run::tool(tool)
                .arg(JSON[0])
                .job_named("job.fio", &text)
                .in_dir(&dir.0)
                .out();
            assert_eq!(out.code, 0, "{tool} {options}: {}", out.stderr);
            let doc = json(&out);
            let job = &doc["jobs"][0];
            dirs.map(|d| {
                (
                    job[d]["total_ios"].as_u64().unwrap(),
                    job[d]["io_bytes"].as_u64().unwrap(),
                    job[d]["runtime"].as_u64().unwrap() > 0,
                )
            })
        };
        let (want, got) = (counts(fio()), counts(ferrio()));
        assert_eq!(
            got, want,
            "{engine} {options}: (I/Os, bytes, ran) per direction"
        );
    }
}

#[test]
fn verify_async_finds_what_synchronous_verify_finds() {
    // Helpers do the checking: the same failures, reported as fio's
    // helpers report them (func=async_verify, flags without
    // IO_U_F_IN_CUR_DEPTH). fio 3.33 itself sometimes hangs when a
    // helper meets a fatal failure, so the fatal case is compared with
    // fio's synchronous run, whose report differs only in those flags.
    let corrupt = |p: &Path| {
        overwrite(p, 8192 + 300, b"XXXX");
        overwrite(p, 40960 + 300, b"XXXX");
    };
    for kind in ["verify=crc32c", "verify=md5"] {
        let one = |p: &Path| overwrite(p, 8192 + 300, b"XXXX");
        let want = &write_then_check(fio(), &[fio()], kind, one)[0];
        let options = format!("{kind};verify_async=2;verify_async_cpus=0");
        let got = &write_then_check(fio(), &[ferrio()], &options, one)[0];
        assert_eq!(got.code, want.code, "{options}: exit status");
        assert_eq!(json(got)["jobs"][0]["error"], 84, "{options}");
        let want: Vec<String> = messages(want)
            .iter()
            .map(|l| l.replace("flags=88)", "flags=84)"))
            .collect();
        assert_eq!(messages(got), want, "{options}: stderr");
        assert!(
            got.stdout.contains("func=async_verify"),
            "{options}: {}",
            got.stdout
        );
    }
    // Going on after errors, every block is checked: all failures count.
    let options = "verify=crc32c;verify_async=2;continue_on_error=verify";
    let outs = write_then_check(fio(), &[fio(), ferrio()], options, corrupt);
    let (want, got) = (&outs[0], &outs[1]);
    assert_eq!(got.code, want.code, "exit status");
    let (wd, gd) = (json(want), json(got));
    for key in ["error", "total_err", "first_error"] {
        assert_eq!(gd["jobs"][0][key], wd["jobs"][0][key], "{key}");
    }
    assert_eq!(gd["jobs"][0]["read"]["total_ios"], 64);
    let sorted = |o: &Outcome| {
        let mut m = messages(o);
        m.sort();
        m
    };
    assert_eq!(sorted(got), sorted(want));
}

#[test]
fn time_based_writers_verify_as_fio_does() {
    // A time-based loop ends only once its size was queued to an engine
    // that completes I/O later: then its blocks are checked, and the
    // loop cut short by the runtime is not. A synchronous engine never
    // ends a loop, so nothing is read back; fio says so up front (on
    // stdout), unless a backlog checks while writing. The amounts follow
    // the machine's speed: compared are what was read, the error, the
    // note, and whether the reads have a runtime.
    for (engine, options, reads) in [
        ("psync", "rw=write", false),
        ("psync", "rw=randwrite;verify_backlog=8", true),
        ("libaio", "rw=write;iodepth=4", true),
        ("libaio", "rw=randwrite", true),
    ] {
        let text = format!(
            "[v]\nioengine={engine}\nfilename=data\nbs=4k\nsize=256k\nverify=crc32c\ntime_based=1\nruntime=500ms\n{}\n",
            options.replace(';', "\n")
        );
        let seen = |tool: &str| {
            let dir = Scratch::new("verifytimed");
            dir.write("job.fio", &text);
            let out = Run::tool(tool).args(["job.fio"]).in_dir(&dir.0).out();
            assert_eq!(out.code, 0, "{tool} {engine} {options}: {}", out.stderr);
            let note = out
                .stdout
                .lines()
                .filter(|l| l.starts_with("fio: verification"))
                .map(str::to_string)
                .collect::<Vec<_>>();
            let out = Run::tool(tool)
                .arg(JSON[0])
                .job_named("job.fio", &text)
                .in_dir(&dir.0)
                .out();
            let at = out.stdout.find('{').unwrap_or(0);
            let doc: Value = serde_json::from_str(&out.stdout[at..]).unwrap();
            let job = &doc["jobs"][0];
            let ios = |d: &str| job[d]["total_ios"].as_u64().unwrap();
            let (w, r) = (ios("write"), ios("read"));
            assert!(w > 0 && r <= w, "{tool} {engine} {options}: {w} {r}");
            // What is left unchecked is at most a loop (64 blocks): fio
            // itself has been seen leaving exactly one.
            if reads {
                assert!(w - r <= 64, "{tool} {engine} {options}: {w} {r}");
            }
            let read_time = job["read"]["runtime"].as_u64().unwrap() > 0;
            (job["error"].clone(), r > 0, note, read_time)
        };
        let (want, got) = (seen(fio()), seen(ferrio()));
        assert_eq!(got, want, "{engine} {options}: error, reads, note");
        assert_eq!(want.1, reads, "{engine} {options}: fio's reads");
    }
}

/// The directions of a write_iolog's I/O lines, as runs of one direction
/// (count, "read" or "write").
fn io_runs(log: &str) -> Vec<(usize, String)> {
    let mut runs: Vec<(usize, String)> = Vec::new();
    for dir in log
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|d| *d == "read" || *d == "write")
    {
        match runs.last_mut() {
            Some((n, d)) if d == dir => *n += 1,
            _ => runs.push((1, dir.to_string())),
        }
    }
    runs
}

#[test]
fn blocks_written_more_than_once_are_verified_as_fio_does() {
    // fio checks after each of its loops; without a random map only the
    // latest write over a block is kept; its loops over io_size count the
    // verify reads; a synchronous engine's random writes without a map
    // make one loop. Compared: I/Os per direction, and the runs of reads
    // and writes in the job's write_iolog.
    let cases = [
        "rw=write;loops=2",
        "rw=randwrite;loops=3",
        "rw=randwrite;norandommap=1",
        "rw=randwrite;norandommap=1;loops=2",
        "rw=randwrite;norandommap=1;loops=3;bsrange=1k-8k;verify_interval=1k",
        "rw=write;io_size=1m",
        "rw=randwrite;io_size=512k",
        "rw=randwrite;norandommap=1;io_size=512k",
        "rw=write;io_size=128k;loops=2",
        "rw=write;io_size=96k;loops=3;verify_backlog=7",
        "rw=randwrite;loops=2;verify=crc7;verify_backlog=5",
        "rw=write;loops=2;verify_async=2",
        "rw=randwrite;verify_async=3;verify_backlog=5;iodepth=4;verify_async_cpus=0",
    ];
    let runs: Vec<(&str, &str)> = ["psync", "libaio"]
        .iter()
        .flat_map(|e| cases.iter().map(move |c| (*e, *c)))
        .collect();
    common::parallel(&runs, |&(engine, options)| {
        let text = format!(
            "[v]\nioengine={engine}\nfilename=data\nbs=4k\nsize=256k\nverify=crc32c\nwrite_iolog=io.log\n{}\n",
            options.replace(';', "\n")
        );
        let seen = |tool: &str| {
            let dir = Scratch::new("verifyloops");
            let out = Run::tool(tool)
                .arg(JSON[0])
                .job_named("job.fio", &text)
                .in_dir(&dir.0)
                .out();
            assert_eq!(out.code, 0, "{tool} {engine} {options}: {}", out.stderr);
            let doc = json(&out);
            let job = &doc["jobs"][0];
            assert_eq!(job["error"], 0, "{tool} {engine} {options}");
            let log = std::fs::read_to_string(dir.0.join("io.log")).unwrap();
            (
                ["read", "write"].map(|d| job[d]["total_ios"].as_u64().unwrap()),
                io_runs(&log),
                messages(&out),
            )
        };
        let (want, got) = (seen(fio()), seen(ferrio()));
        assert_eq!(got, want, "{engine} {options}: I/Os, runs, stderr");
    });
}

#[test]
fn verify_setups_ferrio_cannot_run_yet_are_refused() {
    for options in [
        "rw=randrw;verify=md5;experimental_verify=1",
        "rw=write;verify=md5;experimental_verify=1;iodepth=2",
        "rw=randwrite;verify=md5;experimental_verify=1;randrepeat=0",
    ] {
        let dir = Scratch::new("verifyrefuse");
        let out = Run::ferrio()
            .arg(JSON[0])
            .job_named("job.fio", &job(options, ""))
            .in_dir(&dir.0)
            .out();
        assert_eq!(out.code, 1, "{options}");
        assert!(out.stderr.contains("ferrio"), "{options}: {}", out.stderr);
        assert!(
            !dir.0.join("data").exists(),
            "{options}: no I/O before refusing"
        );
    }
}

#[test]
fn a_job_that_only_reads_checks_every_block_it_reads() {
    for rw in ["read", "randread"] {
        let options = format!("verify=crc32c;rw={rw}");
        // Unchanged data passes; a corrupted block fails as in fio.
        for corrupt in [false, true] {
            let dir = Scratch::new("verifyread");
            let wrote = Run::fio()
                .arg(JSON[0])
                .job_named("write.fio", &job("verify=crc32c", "do_verify=0"))
                .in_dir(&dir.0)
                .out();
            assert_eq!(wrote.code, 0, "{}", wrote.stderr);
            if corrupt {
                overwrite(&dir.0.join("data"), 8192 + 300, b"XXXX");
            }
            let read = |tool| {
                Run::tool(tool)
                    .arg(JSON[0])
                    .job_named("read.fio", &job(&options, ""))
                    .in_dir(&dir.0)
                    .out()
            };
            let (want, got) = (read(fio()), read(ferrio()));
            let label = format!("{rw}, corrupted: {corrupt}");
            assert_eq!(got.code, want.code, "{label}: exit status");
            let (wd, gd) = (json(&want), json(&got));
            assert_eq!(gd["jobs"][0]["error"], wd["jobs"][0]["error"], "{label}");
            assert_eq!(messages(&got), messages(&want), "{label}: stderr");
            if !corrupt {
                assert_eq!(gd["jobs"][0]["read"]["total_ios"], 64, "{label}");
            }
        }
    }
}

/// The dump files a check left in `dir`, by name, with their bytes.
fn dumps(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            ["received", "expected", "hdr_fail"]
                .iter()
                .any(|k| name.ends_with(&format!(".{k}")))
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    found.sort();
    found
}

/// verify_dump=1: on each failure fio saves the interval read and the one
/// expected (regenerated from the seed the header holds), or the interval
/// with a bad header, as `<file>.<offset>.<kind>`, and says so on stderr.
/// Both tools check the same fio-written, corrupted data in their own
/// directory (and once with --aux-path): same lines, same files, same
/// bytes, apart from the expected copy's header fields that record the
/// checking I/O (time, write number) and the header CRC over them.
#[test]
fn verify_dump_saves_fios_files() {
    let cases: Vec<(&str, Corruption)> = vec![
        (
            "verify=crc32c",
            Box::new(|p| overwrite(p, 8192 + 300, b"XXXX")),
        ),
        ("verify=md5", Box::new(|p| overwrite(p, 16384, b"ZZ"))),
        (
            "verify=crc32c;verify_interval=1k",
            Box::new(|p| {
                overwrite(p, 8192 + 100, b"XXXX");
                overwrite(p, 8192 + 1024 + 100, b"YY");
                overwrite(p, 16384, b"ZZ");
            }),
        ),
        (
            "verify_pattern=0xfeed\"ab\"%o",
            Box::new(|p| overwrite(p, 8192 + 300, b"XXXX")),
        ),
        (
            "verify=pattern;verify_pattern=0xfeed",
            Box::new(|p| overwrite(p, 4096 + 77, b"X")),
        ),
    ];
    for (options, corrupt) in &cases {
        for aux in [false, true] {
            let label = format!("{options}, aux-path: {aux}");
            let written = Scratch::new("verify-dump");
            let wrote = Run::fio()
                .arg(JSON[0])
                .job_named("w.fio", &job(options, "do_verify=0"))
                .in_dir(&written.0)
                .out();
            assert_eq!(wrote.code, 0, "{label}: {}", wrote.stderr);
            corrupt(&written.0.join("data"));
            let mut seen = Vec::new();
            for tool in [fio(), ferrio()] {
                let dir = Scratch::new("verify-dump-check");
                std::fs::copy(written.0.join("data"), dir.0.join("data")).unwrap();
                let check = job(options, "verify_only=1\nverify_dump=1");
                dir.write("c.fio", &check);
                let aux_dir = dir.0.join("aux");
                std::fs::create_dir(&aux_dir).unwrap();
                let mut args = vec!["--output-format=json", "c.fio"];
                if aux {
                    args.push("--aux-path=aux");
                }
                let out = Run::tool(tool).args(&args).in_dir(&dir.0).out();
                assert_ne!(out.code, 0, "{label}: {tool} should fail");
                let files = dumps(if aux { &aux_dir } else { &dir.0 });
                assert!(!files.is_empty(), "{label}: {tool} dumped nothing");
                seen.push((messages(&out), files));
            }
            let ((want_lines, want), (got_lines, got)) = (&seen[0], &seen[1]);
            assert_eq!(got_lines, want_lines, "{label}: stderr");
            let names = |f: &[(String, Vec<u8>)]| f.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
            assert_eq!(names(got), names(want), "{label}: dump files");
            let headed = !options.contains("verify=pattern");
            for ((name, w), (_, g)) in want.iter().zip(got) {
                assert_eq!(g.len(), w.len(), "{label}: {name} length");
                let recorded =
                    |i: usize| headed && name.ends_with(".expected") && (24..40).contains(&i);
                let differ: Vec<usize> = (0..w.len())
                    .filter(|&i| w[i] != g[i] && !recorded(i))
                    .collect();
                assert!(differ.is_empty(), "{label}: {name} differs at {differ:?}");
            }
        }
    }
}

/// What each tool prints before its JSON document, and the jobs' errors.
fn before_json_and_errors(out: &Outcome) -> (String, Vec<Value>) {
    let start = out.stdout.find('{').expect("a JSON document");
    let doc: Value = serde_json::from_str(&out.stdout[start..]).expect("JSON after the notices");
    let errors = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["error"].clone())
        .collect();
    (out.stdout[..start].to_string(), errors)
}

/// fio warns on its output, once per job as written, when clones of a
/// verifying writer share files (a named file, or a filename_format
/// that does not tell clones apart), and not otherwise. A verifying job
/// whose file cannot be set up (a missing file without size=) fails at
/// setup in fio before any I/O, so even a verify setup ferrio does not run
/// yet (loops=2) gets fio's setup error, not a refusal
/// (fio-examples/cross-stripe-verify.fio on a machine without its NVMe).
#[test]
fn verifying_clones_warning_and_setup_failure_come_as_in_fio() {
    let cases = [
        "filename=data\nsize=64k",
        "size=64k",
        "size=64k\nfilename_format=$jobname.$filenum",
        "filename=data\nsize=64k\ndo_verify=0",
        "filename=missing/nvme0n1\nloops=2\nverify_backlog=1\nverify_dump=1\nio_size=1m",
    ];
    for case in cases {
        let text =
            format!("[v]\nioengine=psync\nbs=4k\nrw=write\nverify=crc32c\nnumjobs=2\n{case}\n");
        let mut seen = Vec::new();
        for tool in [fio(), ferrio()] {
            let dir = Scratch::new("verify-clones");
            dir.write("v.fio", &text);
            let out = Run::tool(tool)
                .args(["--output-format=json", "v.fio"])
                .in_dir(&dir.0)
                .out();
            seen.push((out.code, before_json_and_errors(&out), messages(&out)));
        }
        assert_eq!(seen[1], seen[0], "{case}");
    }
}
