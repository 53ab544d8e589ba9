//! Each syntax feature and value type of fio's job language, checked
//! against fio 3.33 on the same text:
//! - `--parse-only` and `--showcmd`: same exit status, stdout and stderr;
//! - the numbers fio reads (its `--debug=parse` trace prints every value
//!   it stores) equal the typed values in ferrio's plan;
//! - where marked, the jobs planned (names, groups, clones) equal the jobs
//!   fio runs in a null-engine dry run.

mod common;

use std::collections::HashMap;

use common::{JobFile, Run, Scratch, ferrio_jobs, fio_jobs, fio_part, parallel};
use ferrio::options::{self, Kind};

struct Case {
    name: &'static str,
    /// Files written to a scratch folder; the first is the job file.
    files: &'static [(&'static str, &'static str)],
    /// Extra command-line arguments, before the job file.
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    /// Also compare the planned jobs with a fio dry run.
    plan: bool,
}

/// A case made of one job file.
macro_rules! case {
    ($name:expr, $text:expr) => {
        Case {
            name: $name,
            files: &[("job.fio", $text)],
            args: &[],
            env: &[],
            plan: false,
        }
    };
}

/// A one-file case whose planned jobs are also compared with fio's.
macro_rules! planned {
    ($name:expr, $text:expr) => {
        Case {
            name: $name,
            files: &[("job.fio", $text)],
            args: &[],
            env: &[],
            plan: true,
        }
    };
}

