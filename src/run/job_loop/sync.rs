//! Periodic syncs: when one is due, queued like an I/O or made at once,
//! and how it is counted.

use super::slots::{Slot, SyncKind};
use super::{JobLoop, Next, Phase, Turn, errno};
use crate::engine::{Dir, Queued};
use crate::result::JobResult;
use crate::run::config::JobConfig;
use crate::run::pacing::clock::{self, Nanos};

impl JobLoop<'_, '_> {
    /// fio's periodic syncs: due whenever the writes issued so far
    /// are a multiple of fsync (or fdatasync), but never twice in a
    /// row. They wait for the I/O in flight, then for the device.
    /// `replayed`: the sync a replay's log asks for next (file, and
    /// whether fdatasync).
    #[inline]
    pub(super) fn sync_if_due(
        &mut self,
        replayed: Option<(usize, bool)>,
        turn: &mut Turn,
    ) -> Phase {
        let cfg = self.cfg;
        let due = replayed
            .map(|(file, data_only)| (Some(file), SyncKind::of(data_only)))
            .or_else(|| {
                let writes = self.work[Dir::Write as usize].0;
                sync_due(cfg, writes, self.last_was_sync).map(|d| (None, d))
            });
        if let Some((None, kind)) =
            due.filter(|&(_, kind)| kind != SyncKind::Range && self.eng.syncs_in_queue())
        {
            return self.queue_sync(kind, turn);
        }
        if let Some((replayed, kind)) = due {
            if !self.unsubmitted.is_empty() || self.in_flight > 0 {
                self.draining = true;
            } else {
                return Err(self.sync_now(replayed, kind));
            }
        }
        Ok(())
    }

    /// Opens the file a sync goes to when openfiles has it closed; the
    /// job's end (fio's open error) when it cannot be opened.
    fn open_for_sync(&mut self, target: usize) -> Result<(), Next> {
        let path = &self.cfg.files.paths[target];
        if let Some(l) = &mut self.lazy
            && let Err(e) = l.ensure(
                self.eng.as_mut(),
                &mut self.files,
                target,
                (path, self.mode),
                true,
            )
        {
            return Err(self.open_failed(&e, path));
        }
        Ok(())
    }

    /// A periodic sync into the engine's queue, in place of an I/O.
    fn queue_sync(&mut self, kind: SyncKind, turn: &mut Turn) -> Phase {
        let cfg = self.cfg;
        let data_only = kind == SyncKind::Data;
        let Some(index) = self.free.pop() else {
            return Err(Next::End);
        };
        let target = self.chooser.pick().unwrap_or(0);
        self.open_for_sync(target)?;
        if let Some(w) = &mut self.iolog {
            let offset = self.free.last().map_or(0, |&i| self.slots[i].offset);
            w.sync(target, data_only, offset);
        }
        // Any sync ends the file's written span, as in fio.
        if let Some(w) = self.records.written.as_mut() {
            w.take(target);
        }
        let clock = self.clock;
        let slot = &mut self.slots[index];
        slot.file = target;
        slot.offset = 0;
        slot.len = 0;
        slot.piece = None;
        slot.prepared = clock;
        slot.submitted = Some(clock);
        match self.eng.queue_sync(index, self.files[target], data_only) {
            Queued::Pending => {
                if self.traits.submits_in_queue && clock >= self.ramp_end {
                    self.result.done_in_queue_async();
                }
                slot.sync = Some(kind);
                slot.queued = true;
                slot.flying = true;
                self.unsubmitted.push(index);
            }
            Queued::Done(r) => {
                self.free.push(index);
                // A sync the engine refused to start (rbd's and
                // nbd's fdatasync): fio's error line says it all.
                if r < 0 {
                    // fio counts the refused sync as an I/O done in its
                    // queue call: at the depth then, and in its per-
                    // direction tally one past the trims (where the
                    // short reads lie, for an fdatasync).
                    self.result.depth_sample(self.in_flight + 1, 1);
                    if self.traits.submits_in_queue {
                        self.result.done_in_queue_async();
                    }
                    if data_only {
                        self.result.dir_mut(Dir::Read).short += 1;
                    }
                    let func = cfg.kind.refused_sync_func();
                    self.result.fail((-r) as i32, func, String::new());
                    return Err(Next::End);
                }
            }
        }
        turn.sync_queued = true;
        let full = self.in_flight + self.unsubmitted.len() >= turn.depth_limit;
        if self.unsubmitted.len() < cfg.depth.batch_submit && !full {
            return Err(Next::Again);
        }
        turn.keep_filling = !full;
        Ok(())
    }

