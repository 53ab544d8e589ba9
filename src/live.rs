//! Live metrics, the watcher's side: once per interval the main thread
//! collects each job's tally of it (see `run::live`), writes it as an
//! NDJSON line (`--status-format=ndjson`) and posts its summaries for the
//! OpenMetrics endpoint (`--metrics-listen`). Both are ferrio's own
//! flags, unknown when ferrio answers as fio.

use std::net::TcpListener;
use std::sync::Mutex;
use std::time::{Duration, Instant, UNIX_EPOCH};

use crate::cli::Args;
use crate::metrics::Board;
use crate::report::Formats;
use crate::report::ndjson::{self, Interval};
use crate::result::live_job::LiveJob;
use crate::run::status::live::Tally;
use crate::run::status::progress::JobProgress;

/// How often the endpoint's summaries move on when no
/// `--status-interval` says.
const DEFAULT_PERIOD: Duration = Duration::from_secs(1);

/// What the command line asks of live metrics.
pub struct Setup {
    /// Status lines as NDJSON interval deltas instead of fio's full
    /// reports.
    pub ndjson: bool,
    /// The endpoint's socket, bound already.
    pub listener: Option<TcpListener>,
    /// The interval, when anything is watched live.
    pub period: Option<Duration>,
}

/// Reads `--status-format` and `--metrics-listen` against the formats
/// and `--status-interval` (`every`); opens the endpoint's socket.
pub fn setup(args: &Args, formats: Formats, every: Option<Duration>) -> Result<Setup, String> {
    let ndjson = match args.flag("status-format").flatten() {
        None | Some("full") => false,
        Some("ndjson") => true,
        Some(other) => {
            return Err(format!("--status-format={other}: expected ndjson or full"));
        }
    };
    let json_only = formats.json && !formats.normal && !formats.terse && !formats.html;
    if ndjson && !json_only {
        return Err("--status-format=ndjson: needs --output-format=json (or json+) alone, so that every line of the output is a JSON document".to_string());
    }
    if ndjson && every.is_none() {
        return Err(
            "--status-format=ndjson: needs --status-interval=N to say how often".to_string(),
        );
    }
    let listener = match args.flag("metrics-listen") {
        None => None,
        Some(addr) => {
            let addr = addr.unwrap_or_default();
            let remote = args.has("metrics-allow-remote");
            Some(
                crate::metrics::listen(addr, remote)
                    .map_err(|e| format!("--metrics-listen={addr}: {e}"))?,
            )
        }
    };
    let period = (ndjson || listener.is_some()).then(|| every.unwrap_or(DEFAULT_PERIOD));
    Ok(Setup {
        ndjson,
        listener,
        period,
    })
}

/// The interval clock and the tallies it collects.
pub struct Live<'a> {
    period: Duration,
    last: Instant,
    started: Instant,
    number: u64,
    ndjson: bool,
    jobs: &'a [LiveJob],
    progress: &'a [JobProgress],
    board: &'a Mutex<Board>,
    /// One tally per job, swapped with the job's shared one each interval.
    tallies: Vec<Tally>,
}

impl<'a> Live<'a> {
    /// Asks every job to keep live tallies; call before the run.
    pub fn new(
        period: Duration,
        ndjson: bool,
        started: Instant,
        jobs: &'a [LiveJob],
        progress: &'a [JobProgress],
        board: &'a Mutex<Board>,
    ) -> Live<'a> {
        for p in progress {
            p.watch_live();
        }
        Live {
            period,
            last: started,
            started,
            number: 0,
            ndjson,
            jobs,
            progress,
            board,
            tallies: vec![Tally::default(); jobs.len()],
        }
    }

    /// At the end of each interval: the NDJSON line, if those are asked
    /// for (the endpoint's summaries move on either way).
    pub fn tick(&mut self, now: Instant) -> Option<String> {
        if now.saturating_duration_since(self.last) < self.period {
            return None;
        }
        self.last = now;
        self.collect()
    }

    /// After the run: the last interval, up to the end of every job.
    pub fn finish(&mut self) -> Option<String> {
        self.collect()
    }

    fn collect(&mut self) -> Option<String> {
        for (tally, p) in self.tallies.iter_mut().zip(self.progress) {
            tally.restart(0);
            p.take_tally(tally);
        }
        if let Ok(mut board) = self.board.lock() {
            board.post(&self.tallies);
        }
        self.number += 1;
        if !self.ndjson {
            return None;
        }
        let at = Interval {
            number: self.number,
            unix_ms: std::time::SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            elapsed_ms: self.started.elapsed().as_millis() as u64,
        };
        let states: Vec<_> = self.progress.iter().map(JobProgress::state).collect();
        Some(ndjson::line(&at, self.jobs, &self.tallies, &states))
    }
}
