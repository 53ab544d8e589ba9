//! For every job file of jobs/ and of the shared public corpus, `--parse-only`
//! and `--showcmd` agree with fio 3.33: same exit status, same stdout, and
//! the same stderr lines (ferrio adds its own `ferrio:` lines after them).

mod common;

use common::{JobFile, Run, corpus, fio_part, parallel};

fn compare(file: &JobFile, mode: &str) -> Result<(), String> {
    let name = file.name();
    let want = Run::fio()
        .args([mode, &name])
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    let got = Run::ferrio()
        .args([mode, &name])
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    if want.code != got.code {
        return Err(format!(
            "exit {} vs fio {}; stderr: {}",
            got.code,
            want.code,
            got.stderr.trim()
        ));
    }
    if want.stdout != got.stdout {
        return Err(format!(
            "stdout differs:\n fio: {:?}\n us:  {:?}",
            want.stdout, got.stdout
        ));
    }
    if want.stderr != fio_part(&got.stderr) {
        return Err(format!(
            "stderr differs:\n fio: {:?}\n us:  {:?}",
            want.stderr, got.stderr
        ));
    }
    if want.code != 0 && !got.stderr.lines().any(|l| l.starts_with("ferrio: ")) {
        return Err("no ferrio explanation line on failure".to_string());
    }
    Ok(())
}

fn check_all(mode: &str) {
    let files = corpus();
    assert!(!files.is_empty());
    let results = parallel(&files, |f| compare(f, mode));
    let mut failures = 0;
    for (f, r) in files.iter().zip(&results) {
        match r {
            Ok(()) => println!("agree {mode} {}", f.path.display()),
            Err(e) => {
                failures += 1;
                println!("DIFFER {mode} {}: {e}", f.path.display());
            }
        }
    }
    println!(
        "{mode}: {}/{} files agree with fio",
        files.len() - failures,
        files.len()
    );
    assert_eq!(failures, 0, "{failures} files differ from fio under {mode}");
}

#[test]
fn parse_only_agrees_with_fio_on_every_corpus_file() {
    check_all("--parse-only");
}

#[test]
fn showcmd_agrees_with_fio_on_every_corpus_file() {
    check_all("--showcmd");
}

/// `--parse-only` of one option on the command line, fio beside ferrio:
/// the same status, stdout and fio lines on stderr.
fn agree_on(option: &str) -> Result<(), String> {
    let args = ["--parse-only", "--name=j", option];
    let (want, got) = Run::new().args(args).both();
    if (want.code, &want.stdout, &want.stderr) == (got.code, &got.stdout, &fio_part(&got.stderr)) {
        return Ok(());
    }
    Err(format!("{option}: fio {want:?}\nferrio {got:?}"))
}

