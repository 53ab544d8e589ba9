//! After the loop: the last wait for what is in flight, the read-back
//! pass, and the report's wrap-up (runtimes, depth, logs, final syncs,
//! verify state, unlink).

use super::complete::settle;
use super::vstate::{answer_trigger, writes_issued};
use super::{JobLoop, errno};
use crate::engine::{Dir, caps};
use crate::result::JobResult;
use crate::run::pacing::clock::{self, Nanos, ms_between};
use crate::run::status::progress::State;
use crate::run::storage::lazy_open::UNOPENED;
use crate::run::verification::trim_backlog;
use crate::run::verification::verify_trail;
use crate::stats::CpuUsage;

impl JobLoop<'_, '_> {
    /// Ends the job's I/O and makes its result.
    pub(super) fn finish(mut self) -> JobResult {
        let cfg = self.cfg;
        self.drain();
        if let Some(v) = &mut self.verifying {
            settle(cfg, &mut self.result, v);
        }
        if !self.died
            && let (Some(t), Some(v)) = (&mut self.trims, &self.verifying)
        {
            self.died = t.writes_over(v, self.last_was_read);
        }
        // fio syncs at the end of its I/O loop, before it takes the
        // job's runtime (do_io, then update_runtime): the sync's time is
        // the writes' time, which is what a conv=fdatasync-style figure is.
        self.final_syncs();
        let writes_end = clock::now();
        let verify_took = self.verify_at_end(writes_end);
        self.result.zone_resets = self.placer.zbd.resets;
        let end = clock::now();
        self.progress.set_state(State::Finishing);
        self.time_result(writes_end, verify_took, end);
        self.write_out(end);
        self.save_verify_state();
        self.close()
    }

    /// The read-back pass over the blocks not checked yet (fio's
    /// do_verify); its time (with the verify passes between loops) is
    /// the read direction's runtime.
    fn verify_at_end(&mut self, writes_end: Nanos) -> Option<Nanos> {
        let cfg = self.cfg;
        let mut verify_took = None;
        // fio's verify pass ends at once when the runtime is over.
        let time_left = self.deadline.is_none_or(|d| writes_end < d);
        if let Some(v) = &mut self.verifying
            && cfg.workload.pattern.write
            && v.spec.read_back
            && self.result.error.is_none()
            && !self.stop.any()
            && time_left
            && !self.died
        {
            self.verify_reseeded = true;
            let rest = v.rest();
            // The read-back may go to any file: open those closed (openfiles).
            // A failure is the job's error; the pass runs on the files open.
            let _ = self.open_all();
            if !self.result.failed() {
                self.read_back(&rest);
            }
            verify_took = Some(clock::now().saturating_sub(writes_end));
        }
        // The verify passes between loops count in the reads' runtime, not
        // the writes'.
        if self.verify_spent > 0 {
            verify_took = Some(verify_took.unwrap_or(0) + self.verify_spent);
        }
        verify_took
    }

    /// The job's runtimes, its latency depth and its mean depth.
    fn time_result(&mut self, writes_end: Nanos, verify_took: Option<Nanos>, end: Nanos) {
        let cfg = self.cfg;
        let result = &mut self.result;
        result.finish(std::time::Duration::from_nanos(
            writes_end
                .saturating_sub(self.ramp_end)
                .saturating_sub(self.verify_spent),
        ));
        if let Some(took) = verify_took {
            // A job that reads as well times its reads over the loops and the
            // passes both (fio adds each pass to the read time of its loop).
            let loops_ns =
                if cfg.workload.pattern.read && result.dirs[Dir::Read as usize].runtime_ms > 0 {
                    result.runtime.as_nanos() as u64
                } else {
                    0
                };
            result.dirs[Dir::Read as usize].runtime_ms =
                ((loops_ns + took) / 1000).div_ceil(1000).max(1);
            result.runtime += std::time::Duration::from_nanos(took);
        } else if cfg.workload.pattern.write
            && !cfg.workload.pattern.read
            && self.verifying.as_ref().is_some_and(|v| v.spec.read_back)
        {
            // A writer's reads are timed only by its verify passes: backlog
            // reads of a job whose runtime ran out before one have none.
            result.dirs[Dir::Read as usize].runtime_ms = 0;
        }
        if let Some(lt) = &self.lat_target {
            result.latency_depth = lt.depth;
        }
        if self.verifying.as_ref().is_some_and(|v| v.spec.only) {
            // fio's dry run of the writes takes no time, and skips the setup
            // of its I/O loop, latency depth included.
            result.dirs[Dir::Write as usize].runtime_ms = 0;
            result.latency_depth = 0;
        }
        (result.depth_mean, result.depth_per_second) = if self.traits.synchronous {
            let seconds = result.runtime.as_secs() as usize;
            (1.0, vec![1.0; seconds])
        } else {
            (
                self.depth.mean(end),
                std::mem::take(&mut self.depth.per_second),
            )
        };
    }

