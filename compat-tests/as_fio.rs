//! ferrio answering as `fio` (through the link `--install-alias` makes):
//! run by the name `fio` from PATH, beside fio 3.33 run the same way, it
//! prints the same stdout and stderr and exits with the same status,
//! wherever a script can look.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{Outcome, Run, Scratch, fio};
use serde_json::Value;

/// A folder holding the link `fio` -> ferrio, made by ferrio itself.
fn alias_dir() -> Scratch {
    let dir = Scratch::new("alias");
    let target = dir.0.join("bin");
    let out = Run::ferrio()
        .args([&format!("--install-alias={}", target.display())])
        .in_dir(&dir.0)
        .out();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(std::fs::read_link(target.join("fio")).is_ok());
    dir
}

/// `fio args...` in `dir`, with `bin_dir` first in PATH (or the system's
/// PATH alone), so that both programs see argv[0] = "fio".
fn run_as_fio(bin_dir: Option<&Path>, args: &[&str], dir: &Path) -> Outcome {
    let path = std::env::var("PATH").unwrap_or_default();
    let path = match bin_dir {
        Some(b) => format!("{}:{path}", b.display()),
        None => path,
    };
    let env = HashMap::from([("PATH".to_string(), path)]);
    Run::tool("fio").args(args).in_dir(dir).envs(&env).out()
}

#[test]
fn flags_and_errors_print_what_fio_prints() {
    fio();
    let alias = alias_dir();
    let bin = alias.0.join("bin");
    let work = Scratch::new("asfio");
    work.write("bad-bs.fio", "[j]\nioengine=null\nsize=1m\nbs=abc\n");
    work.write(
        "bad-option.fio",
        "[j]\nioengine=null\nsize=1m\nno_such_option=1\n",
    );
    let cases: &[&[&str]] = &[
        &["--version"],
        &["--bogus"],
        &["--explain", "x.fio"],
        &["--output-format=html", "x.fio"],
        &["--terse-version=9", "x.fio"],
        &["missing.fio"],
        &["bad-bs.fio"],
        &["bad-option.fio"],
        &[],
    ];
    for args in cases {
        let want = run_as_fio(None, args, &work.0);
        let got = run_as_fio(Some(&bin), args, &work.0);
        assert_eq!(got.code, want.code, "exit status of fio {args:?}");
        assert_eq!(got.stderr, want.stderr, "stderr of fio {args:?}");
        // Without arguments both print usage text, which ferrio words
        // its own way.
        if !args.is_empty() {
            assert_eq!(got.stdout, want.stdout, "stdout of fio {args:?}");
        }
    }
}

