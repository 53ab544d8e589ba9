//! `--metrics-listen ADDR`: an OpenMetrics text endpoint that Prometheus
//! can scrape while jobs run. [`server`] answers the clients on a thread
//! of its own, none able to hold up another or the run's end; what it
//! serves is built here from what the jobs already publish (their
//! progress atomics, and the summaries the main thread posts on the
//! [`Board`] once per interval), so a scrape never touches a job's I/O
//! loop.
//!
//! Served: per job and direction, counters of completed bytes and I/Os;
//! per job, a gauge of the I/Os in flight; per job and direction,
//! latency summaries whose quantiles cover the last interval (their
//! `_count` and `_sum` the whole run). The counters and the summaries are
//! read from the same posting, so that within one scrape a direction's
//! `ferrio_ios_total` equals its summaries' `_count`: a scraper that
//! divides one by the other (a mean latency, bytes per I/O) never sees
//! two moments mixed. They move once per interval (`--status-interval`,
//! else every second). The endpoint has no
//! authentication, so it listens on loopback addresses only unless
//! `--metrics-allow-remote` is given.

mod server;

use std::fmt::Write as _;
use std::net::TcpListener;
use std::sync::Mutex;

pub use server::serve;

use crate::result::live_job::LiveJob;
use crate::run::status::live::{Latencies, Tally};
use crate::run::status::progress::JobProgress;

const DIRECTIONS: [&str; 3] = ["read", "write", "trim"];

/// The quantiles each summary reports (1 is the interval's maximum).
const QUANTILES: [f64; 5] = [0.5, 0.9, 0.99, 0.999, 1.0];

/// The latency series, by the name of their metric.
const SERIES: [(&str, &str); 3] = [
    ("clat", "completion latency"),
    ("lat", "total latency"),
    (
        "intended_lat",
        "latency from the I/O's intended issue time (rate-capped directions)",
    ),
];

/// One latency summary: quantiles (ns) of the last interval, NaN when it
/// had no samples, and the count and sum (ns) over the run so far.
#[derive(Debug, Clone, Copy)]
struct Summary {
    quantiles: [f64; QUANTILES.len()],
    count: u64,
    sum_ns: u128,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            quantiles: [f64::NAN; QUANTILES.len()],
            count: 0,
            sum_ns: 0,
        }
    }
}

impl Summary {
    fn update(&mut self, interval: &Latencies) {
        let m = &interval.moments;
        self.count += m.count;
        self.sum_ns += m.sums().0;
        self.quantiles = QUANTILES.map(|q| {
            if m.count == 0 {
                f64::NAN
            } else {
                interval.percentile(q * 100.0) as f64
            }
        });
    }
}

/// What the main thread posts for the endpoint once per interval: per
/// job, direction and series, a summary.
#[derive(Debug, Default)]
pub struct Board {
    jobs: Vec<[[Summary; 3]; 3]>,
    /// Per job and direction: (bytes, I/Os) completed up to the posting.
    totals: Vec<[(u64, u64); 3]>,
}

impl Board {
    pub fn new(jobs: usize) -> Board {
        Board {
            jobs: vec![Default::default(); jobs],
            totals: vec![Default::default(); jobs],
        }
    }

    /// Takes in each job's tally of the interval just ended.
    pub fn post(&mut self, tallies: &[Tally]) {
        let jobs = self.jobs.iter_mut().zip(self.totals.iter_mut());
        for ((job, totals), tally) in jobs.zip(tallies) {
            for ((dir, total), d) in job.iter_mut().zip(totals.iter_mut()).zip(&tally.dirs) {
                dir[0].update(&d.clat);
                dir[1].update(&d.lat);
                dir[2].update(&d.intended);
                total.0 += d.bytes;
                total.1 += d.ios;
            }
        }
    }

    /// Job `i`'s (bytes, I/Os) per direction, as posted.
    fn totals(&self, i: usize) -> ([u64; 3], [u64; 3]) {
        let t = self.totals.get(i).copied().unwrap_or_default();
        (t.map(|d| d.0), t.map(|d| d.1))
    }
}

