//! The scheduling part of a job's config: the job's thread (ids, CPUs,
//! priorities), which job it waits for, its I/O priorities, and which
//! jobs its end stops.

use std::sync::Arc;

use crate::engine::{self, caps};
use crate::options::Value;
use crate::plan::JobSpec;
use crate::run::place::priority::CmdPrio;
use crate::run::refusal::Refusal;
use crate::run::workload::Pattern;
use crate::sys::sched::ThreadSetup;

/// How the job is scheduled among the others.
#[derive(Debug, Clone)]
pub struct SchedulingConfig {
    /// ids, CPUs, priorities and commands applied to the job's thread.
    pub thread_setup: ThreadSetup,
    /// The job's own I/O priority (prio/prioclass), and which I/Os are
    /// raised above it (cmdprio_*).
    pub default_ioprio: u16,
    pub cmdprio: Option<Arc<CmdPrio>>,
    /// Run as a thread (fio's `thread`) rather than a process: only the
    /// `Starting` line tells the difference.
    pub thread: bool,
    /// The name of the job this one waits for (wait_for): it starts once
    /// every job of that name has ended.
    pub wait_for: Option<String>,
    /// When this job ends, stop other jobs as `exit_what` says. fio's
    /// `exitall` is one switch for the whole run: set in any job, it
    /// applies to every job's end ([`super::prepare`] spreads it).
    pub exitall: bool,
    /// When this job fails, stop other jobs as `exit_what` says.
    pub exitall_on_error: bool,
    pub exit_what: ExitWhat,
}

impl SchedulingConfig {
    /// Reads the thread's setup and the I/O priorities; refuses cmdprio
    /// options the engine's init would fail on.
    pub fn from_spec(
        job: &JobSpec,
        kind: &engine::Kind,
        pattern: &Pattern,
    ) -> Result<Self, Refusal> {
        let thread_setup = ThreadSetup::from_job(job, job.number.saturating_sub(1) as usize);
        let default_ioprio = thread_setup.default_ioprio();
        let cmdprio = if kind.has(caps::KERNEL_AIO) {
            CmdPrio::from_job(job, default_ioprio, pattern.read, pattern.write)
                .map_err(|e| Refusal(format!("{e}\nfio: io engine {} init failed.", job.engine)))?
        } else {
            None
        };
        Ok(SchedulingConfig {
            thread_setup,
            default_ioprio,
            cmdprio: cmdprio.map(Arc::new),
            thread: job.flag("thread"),
            wait_for: match job.value("wait_for") {
                Some(Value::Text(t)) if !t.is_empty() => Some(t.clone()),
                _ => None,
            },
            exitall: job.flag("exitall"),
            exitall_on_error: job.flag("exitall_on_error"),
            exit_what: match job.value("exit_what") {
                Some(Value::Word { word: "all", .. }) => ExitWhat::All,
                Some(Value::Word {
                    word: "stonewall", ..
                }) => ExitWhat::Stonewall,
                _ => ExitWhat::Group,
            },
        })
    }
}

/// Which jobs a job's end stops (fio's `exit_what`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitWhat {
    /// The jobs of its group.
    Group,
    /// The jobs running now (in ferrio, which runs one group at a
    /// time, its group's).
    Stonewall,
    /// The running jobs, and every job still to start, which then never
    /// does.
    All,
}
