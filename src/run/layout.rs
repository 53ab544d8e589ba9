//! Laying out a job's data files before it runs, as fio does: a file
//! that is missing or too short is created or extended with random data,
//! so that reads touch the device (a sparse file would read as zeros).

use std::fs::OpenOptions;
use std::io;

use super::config::JobConfig;
use super::offsets::Rng;

/// Creates or extends the job's files to their offset plus size; returns
/// the "Laying out" notice fio prints when it had to.
pub fn lay_out(cfg: &JobConfig) -> io::Result<Option<String>> {
    // fio's null engine touches no file.
    if cfg.engine == "null" {
        return Ok(None);
    }
    let mut rng = Rng::new(cfg.seed ^ 0x5eed);
    let (mut files, mut bytes) = (0u64, 0u64);
    for (path, region) in cfg.paths.iter().zip(&cfg.regions) {
        let needed = cfg.offset + region;
        let current = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if current >= needed {
            continue;
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        let mut chunk = vec![0u8; 1 << 20];
        let mut written = current;
        while written < needed {
            fill_random(&mut chunk, &mut rng);
            let n = ((needed - written) as usize).min(chunk.len());
            std::os::unix::fs::FileExt::write_all_at(&file, &chunk[..n], written)?;
            written += n as u64;
        }
        files += 1;
        bytes += needed - current;
    }
    Ok(match files {
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
    })
}

/// Fills a buffer with random bytes.
pub fn fill_random(buf: &mut [u8], rng: &mut Rng) {
    for word in buf.chunks_mut(8) {
        let n = word.len();
        word.copy_from_slice(&rng.next_u64().to_le_bytes()[..n]);
    }
}
