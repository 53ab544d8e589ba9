//! fio 3.33's trigger (`--trigger-file`, `--trigger-timeout`, `--trigger`)
//! beside ferrio, and three smaller matters of the same run set-up: sizes
//! counted in zones (`size=4z`) outside zonemode=zbd, the note on a depth
//! above one with a synchronous engine, and the open flags of trimming
//! jobs under direct=1.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use common::{Outcome, Run, Scratch, ferrio, fio, json};

/// Runs `tool` in `dir` with `args`, creating `touch` there `delay`
/// after the job's data file appeared (the trigger file appearing
/// mid-run, however long the tool took to start on a loaded machine).
fn run_touching(
    tool: &str,
    dir: &Path,
    args: &[&str],
    touch: Option<(&Path, Duration)>,
) -> Outcome {
    std::thread::scope(|s| {
        if let Some((path, delay)) = touch {
            let data = dir.join("data");
            s.spawn(move || {
                let give_up = std::time::Instant::now() + Duration::from_secs(20);
                while !data.exists() && std::time::Instant::now() < give_up {
                    std::thread::sleep(Duration::from_millis(10));
                }
                std::thread::sleep(delay);
                std::fs::write(path, b"").unwrap();
            });
        }
        Run::tool(tool).args(args).in_dir(dir).out()
    })
}

/// A state file's fields that do not depend on how far the jobs got.
type StateFields = (u64, u64, u64, u32, u32, u64, String);

/// The state files a run left in `dir`, by name, with their fields in
/// fio's layout, leaving out the CRC and the writes issued (both depend
/// on how far the jobs got): (version, size, no_comps, depth, nofiles,
/// index, name).
fn states(dir: &Path) -> Vec<(String, StateFields)> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with("-verify.state"))
        .map(|e| {
            let b = std::fs::read(e.path()).unwrap();
            let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
            let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
            let body = 24;
            let name = &b[body + 88..body + 152];
            let name = String::from_utf8_lossy(&name[..name.iter().position(|&c| c == 0).unwrap()]);
            let fields = (
                u64_at(0),
                u64_at(8),
                u64_at(body),
                u32_at(body + 8),
                u32_at(body + 12),
                u64_at(body + 24),
                name.into_owned(),
            );
            (e.file_name().to_string_lossy().into_owned(), fields)
        })
        .collect();
    found.sort();
    found
}

/// What a triggered run shows: exit status, stderr, the lines before the
/// JSON (the trigger command's output), each job's (name, group, error,
/// whether it wrote) and milliseconds run, whether the trigger file is
/// gone, the marker the command wrote, and the state files.
struct Triggered {
    code: i32,
    stderr: String,
    before_json: String,
    jobs: Vec<(String, u64, u64, bool)>,
    runtimes: Vec<u64>,
    file_gone: bool,
    marker: String,
    states: Vec<(String, StateFields)>,
}

fn triggered(tool: &str, extra: &[&str], touch_after: Option<Duration>) -> Triggered {
    triggered_in(tool, extra, touch_after, false)
}

