//! block_error_percentiles: fio's table of per-block trim states (for
//! flash wear-out tests), as fio 3.33 really reports it.
//!
//! fio keeps one state per trim-sized block of the job's single file. A
//! block leaves its "unwritten" state only when a trim of it completes, or
//! when a write logged for verification fails. On a regular file every
//! trim fails (fio trims with BLKDISCARD, which only block devices take)
//! and a trim that fails is not a logged write, so the table stays all
//! "unwritten". fio then prints the report's header line with its state
//! counts at zero (its counts are never filled in for an all-unwritten
//! table) and nothing in JSON.
//!
//! When a block did change state, fio 3.33's report sorts the table with a
//! comparison that reads each entry together with its neighbour and fails
//! an assertion: the whole fio process aborts before printing anything.
//! There is no output to match, so ferrio refuses the jobs whose trims
//! could complete (block devices, engines that trim by other means).

use std::path::Path;

use crate::plan::JobSpec;
use crate::result::JobError;
use crate::run::refusal::Refusal;
use crate::run::workload::Pattern;

/// fio's largest table of block states.
const MAX_BLOCKS: u64 = 8192;

/// Whether the engine's trims fail on a regular file: those it hands to
/// BLKDISCARD in its queue call. vsync, whose trims are writes, has been
/// let through with them since this check was made; whether fio's
/// block states stay put under vsync's trimwrite is not settled here.
fn trims_fail_on_files(engine: &str) -> bool {
    use crate::engine::caps::{TRIMS_AS_WRITES, TRIMS_IN_QUEUE};
    crate::engine::kind(engine).is_some_and(|k| k.caps & (TRIMS_IN_QUEUE | TRIMS_AS_WRITES) != 0)
}

/// Refuses block_error_percentiles where a trim may complete (see above).
pub fn refusal(job: &JobSpec, rw: &Pattern, paths: &[std::path::PathBuf]) -> Option<Refusal> {
    if !job.flag("block_error_percentiles") || !rw.trim {
        return None;
    }
    let on_device = paths.iter().any(|p| is_block_device(p));
    (on_device || !trims_fail_on_files(&job.engine)).then(|| {
        Refusal(format!(
            "job '{}': block_error_percentiles with trims that may complete is not run by ferrio \
             (fio 3.33 aborts in its report when a block's state changed; run it with fio)",
            job.name
        ))
    })
}

fn is_block_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

/// fio's setup check: the table holds one entry per trim block of the
/// file's `region`, at least one and at most 8192; otherwise the job fails
/// its setup with EINVAL.
pub fn setup_failure(job: &JobSpec, region: u64, trim_bs: u64) -> Option<JobError> {
    if !job.flag("block_error_percentiles") {
        return None;
    }
    // fio holds the count in a C int.
    let blocks = (region / trim_bs.max(1)) as i32;
    (blocks <= 0 || blocks as u64 > MAX_BLOCKS).then(|| JobError {
        errno: libc::EINVAL,
        func: "block_error_hist".to_string(),
        message: format!(
            "fio: cannot calculate block histogram with {blocks} trim blocks, maximum {MAX_BLOCKS}"
        ),
    })
}
