//! ferrio's live metrics beside fio 3.33: NDJSON interval deltas where
//! fio prints whole cumulative reports, an OpenMetrics endpoint scraped
//! during a run, and latency from each I/O's intended issue time, which
//! shows a real device stall that fio's completion latency hides.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Run, Scratch, ferrio, fio};
use serde_json::Value;

const DIRS: [&str; 2] = ["read", "write"];

/// Every JSON document of a run's stdout, pretty-printed or not.
fn documents(text: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .map(|d| d.expect("stdout holds only JSON documents"))
        .collect()
}

#[test]
fn ndjson_interval_deltas_add_up_to_the_final_totals() {
    let job = "[mix]\nioengine=null\nrw=randrw\nsize=64m\nrate_iops=3000,1500\nruntime=2200ms\ntime_based\n";
    let s = Scratch::new("ndjson");
    s.write("job.fio", job);
    // fio: a whole, pretty-printed and cumulative report per interval.
    let theirs = Run::fio()
        .args(["--output-format=json", "--status-interval=500ms", "job.fio"])
        .in_dir(&s.0)
        .out();
    assert_eq!(theirs.code, 0, "{}", theirs.stderr);
    let docs = documents(&theirs.stdout);
    assert!(docs.len() >= 4, "{}", theirs.stdout);
    assert!(theirs.stdout.lines().count() > 10 * docs.len());
    let fio_ios: Vec<u64> = docs
        .iter()
        .map(|d| d["jobs"][0]["read"]["total_ios"].as_u64().unwrap())
        .collect();
    assert!(fio_ios.windows(2).all(|w| w[0] <= w[1]), "{fio_ios:?}");

    // ferrio --status-format=ndjson: one line per interval holding that
    // interval alone, then the final report, every line one document.
    let ours = Run::ferrio()
        .args([
            "--output-format=json",
            "--status-interval=500ms",
            "--status-format=ndjson",
            "job.fio",
        ])
        .in_dir(&s.0)
        .out();
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    let lines: Vec<Value> = ours
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (last, intervals) = lines.split_last().unwrap();
    assert!(last.get("fio version").is_some(), "{last}");
    assert!(intervals.len() >= 4, "{}", ours.stdout);
    for (n, (d, rate)) in DIRS.iter().zip([3000.0, 1500.0]).enumerate() {
        let deltas: Vec<u64> = intervals
            .iter()
            .map(|l| l["jobs"][0][d]["ios"].as_u64().unwrap())
            .collect();
        let total = last["jobs"][0][d]["total_ios"].as_u64().unwrap();
        assert_eq!(deltas.iter().sum::<u64>(), total, "{d}: {deltas:?}");
        // Deltas, not totals: a full interval holds about its share of
        // the rate, never the run so far.
        let full = &intervals[1]["jobs"][0][d];
        let iops = full["iops"].as_f64().unwrap();
        assert!((0.8 * rate..1.2 * rate).contains(&iops), "{d}: {full}");
        assert!(deltas[1] < total / 2, "{d}: {deltas:?}");
        // The interval's own latency tail.
        let clat = &full["clat_ns"];
        let max = clat["max"].as_u64().unwrap();
        assert!(max > 0 && clat["percentile"]["99.000000"].as_u64().unwrap() <= max);
        assert!(full["intended_ns"]["N"].as_u64().unwrap() > 0, "{n}");
    }
    for (i, l) in intervals.iter().enumerate() {
        assert_eq!(l["interval"].as_u64(), Some(i as u64 + 1));
    }
}

/// A ferrio run in the background, its stderr's first line read.
struct Background {
    child: Child,
    /// Where the endpoint listens, as its first stderr line says.
    addr: String,
}

/// The address of the endpoint that `first_line`, a run's first line on
/// stderr, announces.
fn endpoint(first_line: &str) -> String {
    first_line
        .trim()
        .strip_prefix("ferrio: OpenMetrics at http://")
        .and_then(|a| a.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("{first_line}"))
        .to_string()
}

impl Background {
    /// `job.fio` of `dir` run with JSON output and the endpoint on a free
    /// loopback port.
    fn scraped(dir: &Path) -> Background {
        let mut child = Command::new(ferrio())
            .args([
                "--output-format=json",
                "--metrics-listen=127.0.0.1:0",
                "job.fio",
            ])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut first_line = String::new();
        err.read_line(&mut first_line).unwrap();
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        Background {
            child,
            addr: endpoint(&first_line),
        }
    }

