//! Values and regions as fio 3.33 reads them: negative sizes, a region
//! that meets the end of its file, offsets as shares of a sized job, no
//! files at all, include chains and the command line's number options.
//! Each case runs fio and ferrio on the same input and compares what the
//! job did (the offsets of its I/Os, its counts), its messages and exit
//! status.

mod common;

use std::time::Duration;

use common::{Outcome, Run, Scratch, fio_part, json};

/// A run that takes longer than this has read a size wrong (a size near
/// 2^64 runs until killed); every case here ends in well under a second.
const LIMIT: Duration = Duration::from_secs(30);

/// (exit status, per job: error, read ios, read bytes, write ios).
fn summary(out: &Outcome) -> (i32, Vec<[u64; 4]>) {
    let doc = json(out);
    let jobs = doc["jobs"].as_array().expect("jobs").iter();
    let n = |j: &serde_json::Value, d: &str, k: &str| j[d][k].as_u64().unwrap();
    let jobs = jobs
        .map(|j| {
            [
                j["error"].as_u64().unwrap(),
                n(j, "read", "total_ios"),
                n(j, "read", "io_bytes"),
                n(j, "write", "total_ios"),
            ]
        })
        .collect();
    (out.code, jobs)
}

fn both(args: &[&str]) -> (Outcome, Outcome) {
    Run::new()
        .args(["--output-format=json"])
        .args(args)
        .limit(LIMIT)
        .both()
}

#[test]
fn negative_sizes_are_read_as_fio_reads_them() {
    // fio splits a number at ',', ':' or '-' and hands every piece to
    // the options it reads through a callback (size, offset, io_size...),
    // so the last piece wins; the others keep the first.
    let cases: &[&[&str]] = &[
        &["--size=-1m"],
        &["--size=-4k"],
        &["--size=-1m-2m"],
        &["--size=1m:2m"],
        &["--size=1m", "--offset=-4k"],
        &["--size=1m", "--io_size=-1m"],
        &["--size=1m", "--io_size=150%-1m"],
        &["--size=1m", "--offset_increment=-4k", "--numjobs=2"],
        &["--size=1m", "--number_ios=-5"],
        &["--size=1m", "--iodepth=-2"],
        &["--filesize=1m", "--size=-1z"],
    ];
    for extra in cases {
        for engine in ["--ioengine=null", "--ioengine=psync"] {
            let mut args = vec!["--name=j", engine, "--rw=read"];
            args.extend_from_slice(extra);
            let (want, got) = both(&args);
            assert_eq!(summary(&got), summary(&want), "{args:?}: {}", got.stderr);
            assert_eq!(fio_part(&got.stderr), fio_part(&want.stderr), "{args:?}");
        }
    }
    // A negative block size is 2^64 less 4k for reads (the write and trim
    // sizes take the 4k that follows): fio fails to allocate buffers for
    // it; ferrio refuses the job, naming the size.
    let args = [
        "--name=j",
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
        "--bs=-4k",
    ];
    let (want, got) = both(&args);
    assert_eq!(want.code, 1, "fio: {}", want.stderr);
    assert_eq!(got.code, want.code, "{}", got.stderr);
    assert!(
        got.stderr.contains("read block size 18446744073709547520"),
        "{}",
        got.stderr
    );
}

/// Each I/O's (direction, offset) in a run's write_iolog, and the run.
fn issued(run: &Run) -> (Outcome, Vec<String>) {
    let (dir, out) = run.clone().arg("--write_iolog=io.log").out_kept("regions");
    let log = std::fs::read_to_string(dir.0.join("io.log")).unwrap_or_default();
    let ios = log
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 5 && matches!(f[2], "read" | "write")).then(|| format!("{} {}", f[2], f[3]))
        })
        .collect();
    (out, ios)
}

/// Runs `args` with both tools; both must end alike, say the same and
/// issue the same I/Os in the same order.
fn same_ios(args: &[&str]) {
    let run = |tool: Run| tool.args(args).arg("--output-format=json").limit(LIMIT);
    let (want, want_ios) = issued(&run(Run::fio()));
    let (got, got_ios) = issued(&run(Run::ferrio()));
    assert_eq!(got.code, want.code, "{args:?}: {}", got.stderr);
    assert_eq!(fio_part(&got.stderr), fio_part(&want.stderr), "{args:?}");
    assert_eq!(got_ios, want_ios, "{args:?}");
}

