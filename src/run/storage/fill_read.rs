//! fill_device on a job that only reads, without a size: fio lays each
//! file out by writing until the device is full (an ENOSPC there ends the
//! layout, not the job), then reads each file to the end of what it got,
//! its region cut to the file's size.

use crate::engine::Dir;
use crate::run::config::JobConfig;

/// Whether `cfg` is such a job: its files' regions have no bound.
pub fn applies(cfg: &JobConfig) -> bool {
    cfg.files.fill_device
        && cfg.workload.pattern.read
        && !cfg.workload.pattern.write
        && cfg.files.size == u64::MAX / cfg.files.paths.len().max(1) as u64
}

/// The job with each file's region, and so its amount of I/O, cut to
/// what the layout wrote, once the files are laid out; `None` for any
/// other job.
pub fn capped(cfg: &JobConfig) -> Option<JobConfig> {
    if !applies(cfg) {
        return None;
    }
    let mut capped = cfg.clone();
    for (region, path) in capped.files.regions.iter_mut().zip(&cfg.files.paths) {
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        *region = (*region).min(len.saturating_sub(cfg.files.offset));
    }
    // Each file is read in whole blocks, as any pass is.
    let bs = cfg.workload.bs[Dir::Read as usize].min().max(1);
    capped.timing.pass_bytes = capped
        .files
        .regions
        .iter()
        .map(|r| r / bs * bs)
        .sum::<u64>()
        .max(1);
    capped.timing.io_bytes = capped
        .timing
        .pass_bytes
        .saturating_mul(cfg.timing.loops.max(1));
    capped.files.size = capped.files.regions.iter().copied().max().unwrap_or(0);
    Some(capped)
}
