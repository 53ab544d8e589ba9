//! Steady-state detection (`steadystate`, `ss_dur`, `ss_ramp`): once a
//! second the run looks at each job's completed I/O, keeps the last
//! `ss_dur` one-second rates in a ring, and ends the job (or its whole
//! reporting group) when the rates have settled: their largest deviation
//! from the mean, or the slope of their least-squares line, is under the
//! limit. The window and its arithmetic are `result::steady`'s, which
//! the reports read.

use std::sync::atomic::Ordering;

use crate::result::steady::SteadyResult;
use crate::run::pacing::clock::{self, Nanos};
use crate::run::status::progress::{JobProgress, State};

/// The options' typed form lives with the window it is reported in.
pub use crate::result::steady::SteadyConfig;

/// How often the rates are sampled and the criterion checked (fio's
/// STEADYSTATE_MSEC).
pub const CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// fio's helper thread runs a timer that is due within its sleep accuracy
/// (1 ms): a check may come that much early, which decides whether a
/// sample on the second after ss_ramp already counts.
const EARLY: Nanos = 1_000_000;

/// What steady state reads of a job: its name (in the refusal), its
/// reporting group, its steadystate options and whether its group is
/// reported as one.
#[derive(Clone, Copy)]
pub struct SteadyJob<'a> {
    pub name: &'a str,
    pub group: u32,
    pub steady: Option<SteadyConfig>,
    pub group_reporting: bool,
}

/// fio rejects a job whose steady-state options (or their absence)
/// differ from those of an earlier job of its group.
pub fn check_groups(jobs: &[SteadyJob<'_>]) -> Result<(), crate::run::refusal::Refusal> {
    for (i, job) in jobs.iter().enumerate() {
        if jobs[..i]
            .iter()
            .any(|other| other.group == job.group && other.steady != job.steady)
        {
            return Err(crate::run::refusal::Refusal(format!(
                "job '{}': job rejected (as fio rejects it): steadystate options must be \
                 consistent within reporting groups",
                job.name
            )));
        }
    }
    Ok(())
}

/// One job as the checker follows it.
struct Watch {
    config: SteadyConfig,
    group: u32,
    group_reporting: bool,
    /// The job's stats epoch as last seen, and the rate sample's start.
    epoch: Nanos,
    prev_time: Nanos,
    prev_ios: u64,
    prev_bytes: u64,
    ramp_over: bool,
    attained: bool,
    /// The window, for the job that keeps its group's (the last of a
    /// reporting group, else every job).
    window: Option<SteadyResult>,
}

/// Follows the steady state of a group's jobs from the thread that
/// started them.
pub struct Checker {
    watches: Vec<Option<Watch>>,
    next: Nanos,
}

impl Checker {
    /// None when no job of the group asks for steady state. Checks fall
    /// on whole seconds since `run_start`, as fio's helper thread, started
    /// before any job is set up, keeps its one-second timer.
    pub fn new(jobs: &[SteadyJob<'_>], run_start: Nanos) -> Option<Self> {
        jobs.iter().any(|j| j.steady.is_some()).then(|| {
            let last_of_group = |i: usize| {
                jobs[i + 1..]
                    .iter()
                    .all(|later| later.steady.is_none() || later.group != jobs[i].group)
            };
            let watches = jobs
                .iter()
                .enumerate()
                .map(|(i, j)| {
                    j.steady.map(|config| Watch {
                        config,
                        group: j.group,
                        group_reporting: j.group_reporting,
                        epoch: 0,
                        prev_time: 0,
                        prev_ios: 0,
                        prev_bytes: 0,
                        ramp_over: config.ramp_us == 0,
                        attained: false,
                        window: (!j.group_reporting || last_of_group(i))
                            .then(|| SteadyResult::new(config)),
                    })
                })
                .collect();
            let every = CHECK_EVERY.as_nanos() as u64;
            let since = clock::now().saturating_sub(run_start);
            Checker {
                watches,
                next: run_start + (since / every + 1) * every,
            }
        })
    }

    /// Samples and checks every job when a second has passed since the
    /// last time.
    pub fn tick(&mut self, progress: &[JobProgress]) {
        let every = CHECK_EVERY.as_nanos() as u64;
        // A job's statistics (and this sampling) start over at its start
        // and at the end of its ramp_time; fio restarts its timers then.
        for (w, p) in self.watches.iter_mut().zip(progress) {
            let Some(w) = w else { continue };
            let epoch = p.epoch();
            if epoch != w.epoch {
                if w.epoch != 0 {
                    self.next = epoch + every;
                }
                w.epoch = epoch;
                w.prev_time = epoch;
                w.prev_ios = 0;
                w.prev_bytes = 0;
            }
        }
        let now = clock::now();
        if now + EARLY < self.next {
            return;
        }
        self.next += every;
        let mut prev_group = None;
        let (mut group_bw, mut group_iops, mut counted) = (0u64, 0u64, 0u32);
        for i in 0..self.watches.len() {
            let Some(w) = self.watches[i].as_mut() else {
                continue;
            };
            let p = &progress[i];
            let state = p.state();
            if w.attained
                || matches!(
                    state,
                    State::Pending
                        | State::SettingUp
                        | State::Finishing
                        | State::Done
                        | State::Failed
                        | State::Killed
                )
            {
                continue;
            }
            if !w.group_reporting || prev_group != Some(w.group) {
                (group_bw, group_iops, counted) = (0, 0, 0);
            }
            prev_group = Some(w.group);
            let now = clock::now();
            // Samples count from one second after ss_ramp.
            if !w.ramp_over && now.saturating_sub(w.epoch) / 1000 >= w.config.ramp_us + 1_000_000 {
                w.ramp_over = true;
            }
            let (bytes, ios) = p.totals();
            let (bytes, ios): (u64, u64) = (bytes.iter().sum(), ios.iter().sum());
            let ms = (now.saturating_sub(w.prev_time) / 1_000_000).max(1);
            w.prev_time = now;
            if w.ramp_over {
                group_bw += 1000 * bytes.saturating_sub(w.prev_bytes) / ms;
                group_iops += 1000 * ios.saturating_sub(w.prev_ios) / ms;
                counted += 1;
            }
            w.prev_ios = ios;
            w.prev_bytes = bytes;
            if counted == 0 {
                continue;
            }
            let Some(window) = w.window.as_mut() else {
                continue;
            };
            if !window.add(group_iops, group_bw) {
                continue;
            }
            window.attained = true;
            let (group, grouped) = (w.group, w.group_reporting);
            for (j, other) in self.watches.iter_mut().enumerate() {
                if let Some(o) = other
                    && (j == i || (grouped && o.group == group))
                {
                    o.attained = true;
                    progress[j].terminate.store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// How long until the next check is due.
    pub fn until_next(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.next.saturating_sub(clock::now() + EARLY))
    }

    /// Each job's steady state, to be attached to its result: the window
    /// kept for its group (a reporting group shows its last job's).
    pub fn results(self) -> Vec<Option<SteadyResult>> {
        self.watches
            .into_iter()
            .map(|w| {
                w.and_then(|w| {
                    w.window.map(|mut r| {
                        r.attained |= w.attained;
                        r
                    })
                })
            })
            .collect()
    }
}
