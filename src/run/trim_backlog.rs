//! trim_percentage, trim_backlog, trim_backlog_batch and trim_verify_zero:
//! fio's "trim some written blocks, then verify them" mode, as fio 3.33
//! really runs it.
//!
//! fio draws, for each write it logs for verification, whether that block
//! joins a list of blocks to trim (one draw from its own trim generator
//! per logged write). With trim_backlog set, before fetching an I/O it
//! issues a trim from that list whenever the count of logged, unchecked
//! writes is a multiple of the backlog. But fio 3.33 only lets a job
//! issue trims when its `rw` has trims in it, and the jobs that verify
//! (ferrio runs verify for jobs that only write) have none: fio's engine
//! check then fails an assertion and the job's process dies of SIGABRT on
//! that first backlog trim. Its parent reports what the dead job left in
//! shared memory: the I/Os issued and their latencies, but no bytes,
//! runtime, rates or CPU use (those are filled in when a job ends), and
//! no verify pass. ferrio ends the job at the same point and reports the
//! same.
//!
//! When the backlog never comes due (no trim_backlog, or a backlog the
//! writes never reach while entries wait), fio issues no trim at all and
//! only notes, when a loop's writes end, how many chosen blocks were left
//! over; its verify pass then checks every block as usual. The trim
//! itself, trim_backlog_batch and trim_verify_zero therefore never change
//! what fio 3.33 does for these jobs, and ferrio needs nothing more.

use std::sync::atomic::{AtomicBool, Ordering};

use super::config::Refusal;
use super::fio_rand::{FioRng, Purpose, Seeds};
use crate::plan::JobSpec;

/// The signal fio's job dies of when its assertion fails (SIGABRT).
pub const ABORT_SIGNAL: i32 = 6;

/// Set once a job died as fio's would: a dead job never closed its files,
/// and fio notes at exit that its table of open files is not empty.
static ANY_DIED: AtomicBool = AtomicBool::new(false);

/// fio's note at exit after a job died, if one did.
pub fn exit_note() -> Option<&'static str> {
    ANY_DIED
        .load(Ordering::Relaxed)
        .then_some("fio: file hash not empty on exit")
}

/// The engines that finish each I/O as they issue it.
const SYNC_ENGINES: &[&str] = &["psync", "sync", "pvsync", "pvsync2", "vsync"];

/// A verifying writer's trim settings, when they can change anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrimSpec {
    /// trim_percentage: the share of logged writes chosen for trimming.
    pub percent: u64,
    /// trim_backlog: trims come due each time the unchecked writes reach
    /// a multiple of this (0: never).
    pub backlog: u64,
}

impl TrimSpec {
    /// The settings of a job whose writes are logged for verification
    /// (`logs_writes`), or None when they cannot matter: no percentage,
    /// or nothing logged to draw from. Refuses the combinations where
    /// when fio's trim comes due depends on things ferrio does not model.
    pub fn from_job(job: &JobSpec, logs_writes: bool) -> Result<Option<Self>, Refusal> {
        let percent = job.num("trim_percentage").unwrap_or(0);
        if percent == 0 || !logs_writes {
            return Ok(None);
        }
        let refuse = |why: &str| {
            Err(Refusal(format!(
                "job '{}': trim_percentage {why} is not run by ferrio yet (run it with fio)",
                job.name
            )))
        };
        // fio's write loop keeps going while chosen blocks wait, past the
        // job's size when the files have room left, and a backlog read
        // changes both the count and the last direction the rule looks at.
        if job.setting("io_size").is_some() || job.setting("number_ios").is_some() {
            return refuse("with io_size or number_ios");
        }
        if job.flag("time_based") || job.flag("norandommap") {
            return refuse("with time_based or norandommap");
        }
        if job.num("verify_backlog").unwrap_or(0) > 0 || job.flag("verify_only") {
            return refuse("with verify_backlog or verify_only");
        }
        // With I/O in flight, whether the last completion fio saw was a
        // write when the backlog comes due is a matter of timing (the
        // synchronous engines complete each I/O before the next).
        if job.num("iodepth").unwrap_or(1) > 1 && !SYNC_ENGINES.contains(&job.engine.as_str()) {
            return refuse("with iodepth above 1 on an asynchronous engine");
        }
        Ok(Some(TrimSpec {
            percent: percent.min(100),
            backlog: job.num("trim_backlog").unwrap_or(0),
        }))
    }
}

