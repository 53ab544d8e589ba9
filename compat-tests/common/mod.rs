//! Shared helpers for the side-by-side tests against real fio 3.33.
//!
//! Every comparison runs both binaries on the same text in the same
//! directory with the same environment; nothing is compared with strings
//! written from memory.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use ferrio::options::table::OPTIONS;

pub mod mounted;
pub mod need;
pub mod report_rules;
pub mod spread;

/// What a run printed and how it ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn ferrio() -> &'static str {
    env!("CARGO_BIN_EXE_ferrio")
}

/// fio 3.33 must be installed (the README's test command installs it);
/// without it these tests cannot say anything, so they fail loudly.
pub fn fio() -> &'static str {
    let out = Command::new("fio").arg("--version").output();
    match out {
        Ok(o) if String::from_utf8_lossy(&o.stdout).starts_with("fio-3.33") => "fio",
        _ => panic!("fio 3.33 is needed for the compatibility tests: apt-get install fio"),
    }
}

/// The time limit of a run unless [`Run::limit`] says otherwise. It only
/// catches a hang: every run here ends in seconds on an idle machine, and
/// a loaded one may take many times longer without failing anything.
pub const LIMIT: Duration = Duration::from_secs(120);

/// One run of a program (fio, ferrio or a tool that reads their output),
/// built up and then started by [`out`](Self::out), [`ok`](Self::ok),
/// [`json`](Self::json) or, for fio and ferrio side by side on the same
/// arguments, [`both`](Self::both). stdin is empty; stdout and stderr are
/// read whole. Every run has a hard time limit, after which the program
/// is killed and the test fails saying so, rather than hanging the suite.
#[derive(Debug, Clone)]
pub struct Run {
    program: Option<String>,
    args: Vec<String>,
    dir: Option<PathBuf>,
    env: Vec<(String, String)>,
    job: Option<(String, String)>,
    limit: Duration,
}

impl Run {
    /// A run with no program yet: for [`both`](Self::both).
    pub fn new() -> Self {
        Run {
            program: None,
            args: Vec::new(),
            dir: None,
            env: Vec::new(),
            job: None,
            limit: LIMIT,
        }
    }

    /// A run of `program` (a path, or a name looked up in PATH).
    pub fn tool(program: impl AsRef<str>) -> Self {
        Run {
            program: Some(program.as_ref().to_string()),
            ..Run::new()
        }
    }

    pub fn fio() -> Self {
        Run::tool(fio())
    }

    pub fn ferrio() -> Self {
        Run::tool(ferrio())
    }

