//! The view of a job's configuration that placement reads, so that
//! the placement modules (offsets, zones) take only what they use.

use crate::run::place::config::PlacementConfig;
use crate::run::storage::config::FilesConfig;
use crate::run::workload::WorkloadConfig;

/// The parts of a job's configuration that decide where its I/O goes:
/// what the I/O is, the placement options, the files and their regions,
/// and three facts of timing, verification and the engine that change a
/// position (a time-based sequential job wraps around; a verifying job
/// draws the verify seed; zones on an engine that cannot tell file sizes
/// share the job's size).
#[derive(Clone, Copy)]
pub struct PlaceParts<'a> {
    pub workload: &'a WorkloadConfig,
    pub placement: &'a PlacementConfig,
    pub files: &'a FilesConfig,
    pub time_based: bool,
    pub verifies: bool,
    /// The engine cannot tell file sizes (null): zoned files take the
    /// job's size shared among them.
    pub diskless: bool,
}
