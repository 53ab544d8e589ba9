//! fio's command line beside ferrio's: help output shape, flag errors and
//! exit statuses, compared with fio 3.33 run on the same arguments.
//! ferrio's help texts are its own words, so the comparisons drop the
//! text after an option's name and a value's word.

mod common;

use std::time::Duration;

use common::{Outcome, Run, Scratch, blk_record, ferrio, fio, fio_part, parallel};

fn both(args: &[&str]) -> (Outcome, Outcome) {
    Run::new()
        .args(args)
        .in_dir(env!("CARGO_MANIFEST_DIR"))
        .both()
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

/// ferrio's own commands and formats are in its help, and `merge` has a
/// `--help` of its own (fio has neither, so there is nothing to compare).
#[test]
fn help_names_ferrios_formats_and_merge_has_its_own_help() {
    let out = Run::ferrio().arg("--help").out();
    assert_eq!(out.code, 0);
    for line in [
        "  --output-format=html\t",
        "  --notes\t",
        "  merge a.json b.json",
        "  report a.json [b.json ...]",
    ] {
        assert!(out.stdout.contains(line), "{line:?} not in {}", out.stdout);
    }
    let out = Run::ferrio().args(["merge", "--help"]).out();
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert!(
        out.stdout
            .contains("Usage: ferrio merge [OPTIONS] <FILE.json>..."),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("--output <FILE>"), "{}", out.stdout);
    let out = Run::ferrio().args(["report", "--help"]).out();
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert!(
        out.stdout
            .contains("Usage: ferrio report [OPTIONS] <FILE.json>..."),
        "{}",
        out.stdout
    );
    let out = Run::ferrio().args(["report", "absent.json"]).out();
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (
            1,
            "ferrio report: absent.json: No such file or directory (os error 2)\n"
        )
    );
    let dir = std::env::temp_dir().join(format!("ferrio-report-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        "fio: a note before the document\n{\n  \"jobs\" : [\n  oops\n",
    )
    .unwrap();
    let out = Run::ferrio().args(["report", bad.to_str().unwrap()]).out();
    assert_eq!(
        (out.code, out.stderr),
        (
            1,
            format!(
                "ferrio report: {}:4:3: not a JSON results document: expected value\n",
                bad.display()
            )
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
    let out = Run::ferrio().args(["merge", "--bogus", "a.json"]).out();
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("error: unexpected argument '--bogus' found"),
        "{}",
        out.stderr
    );
}

#[test]
fn client_server_mode_is_refused_clearly() {
    let out = Run::ferrio().args(["--client=host1", "x.fio"]).out();
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("not supported"), "{}", out.stderr);
}

/// The same code, stdout and stderr as fio.
fn alike(args: &[&str]) {
    let (want, got) = both(args);
    assert_eq!(
        (want.code, &want.stdout, &want.stderr),
        (got.code, &got.stdout, &got.stderr),
        "{args:?}"
    );
}

/// A refusal: status 1 and a `ferrio:` line containing `words`.
fn refused(args: &[&str], words: &str) {
    let got = Run::ferrio().args(args).out();
    assert_eq!(got.code, 1, "{args:?}: {}", got.stderr);
    assert!(
        got.stderr
            .lines()
            .any(|l| l.starts_with("ferrio: ") && l.contains(words)),
        "{args:?}: {}",
        got.stderr
    );
}

#[test]
fn debug_lists_fios_areas_and_refuses_traces() {
    alike(&["--debug=help"]);
    alike(&["--debug=?"]);
    // Unknown areas and a job number alone are named and passed over.
    alike(&["--debug=bogus,job", "--parse-only"]);
    alike(&["--debug=job:3", "--parse-only"]);
    alike(&["--debug=bogus", "--name=a", "--size=4k", "--parse-only"]);
    refused(&["--debug=io", "--name=a", "--parse-only"], "--explain");
    refused(
        &["--debug=all", "--name=a", "--parse-only"],
        "only the parse area",
    );
}

/// fio reads --alloc-size with atoi and sizes its pool in 32 bits: what
/// fits is accepted and changes nothing; fio crashes on what wraps.
#[test]
fn alloc_size_is_read_as_fio_reads_it() {
    for v in ["8k", "abc", "0", "4177982", "-4194304"] {
        alike(&[&format!("--alloc-size={v}"), "--name=a", "--parse-only"]);
    }
    for v in ["4177983", "-1"] {
        let arg = format!("--alloc-size={v}");
        let (want, _) = both(&[&arg, "--name=a", "--parse-only"]);
        assert_ne!(want.code, 0, "fio ran with {arg}");
        refused(&[&arg, "--name=a", "--parse-only"], "4177982");
    }
}

#[test]
fn idle_prof_and_cpuclock_test_are_refused_clearly() {
    alike(&["--idle-prof=bogus"]);
    for v in ["system", "percpu", "calibrate"] {
        refused(
            &[&format!("--idle-prof={v}"), "--name=a", "--parse-only"],
            "not supported",
        );
    }
    refused(&["--cpuclock-test"], "not supported");
}

/// fio sends --trigger-remote's command to its servers only: a local
/// run goes on as if it were absent.
#[test]
fn trigger_remote_is_ignored_outside_client_mode_as_in_fio() {
    let args = [
        "--trigger-remote=touch triggered",
        "--trigger-timeout=1",
        "--name=a",
        "--ioengine=null",
        "--size=1m",
        "--output-format=terse",
    ];
    for tool in [fio(), ferrio()] {
        let s = Scratch::new("trigger-remote");
        let out = Run::tool(tool).args(args).in_dir(&s.0).out();
        assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
        assert!(!s.0.join("triggered").exists(), "{tool} ran the command");
    }
}

/// A speed test's output with each rate replaced by `R`: names, order,
/// tabs and the `MiB/sec` unit are kept.
fn rates_out(text: &str) -> String {
    text.lines()
        .map(|l| match l.rfind('\t') {
            Some(at) if l.ends_with(" MiB/sec") => format!("{}R\n", &l[..=at]),
            _ => format!("{l}\n"),
        })
        .collect()
}

/// The time limit of a `--crctest` or `--memcpytest` run. Its work is
/// fixed (each checksum over 128 KiB 2048 times, the SHA-3s the slowest;
/// each copy routine over its sizes), so its time is the machine's alone:
/// about ten seconds for every checksum in an optimised build on an idle
/// machine, tens of minutes in an unoptimised one on a loaded machine.
/// The limit only catches a hang.
const SELFTEST_LIMIT: Duration = Duration::from_secs(3600);

/// --crctest: the list and its errors as fio's; a chosen set prints fio's
/// lines (names, tabs, unit) with ferrio's rates in them; with no list
/// every checksum ferrio has runs, in fio's order, and stderr names the
/// two it has not.
#[test]
fn crctest_prints_fios_lines_for_ferrios_checksums() {
    alike(&["--crctest=help"]);
    alike(&["--crctest=bogus"]);
    let (want, got) = Run::new()
        .arg("--crctest=sha512,crc7,md5,nosuch,crc32c")
        .limit(SELFTEST_LIMIT)
        .both();
    assert_eq!((want.code, &want.stderr), (got.code, &got.stderr));
    assert_eq!(rates_out(&got.stdout), rates_out(&want.stdout));
    assert_eq!(got.stdout.lines().count(), 4);
    refused(&["--crctest=md5,murmur3"], "murmur3");
    // All of them: fio's names in its order (from its list), less the two
    // ferrio does not have.
    let (list, _) = both(&["--crctest=list"]);
    let want: Vec<&str> = list
        .stdout
        .lines()
        .filter(|n| !["murmur3", "fnv"].contains(n))
        .collect();
    let got = Run::ferrio().arg("--crctest").limit(SELFTEST_LIMIT).out();
    assert_eq!(got.code, 0, "{}", got.stderr);
    let names: Vec<&str> = got
        .stdout
        .lines()
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(names, want);
    // Each line is a name, tabs and a rate in fio's unit.
    for line in rates_out(&got.stdout).lines() {
        assert!(line.ends_with("\tR"), "{line:?}");
    }
    assert!(
        got.stderr.starts_with("ferrio: ") && got.stderr.contains("murmur3, fnv"),
        "{}",
        got.stderr
    );
}

#[test]
fn memcpytest_prints_fios_lines() {
    alike(&["--memcpytest=list"]);
    alike(&["--memcpytest=bogus"]);
    let (want, got) = Run::new()
        .arg("--memcpytest=memcpy,nosuch")
        .limit(SELFTEST_LIMIT)
        .both();
    assert_eq!((want.code, &want.stderr), (got.code, &got.stderr));
    assert_eq!(rates_out(&got.stdout), rates_out(&want.stdout));
    assert_eq!(got.stdout.lines().count(), 12);
}

/// --merge-blktrace-only: the header lines, each merge (fio 3.33's: an
/// empty file and its message), no run, no replay target, status 0.
#[test]
fn merge_blktrace_only_merges_and_runs_nothing() {
    const QUEUE: u32 = 1 | 1 << 20;
    const READ: u32 = 1 << 16;
    const WRITE: u32 = 1 << 17;
    let trace: Vec<u8> = (0..6u32)
        .flat_map(|i| {
            let dir = if i % 2 == 1 { READ } else { WRITE };
            blk_record(
                false,
                u64::from(i + 1) * 10_000_000,
                u64::from(i) * 16,
                4096,
                QUEUE | dir,
                &[],
            )
        })
        .collect();
    let job = "[merge]\nioengine=null\nread_iolog=a.bin:b.bin\nmerge_blktrace_file=merged.bin\n\
               replay_redirect=data\nnumjobs=2\n\n\
               [mismatch]\nioengine=null\nread_iolog=b.bin:a.bin\nmerge_blktrace_file=m2.bin\n\
               merge_blktrace_scalars=100:50:3\n\n\
               [plain]\nioengine=null\nsize=1m\nbs=8k\niodepth=4\n";
    let run_with = |tool: &str, args: &[&str]| {
        let s = Scratch::new("merge-only");
        s.write("job.fio", job);
        std::fs::write(s.0.join("a.bin"), &trace).unwrap();
        std::fs::write(s.0.join("b.bin"), &trace).unwrap();
        let out = Run::tool(tool).args(args).in_dir(&s.0).out();
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&s.0)
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                (name, std::fs::read(e.path()).unwrap())
            })
            .collect();
        files.sort();
        (out.code, out.stdout, out.stderr, files)
    };
    for args in [
        &["--merge-blktrace-only", "job.fio"][..],
        &["--merge-blktrace-only", "--output-format=json", "job.fio"],
        &["--merge-blktrace-only"],
    ] {
        let want = run_with(fio(), args);
        let got = run_with(ferrio(), args);
        assert_eq!(got, want, "{args:?}");
        if args.len() > 1 {
            assert!(want.3.iter().any(|(n, _)| n == "merged.bin"), "{want:?}");
        }
    }
}