const CASES: &[Case] = &[
    // --- the INI layer ---
    planned!(
        "global applies to later jobs only",
        "[a]\nbs=8k\n[global]\nbs=16k\n[b]\n[global]\nrw=randread\n[c]\n"
    ),
    planned!(
        "section named global-ish is global",
        "[globalx]\nbs=8k\n[a]\n"
    ),
    case!(
        "comments whole line and trailing",
        "; top\n# also\n[a] ; after header\nbs=8k ; trailing\nsize=1m # hash\n  ;indented\n"
    ),
    case!("comment cuts a value", "[a]\nfilename=/tmp/x#y\nsize=1m\n"),
    case!(
        "blank lines and spaces around equals (numbers)",
        "\n\n[a]\n\n  bs = 8k  \nsize  =1m\n\n"
    ),
    case!(
        "space before a word value is refused",
        "[a]\nrw = randread\n"
    ),
    case!(
        "option without value: flag",
        "[a]\ntime_based\ngroup_reporting\n"
    ),
    case!("option without value: bool refused", "[a]\ndirect\n"),
    case!("option outside any section", "bs=4k\n[a]\n"),
    case!("malformed section header", "[j\nbs=4k\n"),
    case!("lone bracket", "[a]\n[\n"),
    planned!(
        "crlf line ends",
        "[a]\r\nbs=8k\r\nnumjobs=2\r\n[b]\r\nstonewall\r\n"
    ),
    planned!("final line without newline", "[a]\nnumjobs=3"),
    case!("empty file", ""),
    case!("only a global section", "[global]\nbs=4k\n"),
    Case {
        name: "include relative to the including file",
        files: &[
            ("job.fio", "[a]\ninclude inc/common.fio\n"),
            ("inc/common.fio", "bs=8k\nrw=randread\n"),
        ],
        args: &[],
        env: &[],
        plan: true,
    },
    Case {
        name: "include with a section inside",
        files: &[
            ("job.fio", "[a]\ninclude bad.fio\n"),
            ("bad.fio", "[b]\nbs=4k\n"),
        ],
        args: &[],
        env: &[],
        plan: false,
    },
    case!("include of a missing file", "[a]\ninclude nowhere.fio\n"),
    Case {
        name: "environment variables, set and unset",
        files: &[(
            "job.fio",
            "[a]\nbs=${BS}\nsize=${SIZE}m\nnumjobs=${NJ}\ndescription=x${UNSET}y\n",
        )],
        args: &[],
        env: &[("BS", "16k"), ("SIZE", "4"), ("NJ", "2")],
        plan: true,
    },
    planned!(
        "keywords and their arithmetic",
        "[a]\nnumjobs=$ncpus*2-1\nbs=$pagesize\nsize=$mb_memory/1024\n"
    ),
    case!("keyword without operator", "[a]\nbs=$pagesize\n"),
    // --- sizes ---
    case!(
        "size suffixes",
        "[a]\nbs=8K\nsize=1g\nio_size=2M\noffset=3kb\nbs_unaligned\n[b]\nsize=1KiB\nbs=512\n[c]\nsize=2t\n[d]\nsize=3p\n"
    ),
    case!(
        "kb_base=1000 flips the units",
        "[a]\nkb_base=1000\nsize=4k\nio_size=4KiB\nbs=2m\n"
    ),
    case!(
        "kb_base applied first whatever its place",
        "[a]\nsize=4k\nkb_base=1000\n"
    ),
    case!(
        "a blank before the number drops the suffix",
        "[a]\nbs = 4k\n"
    ),
    case!("decimal point ends the number", "[a]\nsize=1.5m\n"),
    case!("percentage size", "[a]\nsize=50%\nio_size=10%\n"),
    case!("hex numbers", "[a]\nbs=0x2000\niodepth=0x10\n"),
    case!("B suffix", "[a]\nbs=4096B\n"),
    case!(
        "per-direction lists",
        "[a]\nbs=4k,8k,16k\n[b]\nbs=4k,8k\n[c]\nbs=,8k\n[d]\nbs=4k,\n"
    ),
    case!(
        "ranges",
        "[a]\nbsrange=4k-64k\n[b]\nbs=4k-64k\n[c]\nbsrange=64k:4k,1k-2k\n"
    ),
    case!(
        "bssplit per direction",
        "[a]\nbssplit=4k/50:64k/50,8k/100\nrw=randrw\n"
    ),
    case!(
        "bssplit over 100 percent",
        "[a]\nbssplit=4k/90:8k/90:16k:32k\n"
    ),
    case!("bad size", "[a]\nbs=abc\n"),
    case!("zero block size", "[a]\nbs=0\n"),
    // --- integers and ranges of values ---
    case!(
        "iodepth out of range but another piece parses",
        "[a]\niodepth=-5\n"
    ),
    case!("iodepth zero", "[a]\niodepth=0\n"),
    case!("rwmixread over 100", "[a]\nrwmixread=150\n"),
    case!("bad integer", "[a]\niodepth=abc\n"),
    case!("numjobs zero", "[a]\nnumjobs=0\n"),
    // --- times ---
    case!(
        "time units",
        "[a]\nruntime=90\n[b]\nruntime=2m\n[c]\nruntime=1h\n[d]\nruntime=1d\n[e]\nruntime=500ms\n[f]\nruntime=250us\n[g]\nramp_time=10s\nthinktime=100\n"
    ),
    case!("unknown time suffix is accepted", "[a]\nruntime=5x\n"),
    // --- booleans and words ---
    case!(
        "booleans",
        "[a]\ndirect=1\nrandrepeat=0\nend_fsync=1\nthread\nstonewall=1\n"
    ),
    case!(
        "rw with sequence and offset modifiers",
        "[a]\nrw=randrw:8\n[b]\nrw=write:16k\n[c]\nrw=readwrite\n"
    ),
    case!("bad rw word lists the values", "[a]\nrw=foo\n"),
    case!("rw word with a suffix", "[a]\nrw=readx\n"),
    case!(
        "random distributions",
        "[a]\nrandom_distribution=zipf:1.2\n[b]\nrandom_distribution=pareto:0.3\n[c]\nrandom_distribution=normal:10\n[d]\nrandom_distribution=zoned:50/10:50/90\n"
    ),
    case!("zipf theta of one", "[a]\nrandom_distribution=zipf:1\n"),
    case!(
        "percentile lists",
        "[a]\npercentile_list=1:5:10:50:99.5:99.99\n"
    ),
    case!(
        "percentile list too long",
        "[a]\npercentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21:22\n"
    ),
    case!(
        "filename lists with escapes",
        "[a]\nfilename=/tmp/a\\:b:/tmp/c\nsize=1m\n"
    ),
    case!(
        "rates per direction",
        "[a]\nrate=1m,2m\nrate_iops=100,200\nrate_min=10k\n"
    ),
    case!(
        "cpu lists",
        "[a]\ncpus_allowed=0-1\ncpus_allowed_policy=split\n"
    ),
    case!("cpu list beyond this machine", "[a]\ncpus_allowed=0-255\n"),
    case!("deprecated option", "[a]\nrwmixcycle=10\n"),
    case!("soft-deprecated option", "[a]\nverifysort=1\n"),
    case!("bad verify_pattern", "[a]\nverify_pattern=zz\n"),
    case!(
        "verify_pattern pieces",
        "[a]\nverify_pattern=0xff0x14\"ab\"%o258\n"
    ),
    case!("buffer_pattern takes no %o", "[a]\nbuffer_pattern=0xaa%o\n"),
    case!("unterminated pattern text", "[a]\nbuffer_pattern=\"abc\n"),
    // --- names and errors ---
    case!("unknown option with a suggestion", "[a]\niodepht=4\n"),
    case!(
        "unknown option without a suggestion",
        "[a]\nqwertyuiopasdfgh=1\n"
    ),
    case!(
        "engine option with its engine",
        "[a]\nioengine=libaio\nuserspace_reap\n"
    ),
    case!(
        "engine option set before the engine",
        "[a]\nhipri\nioengine=io_uring\nfixedbufs\n"
    ),
    case!(
        "engine option with another engine",
        "[a]\nioengine=psync\nuserspace_reap\n"
    ),
    case!(
        "engine option from the global section",
        "[global]\nioengine=rbd\nclientname=admin\npool=rbd\n[a]\nrbdname=img\n"
    ),
    case!("unknown engine", "[a]\nioengine=nosuchengine\nbs=4k\n"),
    case!(
        "unknown engine with an unknown option",
        "[a]\nioengine=nosuchengine\nfoo=1\n"
    ),
    case!(
        "several bad options in one section",
        "[a]\nbs=abc\nrw=foo\niodepth=0\n"
    ),
    case!(
        "second job bad after a good one",
        "[a]\nbs=4k\n[b]\nbs=abc\n[c]\nbs=4k\n"
    ),
    // --- planning ---
    planned!(
        "numjobs clones keep the name",
        "[a]\nnumjobs=3\n[b]\nnumjobs=2\n"
    ),
    planned!(
        "stonewall and new_group",
        "[a]\n[b]\nstonewall\n[c]\n[d]\nnew_group\nnumjobs=2\n[e]\nwait_for_previous\n"
    ),
    planned!(
        "stonewall on the first job is not a new group",
        "[a]\nstonewall\n[b]\n"
    ),
    planned!(
        "name option overrides the section name",
        "[global]\nname=fromglobal\n[a]\n[b]\nname=other\n"
    ),
    planned!("wait_for an earlier job", "[a]\n[b]\nwait_for=a\n"),
    Case {
        name: "command-line options are defaults under the file",
        files: &[("job.fio", "[a]\nbs=8k\n[b]\n")],
        args: &["--bs=16k", "--numjobs=2"],
        env: &[],
        plan: true,
    },
    Case {
        name: "command-line jobs before the file's jobs",
        files: &[("job.fio", "[f]\nnumjobs=2\n")],
        args: &["--name=c1", "--rw=read", "--name=c2", "--stonewall"],
        env: &[],
        plan: true,
    },
    Case {
        name: "command-line global block",
        files: &[("job.fio", "[f]\n")],
        args: &["--name=global", "--numjobs=2", "--name=c1"],
        env: &[],
        plan: true,
    },
    Case {
        name: "section selection",
        files: &[("job.fio", "[global]\nbs=8k\n[a]\n[b]\nnumjobs=2\n[c]\n")],
        args: &["--section=b", "--section=c"],
        env: &[],
        plan: true,
    },
    Case {
        name: "bad command-line value",
        files: &[("job.fio", "[f]\n")],
        args: &["--rw=bogus"],
        env: &[],
        plan: false,
    },
];

