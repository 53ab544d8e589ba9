//! Setting the job up: its engine, files and buffers.

#[allow(unused_imports)]
use super::*;

/// The length fio sees for a job file (its real_file_size): the file's
/// or device's size, but at least the region's end (fio counts a file it
/// laid out for a writing job at its full size, data or not).
pub(super) fn file_length(cfg: &JobConfig, path: &std::path::Path, region: u64) -> u64 {
    use std::io::{Seek, SeekFrom};
    let region_end = cfg.offset.saturating_add(region);
    // A file created on open counts as its region's size, as in fio.
    if engine::diskless(&cfg.engine) || cfg.create_on_open {
        return region_end;
    }
    std::fs::File::open(path)
        .and_then(|mut f| f.seek(SeekFrom::End(0)))
        .map_or(region_end, |len| len.max(region_end))
}

/// pre_read: reads each file's region once, in blocks of the largest
/// read size, so that the job's reads find it in the page cache.
pub(super) fn pre_read(cfg: &JobConfig) -> io::Result<()> {
    use std::os::unix::fs::{FileExt, FileTypeExt};
    let bs = cfg.bs[Dir::Read as usize].max().max(1);
    for (path, &region) in cfg.paths.iter().zip(&cfg.regions) {
        let file = std::fs::File::open(path)?;
        if file.metadata()?.file_type().is_char_device() {
            continue;
        }
        let mut buf = vec![0u8; bs.min(region).max(1) as usize];
        let mut at = cfg.offset;
        let end = cfg.offset.saturating_add(region);
        while at < end {
            let n = ((end - at) as usize).min(buf.len());
            if file.read_at(&mut buf[..n], at)? != n {
                return Err(io::Error::from_raw_os_error(libc::EIO));
            }
            at += n as u64;
        }
    }
    Ok(())
}

/// The machine's page size.
pub(super) fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as u64,
        _ => 4096,
    }
}