/// Every key path of a JSON document, in order, with array items merged.
fn key_paths(v: &Value, prefix: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let p = format!("{prefix}/{k}");
                out.push(p.clone());
                key_paths(v, &p, out);
            }
        }
        Value::Array(a) => {
            if let Some(first) = a.first() {
                key_paths(first, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn reports_carry_nothing_fio_would_not_print() {
    let alias = alias_dir();
    let bin = alias.0.join("bin");
    // A cached psync read is the case ferrio flags as tool-limited: as
    // fio, it says nothing of it.
    let job = "[j]\nioengine=psync\nfilename=data\nrw=read\nbs=4k\nsize=8m\nloops=4\n";
    for format in ["json", "normal"] {
        let a = Scratch::new("asfio-fio");
        let b = Scratch::new("asfio-ferrio");
        a.write("job.fio", job);
        b.write("job.fio", job);
        let arg = format!("--output-format={format}");
        let want = run_as_fio(None, &[&arg, "job.fio"], &a.0);
        let got = run_as_fio(Some(&bin), &[&arg, "job.fio"], &b.0);
        assert_eq!(
            (got.code, &got.stderr),
            (want.code, &want.stderr),
            "{format}"
        );
        if format == "json" {
            let keys = |o: &Outcome| {
                let doc: Value = serde_json::from_str(&o.stdout).unwrap();
                let mut k = Vec::new();
                key_paths(&doc, "", &mut k);
                k
            };
            assert_eq!(keys(&got), keys(&want));
        }
    }
}

#[test]
fn sigint_ends_the_run_with_fio_s_status_and_a_report() {
    let alias = alias_dir();
    let bin = alias.0.join("bin");
    let job = "[j]\nioengine=null\nrw=read\nsize=1g\ntime_based\nruntime=20\n";
    let mut outcomes = Vec::new();
    for bin_dir in [None, Some(bin.as_path())] {
        let work = Scratch::new("asfio-int");
        work.write("job.fio", job);
        let path = std::env::var("PATH").unwrap_or_default();
        let path = bin_dir.map_or(path.clone(), |b| format!("{}:{path}", b.display()));
        let child = Command::new("fio")
            .args(["--output-format=json", "job.fio"])
            .current_dir(&work.0)
            .env("PATH", path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let doc: Value = serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
        assert!(doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 0);
        outcomes.push((
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    assert_eq!(outcomes[1], outcomes[0]);
}

#[test]
fn an_existing_fio_is_never_replaced() {
    let dir = Scratch::new("alias-keep");
    dir.write("fio", "#!/bin/sh\necho the real one\n");
    let out = Run::ferrio()
        .args([&format!("--install-alias={}", dir.0.display())])
        .in_dir(&dir.0)
        .out();
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("left alone"), "{}", out.stderr);
    let kept = std::fs::read_to_string(dir.0.join("fio")).unwrap();
    assert_eq!(kept, "#!/bin/sh\necho the real one\n");
}

/// `--install-alias` says what it made, and warns when `fio` would still
/// not run ferrio: its directory absent from PATH, or a real fio first.
#[test]
fn install_alias_says_what_it_made_and_whether_fio_runs_it() {
    let dir = Scratch::new("alias-say");
    let bin = dir.0.join("bin");
    fio();
    let path = std::env::var("PATH").unwrap_or_default();
    let fio_dir = std::env::split_paths(&path)
        .find(|d| d.join("fio").is_file())
        .expect("fio is in PATH");
    let install = |path: String| {
        let env = HashMap::from([("PATH".to_string(), path)]);
        Run::ferrio()
            .args([&format!("--install-alias={}", bin.display())])
            .in_dir(&dir.0)
            .envs(&env)
            .out()
    };
    let link = bin.join("fio");
    // A PATH that has timeout(1), which runs the test's programs, and no fio.
    let tools = dir.0.join("tools");
    std::fs::create_dir(&tools).unwrap();
    let timeout = std::env::split_paths(&path)
        .map(|d| d.join("timeout"))
        .find(|t| t.is_file())
        .expect("timeout is in PATH");
    std::os::unix::fs::symlink(timeout, tools.join("timeout")).unwrap();
    let out = install(tools.display().to_string());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "ferrio: created {}\nferrio: {} now links to this ferrio, which answers as fio when run by that name\n",
            bin.display(),
            link.display()
        )
    );
    assert_eq!(
        out.stderr,
        format!(
            "ferrio: warning: {} is not in PATH, so `fio` does not run ferrio yet; add it to PATH\n",
            bin.display()
        )
    );
    let out = install(format!("{}:{}", fio_dir.display(), bin.display()));
    assert_eq!(
        out.stdout,
        format!(
            "ferrio: {} already links to this ferrio, which answers as fio when run by that name\n",
            link.display()
        )
    );
    assert_eq!(
        out.stderr,
        format!(
            "ferrio: warning: {} comes before {} in PATH, so `fio` still runs {}; put {} first in PATH\n",
            fio_dir.display(),
            bin.display(),
            fio_dir.join("fio").display(),
            bin.display()
        )
    );
    let out = install(format!("{}:{}", bin.display(), fio_dir.display()));
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
}