/// Opens the endpoint's socket before any I/O, so that a bad address
/// stops the run at once. Refuses an address off this host unless
/// `allow_remote`; says where the endpoint is (on stderr: stdout may be
/// a report).
pub fn listen(addr: &str, allow_remote: bool) -> Result<TcpListener, String> {
    let listener = TcpListener::bind(addr).map_err(|e| format!("cannot listen there: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the address bound: {e}"))?;
    if !local.ip().is_loopback() && !allow_remote {
        return Err(format!(
            "{} is not a loopback address; the endpoint has no authentication, so add --metrics-allow-remote to serve it beyond this host",
            local.ip()
        ));
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot poll the socket: {e}"))?;
    eprintln!("ferrio: OpenMetrics at http://{local}/metrics");
    Ok(listener)
}

/// What the endpoint reads.
pub struct Sources<'a> {
    pub jobs: &'a [LiveJob],
    pub progress: &'a [JobProgress],
    pub board: &'a Mutex<Board>,
}

/// The OpenMetrics text of the run as it stands.
fn exposition(from: &Sources<'_>) -> String {
    let mut out = String::new();
    let board = match from.board.lock() {
        Ok(b) => b,
        Err(poisoned) => poisoned.into_inner(),
    };
    let totals: Vec<([u64; 3], [u64; 3])> = (0..from.jobs.len()).map(|i| board.totals(i)).collect();
    family(
        &mut out,
        "ferrio_io_bytes",
        "counter",
        Some("bytes"),
        "Bytes moved by completed I/Os (after ramp_time).",
    );
    per_direction(&mut out, "ferrio_io_bytes_total", from.jobs, |i| {
        totals[i].0
    });
    family(
        &mut out,
        "ferrio_ios",
        "counter",
        None,
        "Completed I/Os (after ramp_time).",
    );
    per_direction(&mut out, "ferrio_ios_total", from.jobs, |i| totals[i].1);
    family(
        &mut out,
        "ferrio_iodepth",
        "gauge",
        None,
        "I/Os in flight at the job's last publication (~100 ms).",
    );
    for (i, (cfg, p)) in from.jobs.iter().zip(from.progress).enumerate() {
        let _ = writeln!(out, "ferrio_iodepth{{{}}} {}", labels(i, cfg), p.depth());
    }
    for (s, (series, what)) in SERIES.iter().enumerate() {
        let name = format!("ferrio_{series}_seconds");
        let help = format!("I/O {what}: quantiles over the last interval.");
        family(&mut out, &name, "summary", Some("seconds"), &help);
        for (i, cfg) in from.jobs.iter().enumerate() {
            for d in cfg.directions() {
                let shown = match s {
                    0 => cfg.clat,
                    1 => cfg.lat,
                    _ => cfg.rate_bytes[d] > 0 || cfg.rate_iops[d] > 0,
                };
                if !shown {
                    continue;
                }
                let summary = board.jobs.get(i).map(|j| j[d][s]).unwrap_or_default();
                let base = format!("{},direction=\"{}\"", labels(i, cfg), DIRECTIONS[d]);
                for (q, v) in QUANTILES.iter().zip(summary.quantiles) {
                    let _ = writeln!(out, "{name}{{{base},quantile=\"{q}\"}} {}", seconds(v));
                }
                let _ = writeln!(
                    out,
                    "{name}_sum{{{base}}} {}",
                    seconds(summary.sum_ns as f64)
                );
                let _ = writeln!(out, "{name}_count{{{base}}} {}", summary.count);
            }
        }
    }
    out.push_str("# EOF\n");
    out
}

/// The samples `name{job..., direction} value` of every job and each
/// direction it runs, the values per direction of job `i` from `of(i)`.
fn per_direction(out: &mut String, name: &str, jobs: &[LiveJob], of: impl Fn(usize) -> [u64; 3]) {
    for (i, cfg) in jobs.iter().enumerate() {
        let values = of(i);
        for d in cfg.directions() {
            let _ = writeln!(
                out,
                "{name}{{{},direction=\"{}\"}} {}",
                labels(i, cfg),
                DIRECTIONS[d],
                values[d]
            );
        }
    }
}

