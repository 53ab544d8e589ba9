//! Handing one I/O to the engine: its file opened and its slot
//! prepared, then queued; a synchronous engine's I/O is finished here.

use super::complete::{Finishing, finishing};
use super::pace::think;
use super::{Backlog, Io, JobLoop, Next, Phase, Turn, errno, issued};
use crate::engine::{Dir, Queued, Request};
use crate::result::JobResult;
use crate::run::config::JobConfig;
use crate::run::pacing::clock::{self, ms_between};
use crate::run::records::logs::{Completed, JobLogs};

impl JobLoop<'_, '_> {
    /// Hands `io` (the rest of one cut short when `resumed`) to the
    /// engine.
    #[inline]
    pub(super) fn issue(
        &mut self,
        backlog: Option<Backlog>,
        io: Io,
        resumed: bool,
        turn: &mut Turn,
    ) -> Phase {
        let cfg = self.cfg;
        self.open_for(io, resumed, backlog.is_some())?;
        self.prepare(backlog, io, resumed);
        let (queued, replay) = self.queue(io);
        let clock = self.clock;
        match queued {
            Queued::Pending => {
                self.loop_queued += io.len;
                if self.traits.submits_in_queue && clock >= self.ramp_end {
                    self.result.done_in_queue_async();
                }
                let slot = &mut self.slots[io.index];
                slot.queued = true;
                slot.flying = true;
                self.unsubmitted.push(io.index);
            }
            Queued::Done(0) if self.eng.ended() => {
                // The other end closed the link (net): the job is
                // done, and this I/O never happened, as in fio.
                self.slots[io.index].submitted = None;
                if clock >= self.ramp_end {
                    self.result.unissue(io.dir);
                }
                self.free.push(io.index);
                return Err(Next::End);
            }
            Queued::Done(r) => return Err(self.done_at_once(io, r, replay)),
        }
        // Polling for completions (no batch_complete minimum or
        // maximum), fio reaps after every I/O as if the queue were full.
        let in_queue = self.in_flight + self.unsubmitted.len();
        let full = in_queue >= turn.depth_limit
            || (self.traits.may_be_busy && self.eng.busy())
            || cfg.depth.reap_after_each_io;
        let last = !self.may_issue();
        // fio weighs the pause after the last I/O before it reaps
        // what is in flight (unless the queue is full): count the
        // completions now.
        if last
            && !full
            && let Some((_, completed)) = &mut self.think.after
        {
            let (ios, _) = issued(&self.work);
            *completed = Some(ios.saturating_sub(in_queue as u64));
        }
        if self.unsubmitted.len() < cfg.depth.batch_submit && !full && !last {
            return Err(Next::Again);
        }
        turn.keep_filling = !full && !last;
        Ok(())
    }

    /// The I/O's file, open (openfiles), and the file engines'
    /// operation when this is the file's first I/O of the pass (fio's
    /// open of the file). A verify_backlog read (`backlog`) goes to a
    /// file the file choice did not pick, and must not take it back
    /// into use.
    #[inline]
    fn open_for(&mut self, io: Io, resumed: bool, backlog: bool) -> Phase {
        let cfg = self.cfg;
        if let Some(l) = &mut self.lazy {
            while let Some(f) = self.chooser.take_retired() {
                l.retire(f);
            }
            l.flush(self.eng.as_mut(), &mut self.files, &mut self.chooser);
            let path = &cfg.files.paths[io.file];
            let in_use = !backlog || resumed || self.chooser.holds(io.file);
            let opened = l.ensure(
                self.eng.as_mut(),
                &mut self.files,
                io.file,
                (path, self.mode),
                in_use,
            );
            if let Err(e) = opened {
                self.free.push(io.index);
                return Err(self.open_failed(&e, path));
            }
            if !resumed {
                l.issued(io.file);
            }
        }
        match (self.traits.file_ops && !resumed)
            .then(|| self.eng.file_op(self.files[io.file]))
            .flatten()
        {
            None => {}
            Some(Ok(took)) => {
                self.clock = self.ticker.read();
                if self.clock >= self.ramp_end && cfg.reporting.measure.lat {
                    let at = ms_between(self.ramp_end, self.clock);
                    file_op_sample(cfg, &mut self.result, &mut self.records.logs, took, at);
                }
            }
            Some(Err(e)) => {
                self.free.push(io.index);
                // fio says no more than its error line does.
                self.result.fail(errno(&e.error), &e.func, String::new());
                return Err(Next::End);
            }
        }
        Ok(())
    }

