//! The end of a pass over the job's files, and the start of the next:
//! fio's next loop, with the verify pass a writing job's loop ends in.

use super::{JobLoop, Next, Phase, errno, issued};
use crate::engine::caps;
use crate::engine::{Engine, OpenMode};
use crate::run::config::JobConfig;
use crate::run::pacing::clock;
use crate::run::place::placement::{draws_wide, job_draws};
use crate::run::storage::lazy_open::UNOPENED;

impl JobLoop<'_, '_> {
    /// Whether the pass's bytes are done.
    ///
    /// A new pass over the files (fio's next loop, or a time-based
    /// job that has covered its size): fio waits for the I/O in
    /// flight and reopens the files, which drops their cached
    /// pages again; offsets and the random map start over.
    /// A job that reads and writes (not time-based) ends a pass
    /// only when its offsets run out or its loop's bytes were
    /// queued to an engine that completes later: its directions
    /// keep their own positions, so one loop may issue more than
    /// its size.
    #[inline]
    pub(super) fn pass_done(&self) -> bool {
        if self.traits.runs_on {
            self.loop_queued >= self.loop_bytes
        } else {
            self.issued().1 - self.pass_start >= self.cfg.timing.pass_bytes
        }
    }

    /// The end of a pass, nothing being in flight: the job goes on with
    /// the next, or ends.
    pub(super) fn end_pass(&mut self) -> Next {
        let cfg = self.cfg;
        let issued_bytes = self.issued().1;
        // A pass that ran out of offsets is followed by another
        // only as fio's keep_running allows.
        // A pass that issued nothing would repeat forever.
        let idle = issued_bytes == self.loop_start;
        // fio's loop (its do_io) ends when the files' offsets
        // run out, when the job's bytes for all its loops are
        // done, or once its size was queued to an engine that
        // completes I/O later (fio does not count what a
        // synchronous engine completes); a pass of ferrio's
        // may be less. So a first loop whose offsets last
        // (reads and writes each with their own position,
        // norandommap) goes on past its size.
        let loop_over = if cfg.timing.time_based {
            // A time-based loop wraps its files: only the
            // bytes queued end it.
            self.loop_queued >= self.loop_bytes
        } else {
            self.out_of_offsets
                || issued_bytes >= cfg.timing.io_bytes
                || self.loop_queued >= self.loop_bytes
        };
        // A verifying writer checks its blocks at the end of
        // each loop; then the reads count in fio's
        // keep_running as much as the writes.
        let verifier = self
            .verifying
            .as_ref()
            .is_some_and(|v| cfg.workload.pattern.write && v.spec.read_back && !v.spec.only);
        let verifies = verifier && loop_over;
        // A pass within one of fio's loops is not a loop.
        if loop_over || (!verifier && cfg.timing.time_based) {
            self.passes += 1;
        }
        if verifies
            && let (Some(t), Some(v)) = (&mut self.trims, &self.verifying)
            && t.writes_over(v, self.last_was_read)
        {
            self.died = true;
            return Next::End;
        }
        if verifies
            && !idle
            && let Err(next) = self.verify_loop()
        {
            return next;
        }
        let max_len = self.max_len as u64;
        let another = if verifies {
            let moved = self.issued().1 + self.verify_moved;
            cfg.timing.time_based
                || self.passes < cfg.timing.loops
                || (cfg.timing.io_size_given
                    && cfg.timing.pass_bytes.saturating_sub(moved) >= max_len)
        } else {
            // Past its loops, fio's keep_running goes on
            // while the bytes done fall short of one
            // io_size (not one per loop) by a block or more.
            cfg.timing.time_based
                || self.passes < cfg.timing.loops
                || (cfg.timing.io_size_given
                    && cfg.timing.pass_bytes.saturating_sub(self.issued().1) >= max_len)
        };
        if (self.out_of_offsets || verifies) && (idle || !another) {
            self.finished = true;
            self.draining = false;
            return Next::Again;
        }
        self.out_of_offsets = false;
        // Within one of fio's loops the I/O goes on from
        // where it is.
        if !loop_over && !cfg.timing.time_based {
            self.pass_start = self.issued().1;
            self.draining = false;
            return Next::Again;
        }
        self.next_loop(verifies)
    }

    /// The verify pass at the end of a writing job's loop.
    fn verify_loop(&mut self) -> Phase {
        self.loop_queued = 0;
        self.verify_reseeded = true;
        // The checks may go to any file: open those closed
        // (openfiles).
        self.open_all()?;
        if let Some(v) = &mut self.verifying {
            let rest = v.rest();
            let moved = rest.iter().map(|w| u64::from(w.len)).sum::<u64>();
            self.verify_moved += moved;
            self.verify_ios += rest.len() as u64;
            if v.spec.replay {
                self.replayed_bytes += moved;
            }
            let began = clock::now();
            self.read_back(&rest);
            self.clock = clock::now();
            self.verify_spent += self.clock.saturating_sub(began);
        }
        if self.result.error.is_some() || self.stop.any() {
            return Err(Next::End);
        }
        Ok(())
    }

