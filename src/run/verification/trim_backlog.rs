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
//! writes never reach while entries wait, or only right after a
//! verify_backlog read, which holds trims back), fio issues no trim at
//! all and only notes, when a loop's writes end, how many chosen blocks
//! were left over (a block read back by verify_backlog leaves the list);
//! its verify pass then checks every block as usual. The trim
//! itself, trim_backlog_batch and trim_verify_zero therefore never change
//! what fio 3.33 does for these jobs, and ferrio needs nothing more.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::rand::fio_rand::{FioRng, Purpose, Seeds};
use crate::run::verification::config::TrimSpec;
use crate::run::verification::verifying::Verifying;

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

/// One job's trim list. fio 3.33 never trims its blocks in a job that
/// only writes; what matters is how many wait, and which, as a block read
/// back by verify_backlog leaves the list.
pub struct TrimBacklog {
    spec: TrimSpec,
    rng: FioRng,
    /// A draw at or below this chooses the block (fio's
    /// `rand_max / 100 * percentage`).
    threshold: u64,
    /// Whether each logged piece of the current loop is on the list.
    chosen: Vec<bool>,
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
            chosen: Vec::new(),
            entries: 0,
        }
    }

    /// fio reseeds its generators at each loop when the job repeats its
    /// randomness (randrepeat).
    pub fn start_over(&mut self, seeds: &Seeds, wide: bool) {
        let chosen = std::mem::take(&mut self.chosen);
        *self = TrimBacklog::new(self.spec, seeds, wide);
        self.chosen = chosen;
    }

    /// A write was logged for verification as `piece`: draws whether it
    /// joins the trim list.
    #[inline]
    pub fn logged(&mut self, piece: usize) {
        let chosen = self.rng.draw() <= self.threshold;
        if self.chosen.len() <= piece {
            self.chosen.resize(piece + 1, false);
        }
        self.chosen[piece] = chosen;
        self.entries += u64::from(chosen);
    }

    /// `piece` was taken to be read back, or dropped from the log as
    /// overwritten: it leaves the trim list.
    #[inline]
    pub fn off_list(&mut self, piece: usize) {
        if let Some(c) = self.chosen.get_mut(piece)
            && std::mem::take(c)
        {
            self.entries -= 1;
        }
    }

    /// Whether fio would issue a backlog trim before its next I/O, with
    /// `unchecked` logged writes not yet read back, and `last_was_read`
    /// the direction of the last I/O (each completes before the next is
    /// fetched, so it is the last completion fio saw).
    #[inline]
    pub fn due(&self, unchecked: usize, last_was_read: bool) -> bool {
        self.spec.backlog > 0
            && self.entries > 0
            && !last_was_read
            && (unchecked as u64).is_multiple_of(self.spec.backlog)
    }

    /// A loop's writes are over; `v` holds the logged writes not read
    /// back yet. With blocks chosen, fio's write loop goes on asking for
    /// I/O: verify_backlog reads while a batch is due (each taking its
    /// block off the list), then a trim if the backlog is due: true when
    /// the job dies of it. Otherwise fio notes the blocks left waiting,
    /// which its verify pass then takes off the list. (ferrio's verify
    /// pass issues those same backlog reads.)
    pub fn writes_over(&mut self, v: &Verifying<'_>, mut last_was_read: bool) -> bool {
        let spec = v.spec;
        let mut unchecked = v.unchecked() as u64;
        let mut batch = v.batch_left();
        let mut pending = v.pending();
        while self.entries > 0 {
            let backlog = spec.backlog > 0 && spec.read_back && unchecked > 0;
            if backlog && batch == 0 && unchecked.is_multiple_of(spec.backlog) && !last_was_read {
                batch = spec.backlog_batch;
            }
            if backlog
                && batch > 0
                && let Some(piece) = pending.next()
            {
                batch -= 1;
                unchecked -= 1;
                last_was_read = true;
                self.off_list(piece);
                continue;
            }
            if self.due(unchecked as usize, last_was_read) {
                return true;
            }
            break;
        }
        let left = std::mem::take(&mut self.entries);
        if left > 0 {
            eprintln!("fio: {left} trim entries leaked?");
        }
        self.chosen.clear();
        false
    }
}

/// What fio's parent reports about a job whose process died of `signal`:
/// its message, and the numbers the job never got to fill in (bytes,
/// runtimes, rate samples, CPU use) left at zero.
pub fn died(result: &mut crate::result::JobResult, signal: i32) {
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
    use crate::rand::fio_rand::SeedOptions;

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
        for piece in 0..64 {
            b.logged(piece);
        }
        assert!(b.due(64, false));
        assert!(!b.due(64, true));
        assert!(!b.due(63, false));
        b.off_list(3);
        b.off_list(3);
        assert_eq!(b.entries, 63);
    }

    #[test]
    fn no_backlog_never_comes_due() {
        let mut b = backlog(50, 0);
        for piece in 0..64 {
            b.logged(piece);
        }
        assert!(b.entries > 0);
        assert!(!b.due(0, false));
    }
}