#[test]
fn a_region_stays_where_fio_keeps_it() {
    // The case: the region is [32k, 64k), gone round twice.
    same_ios(&[
        "--name=j",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--offset=32k",
        "--size=64k",
        "--io_size=64k",
        "--filesize=64k",
        "--zonemode=strided",
        "--zonerange=4k",
        "--zonesize=4k",
        "--randrepeat=0",
    ]);
    let base = ["--name=j", "--bs=4k"];
    let cases: &[&[&str]] = &[
        // A fixed filesize from the offset to its end, random and
        // sequential, with and without the map, and lfsr.
        &[
            "--rw=randread",
            "--offset=32k",
            "--size=16k",
            "--filesize=64k",
        ],
        &[
            "--rw=randread",
            "--offset=32k",
            "--filesize=48k",
            "--io_size=64k",
            "--norandommap",
        ],
        &[
            "--rw=randread",
            "--offset=32k",
            "--size=16k",
            "--filesize=64k",
            "--random_generator=lfsr",
        ],
        &[
            "--rw=read",
            "--offset=32k",
            "--size=64k",
            "--filesize=48k",
            "--io_size=64k",
        ],
        // Strided zones: lfsr over one zone, zones that wrap at fio's
        // length of the file (which for a faking engine is the size over
        // the files), several files taking turns in one job's zones.
        &[
            "--rw=randread",
            "--size=64k",
            "--zonemode=strided",
            "--zonerange=8k",
            "--zonesize=4k",
            "--random_generator=lfsr",
        ],
        &[
            "--rw=randread",
            "--offset=32k",
            "--filesize=48k",
            "--io_size=64k",
            "--zonemode=strided",
            "--zonerange=8k",
            "--zonesize=4k",
            "--random_generator=lfsr",
        ],
        &[
            "--rw=randread",
            "--size=64k",
            "--filesize=48k",
            "--zonemode=strided",
            "--zonerange=8k",
            "--zonesize=4k",
        ],
        &[
            "--rw=read",
            "--nrfiles=2",
            "--size=64k",
            "--zonemode=strided",
            "--zonerange=8k",
            "--zonesize=4k",
        ],
        &[
            "--rw=read",
            "--nrfiles=2",
            "--openfiles=2",
            "--size=64k",
            "--zonemode=strided",
            "--zonerange=8k",
            "--zonesize=4k",
        ],
        // An offset past the file, and one at its end with no size.
        &["--rw=read", "--offset=2m", "--filesize=1m"],
        &["--rw=read", "--offset=64k", "--filesize=64k"],
    ];
    for engine in ["--ioengine=null", "--ioengine=psync"] {
        for case in cases {
            let mut args = base.to_vec();
            args.push(engine);
            args.extend_from_slice(case);
            same_ios(&args);
        }
    }
}

#[test]
fn an_offset_share_of_a_sized_job_is_fios() {
    // A diskless engine's file is as long as the size; a missing file's
    // length is 0, so its share is 0.
    for engine in ["--ioengine=null", "--ioengine=psync"] {
        for case in [
            &["--offset=100%", "--size=64k"][..],
            &["--offset=50%", "--size=64k", "--io_size=32k"],
            &["--offset=100%", "--size=64k", "--filesize=64k"],
            &["--offset=25%", "--filesize=64k"],
        ] {
            let mut args = vec!["--name=j", "--bs=4k", "--rw=read", engine];
            args.extend_from_slice(case);
            same_ios(&args);
        }
    }
}

#[test]
fn nrfiles_zero_is_a_job_without_files() {
    for engine in ["--ioengine=null", "--ioengine=psync"] {
        let args = ["--name=j", engine, "--rw=read", "--size=1m", "--nrfiles=0"];
        let (want, got) = both(&args);
        assert_eq!(summary(&want), (0, vec![[0, 0, 0, 0]]), "{}", want.stderr);
        assert_eq!(summary(&got), summary(&want), "{}", got.stderr);
    }
    // A named file is still used.
    let args = [
        "--name=j",
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
        "--nrfiles=0",
        "--filename=f",
    ];
    let (want, got) = both(&args);
    assert_eq!(summary(&got), summary(&want), "{}", got.stderr);
}

#[test]
fn a_deep_include_chain_is_read_and_a_cycle_is_an_error() {
    let s = Scratch::new("includes");
    for i in 1..=40 {
        s.write(&format!("f{i}.inc"), &format!("include f{}.inc\n", i + 1));
    }
    s.write("f41.inc", "size=64k\n");
    s.write("deep.fio", "[j]\nioengine=null\nrw=read\ninclude f1.inc\n");
    let (want, got) = Run::new()
        .args(["--output-format=json", "deep.fio"])
        .in_dir(&s.0)
        .limit(LIMIT)
        .both();
    assert_eq!(
        summary(&want),
        (0, vec![[0, 16, 65536, 0]]),
        "{}",
        want.stderr
    );
    assert_eq!(summary(&got), summary(&want), "{}", got.stderr);
    // A real cycle: fio recurses until it runs out of open files (and then
    // fails the job); ferrio says which files make the cycle. Both fail.
    s.write("a.inc", "include b.inc\n");
    s.write("b.inc", "include a.inc\n");
    s.write("cycle.fio", "[j]\nioengine=null\nsize=64k\ninclude a.inc\n");
    let (want, got) = Run::new()
        .args(["--output-format=json", "cycle.fio"])
        .in_dir(&s.0)
        .limit(LIMIT)
        .both();
    assert_eq!(
        want.code,
        1,
        "fio: {}",
        &want.stderr[..want.stderr.len().min(500)]
    );
    assert_eq!(got.code, want.code, "{}", got.stderr);
    assert!(
        got.stderr
            .contains("include cycle: cycle.fio -> a.inc -> b.inc -> a.inc"),
        "{}",
        got.stderr
    );
}