    fn finish(mut self) -> (i32, String) {
        let mut out = String::new();
        self.child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        (self.child.wait().unwrap().code().unwrap_or(-1), out)
    }
}

/// A plain HTTP GET: (status line, content type, body).
fn get(addr: &str, path: &str) -> (String, String, String) {
    try_get(addr, path).unwrap()
}

/// A plain HTTP GET, or the error of a connection refused or reset, which
/// only a run at its end may give: the endpoint closes with the run.
fn try_get(addr: &str, path: &str) -> std::io::Result<(String, String, String)> {
    let mut stream = TcpStream::connect(addr)?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: application/openmetrics-text\r\n\r\n"
    )?;
    let mut text = String::new();
    stream.read_to_string(&mut text)?;
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let kind = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Type: "))
        .unwrap_or("")
        .to_string();
    Ok((
        head.lines().next().unwrap().to_string(),
        kind,
        body.to_string(),
    ))
}

/// Prometheus' own OpenMetrics parser, run on `text`: it refuses what
/// breaks the format (a sample of no declared family, a counter without
/// `_total`, a bad value, anything after `# EOF` or no `# EOF`). Prints
/// each sample as `name{labels}<TAB>value`, labels in their order.
const PARSE: &str = r#"
import math, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
def quoted(v):
    return '"' + v.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        labels = ",".join(k + "=" + quoted(v) for k, v in s.labels.items())
        key = s.name + ("{" + labels + "}" if labels else "")
        print(key + "\t" + ("NaN" if math.isnan(s.value) else repr(float(s.value))))
"#;

/// The Python for which Debian installs python3-prometheus-client.
const PYTHON: &str = "/usr/bin/python3";

/// Whether Prometheus' parser is there; a test that scrapes the endpoint
/// fails without it (its checks are what the test is for), unless the
/// skip is named.
fn parser_present() -> bool {
    let found = Command::new(PYTHON)
        .args(["-c", "import prometheus_client.openmetrics.parser"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    common::need::require("prometheus-client", found)
}

/// The samples of an OpenMetrics text by name and labels, as Prometheus'
/// client parses them; the test fails if that parser refuses the text.
fn parse_openmetrics(text: &str) -> HashMap<String, f64> {
    let mut child = Command::new(PYTHON)
        .args(["-c", PARSE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "Prometheus' parser refused the text: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut samples = HashMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let (key, value) = line.split_once('\t').unwrap();
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(samples.insert(key.to_string(), value).is_none(), "{line}");
    }
    samples
}

#[test]
fn openmetrics_endpoint_counts_up_during_a_run() {
    if !parser_present() {
        return;
    }
    let s = Scratch::new("metrics");
    s.write(
        "job.fio",
        "[scraped]\nioengine=psync\nfilename=data\nsize=1m\nrw=randread\nrate_iops=2000\nruntime=5\ntime_based\n",
    );
    let run = Background::scraped(&s.0);
    let addr = run.addr.clone();
    let ios = "ferrio_ios_total{job=\"scraped\",jobid=\"0\",groupid=\"0\",direction=\"read\"}";
    let p99 = "ferrio_clat_seconds{job=\"scraped\",jobid=\"0\",groupid=\"0\",direction=\"read\",quantile=\"0.99\"}";
    let mut counts: Vec<f64> = Vec::new();
    let began = Instant::now();
    // Scrape until two postings (one a second) have counted I/Os; the run
    // lasts 5 s, so a late first posting on a busy machine still leaves one.
    while counts.len() < 2 && began.elapsed() < Duration::from_millis(4500) {
        std::thread::sleep(Duration::from_millis(100));
        let (status, kind, body) = get(&addr, "/metrics");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(kind.starts_with("application/openmetrics-text; version=1.0.0"));
        let samples = parse_openmetrics(&body);
        assert!(samples.contains_key(p99), "{body}");
        let n = samples[ios];
        if n > 0.0 && counts.last() != Some(&n) {
            counts.push(n);
        }
    }
    assert!(
        began.elapsed() < Duration::from_millis(4800),
        "scraped after the run"
    );
    assert_eq!(get(&addr, "/elsewhere").0, "HTTP/1.1 404 Not Found");
    let (code, out) = run.finish();
    assert_eq!(code, 0);
    let total = documents(&out)[0]["jobs"][0]["read"]["total_ios"]
        .as_u64()
        .unwrap() as f64;
    // Counting up, and never past the final total.
    assert!(counts.len() == 2 && counts[1] > counts[0], "{counts:?}");
    assert!(counts[1] <= total, "{counts:?} of {total}");

    // An address beyond loopback needs an explicit yes; nothing runs.
    let refused = Run::ferrio()
        .args(["--metrics-listen=0.0.0.0:0", "job.fio"])
        .in_dir(&s.0)
        .out();
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains("--metrics-allow-remote"),
        "{}",
        refused.stderr
    );
    assert!(refused.stdout.is_empty(), "{}", refused.stdout);
}

/// A client that sends a request's first line and then one byte of a
/// header every half second, never ending its head, until `stop`.
fn trickle(addr: String, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let Ok(mut stream) = TcpStream::connect(&addr) else {
            return;
        };
        let _ = write!(stream, "GET /metrics HTTP/1.1\r\nX-Slow: ");
        while !stop.load(Ordering::Relaxed) && stream.write_all(b"a").is_ok() {
            std::thread::sleep(Duration::from_millis(500));
        }
    })
}

