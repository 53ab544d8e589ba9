//! trim_percentage, trim_backlog, trim_backlog_batch, trim_verify_zero and
//! block_error_percentiles beside fio 3.33, on regular files in a scratch
//! folder.
//!
//! On these jobs fio 3.33 either never issues its backlog trim (and notes
//! the chosen blocks left over), or dies of an assertion on the first one;
//! the tests compare the counts, bytes and errors each tool reports, the
//! leftover notes, and whether the job died.

mod common;

use common::{Outcome, Run, Scratch, ferrio, fio, parallel};
use serde_json::Value;

/// Runs `job` (its file named `data` in the scratch folder) with `tool`.
fn run_job(tool: &str, job: &str, format: &str) -> Outcome {
    Run::tool(tool)
        .args([&format!("--output-format={format}")])
        .job(job)
        .out_kept("trimv")
        .1
}

/// A verifying sequential writer of 256 KiB in 4 KiB blocks, plus `extra`.
fn writer(extra: &str) -> String {
    format!("[j]\nfilename=data\nioengine=psync\nrw=write\nbs=4k\nsize=256k\nverify=md5\n{extra}")
}

/// Each direction's (total_ios, io_bytes), and the job's error.
fn figures(out: &Outcome) -> ([(u64, u64); 3], u64) {
    let doc = common::json(out);
    let job = &doc["jobs"][0];
    (common::ios_and_bytes(job), job["error"].as_u64().unwrap())
}

/// What fio's stderr says apart from its assertion's own text (which
/// quotes fio's source) and ferrio's explanations, with pids blanked.
fn stderr_said(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| !l.starts_with("ferrio: ") && !l.contains("Assertion `"))
        .map(|l| match l.split_once("pid=") {
            Some((head, tail)) => {
                let rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
                format!("{head}pid=N{rest}")
            }
            None => l.to_string(),
        })
        .collect()
}

