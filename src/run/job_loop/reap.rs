//! Reaping: completions from an asynchronous engine, batch by batch,
//! until the queue has drained far enough; and the last wait for what
//! is still in flight once the loop is over.

use super::complete::{Finishing, complete, finishing, note_later_error};
use super::sync::sync_done;
use super::{JobLoop, Next, Phase, errno};
use crate::engine::{Completion, Dir, FioFailure};
use crate::run::pacing::clock::Nanos;

impl JobLoop<'_, '_> {
    /// Reap: at least one when the queue is full or nothing more will
    /// be issued, then on until the queue has drained to iodepth_low.
    #[inline]
    pub(super) fn reap(&mut self, depth_limit: usize) -> Phase {
        let cfg = self.cfg;
        let full = self.in_flight + self.unsubmitted.len() >= depth_limit
            || (self.traits.may_be_busy && self.eng.busy());
        loop {
            // At the end fio waits for everything in flight in one call.
            let stopping = !self.may_issue();
            let ending = !self.draining && stopping;
            if stopping && self.progress.vstate.asked() {
                self.answer_trigger();
            }
            let in_flight = self.in_flight;
            let (min, max) = if ending {
                (in_flight, in_flight)
            } else {
                (
                    cfg.depth.batch_complete_min.min(in_flight).max(1),
                    cfg.depth.batch_complete_max,
                )
            };
            self.done.clear();
            if let Err(e) = self.eng.reap(min.min(in_flight), max, &mut self.done) {
                match e.get_ref().and_then(|i| i.downcast_ref::<FioFailure>()) {
                    Some(f) => self.result.fail(f.code, f.func, f.detail.clone()),
                    None => {
                        let text = format!("fio: reaping I/O failed: {e}");
                        self.result.fail(errno(&e), "get_events", text);
                    }
                }
                return Err(Next::End);
            }
            // One clock read per reaped batch.
            self.clock = self.ticker.read();
            if self.clock >= self.ramp_end {
                self.result.reaped(self.done.len());
            }
            // All of them are out of the engine, even if an error stops
            // the accounting part way.
            self.in_flight -= self.done.len();
            self.complete_batch()?;
            self.depth.set(self.clock, self.in_flight);
            self.files_busy = false;
            let draining = self.draining || !self.may_issue();
            let keep_reaping = draining || (full && self.in_flight > cfg.depth.iodepth_low);
            if self.in_flight == 0 || !keep_reaping {
                return Ok(());
            }
        }
    }

    /// Finishes each I/O of the batch just reaped.
    #[inline]
    fn complete_batch(&mut self) -> Phase {
        let epoch = if self.replay_over {
            Nanos::MAX
        } else {
            self.ramp_end
        };
        let mut failed_in_batch = false;
        for i in 0..self.done.len() {
            let c = self.done[i];
            if failed_in_batch {
                // An earlier completion of this batch ended the job.
                self.after_the_end(c, epoch);
                continue;
            }
            failed_in_batch = !self.complete_one(c, epoch)?;
        }
        if failed_in_batch {
            return Err(Next::End);
        }
        Ok(())
    }

    /// Finishes one reaped I/O (or periodic sync); false when it ended
    /// the job, which the rest of the batch only notes.
    #[inline]
    fn complete_one(&mut self, c: Completion, epoch: Nanos) -> Phase<bool> {
        let slot = &mut self.slots[c.slot];
        slot.flying = false;
        if let Some(kind) = slot.sync.take() {
            self.free.push(c.slot);
            if !sync_done(&mut self.result, slot, kind, c.result, self.clock, epoch) {
                return Err(Next::End);
            }
            self.last_was_sync = true;
            return Ok(true);
        }
        self.last_was_read = slot.dir == Dir::Read;
        self.last_was_sync = false;
        // A short transfer short of the file's end: fio hands the
        // engine the rest before any new I/O.
        if slot.shortened(c.result, &mut self.result) && slot.offset < self.real_sizes[slot.file] {
            self.requeued.push(c.slot);
            return Ok(true);
        }
        let file = slot.file;
        self.release(c.slot, file);
        let slot = &mut self.slots[c.slot];
        let mut done = finishing!(self);
        Ok(done.finish(
            self.cfg,
            slot,
            c.result,
            self.clock,
            epoch,
            "io_u_queued_complete",
        ))
    }

    /// Wait for anything still in flight (an error or a stop ended the
    /// job). As fio's cleanup after an error does, the first reap takes
    /// only what has finished already; each reap counts in the job's
    /// completion batches.
    pub(super) fn drain(&mut self) {
        let mut min = if self.result.error.is_some() {
            0
        } else {
            self.in_flight
        };
        while self.in_flight > 0 && !self.eng.abandoned() {
            self.done.clear();
            if self.eng.reap(min, self.in_flight, &mut self.done).is_err() {
                break;
            }
            self.in_flight -= self.done.len().min(self.in_flight);
            min = self.in_flight;
            if self.clock >= self.ramp_end {
                self.result.reaped(self.done.len());
            }
            self.clock = self.ticker.read();
            let epoch = if self.replay_over {
                Nanos::MAX
            } else {
                self.ramp_end
            };
            for i in 0..self.done.len() {
                let c = self.done[i];
                self.after_the_end(c, epoch);
            }
        }
    }

    /// An I/O (or sync) that completed once an error had ended the job:
    /// fio still accounts it when it succeeded (its cleanup reaps the I/O
    /// in flight as any other), and logs its error line when it failed.
    fn after_the_end(&mut self, c: Completion, epoch: Nanos) {
        let slot = &mut self.slots[c.slot];
        slot.flying = false;
        if c.result < 0 {
            slot.sync = None;
            note_later_error(self.cfg, &mut self.result, slot, c.result);
            return;
        }
        match slot.sync.take() {
            Some(kind) => {
                sync_done(&mut self.result, slot, kind, c.result, self.clock, epoch);
            }
            None => {
                let records = &mut self.records;
                complete(
                    self.cfg,
                    &mut self.result,
                    records,
                    slot,
                    c.result,
                    self.clock,
                    epoch,
                );
            }
        }
    }

    /// An I/O of slot `index` on `file` has ended for good: its file may
    /// close (openfiles) and its slot takes a new I/O.
    #[inline(always)]
    pub(super) fn release(&mut self, index: usize, file: usize) {
        if let Some(l) = &mut self.lazy {
            l.ended(self.eng.as_mut(), &mut self.files, file, &mut self.chooser);
        }
        self.free.push(index);
    }
}