#[test]
fn zoned_distributions_are_read_with_fios_rules() {
    // fio 3.33's split rules: access shares kept in 8 bits (300 is 44),
    // size shares as atoi capped at 100 (0 or none: shared out), entries
    // without a size, sums checked before missing shares are filled, and
    // each of its messages.
    let values = [
        "zoned:60/10:30/20:10/70",
        "zoned:50/10:30/20",
        "zoned:60/10:50/20",
        "zoned:1k/10",
        "zoned:-1/10:101/90",
        "zoned:300/50:44/50",
        "zoned:255/10:100/90",
        "zoned:60/0:40/100",
        "zoned:60:40",
        "zoned:100",
        "zoned:60/x:40/y",
        "zoned:x/10",
        "zoned: 60/10:40/90 ",
        "zoned:18446744073709551615/1:1/99",
        "zoned_abs:60/1m:40/2m",
        "zoned_abs:60/1m:30/2m",
        "zoned_abs:60/x:40/2m",
        "zoned_abs:18446744073709551615/1:1/99",
    ];
    let failures: Vec<String> = values
        .iter()
        .filter_map(|v| agree_on(&format!("--random_distribution={v}")).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_unset_variable_is_named_after_fios_lines() {
    let job = "[global]\nfilename=${FERRIO_TEST_NEVER_SET}\nsize=1m\n[j]\nrw=read\n";
    let (want, got) = Run::new()
        .arg("--parse-only")
        .job(job)
        .env("FERRIO_TEST_NEVER_SET_EITHER", "1")
        .both();
    assert_eq!((got.code, &got.stdout), (want.code, &want.stdout));
    assert_eq!(fio_part(&got.stderr), want.stderr);
    assert_eq!(want.code, 1, "{}", want.stderr);
    let explained: Vec<&str> = got
        .stderr
        .lines()
        .filter(|l| l.starts_with("ferrio: "))
        .collect();
    assert_eq!(explained.len(), 1, "{}", got.stderr);
    assert!(
        explained[0].ends_with("(${FERRIO_TEST_NEVER_SET} is not set in the environment)"),
        "{}",
        explained[0]
    );
}

/// An error is said once: fio's own lines, then one `ferrio:` line that
/// adds only what fio did not say (where it stands, whose option it is,
/// the nearest value) and repeats none of fio's words.
#[test]
fn errors_are_said_once_after_fios_lines() {
    // (job file or none, command line, what the ferrio line must say)
    let cases: [(Option<&str>, &[&str], &str); 5] = [
        (
            Some("[j]\nioengine=null\nsize=1m\niodpeth=4\n"),
            &[],
            ":4:1: in 'iodpeth=4'",
        ),
        (
            Some("[j]\nioengine=null\nsize=1m\nrw=randred\n"),
            &[],
            ":4:1: bad value 'randred' in 'rw=randred'; expected one of the values listed (did you mean randread?)",
        ),
        (
            Some("[j]\nioengine=psync\nsize=1m\nsqthread_poll=1\n"),
            &[],
            ":4:1: in 'sqthread_poll=1': option 'sqthread_poll' belongs to ioengine io_uring/io_uring_cmd but this job uses ioengine psync",
        ),
        (
            None,
            &["--name=a", "--iodpeth=4"],
            "on the command line: '--iodpeth=4'",
        ),
        (
            None,
            &["--name=a", "--rw=zzzzzz"],
            "bad value 'zzzzzz' in 'rw=zzzzzz'; expected one of the values listed",
        ),
    ];
    for (job, args, says) in cases {
        let mut run = Run::new().arg("--parse-only").args(args);
        if let Some(job) = job {
            run = run.job(job);
        }
        let (want, got) = run.both();
        let what = format!("{job:?} {args:?}");
        // fio's list of values, with ferrio's own help text beside each word.
        let words = |out: &str| -> Vec<String> {
            out.lines()
                .filter_map(|l| l.split_once(": "))
                .map(|(_, rest)| rest.split_whitespace().next().unwrap_or("").to_string())
                .collect()
        };
        assert_eq!(
            (got.code, words(&got.stdout)),
            (want.code, words(&want.stdout)),
            "{what}"
        );
        assert_eq!(want.code, 1, "{what}: {}", want.stderr);
        assert_eq!(fio_part(&got.stderr), want.stderr, "{what}");
        let explained: Vec<&str> = got
            .stderr
            .lines()
            .filter(|l| l.starts_with("ferrio: "))
            .collect();
        assert_eq!(explained.len(), 1, "{what}: {}", got.stderr);
        assert!(explained[0].ends_with(says), "{what}: {}", explained[0]);
        // fio's suggestion (and fio's own list of values) is not said again.
        for line in want.stderr.lines() {
            if let Some(name) = line.strip_prefix("Did you mean ") {
                assert!(
                    !explained[0].contains(name.trim_end_matches('?')),
                    "{what}: {}",
                    explained[0]
                );
            }
        }
    }
}

/// fio reads `bs=4q` as 4 bytes and `size=64.5k` as 64 without a word;
/// ferrio runs them as fio does (the same I/Os) and `--explain` says so.
#[test]
fn explain_names_the_size_suffixes_fio_ignores() {
    // On the command line, and in a job file with blanks around '=' (fio
    // then reads the value from the blank, which hides the suffix).
    let args = ["--name=a", "--ioengine=null", "--size=64.5k", "--bs=4q"];
    let spaced = "[a]\nioengine=null\nsize = 64k\nbs = 4k\n";
    for run in [Run::new().args(args), Run::new().job(spaced)] {
        let (want, got) = run.arg("--output-format=json").both_json();
        for key in ["total_ios", "io_bytes"] {
            assert_eq!(
                got["jobs"][0]["read"][key], want["jobs"][0]["read"][key],
                "{key}"
            );
        }
        assert_eq!(
            want["jobs"][0]["read"]["total_ios"], 16,
            "fio read 64 bytes in 4-byte I/Os"
        );
    }
    let spaced_out = Run::ferrio()
        .job(spaced)
        .args(["--explain", "--parse-only"])
        .out();
    assert!(
        spaced_out.stdout.ends_with(
            "warnings:\n  a: size= 64k: fio reads 'k' as nothing here, so the value is 64; sizes are whole numbers with k, m, g, t or p\n  a: bs= 4k: fio reads 'k' as nothing here, so the value is 4; sizes are whole numbers with k, m, g, t or p\n"
        ),
        "{}",
        spaced_out.stdout
    );
    let out = Run::ferrio()
        .args(args)
        .args(["--explain", "--parse-only"])
        .out();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let warnings: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| *l != "warnings:")
        .collect();
    assert_eq!(
        warnings,
        [
            "warnings:",
            "  a: size=64.5k: fio reads '.5k' as nothing here, so the value is 64; sizes are whole numbers with k, m, g, t or p",
            "  a: bs=4q: fio reads 'q' as nothing here, so the value is 4; sizes are whole numbers with k, m, g, t or p",
        ]
    );
}
