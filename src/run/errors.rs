//! Which I/O errors a job carries on after: fio's continue_on_error
//! kinds with their ignore_error lists.

use crate::engine::Dir;
use crate::run::config::JobConfig;

/// What becomes of a job after one of its I/Os failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// continue_on_error does not cover this kind of error: the job ends.
    Ends,
    /// The kind is covered but this error is not in its list: the job
    /// ends, with the error counted.
    EndsCounted,
    /// The error is in its kind's list: counted, and the job goes on.
    CarriesOn,
}

/// fio's kinds of error: 0 read, 1 write, 2 verify (EILSEQ, whatever the
/// direction).
fn kind(dir: Dir, errno: i32) -> usize {
    match (errno, dir) {
        (libc::EILSEQ, _) => 2,
        (_, Dir::Read) => 0,
        _ => 1,
    }
}

/// What fio does after an I/O of `dir` failed with `errno`.
pub fn verdict(cfg: &JobConfig, dir: Dir, errno: i32) -> Verdict {
    let kind = kind(dir, errno);
    if cfg.continue_on_error & (1 << kind) == 0 {
        return Verdict::Ends;
    }
    let listed = match cfg.ignore_errors[kind].as_slice() {
        [] => matches!(errno, libc::EIO | libc::EILSEQ),
        list => list.contains(&errno),
    };
    if listed {
        Verdict::CarriesOn
    } else {
        Verdict::EndsCounted
    }
}

/// Whether the job's engine is one of fio's sync family, which report
/// an I/O's error as it is queued rather than when it is reaped.
fn reports_in_queue(cfg: &JobConfig) -> bool {
    cfg.kind.has(crate::engine::caps::SYNC_FAMILY)
}

/// The context fio reports for the first error a job carried on after:
/// the engine's own for the sync family, none for the others, and the
/// generic one when error_dump logged it.
pub fn carried_on_context(cfg: &JobConfig) -> &'static str {
    if cfg.error_dump {
        "io_u error"
    } else if reports_in_queue(cfg) {
        "xfer"
    } else {
        ""
    }
}

/// Whether fio warns about direct I/O for a first I/O that failed with
/// `errno` and that the job carried on after: only when the error came
/// back as the I/O was queued.
pub fn warns_of_direct_io(cfg: &JobConfig, errno: i32) -> bool {
    cfg.direct && errno == libc::EINVAL && reports_in_queue(cfg)
}