    /// A periodic sync made at once, nothing being in flight; `replayed`
    /// the file a replay's log names.
    fn sync_now(&mut self, replayed: Option<usize>, kind: SyncKind) -> Next {
        let cfg = self.cfg;
        let stop = self.stop;
        let data_only = kind == SyncKind::Data;
        // As for an I/O, a stop that cuts the recorded gap short still
        // lets the sync go (fio's log hands it out after the wait).
        if let Some(rp) = &mut self.replayer
            && replayed.is_some()
        {
            rp.take(&|| stop.any());
        }
        let before = clock::now();
        // Like fio, sync the file the next I/O would go to
        // (the sync takes that file's turn).
        let target = replayed.unwrap_or_else(|| self.chooser.pick().unwrap_or(0));
        // Nothing is in flight during a sync, so it never
        // finds the choice busy.
        self.chooser.take_busy();
        if let Err(next) = self.open_for_sync(target) {
            return next;
        }
        if let Some(w) = &mut self.iolog {
            // fio's sync goes in the I/O unit freed last.
            let offset = self.free.last().map_or(0, |&i| self.slots[i].offset);
            w.sync(target, data_only, offset);
        }
        if let Some(rp) = &mut self.replayer {
            rp.issued(before);
        }
        // Any sync ends the file's written span, as in fio.
        let span = self.records.written.as_mut().map(|w| w.take(target));
        let file = self.files[target];
        let synced = match (kind, span, cfg.sync.sync_range) {
            (SyncKind::Range, Some((offset, len)), Some(range)) => {
                self.eng.sync_range(file, offset, len, range.flags)
            }
            _ => self.eng.sync(file, data_only),
        };
        if let Err(e) = synced {
            let path = cfg.files.paths[target].display();
            let text = format!("fio: sync of {path} failed: {e}");
            self.result.fail(errno(&e), kind.call(), text);
            return Next::End;
        }
        self.clock = clock::now();
        count_sync(&mut self.result, kind, self.clock - before);
        self.result.done_in_queue(self.traits.counts_each_io);
        self.last_was_sync = true;
        self.draining = false;
        Next::Again
    }
}

/// Accounts a periodic sync that an engine completed from its queue (in
/// the statistics only after `epoch`); on an error, fails the job as fio
/// does and returns false.
pub(super) fn sync_done(
    result: &mut JobResult,
    slot: &mut Slot,
    kind: SyncKind,
    r: i64,
    at: Nanos,
    epoch: Nanos,
) -> bool {
    match slot.ended(r, at) {
        Ok(submitted) if at >= epoch => count_sync(result, kind, at.saturating_sub(submitted)),
        Ok(_) => {}
        Err(code) => {
            let text = std::io::Error::from_raw_os_error(code);
            result.fail(code, kind.call(), format!("fio: sync failed: {text}"));
            return false;
        }
    }
    true
}

/// Accounts one periodic sync that took `took` nanoseconds: every kind is
/// timed, but only fsyncs count as syncs; fio counts its fdatasync and
/// sync_file_range calls one slot past its fsync count, where the short
/// read and short write counts lie.
fn count_sync(result: &mut JobResult, kind: SyncKind, took: Nanos) {
    result.sync_lat.add(took);
    result.sync_hist.add(took);
    result.syncs += u64::from(kind == SyncKind::Full);
    match kind {
        SyncKind::Data => result.dir_mut(Dir::Read).short += 1,
        SyncKind::Range => result.dir_mut(Dir::Write).short += 1,
        SyncKind::Full => {}
    }
}

/// Which periodic sync is due before the next I/O, if any, by the
/// writes issued so far.
fn sync_due(cfg: &JobConfig, writes: u64, last_was_sync: bool) -> Option<SyncKind> {
    if writes == 0 || last_was_sync {
        return None;
    }
    if cfg.sync.fsync_blocks > 0 && writes.is_multiple_of(cfg.sync.fsync_blocks) {
        return Some(SyncKind::Full);
    }
    if cfg.sync.fdatasync_blocks > 0 && writes.is_multiple_of(cfg.sync.fdatasync_blocks) {
        return Some(SyncKind::Data);
    }
    if let Some(range) = cfg.sync.sync_range
        && range.every > 0
        && writes.is_multiple_of(range.every)
    {
        return Some(SyncKind::Range);
    }
    None
}
