//! fio's command line beside ferrio's: help output shape, flag errors and
//! exit statuses, compared with fio 3.33 run on the same arguments.
//! ferrio's help texts are its own words, so the comparisons drop the
//! text after an option's name and a value's word.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{Outcome, ferrio, fio, fio_part, parallel, run};

fn both(args: &[&str]) -> (Outcome, Outcome) {
    let env = HashMap::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    (run(fio(), args, dir, &env), run(ferrio(), args, dir, &env))
}

/// Help output with the help texts removed: `name: text` keeps `name:`,
/// value lines keep their word.
fn shape(text: &str) -> String {
    text.lines()
        .map(|l| match l.split_once(": ") {
            Some((label, rest)) => {
                let label_t = label.trim();
                let keep_rest = ["alias", "type", "default", "range"].contains(&label_t);
                if keep_rest {
                    format!("{label}: {rest}\n")
                } else if label_t.is_empty() || label_t == "valid values" {
                    format!("{label}: {}\n", rest.split(' ').next().unwrap_or(""))
                } else {
                    format!("{label}:\n")
                }
            }
            None => format!("{l}\n"),
        })
        .collect()
}

#[test]
fn cmdhelp_all_lists_the_same_options_in_the_same_tree() {
    let (want, got) = both(&["--cmdhelp=all"]);
    assert_eq!(want.code, got.code);
    assert_eq!(shape(&got.stdout), shape(&want.stdout));
}

#[test]
fn cmdhelp_of_every_option_gives_fio_type_default_range_and_values() {
    let (all, _) = both(&["--cmdhelp=all"]);
    let names: Vec<String> = all
        .stdout
        .lines()
        .filter_map(|l| l.split(':').next())
        .map(|n| n.trim().to_string())
        .collect();
    assert!(names.len() > 200, "fio lists {} options", names.len());
    let results = parallel(&names, |name| {
        let arg = format!("--cmdhelp={name}");
        let (want, got) = both(&[&arg]);
        (want.code == got.code && shape(&want.stdout) == shape(&got.stdout))
            .then_some(())
            .ok_or_else(|| {
                format!(
                    "{name}:\nfio:\n{}\nferrio:\n{}",
                    shape(&want.stdout),
                    shape(&got.stdout)
                )
            })
    });
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    println!(
        "cmdhelp: {}/{} options described alike",
        names.len() - failures.len(),
        names.len()
    );
    assert!(
        failures.is_empty(),
        "{}",
        failures
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn cmdhelp_misspelled_and_unknown() {
    for arg in [
        "--cmdhelp=iodepht",
        "--cmdhelp=qqqqqqqq",
        "--cmdhelp=timeout",
    ] {
        let (want, got) = both(&[arg]);
        assert_eq!(
            (want.code, shape(&want.stdout), &want.stderr),
            (got.code, shape(&got.stdout), &got.stderr),
            "{arg}"
        );
    }
}

#[test]
fn enghelp_lists_engines_and_each_engines_options() {
    let (want, got) = both(&["--enghelp"]);
    assert_eq!((want.code, &want.stdout), (got.code, &got.stdout));
    let engines: Vec<String> = want
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.trim().to_string())
        .collect();
    for engine in engines
        .iter()
        .chain(["nosuchengine".to_string(), "aio".to_string()].iter())
    {
        let arg = format!("--enghelp={engine}");
        let (want, got) = both(&[&arg]);
        assert_eq!(
            (want.code, shape(&want.stdout)),
            (got.code, shape(&got.stdout)),
            "{arg}"
        );
        assert_eq!(want.stderr, got.stderr, "{arg}");
    }
    let (want, got) = both(&["--enghelp=libaio,userspace_reap"]);
    assert_eq!(
        (want.code, shape(&want.stdout)),
        (got.code, shape(&got.stdout))
    );
}

#[test]
fn flag_errors_exit_and_report_as_fio() {
    let cases: &[&[&str]] = &[
        &["--foo=bar"],
        &["--foo"],
        &["--output-format=xml", "x.fio"],
        &["--terse-version=9", "x.fio"],
        &["--latency-log=x"],
        &["--parse-only", "/nonexistent/job.fio"],
        &["--name=a", "--rw=bogus", "--parse-only"],
        &["--name=a", "--iodepth=0", "--parse-only"],
    ];
    for args in cases {
        let (want, got) = both(args);
        assert_eq!(want.code, got.code, "{args:?}: {}", got.stderr);
        assert_eq!(want.stderr, fio_part(&got.stderr), "{args:?}");
        assert!(
            got.stderr.lines().any(|l| l.starts_with("ferrio: ")),
            "{args:?}: no explanation"
        );
    }
}

#[test]
fn no_job_at_all() {
    let (want, got) = both(&[]);
    assert_eq!((want.code, &want.stderr), (got.code, &got.stderr));
    assert!(got.stdout.starts_with("fio-3.33"));
    let (want, got) = both(&["--parse-only"]);
    assert_eq!(
        (want.code, &want.stdout, &want.stderr),
        (got.code, &got.stdout, &got.stderr)
    );
}

#[test]
fn version_names_fio_3_33_and_ferrio() {
    let (want, got) = both(&["--version"]);
    assert_eq!(want.code, got.code);
    assert!(got.stdout.starts_with(want.stdout.trim()), "{}", got.stdout);
    assert!(got.stdout.contains("ferrio"));
}

#[test]
fn client_server_mode_is_refused_clearly() {
    let env = HashMap::new();
    let out = run(ferrio(), &["--client=host1", "x.fio"], Path::new("."), &env);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("not supported"), "{}", out.stderr);
}