/// [`triggered`], with the trigger file there before the run when
/// `present`.
fn triggered_in(
    tool: &str,
    extra: &[&str],
    touch_after: Option<Duration>,
    present: bool,
) -> Triggered {
    let s = Scratch::new("trigger");
    let data = format!("--filename={}", s.0.join("data").display());
    let go = s.0.join("go");
    if present {
        std::fs::write(&go, b"").unwrap();
    }
    let file = format!("--trigger-file={}", go.display());
    let command = format!(
        "--trigger=echo fired > {}; echo from-trigger",
        s.0.join("marker").display()
    );
    let mut args = vec![
        "--output-format=json",
        file.as_str(),
        command.as_str(),
        "--name=a",
        data.as_str(),
        "--size=1m",
        "--bs=4k",
        "--rw=randwrite",
        "--ioengine=psync",
        "--time_based",
    ];
    args.extend_from_slice(extra);
    let out = run_touching(tool, &s.0, &args, touch_after.map(|d| (go.as_path(), d)));
    let doc = json(&out);
    let jobs = doc["jobs"].as_array().unwrap();
    Triggered {
        code: out.code,
        stderr: out.stderr.clone(),
        before_json: out.stdout[..out.stdout.find('{').unwrap_or(0)].to_string(),
        jobs: jobs
            .iter()
            .map(|j| {
                (
                    j["jobname"].as_str().unwrap().to_string(),
                    j["groupid"].as_u64().unwrap(),
                    j["error"].as_u64().unwrap(),
                    j["write"]["io_bytes"].as_u64().unwrap() > 0,
                )
            })
            .collect(),
        runtimes: jobs
            .iter()
            .map(|j| j["job_runtime"].as_u64().unwrap())
            .collect(),
        file_gone: !go.exists(),
        marker: std::fs::read_to_string(s.0.join("marker")).unwrap_or_default(),
        states: states(&s.0),
    }
}

/// How many times fio runs a timing comparison to learn its own spread.
const FIO_RUNS: usize = 3;

/// The runtimes a triggered ferrio job may have, learnt from fio's
/// repeated runs of the same job ([`common::spread::window`]), widened
/// by no less than 250 ms. fio's runs agree within 20 ms, idle
/// (902-903 ms) and beside `stress-ng --cpu 2` (892-911 ms), but
/// ferrio's runtime sits some 130 ms later (1027-1031 ms, idle and
/// loaded alike: its job clock starts before fio's does relative to the
/// data file's appearance, which the touch waits for), so fio's spread
/// alone would refuse that offset; 250 ms still refuses a trigger seen a
/// status tick late or a job that ran its 20 s.
fn fio_window(runs: &[Triggered]) -> std::ops::RangeInclusive<u64> {
    let all: Vec<u64> = runs
        .iter()
        .flat_map(|t| t.runtimes.iter().copied())
        .collect();
    common::spread::window("triggered runtimes (ms)", &all, 250)
}

/// The trigger file appearing mid-run: both tools remove it, stop the
/// time-based job long before its runtime (fio's own start-up takes part
/// of the delay), run the command (its output
/// comes before the report), save the job's state, and exit 0 without a
/// word of their own.
#[test]
fn a_trigger_file_stops_the_run_and_runs_the_command() {
    let delay = Some(Duration::from_millis(1000));
    let fio_runs: Vec<Triggered> = (0..FIO_RUNS)
        .map(|_| triggered(fio(), &["--runtime=20"], delay))
        .collect();
    let r = triggered(ferrio(), &["--runtime=20"], delay);
    let allowed = fio_window(&fio_runs);
    for (tool, t) in fio_runs.iter().map(|t| ("fio", t)).chain([("ferrio", &r)]) {
        assert!(t.file_gone, "{tool} left the trigger file");
        assert_eq!(t.marker, "fired\n", "{tool}");
    }
    assert!(
        r.runtimes.iter().all(|ms| allowed.contains(ms)),
        "ferrio ran {:?} ms; fio's runs allow {allowed:?}",
        r.runtimes
    );
    eprintln!("ferrio's triggered runtimes: {:?} ms", r.runtimes);
    let f = &fio_runs[0];
    assert_eq!((f.code, &f.stderr), (r.code, &r.stderr));
    assert_eq!(f.before_json, "from-trigger\n");
    assert_eq!(f.before_json, r.before_json);
    assert_eq!(f.jobs, r.jobs);
    assert!(!f.states.is_empty());
    assert_eq!(f.states, r.states);
}