    /// Fills the I/O's slot, counts the I/O as issued, prepares a
    /// write's buffer and logs the I/O.
    #[inline]
    fn prepare(&mut self, backlog: Option<Backlog>, io: Io, resumed: bool) {
        let cfg = self.cfg;
        let clock = self.clock;
        let Io {
            index,
            dir,
            file: file_index,
            offset,
            len,
            intended,
        } = io;
        let slot = &mut self.slots[index];
        if slot.fresh {
            slot.first_use(cfg, &mut self.rng);
        }
        slot.file = file_index;
        slot.dir = dir;
        slot.offset = offset;
        slot.len = len as usize;
        slot.prepared = clock;
        slot.submitted = Some(clock);
        slot.intended = intended;
        if !resumed {
            slot.skip = 0;
            slot.piece = backlog.map(|(piece, _)| piece);
        }
        if clock >= self.ramp_end {
            self.result.issue(dir);
        }
        let work = &mut self.work;
        // The rest of a short I/O counts as issued again, as in fio.
        if resumed {
            work[dir as usize].0 += 1;
            work[dir as usize].1 += len;
        }
        // Backlog reads are not part of the job's amount of I/O.
        if backlog.is_some() && !resumed {
            self.verify_moved += len;
            self.verify_ios += 1;
        }
        if backlog.is_none() && !resumed {
            work[dir as usize].0 += 1;
            work[dir as usize].1 += len;
            if let Some(p) = &mut self.poisson {
                p.issued(dir as usize);
            }
            let issued_ios = issued(work).0;
            if dir == Dir::Write {
                match (&mut self.verifying, &mut self.content) {
                    (Some(v), _) => {
                        let numberio = work[Dir::Write as usize].0 - 1;
                        let mapped = self.placer.files[file_index].has_map();
                        slot.piece =
                            Some(v.stamp(slot.buf(), file_index, offset, numberio, mapped));
                        if let (Some(t), Some(piece)) = (&mut self.trims, slot.piece) {
                            t.logged(piece);
                            // fio's log drops overwritten blocks
                            // from the trim list too.
                            for &old in v.dropped() {
                                t.off_list(old);
                            }
                        }
                    }
                    (None, Some(content)) => content.fill(slot.buf()),
                    (None, None) => slot.prepare_write(cfg, &mut self.rng, issued_ios),
                }
            }
        }
        if let Some(w) = &mut self.iolog
            && !resumed
        {
            if self.handed_to_busy {
                w.io(file_index, dir, offset, len);
                self.handed_to_busy = false;
            }
            w.io(file_index, dir, offset, len);
        }
        if let Some(rp) = &mut self.replayer {
            // With room left behind this I/O, fio looks for the next
            // one before it reaps anything, and finds the log's end.
            if !rp.io_left() && self.in_flight + self.unsubmitted.len() + 1 < cfg.depth.iodepth {
                let stop = self.stop;
                rp.finish(&|| stop.any());
                self.finished = true;
                self.replay_over = true;
            }
            let now = clock::now();
            rp.issued(now);
            slot.prepared = now;
            slot.submitted = Some(now);
        }
        // fio weighs a pause after each I/O it hands out (and any reap
        // a full queue needs), before it looks for the next one.
        self.think.after = self.traits.thinks.then_some((dir as usize, None));
    }

