//! Filling the queue: a replay's next step, then the next I/O: the rest
//! of one cut short, one held back, a verify_backlog read, or a new one
//! with its direction, rate-capped turn and place.

use super::pace::wait_until;
use super::{Backlog, Io, JobLoop, Next, Phase, Turn};
use crate::engine::Dir;
use crate::rand::fio_rand::Draws;
use crate::result::JobResult;
use crate::run::pacing::clock::{self, Nanos, nanos};
use crate::run::place::files::FileChooser;
use crate::run::place::parts::PlaceParts;
use crate::run::place::placement::Placer;
use crate::run::records::iolog::IoLogWriter;
use crate::run::records::replay::Replayer;
use crate::run::records::replay_log::{Action, Step};
use crate::run::storage::lazy_open::{LazyOpen, UNOPENED};

impl JobLoop<'_, '_> {
    /// What comes before the next I/O when the job may issue one and has
    /// room: a replay's step, a periodic sync, or the end of a pass.
    #[inline]
    pub(super) fn fill(&mut self, turn: &mut Turn) -> Phase {
        let replay_sync = self.replay_step()?;
        self.sync_if_due(replay_sync, turn)?;
        if self.out_of_offsets || self.pass_done() {
            if !self.unsubmitted.is_empty() || self.in_flight > 0 {
                self.draining = true;
            } else {
                return Err(self.end_pass());
            }
        }
        Ok(())
    }

    /// A replay's next step, unless it is an I/O: the end of the log, a
    /// file action or wait (which only pace it), or a sync, whose file
    /// and kind it returns.
    #[inline]
    fn replay_step(&mut self) -> Phase<Option<(usize, bool)>> {
        let cfg = self.cfg;
        let Some(rp) = &mut self.replayer else {
            return Ok(None);
        };
        if let Some(step) = rp.peek()
            && matches!(
                step.action,
                Action::Open | Action::Io { .. } | Action::Sync { .. }
            )
            && self.files[step.file] == UNOPENED
        {
            let path = &cfg.files.paths[step.file];
            match self.eng.open(path, self.mode) {
                Ok(f) => self.files[step.file] = f,
                Err(e) => {
                    let func = format!("open({})", path.display());
                    let text = format!("fio: {func}: {e}");
                    self.result.fail(super::errno(&e), &func, text);
                    return Err(Next::End);
                }
            }
        }
        match rp.peek() {
            None => {
                self.finished = true;
                self.replay_over = true;
                Err(Next::Again)
            }
            Some(Step {
                file,
                action: Action::Sync { data_only },
                ..
            }) => Ok(Some((file, data_only))),
            Some(Step {
                action: Action::Io { .. },
                ..
            }) => Ok(None),
            Some(_) => {
                let stop = self.stop;
                rp.take(&|| stop.any());
                self.clock = clock::now();
                Err(Next::Again)
            }
        }
    }

    /// The next I/O, handed to the engine unless serialize_overlap holds
    /// it back.
    #[inline]
    pub(super) fn new_io(&mut self, turn: &mut Turn) -> Phase {
        let cfg = self.cfg;
        // The rest of an I/O cut short goes first, as it stands; then
        // an I/O held back by serialize_overlap, as it was.
        let resumed = self.requeued.pop();
        let (backlog, io) = if let Some(index) = resumed {
            let s = &self.slots[index];
            let io = Io {
                index,
                dir: s.dir,
                file: s.file,
                offset: s.offset,
                len: s.len as u64,
                intended: s.intended,
            };
            (None, io)
        } else if self.held.is_some()
            && let Some(h) = self.held.take()
        {
            // (Asked first: a take copies the whole field out, even
            // when it is empty, and this runs for every I/O.)
            h
        } else {
            self.fresh_io()?
        };
        let resumed = resumed.is_some();
        // verify_state_load: a job that only reads checks up to where
        // the loaded state's writes stopped, and there its I/O ends.
        if self.verifying.as_ref().is_some_and(|v| {
            io.dir == Dir::Read
                && !cfg.workload.pattern.write
                && !resumed
                && v.past_saved_writes(io.file, io.offset)
        }) {
            self.free.push(io.index);
            return Err(Next::End);
        }
        // serialize_overlap: an I/O that overlaps one in flight waits,
        // as it is, until something completes (fio's busy queue).
        if cfg.depth.serialize_overlap
            && self.slots.iter().any(|o| {
                o.flying
                    && o.file == io.file
                    && io.offset < o.offset + o.len as u64
                    && o.offset < io.offset + io.len
            })
        {
            // The rest of a short I/O waits among the requeued ones
            // (it keeps what it already moved); any other I/O is held.
            if resumed {
                self.requeued.push(io.index);
            } else {
                self.held = Some((backlog, io));
            }
            return Ok(());
        }
        self.issue(backlog, io, resumed, turn)
    }

