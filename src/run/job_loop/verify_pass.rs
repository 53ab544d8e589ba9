//! The read-back pass over a verifying job's written blocks.

#[allow(unused_imports)]
use super::*;

/// What the read-back pass works with.
pub(super) struct Pass<'p, 'e> {
    pub(super) cfg: &'p JobConfig,
    pub(super) eng: &'p mut (dyn Engine + 'e),
    pub(super) files: &'p [usize],
    pub(super) slots: &'p mut [Slot],
    pub(super) result: &'p mut JobResult,
    pub(super) records: &'p mut Records,
    pub(super) epoch: Nanos,
    /// When the job's runtime is over, if it has one.
    pub(super) deadline: Option<Nanos>,
    pub(super) counts_each_io: bool,
    pub(super) counts_submits: bool,
    pub(super) iolog: &'p mut Option<IoLogWriter>,
}

impl Pass<'_, '_> {
    /// Drops the files' cached pages, then reads every block of `rest` back, `iodepth` at a
    /// time, checking each as it completes. The reads count in the read
    /// direction, as fio's do.
    pub(super) fn check_all(
        &mut self,
        v: &mut Verifying<'_>,
        rest: &[crate::verify::Written],
        stop: Stops<'_>,
    ) {
        let cfg = self.cfg;
        // fio closes the files between the writes and the verify pass, and
        // opens each again for its first read.
        if let Some(w) = self.iolog.as_mut() {
            for file in 0..cfg.paths.len() {
                w.close(file);
            }
        }
        // fio's do_verify syncs only the files still open, and they never
        // are (clear_io_state closed them): the reopen only drops the
        // cached pages (invalidate), which leaves the dirty ones.
        for path in &cfg.paths {
            if cfg.invalidate
                && cfg.engine != "null"
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
        let mut free: Vec<usize> = (0..self.slots.len()).rev().collect();
        let mut unsubmitted: Vec<usize> = Vec::with_capacity(self.slots.len());
        let mut done: Vec<Completion> = Vec::with_capacity(self.slots.len());
        let (mut next, mut in_flight) = (0usize, 0usize);
        // Where the pass ends: the last block, or where a loaded verify
        // state says the writes stopped.
        let mut end = rest.len();
        v.trail.replayed = 0;
        let mut clock = clock::now();
        // Verifying reads are timed one by one.
        let mut precise = LoopClock::new(false);
        'pass: loop {
            let out_of_time = self.deadline.is_some_and(|d| clock >= d);
            while next < end && !stop.any() && !out_of_time {
                if v.past_saved_writes(rest[next].file as usize, rest[next].offset) {
                    // A loaded verify state ends the pass here (fio has
                    // drawn a replayed I/O's offset by then).
                    if v.spec.replay {
                        v.trail.replayed += 1;
                    }
                    end = next;
                    break;
                }
                let Some(index) = free.pop() else { break };
                let block = rest[next];
                let slot = &mut self.slots[index];
                slot.file = block.file as usize;
                slot.dir = Dir::Read;
                slot.offset = block.offset;
                slot.len = block.len as usize;
                slot.skip = 0;
                slot.piece = Some(next);
                slot.prepared = clock;
                slot.submitted = Some(clock);
                slot.intended = None;
                next += 1;
                if clock >= self.epoch {
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
                slot.ioprio = self.cfg.default_ioprio;
                slot.prio_index = 0;
                match self.eng.queue(Request {
                    slot: index,
                    file: self.files[slot.file],
                    offset: slot.offset,
                    dir: Dir::Read,
                    buf: slot.buf(),
                    ioprio: None,
                }) {
                    Queued::Pending => {
                        slot.queued = true;
                        unsubmitted.push(index);
                    }
                    Queued::Done(r) => {
                        clock = clock::now();
                        if clock >= self.epoch {
                            self.result.done_in_queue(self.counts_each_io);
                        }
                        free.push(index);
                        if !self.finished(v, rest, index, r, clock, func) {
                            break 'pass;
                        }
                    }
                }
                if unsubmitted.len() >= cfg.batch_submit {
                    break;
                }
            }
            if !unsubmitted.is_empty() {
                let batch = unsubmitted.len();
                if let Err(e) = submit(
                    self.eng,
                    self.slots,
                    &mut unsubmitted,
                    &mut in_flight,
                    &mut clock,
                    &mut precise,
                ) {
                    let text = format!("fio: io commit failed: {e}");
                    self.result.fail(errno(&e), "io commit", text);
                    break;
                }
                if clock >= self.epoch {
                    self.result.depth_sample(in_flight, batch);
                    if self.counts_submits {
                        self.result.submitted(batch);
                    }
                }
            }
            let more = next < end && !stop.any() && !out_of_time;
            if in_flight == 0 {
                if !more {
                    break;
                }
                continue;
            }
            if !free.is_empty() && more {
                continue;
            }
            done.clear();
            if let Err(e) = self.eng.reap(1, in_flight, &mut done) {
                let text = format!("fio: reaping I/O failed: {e}");
                self.result.fail(errno(&e), "get_events", text);
                break;
            }
            clock = clock::now();
            if clock >= self.epoch {
                self.result.reaped(done.len());
            }
            in_flight -= done.len();
            // A failure ends the pass after the batch it came in: fio
            // accounts and checks every completion it reaped.
            let mut failed = false;
            for c in std::mem::take(&mut done) {
                free.push(c.slot);
                failed |= !self.finished(v, rest, c.slot, c.result, clock, func);
            }
            if failed {
                break 'pass;
            }
        }
        // An error or a stop ended the pass: wait for what is in flight.
        while in_flight > 0 {
            done.clear();
            if self.eng.reap(in_flight, in_flight, &mut done).is_err() {
                break;
            }
            in_flight -= done.len().min(in_flight);
        }
        settle(cfg, self.result, v);
    }

    /// Accounts and checks one finished read-back; false when the job ends.
    pub(super) fn finished(
        &mut self,
        v: &mut Verifying<'_>,
        rest: &[crate::verify::Written],
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
