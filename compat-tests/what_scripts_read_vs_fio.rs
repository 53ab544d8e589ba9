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