#[test]
fn trim_backlog_jobs_issue_die_and_verify_as_fios_do() {
    let mut cases = Vec::new();
    for percent in [0, 50, 100] {
        cases.push(format!("trim_percentage={percent}\n"));
        for backlog in [1, 8] {
            for batch in [1, 4] {
                cases.push(format!(
                    "trim_percentage={percent}\ntrim_backlog={backlog}\ntrim_backlog_batch={batch}\n"
                ));
            }
        }
    }
    cases.extend(
        [
            // A backlog the writes reach only at their very end.
            "trim_percentage=100\ntrim_backlog=64\n",
            // A backlog they never reach: every verify still passes.
            "trim_percentage=100\ntrim_backlog=100\ntrim_verify_zero=0\n",
            "trim_percentage=3\ntrim_backlog=100\nloops=2\n",
            "trim_percentage=1\ntrim_backlog=4\nsize=4m\n",
            "trim_percentage=3\ntrim_backlog=7\nrw=randwrite\nsize=1m\nrandseed=42\n",
            "trim_percentage=20\ntrim_backlog=5\nbsrange=4k-16k\nsize=1m\n",
            "trim_percentage=30\ntrim_backlog=6\niodepth=8\n",
            "trim_percentage=60\nrw=randwrite\nbsrange=4k-16k\n",
            "trim_percentage=50\nrw=write\nbsrange=4k-16k\noffset_increment=4k\n",
            "trim_percentage=50\nrw=randwrite\nrandom_generator=lfsr\n",
            // verify_backlog's reads take blocks off the trim list, and a
            // read just done holds the trim back.
            "trim_percentage=50\nverify_backlog=5\n",
            "trim_percentage=50\nverify_backlog=7\nverify_backlog_batch=3\n",
            "trim_percentage=50\nverify_backlog=4\ntrim_backlog=4\n",
            "trim_percentage=5\nverify_backlog=4\nverify_backlog_batch=2\ntrim_backlog=3\n",
            "trim_percentage=5\nverify_backlog=3\ntrim_backlog=2\nrw=randwrite\n",
            "trim_percentage=100\nverify_backlog=16\nverify_backlog_batch=4\ntrim_backlog=20\n",
            "trim_percentage=30\nverify_backlog=6\nverify_backlog_batch=2\nloops=2\n",
        ]
        .map(String::from),
    );
    let failures: Vec<String> = parallel(&cases, |extra| {
        let job = writer(extra);
        let theirs = run_job(fio(), &job, "json");
        let ours = run_job(ferrio(), &job, "json");
        let mut wrong = Vec::new();
        if theirs.code != ours.code {
            wrong.push(format!("exit {} vs {}", theirs.code, ours.code));
        }
        let (f, r) = (figures(&theirs), figures(&ours));
        if f != r {
            wrong.push(format!("(ios, bytes) per direction, error: {f:?} vs {r:?}"));
        }
        let (fl, rl) = (stderr_said(&theirs.stderr), stderr_said(&ours.stderr));
        if fl != rl {
            wrong.push(format!("stderr {fl:?} vs {rl:?}"));
        }
        (!wrong.is_empty()).then(|| format!("{extra:?}: {}", wrong.join("; ")))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_job_that_dies_on_its_backlog_trim_reports_what_fios_parent_reports() {
    let job = writer("trim_percentage=100\ntrim_backlog=8\n");
    let (theirs, ours) = (
        run_job(fio(), &job, "json"),
        run_job(ferrio(), &job, "json"),
    );
    let (f, r) = (common::json(&theirs), common::json(&ours));
    let (f, r) = (&f["jobs"][0], &r["jobs"][0]);
    for dir in ["read", "write", "trim"] {
        for key in [
            "io_bytes",
            "bw",
            "runtime",
            "total_ios",
            "bw_samples",
            "iops_samples",
        ] {
            assert_eq!(f[dir][key], r[dir][key], "{dir} {key}");
        }
        assert_eq!(f[dir]["iops"], r[dir]["iops"], "{dir} iops");
        assert_eq!(
            f[dir]["clat_ns"]["N"], r[dir]["clat_ns"]["N"],
            "{dir} clat N"
        );
    }
    for key in [
        "error",
        "elapsed",
        "job_runtime",
        "usr_cpu",
        "sys_cpu",
        "ctx",
        "majf",
        "minf",
    ] {
        assert_eq!(f[key], r[key], "{key}");
    }
    // The normal report: the same lines, up to the measured values (the
    // write line is missing from both, as the job moved no bytes).
    let (theirs, ours) = (
        run_job(fio(), &job, "normal"),
        run_job(ferrio(), &job, "normal"),
    );
    let shape = |o: &Outcome| -> Vec<String> {
        o.stdout
            .lines()
            .skip_while(|l| !l.contains("groupid="))
            .take_while(|l| !l.starts_with("Disk stats"))
            // Which latency ranges have lines depends on the machine.
            .filter(|l| !l.trim_start().starts_with("lat ("))
            .map(|l| l.split(':').next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(shape(&theirs), shape(&ours));
}

/// The block lifetime lines of a normal report.
fn block_lines(stdout: &str) -> Vec<&str> {
    let lines: Vec<&str> = stdout.lines().collect();
    match lines.iter().position(|l| l.contains("block lifetime")) {
        Some(i) => lines[i..(i + 2).min(lines.len())].to_vec(),
        None => Vec::new(),
    }
}

/// The keys of the first job's JSON object.
fn job_keys(out: &Outcome) -> Vec<String> {
    match &common::json(out)["jobs"][0] {
        Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("no job object: {other}"),
    }
}

#[test]
fn block_error_percentiles_reports_what_fio_reports() {
    let cases = [
        "rw=write\nbs=4k\nsize=256k\n",
        "rw=write\nbs=512\nsize=256k\n",
        "rw=randwrite\nbs=4k\nsize=256k\nverify=crc32c\n",
        // Every trim of a regular file fails: the table stays untouched.
        "rw=trim\nbs=4k\nsize=256k\n",
        "rw=randtrim\nbs=4k\nsize=256k\n",
        "rw=trimwrite\nbs=4k\nsize=256k\n",
    ];
    let failures: Vec<String> = parallel(&cases, |extra| {
        let job = format!("[j]\nfilename=data\nioengine=psync\nblock_error_percentiles=1\n{extra}");
        let mut wrong = Vec::new();
        let (theirs, ours) = (
            run_job(fio(), &job, "normal"),
            run_job(ferrio(), &job, "normal"),
        );
        if theirs.code != ours.code {
            wrong.push(format!("normal exit {} vs {}", theirs.code, ours.code));
        }
        let (f, r) = (block_lines(&theirs.stdout), block_lines(&ours.stdout));
        if f.is_empty() || f != r {
            wrong.push(format!("lines {f:?} vs {r:?}"));
        }
        let (theirs, ours) = (
            run_job(fio(), &job, "json"),
            run_job(ferrio(), &job, "json"),
        );
        let has_block = |o: &Outcome| job_keys(o).iter().any(|k| k == "block");
        if has_block(&theirs) != has_block(&ours) {
            wrong.push("JSON `block` object differs".to_string());
        }
        if figures(&theirs) != figures(&ours) {
            wrong.push(format!("{:?} vs {:?}", figures(&theirs), figures(&ours)));
        }
        (!wrong.is_empty()).then(|| format!("{extra:?}: {}", wrong.join("; ")))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn block_error_percentiles_setup_errors_match_fios() {
    // More trim blocks than fio's table holds: the job fails its setup.
    let big = "[j]\nfilename=data\nioengine=psync\nrw=write\nbs=4k\nsize=64m\nblock_error_percentiles=1\n";
    let (theirs, ours) = (run_job(fio(), big, "json"), run_job(ferrio(), big, "json"));
    assert_eq!(theirs.code, ours.code, "{}\n{}", theirs.stderr, ours.stderr);
    assert_eq!(figures(&theirs), figures(&ours));
    let first = |o: &Outcome| o.stderr.lines().next().unwrap_or("").to_string();
    assert_eq!(first(&theirs), first(&ours));
    // Several files: fio refuses the job file.
    let two = "[j]\nfilename=a:b\nrw=write\nsize=256k\nblock_error_percentiles=1\n";
    let (theirs, ours) = (
        run_job(fio(), two, "normal"),
        run_job(ferrio(), two, "normal"),
    );
    assert_eq!(theirs.code, ours.code);
    assert_eq!(
        theirs.stderr.lines().next(),
        common::fio_part(&ours.stderr).lines().next()
    );
}

#[test]
fn what_ferrio_cannot_match_is_refused_before_any_io() {
    // Trims that complete change the block table, and fio 3.33 then
    // aborts in its report (the reason ferrio refuses): shown here.
    let trims =
        "[j]\nfilename=data\nioengine=null\nrw=trim\nbs=4k\nsize=256k\nblock_error_percentiles=1\n";
    let theirs = run_job(fio(), trims, "json");
    assert!(
        theirs.code == 134 || theirs.code == -1,
        "fio 3.33 was expected to abort: {} {}",
        theirs.code,
        theirs.stderr
    );
    let mut refused = vec![trims.to_string()];
    // Where fio keeps writing while chosen blocks wait, or its trim comes
    // due by the timing of completions.
    for extra in [
        "trim_percentage=50\nio_size=128k\n",
        "trim_percentage=50\nnumber_ios=10\n",
        "trim_percentage=50\ntime_based=1\nruntime=1\n",
        "trim_percentage=50\nrw=randwrite\nnorandommap=1\n",
        "trim_percentage=50\nverify_only=1\n",
        "trim_percentage=50\nioengine=libaio\niodepth=4\n",
        // fio never runs out of offsets here and writes on for good.
        "trim_percentage=50\nrw=write:-8k\n",
        "trim_percentage=50\nrw=randwrite\nrandom_distribution=zipf:1.2\n",
        "trim_percentage=50\nrw=randwrite\npercentage_random=50\n",
        "trim_percentage=50\nzonemode=strided\nzonesize=16k\nzonerange=32k\n",
    ] {
        refused.push(writer(extra));
    }
    for job in refused {
        let s = Scratch::new("trimv-refused");
        s.write("job.fio", &job);
        let out = Run::ferrio().args(["job.fio"]).in_dir(&s.0).out();
        assert_eq!(out.code, 1, "{job}: {}", out.stderr);
        assert!(
            out.stderr.contains("not run by ferrio"),
            "{job}: {}",
            out.stderr
        );
        assert!(!s.0.join("data").exists(), "{job}: wrote its file");
    }
}