#[test]
fn slow_and_idle_clients_block_neither_scrapes_nor_the_runs_end() {
    if !parser_present() {
        return;
    }
    let s = Scratch::new("slowclients");
    let runtime = Duration::from_secs(4);
    s.write(
        "job.fio",
        "[scraped]\nioengine=null\nsize=1g\nrw=read\nrate_iops=1000\nruntime=4\ntime_based\n",
    );
    let began = Instant::now();
    let mut run = Run::ferrio()
        .args([
            "--output-format=json",
            "--metrics-listen=127.0.0.1:0",
            "job.fio",
        ])
        .limit(Duration::from_secs(60))
        .in_dir(&s.0)
        .spawn();
    let mut err = BufReader::new(run.child.stderr.take().unwrap());
    let mut first_line = String::new();
    err.read_line(&mut first_line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let addr = endpoint(&first_line);
    // A crowd of connections that never send anything (more than the
    // endpoint serves at once), then a client trickling its request.
    let idle: Vec<TcpStream> = (0..100)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let trickler = trickle(addr.clone(), stop.clone());
    std::thread::sleep(Duration::from_millis(300));
    // Meanwhile a plain scrape is answered at once, twice.
    for _ in 0..2 {
        let mut scrape = TcpStream::connect(&addr).unwrap();
        scrape
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let asked = Instant::now();
        write!(scrape, "GET /metrics HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
        let mut text = String::new();
        let read = scrape.read_to_string(&mut text);
        let took = asked.elapsed();
        assert!(read.is_ok(), "scrape unanswered after {took:?}: {read:?}");
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        parse_openmetrics(text.split_once("\r\n\r\n").unwrap().1);
        assert!(took < Duration::from_secs(3), "scrape took {took:?}");
        std::thread::sleep(Duration::from_millis(500));
    }
    // A connection that never finishes its request is closed by the
    // endpoint (2 s from its accept), not held for the run.
    let mut last = idle.last().unwrap();
    last.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut byte = [0u8; 1];
    let closed = last.read(&mut byte);
    assert!(
        matches!(closed, Ok(0)),
        "idle client not closed: {closed:?}"
    );
    // The run ends at its runtime, the trickler still trickling and the
    // idle connections still open.
    let grace = Duration::from_secs(3);
    while run.child.try_wait().unwrap().is_none() && began.elapsed() < runtime + grace {
        std::thread::sleep(Duration::from_millis(50));
    }
    let ended = run.child.try_wait().unwrap().is_some();
    let lasted = began.elapsed();
    stop.store(true, Ordering::Relaxed);
    drop(idle);
    trickler.join().unwrap();
    let out = run.wait();
    assert!(
        ended,
        "still running {lasted:?} after its start ({runtime:?} runtime)"
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(common::json(&out)["jobs"][0]["read"]["total_ios"].as_u64() > Some(0));
}

/// An ext4 file system in a loop-mounted image, frozen on demand: the
/// device-level stall fsfreeze imposes blocks every write until thawed.
struct Frozen<'a> {
    mount: &'a Path,
}

impl Frozen<'_> {
    fn set(&self, on: bool) {
        let flag = if on { "-f" } else { "-u" };
        let ok = Command::new("fsfreeze")
            .arg(flag)
            .arg(self.mount)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok || !on, "fsfreeze {flag} failed");
    }
}

impl Drop for Frozen<'_> {
    fn drop(&mut self) {
        // Thawed already, unless the test failed while frozen.
        let _ = Command::new("fsfreeze")
            .arg("-u")
            .arg(self.mount)
            .stderr(Stdio::null())
            .status();
        let _ = Command::new("umount").arg(self.mount).status();
    }
}

