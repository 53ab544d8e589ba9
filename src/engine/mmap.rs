//! fio's `mmap` engine: each file is mapped shared (private with `thp`)
//! into memory once, reads
//! and writes are copies to and from the mapping, and syncs are msync.
//! Every I/O completes inside `queue`, as with the sync engines.
//!
//! The mapping's raw pointer is the unsafe edge: it is created and
//! released here, and every copy is bounds-checked against its length.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::api::{Dir, Engine, OpenMode, OptionSource, Queued, Request};
use super::psync::open_file;

/// One mapped file.
struct Mapping {
    /// Kept open for the mapping's life (and for discards).
    file: File,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping belongs to this engine alone and moves with it to
// the job's thread; nothing else reads or writes through the pointer.
unsafe impl Send for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: ptr and len are exactly what mmap returned and took.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

#[derive(Default)]
pub struct Mmap {
    files: Vec<Mapping>,
    /// thp: map privately and ask for transparent huge pages, as fio does
    /// (so writes stay in the job's private copy, never in the file).
    thp: bool,
}

impl Mmap {
    pub fn new(thp: bool) -> Self {
        Mmap {
            files: Vec::new(),
            thp,
        }
    }
}

impl Engine for Mmap {
    fn name(&self) -> &'static str {
        "mmap"
    }

    fn invalidate_open(&mut self, file: usize) -> Option<io::Result<()>> {
        self.files
            .get(file)
            .map(|m| super::api::drop_pages_of(&m.file))
    }

    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize> {
        let file = open_file(path, mode)?;
        let len = file.metadata()?.len() as usize;
        if len == 0 {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let protection = if mode.write {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: a fresh shared mapping of an open file; the result is
        // checked before use.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                protection,
                if self.thp {
                    libc::MAP_PRIVATE
                } else {
                    libc::MAP_SHARED
                },
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        if self.thp {
            // Advice only: fio ignores a refusal.
            // SAFETY: advice over exactly the mapping just made.
            unsafe { libc::madvise(ptr, len, libc::MADV_HUGEPAGE) };
        }
        self.files.push(Mapping {
            file,
            ptr: ptr.cast(),
            len,
        });
        Ok(self.files.len() - 1)
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        let map = &self.files[req.file];
        let (start, n) = (req.offset as usize, req.buf.len());
        if start.checked_add(n).is_none_or(|end| end > map.len) {
            return Queued::Done(-(libc::EINVAL as i64));
        }
        // SAFETY: start..start+n lies inside the mapping (checked above),
        // which stays mapped while the engine lives; the buffer is the
        // runner's and does not overlap it.
        unsafe {
            let at = map.ptr.add(start);
            match req.dir {
                Dir::Read => std::ptr::copy_nonoverlapping(at, req.buf.as_mut_ptr(), n),
                Dir::Write => std::ptr::copy_nonoverlapping(req.buf.as_ptr(), at, n),
                Dir::Trim => {
                    return Queued::Done(super::api::discard(map.file.as_raw_fd(), req.offset, n));
                }
            }
        }
        Queued::Done(n as i64)
    }

    fn sync(&mut self, file: usize, _data_only: bool) -> io::Result<()> {
        let map = &self.files[file];
        // SAFETY: msync over exactly the mapping.
        let r = unsafe { libc::msync(map.ptr.cast(), map.len, libc::MS_SYNC) };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// fio's mmap engine answers every kind of sync with an msync of the
    /// whole mapping.
    fn sync_range(&mut self, file: usize, _offset: u64, _len: u64, _flags: u32) -> io::Result<()> {
        self.sync(file, false)
    }

    fn commits(&self) -> bool {
        false
    }
}

/// mmap's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmapOptions {
    /// Private mappings on transparent huge pages (thp).
    pub thp: bool,
}

/// mmap's options, as the job sets them.
pub fn options(src: &OptionSource) -> MmapOptions {
    MmapOptions {
        thp: super::api::on(src.job, "thp"),
    }
}

/// The table's maker.
pub fn make(_: usize, options: &MmapOptions) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(Mmap::new(options.thp)))
}
