//! Control groups (cgroup, cgroup_weight, cgroup_nodelete) run by ferrio
//! beside fio 3.33.
//!
//! Both tools run as root on a machine with the v1 blkio hierarchy; each
//! run gets a group name of its own, and whatever a run leaves behind is
//! removed by the test. While a short time_based run goes on the test
//! reads the group's files as each tool left them.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Outcome, Run, Scratch, ferrio, fio, fio_part, json};

/// Where fio finds the blkio hierarchy on this machine: the first v1
/// mount naming blkio (these tests need no v2 one listed before it).
fn blkio_root() -> PathBuf {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    let line = mounts
        .lines()
        .find(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            f.len() > 3 && (f[2] == "cgroup2" || (f[2] == "cgroup" && f[3].contains("blkio")))
        })
        .expect("a cgroup mount");
    let f: Vec<&str> = line.split(' ').collect();
    assert_eq!(
        f[2], "cgroup",
        "these tests need the v1 blkio hierarchy first"
    );
    PathBuf::from(f[1])
}

/// A group name no other run uses.
fn group_name(tag: &str, bin: &str) -> String {
    let tool = if bin == fio() { "fio" } else { "ferrio" };
    format!("ferrio-test-{tag}-{tool}-{}", std::process::id())
}

/// Removes a group a run left (a test's own clean-up).
struct Leftover(PathBuf);

impl Drop for Leftover {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// What the test saw of the group while the run went on.
#[derive(Debug, PartialEq)]
struct Seen {
    /// The number of tasks in the group's `tasks` file.
    tasks: usize,
    /// Whether the one task was the tool's main process (fio moves its
    /// job's process, ferrio its job's thread: never the main one).
    main_task: bool,
    /// blkio.weight, when the kernel offers that file.
    weight: Option<String>,
}

/// Runs `bin args...` with a time limit and looks at `group` about half
/// a second after it appears.
fn run_watching(bin: &str, args: &[&str], dir: &Path, group: &Path) -> (Outcome, Option<Seen>) {
    let run = Run::tool(bin).args(args).in_dir(dir).spawn();
    let started = Instant::now();
    let mut seen = None;
    while started.elapsed() < Duration::from_secs(3) {
        if group.join("tasks").exists() {
            std::thread::sleep(Duration::from_millis(500));
            let tasks = std::fs::read_to_string(group.join("tasks")).unwrap_or_default();
            let ids: Vec<&str> = tasks.lines().collect();
            // timeout's child is the tool's main process.
            let main = child_of(run.child.id());
            seen = Some(Seen {
                tasks: ids.len(),
                main_task: ids.iter().any(|i| Some(i.to_string()) == main),
                weight: std::fs::read_to_string(group.join("blkio.weight")).ok(),
            });
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (run.wait(), seen)
}

/// The pid of the first child of `pid`.
fn child_of(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .ok()?
        .split_whitespace()
        .next()
        .map(str::to_string)
}

/// What a cgroup run comes to, per tool: the exit code, the job's error
/// in JSON, what was seen while it ran, and whether the group outlived it.
fn cgroup_run(bin: &str, tag: &str, extra: &[&str]) -> (i32, i64, Option<Seen>, bool, String) {
    let dir = Scratch::new("cgroup");
    let name = group_name(tag, bin);
    let group = blkio_root().join(&name);
    let _leftover = Leftover(group.clone());
    let setting = format!("--cgroup={name}");
    let mut args = vec![
        "--name=cg",
        "--ioengine=null",
        "--size=1m",
        "--time_based",
        "--runtime=2",
        "--output-format=json",
        setting.as_str(),
    ];
    args.extend_from_slice(extra);
    let (out, seen) = run_watching(bin, &args, &dir.0, &group);
    let error = json(&out)["jobs"][0]["error"].as_i64().unwrap_or(-1);
    // fio's words for a job's error, past its own source location.
    let context = out
        .stdout
        .lines()
        .chain(out.stderr.lines())
        .find_map(|l| l.find("func=").map(|at| l[at..].to_string()))
        .unwrap_or_default();
    (out.code, error, seen, group.exists(), context)
}

#[test]
fn the_job_runs_in_its_group_which_goes_afterwards() {
    let fio_side = cgroup_run(fio(), "plain", &[]);
    let ferrio_side = cgroup_run(ferrio(), "plain", &[]);
    assert_eq!(
        fio_side.2.as_ref().map(|s| (s.tasks, s.main_task)),
        Some((1, false)),
        "fio: {fio_side:?}"
    );
    assert_eq!(ferrio_side, fio_side);
}

#[test]
fn cgroup_weight_is_written_or_fails_as_for_fio() {
    // Where the kernel has no blkio.weight (no CFQ), fio's job fails as
    // it opens that file; elsewhere the group carries the weight.
    // Where it fails, each tool makes the group and removes it at once,
    // with no task in it and no weight: whether the watcher catches the
    // empty group in that moment is the machine's timing (seen for ferrio
    // and not for fio on a loaded machine), so such a glimpse counts as
    // not seen; a task or a weight in it is compared.
    let settled = |(code, error, seen, left, context): (i32, i64, Option<Seen>, bool, String)| {
        let seen = seen.filter(|s| s.tasks > 0 || s.main_task || s.weight.is_some());
        (code, error, seen, left, context)
    };
    let fio_side = settled(cgroup_run(fio(), "weight", &["--cgroup_weight=500"]));
    let ferrio_side = settled(cgroup_run(ferrio(), "weight", &["--cgroup_weight=500"]));
    assert_eq!(ferrio_side, fio_side);
}

#[test]
fn cgroup_nodelete_keeps_the_group() {
    let fio_side = cgroup_run(fio(), "keep", &["--cgroup_nodelete=1"]);
    let ferrio_side = cgroup_run(ferrio(), "keep", &["--cgroup_nodelete=1"]);
    assert!(fio_side.3, "fio keeps the group: {fio_side:?}");
    assert_eq!(ferrio_side, fio_side);
}

#[test]
fn bad_weights_are_refused_as_by_fio() {
    let dir = Scratch::new("cgroup-bad");
    for weight in ["50", "1001", "abc"] {
        let setting = format!("--cgroup_weight={weight}");
        let args = [
            "--name=cg",
            "--ioengine=null",
            "--size=1m",
            "--cgroup=ferrio-test-never-made",
            setting.as_str(),
        ];
        let theirs = Run::fio().args(args).in_dir(&dir.0).out();
        let ours = Run::ferrio().args(args).in_dir(&dir.0).out();
        assert_eq!(ours.code, theirs.code, "{weight}: {ours:?}");
        assert_eq!(fio_part(&ours.stderr), theirs.stderr, "{weight}");
    }
    assert!(!blkio_root().join("ferrio-test-never-made").exists());
}

/// Room for a whole profile: fio's tiobench moves four times the
/// machine's memory in KiB per job.
const PROFILE_LIMIT: Duration = Duration::from_secs(180);

/// What a tiobench run comes to: the exit code, the normal report's
/// lines before the first job's report (job lines, no version line,
/// "Starting ..."), the JSON's global options as printed (fio lists a
/// repeated option twice), each job's name, group, options, I/O counts
/// and error, and the files left in the directory with their sizes.
fn tiobench(bin: &str, args: &[&str]) -> (i32, Vec<String>, String, Vec<String>, Vec<String>) {
    let dir = Scratch::new("tiobench");
    // A directory of its own that --directory names (and the profile's
    // own directory=./ then overrides).
    std::fs::create_dir(dir.0.join("elsewhere")).unwrap();
    let mut all = vec!["--profile=tiobench", "--output-format=normal,json"];
    all.extend_from_slice(args);
    let out = Run::tool(bin)
        .args(&all)
        .in_dir(&dir.0)
        .limit(PROFILE_LIMIT)
        .out();
    let at = out.stdout.find("{\n  \"fio version\"").unwrap_or_else(|| {
        panic!("{bin}: no JSON: {out:?}");
    });
    let header = out.stdout[..at]
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.contains("Laying out"))
        .map(str::to_string)
        .collect();
    let text = &out.stdout[at..];
    let from = text.find("\"global options\"").expect("global options");
    let globals = text[from..from + text[from..].find('}').unwrap()].to_string();
    // The normal report may follow the JSON document.
    let doc: serde_json::Value = serde_json::Deserializer::from_str(text)
        .into_iter()
        .next()
        .expect("a JSON document")
        .expect("JSON");
    let jobs = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            format!(
                "{} g={} {} read={} write={} error={}",
                j["jobname"],
                j["groupid"],
                j["job options"],
                j["read"]["total_ios"],
                j["write"]["total_ios"],
                j["error"]
            )
        })
        .collect();
    let mut files: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| {
            let len = e.metadata().map(|m| m.len()).unwrap_or(0);
            format!("{} {len}", e.file_name().to_string_lossy())
        })
        .collect();
    files.sort();
    (out.code, header, globals, jobs, files)
}