    /// A new I/O: a verify_backlog read, or one the job draws.
    #[inline]
    fn fresh_io(&mut self) -> Phase<(Option<Backlog>, Io)> {
        // verify_backlog: in place of the next I/O, a read that checks
        // a block written earlier.
        let last_was_read = self.last_was_read;
        let backlog = self
            .verifying
            .as_mut()
            .and_then(|v| v.backlog_next(last_was_read).map(|p| (p, v.piece(p))));
        // trim_percentage: a block read back leaves the trim
        // list; else fio fetches a trim here when its backlog
        // is due, and its job dies of it.
        if let (Some(t), Some(v)) = (&mut self.trims, &self.verifying) {
            match backlog {
                Some((piece, _)) => t.off_list(piece),
                None if t.due(v.unchecked(), last_was_read) => {
                    self.died = true;
                    return Err(Next::End);
                }
                None => {}
            }
        }
        if let Some((_, block)) = backlog {
            let Some(index) = self.free.pop() else {
                return Err(Next::End);
            };
            let io = Io {
                index,
                dir: Dir::Read,
                file: block.file as usize,
                offset: block.offset,
                len: u64::from(block.len),
                intended: None,
            };
            return Ok((backlog, io));
        }
        Ok((None, self.drawn_io()?))
    }

    /// The I/O the job draws: its direction (a replay's, or the job's
    /// mix), its turn under a rate cap, then its place.
    #[inline]
    fn drawn_io(&mut self) -> Phase<Io> {
        let cfg = self.cfg;
        let replayed = self.replayer.as_ref().and_then(Replayer::peek);
        let mixed = replayed.is_none() && cfg.workload.pattern.read && cfg.workload.pattern.write;
        let drawn = if let Some(Step {
            action: Action::Io { dir, .. },
            ..
        }) = replayed
        {
            dir
        } else if cfg.workload.pattern.trim {
            Dir::Trim
        } else if mixed {
            [Dir::Read, Dir::Write][self.draws.mix.next([self.work[0].0, self.work[1].0])]
        } else if cfg.workload.pattern.read {
            Dir::Read
        } else {
            Dir::Write
        };
        // trimwrite: the write that follows each trim goes to the
        // block just trimmed.
        // (Asked first, as for `held`: the common job never has one.)
        let follow = if self.pending_write.is_some() {
            self.pending_write.take()
        } else {
            None
        };
        let rate_capped = self.traits.rate_capped;
        // Only rate-capped jobs read the clock here; the I/O's
        // latencies count from after any wait for its turn, as
        // fio's do.
        if rate_capped {
            self.clock = clock::now();
        }
        let mut dir = if follow.is_some() {
            Dir::Write
        } else {
            self.rate_turn(drawn, mixed)?
        };
        // When the schedule meant this I/O to go, had nothing
        // held it up.
        let intended =
            (rate_capped && follow.is_none() && self.capped[dir as usize]).then(|| self.due(dir));
        let Some(index) = self.free.pop() else {
            return Err(Next::End);
        };
        let (file, offset, len) = self.place(index, follow, replayed, &mut dir, mixed)?;
        if cfg.workload.pattern.trimwrite && dir == Dir::Trim {
            self.pending_write = Some((file, offset, len));
        }
        Ok(Io {
            index,
            dir,
            file,
            offset,
            len,
            intended,
        })
    }

    /// Rate caps (fio's rate_ddir): a direction ahead of its rate
    /// gives way to the other if that one is due, else the job
    /// sleeps until the earlier of the two is due.
    #[inline]
    fn rate_turn(&mut self, drawn: Dir, mixed: bool) -> Phase<Dir> {
        if !self.traits.rate_capped || self.due(drawn) <= self.clock {
            return Ok(drawn);
        }
        let other = if drawn == Dir::Read {
            Dir::Write
        } else {
            Dir::Read
        };
        if mixed && self.due(other) <= self.clock {
            return Ok(other);
        }
        let dir = if !mixed || self.due(drawn) <= self.due(other) {
            drawn
        } else {
            other
        };
        let waited = wait_until(self.due(dir), self.deadline, self.stop);
        // The I/O starts after the wait: its latency must not
        // include it (fio sleeps before taking the I/O's time).
        self.clock = clock::now();
        if !waited {
            return Err(Next::Again);
        }
        Ok(dir)
    }

    /// When a rate-capped direction's next I/O is due.
    fn due(&self, d: Dir) -> Nanos {
        let cfg = self.cfg;
        let (ios, bytes) = self.work[d as usize];
        // rate_ignore_thinktime: what the job would have issued
        // while it thought counts as issued.
        let credit = self.rate_credit[d as usize];
        let (ios, bytes) = (
            ios + credit / cfg.workload.bs[d as usize].min().max(1),
            bytes + credit,
        );
        self.start
            + match &self.poisson {
                Some(p) => p.due_us(d as usize) * 1000,
                None => nanos(
                    cfg.pacing
                        .rate_due(d as usize, ios, bytes)
                        .unwrap_or_default(),
                ),
            }
    }

