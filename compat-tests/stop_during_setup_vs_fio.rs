//! A stop while a job is still setting up: laying out its file, or, as a
//! net listener, waiting for its peer. fio 3.33 ends within a moment,
//! removes the file it left half written and reports the jobs as having
//! done nothing (issue 17 items 1 and 7); ferrio does the same, with the
//! same output and exit status.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{Outcome, Run, Scratch, fio};

/// Runs `program` with `args` in `dir`, waits until `ready` holds, sends
/// SIGINT to the program and returns what it printed and how long it took
/// to end after the signal.
fn stopped(
    program: &str,
    args: &[String],
    dir: &Path,
    ready: impl Fn() -> bool,
) -> (Outcome, Duration) {
    let running = Run::tool(program).args(args).in_dir(dir).spawn();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(Instant::now() < deadline, "{program}: never got ready");
        std::thread::sleep(Duration::from_millis(5));
    }
    running.signal_when_caught(libc::SIGINT);
    let sent = Instant::now();
    let out = running.wait();
    (out, sent.elapsed())
}

/// How long after SIGINT a run may take to end here: far above fio's
/// tenths of a second on a busy machine, far below a layout or a wait run
/// to its end.
const PROMPT: Duration = Duration::from_secs(5);

#[test]
fn a_stop_during_layout_ends_the_run_and_removes_the_half_written_file() {
    for format in ["normal", "json"] {
        let mut outs = Vec::new();
        for program in [fio(), common::ferrio()] {
            let dir = Scratch::new("layout-stop");
            let file = dir.0.join("big");
            let args = [
                "--name=j".to_string(),
                format!("--filename={}", file.display()),
                "--rw=read".to_string(),
                "--size=8g".to_string(),
                format!("--output-format={format}"),
            ];
            let (out, took) = stopped(program, &args, &dir.0, || file.exists());
            assert!(took < PROMPT, "{program}: {took:?} after SIGINT");
            assert!(!file.exists(), "{program} left its half-written file");
            assert_eq!(out.code, 128, "{program}: {}", out.stderr);
            outs.push(out);
        }
        let (want, got) = (&outs[0], &outs[1]);
        assert_eq!(got.stderr, want.stderr);
        if format == "normal" {
            assert_eq!(got.stdout, want.stdout);
        } else {
            let before = |o: &Outcome| o.stdout[..o.stdout.find('{').unwrap()].to_string();
            assert_eq!(before(got), before(want));
            let (w, g) = (common::json(want), common::json(got));
            assert_eq!(
                g["jobs"].as_array().map(Vec::len),
                w["jobs"].as_array().map(Vec::len)
            );
            assert_eq!(
                common::ios_and_bytes(&g["jobs"][0]),
                common::ios_and_bytes(&w["jobs"][0])
            );
            assert_eq!(g["jobs"][0]["error"], w["jobs"][0]["error"]);
            assert_eq!(g["disk_util"], w["disk_util"]);
        }
    }
}

/// Whether a TCP socket listens on `port` (from /proc/net/tcp).
fn listening(port: u16) -> bool {
    let text = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default()
        + &std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default();
    let local = format!(":{port:04X} ");
    text.lines()
        .any(|l| l.split_whitespace().nth(3) == Some("0A") && l.contains(&local))
}

#[test]
fn a_stop_while_a_net_listener_waits_for_its_peer_is_no_error() {
    for format in ["normal", "json"] {
        let mut outs = Vec::new();
        for program in [fio(), common::ferrio()] {
            let dir = Scratch::new("net-stop");
            let port = common::free_port(false);
            let args = [
                "--name=n".to_string(),
                "--ioengine=net".to_string(),
                "--listen".to_string(),
                "--protocol=tcp".to_string(),
                format!("--port={port}"),
                "--rw=read".to_string(),
                "--size=1m".to_string(),
                format!("--output-format={format}"),
            ];
            let (out, took) = stopped(program, &args, &dir.0, || listening(port));
            assert!(took < PROMPT, "{program}: {took:?} after SIGINT");
            assert_eq!(out.code, 128, "{program}: {}", out.stderr);
            outs.push(out);
        }
        let (want, got) = (&outs[0], &outs[1]);
        assert_eq!(got.stderr, want.stderr);
        if format == "normal" {
            assert_eq!(got.stdout, want.stdout);
        } else {
            let before = |o: &Outcome| o.stdout[..o.stdout.find('{').unwrap()].to_string();
            assert_eq!(before(got), before(want));
            let (w, g) = (common::json(want), common::json(got));
            assert_eq!(g["jobs"][0]["error"], w["jobs"][0]["error"]);
            assert_eq!(g["jobs"][0]["error"], 0);
            assert_eq!(
                common::ios_and_bytes(&g["jobs"][0]),
                common::ios_and_bytes(&w["jobs"][0])
            );
        }
    }
}