    /// fio's next loop: the files closed and opened again, the
    /// placements started over, and the generators too when the job
    /// repeats its randomness.
    fn next_loop(&mut self, verifies: bool) -> Next {
        let cfg = self.cfg;
        // fio closes the files between loops (and logs it), but
        // not when a time-based job starts its files over.
        if let Some(w) = &mut self.iolog
            && !cfg.timing.time_based
        {
            for file in 0..cfg.files.paths.len() {
                w.close(file);
            }
        }
        self.chooser.restart();
        self.pass_start = issued(&self.work).1;
        self.loop_start = self.pass_start;
        if self.traits.runs_on {
            self.loop_queued = 0;
        }
        // fio closes the files between loops (openfiles: and
        // opens each again when the job comes to it).
        if let Some(l) = &mut self.lazy {
            l.close_all(self.eng.as_mut(), &mut self.files);
        }
        if cfg.files.unlink_each_loop
            && !cfg.timing.time_based
            && let Err((code, func, text)) = unlink_and_reopen(
                cfg,
                self.eng.as_mut(),
                self.mode,
                &mut self.files,
                self.at_start,
            )
        {
            self.result.fail(code, &func, text);
            return Next::End;
        }
        if cfg.files.invalidate && !cfg.kind.has(caps::FAKE_IO) {
            for (path, &file) in cfg.files.paths.iter().zip(self.files.iter()) {
                // A time-based job starts its files over without
                // reopening them: fio drops their pages through the
                // descriptors it holds, so a file removed meanwhile goes
                // on being read and written, as it does in fio. Otherwise
                // fio opens the files again, by name.
                let held = (cfg.timing.time_based && file != UNOPENED)
                    .then(|| self.eng.invalidate_open(file))
                    .flatten();
                if let Err(e) = held.unwrap_or_else(|| self.eng.invalidate(path)) {
                    let path = path.display();
                    let text = format!("fio: invalidating {path}: {e}");
                    self.result.fail(errno(&e), "invalidate_cache", text);
                    return Next::End;
                }
            }
        }
        self.placer.restart(&self.place);
        self.verify_reseeded = false;
        self.eng.new_pass();
        // fio's next loop draws again from the start of each
        // sequence when the job repeats its randomness.
        // (fio's clear_io_state: after a time-based loop too,
        // when one ends to verify.)
        if cfg.placement.seeds.repeat && (!cfg.timing.time_based || verifies) {
            self.draws.start_over(job_draws(&self.place));
            if let Some(v) = &mut self.verifying {
                v.reseed();
            }
            self.chooser.reseed(&cfg.placement);
            if let Some(t) = &mut self.trims {
                t.start_over(&cfg.placement.seeds, draws_wide(&self.place));
            }
        }
        self.draining = false;
        Next::Again
    }
}

/// unlink_each_loop between two loops: fio removes the job's regular
/// files, then opens them as any loop does, which creates a writing job's
/// files empty (nothing is laid out again) and fails a reading job's.
/// Only the `first` files are opened (openfiles); the rest as the job
/// comes to them.
fn unlink_and_reopen(
    cfg: &JobConfig,
    eng: &mut dyn Engine,
    mode: OpenMode,
    files: &mut [usize],
    first: usize,
) -> Result<(), (i32, String, String)> {
    // fio closes the files before it removes them.
    for file in files.iter_mut() {
        if *file != UNOPENED {
            eng.close(*file);
            *file = UNOPENED;
        }
    }
    for path in &cfg.files.paths {
        if std::fs::metadata(path).is_ok_and(|m| m.is_file())
            && let Err(e) = std::fs::remove_file(path)
        {
            let text = format!("fio: unlink of {} failed: {e}", path.display());
            return Err((errno(&e), "unlink_all_files".to_string(), text));
        }
    }
    // fio opens a writing job's files with O_CREAT when it may create them.
    let mode = OpenMode {
        create: mode.create || (cfg.workload.pattern.write && cfg.files.allow_file_create),
        ..mode
    };
    for (file, path) in files.iter_mut().zip(&cfg.files.paths).take(first) {
        match eng.open(path, mode) {
            Ok(f) => *file = f,
            Err(e) => {
                // fio says no more than its error line does.
                let func = format!("open({})", path.display());
                return Err((errno(&e), func, String::new()));
            }
        }
    }
    Ok(())
}