/// stdout with the help column of fio's "valid values" lists removed:
/// ferrio lists the same words, with help text in its own words.
fn without_value_help(stdout: &str) -> String {
    let word_only =
        |label: &str, rest: &str| format!("{label}: {}\n", rest.split(' ').next().unwrap_or(""));
    stdout
        .lines()
        .map(|l| match l.split_once("valid values: ") {
            Some((before, rest)) => word_only(&format!("{before}valid values"), rest),
            None => match l.split_once(": ") {
                Some((label, rest)) if label.trim().is_empty() => word_only(label, rest),
                _ => format!("{l}\n"),
            },
        })
        .collect()
}

fn setup(c: &Case) -> (Scratch, JobFile) {
    let scratch = Scratch::new("syntax");
    for (name, text) in c.files {
        let path = scratch.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let env: HashMap<String, String> = c
        .env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let file = JobFile {
        path: scratch.0.join(c.files[0].0),
        env,
    };
    (scratch, file)
}

fn same_run(c: &Case, file: &JobFile, mode: &str) -> Result<bool, String> {
    let name = file.name();
    let mut args: Vec<&str> = vec![mode];
    args.extend_from_slice(c.args);
    args.push(&name);
    let want = Run::fio()
        .args(&args)
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    let got = Run::ferrio()
        .args(&args)
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    let same_out = without_value_help(&want.stdout) == without_value_help(&got.stdout);
    if want.code != got.code || !same_out || want.stderr != fio_part(&got.stderr) {
        return Err(format!(
            "{mode}: fio exit {} out {:?} err {:?}\n         ferrio exit {} out {:?} err {:?}",
            want.code, want.stdout, want.stderr, got.code, got.stdout, got.stderr
        ));
    }
    if want.code != 0 && !got.stderr.lines().any(|l| l.starts_with("ferrio: ")) {
        return Err(format!("{mode}: no ferrio explanation on failure"));
    }
    Ok(want.code == 0)
}

/// Each option fio handled, with the numbers of its comma pieces.
type Stored = Vec<(String, Vec<Option<u64>>)>;

/// Every value fio read, from its `--debug=parse` trace: one entry per
/// time an option was handled, with the numbers of its comma pieces in
/// order (`None` for a piece it could not read). Options whose value fio
/// refused for its range are left out: the trace prints their number
/// before the range check. The trace is cut at each `parse <pid>` prefix
/// rather than at line ends: fio echoes a job file's last line without
/// its missing newline, and the next trace entry then shares that line
/// (a `handle_option=` lost there would drop the value it announces). A
/// value with no option before it is a trace this reader cannot follow,
/// and fails the case rather than being dropped.
fn fio_numbers(c: &Case, file: &JobFile) -> Result<Stored, String> {
    let name = file.name();
    let mut args: Vec<&str> = vec!["--debug=parse", "--parse-only"];
    args.extend_from_slice(c.args);
    args.push(&name);
    let out = Run::fio()
        .args(&args)
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    let mut numbers: Stored = Vec::new();
    for entry in out.stdout.split("parse ").skip(1) {
        // The pid, then the message.
        let msg = entry.trim_start().split_once(' ').map_or("", |(_, m)| m);
        let msg = msg.lines().next().unwrap_or("").trim_start();
        if let Some(rest) = msg.strip_prefix("handle_option=") {
            let opt = rest.split(',').next().unwrap_or("").to_string();
            numbers.push((opt, Vec::new()));
        } else if let Some(rest) = msg.strip_prefix("ret=") {
            let (ret, out) = rest.split_once(", out=").unwrap_or((rest, ""));
            let v = (ret == "0")
                .then(|| out.trim().parse::<u64>().ok())
                .flatten();
            let Some((_, pieces)) = numbers.last_mut() else {
                return Err(format!(
                    "fio's trace has a value before any option: {msg:?}"
                ));
            };
            pieces.push(v);
        }
    }
    numbers.retain(|(opt, _)| !out.stderr.contains(&format!("{opt}: m")));
    Ok(numbers)
}

/// ferrio's plan as `--explain --parse-only` prints it: the number of
/// jobs, and option name → the typed value in each job. The plan is the
/// JSON document after the lines fio prints first (a deprecation notice,
/// an include that failed to open), as in fio's own JSON output. A file
/// fio accepts must be explained by ferrio as a JSON plan: anything else
/// fails the case (an unreadable plan would otherwise compare nothing).
type Typed = (usize, HashMap<String, Vec<serde_json::Value>>);

fn ferrio_typed(c: &Case, file: &JobFile) -> Result<Typed, String> {
    let name = file.name();
    let mut args: Vec<&str> = vec!["--explain", "--parse-only", "--output-format=json"];
    args.extend_from_slice(c.args);
    args.push(&name);
    let out = Run::ferrio()
        .args(&args)
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    let start = out.stdout.find("{\n").unwrap_or(0);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout[start..])
        .ok()
        .filter(|_| out.code == 0)
        .ok_or_else(|| {
            format!(
                "--explain: exit {}, no JSON plan: {:?} {:?}",
                out.code, out.stdout, out.stderr
            )
        })?;
    let groups = doc["groups"]
        .as_array()
        .ok_or_else(|| format!("--explain: no groups in {doc}"))?;
    let mut jobs = 0;
    let mut typed: HashMap<String, Vec<serde_json::Value>> = HashMap::new();
    for g in groups {
        for j in g["jobs"].as_array().into_iter().flatten() {
            jobs += 1;
            for (k, v) in j["options"].as_object().into_iter().flatten() {
                typed.entry(k.clone()).or_default().push(v["typed"].clone());
            }
        }
    }
    Ok((jobs, typed))
}