/// `--explain`'s text for two groups (a numjobs=2 pair, then a stonewalled
/// job overriding global values), asserted line for line, and each fact it
/// states checked against fio's run of the same file: the groups and jobs
/// in fio's JSON, every value at the section fio's JSON lists it under
/// (`global options` or the job's `job options`), the I/O each job
/// derives (fio's io_kbytes); with `--explain-defaults`, one `defaults:`
/// list per job, which keeps out the options set.
#[test]
fn explain_states_groups_jobs_and_origins_as_fio_runs_them() {
    let job = "[global]\nioengine=null\nbs=4k\nsize=8m\n[a]\nrw=randread\nnumjobs=2\n\
        [b]\nstonewall\nrw=write\nbs=64k\nsize=1m\nnrfiles=2\n";
    let explained = Run::ferrio()
        .arg("--explain")
        .job_named("j.fio", job)
        .ok()
        .stdout;
    let with_defaults = Run::ferrio()
        .args(["--explain", "--explain-defaults"])
        .job_named("j.fio", job)
        .ok()
        .stdout;
    let (full, defaults): (Vec<&str>, Vec<&str>) = with_defaults
        .lines()
        .partition(|l| !l.trim_start().starts_with("defaults: "));
    let text: Vec<&str> = explained.lines().collect();
    assert_eq!(text, full, "--explain-defaults adds only the defaults");
    let origin = |value: &str, place: &str| format!("    {value:<40} <- {place}");
    let global =
        |line: u32, value: &str| origin(value, &format!("global section at j.fio:{line}:1"));
    let local = |line: u32, value: &str| origin(value, &format!("job section at j.fio:{line}:1"));
    let expected = [
        "group 0:".to_string(),
        "  job 1 'a' (ioengine=null):".into(),
        global(2, "ioengine=null"),
        global(3, "bs=4k"),
        global(4, "size=8m"),
        local(6, "rw=randread"),
        local(7, "numjobs=2"),
        "    derives: I/O in all 8192KiB".into(),
        "  job 2 'a' (ioengine=null, clone 1):".into(),
        "group 1:".into(),
        "  job 3 'b' (ioengine=null):".into(),
        global(2, "ioengine=null"),
        global(3, "bs=4k"),
        global(4, "size=8m"),
        local(9, "stonewall"),
        local(10, "rw=write"),
        local(11, "bs=64k"),
        local(12, "size=1m"),
        local(13, "nrfiles=2"),
        "    derives: I/O in all 1024KiB".into(),
    ];
    assert_eq!(text, expected, "{explained}");
    // One defaults list per job explained in full (a clone shares its
    // parent's); what a section sets is not a default.
    assert_eq!(defaults.len(), 2, "{explained}");
    let words = |i: usize| -> Vec<&str> { defaults[i].split_whitespace().skip(1).collect() };
    assert!(
        !words(0)
            .iter()
            .any(|w| w.starts_with("numjobs=") || w.starts_with("rw="))
    );
    assert!(words(0).contains(&"nrfiles=1") && words(1).contains(&"numjobs=1"));
    assert!(
        !words(1)
            .iter()
            .any(|w| w.starts_with("nrfiles=") || w.starts_with("bs="))
    );

    // The same facts from fio's run of the file (stonewall shows in
    // fio's JSON as the second group, not as an option).
    let fio_doc = Run::fio()
        .arg("--output-format=json")
        .job_named("j.fio", job)
        .json();
    let jobs = fio_doc["jobs"].as_array().unwrap();
    let seen: Vec<(&str, u64)> = jobs
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap(),
                j["groupid"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, [("a", 0), ("a", 0), ("b", 1)]);
    let kib = |i: usize, dir: &str| jobs[i][dir]["io_kbytes"].as_u64().unwrap();
    assert_eq!((kib(0, "read"), kib(2, "write")), (8192, 1024));
    let global_options = &fio_doc["global options"];
    for (key, value) in [("ioengine", "null"), ("bs", "4k"), ("size", "8m")] {
        assert_eq!(global_options[key], value, "fio's global {key}");
    }
    for (i, pairs) in [
        (0, &[("rw", "randread"), ("numjobs", "2")][..]),
        (
            2,
            &[
                ("rw", "write"),
                ("bs", "64k"),
                ("size", "1m"),
                ("nrfiles", "2"),
            ][..],
        ),
    ] {
        for (key, value) in pairs {
            assert_eq!(jobs[i]["job options"][key], *value, "fio's job {i} {key}");
        }
    }
}
