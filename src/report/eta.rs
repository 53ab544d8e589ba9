//! fio's live status line, `Jobs: 1 (f=1): [r(1)][75.0%][r=48.2MiB/s][r=12.4k
//! IOPS][eta 00m:01s]`, ended by `\r` and redrawn every `--eta-interval`
//! (`../shared/spec/fio-output.md` §1.4).

use std::time::{Duration, Instant};

use super::num2str::{Unit, num2str};
use crate::result::live_job::LiveJob;
use crate::run::status::progress::{JobProgress, State};

/// fio's "ETA unknown".
const UNKNOWN: u64 = i32::MAX as u64;

/// Draws the status line from the jobs' published progress.
pub struct StatusLine {
    genesis: Instant,
    interval: Duration,
    newline_every: Option<Duration>,
    last_display: Instant,
    /// When the last forced newline was due (set at the first line).
    last_newline: Option<Instant>,
    newline_pending: bool,
    /// Completed bytes and I/Os per direction at the last display.
    seen_bytes: [u64; 3],
    seen_ios: [u64; 3],
    last_len: usize,
    eta_good: bool,
    /// When each job was first seen running (its ETA clock).
    epochs: Vec<Option<Instant>>,
    /// `--bandwidth-log`: the aggregate bandwidth per direction, sampled
    /// every 500 ms while the status line runs.
    aggregate: Option<Aggregate>,
}

/// fio's `agg-<dir>_bw.log` samples: (ms since start, KiB/s).
#[derive(Debug, Default)]
struct Aggregate {
    last: Option<Instant>,
    seen: [u64; 3],
    entries: [Vec<(u64, u64)>; 3],
}

/// The aggregate bandwidth logs' names, per direction.
pub const AGGREGATE_LOGS: [&str; 3] = ["agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"];

/// Writes the aggregate bandwidth logs (empty when nothing was sampled,
/// as fio leaves them when no status line ran).
pub fn write_aggregate_logs(status: Option<&StatusLine>) -> std::io::Result<()> {
    for (d, name) in AGGREGATE_LOGS.iter().enumerate() {
        let mut text = String::new();
        if let Some(agg) = status.and_then(|s| s.aggregate.as_ref()) {
            for (ms, kib) in &agg.entries[d] {
                text += &format!("{ms}, {kib}, {d}, 0, 0\n");
            }
        }
        std::fs::write(name, text)?;
    }
    Ok(())
}

impl StatusLine {
    /// Samples the aggregate bandwidth too (`--bandwidth-log`).
    pub fn with_aggregate_log(mut self) -> Self {
        self.aggregate = Some(Aggregate::default());
        self
    }

    pub fn new(genesis: Instant, interval: Duration, newline_every: Option<Duration>) -> Self {
        StatusLine {
            genesis,
            interval,
            newline_every,
            last_display: genesis,
            last_newline: None,
            newline_pending: false,
            seen_bytes: [0; 3],
            seen_ios: [0; 3],
            last_len: 0,
            eta_good: false,
            epochs: Vec::new(),
            aggregate: None,
        }
    }

    /// The line to print now, if one is due (about once per interval,
    /// while any job is running or waiting to).
    pub fn tick(
        &mut self,
        now: Instant,
        jobs: &[LiveJob],
        progress: &[JobProgress],
    ) -> Option<String> {
        if self.epochs.len() != jobs.len() {
            self.epochs = vec![None; jobs.len()];
        }
        // A job's ETA clock starts when it is first seen running.
        for (p, epoch) in progress.iter().zip(&mut self.epochs) {
            if matches!(p.state(), State::Running | State::Ramp) && epoch.is_none() {
                *epoch = Some(now);
            }
        }
        if let Some(agg) = &mut self.aggregate {
            agg.sample(self.genesis, now, progress);
        }
        let since = now.saturating_duration_since(self.last_display);
        if since.as_millis() * 100 <= self.interval.as_millis() * 95 {
            return None;
        }
        let elapsed_s =
            (now.saturating_duration_since(self.genesis).as_millis() as u64).div_ceil(1000);
        let tally = Tally::take(jobs, progress, &self.epochs, now, elapsed_s);
        let ms = since.as_millis() as u64;
        let per_sec = |now: u64, before: u64, scale: u64| {
            ((now - before) * 1000).checked_div(ms).unwrap_or(0) / scale
        };
        let rates = [0, 1, 2].map(|d| per_sec(tally.bytes[d], self.seen_bytes[d], 1024));
        let iops = [0, 1, 2].map(|d| per_sec(tally.ios[d], self.seen_ios[d], 1));
        self.seen_bytes = tally.bytes;
        self.seen_ios = tally.ios;
        self.last_display = now;
        if tally.running == 0 && tally.pending == 0 {
            return None;
        }
        let mut line = String::new();
        if self.newline_pending {
            self.newline_pending = false;
            self.last_len = 0;
            line.push('\n');
        }
        self.compose(&mut line, &tally, [rates, iops], elapsed_s, jobs);
        line.push('\r');
        match (self.newline_every, self.last_newline) {
            (Some(every), Some(last)) if now.saturating_duration_since(last) > every => {
                self.last_newline = Some(now);
                self.newline_pending = true;
            }
            (_, None) => self.last_newline = Some(now),
            _ => {}
        }
        Some(line)
    }

