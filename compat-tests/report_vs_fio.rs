//! The reports, beside fio 3.33's on the same job files: every file in
//! `compat-tests/reports/` runs with both tools in
//! `--output-format=terse,json,normal` (which also checks fio's framing:
//! header lines, then terse, then JSON, then the normal report).
//!
//! - normal: the same lines, in the same order, with the same labels, once
//!   measured numbers are masked;
//! - JSON: the same key paths, in the same order, with the same types, and
//!   equal deterministic values (names, groups, option maps, I/O counts of
//!   size-based jobs, percentile keys);
//! - terse: the same field count per line and equal deterministic fields.

mod common;

use std::path::PathBuf;

use common::report_rules::{self, Parts, fixed};
use common::{Run, Scratch, ferrio, fio, parallel};
use serde_json::Value;

/// One tool's output, split into its parts by the report rules' splitter.
fn split(stdout: &str, tool: &str) -> Parts {
    report_rules::split(stdout).unwrap_or_else(|e| panic!("{tool}: {e}\n{stdout}"))
}

/// Masks what is measured: numbers (keeping whether a binary or decimal
/// prefix followed), latency units, padding; and folds the lines whose
/// count depends on the measurements (latency distribution lines and
/// percentile table rows) into one. ferrio's own lines (`ferrio ...`,
/// e.g. the latency from intended issue times of a rate-capped job) are
/// left out.
fn masked(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        if line.trim_start().starts_with("ferrio ") {
            continue;
        }
        let mut m = mask_numbers(line);
        for unit in ["(nsec)", "(usec)", "(msec)"] {
            m = m.replace(unit, "(unit)");
        }
        m = m
            .replace("MiB/s):", "KiB/s):")
            .replace("Mibit/s):", "Kibit/s):");
        while m.contains("= ") {
            m = m.replace("= ", "=");
        }
        let folded = if m.starts_with("     |") {
            Some("     | (percentiles)")
        } else if m.starts_with("  lat (unit)   :") {
            Some("  lat (unit)   : (distribution)")
        } else {
            None
        };
        match folded {
            Some(f) if out.last().map(String::as_str) == Some(f) => {}
            Some(f) => out.push(f.to_string()),
            None => out.push(m),
        }
    }
    out
}

fn mask_numbers(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        out.push('#');
        let prefix = chars.get(i).copied();
        let binary = chars.get(i + 1) == Some(&'i');
        let unit_follows = |at: usize| matches!(chars.get(at), Some('B') | Some('b'));
        match prefix {
            Some('K' | 'M' | 'G' | 'T' | 'P' | 'E') if binary => {
                out.push_str("Xi");
                i += 2;
            }
            Some('k' | 'M' | 'G' | 'T' | 'P' | 'E') if unit_follows(i + 1) => {
                out.push('X');
                i += 1;
            }
            Some('k' | 'M' | 'G') => i += 1,
            _ => {}
        }
    }
    out
}

