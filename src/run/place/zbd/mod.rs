//! `zonemode=zbd` on targets that are not zoned (fio's ZBD_NONE model):
//! the file is cut into zones of `zonesize` bytes, each with a write
//! pointer that starts at the zone's start when the run begins (whatever
//! the file holds). Writes go to a zone's write pointer and move it on;
//! a full zone is reset before it is written again; reads stay below the
//! write pointer (unless `read_beyond_wp`); a trim resets its zone and
//! never reaches the file. With `max_open_zones`, only that many zones
//! take writes at once. Jobs naming the same file share
//! its zones, as fio shares them by file name, so one job's writes are
//! there for a later job to read.
//!
//! Zoned hardware (host-managed or host-aware devices) is not handled:
//! ferrio refuses zonemode=zbd on anything but a regular file.

mod file;
mod setup;
mod writes;
mod zones;

use std::sync::{Arc, Mutex, MutexGuard};

use zones::ZoneTable;

/// What a job's zbd options ask for, and its files' shared zones.
#[derive(Debug, Clone)]
pub struct ZbdSpec {
    pub zone_size: u64,
    /// Writable bytes per zone (zonecapacity; 0: the whole zone).
    pub zone_capacity: u64,
    pub read_beyond_wp: bool,
    /// zoneskip: bytes a sequential job skips past each zone it is done
    /// with (a multiple of the zone size).
    pub zone_skip: u64,
    pub max_open_zones: u32,
    pub job_max_open_zones: u32,
    /// zone_reset_threshold and zone_reset_frequency (0 to 1).
    pub reset_threshold: f64,
    pub reset_frequency: f64,
    /// One per file of the job, in the order of its paths; set when the
    /// plan is prepared (`share`).
    pub tables: Vec<Arc<SharedZones>>,
}

/// A file's zones, made by the first job that sets the file up.
#[derive(Debug, Default)]
pub struct SharedZones(Mutex<Option<ZoneTable>>);

/// The table of every job file with zbd zones: files of the same name
/// share one, as in fio.
pub fn share(jobs: &mut [crate::run::config::JobConfig]) {
    let mut seen: Vec<(std::path::PathBuf, Arc<SharedZones>)> = Vec::new();
    for job in jobs.iter_mut() {
        let Some(spec) = &mut job.zbd else { continue };
        spec.tables = job
            .paths
            .iter()
            .map(|p| match seen.iter().find(|(q, _)| q == p) {
                Some((_, t)) => Arc::clone(t),
                None => {
                    let t = Arc::new(SharedZones::default());
                    seen.push((p.clone(), Arc::clone(&t)));
                    t
                }
            })
            .collect();
    }
}

/// A table's lock; a job that panicked holding it left the zones as they
/// were, which the others may go on with.
fn lock(table: &SharedZones) -> MutexGuard<'_, Option<ZoneTable>> {
    table.0.lock().unwrap_or_else(|e| e.into_inner())
}

pub use file::{Adjusted, ZbdFile, ZbdJob};
pub use setup::set_up;