/// The labels naming job `i`.
fn labels(i: usize, cfg: &LiveJob) -> String {
    format!(
        "job=\"{}\",jobid=\"{i}\",groupid=\"{}\"",
        escape(&cfg.name),
        cfg.group
    )
}

fn family(out: &mut String, name: &str, kind: &str, unit: Option<&str>, help: &str) {
    let _ = writeln!(out, "# TYPE {name} {kind}");
    if let Some(unit) = unit {
        let _ = writeln!(out, "# UNIT {name} {unit}");
    }
    let _ = writeln!(out, "# HELP {name} {help}");
}

/// Nanoseconds as seconds, NaN kept.
fn seconds(ns: f64) -> String {
    if ns.is_nan() {
        "NaN".to_string()
    } else {
        format!("{}", ns / 1e9)
    }
}

/// A label value as OpenMetrics quotes it.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::status::live::Measured;

    fn job(text: &str) -> LiveJob {
        let plan = crate::plan::plan_for_test(text, &[], &[], false).unwrap();
        let job = plan.jobs().next().unwrap();
        crate::run::config::JobConfig::from_spec(job, false)
            .unwrap()
            .live_job()
    }

    #[test]
    fn exposition_is_openmetrics_text() {
        let jobs = vec![job(
            "[a\"b]\nioengine=null\nsize=1m\nrw=write\nrate_iops=100\n",
        )];
        let progress = vec![JobProgress::default()];
        // The live atomics run ahead of the posting; a scrape serves the posting.
        progress[0].publish([0, 5 * 4096, 0], [0, 5, 0]);
        let board = Mutex::new(Board::new(1));
        let mut t = Tally::starting(0);
        for ns in [1000, 3000] {
            let m = Measured {
                clat: Some(ns),
                lat: Some(ns),
                intended: Some(ns * 10),
            };
            t.record(1, 4096, m);
        }
        board.lock().unwrap().post(&[t]);
        let from = Sources {
            jobs: &jobs,
            progress: &progress,
            board: &board,
        };
        let text = exposition(&from);
        assert!(text.ends_with("# EOF\n"), "{text}");
        assert!(
            text.contains(
                "ferrio_ios_total{job=\"a\\\"b\",jobid=\"0\",groupid=\"0\",direction=\"write\"} 2\n"
            ),
            "{text}"
        );
        assert!(text.contains("# TYPE ferrio_io_bytes counter\n# UNIT ferrio_io_bytes bytes\n"));
        assert!(text.contains(
            "ferrio_intended_lat_seconds{job=\"a\\\"b\",jobid=\"0\",groupid=\"0\",direction=\"write\",quantile=\"1\"} 0.00003\n"
        ), "{text}");
        assert!(text.contains("ferrio_clat_seconds_count{job=\"a\\\"b\",jobid=\"0\",groupid=\"0\",direction=\"write\"} 2\n"));
        // No read direction in a write job.
        assert!(!text.contains("direction=\"read\""));
    }

    /// A scrape that reached the kernel before the run's end is answered
    /// with the final counters, not reset by the closing endpoint.
    #[test]
    fn a_scrape_waiting_at_the_runs_end_is_answered() {
        use std::io::{Read, Write};
        let jobs = vec![job("[j]\nioengine=null\nsize=1m\nrw=read\n")];
        let progress = vec![JobProgress::default()];
        let board = Mutex::new(Board::new(1));
        let from = Sources {
            jobs: &jobs,
            progress: &progress,
            board: &board,
        };
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.write_all(b"GET /metrics HTTP/1.1\r\n\r\n").unwrap();
        let done = std::sync::atomic::AtomicBool::new(true);
        server::serve(listener, &from, &done);
        let mut text = String::new();
        client.read_to_string(&mut text).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
        assert!(text.ends_with("# EOF\n"), "{text}");
    }

    #[test]
    fn remote_addresses_need_an_explicit_yes() {
        let e = listen("0.0.0.0:0", false).unwrap_err();
        assert!(e.contains("--metrics-allow-remote"), "{e}");
        assert!(listen("127.0.0.1:0", false).is_ok());
        assert!(listen("no-such-host.invalid:1", false).is_err());
    }
}