/// Mounts a fresh 64 MiB ext4 image at `dir/mnt`; None where loop mounts
/// are not allowed (not root) or mkfs.ext4 is missing.
fn ext4_mount(dir: &Path) -> Option<std::path::PathBuf> {
    let image = dir.join("fs.img");
    let mount = dir.join("mnt");
    std::fs::File::create(&image)
        .and_then(|f| f.set_len(64 << 20))
        .ok()?;
    std::fs::create_dir(&mount).ok()?;
    let quiet = |cmd: &mut Command| {
        cmd.stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    (quiet(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&image))
        && quiet(
            Command::new("mount")
                .arg("-o")
                .arg("loop")
                .arg(&image)
                .arg(&mount),
        ))
    .then_some(mount)
}

#[test]
fn intended_time_latency_shows_the_stall_that_clat_hides() {
    if !common::need::require("fsfreeze", common::need::program("fsfreeze")) {
        return;
    }
    let s = Scratch::new("stall");
    let Some(mount) = common::need::require_some("mount", ext4_mount(&s.0)) else {
        return;
    };
    let frozen = Frozen { mount: &mount };
    // 500 writes a second; at 1.2 s the file system freezes for 600 ms.
    s.write(
        "job.fio",
        "[stall]\nioengine=psync\nfilename=mnt/data\nsize=4m\nbs=4k\nrw=write\nrate_iops=500\nruntime=3\ntime_based\n",
    );
    let stall = Duration::from_millis(600);
    let measure = |bin: &str| {
        let child = Command::new(bin)
            .args(["--output-format=json", "job.fio"])
            .current_dir(&s.0)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(1200));
        frozen.set(true);
        std::thread::sleep(stall);
        frozen.set(false);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{bin}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["jobs"][0].clone()
    };
    let (theirs, ours) = (measure(fio()), measure(ferrio()));
    let stall_ns = stall.as_nanos() as f64;
    for (tool, job) in [("fio", &theirs), ("ferrio", &ours)] {
        let clat = &job["write"]["clat_ns"];
        let p99 = clat["percentile"]["99.000000"].as_f64().unwrap();
        let max = clat["max"].as_f64().unwrap();
        // The one write caught by the freeze waited it out...
        assert!(max >= 0.9 * stall_ns, "{tool}: clat max {max}");
        // ...while the writes it held back never count: clat p99 stays
        // far below the stall.
        assert!(p99 < 0.05 * stall_ns, "{tool}: clat p99 {p99}");
    }
    // Measured from when the schedule meant each write to go, the
    // writes held back count their wait: p99 is the stall less the
    // schedule's 1% of the run (30 ms), the maximum the whole stall.
    let late = &ours["ferrio"]["intended_lat_ns"]["write"];
    let stalled = ours["write"]["clat_ns"]["max"].as_f64().unwrap();
    let p99 = late["percentile"]["99.000000"].as_f64().unwrap();
    eprintln!(
        "clat p99/max: fio {}/{} ns, ferrio {}/{} ns; ferrio intended p99/max {p99}/{} ns",
        theirs["write"]["clat_ns"]["percentile"]["99.000000"],
        theirs["write"]["clat_ns"]["max"],
        ours["write"]["clat_ns"]["percentile"]["99.000000"],
        stalled,
        late["max"]
    );
    assert!(p99 >= 0.9 * stalled, "intended p99 {p99}, stall {stalled}");
    assert!(late["max"].as_f64().unwrap() >= stalled);
    assert_eq!(late["N"], ours["write"]["total_ios"]);
    drop(frozen);
}

