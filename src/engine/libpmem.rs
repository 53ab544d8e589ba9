//! fio's `libpmem` engine: each file is mapped with PMDK's libpmem
//! (pmem_map_file, created if missing, at the job's size) and every I/O
//! is a copy: reads with memcpy, writes with pmem_memcpy, non-temporal
//! stores for direct=1 and, unless the job asks for O_SYNC/O_DSYNC,
//! without draining; syncs are pmem_drain. As in fio, a file that is not
//! on persistent memory fails the job: on a plain file system libpmem
//! takes any file as such only with PMEM_IS_PMEM_FORCE=1 set.

use std::io;
use std::path::Path;

use super::api::{Dir, Engine, FioFailure, OpenMode, OptionSource, Queued, Request};
use crate::pmem::{PMEM_F_MEM_NODRAIN, PMEM_F_MEM_NONTEMPORAL, PMEM_F_MEM_TEMPORAL, PmemFile};

/// What the job says of its files: bytes per file, which fio maps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PmemOptions {
    pub size: u64,
}

/// libpmem's options, as the job sets them.
pub fn options(src: &OptionSource) -> PmemOptions {
    PmemOptions { size: src.size }
}

pub struct Libpmem {
    size: u64,
    files: Vec<Option<PmemFile>>,
    /// pmem_memcpy's flags, from the job's direct and sync settings.
    flags: u32,
}

/// A failure as fio's libpmem engine names it: at its place in
/// libpmem.c, with the message fio gives as the function.
fn named(code: i32, func: &'static str, detail: String) -> io::Error {
    io::Error::other(FioFailure { code, detail, func })
}

/// ferrio's own line on stderr (fio says nothing there), none when run
/// as fio.
fn ours(text: String) -> String {
    if crate::persona::as_fio() {
        String::new()
    } else {
        format!("ferrio: {text}")
    }
}

impl Engine for Libpmem {
    fn name(&self) -> &'static str {
        "libpmem"
    }

    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize> {
        self.flags = if mode.sync_flags != 0 {
            0
        } else {
            PMEM_F_MEM_NODRAIN
        };
        self.flags |= if mode.direct {
            PMEM_F_MEM_NONTEMPORAL
        } else {
            PMEM_F_MEM_TEMPORAL
        };
        let file = PmemFile::map(path, self.size as usize).map_err(|e| {
            let detail = ours(format!("libpmem: {}: {}", path.display(), e.message));
            named(
                e.errno,
                "file:engines/libpmem.c:109, func=pmem_map_file",
                detail,
            )
        })?;
        if !file.is_pmem {
            let detail = ours(format!(
                "libpmem: {} is not on persistent memory (a DAX file system; \
                 PMEM_IS_PMEM_FORCE=1 makes libpmem take any file as such)",
                path.display()
            ));
            let func =
                "file:engines/libpmem.c:114, func=file_name does not point to persistent memory";
            return Err(named(libc::EOPNOTSUPP, func, detail));
        }
        self.files.push(Some(file));
        Ok(self.files.len() - 1)
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        let Some(Some(file)) = self.files.get(req.file) else {
            return Queued::Done(-i64::from(libc::EBADF));
        };
        let len = req.buf.len();
        let done = match req.dir {
            Dir::Read => file.read_at(req.buf, req.offset),
            Dir::Write => file.write_at(req.buf, req.offset, self.flags),
            Dir::Trim => return Queued::Done(-i64::from(libc::EINVAL)),
        };
        Queued::Done(if done {
            len as i64
        } else {
            -i64::from(libc::EIO)
        })
    }

    fn sync(&mut self, file: usize, _data_only: bool) -> io::Result<()> {
        if let Some(Some(f)) = self.files.get(file) {
            f.drain();
        }
        Ok(())
    }

    fn close(&mut self, file: usize) {
        if let Some(f) = self.files.get_mut(file) {
            *f = None;
        }
    }

    fn commits(&self) -> bool {
        false
    }
}

/// The table's maker.
pub fn make(_depth: usize, options: &PmemOptions) -> io::Result<Box<dyn Engine>> {
    crate::pmem::load()?;
    Ok(Box::new(Libpmem {
        size: options.size,
        files: Vec::new(),
        flags: PMEM_F_MEM_NODRAIN | PMEM_F_MEM_TEMPORAL,
    }))
}