    pub fn arg(mut self, arg: impl AsRef<str>) -> Self {
        self.args.push(arg.as_ref().to_string());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, args: I) -> Self {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_string()));
        self
    }

    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn envs(mut self, env: &HashMap<String, String>) -> Self {
        self.env
            .extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
        self
    }

    /// The folder the program runs in (and the job file is written to).
    /// Without one, a run with a job file gets a fresh scratch folder and
    /// one without runs in the test's own working directory.
    pub fn in_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Writes `text` as `job.fio` in the run's folder just before the run
    /// and passes that name after the other arguments.
    pub fn job(self, text: &str) -> Self {
        self.job_named("job.fio", text)
    }

    /// [`job`](Self::job) under another file name.
    pub fn job_named(mut self, name: &str, text: &str) -> Self {
        self.job = Some((name.to_string(), text.to_string()));
        self
    }

    /// A time limit other than [`LIMIT`], for a run whose fixed work is
    /// large on a slow machine.
    pub fn limit(mut self, limit: Duration) -> Self {
        self.limit = limit;
        self
    }

    /// Starts the program in `dir` under its time limit, stdout and stderr
    /// piped; the child is timeout(1), whose own child is the program.
    fn spawn_in(&self, dir: &Path) -> Running {
        let program = self.program.as_deref().expect("Run: no program to run");
        let mut args = self.args.clone();
        if let Some((name, text)) = &self.job {
            std::fs::write(dir.join(name), text).unwrap();
            args.push(name.clone());
        }
        let secs = self.limit.as_secs().max(1).to_string();
        let child = Command::new("timeout")
            .args(["-k", "5", &secs, program])
            .args(&args)
            .current_dir(dir)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        Running {
            child,
            what: format!("{program} {args:?} in {}", dir.display()),
            secs,
        }
    }

    fn start_in(&self, dir: &Path) -> Outcome {
        self.spawn_in(dir).wait()
    }

    /// Starts the run without waiting, for a test that watches or signals
    /// it while it goes on; [`Running::wait`] ends it as [`out`](Self::out)
    /// would.
    pub fn spawn(&self) -> Running {
        let dir = self.dir.clone().unwrap_or_else(|| PathBuf::from("."));
        self.spawn_in(&dir)
    }

    /// Runs the program; what it printed and how it ended.
    pub fn out(&self) -> Outcome {
        match &self.dir {
            Some(dir) => self.start_in(dir),
            None if self.job.is_some() => self.start_in(&Scratch::new("run").0),
            None => self.start_in(Path::new(".")),
        }
    }

    /// [`out`](Self::out), in a fresh scratch folder tagged `tag` that is
    /// returned for what the run left there.
    pub fn out_kept(&self, tag: &str) -> (Scratch, Outcome) {
        let s = Scratch::new(tag);
        let out = self.start_in(&s.0);
        (s, out)
    }

    /// [`out_kept`](Self::out_kept), for a run that must end well.
    pub fn ok_kept(&self, tag: &str) -> (Scratch, Outcome) {
        let (s, out) = self.out_kept(tag);
        assert_eq!(out.code, 0, "{:?}: {}", self.program, out.stderr);
        (s, out)
    }

    /// [`out`](Self::out), for a run that must end well.
    pub fn ok(&self) -> Outcome {
        let out = self.out();
        assert_eq!(out.code, 0, "{:?}: {}", self.program, out.stderr);
        out
    }

    /// The JSON document a run that must end well printed.
    pub fn json(&self) -> serde_json::Value {
        json(&self.ok())
    }

    /// The same run with another program.
    fn with(&self, program: &str) -> Run {
        Run {
            program: Some(program.to_string()),
            ..self.clone()
        }
    }

    /// fio's run and then ferrio's, on the same arguments, environment and
    /// job file: both in the run's folder if it has one, else each in a
    /// fresh folder of its own. Returns (fio's, ferrio's) outcome.
    pub fn both(&self) -> (Outcome, Outcome) {
        match &self.dir {
            Some(dir) => (
                self.with(fio()).start_in(dir),
                self.with(ferrio()).start_in(dir),
            ),
            None => {
                let (want, got, _, _) = self.both_kept();
                (want, got)
            }
        }
    }

    /// [`both`](Self::both) in fresh folders, returned after the runs for
    /// what each left: (fio's, ferrio's outcome, fio's, ferrio's folder).
    pub fn both_kept(&self) -> (Outcome, Outcome, Scratch, Scratch) {
        let pair = Pair::new("both");
        let (want, got) = self.both_at(&pair.fio.0, &pair.ferrio.0);
        (want, got, pair.fio, pair.ferrio)
    }

    /// [`both`](Self::both), fio in `fio_dir` and ferrio in `ferrio_dir`.
    pub fn both_at(&self, fio_dir: &Path, ferrio_dir: &Path) -> (Outcome, Outcome) {
        (
            self.with(fio()).start_in(fio_dir),
            self.with(ferrio()).start_in(ferrio_dir),
        )
    }

    /// Both reports as JSON, after checking that both tools ended well.
    pub fn both_json(&self) -> (serde_json::Value, serde_json::Value) {
        let (want, got) = self.both();
        ok_json(&want, &got)
    }
}

impl Default for Run {
    fn default() -> Self {
        Run::new()
    }
}

/// A run under way, started by [`Run::spawn`].
pub struct Running {
    /// timeout(1), whose child is the program.
    pub child: std::process::Child,
    what: String,
    secs: String,
}

impl Running {
    /// Waits for the run; what it printed and how it ended. A run that
    /// outlived its time limit fails the test.
    pub fn wait(mut self) -> Outcome {
        // The pipes are read on threads of their own: a process the
        // program left behind (fio's job process, orphaned when its main
        // process died) may hold them open long after timeout(1) ended,
        // and reading them to their end would then hang the suite.
        let reader = |pipe: Option<Box<dyn std::io::Read + Send>>| {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_end(&mut buf);
                }
                let _ = tx.send(buf);
            });
            rx
        };
        let stdout = reader(self.child.stdout.take().map(|p| Box::new(p) as _));
        let stderr = reader(self.child.stderr.take().map(|p| Box::new(p) as _));
        let status = self.child.wait().expect("wait");
        let code = status.code().unwrap_or(-1);
        let grace = Duration::from_secs(10);
        let collect = |rx: std::sync::mpsc::Receiver<Vec<u8>>| match rx.recv_timeout(grace) {
            Ok(buf) => buf,
            Err(_) => {
                // timeout(1) leads its own process group: whatever the
                // program left in it is killed, and the test fails.
                // SAFETY: kill(2) with a process group and a signal number.
                unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
                panic!(
                    "{}: a process it left behind still held its output {} s after it ended",
                    self.what,
                    grace.as_secs()
                );
            }
        };
        let out_bytes = collect(stdout);
        let err_bytes = collect(stderr);
        // timeout(1) exits 124 when the limit ran out (137 when the
        // program then had to be killed).
        assert!(
            code != 124 && code != 137,
            "{} did not end within {} s",
            self.what,
            self.secs
        );
        Outcome {
            code,
            stdout: String::from_utf8_lossy(&out_bytes).into_owned(),
            stderr: String::from_utf8_lossy(&err_bytes).into_owned(),
        }
    }
}