    /// The last of the live tally, the job's logs and its CPU use.
    fn write_out(&mut self, end: Nanos) {
        let progress = self.progress;
        // The last of the live tally: everything up to the end of the I/O.
        if let Some(tally) = &mut self.records.live {
            progress.hand_over(tally, end.max(self.ramp_end));
            progress.set_depth(0);
        }
        // A job that died as fio's does never writes its logs out.
        if let Some(logs) = self.records.logs.take().filter(|_| !self.died) {
            let end_ms = ms_between(self.ramp_end, end);
            if let Err(e) = logs.write(end_ms) {
                self.result.fail(
                    errno(&e),
                    "write log",
                    format!("fio: writing the job's logs failed: {e}"),
                );
            }
        }
        if let Some(start) = self.cpu_start {
            self.result.cpu = CpuUsage::of_this_thread().since(&start);
        }
        if self.died {
            trim_backlog::died(&mut self.result, trim_backlog::ABORT_SIGNAL);
        }
    }

    /// end_fsync and fsync_on_close: a last sync of every file, timed
    /// with the writes but not counted among the syncs.
    fn final_syncs(&mut self) {
        let cfg = self.cfg;
        let wanted = (cfg.sync.end_fsync || cfg.sync.fsync_on_close) && cfg.workload.pattern.write;
        if self.result.failed() || self.died || !wanted {
            return;
        }
        for (i, (&file, path)) in self.files.iter().zip(&cfg.files.paths).enumerate() {
            if file == UNOPENED {
                continue;
            }
            if let Some(w) = &mut self.iolog {
                w.final_sync(i, self.free.last().map_or(0, |&i| self.slots[i].offset));
            }
            if let Err(e) = self.eng.sync(file, false) {
                self.result.fail(
                    errno(&e),
                    "fsync",
                    format!("fio: final sync of {} failed: {e}", path.display()),
                );
            }
        }
    }

    /// verify_state_save: a writing, verifying job records how far its
    /// writes got, however it ended, unless a trigger saved its state
    /// (then, or now if it asked and the job had not answered yet).
    fn save_verify_state(&self) {
        let cfg = self.cfg;
        let progress = self.progress;
        let verifying = self.verifying.as_ref();
        let replayed = verifying.map_or(0, |v| v.trail.replayed);
        let rand = || {
            verify_trail::rand_state(
                &self.place,
                &self.draws.offsets,
                self.verify_reseeded,
                replayed,
            )
        };
        answer_trigger(
            progress,
            cfg,
            verifying,
            &self.draws,
            self.verify_reseeded,
            &self.result,
        );
        if !progress.vstate.saved()
            && let Some(v) = verifying
            && v.spec.state_save
            && cfg.workload.pattern.write
        {
            verify_trail::save(
                v.spec.dump_dir.as_deref(),
                &v.trail.state(&cfg.state_parts(), rand()),
            );
        }
        progress
            .vstate
            .ended(writes_issued(verifying, &self.result), rand());
    }

    /// What the engine has to say of the job, then the engine closed,
    /// the write_iolog finished and the files unlinked (unlink).
    fn close(self) -> JobResult {
        let cfg = self.cfg;
        let JobLoop {
            mut result,
            eng,
            files,
            slots,
            _region: mut region,
            iolog,
            ..
        } = self;
        result.connection = eng.connection();
        result.dir_mut(Dir::Read).dropped = eng.dropped();
        result.slowest.name(|file, offset| {
            let object = files.get(file).and_then(|&f| eng.object_of(f, offset));
            let path = cfg.files.paths.get(file).map(|p| p.display().to_string());
            (path.unwrap_or_default(), object)
        });
        if eng.abandoned() {
            // I/O given up on may still land in these buffers: they stay
            // allocated for the rest of the process.
            std::mem::forget(slots);
            if let Some(region) = region.take() {
                region.keep_mapped();
            }
        }
        let mut eng = eng;
        if cfg.files.unlink && cfg.kind.has(caps::OWN_STORE) {
            // The engine's files are in its own store: it removes them
            // there, while it is still connected.
            for path in &cfg.files.paths {
                if let Some(Err(e)) = eng.unlink(path) {
                    let text = format!("fio: unlink of {} failed: {e}", path.display());
                    result.fail(errno(&e), "unlink", text);
                }
            }
        }
        drop(eng);
        if let Some(w) = iolog
            && let Err(e) = w.finish()
        {
            let path = cfg
                .logging
                .write_iolog
                .as_deref()
                .unwrap_or(std::path::Path::new(""));
            let text = format!("fio: writing iolog {}: {e}", path.display());
            result.fail(errno(&e), "write iolog", text);
        }
        if cfg.files.unlink && !cfg.kind.has(caps::OWN_STORE) {
            // Only regular files, as in fio: a job on a device or /dev/null
            // must never remove the node.
            let regular = |p: &std::path::Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
            for path in cfg.files.paths.iter().filter(|p| regular(p)) {
                if let Err(e) = std::fs::remove_file(path) {
                    result.fail(
                        errno(&e),
                        "unlink",
                        format!("fio: unlink of {} failed: {e}", path.display()),
                    );
                }
            }
        }
        result
    }
}
