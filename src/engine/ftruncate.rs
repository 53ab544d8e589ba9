//! fio's `ftruncate` engine: every write sets the file's length to the
//! write's offset, and moves no data. Reads and trims fail with EINVAL,
//! as in fio.

use std::io;
use std::os::fd::AsRawFd;

use super::api::{Dir, Engine, Queued, Request};
use super::file_table::FileTable;

#[derive(Default)]
pub struct Ftruncate {
    files: FileTable,
}

impl Engine for Ftruncate {
    fn name(&self) -> &'static str {
        "ftruncate"
    }

    file_table_open_close!();

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        if req.dir != Dir::Write {
            return Queued::Done(-i64::from(libc::EINVAL));
        }
        let fd = self.files[req.file].as_raw_fd();
        // SAFETY: ftruncate only changes the length of an open file.
        let r = unsafe { libc::ftruncate(fd, req.offset as libc::off_t) };
        Queued::Done(super::api::call_result(r, req.buf.len()))
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
    Ok(Box::new(Ftruncate::default()))
}
