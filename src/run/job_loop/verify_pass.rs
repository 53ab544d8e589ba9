//! The read-back pass over a verifying job's written blocks: between
//! loops and after the writes, `iodepth` reads at a time.

use super::complete::{complete, settle, verify_failed};
use super::slots::Slot;
use super::submit::submit;
use super::{JobLoop, Records, Stops, errno};
use crate::engine::caps;
use crate::engine::{Completion, Dir, Engine, Queued, Request};
use crate::result::JobResult;
use crate::run::config::JobConfig;
use crate::run::pacing::clock::{self, LoopClock, Nanos};
use crate::run::records::iolog::IoLogWriter;
use crate::run::verification::verifying::Verifying;
use crate::verify::Written;

impl JobLoop<'_, '_> {
    /// Reads `rest` back (blocks of the job's verify log) and checks it:
    /// the one place the loop lends its state to a `Pass`.
    pub(super) fn read_back(&mut self, rest: &[Written]) {
        let Some(v) = &mut self.verifying else {
            return;
        };
        let mut pass = Pass {
            cfg: self.cfg,
            eng: self.eng.as_mut(),
            files: &self.files,
            slots: &mut self.slots,
            result: &mut self.result,
            records: &mut self.records,
            epoch: self.ramp_end,
            deadline: self.deadline,
            counts_each_io: self.traits.counts_each_io,
            counts_submits: self.traits.counts_submits,
            iolog: &mut self.iolog,
        };
        pass.check_all(v, rest, self.stop);
    }
}

/// The read-back pass's own queue: its free slots, the reads queued,
/// submitted and reaped, and the next block to read.
struct Reads {
    free: Vec<usize>,
    unsubmitted: Vec<usize>,
    done: Vec<Completion>,
    next: usize,
    in_flight: usize,
    end: usize,
    clock: Nanos,
    precise: LoopClock,
    /// The function fio's failed check names.
    func: &'static str,
}

/// What the read-back pass works with.
struct Pass<'p, 'e> {
    cfg: &'p JobConfig,
    eng: &'p mut (dyn Engine + 'e),
    files: &'p [usize],
    slots: &'p mut [Slot],
    result: &'p mut JobResult,
    records: &'p mut Records,
    epoch: Nanos,
    /// When the job's runtime is over, if it has one.
    deadline: Option<Nanos>,
    counts_each_io: bool,
    counts_submits: bool,
    iolog: &'p mut Option<IoLogWriter>,
}

impl Pass<'_, '_> {
    /// Drops the files' cached pages, then reads every block of `rest` back, `iodepth` at a
    /// time, checking each as it completes. The reads count in the read
    /// direction, as fio's do.
    fn check_all(&mut self, v: &mut Verifying<'_>, rest: &[Written], stop: Stops<'_>) {
        let cfg = self.cfg;
        // fio closes the files between the writes and the verify pass, and
        // opens each again for its first read.
        if let Some(w) = self.iolog.as_mut() {
            for file in 0..cfg.files.paths.len() {
                w.close(file);
            }
        }
        // fio's do_verify syncs only the files still open, and they never
        // are (clear_io_state closed them): the reopen only drops the
        // cached pages (invalidate), which leaves the dirty ones.
        for path in &cfg.files.paths {
            if cfg.files.invalidate
                && !cfg.kind.has(caps::FAKE_IO)
                && let Err(e) = self.eng.invalidate(path)
            {
                let text = format!("fio: preparing {} for verify: {e}", path.display());
                self.result.fail(errno(&e), "invalidate_cache", text);
                return;
            }
        }
        let func = if self.eng.commits() {
            "io_u_queued_complete"
        } else {
            "io_u_sync_complete"
        };
        let depth = self.slots.len();
        use crate::run::storage::alloc::with_capacity;
        let (Some(mut free), Some(unsubmitted), Some(done)) = (
            with_capacity(depth),
            with_capacity(depth),
            with_capacity(depth),
        ) else {
            // The pass's own lists of the depth's reads.
            let text = "fio: failed setting up IO queues".to_string();
            self.result.fail(libc::ENOMEM, "verify", text);
            return;
        };
        free.extend((0..depth).rev());
        let mut q = Reads {
            free,
            unsubmitted,
            done,
            next: 0,
            in_flight: 0,
            // Where the pass ends: the last block, or where a loaded verify
            // state says the writes stopped.
            end: rest.len(),
            clock: 0,
            // Verifying reads are timed one by one.
            precise: LoopClock::new(false),
            func,
        };
        v.trail.replayed = 0;
        q.clock = clock::now();
        loop {
            let out_of_time = self.deadline.is_some_and(|d| q.clock >= d);
            if !self.queue_reads(v, rest, &mut q, stop, out_of_time) {
                break;
            }
            if !q.unsubmitted.is_empty() && !self.submit_reads(&mut q) {
                break;
            }
            let more = q.next < q.end && !stop.any() && !out_of_time;
            if q.in_flight == 0 {
                if !more {
                    break;
                }
                continue;
            }
            if !q.free.is_empty() && more {
                continue;
            }
            if !self.reap_reads(v, rest, &mut q) {
                break;
            }
        }
        // An error or a stop ended the pass: wait for what is in flight.
        while q.in_flight > 0 {
            q.done.clear();
            if self
                .eng
                .reap(q.in_flight, q.in_flight, &mut q.done)
                .is_err()
            {
                break;
            }
            q.in_flight -= q.done.len().min(q.in_flight);
        }
        settle(cfg, self.result, v);
    }

