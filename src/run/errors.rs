//! Which I/O errors a job carries on after: fio's continue_on_error
//! kinds with their ignore_error lists.

use crate::engine::{self, Dir, caps};
use crate::options::Value;
use crate::plan::JobSpec;

/// What the job does about failed I/Os.
#[derive(Debug, Clone)]
pub struct ErrorsConfig {
    /// continue_on_error as fio's bits: 1 read, 2 write, 4 verify; an
    /// ignore_error list sets its kind's bit.
    pub continue_on_error: u8,
    /// ignore_error's errnos per kind (read, write, verify); an empty
    /// list means fio's default, EIO and EILSEQ.
    pub ignore_errors: [Vec<i32>; 3],
    /// error_dump: log every error, also those the job carries on after.
    pub error_dump: bool,
    /// The job's engine is one of fio's sync family, which report an
    /// I/O's error as it is queued rather than when it is reaped.
    pub reports_in_queue: bool,
}

impl ErrorsConfig {
    /// Reads continue_on_error, ignore_error and error_dump.
    pub fn from_spec(job: &JobSpec, kind: &engine::Kind) -> Self {
        let ignore_errors: [Vec<i32>; 3] = match job.value("ignore_error") {
            Some(Value::ErrorLists(lists)) => lists.clone(),
            _ => Default::default(),
        };
        let kinds = match job.value("continue_on_error") {
            Some(Value::Word { word, .. }) => match *word {
                "read" => 1,
                "write" => 2,
                "io" => 3,
                "verify" => 4,
                "all" | "1" => 7,
                _ => 0,
            },
            _ => 0,
        };
        ErrorsConfig {
            continue_on_error: kinds
                | (0..3)
                    .filter(|&k| !ignore_errors[k].is_empty())
                    .fold(0, |bits, k| bits | 1 << k),
            ignore_errors,
            error_dump: job.flag("error_dump"),
            reports_in_queue: kind.has(caps::SYNC_FAMILY),
        }
    }
}

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
pub fn verdict(cfg: &ErrorsConfig, dir: Dir, errno: i32) -> Verdict {
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

/// The context fio reports for the first error a job carried on after:
/// the engine's own for the sync family, none for the others, and the
/// generic one when error_dump logged it.
pub fn carried_on_context(cfg: &ErrorsConfig) -> &'static str {
    if cfg.error_dump {
        "io_u error"
    } else if cfg.reports_in_queue {
        "xfer"
    } else {
        ""
    }
}

/// Whether fio warns about direct I/O for a first I/O that failed with
/// `errno` and that the job carried on after: only when the error came
/// back as the I/O was queued.
pub fn warns_of_direct_io(cfg: &ErrorsConfig, direct: bool, errno: i32) -> bool {
    direct && errno == libc::EINVAL && cfg.reports_in_queue
}