impl Running {
    /// The program's own pid (the child of timeout(1)), once it exists.
    pub fn program_pid(&self) -> i32 {
        let children = format!("/proc/{0}/task/{0}/children", self.child.id());
        for _ in 0..2000 {
            let text = std::fs::read_to_string(&children).unwrap_or_default();
            if let Some(pid) = text.split_whitespace().next() {
                return pid.parse().unwrap();
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("{}: the program never started", self.what);
    }

    /// Sends `signal` to the program itself (not its process group: group
    /// delivery makes fio print its lines once per process), once the
    /// program has installed a handler for it, so that the signal finds
    /// the run under way whatever the machine's speed; returns the pid.
    pub fn signal_when_caught(&self, signal: i32) -> i32 {
        let pid = self.program_pid();
        let bit = 1u64 << (signal - 1);
        for _ in 0..4000 {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            let caught = status
                .lines()
                .find_map(|l| l.strip_prefix("SigCgt:"))
                .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
                .unwrap_or(0);
            if caught & bit != 0 {
                // SAFETY: kill(2) with a pid and a signal number; no memory.
                assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill {pid}");
                return pid;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("{}: no handler for signal {signal} after 20 s", self.what);
    }
}

/// The JSON document on a run's stdout (fio may print notices before it).
pub fn json(out: &Outcome) -> serde_json::Value {
    let s = &out.stdout;
    serde_json::from_str(&s[s.find('{').unwrap_or(0)..])
        .unwrap_or_else(|e| panic!("no JSON on stdout ({e}): {s:?}\n{}", out.stderr))
}

/// stderr without ferrio's own explanatory `ferrio:` lines: what must
/// equal fio's stderr.
pub fn fio_part(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !l.starts_with("ferrio: "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A job file of the corpus with the environment its wrapper exports.
#[derive(Debug, Clone)]
pub struct JobFile {
    pub path: PathBuf,
    pub env: HashMap<String, String>,
}

impl JobFile {
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap()
    }
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
}

/// The folders of job files to compare: the project's jobs/ and, where it
/// exists, the shared public corpus.
pub fn corpus_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("jobs")];
    let shared = root.join("../shared/compat/jobs");
    if shared.is_dir() {
        dirs.push(shared);
    }
    dirs
}

/// Every job file under the corpus folders, without include fragments
/// (files that another file of the same folder includes).
pub fn corpus() -> Vec<JobFile> {
    let mut files = Vec::new();
    for dir in corpus_dirs() {
        walk(&dir, &mut files);
    }
    let included: Vec<PathBuf> = files
        .iter()
        .flat_map(|f: &PathBuf| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let dir = f.parent().unwrap().to_path_buf();
            text.lines()
                .filter_map(|l| l.trim().strip_prefix("include "))
                .map(|n| dir.join(n.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    files.retain(|f| !included.contains(f));
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let env = env_file(&path);
            JobFile { path, env }
        })
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if ["fio", "job", "ini"]
            .contains(&p.extension().and_then(|x| x.to_str()).unwrap_or(""))
        {
            out.push(p);
        }
    }
}

/// `KEY=VALUE` lines of the `<jobfile>.env` sidecar, if any.
fn env_file(path: &Path) -> HashMap<String, String> {
    let side = PathBuf::from(format!("{}.env", path.display()));
    let text = std::fs::read_to_string(side).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// Runs `f` over `items` on two threads (the machines have two cores).
pub fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let r = f(&items[i]);
                    results.lock().unwrap().push((i, r));
                }
            });
        }
    });
    let mut r = results.into_inner().unwrap();
    r.sort_by_key(|(i, _)| *i);
    r.into_iter().map(|(_, r)| r).collect()
}

/// A scratch directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Self {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("ferrio-{tag}-{}-{id}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The arguments of a run whose report is compared as JSON.
pub const JSON: &[&str] = &["--output-format=json"];