/// Whether ferrio's typed value holds the numbers fio read.
fn holds(
    kind: Kind,
    per_dir: u8,
    pieces: &[Option<u64>],
    typed: &serde_json::Value,
) -> Option<bool> {
    let first = pieces.first().copied().flatten();
    match (kind, first) {
        (Kind::Bool | Kind::Flag, Some(v)) => Some(typed["bool"].as_bool() == Some(v != 0)),
        (_, Some(v)) if typed.get("percent").is_some() => {
            Some(typed["percent"].as_u64().map(|p| u64::MAX - p) == Some(v))
        }
        (Kind::Int | Kind::Size | Kind::Time, _) => {
            let nums: Vec<u64> = typed["nums"]
                .as_array()
                .map(|a| a.iter().filter_map(|x| x.as_u64()).collect())
                .unwrap_or_default();
            let mut ok = true;
            for (i, p) in pieces.iter().enumerate().take(per_dir as usize) {
                if let Some(v) = p {
                    let v = if kind == Kind::Int {
                        *v as u32 as u64
                    } else {
                        *v
                    };
                    ok &= nums.get(i) == Some(&v);
                }
            }
            Some(ok)
        }
        _ => None,
    }
}

/// What became of the values fio read in one case: compared with
/// ferrio's, or not comparable for the reason counted.
#[derive(Default, Debug, Clone, Copy, PartialEq)]
struct Tally {
    /// Values found in ferrio's typed plan.
    compared: usize,
    /// Options outside ferrio's job-level table (engine options, and
    /// the defaults fio fills for an engine).
    not_in_table: usize,
    /// Values of a type `holds` does not read (strings, lists, floats).
    not_numeric: usize,
    /// Values of a file whose plan has no job (only global sections).
    no_job: usize,
}

