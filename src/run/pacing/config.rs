//! The pacing and timing parts of a job's config: when its I/O goes
//! (rate caps and floors, flows, think time, latency goals, steady
//! state) and when the job starts and ends (delays, runtime, and the
//! amount of I/O that ends it).

use std::time::Duration;

use crate::engine::{self, caps};
use crate::options::Value;
use crate::plan::JobSpec;
use crate::result::steady::SteadyConfig;
use crate::run::pacing::flow::FlowMember;
use crate::run::pacing::rate::Floors;
use crate::run::refusal::Refusal;
use crate::run::storage::config::FilesConfig;
use crate::run::workload::{WorkloadConfig, per_dir};

/// When the job's I/O may go.
#[derive(Debug, Clone)]
pub struct PacingConfig {
    /// Per-direction caps (0: none): bytes per second and I/Os per second.
    pub rate_bytes: [u64; 3],
    pub rate_iops: [u64; 3],
    /// rate_min and rate_iops_min, measured over rate_cycle.
    pub rate_floors: Floors,
    /// rate_process=poisson: exponential gaps between rate-capped I/Os.
    pub rate_poisson: bool,
    /// rate_ignore_thinktime: time spent thinking does not count against
    /// the rate.
    pub rate_ignore_thinktime: bool,
    /// The flow this job keeps pace with (set once every job is known),
    /// and how long it sleeps when held back.
    pub flow: Option<FlowMember>,
    pub flow_sleep: Duration,
    /// latency_target (with its window, percentile and latency_run): the
    /// search for the deepest queue that meets it.
    pub latency_target: Option<LatencyGoal>,
    /// max_latency per direction, in ns (0: none).
    pub max_latency_ns: [u64; 3],
    /// steadystate with a non-zero ss_dur: end the job once it settles.
    pub steady: Option<SteadyConfig>,
    /// Pause after every `think_blocks` I/Os: spin this long, then sleep.
    pub think_spin: Duration,
    pub think_sleep: Duration,
    pub think_blocks: u64,
    /// thinktime_blocks_type=issue: the blocks are counted as issued
    /// rather than completed.
    pub think_counts_issues: bool,
    /// thinktime_iotime: also pause once this long has passed since the
    /// last pause (the first period starts at the job's start and includes
    /// one think time, as in fio).
    pub think_iotime: Duration,
    /// With thinktime_iotime, fio counts blocks only when thinktime_blocks
    /// was set explicitly (its default of 1 would pause after every I/O).
    pub think_blocks_set: bool,
}

impl PacingConfig {
    /// Reads the pacing options; latency_target's search aims at the
    /// report's `latency_percentile`.
    pub fn from_spec(job: &JobSpec, kind: &engine::Kind, latency_percentile: f64) -> Self {
        // cpuio thinks after each of its I/Os by itself, whatever the
        // job's thinktime says (fio's engine overrides it).
        let (think, think_spin, think_blocks) = if kind.has(caps::OWN_THINK_TIME) {
            (0, 0, 1)
        } else {
            let think = job.num("thinktime").unwrap_or(0);
            let spin = job.num("thinktime_spin").unwrap_or(0).min(think);
            (think, spin, job.num("thinktime_blocks").unwrap_or(1).max(1))
        };
        PacingConfig {
            rate_bytes: per_dir(job, "rate"),
            rate_iops: per_dir(job, "rate_iops"),
            rate_floors: Floors {
                bytes: per_dir(job, "rate_min"),
                iops: per_dir(job, "rate_iops_min"),
                cycle_ms: job.num("rate_cycle").unwrap_or(1000),
            },
            rate_ignore_thinktime: job.flag("rate_ignore_thinktime"),
            rate_poisson: matches!(
                job.value("rate_process"),
                Some(Value::Word {
                    word: "poisson",
                    ..
                })
            ),
            flow: None,
            flow_sleep: Duration::from_micros(job.num("flow_sleep").unwrap_or(0)),
            latency_target: match job.num("latency_target").unwrap_or(0) {
                0 => None,
                us => Some(LatencyGoal {
                    target_ns: us.saturating_mul(1000),
                    window_ns: job.num("latency_window").unwrap_or(0).saturating_mul(1000),
                    percentile: latency_percentile,
                    keep_running: job.flag("latency_run"),
                }),
            },
            max_latency_ns: per_dir(job, "max_latency").map(|us| us.saturating_mul(1000)),
            steady: steady(job),
            think_spin: Duration::from_micros(think_spin),
            think_sleep: Duration::from_micros(think - think_spin),
            think_blocks,
            think_counts_issues: matches!(
                job.value("thinktime_blocks_type"),
                Some(Value::Word { word: "issue", .. })
            ),
            think_iotime: Duration::from_micros(job.num("thinktime_iotime").unwrap_or(0)),
            think_blocks_set: job.setting("thinktime_blocks").is_some(),
        }
    }

    /// Whether any rate cap applies.
    pub fn rate_capped(&self) -> bool {
        self.rate_bytes
            .iter()
            .chain(&self.rate_iops)
            .any(|&r| r > 0)
    }