#[test]
fn status_interval_and_max_jobs_values_are_fios() {
    let job = [
        "--name=j",
        "--ioengine=null",
        "--size=64k",
        "--numjobs=3",
        "--output-format=terse",
    ];
    // fio refuses an interval below a millisecond (zero, negative, or a
    // unit it does not know, which leaves microseconds), and one that
    // does not read as a time; it ignores --max-jobs, whatever its value.
    for opt in [
        "--status-interval=-1",
        "--status-interval=0",
        "--status-interval=1x",
        "--status-interval=abc",
        "--max-jobs=-1",
        "--max-jobs=2",
        "--max-jobs=abc",
    ] {
        let (want, got) = Run::new().arg(opt).args(job).limit(LIMIT).both();
        assert_eq!(got.code, want.code, "{opt}: {}", got.stderr);
        assert_eq!(fio_part(&got.stderr), fio_part(&want.stderr), "{opt}");
        let jobs = |o: &Outcome| o.stdout.lines().filter(|l| l.starts_with("3;")).count();
        assert_eq!(jobs(&got), jobs(&want), "{opt}: {}", got.stdout);
    }
}

#[test]
fn a_missing_include_fails_its_job_as_in_fio() {
    let s = Scratch::new("missing-include");
    s.write(
        "job.fio",
        "[j]\nioengine=null\nsize=64k\ninclude nothere.inc\n[k]\nioengine=null\nsize=64k\n",
    );
    // fio keeps the open's errno as the job's error: the job stops after
    // its first I/O and fails, the other job runs, the status is 1.
    let run = Run::new().in_dir(&s.0).limit(LIMIT);
    let (want, got) = run.clone().args(["--output-format=json", "job.fio"]).both();
    assert_eq!(
        summary(&want),
        (1, vec![[2, 1, 4096, 0], [0, 16, 65536, 0]]),
        "{}",
        want.stderr
    );
    assert_eq!(summary(&got), summary(&want), "{}", got.stderr);
    assert_eq!(fio_part(&got.stderr), fio_part(&want.stderr));
    let (want, got) = run.arg("job.fio").both();
    let error = "err= 2 (file:init.c:1956, func=job file open, error=No such file or directory)";
    let end = "err=2/file:init.c:1956, func=job file open, error=No such file or directory\n";
    for out in [&want, &got] {
        assert!(out.stdout.contains(error), "{}", out.stdout);
        assert!(out.stdout.contains(end), "{}", out.stdout);
        assert!(!out.stdout.contains("fio: file:init.c"), "{}", out.stdout);
    }
}

/// A job file with bytes that are not UTF-8 (Latin-1 text, say): fio keeps
/// them as they are, in the file it names and in its report; so does
/// ferrio.
#[test]
fn bytes_that_are_not_utf8_are_kept_as_fio_keeps_them() {
    let job: &[u8] = b"[j]\ndescription=caf\xe9 \xff\nfilename=f\xe9\nsize=64k\nrw=write\n";
    let mut reports = Vec::new();
    for program in [common::fio(), common::ferrio()] {
        let dir = Scratch::new("bytes");
        std::fs::write(dir.0.join("job.fio"), job).unwrap();
        for format in ["json", "normal"] {
            let out = Run::tool(program)
                .args([
                    &format!("--output-format={format}"),
                    &format!("--output={format}.out"),
                    "job.fio",
                ])
                .in_dir(&dir.0)
                .out();
            assert_eq!(out.code, 0, "{program}: {}", out.stderr);
        }
        // The file is named with the byte itself.
        let names: Vec<Vec<u8>> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| {
                use std::os::unix::ffi::OsStrExt;
                e.unwrap().file_name().as_bytes().to_vec()
            })
            .collect();
        assert!(names.contains(&b"f\xe9".to_vec()), "{program}: {names:?}");
        let json = std::fs::read(dir.0.join("json.out")).unwrap();
        let normal = std::fs::read(dir.0.join("normal.out")).unwrap();
        let lines = |text: &[u8], keys: &[&[u8]]| -> Vec<Vec<u8>> {
            text.split(|&b| b == b'\n')
                .filter(|l| keys.iter().any(|k| l.windows(k.len()).any(|w| w == *k)))
                .map(<[u8]>::to_vec)
                .collect()
        };
        let picked = (
            lines(&json, &[b"\"description\"", b"\"filename\""]),
            lines(&normal, &[b"caf"]),
        );
        assert!(
            !picked.0.is_empty(),
            "{program}: no description in its JSON"
        );
        reports.push(picked);
    }
    assert_eq!(reports[1], reports[0], "ferrio's lines vs fio's");
    assert!(
        reports[0]
            .0
            .iter()
            .any(|l| l.ends_with(b"\"caf\xe9 \xff\","))
    );
}