/// Every key path of a JSON document with the type of its value, in
/// document order; the members of `bins` (data-dependent) are left out.
fn shape(v: &Value, path: &str, out: &mut Vec<String>) {
    let kind = match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    };
    // ferrio's own additions live under `ferrio` keys.
    if path.ends_with("/ferrio") {
        return;
    }
    out.push(format!("{path}: {kind}"));
    if path.ends_with("/bins") {
        return;
    }
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                shape(child, &format!("{path}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                shape(child, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Runs one job file with a tool in a scratch folder of its own.
fn report(tool: &str, file: &PathBuf) -> String {
    let scratch = Scratch::new("report");
    let text = std::fs::read_to_string(file).unwrap();
    scratch.write("job.fio", &text);
    let out = Run::tool(tool)
        .args(["--output-format=terse,json,normal", "job.fio"])
        .in_dir(&scratch.0)
        .out();
    assert_eq!(out.code, 0, "{tool} {}: {}", file.display(), out.stderr);
    // Nothing on a piped stderr, from either tool (ferrio's notes come
    // only on a terminal or with --notes).
    assert_eq!(
        out.stderr,
        "",
        "{tool} {}: stderr should stay empty",
        file.display()
    );
    out.stdout
}

#[test]
fn reports_match_fio_line_for_line_key_for_key_field_for_field() {
    let files = fixed::report_files();
    assert!(files.len() >= 20, "only {} report job files", files.len());
    let failures: Vec<String> = parallel(&files, |file| {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        // I/O counts are fixed for size-based jobs, except where fio's
        // random generator splits a mix or draws block sizes.
        let text = std::fs::read_to_string(file).unwrap();
        let (size_based, null_engine) = fixed::kinds(&text);
        let want = split(&report(fio(), file), "fio");
        let got = split(&report(ferrio(), file), "ferrio");
        let mut problems = Vec::new();
        let (wh, gh) = (masked(&want.headers), masked(&got.headers));
        if wh != gh {
            problems.push(format!("headers:\n fio:    {wh:?}\n ferrio: {gh:?}"));
        }
        let (wn, gn) = (masked(&want.normal), masked(&got.normal));
        if wn != gn {
            let at = wn.iter().zip(&gn).position(|(a, b)| a != b).unwrap_or(0);
            problems.push(format!(
                "normal differs from line {at}:\n fio:    {:?}\n ferrio: {:?}",
                &wn[at..wn.len().min(at + 4)],
                &gn[at..gn.len().min(at + 4)]
            ));
        }
        let (mut ws, mut gs) = (Vec::new(), Vec::new());
        shape(&want.json, "", &mut ws);
        shape(&got.json, "", &mut gs);
        if ws != gs {
            let at = ws.iter().zip(&gs).position(|(a, b)| a != b).unwrap_or(0);
            problems.push(format!(
                "JSON shape differs at {at}: fio {:?}, ferrio {:?}",
                ws.get(at),
                gs.get(at)
            ));
        }
        let (wd, gd) = (
            fixed::fixed_json_values(&want.json, size_based, null_engine),
            fixed::fixed_json_values(&got.json, size_based, null_engine),
        );
        problems.extend(fixed::differences(&wd, &gd));
        if want.terse.len() != got.terse.len() {
            problems.push(format!(
                "terse lines: fio {}, ferrio {}",
                want.terse.len(),
                got.terse.len()
            ));
        }
        for (w, g) in want.terse.iter().zip(&got.terse) {
            let (wf, gf): (Vec<&str>, Vec<&str>) = (w.split(';').collect(), g.split(';').collect());
            if wf.len() != gf.len() {
                problems.push(format!(
                    "terse fields: fio {}, ferrio {}",
                    wf.len(),
                    gf.len()
                ));
                continue;
            }
            // Version, fio version, name, group, error; then every
            // percentile label.
            for i in 0..wf.len() {
                let label = |f: &str| {
                    f.contains("%=")
                        .then(|| f.split('=').next().map(String::from))
                };
                let same = if i < 5 {
                    wf[i] == gf[i]
                } else {
                    label(wf[i]) == label(gf[i])
                };
                if !same {
                    problems.push(format!(
                        "terse field {}: fio {:?}, ferrio {:?}",
                        i + 1,
                        wf[i],
                        gf[i]
                    ));
                }
            }
        }
        if problems.is_empty() {
            None
        } else {
            Some(format!("{name}:\n  {}", problems.join("\n  ")))
        }
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        failures.is_empty(),
        "{} of {} files differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn number_masking_keeps_the_prefix_kind() {
    assert_eq!(
        mask_numbers("BW=18.5MiB/s (19.4MB/s)(37.0MiB/2001msec) IOPS=12.4k"),
        "BW=#XiB/s (#XB/s)(#XiB/#msec) IOPS=#"
    );
}

/// Runs a job file's text with a tool and extra arguments in a scratch
/// folder; returns (exit status, stdout).
fn run_job(tool: &str, job: &str, args: &[&str]) -> (i32, String) {
    let (_, out) = Run::tool(tool).args(args).job(job).out_kept("reportjob");
    (out.code, out.stdout)
}

#[test]
fn a_failing_job_is_reported_as_fio_reports_it() {
    // The first O_DIRECT read of 1000 bytes fails with EINVAL; with
    // continue_on_error the error is counted too (the `errors` line, JSON
    // total_err/first_error, two more terse fields).
    for extra in ["", "continue_on_error=all\n"] {
        let job = format!(
            "[e2]\nioengine=psync\nfilename=data\nsize=64k\nbs=1000\nrw=read\ndirect=1\n{extra}"
        );
        let (want_code, want) = run_job(fio(), &job, &[]);
        let (got_code, got) = run_job(ferrio(), &job, &[]);
        assert_eq!(got_code, want_code);
        // fio's error context names its own source file and line.
        let strip = |s: &str| -> Vec<String> {
            let lines: Vec<String> = s
                .lines()
                .map(|l| l.replace("file:io_u.c:1876, ", ""))
                .collect();
            masked(&lines)
        };
        let (want, got) = (strip(&want), strip(&got));
        // Reap calls that returned nothing are counted differently.
        let complete = |l: &String| l.starts_with("     complete");
        let keep = |v: Vec<String>| v.into_iter().filter(|l| !complete(l)).collect::<Vec<_>>();
        assert_eq!(keep(got), keep(want), "{extra}");
        let terse_tail = |tool| {
            let (_, out) = run_job(tool, &job, &["--minimal"]);
            let line = out.lines().last().unwrap_or_default().to_string();
            let fields: Vec<String> = line.split(';').map(String::from).collect();
            (fields.len(), fields[fields.len() - 2..].to_vec())
        };
        let (want_tail, got_tail) = (terse_tail(fio()), terse_tail(ferrio()));
        assert_eq!(got_tail.0, want_tail.0, "{extra}: terse field count");
        // With continue_on_error the line ends with the error count and
        // the first errno (otherwise with the measured disk figures).
        if !extra.is_empty() {
            assert_eq!(got_tail.1, want_tail.1, "{extra}");
        }
    }
}

#[test]
fn terse_versions_have_fios_field_counts() {
    let job = "[t]\nioengine=null\nsize=8m\nrw=randrw\ndescription=my desc\n";
    for version in ["2", "3", "4", "5"] {
        let flag = format!("--terse-version={version}");
        let counts = |tool| {
            let (code, out) = run_job(tool, job, &["--minimal", &flag]);
            assert_eq!(code, 0);
            out.lines()
                .map(|l| l.split(';').count())
                .collect::<Vec<_>>()
        };
        assert_eq!(counts(ferrio()), counts(fio()), "terse version {version}");
    }
}

/// The status lines of a run's stdout (split at `\r`), numbers masked.
fn status_lines(stdout: &str) -> Vec<String> {
    stdout
        .split('\r')
        .filter_map(|piece| piece.rsplit('\n').next())
        .filter(|l| l.starts_with("Jobs: "))
        .map(|l| mask_numbers(l.trim_end()))
        .collect()
}

#[test]
fn status_line_looks_like_fios() {
    let job =
        "[etajob]\nioengine=psync\nfilename=data\nsize=16m\nrw=randrw\nruntime=4\ntime_based\n";
    let (_, want) = run_job(fio(), job, &["--eta=always"]);
    let (_, got) = run_job(ferrio(), job, &["--eta=always"]);
    let (want, got) = (status_lines(&want), status_lines(&got));
    // One line a second; the first three seconds without an estimate.
    assert!(
        want.len().abs_diff(got.len()) <= 1,
        "fio {want:?}\nferrio {got:?}"
    );
    assert_eq!(got[0], want[0]);
    assert_eq!(got.last(), want.last());
    assert_eq!(
        got.last().unwrap(),
        "Jobs: # (f=#): [m(#)][#%][r=#XiB/s,w=#XiB/s][r=#,w=# IOPS][eta #m:#s]"
    );
    // Never without a terminal unless asked, and never in JSON-only runs.
    for args in [
        &[][..],
        &["--eta=never"],
        &["--eta=always", "--output-format=json"],
    ] {
        let (_, out) = run_job(
            ferrio(),
            job.replace("runtime=4", "runtime=1").as_str(),
            args,
        );
        assert!(status_lines(&out).is_empty(), "{args:?}: {out}");
    }
}

#[test]
fn status_interval_prints_interim_reports_as_fio_does() {
    let job =
        "[si]\nioengine=psync\nfilename=data\nsize=16m\nrw=randread\nruntime=2500ms\ntime_based\n";
    for (format, marker) in [
        ("json", "\"fio version\""),
        ("normal", "Run status group 0"),
    ] {
        let flag = format!("--output-format={format}");
        for tool in [fio(), ferrio()] {
            let began = std::time::Instant::now();
            let (code, out) = run_job(tool, job, &["--status-interval=1", &flag]);
            let secs = began.elapsed().as_secs() as usize;
            assert_eq!(code, 0);
            // One report a second while the run goes on (at least two in
            // its 2.5 s, more when laying out the file took a loaded
            // machine longer, never more than the seconds it took), then
            // the final one.
            let reports = out.matches(marker).count();
            assert!(
                (3..=secs + 1).contains(&reports),
                "{tool} {format}: {reports} reports in {secs} s"
            );
        }
    }
}

#[test]
fn sigusr1_prints_an_interim_report_and_the_run_goes_on() {
    let s = Scratch::new("usr1");
    s.write(
        "job.fio",
        "[u]\nioengine=null\nrw=randread\nsize=1g\ntime_based\nruntime=2\n",
    );
    let child = std::process::Command::new(ferrio())
        .args(["--output-format=json", "job.fio"])
        .current_dir(&s.0)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    // SAFETY: sending a signal to our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGUSR1);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("\"fio version\"").count(), 2, "{text}");
    // The interim document reports the run so far; the last one all of it.
    let docs: Vec<Value> = serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .map(|d| d.unwrap())
        .collect();
    let runtime = |d: &Value| d["jobs"][0]["read"]["runtime"].as_u64().unwrap();
    assert!(
        runtime(&docs[0]) < runtime(&docs[1]),
        "{} then {}",
        runtime(&docs[0]),
        runtime(&docs[1])
    );
}

#[test]
fn ferrio_section_reports_unclipped_percentiles_cost_depth_and_limits() {
    // A cached file read with psync: the CPU, not the device, sets the pace.
    let cached = "[c]\nioengine=psync\nfilename=data\nsize=8m\nrw=read\ninvalidate=0\nruntime=1\ntime_based\n";
    let s = Scratch::new("ferriokey");
    s.write("job.fio", cached);
    let json_only = Run::ferrio()
        .args(["--output-format=json", "job.fio"])
        .in_dir(&s.0)
        .out();
    assert_eq!(json_only.code, 0);
    assert_eq!(json_only.stderr, "", "JSON mode keeps stderr clean");
    let doc: Value = serde_json::from_str(&json_only.stdout).unwrap();
    let job = &doc["jobs"][0];
    let f = &job["ferrio"];
    assert_eq!(f["tool_limited"], 1, "{f}");
    assert!(f["cpu_ns_per_io"].as_f64().unwrap() > 0.0);
    let clat = &f["percentiles"]["read"]["clat_ns"];
    let max = job["read"]["clat_ns"]["max"].as_u64().unwrap();
    let min = job["read"]["clat_ns"]["min"].as_u64().unwrap();
    assert_eq!(clat["100.000000"].as_u64(), Some(max));
    for (_, v) in clat.as_object().unwrap() {
        let v = v.as_u64().unwrap();
        assert!(min <= v && v <= max, "{v} outside {min}..={max}");
    }
    // Asked for (stderr is piped here, where notes are otherwise left out).
    let normal = Run::ferrio()
        .args(["--notes", "job.fio"])
        .in_dir(&s.0)
        .out();
    assert!(
        normal.stderr.contains("ferrio: warning: job c:"),
        "{}",
        normal.stderr
    );
    // An asynchronous engine on O_DIRECT holds the depth asked for.
    let (code, out) = run_job(
        ferrio(),
        "[q]\nioengine=io_uring\nfilename=data\nsize=16m\nrw=randread\niodepth=16\ndirect=1\nruntime=1\ntime_based\n",
        &["--output-format=json"],
    );
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let f = &doc["jobs"][0]["ferrio"];
    assert_eq!(f["iodepth_requested"], 16);
    let achieved = f["iodepth_achieved"].as_f64().unwrap();
    assert!(achieved > 14.0, "held {achieved}");
    assert!(!f["iodepth_per_second"].as_array().unwrap().is_empty());
}

#[test]
fn a_job_without_size_fails_in_the_report_as_in_fio() {
    let job = "[job]\nioengine=libaio\nfilename=bench\n";
    let (want_code, want) = run_job(fio(), job, &[]);
    let (got_code, got) = run_job(ferrio(), job, &[]);
    assert_eq!(got_code, want_code);
    let lines = |s: &str| masked(&s.lines().map(String::from).collect::<Vec<_>>());
    assert_eq!(lines(&got), lines(&want));
    let (_, want) = run_job(fio(), job, &["--output-format=json"]);
    let (_, got) = run_job(ferrio(), job, &["--output-format=json"]);
    let doc = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    assert_eq!(
        doc(&got)["jobs"][0]["error"],
        doc(&want)["jobs"][0]["error"]
    );
}

/// What comes before a report: the lines up to the JSON document, the
/// first terse line or the first job's normal report, and what kind of
/// line that is (`{`, `3;`, a normal report, or nothing).
fn preamble(text: &str) -> (String, &'static str) {
    let mut before = String::new();
    for line in text.split_inclusive('\n') {
        let kind = if line.starts_with('{') {
            "json"
        } else if line.starts_with("3;fio-3.33;") {
            "terse"
        } else if line.contains("(groupid=") {
            "normal"
        } else {
            before.push_str(line);
            continue;
        };
        return (before, kind);
    }
    (before, "end")
}

#[test]
fn job_lines_before_a_json_or_terse_report_are_fios() {
    // fio describes each job as it adds it, in the format (and to the
    // --output file) in effect then: a command-line job is added at the
    // next --name, the last one and job-file jobs after the whole command
    // line. So a format given after some --name options leaves those
    // jobs' description lines on stdout before the JSON or terse report
    // (or in the --output file named before their job was added).
    let job_file = "[j1]\nioengine=null\nsize=1m\n[j2]\nioengine=null\nsize=1m\nnumjobs=2\n";
    let cases: &[&[&str]] = &[
        &["--name=a", "--name=b", "--output-format=json"],
        &["--output-format=json", "--name=a", "--name=b"],
        &["--name=a", "--output-format=json"],
        &[
            "--name=a",
            "--rw=randrw",
            "--bs=8k",
            "--iodepth=4",
            "--name=b",
            "--name=c",
            "--output-format=json",
        ],
        &[
            "--name=a",
            "--numjobs=2",
            "--name=b",
            "--output-format=json+",
        ],
        &[
            "--name=a",
            "--output-format=json",
            "--name=b",
            "--output-format=normal",
            "--name=c",
            "--minimal",
            "--name=d",
        ],
        &["--name=a", "--name=b", "--output-format=terse"],
        &["--name=a", "--name=b", "--minimal"],
        &[
            "--name=a",
            "--output-format=json,normal",
            "--name=b",
            "--output-format=json",
        ],
        &[
            "--name=a",
            "--name=global",
            "--rw=write",
            "--name=b",
            "--output-format=json",
        ],
        &["--minimal", "--output-format=json", "--name=a"],
        &["--append-terse", "--output-format=json", "--name=a"],
        &["--name=a", "--name=b", "job.fio", "--output-format=json"],
        &["job.fio", "--output-format=json"],
        &["--output-format=json", "job.fio", "--name=a"],
        &[
            "--name=a",
            "--output=out.txt",
            "--name=b",
            "--output-format=json",
        ],
        &[
            "--name=a",
            "--name=b",
            "--output=out.txt",
            "--output-format=json",
        ],
        &["--name=a", "--name=b", "--output=out.txt"],
        &[
            "--output=first.txt",
            "--name=a",
            "--name=b",
            "--output=out.txt",
            "--output-format=json",
        ],
        &[
            "--output=first.txt",
            "--name=a",
            "--output=out.txt",
            "--name=b",
            "--output-format=json",
        ],
    ];
    let runs = parallel(cases, |case| {
        let pair = common::Pair::new("joblines");
        let mut args = vec!["--ioengine=null", "--size=1m"];
        args.extend_from_slice(case);
        let mut seen = Vec::new();
        for (tool, dir) in [(fio(), &pair.fio), (ferrio(), &pair.ferrio)] {
            dir.write("job.fio", job_file);
            let out = Run::tool(tool).args(&args).in_dir(&dir.0).out();
            assert_eq!(out.code, 0, "{tool} {args:?}: {}", out.stderr);
            let file = |name| std::fs::read_to_string(dir.0.join(name)).ok();
            let files = [file("out.txt"), file("first.txt")];
            let files: Vec<_> = files.iter().map(|f| f.as_deref().map(preamble)).collect();
            seen.push((preamble(&out.stdout), files));
        }
        (args, seen)
    });
    for (args, seen) in runs {
        assert_eq!(seen[0], seen[1], "{args:?}: (fio, ferrio)");
    }
}
