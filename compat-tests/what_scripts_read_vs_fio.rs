//! What scripts read from fio's streams stays as fio leaves it: nothing
//! extra on a piped stderr (fio-plot's bench_fio and fio's own job tests
//! require it empty), fio's signal text kept out of structured streams, and
//! a report that could not be written reported as an error (issue 17,
//! items 8, 10 and 11).

mod common;

use common::{Run, Scratch, fio};

/// A psync job reading a file the page cache holds: the data comes from
/// memory, so ferrio's verdict usually finds that the CPU, not the device,
/// set the pace, and records a warning in its JSON.
fn cpu_bound_job(dir: &Scratch) -> Vec<String> {
    let file = dir.0.join("cached");
    std::fs::write(&file, vec![7u8; 16 << 20]).unwrap();
    [
        "--name=j",
        "--ioengine=psync",
        "--rw=read",
        "--bs=4k",
        "--loops=4",
        &format!("--filename={}", file.display()),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// The warnings ferrio's JSON recorded for its one job, as its stderr
/// would carry them.
fn recorded_warnings(report: &str) -> Vec<String> {
    let start = report.find('{').expect("a JSON document");
    let end = report.find("\n}\n").expect("the JSON document's end") + 2;
    let doc: serde_json::Value = serde_json::from_str(&report[start..end]).unwrap();
    doc["jobs"][0]["ferrio"]["warnings"]
        .as_array()
        .expect("ferrio.warnings")
        .iter()
        .map(|w| format!("ferrio: warning: {}", w.as_str().unwrap()))
        .collect()
}

#[test]
fn a_piped_stderr_stays_empty_as_fios_and_notes_come_when_asked() {
    let dir = Scratch::new("notes");
    let job = cpu_bound_job(&dir);
    // fio's stderr, piped, is empty on this run: the rule ferrio keeps.
    let (want, got) = Run::new().args(&job).in_dir(&dir.0).both();
    assert_eq!(
        (want.code, got.code),
        (0, 0),
        "{}\n{}",
        want.stderr,
        got.stderr
    );
    assert_eq!(want.stderr, "", "fio's piped stderr");
    assert_eq!(got.stderr, "", "ferrio's piped stderr");

    // Asked with --notes, the notes are exactly the warnings ferrio's JSON
    // holds, one line each; the report itself is unchanged in kind.
    let report = dir.0.join("report.txt");
    let asked = Run::ferrio()
        .args(&job)
        .args(["--notes", "--output-format=json,normal"])
        .arg(format!("--output={}", report.display()))
        .in_dir(&dir.0)
        .ok();
    let text = std::fs::read_to_string(&report).unwrap();
    let lines: Vec<String> = asked.stderr.lines().map(str::to_string).collect();
    assert_eq!(lines, recorded_warnings(&text), "--notes: {}", asked.stderr);

    // On a terminal (script(1) gives the run one), a person sees them.
    let command = format!(
        "{} {} --output-format=json,normal --output={}",
        common::ferrio(),
        job.join(" "),
        report.display()
    );
    let tty = Run::tool("script")
        .args(["-qec", &command, "/dev/null"])
        .in_dir(&dir.0)
        .ok();
    let text = std::fs::read_to_string(&report).unwrap();
    let seen: Vec<String> = tty
        .stdout
        .lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        seen,
        recorded_warnings(&text),
        "on a terminal: {}",
        tty.stdout
    );
    let _ = fio();
}

/// `sh -c` with stdout sent to /dev/full, where every write fails.
fn to_full_disk(program: &str, args: &[&str], dir: &Scratch) -> common::Outcome {
    let command = format!("exec {program} {} >/dev/full", args.join(" "));
    Run::tool("sh").args(["-c", &command]).in_dir(&dir.0).out()
}

#[test]
fn a_report_that_could_not_be_written_is_an_error_unless_answering_as_fio() {
    let dir = Scratch::new("lost");
    let job = ["--name=j", "--ioengine=null", "--size=1m"];
    // fio loses its report on a full disk and still exits 0, to --output
    // and to stdout alike.
    let mut to_file = job.to_vec();
    to_file.push("--output=/dev/full");
    let (want, got) = Run::new().args(&to_file).in_dir(&dir.0).both();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(
        (got.code, got.stderr.as_str()),
        (
            1,
            "ferrio: --output=/dev/full: the report could not be written: No space left on device\n"
        )
    );
    let want = to_full_disk(fio(), &job, &dir);
    let got = to_full_disk(common::ferrio(), &job, &dir);
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(
        (got.code, got.stderr.as_str()),
        (
            1,
            "ferrio: stdout: the report could not be written: No space left on device\n"
        )
    );
    // Answering as fio (a link named fio), ferrio exits as fio does.
    let link = dir.0.join("fio");
    std::os::unix::fs::symlink(common::ferrio(), &link).unwrap();
    let as_fio = to_full_disk(link.to_str().unwrap(), &job, &dir);
    assert_eq!((as_fio.code, as_fio.stderr.as_str()), (0, ""));
}

#[test]
fn merged_totals_past_fios_json_integers_are_refused_not_wrapped() {
    let dir = Scratch::new("merge");
    let doc = Run::ferrio()
        .args([
            "--output-format=json",
            "--name=j",
            "--ioengine=null",
            "--size=1m",
        ])
        .in_dir(&dir.0)
        .json();
    // One instance's saved state claims 2^62 + 5 bytes read: two of them
    // add up past 2^63 - 1, the largest integer fio's JSON holds (it
    // writes them signed).
    let mut big = doc.clone();
    big["jobs"][0]["ferrio"]["state"]["read"]["bytes"] =
        serde_json::json!(4_611_686_018_427_387_909u64);
    let path = dir.write("big.json", &big.to_string());
    let small = dir.write("small.json", &doc.to_string());
    let refused = Run::ferrio()
        .args(["merge", path.to_str().unwrap(), path.to_str().unwrap()])
        .out();
    assert_eq!(
        (
            refused.code,
            refused.stderr.as_str(),
            refused.stdout.as_str()
        ),
        (
            1,
            "ferrio merge: the read byte counts of the jobs add up to more than 2^63-1, the largest integer of fio's JSON; not merged\n",
            ""
        )
    );
    // Totals that fit merge, however large, and add up exactly.
    let merged = Run::ferrio()
        .args(["merge", path.to_str().unwrap(), small.to_str().unwrap()])
        .ok();
    let merged: serde_json::Value = serde_json::from_str(&merged.stdout).unwrap();
    let all = merged["client_stats"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(all["jobname"], "All clients");
    assert_eq!(
        all["read"]["io_bytes"].as_u64(),
        Some(4_611_686_018_427_387_909u64 + 1_048_576)
    );
}

/// A 30 s null run with `extra` options, stopped by SIGINT a moment after
/// its handler is in place.
fn interrupted(program: &str, extra: &[&str], dir: &Scratch) -> common::Outcome {
    let running = Run::tool(program)
        .args(["--name=j", "--ioengine=null", "--rw=read", "--size=1g"])
        .args(["--time_based", "--runtime=30"])
        .args(extra)
        .in_dir(&dir.0)
        .spawn();
    // The pid, before the signal: the run is under way once it has a
    // handler; 1.2 s more lets an interval line or two out first.
    let pid = running.program_pid();
    std::thread::sleep(std::time::Duration::from_millis(1200));
    assert_eq!(running.signal_when_caught(libc::SIGINT), pid);
    running.wait()
}

#[test]
fn fios_signal_text_stays_out_of_ndjson_and_html_streams() {
    let dir = Scratch::new("signal");
    // Where fio's formats put it, ferrio puts it too: on stdout, before
    // the JSON document that follows it.
    let want = interrupted(fio(), &["--output-format=json"], &dir);
    let got = interrupted(common::ferrio(), &["--output-format=json"], &dir);
    let before = |o: &common::Outcome| o.stdout[..o.stdout.find('{').unwrap()].to_string();
    assert_eq!(want.code, 128, "fio: {}", want.stderr);
    assert_eq!((got.code, before(&got)), (want.code, before(&want)));
    assert_eq!(before(&want), "\nfio: terminating on signal 2\n");

    // NDJSON: every line of stdout is one JSON document, the report last;
    // the signal's text is on stderr.
    let nd = interrupted(
        common::ferrio(),
        &[
            "--output-format=json",
            "--status-format=ndjson",
            "--status-interval=1",
        ],
        &dir,
    );
    assert_eq!(nd.code, 128, "{}", nd.stderr);
    let lines: Vec<&str> = nd.stdout.lines().collect();
    assert!(lines.len() >= 2, "{}", nd.stdout);
    for line in &lines {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"));
    }
    assert!(lines.last().unwrap().contains("\"fio version\""));
    assert_eq!(nd.stderr, "\nfio: terminating on signal 2\n");

    // HTML to --output: the file is the page alone.
    let page = dir.0.join("report.html");
    let html = interrupted(
        common::ferrio(),
        &[
            "--output-format=html",
            &format!("--output={}", page.display()),
        ],
        &dir,
    );
    assert_eq!(html.code, 128, "{}", html.stderr);
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(
        text.starts_with("<!DOCTYPE html>"),
        "{}",
        &text[..text.len().min(200)]
    );
    assert!(text.trim_end().ends_with("</html>"));
    assert_eq!(html.stderr, "\nfio: terminating on signal 2\n");
}