    /// The earliest time, counted from the job's start, at which the next
    /// I/O of a direction may be issued under its rate caps: when the I/O
    /// done so far has used its share of time (fio's linear rate process).
    pub fn rate_due(&self, dir: usize, ios: u64, bytes: u64) -> Option<Duration> {
        let by_bytes =
            (self.rate_bytes[dir] > 0).then(|| bytes as f64 / self.rate_bytes[dir] as f64);
        let by_ios = (self.rate_iops[dir] > 0).then(|| ios as f64 / self.rate_iops[dir] as f64);
        match (by_bytes, by_ios) {
            (None, None) => None,
            (a, b) => Some(Duration::from_secs_f64(
                a.unwrap_or(0.0).max(b.unwrap_or(0.0)),
            )),
        }
    }
}

/// When the job starts, and what ends it: its runtime, its bytes or its
/// number of I/Os.
#[derive(Debug, Clone)]
pub struct TimingConfig {
    /// Wait this long before starting.
    pub startdelay: Duration,
    /// Run this long before measuring (ramp_time); runtime counts after it.
    pub ramp: Duration,
    /// Stop after this long (time-based jobs loop over the file until then).
    pub runtime: Option<Duration>,
    pub time_based: bool,
    /// Bytes of I/O to do before the job ends (io_size times loops).
    pub io_bytes: u64,
    /// Bytes of one pass over the files (io_size, or the whole region).
    pub pass_bytes: u64,
    /// Stop after this many I/Os, if set (number_ios, times loops; never
    /// for a time-based job).
    pub number_ios: Option<u64>,
    /// Passes over the files (loops), and whether io_size was given, which
    /// decide whether a pass that ran out of offsets is followed by another.
    pub loops: u64,
    pub io_size_given: bool,
}

impl TimingConfig {
    /// Reads the job's timing and its budget of I/O over `files`, whose
    /// regions hold `total` bytes together; refuses a time-based job
    /// without a runtime.
    pub fn from_spec(
        job: &JobSpec,
        kind: &engine::Kind,
        workload: &WorkloadConfig,
        files: &FilesConfig,
        total: u64,
        zoned: bool,
    ) -> Result<Self, Refusal> {
        let runtime = job
            .num("runtime")
            .filter(|&us| us > 0)
            .map(Duration::from_micros);
        let time_based = job.flag("time_based");
        if time_based && runtime.is_none() {
            return Err(Refusal(format!(
                "job '{}': time_based needs a runtime",
                job.name
            )));
        }
        let loops = job.num("loops").unwrap_or(1).max(1);
        let io_size = job.setting("io_size").and_then(|s| match s.value {
            Value::Nums(v) if v[0] > 0 => Some(v[0]),
            _ => None,
        });
        // Without io_size, fio's budget is the files' regions together
        // (its size, capped at what the files hold), not rounded to
        // blocks: a job whose offsets never run out (reads and writes
        // each with their own position, norandommap) issues the I/O
        // that crosses it. One whose offsets do run out stops at each
        // file's last whole block anyway.
        let whole = files
            .regions
            .iter()
            .fold(0u64, |sum, &r| sum.saturating_add(r))
            .min(total);
        let whole = if zoned { total } else { whole };
        let trimwrite = workload.pattern.trimwrite;
        // trimwrite writes every block it trims: twice the bytes.
        let pass_bytes = io_size
            .unwrap_or(whole)
            .max(1)
            .saturating_mul(if trimwrite { 2 } else { 1 });
        let io_bytes = pass_bytes.saturating_mul(loops);
        // An engine that moves no data never gets through any size: such
        // a job runs until its runtime or number_ios ends it, or forever.
        // A replay goes on until its log is done; its size is the log's.
        let (pass_bytes, io_bytes) = match &workload.replay {
            Some(log) => (u64::MAX, log.bytes),
            None if kind.has(caps::NO_IO) => (u64::MAX, u64::MAX),
            None => (pass_bytes, io_bytes),
        };
        let startdelay = match job.value("startdelay") {
            Some(Value::Nums([lo, hi, _])) if hi > lo => {
                // A range: each job picks its own delay within it.
                lo + crate::run::place::offsets::Rng::new(job.number as u64).below(hi - lo + 1)
            }
            Some(Value::Nums(v)) => v[0],
            _ => 0,
        };
        Ok(TimingConfig {
            startdelay: Duration::from_micros(startdelay),
            ramp: Duration::from_micros(job.num("ramp_time").unwrap_or(0)),
            runtime,
            time_based,
            io_bytes,
            pass_bytes,
            // fio's count covers all of the job's loops, twice over for
            // trimwrite (a trim and a write per block); a time-based job
            // runs its whole runtime whatever it says. (fio doubles it
            // again at each new loop, which matters only when the count
            // ends a loop early, and then ferrio ends the job there.)
            number_ios: job
                .num("number_ios")
                .filter(|&n| n > 0 && !time_based)
                .map(|n| n.saturating_mul(loops) * if trimwrite { 2 } else { 1 }),
            loops,
            io_size_given: io_size.is_some(),
        })
    }
}

/// `latency_target` and the options that shape its search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyGoal {
    pub target_ns: u64,
    pub window_ns: u64,
    pub percentile: f64,
    pub keep_running: bool,
}

/// The steady-state criterion, when `ss_dur` turns it on.
fn steady(job: &JobSpec) -> Option<SteadyConfig> {
    let dur = job.num("steadystate_duration").unwrap_or(0);
    if dur < 1_000_000 {
        return None;
    }
    let Some(Value::Word { word, tail }) = job.value("steadystate") else {
        return None;
    };
    let ramp = job.num("steadystate_ramp_time").unwrap_or(0);
    SteadyConfig::new(word, tail.as_deref()?, dur, ramp)
}