    /// The new I/O's file, offset and length, in slot `index` (freed
    /// again when there is none).
    #[inline]
    fn place(
        &mut self,
        index: usize,
        follow: Option<(usize, u64, u64)>,
        replayed: Option<Step>,
        dir: &mut Dir,
        mixed: bool,
    ) -> Phase<(usize, u64, u64)> {
        match (follow, replayed) {
            // zbd: trimwrite's write goes to the write
            // pointer of the zone just reset, as fio's does.
            (Some(block), _) => match self.placer.zbd_write(&self.place, block) {
                Some(block) => Ok(block),
                None => {
                    self.free.push(index);
                    if zbd_failed(&mut self.placer, &mut self.result) {
                        return Err(Next::End);
                    }
                    self.out_of_offsets = true;
                    Err(Next::Again)
                }
            },
            // An engine that moves no data takes I/Os without a
            // place or a length.
            (None, _) if self.traits.no_data => Ok((0, 0, 0)),
            (
                None,
                Some(Step {
                    file,
                    action: Action::Io { offset, len, .. },
                    ..
                }),
            ) => {
                // The recorded gap before this I/O: fio waits as it
                // hands out the I/O, and hands it out even when a stop
                // cuts the wait short (the job ends after it).
                if let Some(rp) = &mut self.replayer {
                    let stop = self.stop;
                    rp.take(&|| stop.any());
                }
                Ok((file, offset, len))
            }
            (None, _) => {
                let in_flight = self.in_flight + self.unsubmitted.len() > 0;
                self.chooser.set_in_flight(in_flight);
                // fio draws the mix's direction again for
                // each file it tries.
                let redraw =
                    (mixed && !self.traits.rate_capped).then_some([self.work[0].0, self.work[1].0]);
                let placed = next_io(
                    &self.place,
                    &mut self.chooser,
                    &mut self.lazy,
                    &mut self.placer,
                    (dir, redraw),
                    &mut self.draws,
                    &mut self.iolog,
                );
                if let Some(io) = placed {
                    return Ok(io);
                }
                self.free.push(index);
                if zbd_failed(&mut self.placer, &mut self.result) {
                    return Err(Next::End);
                }
                // No room for the next file while
                // I/O is in flight: reap, then
                // try again (fio's busy open).
                if self.chooser.take_busy() {
                    self.files_busy = true;
                } else {
                    self.out_of_offsets = true;
                }
                Err(Next::Again)
            }
        }
    }
}

/// When no I/O could be placed: whether that is because no zone could
/// take it (zbd), which fails the job, recorded in `result`.
fn zbd_failed(placer: &mut Placer, result: &mut JobResult) -> bool {
    let Some(e) = placer.zbd.error.take() else {
        return false;
    };
    result.fail(e.errno, &e.func, e.message);
    true
}

/// The file, offset and length of the next I/O: fio's set_io_u_file,
/// which retires each file that has no offset left and tries the next;
/// `None` once every file is done. With `redraw` (a read/write mix's I/Os
/// issued so far per direction), each file after the first gets a
/// direction drawn afresh, as fio's fill_io_u draws one each time.
// The job loop's state it reads and moves on, each its own part.
#[allow(clippy::too_many_arguments)]
fn next_io(
    cfg: &PlaceParts<'_>,
    chooser: &mut FileChooser,
    lazy: &mut Option<LazyOpen>,
    placer: &mut Placer,
    (dir, mix): (&mut Dir, Option<[u64; 2]>),
    draws: &mut Draws,
    iolog: &mut Option<IoLogWriter>,
) -> Option<(usize, u64, u64)> {
    // A skewed choice starts a finished file over; give up if even that
    // yields nothing (zones past the file's end).
    for attempt in 0..=2 * placer.files.len() {
        let file = chooser.pick()?;
        if let (true, Some(issued)) = (attempt > 0, mix) {
            *dir = [Dir::Read, Dir::Write][draws.mix.next(issued)];
        }
        *dir = placer.direction(cfg, file, *dir);
        if let Some((offset, len)) = placer.next(cfg, file, *dir, draws) {
            return Some((file, offset, len));
        }
        // A file closes at once unless I/O on it is in flight (openfiles).
        chooser.finished(file, lazy.as_ref().is_some_and(|l| l.in_flight(file)));
        if let Some(l) = lazy {
            while let Some(f) = chooser.take_retired() {
                l.retire(f);
            }
        }
        // fio closes a file it has no offset left for.
        if let Some(w) = iolog {
            w.close(file);
        }
        if cfg.placement.file_service.skewed() {
            placer.files[file].reset(cfg);
        }
    }
    None
}