/// One job's trim list, as a count: which blocks are on it never
/// matters, since fio 3.33 cannot trim them in a job that only writes.
pub struct TrimBacklog {
    spec: TrimSpec,
    rng: FioRng,
    /// A draw at or below this chooses the block (fio's
    /// `rand_max / 100 * percentage`).
    threshold: u64,
    /// Blocks chosen and still waiting (fio's trim_entries).
    entries: u64,
}

impl TrimBacklog {
    /// `wide`: whether the job's generators are 64-bit.
    pub fn new(spec: TrimSpec, seeds: &Seeds, wide: bool) -> Self {
        let rng = seeds.generator(Purpose::Trim, wide);
        let threshold = (rng.max() / 100) * spec.percent;
        TrimBacklog {
            spec,
            rng,
            threshold,
            entries: 0,
        }
    }

    /// fio reseeds its generators at each loop when the job repeats its
    /// randomness (randrepeat).
    pub fn start_over(&mut self, seeds: &Seeds, wide: bool) {
        *self = TrimBacklog::new(self.spec, seeds, wide);
    }

    /// A write was logged for verification: draws whether it joins the
    /// trim list.
    #[inline]
    pub fn logged(&mut self) {
        if self.rng.draw() <= self.threshold {
            self.entries += 1;
        }
    }

    /// Whether fio would issue a backlog trim before its next I/O, with
    /// `unchecked` logged writes not yet read back (the last completion
    /// was a write: the job only writes, and each write completes before
    /// the next is fetched).
    #[inline]
    pub fn due(&self, unchecked: usize) -> bool {
        self.spec.backlog > 0
            && self.entries > 0
            && (unchecked as u64).is_multiple_of(self.spec.backlog)
    }

    /// A loop's writes are over, `unchecked` logged writes wait for the
    /// verify pass. With blocks chosen, fio's write loop asks for one more
    /// I/O, and the backlog may come due there: true when the job dies of
    /// it. Otherwise fio notes the blocks left waiting, which its verify
    /// pass then takes off the list.
    pub fn writes_over(&mut self, unchecked: usize) -> bool {
        if self.due(unchecked) {
            return true;
        }
        let left = std::mem::take(&mut self.entries);
        if left > 0 {
            eprintln!("fio: {left} trim entries leaked?");
        }
        false
    }
}

/// What fio's parent reports about a job whose process died of `signal`:
/// its message, and the numbers the job never got to fill in (bytes,
/// runtimes, rate samples, CPU use) left at zero.
pub fn died(result: &mut super::result::JobResult, signal: i32) {
    eprintln!(
        "ferrio: job '{}': fio 3.33 fails an assertion on a trim_backlog trim in a job whose rw has no trims; the job ends here as fio's does",
        result.name
    );
    eprintln!("fio: pid={}, got signal={signal}", result.pid);
    ANY_DIED.store(true, Ordering::Relaxed);
    for d in &mut result.dirs {
        d.bytes = 0;
        d.runtime_ms = 0;
        d.bw = Default::default();
        d.iops = Default::default();
        d.bw_series.clear();
        d.iops_series.clear();
    }
    result.runtime = std::time::Duration::ZERO;
    result.cpu = Default::default();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::fio_rand::SeedOptions;

    fn backlog(percent: u64, every: u64) -> TrimBacklog {
        let seeds = Seeds::new(SeedOptions {
            randseed: 0x89,
            randseed_set: false,
            randrepeat: true,
            allrandrepeat: false,
            thread_number: 1,
        });
        let spec = TrimSpec {
            percent,
            backlog: every,
        };
        TrimBacklog::new(spec, &seeds, false)
    }

    #[test]
    fn every_block_is_chosen_at_100_percent() {
        let mut b = backlog(100, 8);
        for _ in 0..64 {
            b.logged();
        }
        assert!(b.due(64));
        assert!(!b.due(63));
        assert!(b.writes_over(64));
        assert!(!b.writes_over(63));
        assert!(!b.due(64));
    }

    #[test]
    fn no_backlog_never_comes_due() {
        let mut b = backlog(50, 0);
        for _ in 0..64 {
            b.logged();
        }
        assert!(!b.due(0));
        assert!(!b.writes_over(64));
    }
}
