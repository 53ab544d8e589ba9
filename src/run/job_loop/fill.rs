//! Filling the queue: the next I/O's place, and its preparation.

#[allow(unused_imports)]
use super::*;

/// When no I/O could be placed: whether that is because no zone could
/// take it (zbd), which fails the job, recorded in `result`.
pub(super) fn zbd_failed(placer: &mut Placer, result: &mut JobResult) -> bool {
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
pub(super) fn next_io(
    cfg: &JobConfig,
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
        if cfg.file_service.skewed() {
            placer.files[file].reset(cfg);
        }
    }
    None
}

/// A file engine's operation as the job's completion-latency sample, in
/// the direction fio files it under: read for a job that reads, else
/// write; a clat log gets it as an entry of no size at offset 0.
pub(super) fn file_op_sample(
    cfg: &JobConfig,
    result: &mut JobResult,
    logs: &mut Option<JobLogs>,
    took: u64,
    time_ms: u64,
) {
    let dir = if !cfg.pattern.read && cfg.pattern.write {
        Dir::Write
    } else {
        Dir::Read
    };
    let stats = result.dir_mut(dir);
    stats.clat.add(took);
    stats.clat_fine.add(took);
    if cfg.measure.clat_hist {
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
            ioprio: cfg.default_ioprio,
        };
        logs.completed(&op, &stats.clat_hist);
    }
}