    /// Queues reads of the next blocks, up to a batch (none once stopped
    /// or `out_of_time`); false when one finished at once and ended the
    /// job.
    fn queue_reads(
        &mut self,
        v: &mut Verifying<'_>,
        rest: &[Written],
        q: &mut Reads,
        stop: Stops<'_>,
        out_of_time: bool,
    ) -> bool {
        while q.next < q.end && !stop.any() && !out_of_time {
            let next = q.next;
            if v.past_saved_writes(rest[next].file as usize, rest[next].offset) {
                // A loaded verify state ends the pass here (fio has
                // drawn a replayed I/O's offset by then).
                if v.spec.replay {
                    v.trail.replayed += 1;
                }
                q.end = next;
                break;
            }
            let Some(index) = q.free.pop() else { break };
            let block = rest[next];
            let slot = &mut self.slots[index];
            slot.file = block.file as usize;
            slot.dir = Dir::Read;
            slot.offset = block.offset;
            slot.len = block.len as usize;
            slot.skip = 0;
            slot.piece = Some(next);
            slot.prepared = q.clock;
            slot.submitted = Some(q.clock);
            slot.intended = None;
            q.next += 1;
            if q.clock >= self.epoch {
                self.result.issue(Dir::Read);
            }
            // fio draws a replayed read as the write it repeats, and
            // counts it among the writes issued.
            if v.spec.replay {
                v.trail.issued += 1;
                v.trail.replayed += 1;
            }
            if let Some(w) = self.iolog.as_mut() {
                w.io(slot.file, Dir::Read, slot.offset, slot.len as u64);
            }
            slot.ioprio = self.cfg.scheduling.default_ioprio;
            slot.prio_index = 0;
            // SAFETY: as in the main loop's `queue`: the slot is off the
            // free list until its completion is reaped, and the slots
            // outlive the engine (or are never freed, if it is abandoned).
            let queued = unsafe {
                self.eng.queue(Request {
                    slot: index,
                    file: self.files[slot.file],
                    offset: slot.offset,
                    dir: Dir::Read,
                    buf: slot.buf(),
                    ioprio: None,
                })
            };
            match queued {
                Queued::Pending => {
                    slot.queued = true;
                    q.unsubmitted.push(index);
                }
                Queued::Done(r) => {
                    q.clock = clock::now();
                    if q.clock >= self.epoch {
                        self.result.done_in_queue(self.counts_each_io);
                    }
                    q.free.push(index);
                    if !self.finished(v, rest, index, r, q.clock, q.func) {
                        return false;
                    }
                }
            }
            if q.unsubmitted.len() >= self.cfg.depth.batch_submit {
                break;
            }
        }
        true
    }

    /// Submits the reads queued; false when the engine failed to.
    fn submit_reads(&mut self, q: &mut Reads) -> bool {
        let batch = q.unsubmitted.len();
        if let Err(e) = submit(
            self.eng,
            self.slots,
            &mut q.unsubmitted,
            &mut q.in_flight,
            &mut q.clock,
            &mut q.precise,
        ) {
            let text = format!("fio: io commit failed: {e}");
            self.result.fail(errno(&e), "io commit", text);
            return false;
        }
        if q.clock >= self.epoch {
            self.result.depth_sample(q.in_flight, batch);
            if self.counts_submits {
                self.result.submitted(batch);
            }
        }
        true
    }

    /// Reaps reads and checks each; false when the pass ends.
    fn reap_reads(&mut self, v: &mut Verifying<'_>, rest: &[Written], q: &mut Reads) -> bool {
        q.done.clear();
        if let Err(e) = self.eng.reap(1, q.in_flight, &mut q.done) {
            let text = format!("fio: reaping I/O failed: {e}");
            self.result.fail(errno(&e), "get_events", text);
            return false;
        }
        q.clock = clock::now();
        if q.clock >= self.epoch {
            self.result.reaped(q.done.len());
        }
        q.in_flight -= q.done.len();
        // A failure ends the pass after the batch it came in: fio
        // accounts and checks every completion it reaped.
        let mut failed = false;
        for c in std::mem::take(&mut q.done) {
            q.free.push(c.slot);
            failed |= !self.finished(v, rest, c.slot, c.result, q.clock, q.func);
        }
        !failed
    }

    /// Accounts and checks one finished read-back; false when the job ends.
    pub(super) fn finished(
        &mut self,
        v: &mut Verifying<'_>,
        rest: &[Written],
        index: usize,
        r: i64,
        at: Nanos,
        func: &str,
    ) -> bool {
        let slot = &mut self.slots[index];
        // A read-back that finds nothing is fio's "full resid".
        if r == 0 && slot.len > 0 {
            self.result.fail(libc::EIO, "full resid", String::new());
            return false;
        }
        if !complete(self.cfg, self.result, self.records, slot, r, at, self.epoch) {
            return false;
        }
        let Some(piece) = slot.piece else { return true };
        let func = if v.offloaded() { "async_verify" } else { func };
        // A replayed read (experimental_verify) is not from fio's log.
        let logged = !v.spec.replay;
        let failed_before = self.result.failed();
        match v.check(slot.buf(), &rest[piece], logged, v.expected_seed(piece)) {
            Ok(()) => true,
            // The rest of the batch that ended the job: fio checks each
            // read of it and reports every failure.
            Err(text) if failed_before => {
                self.result.later_errors.push(text);
                false
            }
            Err(text) => verify_failed(self.cfg, self.result, text, func, r),
        }
    }
}
