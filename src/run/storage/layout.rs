//! Laying out a job's data files before it runs, as fio's extend_file
//! does: a file that is missing or too short is removed and created
//! again, its space reserved as `fallocate` asks; a job that reads then
//! has it filled with random data (so that reads touch the device: a
//! sparse file would read as zeros), while a job that only writes starts
//! from the empty (or reserved) file.

use std::fs::OpenOptions;
use std::io;
use std::path::Path;

use crate::engine;
use crate::run::place::offsets::Rng;
use crate::run::storage::parts::StorageParts;
use crate::sys::signals::stop_requested;

/// Creates or extends the job's files to their offset plus size; returns
/// the "Laying out" notice fio prints when it had to, and the warnings of
/// a failed posix_fallocate.
pub fn lay_out(cfg: &StorageParts<'_>) -> io::Result<(Option<String>, Vec<String>)> {
    let mut warnings = Vec::new();
    // fio's diskless engines (null, cpuio, filecreate) lay out no file;
    // an rbd job's file is its image,
    // a rados job's files are objects.
    if !cfg.kind.lays_out() {
        return Ok((None, warnings));
    }
    let mut rng = Rng::new(cfg.layout_seed ^ 0x5eed);
    let (mut files, mut bytes) = (0u64, 0u64);
    // Only a stop that comes during this layout cuts it: a run already
    // stopping (a trigger fired in an earlier group) lays out the files its
    // jobs will open, as before.
    let stopping = stop_requested();
    let stopped = || stop_requested() && !stopping;
    for (path, region, needed) in short_files(cfg) {
        // A stop (SIGINT, SIGTERM) ends the layout: no further file is
        // started, as fio stops.
        if stopped() {
            break;
        }
        files += 1;
        // fio adds offset and size as they are: a fill_device job's
        // unbounded size shows as 2^64 - 1 bytes.
        bytes = bytes.wrapping_add(cfg.files.offset.wrapping_add(*region));
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        // fio fills the file with data for a reading job, and for a
        // writing one with overwrite (unless it appends); other writing
        // jobs start from an empty new file, appending ones keep theirs,
        // and a trim-only job keeps what is there.
        let write = cfg.pattern.write;
        let fill = cfg.pattern.read || (write && cfg.files.overwrite && !cfg.files.file_append);
        if fill || (write && !cfg.files.file_append) {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        let file = match OpenOptions::new()
            .create(cfg.files.allow_file_create)
            .truncate(fill)
            .write(true)
            .open(path)
        {
            Err(e) if e.kind() == io::ErrorKind::NotFound && !cfg.files.allow_file_create => {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    "fio: file creation disallowed by allow_file_create=0",
                ));
            }
            opened => opened?,
        };
        // fill_device reserves nothing: the writes fill the device.
        let how = if cfg.files.fill_device {
            engine::Allocation::None
        } else {
            cfg.files.fallocate
        };
        if let Err(e) = engine::allocate(&file, how, needed) {
            match cfg.files.fallocate {
                engine::Allocation::Posix => {
                    warnings.push(format!("fio: posix_fallocate fails: {e}"));
                }
                _ => return Err(e),
            }
        }
        if !fill {
            continue;
        }
        // fill_device: no length is set ahead, and a full device ends the
        // writing, not the job (which then reads what was written).
        if !cfg.files.fill_device {
            file.set_len(needed)?;
        }
        let mut chunk = vec![0u8; 1 << 20];
        let mut written = 0;
        while written < needed {
            // fio ends a layout cut by a stop within a chunk or so and
            // removes the file it left half written.
            if stopped() {
                break;
            }
            fill_random(&mut chunk, &mut rng);
            let n = ((needed - written) as usize).min(chunk.len());
            match std::os::unix::fs::FileExt::write_all_at(&file, &chunk[..n], written) {
                Err(e)
                    if cfg.files.fill_device
                        && matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) =>
                {
                    break;
                }
                r => r?,
            }
            written += n as u64;
        }
        // Cut by a stop (a full device under fill_device also ends early,
        // and keeps what it wrote).
        if written < needed && stopped() {
            drop(file);
            std::fs::remove_file(path)?;
            break;
        }
        if cfg.files.create_fsync {
            file.sync_all()?;
        }
    }
    let notice = match files {
        0 => None,
        1 => Some(format!(
            "{}: Laying out IO file (1 file / {}MiB)",
            cfg.name,
            bytes >> 20
        )),
        n => Some(format!(
            "{}: Laying out IO files ({n} files / total {}MiB)",
            cfg.name,
            bytes >> 20
        )),
    };
    Ok((notice, warnings))
}

/// The job's regular files that are missing or shorter than the job's
/// offset plus region, which laying out would write: (path, region, the
/// length needed). Files created on open, devices and other special
/// files (whose length reads as 0) are used as they are, as in fio.
pub fn short_files<'a>(cfg: &StorageParts<'a>) -> impl Iterator<Item = (&'a Path, &'a u64, u64)> {
    let files = cfg.files;
    let laid = cfg.kind.lays_out() && !cfg.files.create_on_open;
    files
        .paths
        .iter()
        .zip(&files.regions)
        .filter(move |_| laid)
        .filter_map(move |(path, region)| {
            let needed = files.offset.saturating_add(*region);
            let meta = std::fs::metadata(path);
            if meta.as_ref().is_ok_and(|m| !m.is_file() && !m.is_dir()) {
                return None;
            }
            let current = meta.map(|m| m.len()).unwrap_or(0);
            (current < needed).then_some((path.as_path(), region, needed))
        })
}

/// Fills a buffer with random bytes.
pub fn fill_random(buf: &mut [u8], rng: &mut Rng) {
    for word in buf.chunks_mut(8) {
        let n = word.len();
        word.copy_from_slice(&rng.next_u64().to_le_bytes()[..n]);
    }
}