    /// Appends the line's text to `line`: the jobs and files running,
    /// their rate limits, and (once an ETA is known) the states, percent
    /// done, current rates (`[bytes/s per direction, IOPS per
    /// direction]`) and ETA, padded to cover a longer line before it.
    fn compose(
        &mut self,
        line: &mut String,
        tally: &Tally,
        [rates, iops]: [[u64; 3]; 2],
        elapsed_s: u64,
        jobs: &[LiveJob],
    ) {
        let (running, eta) = (tally.running, tally.eta);
        let start = line.len();
        *line += &format!("Jobs: {running} (f={})", tally.files);
        let binary = jobs.first().is_none_or(|j| j.binary);
        let sig_figs = jobs.first().map_or(4, |j| j.sig_figs);
        if tally.rate_bytes > 0 {
            *line += &format!(
                ", {}-{}",
                num2str(0, sig_figs, 1, binary, Unit::BytesPerSec),
                num2str(tally.rate_bytes, sig_figs, 1, binary, Unit::BytesPerSec)
            );
        } else if tally.rate_iops > 0 {
            *line += &format!(", 0-{} IOPS", tally.rate_iops);
        }
        if eta == UNKNOWN || running == 0 {
            return;
        }
        let pct = if (eta == 0 && !self.eta_good) || tally.ramping == running {
            "-.-%".to_string()
        } else {
            self.eta_good = true;
            let perc = if elapsed_s > 0 {
                elapsed_s as f64 / (elapsed_s + eta) as f64
            } else {
                0.0
            };
            format!("{:3.1}%", perc * 100.0)
        };
        *line += &format!(": [{}][{pct}]", condensed(&tally.states));
        let names = ['r', 'w', 't'];
        let shown: Vec<usize> = (0..3).filter(|&d| rates[d] > 0 || iops[d] > 0).collect();
        if !shown.is_empty() {
            let list = |f: &dyn Fn(usize) -> String| {
                shown
                    .iter()
                    .map(|&d| format!("{}={}", names[d], f(d)))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            *line += &format!(
                "[{}][{} IOPS]",
                list(&|d| num2str(rates[d], 4, 1024, binary, Unit::BytesPerSec)),
                list(&|d| num2str(iops[d], 4, 1, false, Unit::None))
            );
        }
        *line += &format!("[eta {}]", eta_text(eta));
        let len = line.len() - start;
        if len < self.last_len {
            *line += &" ".repeat(self.last_len - len);
        }
        self.last_len = len;
    }
}

impl Aggregate {
    /// Takes a sample of the jobs' bandwidth per direction when more than
    /// 500 ms have passed since the last one.
    fn sample(&mut self, genesis: Instant, now: Instant, progress: &[JobProgress]) {
        let last = *self.last.get_or_insert(genesis);
        let ms = now.saturating_duration_since(last).as_millis() as u64;
        if ms <= 500 {
            return;
        }
        let at = now.saturating_duration_since(genesis).as_millis() as u64;
        let bytes = progress.iter().fold([0u64; 3], |sum, p| {
            let (b, _) = p.totals();
            [sum[0] + b[0], sum[1] + b[1], sum[2] + b[2]]
        });
        for ((entries, now_bytes), seen) in self.entries.iter_mut().zip(bytes).zip(self.seen) {
            let kib = (now_bytes.saturating_sub(seen) * 1000 / ms) / 1024;
            entries.push((at, kib));
        }
        self.seen = bytes;
        self.last = Some(now);
    }
}

/// What the status line counts over the jobs at one display.
struct Tally {
    /// Jobs running (ramping and finishing ones included).
    running: usize,
    ramping: usize,
    /// Jobs still to start or setting up.
    pending: usize,
    /// Files of the running jobs.
    files: usize,
    /// The running jobs' rate limits, over the directions they do.
    rate_bytes: u64,
    rate_iops: u64,
    /// Completed bytes and I/Os per direction, over every job.
    bytes: [u64; 3],
    ios: [u64; 3],
    /// Each job's state letter, in order.
    states: String,
    /// The run's ETA in seconds, or UNKNOWN in its first 3 seconds.
    eta: u64,
}

impl Tally {
    /// Counts the jobs' states, files, limits and totals, and the ETA:
    /// the longest of the started jobs', plus each later group's (which
    /// wait for this one, so their times add up).
    fn take(
        jobs: &[LiveJob],
        progress: &[JobProgress],
        epochs: &[Option<Instant>],
        now: Instant,
        elapsed_s: u64,
    ) -> Tally {
        let mut t = Tally {
            running: 0,
            ramping: 0,
            pending: 0,
            files: 0,
            rate_bytes: 0,
            rate_iops: 0,
            bytes: [0; 3],
            ios: [0; 3],
            states: String::new(),
            eta: 0,
        };
        let mut eta_waiting = 0u64;
        let mut waiting_group = None;
        for ((cfg, p), epoch) in jobs.iter().zip(progress).zip(epochs) {
            let state = p.state();
            match state {
                State::Running | State::Finishing => t.running += 1,
                State::Ramp => {
                    t.running += 1;
                    t.ramping += 1;
                }
                State::Pending | State::SettingUp => t.pending += 1,
                _ => {}
            }
            if matches!(state, State::Running | State::Ramp | State::Finishing) {
                t.files += cfg.files;
                for d in cfg.directions().filter(|&d| d < 2) {
                    t.rate_bytes += cfg.rate_bytes[d];
                    t.rate_iops += cfg.rate_iops[d];
                }
            }
            let (b, n) = p.totals();
            for d in 0..3 {
                t.bytes[d] += b[d];
                t.ios[d] += n[d];
            }
            t.states.push(state_char(state, cfg));
            if elapsed_s >= 3 {
                let job_eta = job_eta(cfg, state, *epoch, now, b.iter().sum());
                if state == State::Pending {
                    if waiting_group != Some(cfg.group) {
                        waiting_group = Some(cfg.group);
                        eta_waiting += job_eta;
                    }
                } else {
                    t.eta = t.eta.max(job_eta);
                }
            }
        }
        t.eta = if elapsed_s >= 3 {
            t.eta + eta_waiting
        } else {
            UNKNOWN
        };
        t
    }
}

/// The letter a job shows in the status line.
fn state_char(state: State, cfg: &LiveJob) -> char {
    match state {
        State::Pending => 'P',
        State::SettingUp => 'I',
        State::Ramp => '/',
        State::Finishing => 'f',
        State::Done => '_',
        State::Failed => 'X',
        State::Killed => 'K',
        State::Running => {
            let [read, write, trim] = cfg.uses;
            let c = match (read, write) {
                _ if trim => 'd',
                (true, true) if cfg.read_percent == 100 => 'r',
                (true, true) if cfg.read_percent == 0 => 'w',
                (true, true) => 'm',
                (true, false) => 'r',
                _ => 'w',
            };
            if cfg.random {
                c
            } else {
                c.to_ascii_uppercase()
            }
        }
    }
}

/// `RRw` as `R(2),w(1)`.
fn condensed(states: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut chars = states.chars().peekable();
    while let Some(c) = chars.next() {
        let mut n = 1;
        while chars.peek() == Some(&c) {
            chars.next();
            n += 1;
        }
        out.push(format!("{c}({n})"));
    }
    out.join(",")
}

/// fio's best guess of a job's remaining seconds.
fn job_eta(cfg: &LiveJob, state: State, epoch: Option<Instant>, now: Instant, done: u64) -> u64 {
    // A job's clock starts at its ramp, so the ramp counts as runtime.
    let timeout = cfg.runtime.map_or(0, |r| (r + cfg.ramp).as_secs());
    let total = cfg.io_bytes;
    match state {
        State::Running | State::Ramp => {
            let elapsed = epoch.map_or(0, |e| {
                (now.saturating_duration_since(e).as_millis() as u64).div_ceil(1000)
            });
            let mut perc = if total > 0 {
                (done as f64 / total as f64).min(1.0)
            } else {
                0.0
            };
            if cfg.time_based {
                perc = if timeout > 0 {
                    perc.min(elapsed as f64 / timeout as f64)
                } else {
                    0.0
                };
            }
            let mut eta = if perc == 0.0 {
                timeout
            } else {
                ((elapsed as f64 * (1.0 / perc)) as u64).saturating_sub(elapsed)
            };
            if timeout > 0 && eta > timeout.saturating_sub(elapsed) {
                eta = timeout.saturating_sub(elapsed);
            }
            eta
        }
        State::Pending | State::SettingUp => {
            let t_eta = if timeout > 0 {
                timeout + cfg.startdelay.as_secs() + cfg.ramp.as_secs()
            } else {
                0
            };
            let rate: u64 = cfg.rate_bytes.iter().sum();
            let r_eta = (total.checked_div(rate).unwrap_or(0))
                + if rate > 0 {
                    cfg.startdelay.as_secs()
                } else {
                    0
                };
            match (r_eta, t_eta) {
                (0, t) => t,
                (r, 0) => r,
                (r, t) => r.min(t),
            }
        }
        _ => 0,
    }
}

/// `01d:02h:03m:04s`, days and hours only when needed.
fn eta_text(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    let mut out = String::new();
    if d > 0 {
        out += &format!("{d:02}d:");
    }
    if h > 0 || d > 0 {
        out += &format!("{h:02}h:");
    }
    out + &format!("{m:02}m:{s:02}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_and_run_strings_look_like_fio() {
        assert_eq!(eta_text(1), "00m:01s");
        assert_eq!(eta_text(3723), "01h:02m:03s");
        assert_eq!(eta_text(86400 + 123), "01d:00h:02m:03s");
        assert_eq!(condensed("RRw_"), "R(2),w(1),_(1)");
    }
}