/// Every number fio read is a value of the same option in ferrio's plan.
fn same_numbers(c: &Case, file: &JobFile) -> Result<Tally, String> {
    let theirs = fio_numbers(c, file)?;
    let (jobs, ours) = ferrio_typed(c, file)?;
    let mut tally = Tally::default();
    for (opt, pieces) in &theirs {
        let Some(def) = options::find(opt) else {
            tally.not_in_table += 1;
            continue;
        };
        let Some(values) = ours.get(def.name) else {
            if jobs == 0 {
                tally.no_job += 1;
                continue;
            }
            return Err(format!("fio stored {opt} but ferrio has no value for it"));
        };
        let verdicts: Vec<Option<bool>> = values
            .iter()
            .map(|t| holds(def.kind, def.per_dir, pieces, t))
            .collect();
        if verdicts.iter().all(Option::is_none) {
            tally.not_numeric += 1;
            continue;
        }
        if !verdicts.contains(&Some(true)) {
            return Err(format!("{opt}: fio read {pieces:?}, ferrio has {values:?}"));
        }
        tally.compared += 1;
    }
    Ok(tally)
}

/// One case: its notes, and what became of the values fio read (zero
/// for a file fio rejects).
fn check(c: &Case) -> Result<(String, Tally), String> {
    let (_scratch, file) = setup(c);
    let accepted = same_run(c, &file, "--parse-only")?;
    same_run(c, &file, "--showcmd")?;
    let mut notes = vec![if accepted { "accepted" } else { "rejected" }.to_string()];
    let mut tally = Tally::default();
    if accepted {
        tally = same_numbers(c, &file)?;
        notes.push(format!("{} values", tally.compared));
    }
    if accepted && c.plan {
        let want = fio_jobs(&file, c.args)?;
        let got = ferrio_jobs(&file, c.args)?;
        if want != got {
            return Err(format!("plan: fio {want:?}\n       ferrio {got:?}"));
        }
        notes.push(format!("{} jobs planned alike", got.len()));
    }
    Ok((notes.join(", "), tally))
}

/// The values compared over all cases, and those not comparable, by
/// reason: what fio 3.33's trace holds for [`CASES`] (the per-case
/// counts are printed). A reader that lost its way in fio's trace, or a
/// plan that stopped listing its typed values, would compare fewer; a
/// case added or changed changes these figures on purpose.
const TALLY: Tally = Tally {
    compared: 83,
    not_in_table: 9,
    not_numeric: 37,
    no_job: 1,
};

#[test]
fn every_syntax_case_reads_as_fio_reads_it() {
    let results = parallel(CASES, check);
    let mut failed = 0;
    let mut total = Tally::default();
    for (c, r) in CASES.iter().zip(&results) {
        match r {
            Ok((notes, t)) => {
                println!("same    {}: {notes} {t:?}", c.name);
                total.compared += t.compared;
                total.not_in_table += t.not_in_table;
                total.not_numeric += t.not_numeric;
                total.no_job += t.no_job;
            }
            Err(e) => {
                failed += 1;
                println!("DIFFER  {}\n  {e}", c.name);
            }
        }
    }
    println!(
        "syntax: {}/{} cases read as fio reads them; values: {total:?}",
        CASES.len() - failed,
        CASES.len()
    );
    assert_eq!(failed, 0);
    assert_eq!(total, TALLY, "values compared and not comparable");
}
