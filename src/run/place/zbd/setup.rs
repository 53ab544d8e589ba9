//! fio's zone setup, before a job's files are laid out: the zones made
//! from the file's size, and the job's region checked against (or
//! rounded to) whole zones.

use std::path::Path;

use super::spec::{ZbdSpec, lock};
use super::zones::{MAX_OPEN_ZONES, Zone, ZoneTable};
use crate::engine::Dir;
use crate::result::JobError;
use crate::run::place::parts::PlaceParts;
use crate::run::workload::{BlockSizes, WorkloadConfig};

/// A setup failure: fio says some only on stderr (no error code), and
/// fails the job with an error code for others.
fn quiet(message: String) -> JobError {
    JobError {
        errno: 0,
        func: String::new(),
        message,
    }
}

/// fio's zone setup for one job, before its files are laid out: each
/// file's zones (made from the file's size now, unless a job before made
/// them), then the checks of the job's region against them. `say`
/// prints fio's lines about regions it rounds to whole zones (on stdout,
/// as fio's are).
pub fn set_up(cfg: &PlaceParts<'_>, say: &mut dyn FnMut(&str)) -> Result<(), JobError> {
    let Some(spec) = &cfg.placement.zbd else {
        return Ok(());
    };
    for (path, table) in cfg.files.paths.iter().zip(&spec.tables) {
        let mut guard = lock(table);
        if guard.is_none() {
            *guard = Some(make_table(cfg, spec, path)?);
        }
    }
    for ((path, table), &region) in cfg
        .files
        .paths
        .iter()
        .zip(&spec.tables)
        .zip(&cfg.files.regions)
    {
        let guard = lock(table);
        let Some(t) = guard.as_ref() else { continue };
        if t.zone_size != spec.zone_size {
            return Err(quiet(format!(
                "{}: zonesize {} does not match the device zone size {}.",
                path.display(),
                spec.zone_size,
                t.zone_size
            )));
        }
        let in_file = cfg.files.offset < t.zones[t.zone_count() as usize].start && region > 0;
        if in_file && spec.zone_skip % t.zone_size != 0 {
            return Err(quiet(format!(
                "{}: zoneskip {} is not a multiple of the device zone size {}.",
                path.display(),
                spec.zone_skip,
                t.zone_size
            )));
        }
        let mut lines = Vec::new();
        let aligned = aligned_region(cfg.workload, t, cfg.files.offset, region, path, &mut lines);
        for line in &lines {
            say(line);
        }
        aligned.map_err(|()| quiet(String::new()))?;
    }
    // fio's zbd_verify_bs: a trim resets one whole zone.
    let trim_bs = &cfg.workload.bs[Dir::Trim as usize];
    if cfg.workload.pattern.trim {
        if trim_bs.min() != trim_bs.max() || matches!(trim_bs, BlockSizes::Split { .. }) {
            say("bsrange and bssplit are not allowed for trim with zonemode=zbd");
            return Err(quiet(String::new()));
        }
        for (path, table) in cfg.files.paths.iter().zip(&spec.tables) {
            let zone_size = lock(table).as_ref().map_or(0, |t| t.zone_size);
            if trim_bs.min() != zone_size {
                say(&format!(
                    "{}: trim block size {} is not the zone size {zone_size}",
                    path.display(),
                    trim_bs.min()
                ));
                return Err(quiet(String::new()));
            }
        }
    }
    for table in &spec.tables {
        let max_open = lock(table).as_ref().map_or(0, |t| t.max_open);
        if spec.max_open_zones > 0 && max_open != spec.max_open_zones {
            return Err(quiet("Different 'max_open_zones' values".to_string()));
        }
        if spec.job_max_open_zones > 0 && max_open == 0 {
            return Err(quiet(
                "'job_max_open_zones' cannot be used without a global open zones limit".to_string(),
            ));
        }
    }
    Ok(())
}

/// The size fio sees for a file when it makes its zones: its size on
/// disk (0 when missing), but for an engine that cannot tell file sizes
/// (null), the job's size shared among its files.
fn real_size(cfg: &PlaceParts<'_>, path: &Path) -> u64 {
    if cfg.diskless {
        return cfg.files.size / cfg.files.paths.len().max(1) as u64;
    }
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// fio's init_zone_info: zones of the zone size over the whole file,
/// all empty.
fn make_table(cfg: &PlaceParts<'_>, spec: &ZbdSpec, path: &Path) -> Result<ZoneTable, JobError> {
    let name = path.display();
    let size = spec.zone_size;
    if size == 0 {
        return Err(quiet(format!(
            "{name}: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd\n"
        )));
    }
    if size < 512 {
        return Err(quiet(format!(
            "{name}: zone size must be at least 512 bytes for --zonemode=zbd\n"
        )));
    }
    let capacity = match spec.zone_capacity {
        0 => size,
        c => c,
    };
    if capacity > size {
        return Err(quiet(format!(
            "{name}: job parameter zonecapacity {} is larger than zone size {size}",
            spec.zone_capacity
        )));
    }
    let file_len = real_size(cfg, path);
    if file_len < size {
        return Err(JobError {
            errno: libc::EINVAL,
            func: "zbd_create_zone_info() failed".to_string(),
            message: format!(
                "{name}: file/device size {file_len} is smaller than zone size {size}"
            ),
        });
    }
    let count = file_len.div_ceil(size);
    let mut zones: Vec<Zone> = (0..=count)
        .map(|i| Zone {
            start: i * size,
            wp: i * size,
            capacity,
            open: false,
            reset_next: false,
        })
        .collect();
    // The sentinel holds no data.
    if let Some(last) = zones.last_mut() {
        last.capacity = 0;
    }
    Ok(ZoneTable {
        zone_size: size,
        zones,
        max_open: spec.max_open_zones,
        open: vec![0; MAX_OPEN_ZONES],
        open_count: 0,
        with_data: 0,
        write_cnt: 0,
    })
}

/// fio's zbd_zone_align_file_sizes: a job that writes has its region
/// moved up to the next zone start and cut down to whole zones (saying
/// so); a region with no whole zone left fails the job (also said in
/// `lines`, where fio says it: on stdout).
pub(super) fn aligned_region(
    workload: &WorkloadConfig,
    t: &ZoneTable,
    mut offset: u64,
    mut io_size: u64,
    path: &Path,
    lines: &mut Vec<String>,
) -> Result<(u64, u64), ()> {
    let name = path.display();
    // fio compares the whole rw value: only rw=read is left as it is.
    let read_only = workload.pattern.read
        && !workload.pattern.write
        && !workload.pattern.trim
        && !workload.pattern.random;
    let zone_size = t.zone_size;
    if offset >= t.zones[t.zone_count() as usize].start || io_size == 0 || read_only {
        return Ok((offset, io_size));
    }
    let too_small = format!("{name}: io_size must be at least one zone");
    let zone_start = |at: u64| t.zones[t.index(at) as usize].start;
    if offset != zone_start(offset) {
        let next = zone_start(offset) + zone_size;
        if next >= offset + io_size {
            lines.push(too_small);
            return Err(());
        }
        lines.push(format!("{name}: rounded up offset from {offset} to {next}"));
        io_size -= next - offset;
        offset = next;
    }
    let end = zone_start(offset + io_size);
    if offset + io_size != end {
        if end <= offset {
            lines.push(too_small);
            return Err(());
        }
        lines.push(format!(
            "{name}: rounded down io_size from {io_size} to {}",
            end - offset
        ));
        io_size = end - offset;
    }
    Ok((offset, io_size))
}