/// Two scratch folders, one per tool, in which job files run in turn.
pub struct Pair {
    pub fio: Scratch,
    pub ferrio: Scratch,
}

impl Pair {
    pub fn new(tag: &str) -> Self {
        Pair {
            fio: Scratch::new(&format!("{tag}-fio")),
            ferrio: Scratch::new(&format!("{tag}-ferrio")),
        }
    }

    /// Writes `job` as `job.fio` in both folders, then runs fio and then
    /// ferrio on it, each in its folder with `args` before the job file;
    /// returns (fio's, ferrio's) outcome.
    pub fn run_job(&self, job: &str, args: &[&str]) -> (Outcome, Outcome) {
        Run::new()
            .args(args)
            .job(job)
            .both_at(&self.fio.0, &self.ferrio.0)
    }

    /// [`run_job`](Self::run_job), after which both tools must have
    /// exited alike.
    pub fn run_alike(&self, job: &str, args: &[&str]) -> (Outcome, Outcome) {
        let (want, got) = self.run_job(job, args);
        assert_eq!(
            want.code, got.code,
            "{job}\nfio: {}\nferrio: {}",
            want.stderr, got.stderr
        );
        (want, got)
    }
}

/// Both reports as JSON, after checking that both tools ended well.
pub fn ok_json(want: &Outcome, got: &Outcome) -> (serde_json::Value, serde_json::Value) {
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    (json(want), json(got))
}

/// (total_ios, io_bytes) of read, write and trim in one job's report.
pub fn ios_and_bytes(job: &serde_json::Value) -> [(u64, u64); 3] {
    ["read", "write", "trim"].map(|d| {
        let n = |k: &str| job[d][k].as_u64().unwrap();
        (n("total_ios"), n("io_bytes"))
    })
}

/// A port nobody listens on right now, of the protocol's kind.
pub fn free_port(udp: bool) -> u16 {
    if udp {
        std::net::UdpSocket::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .expect("a free UDP port")
            .port()
    } else {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|s| s.local_addr())
            .expect("a free TCP port")
            .port()
    }
}

/// (direction, length, offset) of each I/O in a latency log written with
/// `log_offset=1`.
pub fn lat_log_ios(text: &str) -> Vec<(u64, u64, u64)> {
    text.lines()
        .map(|l| {
            let f: Vec<u64> = l.split(", ").map(|v| v.trim().parse().unwrap()).collect();
            (f[2], f[3], f[4])
        })
        .collect()
}

// Null-engine dry runs of fio, to learn the jobs it plans.

/// Option names whose lines are dropped from fio's dry-run copy.
const DROP: &[&str] = &[
    "filename",
    "directory",
    "filename_format",
    "opendir",
    "lockfile",
    "ramp_time",
    "startdelay",
    "write_bw_log",
    "write_lat_log",
    "write_iops_log",
    "write_hist_log",
    "write_iolog",
    "read_iolog",
    "exec_prerun",
    "exec_postrun",
    "group_reporting",
    "rate",
    "rate_iops",
    "rate_min",
    "rate_iops_min",
    "thinktime",
    "thinktime_blocks",
    "thinktime_spin",
    "loops",
    "offset",
    "offset_increment",
    "fileoffset",
    "create_on_open",
    "pre_read",
    "fill_device",
    "fill_fs",
    "cpus_allowed",
    "cpumask",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "prioclass",
    "prio",
    "nice",
    "uid",
    "gid",
    "verify",
    "do_verify",
    "verify_backlog",
    "trim_percentage",
    "ss",
    "steadystate",
    "latency_target",
    "max_latency",
    "flow",
    "flow_id",
    "nrfiles",
    "nr_files",
    "filesize",
    "file_service_type",
    "io_submit_mode",
];

fn key_of(line: &str) -> String {
    let t = line.trim_start();
    t.split('=').next().unwrap_or("").trim().to_string()
}