/// A trigger file there from the start fires while the jobs wait to be
/// let go: fio ends each with SIGTERM, so each says so ("terminating on
/// signal 15", racing the command's output for a process), and a job that
/// is a thread takes fio's process with it (exit status 128).
#[test]
fn a_trigger_file_there_from_the_start_ends_the_jobs_before_any_io() {
    for extra in [
        &["--runtime=5"][..],
        &["--runtime=5", "--thread"],
        &["--runtime=5", "--numjobs=2"],
    ] {
        let [f, r] = [fio(), ferrio()].map(|tool| triggered_in(tool, extra, None, true));
        let lines = |t: &Triggered| {
            let mut l: Vec<String> = t.before_json.lines().map(str::to_string).collect();
            l.sort();
            l
        };
        assert!(f.file_gone && r.file_gone, "{extra:?}");
        assert_eq!((f.code, &f.stderr), (r.code, &r.stderr), "{extra:?}");
        assert_eq!(lines(&f), lines(&r), "{extra:?}");
        assert_eq!((&f.jobs, &f.runtimes), (&r.jobs, &r.runtimes), "{extra:?}");
        assert_eq!(f.states, r.states, "{extra:?}");
    }
}

/// `--trigger-timeout` counts whole seconds from the jobs' start: 1 stops
/// the first group after about a second (less the time fio takes to start
/// its job after its clock starts) and the stonewalled group never
/// starts (yet both jobs get a state file); under a second it never fires.
#[test]
fn a_trigger_timeout_fires_once_in_whole_seconds() {
    let later = [
        "--runtime=6",
        "--trigger-timeout=1",
        "--name=b",
        "--stonewall",
        "--ioengine=null",
        "--size=1m",
        "--rw=write",
        "--time_based",
        "--runtime=6",
    ];
    let [f, r] = [fio(), ferrio()].map(|tool| triggered(tool, &later, None));
    for (tool, t) in [("fio", &f), ("ferrio", &r)] {
        assert_eq!(t.marker, "fired\n", "{tool}");
        assert!(
            (300..3000).contains(&t.runtimes[0]),
            "{tool}: {:?}",
            t.runtimes
        );
        assert_eq!(t.runtimes[1], 0, "{tool}");
    }
    assert_eq!((f.code, &f.stderr), (r.code, &r.stderr));
    assert_eq!(f.jobs, r.jobs);
    assert_eq!(f.states.len(), 2);
    assert_eq!(f.states, r.states);

    let short = ["--runtime=2", "--trigger-timeout=500ms"];
    let [f, r] = [fio(), ferrio()].map(|tool| triggered(tool, &short, None));
    for (tool, t) in [("fio", &f), ("ferrio", &r)] {
        assert_eq!(t.marker, "", "{tool}");
        assert!(t.runtimes[0] >= 1900, "{tool}: {:?}", t.runtimes);
        assert!(t.states.is_empty(), "{tool}");
    }
    assert_eq!((f.code, &f.before_json), (r.code, &r.before_json));
}

/// A trigger time fio cannot read ends the run before any job.
#[test]
fn an_unreadable_trigger_timeout_is_refused() {
    let s = Scratch::new("trigger");
    let data = format!("--filename={}", s.0.join("data").display());
    let args = ["--trigger-timeout=soon", "--name=a", &data, "--size=64k"];
    let f = Run::fio().args(args).in_dir(&s.0).out();
    let r = Run::ferrio().args(args).in_dir(&s.0).out();
    assert_eq!(f.code, 1);
    assert_eq!(f.code, r.code);
    assert_eq!(f.stderr, common::fio_part(&r.stderr));
    assert_eq!(f.stdout, r.stdout);
}

