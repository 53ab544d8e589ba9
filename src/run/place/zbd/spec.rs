//! What a job's zbd options ask for, read before the run (a part of the
//! job's config), and the zone tables that jobs naming one file share.
//! Apart from the zones' use in the job loop (the rest of this folder),
//! so that the config can hold a spec without importing the code that
//! takes the whole config.

use std::sync::{Arc, Mutex, MutexGuard};

use super::zones::ZoneTable;
use crate::engine::{self, caps};
use crate::options::Value;
use crate::plan::JobSpec;
use crate::run::refusal::Refusal;

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

impl ZbdSpec {
    /// zonemode=zbd's options. ferrio emulates zones in regular files only
    /// (fio's ZBD_NONE model); what it does not model is refused here.
    pub fn from_spec(job: &JobSpec, kind: &engine::Kind) -> Result<Option<Self>, Refusal> {
        if !matches!(job.value("zonemode"), Some(Value::Word { word: "zbd", .. })) {
            return Ok(None);
        }
        let refuse = |what: &str| {
            Err(Refusal(format!(
                "job '{}': zonemode=zbd {what} is not run by ferrio yet",
                job.name
            )))
        };
        if job.verifies() {
            return refuse("with verify (fio replays the zones' write order)");
        }
        if job.setting("read_iolog").is_some() {
            return refuse("with read_iolog");
        }
        // Engines on files, and null that fakes them; the others' targets
        // are not files fio would emulate zones in.
        if !kind.has(caps::FILE_IO) && !kind.has(caps::FAKE_IO) {
            return refuse(&format!("with ioengine={}", job.engine));
        }
        let max_open = job.num("max_open_zones").unwrap_or(0) as u32;
        let depth = job.num("iodepth").unwrap_or(1);
        let synchronous = kind.has(caps::FILE_IO | caps::SYNC_IO);
        if max_open > 0 && depth > 1 && !synchronous {
            // fio closes a zone as the write that fills it completes, which
            // ferrio does not follow for I/O in flight.
            return refuse("with max_open_zones and iodepth above 1 on an asynchronous engine");
        }
        let regular = |name: &String| std::fs::metadata(name).map_or(true, |m| m.is_file());
        let dir = match job.value("directory") {
            Some(Value::Text(d)) if !d.is_empty() => Some(d.clone()),
            _ => None,
        };
        for name in job.filenames() {
            let path = match &dir {
                Some(d) if !name.starts_with('/') => format!("{d}/{name}"),
                _ => name,
            };
            if !regular(&path) {
                return Err(Refusal(format!(
                    "job '{}': zonemode=zbd on {path}: ferrio emulates zones in regular files \
                     only; zoned and other block devices are not run by ferrio yet",
                    job.name
                )));
            }
        }
        let fraction = |name: &str| match job.value(name) {
            Some(Value::Floats { values, .. }) => values.first().copied().unwrap_or(0.0),
            _ => 0.0,
        };
        Ok(Some(ZbdSpec {
            zone_size: job.num("zonesize").unwrap_or(0),
            zone_capacity: job.num("zonecapacity").unwrap_or(0),
            read_beyond_wp: job.flag("read_beyond_wp"),
            zone_skip: job.num("zoneskip").unwrap_or(0),
            max_open_zones: max_open,
            job_max_open_zones: job.num("job_max_open_zones").unwrap_or(0) as u32,
            reset_threshold: fraction("zone_reset_threshold"),
            reset_frequency: fraction("zone_reset_frequency"),
            tables: Vec::new(),
        }))
    }
}

/// A file's zones, made by the first job that sets the file up.
#[derive(Debug, Default)]
pub struct SharedZones(Mutex<Option<ZoneTable>>);

/// The table of every job file with zbd zones: files of the same name
/// share one, as in fio. Each job is given as its paths and its zbd spec.
pub fn share<'a>(jobs: impl Iterator<Item = (&'a [std::path::PathBuf], &'a mut Option<ZbdSpec>)>) {
    let mut seen: Vec<(std::path::PathBuf, Arc<SharedZones>)> = Vec::new();
    for (paths, zbd) in jobs {
        let Some(spec) = zbd else { continue };
        spec.tables = paths
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
pub(super) fn lock(table: &SharedZones) -> MutexGuard<'_, Option<ZoneTable>> {
    table.0.lock().unwrap_or_else(|e| e.into_inner())
}