/// The dry-run copy of one job file's text.
fn rewrite(text: &str) -> String {
    let engine_only: Vec<&str> = OPTIONS
        .iter()
        .filter(|o| !o.engines.is_empty())
        .map(|o| o.name)
        .collect();
    let mut out = String::new();
    for line in text.lines() {
        let key = key_of(line);
        let replaced = match key.as_str() {
            "ioengine" => Some("ioengine=null".to_string()),
            "size" | "io_size" | "io_limit" => Some(format!("{key}=16m")),
            "runtime" | "timeout" => Some("runtime=200ms".to_string()),
            k if DROP.contains(&k)
                || (engine_only.contains(&k) && ferrio::options::find(k).is_none()) =>
            {
                Some(String::new())
            }
            _ => None,
        };
        out.push_str(replaced.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

/// (name, group) of each job fio ran in a null-engine dry run of the
/// file, in report order.
pub fn fio_jobs(file: &JobFile, extra: &[&str]) -> Result<Vec<(String, u64)>, String> {
    let scratch = Scratch::new("plan");
    for entry in std::fs::read_dir(file.dir())
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let p = entry.path();
        if p.is_file() {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            scratch.write(&p.file_name().unwrap().to_string_lossy(), &rewrite(&text));
        }
    }
    let name = file.name();
    let mut args = vec![
        "--ioengine=null",
        "--size=16m",
        "--output-format=json",
        "--output=out.json",
    ];
    args.extend_from_slice(extra);
    args.push(&name);
    let out = Run::fio()
        .args(args)
        .in_dir(&scratch.0)
        .envs(&file.env)
        .out();
    if out.stderr.contains("No job(s) defined") {
        return Ok(Vec::new());
    }
    let json = std::fs::read_to_string(scratch.0.join("out.json")).unwrap_or_default();
    let start = json.find('{').ok_or_else(|| {
        format!(
            "fio wrote no JSON (exit {}): {}",
            out.code,
            out.stderr.trim()
        )
    })?;
    let doc: serde_json::Value = serde_json::from_str(&json[start..]).map_err(|e| e.to_string())?;
    Ok(doc["jobs"]
        .as_array()
        .ok_or("no jobs array")?
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap_or("").to_string(),
                j["groupid"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect())
}

/// (name, group) of each job in ferrio's plan.
pub fn ferrio_jobs(file: &JobFile, extra: &[&str]) -> Result<Vec<(String, u64)>, String> {
    let name = file.name();
    let mut args = vec!["--explain", "--output-format=json"];
    args.extend_from_slice(extra);
    args.push(&name);
    let out = Run::ferrio()
        .args(args)
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    if out.code != 0 {
        return Err(format!("ferrio refused: {}", out.stderr.trim()));
    }
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).map_err(|e| e.to_string())?;
    let mut jobs = Vec::new();
    for g in doc["groups"].as_array().ok_or("no groups")? {
        for j in g["jobs"].as_array().ok_or("no jobs")? {
            jobs.push((
                j["name"].as_str().unwrap_or("").to_string(),
                g["id"].as_u64().unwrap_or(0),
            ));
        }
    }
    Ok(jobs)
}

/// One blktrace record of device 8:0, in this machine's byte order or
/// (`swap`) the other one.
pub fn blk_record(
    swap: bool,
    time_ns: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    pdu: &[u8],
) -> Vec<u8> {
    let w32 = |v: u32| if swap { v.swap_bytes() } else { v }.to_ne_bytes();
    let w64 = |v: u64| if swap { v.swap_bytes() } else { v }.to_ne_bytes();
    let w16 = |v: u16| if swap { v.swap_bytes() } else { v }.to_ne_bytes();
    let mut r = Vec::with_capacity(48 + pdu.len());
    r.extend(w32(0x6561_7407));
    r.extend(w32(0));
    r.extend(w64(time_ns));
    r.extend(w64(sector));
    r.extend(w32(bytes));
    r.extend(w32(action));
    r.extend(w32(42));
    r.extend(w32(8 << 20));
    r.extend(w32(0));
    r.extend(w16(0));
    r.extend(w16(pdu.len() as u16));
    r.extend(pdu);
    r
}

/// The bins of a histogram log (`msec, direction, bs, bins...` per line)
/// summed over its lines.
pub fn summed_bins(log: &str) -> Vec<u64> {
    let mut sums: Vec<u64> = Vec::new();
    for line in log.lines() {
        let counts = line
            .split(',')
            .skip(3)
            .map(|v| v.trim().parse::<u64>().unwrap());
        if sums.is_empty() {
            sums = counts.collect();
        } else {
            sums.iter_mut().zip(counts).for_each(|(s, n)| *s += n);
        }
    }
    sums
}

/// The latency (ns) of fio's histogram bin `idx` at `edge` of its width
/// (0.5: its middle, which is what the `json+` report's bin keys and the
/// parser's values are): bins below 128 are 1 ns wide, and above that
/// each group of 64 bins is twice as wide as the one before.
pub fn bin_value(idx: usize, edge: f64) -> f64 {
    if idx < 128 {
        return idx as f64;
    }
    let bits = (idx >> 6) - 1;
    (1u64 << (bits + 6)) as f64 + ((idx % 64) as f64 + edge) * (1u64 << bits) as f64
}