/// `size=4z` and the other sizes counted in zones: fio counts them in
/// `zonesize` bytes (zonemode=strided, and zonemode=zbd on a regular
/// file), or takes them as not given at all (zonemode=none, where a
/// zonesize is refused).
#[test]
fn zone_counts_match_fio() {
    let cases: &[&[&str]] = &[
        &["--size=4z"],
        &["--size=4z", "--zonesize=1m"],
        &["--size=0z", "--zonemode=strided", "--zonesize=1m"],
        &["--size=4z", "--zonemode=strided", "--zonesize=1m"],
        &[
            "--size=4m",
            "--offset=1z",
            "--zonemode=strided",
            "--zonesize=1m",
        ],
        &[
            "--size=4m",
            "--io_size=3z",
            "--zonemode=strided",
            "--zonesize=512k",
        ],
        &[
            "--size=4m",
            "--zoneskip=1z",
            "--zonemode=strided",
            "--zonesize=256k",
        ],
        &[
            "--size=2m",
            "--offset_increment=1z",
            "--numjobs=2",
            "--zonemode=strided",
            "--zonesize=1m",
        ],
        &["--size=2z", "--zonemode=zbd", "--zonesize=512k"],
        &[
            "--size=1m",
            "--offset=2z",
            "--zonemode=zbd",
            "--zonesize=512k",
        ],
        &[
            "--size=2m",
            "--io_size=3z",
            "--zonemode=zbd",
            "--zonesize=256k",
        ],
        &[
            "--size=2m",
            "--io_size=1m",
            "--zoneskip=1z",
            "--zonemode=zbd",
            "--zonesize=256k",
        ],
    ];
    for case in cases {
        let outcome = |tool: &str, existing: bool| {
            let s = Scratch::new("zones");
            let data = s.0.join("data");
            if existing {
                std::fs::write(&data, vec![0u8; 2 << 20]).unwrap();
            }
            let file = format!("--filename={}", data.display());
            let mut args = vec![
                "--name=j",
                file.as_str(),
                "--rw=write",
                "--bs=64k",
                "--ioengine=psync",
                "--output-format=json",
            ];
            args.extend_from_slice(case);
            let out = Run::tool(tool).args(&args).in_dir(&s.0).out();
            let written: Vec<u64> = match out.code {
                0 => json(&out)["jobs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|j| j["write"]["io_bytes"].as_u64().unwrap())
                    .collect(),
                _ => Vec::new(),
            };
            // ferrio refuses what fio refuses while planning, naming the
            // job before fio's words.
            let first_err = out
                .stderr
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("ferrio: job 'j': ")
                .replace(&s.0.display().to_string(), "DIR");
            let size = std::fs::metadata(&data).map_or(0, |m| m.len());
            (out.code, written, size, first_err)
        };
        for existing in [false, true] {
            assert_eq!(
                outcome(fio(), existing),
                outcome(ferrio(), existing),
                "{case:?} existing file: {existing}"
            );
        }
    }
}

/// fio's note on a depth above one with a synchronous engine: on stdout,
/// once per job (clones included), whatever the output format; not for
/// null at a depth (asynchronous then) nor for libaio.
#[test]
fn the_synchronous_depth_note_matches_fio() {
    let notes = |tool: &str, format: &str| {
        let s = Scratch::new("syncnote");
        let data = format!("--filename={}", s.0.join("data").display());
        let args = [
            format,
            "--size=256k",
            "--bs=64k",
            "--name=a",
            &data,
            "--ioengine=psync",
            "--iodepth=4",
            "--numjobs=2",
            "--name=b",
            &data,
            "--ioengine=null",
            "--iodepth=8",
            "--name=c",
            &data,
            "--ioengine=libaio",
            "--iodepth=4",
            "--name=d",
            &data,
            "--ioengine=pvsync2",
            "--iodepth=1",
        ];
        let out = Run::tool(tool).args(args).in_dir(&s.0).out();
        assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
        let stdout: Vec<String> = out
            .stdout
            .lines()
            .filter(|l| l.starts_with("note:"))
            .map(str::to_string)
            .collect();
        let stderr = out
            .stderr
            .lines()
            .filter(|l| l.starts_with("note:"))
            .count();
        (stdout, stderr)
    };
    for format in ["--output-format=normal", "--output-format=json"] {
        let f = notes(fio(), format);
        assert_eq!(f.0.len(), 2, "{format}");
        assert_eq!(f, notes(ferrio(), format), "{format}");
    }
}

/// The flags each tool opens a trimming job's file with under direct=1
/// and sync=1 (seen with strace): fio leaves out O_DIRECT and O_SYNC.
#[test]
fn trimming_jobs_open_without_direct_io() {
    if !common::need::require("strace", common::need::program("strace")) {
        return;
    }
    let flags = |tool: &str, rw: &str| {
        let s = Scratch::new("trimflags");
        let data = s.0.join("data");
        std::fs::write(&data, vec![0u8; 1 << 20]).unwrap();
        let file = format!("--filename={}", data.display());
        let rw = format!("--rw={rw}");
        let trace = s.0.join("trace");
        let trace_arg = trace.display().to_string();
        let args = [
            "-f",
            "-e",
            "trace=openat",
            "-o",
            &trace_arg,
            tool,
            "--name=t",
            &file,
            &rw,
            "--size=1m",
            "--bs=64k",
            "--direct=1",
            "--sync=1",
            "--ioengine=psync",
        ];
        Run::tool("strace").args(args).in_dir(&s.0).out();
        let text = std::fs::read_to_string(&trace).unwrap();
        let quoted = format!("\"{}\"", data.display());
        // The job's own open: the last of the data file's with O_RDWR.
        let line = text
            .lines()
            .rfind(|l| l.contains(&quoted) && l.contains("O_RDWR"))
            .unwrap_or_else(|| panic!("{tool}: no O_RDWR open in {text}"))
            .to_string();
        let flags = line.split(", ").nth(2).unwrap().split(')').next().unwrap();
        let mut kept: Vec<&str> = flags
            .split('|')
            .filter(|f| !matches!(*f, "O_CLOEXEC" | "O_LARGEFILE" | "O_CREAT"))
            .collect();
        kept.sort();
        kept.join("|")
    };
    for rw in ["trim", "randtrim", "trimwrite"] {
        let f = flags(fio(), rw);
        assert_eq!(f, "O_RDWR", "{rw}");
        assert_eq!(f, flags(ferrio(), rw), "{rw}");
    }
}

/// A verify state file: its bytes, and the fields the trigger test reads.
struct StateFile {
    bytes: Vec<u8>,
    /// Header version and size, completions listed, iodepth, files,
    /// thread index and job name: what does not depend on timing.
    fixed: (u64, u64, u64, u32, u32, u64, String),
    /// Writes issued, and the offsets listed, newest first.
    issued: u64,
    offsets: Vec<u64>,
}

fn state_file(bytes: Vec<u8>) -> StateFile {
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    let body = 24;
    let name = &bytes[body + 88..body + 152];
    let name = String::from_utf8_lossy(&name[..name.iter().position(|&c| c == 0).unwrap()]);
    let listed = u64_at(body);
    let offsets = (0..listed as usize)
        .map(|i| u64_at(body + 152 + 16 * i + 8))
        .collect();
    StateFile {
        fixed: (
            u64_at(0),
            u64_at(8),
            listed,
            u32_at(body + 8),
            u32_at(body + 12),
            u64_at(body + 24),
            name.into_owned(),
        ),
        issued: u64_at(body + 16),
        offsets,
        bytes,
    }
}

/// The state files in `dir`, by name.
fn state_files(dir: &Path) -> Vec<(String, StateFile)> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with("-verify.state"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, state_file(std::fs::read(e.path()).unwrap()))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// What a trigger saves of jobs in each stage, and when: every state
/// file is there when the trigger command runs (it copies them aside),
/// and the jobs leave each as it was then. A job running at the trigger
/// has its writes so far (those still in flight issued, not listed); a
/// job that ended before it has its own end state replaced by one with
/// no files and nothing listed; a job still waiting (startdelay, a later
/// group) has nothing written and its generator as seeded. Those last
/// states do not depend on timing: fio's and ferrio's are the same bytes.
#[test]
fn a_trigger_saves_every_jobs_state_before_its_command() {
    let outcome = |tool: &str| {
        let s = Scratch::new("trigsave");
        let file = |n: &str| format!("--filename={}", s.0.join(n).display());
        let go = s.0.join("go");
        let trigger_file = format!("--trigger-file={}", go.display());
        let files = ["data", "deep", "done", "plain", "later", "next"].map(file);
        let args = [
            "--output-format=json",
            &trigger_file,
            "--trigger=mkdir at && cp *-verify.state at/",
            "--bs=4k",
            "--ioengine=psync",
            "--name=run",
            &files[0],
            "--size=1m",
            "--rw=randwrite",
            "--time_based",
            "--runtime=20",
            "--verify=crc32c",
            "--verify_state_save=1",
            "--name=deep",
            &files[1],
            "--size=1m",
            "--rw=write",
            "--ioengine=libaio",
            "--iodepth=8",
            "--time_based",
            "--runtime=20",
            "--verify=crc32c",
            "--do_verify=0",
            "--verify_state_save=1",
            "--name=done",
            &files[2],
            "--size=64k",
            "--rw=randwrite",
            "--verify=crc32c",
            "--verify_state_save=1",
            "--name=plain",
            &files[3],
            "--size=64k",
            "--rw=write",
            "--name=later",
            &files[4],
            "--size=64k",
            "--rw=randwrite",
            "--startdelay=30",
            "--name=next",
            &files[5],
            "--size=64k",
            "--rw=randwrite",
            "--stonewall",
        ];
        let out = run_touching(tool, &s.0, &args, Some((&go, Duration::from_millis(1500))));
        let writes: HashMap<String, u64> = json(&out)["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let name = j["jobname"].as_str().unwrap().to_string();
                (name, j["write"]["total_ios"].as_u64().unwrap())
            })
            .collect();
        let at_trigger = state_files(&s.0.join("at"));
        let at_end = state_files(&s.0);
        (out, writes, at_trigger, at_end)
    };
    let f = outcome(fio());
    let r = outcome(ferrio());
    assert_eq!((f.0.code, &f.0.stderr), (r.0.code, &r.0.stderr));
    for (tool, (_, writes, at_trigger, at_end)) in [("fio", &f), ("ferrio", &r)] {
        let names =
            |l: &[(String, StateFile)]| l.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(at_trigger), names(at_end), "{tool}");
        assert_eq!(at_trigger.len(), 6, "{tool}: {:?}", names(at_trigger));
        for ((name, then), (_, now)) in at_trigger.iter().zip(at_end) {
            assert!(
                then.bytes == now.bytes,
                "{tool}: {name} changed after the trigger"
            );
        }
        // The running jobs: the writes completed after the trigger are
        // at most those in flight then.
        let of = |job: &str| {
            let tag = format!("-{job}-");
            &at_end.iter().find(|(n, _)| n.contains(&tag)).unwrap().1
        };
        for (job, depth) in [("run", 1), ("deep", 8)] {
            let state = of(job);
            let later = writes[job].checked_sub(state.issued);
            assert!(later.is_some_and(|n| n <= depth), "{tool}: {job} {later:?}");
        }
        // deep writes its 256 blocks in turn: its newest listed write is
        // at most its depth behind the last one issued.
        let deep = of("deep");
        let last_issued = (deep.issued - 1) % 256;
        let behind = (last_issued + 256 - deep.offsets[0] / 4096) % 256;
        assert!(behind <= 8, "{tool}: deep {behind} writes in flight");
    }
    for ((name, fs), (_, rs)) in f.3.iter().zip(&r.3) {
        if name.contains("-run-") || name.contains("-deep-") {
            assert_eq!(fs.fixed, rs.fixed, "{name}");
        } else {
            assert!(
                fs.bytes == rs.bytes,
                "{name}: {:?} {:?}",
                fs.fixed,
                rs.fixed
            );
        }
    }
}