#[test]
fn answering_as_fio_keeps_fios_output() {
    let s = Scratch::new("livefio");
    let bin = s.0.join("bin");
    let alias = Run::ferrio()
        .args([&format!("--install-alias={}", bin.display())])
        .in_dir(&s.0)
        .out();
    assert_eq!(alias.code, 0, "{}", alias.stderr);
    s.write(
        "job.fio",
        "[r]\nioengine=null\nrw=read\nsize=1g\nrate_iops=1000\nruntime=300ms\ntime_based\n",
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let as_fio = HashMap::from([("PATH".to_string(), path)]);
    let line = "ferrio lat from intended issue (";
    // As ferrio: the extra normal line of a rate-capped job.
    let own = Run::ferrio().args(["job.fio"]).in_dir(&s.0).out();
    assert!(own.stdout.contains(line), "{}", own.stdout);
    // As fio: fio's report alone, and ferrio's live flags unknown, as to
    // fio itself.
    let plain = Run::tool("fio")
        .args(["job.fio"])
        .in_dir(&s.0)
        .envs(&as_fio)
        .out();
    assert_eq!(plain.code, 0);
    assert!(!plain.stdout.contains(line), "{}", plain.stdout);
    for flag in ["--status-format=ndjson", "--metrics-listen=127.0.0.1:0"] {
        let theirs = Run::fio().args([flag, "job.fio"]).in_dir(&s.0).out();
        let ours = Run::tool("fio")
            .args([flag, "job.fio"])
            .in_dir(&s.0)
            .envs(&as_fio)
            .out();
        assert_eq!(ours.code, theirs.code, "{flag}");
        assert_eq!(ours.stderr, theirs.stderr, "{flag}");
    }
}

#[test]
fn rate_waits_and_think_time_stay_out_of_clat_as_in_fio() {
    // A 5 ms gap between writes from the rate cap, or 2 ms of thinking:
    // neither is part of a 4 KiB buffered write's latency.
    let s = Scratch::new("gaps");
    for extra in ["rate_iops=200", "thinktime=2ms"] {
        let job = format!(
            "[gap]\nioengine=psync\nfilename=data\nsize=1m\nrw=write\nruntime=1\ntime_based\n{extra}\n"
        );
        s.write("job.fio", &job);
        for tool in [fio(), ferrio()] {
            let out = Run::tool(tool)
                .args(["--output-format=json", "job.fio"])
                .in_dir(&s.0)
                .out();
            assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
            let w = &common::json(&out)["jobs"][0]["write"];
            let clat = w["clat_ns"]["mean"].as_f64().unwrap();
            assert!(clat < 1e6, "{tool} {extra}: clat mean {clat} ns");
            assert!(w["total_ios"].as_u64().unwrap() > 100, "{tool} {extra}");
        }
    }
}

/// Within one scrape, every job's counters and its latency summaries come
/// from the same moment: a direction's `ferrio_ios_total` equals its
/// `_count`s and its bytes are its I/Os times the block size, in every
/// scrape of a run of several jobs; at the end they equal each job's JSON.
#[test]
fn one_scrape_holds_counters_and_summaries_of_one_moment() {
    if !parser_present() {
        return;
    }
    let s = Scratch::new("metrics-moment");
    s.write(
        "job.fio",
        "[global]\nioengine=null\nsize=1g\nruntime=3\ntime_based\nrate_iops=3000\n\
         [reader]\nrw=randread\nbs=4k\n[mixed]\nrw=randrw\nbs=8k\nnumjobs=2\n",
    );
    let mut run = Background::scraped(&s.0);
    let addr = run.addr.clone();
    // (job label, jobid, direction, block size)
    let series = [
        ("reader", 0, "read", 4096.0),
        ("mixed", 1, "read", 8192.0),
        ("mixed", 1, "write", 8192.0),
        ("mixed", 2, "read", 8192.0),
        ("mixed", 2, "write", 8192.0),
    ];
    let mut compared = 0;
    let mut last = HashMap::new();
    let began = Instant::now();
    while run_is_on(&addr) && began.elapsed() < Duration::from_secs(10) {
        // The run may end between the two connections; then, and only
        // then, the scrape may find the endpoint gone.
        let body = match try_get(&addr, "/metrics") {
            Ok((_, _, body)) => body,
            Err(e) => {
                assert!(ends_within(&mut run, Duration::from_secs(1)), "{e}");
                break;
            }
        };
        let samples = parse_openmetrics(&body);
        for (job, id, dir, bs) in series {
            let labels = format!("job=\"{job}\",jobid=\"{id}\",groupid=\"0\",direction=\"{dir}\"");
            let ios = samples[&format!("ferrio_ios_total{{{labels}}}")];
            let bytes = samples[&format!("ferrio_io_bytes_total{{{labels}}}")];
            for summary in ["clat", "lat"] {
                let count = samples[&format!("ferrio_{summary}_seconds_count{{{labels}}}")];
                assert_eq!(count, ios, "{summary} {labels}\n{body}");
            }
            assert_eq!(bytes, ios * bs, "{labels}");
            compared += 1;
            last.insert((id, dir), ios);
        }
        std::thread::sleep(Duration::from_millis(150));
    }
    let (code, out) = run.finish();
    assert_eq!(code, 0);
    assert!(
        compared >= 5 * 3,
        "only {compared} comparisons: the run ended too soon"
    );
    // What the last scrape said never exceeds the job's final count.
    let doc = &documents(&out)[0];
    for ((id, dir), ios) in last {
        let total = doc["jobs"][id][dir]["total_ios"].as_f64().unwrap();
        assert!(ios <= total, "job {id} {dir}: {ios} > {total}");
    }
}

/// Whether the run's process exits within `limit`.
fn ends_within(run: &mut Background, limit: Duration) -> bool {
    let began = Instant::now();
    while began.elapsed() < limit {
        if run.child.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Whether the endpoint still answers (the run goes on).
fn run_is_on(addr: &str) -> bool {
    TcpStream::connect(addr).is_ok()
}

/// The counter of one job and direction in a scrape.
fn counter(samples: &HashMap<String, f64>, family: &str, job: &str, jobid: u32) -> f64 {
    let series = format!(
        "ferrio_{family}_total{{job=\"{job}\",jobid=\"{jobid}\",groupid=\"0\",direction=\"read\"}}"
    );
    *samples
        .get(&series)
        .unwrap_or_else(|| panic!("no {series} in {samples:?}"))
}

/// Three jobs in one group (a clone pair from numjobs=2 that ends after a
/// fixed 256 reads, and a rate-capped time-based job) scraped once the
/// pair has ended and the third still runs: each ended job's counters are
/// exactly what its JSON reports at the end (and what fio's JSON reports
/// for the same job), the running job's counter lies below its final
/// total, and the scrape's totals are the sum of its jobs.
#[test]
fn openmetrics_counts_each_of_several_jobs_as_its_json_does() {
    if !parser_present() {
        return;
    }
    let job = "[global]\nioengine=psync\nfilename=data\nsize=1m\nbs=4k\nrw=read\n\
        [pair]\nnumjobs=2\n[paced]\nrate_iops=500\nruntime=3\ntime_based\n";
    let s = Scratch::new("metrics-jobs");
    s.write("job.fio", job);
    let fio_doc = Run::fio().args(["--output-format=json"]).job(job).json();
    let run = Background::scraped(&s.0);
    let addr = run.addr.clone();
    // 1 MiB of reads ends in milliseconds; the paced job runs 3 s. The
    // counters move once a second: scrape until a posting holds the pair's
    // whole count.
    let began = Instant::now();
    let samples = loop {
        let samples = parse_openmetrics(&get(&addr, "/metrics").2);
        let pair_done = counter(&samples, "ios", "pair", 0) >= 256.0
            && counter(&samples, "ios", "pair", 1) >= 256.0;
        if pair_done || began.elapsed() > Duration::from_millis(2500) {
            break samples;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (code, out) = run.finish();
    assert_eq!(code, 0);
    let doc = &documents(&out)[0];
    let names: Vec<(&str, u32)> = vec![("pair", 0), ("pair", 1), ("paced", 2)];
    assert_eq!(doc["jobs"].as_array().unwrap().len(), names.len());
    for (i, (name, jobid)) in names.iter().enumerate() {
        let mine = &doc["jobs"][i];
        assert_eq!(mine["jobname"], *name);
        let ios = counter(&samples, "ios", name, *jobid);
        let bytes = counter(&samples, "io_bytes", name, *jobid);
        let total_ios = mine["read"]["total_ios"].as_f64().unwrap();
        let io_bytes = mine["read"]["io_bytes"].as_f64().unwrap();
        if *name == "pair" {
            assert_eq!((ios, bytes), (total_ios, io_bytes), "{name} {jobid}");
            assert_eq!((ios, bytes), (256.0, 1048576.0), "{name} {jobid}");
            assert_eq!(
                fio_doc["jobs"][i]["read"]["total_ios"].as_f64(),
                Some(total_ios),
                "fio's {name} {jobid}"
            );
        } else {
            // Scraped at half its runtime: counting, and below its end.
            assert!(ios > 0.0 && ios < total_ios, "{ios} of {total_ios}");
            assert_eq!(bytes, ios * 4096.0);
        }
    }
    let scraped: f64 = samples
        .iter()
        .filter(|(k, _)| k.starts_with("ferrio_ios_total{") && k.contains("direction=\"read\""))
        .map(|(_, v)| v)
        .sum();
    let per_job: f64 = names
        .iter()
        .map(|(name, jobid)| counter(&samples, "ios", name, *jobid))
        .sum();
    assert_eq!(scraped, per_job, "a read counter beyond the three jobs");
}