/// `--profile=tiobench`: the same four jobs in four groups, over the
/// same files of the same size (from the machine's memory), with the
/// profile's own options (`--size`, `--dir`, `--numruns`, `--block`,
/// `--threads`) as ineffective as fio 3.33 leaves them.
#[test]
fn tiobench_runs_fios_jobs() {
    let args = [
        "--size=4",
        "--directory=elsewhere",
        "--dir=elsewhere",
        "--numruns=2",
        "--block=8192",
        "--threads=2",
    ];
    let theirs = tiobench(fio(), &args);
    let ours = tiobench(ferrio(), &args);
    assert_eq!(theirs.3.len(), 4, "fio: {theirs:?}");
    assert_eq!(ours, theirs);
}

/// An unknown profile is fio's error, dry runs included, and so is act
/// without devices (act itself is refused); `--showcmd`
/// and `--parse-only` load a known profile but add none of its jobs, so
/// they show and check nothing.
#[test]
fn profile_errors_and_dry_runs_are_fios() {
    let dir = Scratch::new("profile");
    for args in [
        &["--profile=nosuch"][..],
        &["--profile=tiobench", "--showcmd"],
        &["--profile=tiobench", "--parse-only"],
        &["--profile=nosuch", "--showcmd"],
        &["--profile=act"],
    ] {
        let theirs = Run::fio().args(args).in_dir(&dir.0).out();
        let ours = Run::ferrio().args(args).in_dir(&dir.0).out();
        assert_eq!(
            (ours.code, ours.stdout, fio_part(&ours.stderr)),
            (theirs.code, theirs.stdout, theirs.stderr),
            "{args:?}"
        );
    }
}
