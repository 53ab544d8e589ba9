//! The view of a job's configuration that the storage steps read
//! (layout before the run, the --readonly and mounted-device guards), so
//! that they take only what they use.

use crate::engine::Kind;
use crate::run::storage::config::FilesConfig;
use crate::run::workload::Pattern;

/// What laying out and guarding a job's files reads: the job's name (in
/// fio's lines), its files, what it does to them, the engine (whether it
/// lays files out, whether it changes them by other means) and the seed
/// of the layout's random contents.
#[derive(Clone, Copy)]
pub struct StorageParts<'a> {
    pub name: &'a str,
    pub files: &'a FilesConfig,
    pub pattern: &'a Pattern,
    pub kind: &'static Kind,
    pub layout_seed: u64,
}