    /// Queues the I/O in the engine, unless verify_only replays it
    /// (the returned flag) or zbd resets its zone.
    #[inline]
    fn queue(&mut self, io: Io) -> (Queued, bool) {
        let cfg = self.cfg;
        let Io { dir, len, .. } = io;
        // verify_only: the writes are only replayed, to know what to
        // check (and the reads of a job that writes, as fio's dry
        // run goes through them too).
        let replay = (dir == Dir::Write || cfg.workload.pattern.write)
            && self.verifying.as_ref().is_some_and(|v| v.spec.only);
        // zbd: a trim resets its zone rather than reaching the file.
        let zone_reset = (dir == Dir::Trim)
            .then(|| self.placer.zbd_trim(io.file, io.offset, len))
            .flatten();
        let queued = if replay {
            Queued::Done(len as i64)
        } else if let Some(r) = zone_reset {
            Queued::Done(r)
        } else {
            let slot = &mut self.slots[io.index];
            let raised = cfg
                .scheduling
                .cmdprio
                .as_ref()
                .and_then(|c| c.choose(dir as usize, len, &mut self.prio_draws));
            (slot.ioprio, slot.prio_index) = raised.unwrap_or((cfg.scheduling.default_ioprio, 0));
            let _held = self.file_locks.as_ref().map(|l| l.hold(io.file, dir));
            // SAFETY: the buffer is the slot's (slots.rs), and the slot is
            // off the free list: nothing touches it until its completion
            // is reaped and it goes back on the list. The slots outlive the
            // engine, or are never freed if it is abandoned (`close`).
            unsafe {
                self.eng.queue(Request {
                    slot: io.index,
                    file: self.files[io.file],
                    offset: io.offset,
                    dir,
                    buf: slot.buf(),
                    ioprio: raised.map(|r| r.0),
                })
            }
        };
        (queued, replay)
    }

    /// A synchronous engine's I/O, done as it was queued: `r` bytes
    /// moved (or an error).
    #[inline]
    fn done_at_once(&mut self, io: Io, mut r: i64, replay: bool) -> Next {
        let cfg = self.cfg;
        self.last_was_read = io.dir == Dir::Read;
        self.last_was_sync = false;
        // A synchronous engine: this I/O's end is the next one's start.
        let clock = self.ticker.read();
        self.clock = clock;
        if clock >= self.ramp_end {
            self.result.done_in_queue(self.traits.counts_each_io);
        }
        let slot = &mut self.slots[io.index];
        // A short transfer: the rest goes back to the engine,
        // unless it starts at the file's end, where fio ends
        // the I/O with nothing more counted.
        let mut ends_at_eof = false;
        if !replay && slot.shortened(r, &mut self.result) {
            if slot.offset != self.real_sizes[io.file] {
                self.requeued.push(io.index);
                return Next::Again;
            }
            ends_at_eof = true;
            r = 0;
        }
        self.release(io.index, io.file);
        let slot = &mut self.slots[io.index];
        // Nothing transferred at all (a read at the end of a
        // file created on open, say): fio fails the job with
        // EIO, saying only "full resid".
        if r == 0 && slot.len > 0 && !ends_at_eof {
            self.result.fail(libc::EIO, "full resid", String::new());
            return Next::End;
        }
        let mut done = finishing!(self);
        if !done.finish(cfg, slot, r, clock, self.ramp_end, "io_u_sync_complete") {
            return Next::End;
        }
        // An engine's own think time (cpuio's) follows the
        // I/O, before the job decides whether to go on.
        if let Some(pause) = self
            .traits
            .engine_thinks
            .then(|| self.eng.think_time())
            .flatten()
        {
            think(std::time::Duration::ZERO, pause, self.stop);
            self.clock = clock::now();
        }
        Next::Again
    }
}

/// A file engine's operation as the job's completion-latency sample, in
/// the direction fio files it under: read for a job that reads, else
/// write; a clat log gets it as an entry of no size at offset 0.
fn file_op_sample(
    cfg: &JobConfig,
    result: &mut JobResult,
    logs: &mut Option<JobLogs>,
    took: u64,
    time_ms: u64,
) {
    let dir = if !cfg.workload.pattern.read && cfg.workload.pattern.write {
        Dir::Write
    } else {
        Dir::Read
    };
    let stats = result.dir_mut(dir);
    stats.clat.add(took);
    stats.clat_fine.add(took);
    if cfg.reporting.measure.clat_hist {
        stats.clat_hist.add(took);
    }
    if let Some(logs) = logs {
        let op = Completed {
            time_ms,
            dir: dir as usize,
            bytes: 0,
            offset: 0,
            slat_ns: None,
            clat_ns: Some(took),
            lat_ns: None,
            ioprio: cfg.scheduling.default_ioprio,
        };
        logs.completed(&op, &stats.clat_hist);
    }
}
