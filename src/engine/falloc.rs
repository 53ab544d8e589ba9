//! fio's `falloc` engine: each I/O is a fallocate(2) of its range and
//! moves no data. A write allocates (and may extend the file), a read
//! allocates without changing the size (KEEP_SIZE), and a trim punches
//! a hole.

use std::fs::OpenOptions;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::api::{Dir, Engine, OpenMode, Queued, Request};
use super::file_table::FileTable;

#[derive(Default)]
pub struct Falloc {
    files: FileTable,
}

impl Engine for Falloc {
    fn name(&self) -> &'static str {
        "falloc"
    }

    /// fio opens every file read-write and creates it if missing,
    /// whatever the job does, and ignores `direct`.
    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)?;
        if mode.invalidate {
            super::api::drop_cached_pages(path)?;
        }
        Ok(self.files.push(file))
    }

    fn invalidate_open(&mut self, file: usize) -> Option<io::Result<()>> {
        self.files.get(file).map(super::api::drop_pages_of)
    }
    fn close(&mut self, file: usize) {
        self.files.close(file);
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        let flags = match req.dir {
            Dir::Read => libc::FALLOC_FL_KEEP_SIZE,
            Dir::Write => 0,
            Dir::Trim => libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
        };
        let fd = self.files[req.file].as_raw_fd();
        let len = req.buf.len();
        // SAFETY: fallocate works on an open descriptor this engine owns.
        let r =
            unsafe { libc::fallocate(fd, flags, req.offset as libc::off_t, len as libc::off_t) };
        Queued::Done(super::api::call_result(r, len))
    }

    fn sync(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        super::api::sync_file(&self.files[file], data_only)
    }

    fn commits(&self) -> bool {
        false
    }
}

/// The table's maker.
pub fn make(_: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(Falloc::default()))
}
