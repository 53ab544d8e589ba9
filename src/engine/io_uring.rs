//! The `io_uring` engine, through the `io-uring` crate, with no async
//! runtime: requests become submission entries, a commit is one
//! `io_uring_enter`, and completions are read from the completion ring.
//!
//! The crate's one unsafe call (pushing an entry whose buffer must live
//! until it completes) is here; the runner keeps each buffer untouched
//! until its completion has been reaped.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use io_uring::{IoUring, opcode, types};

use super::psync::open_file;
use super::{Completion, Dir, Engine, OpenMode, Queued, Request};

pub struct Uring {
    ring: IoUring,
    files: Vec<File>,
    in_flight: usize,
}

impl Uring {
    pub fn new(depth: usize) -> io::Result<Self> {
        let entries = (depth as u32).next_power_of_two().max(1);
        Ok(Uring {
            ring: IoUring::new(entries)?,
            files: Vec::new(),
            in_flight: 0,
        })
    }
}

impl Engine for Uring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize> {
        self.files.push(open_file(path, mode)?);
        Ok(self.files.len() - 1)
    }

    fn queue(&mut self, req: Request<'_>) -> Queued {
        let fd = types::Fd(self.files[req.file].as_raw_fd());
        let ptr = req.buf.as_mut_ptr();
        let len = req.buf.len() as u32;
        let entry = match req.dir {
            Dir::Read => opcode::Read::new(fd, ptr, len).offset(req.offset).build(),
            Dir::Write => opcode::Write::new(fd, ptr, len).offset(req.offset).build(),
            Dir::Trim => return Queued::Done(-(libc::EOPNOTSUPP as i64)),
        }
        .user_data(req.slot as u64);
        // The ring has room for the queue depth, which the runner never
        // exceeds; should it be full, submit what is there and retry.
        loop {
            // SAFETY: the buffer stays valid and untouched until this
            // entry's completion is reaped (the runner's slot discipline).
            let pushed = unsafe { self.ring.submission().push(&entry) };
            if pushed.is_ok() {
                return Queued::Pending;
            }
            if let Err(e) = self.ring.submit() {
                return Queued::Done(-(e.raw_os_error().unwrap_or(libc::EIO) as i64));
            }
        }
    }

    fn sync(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        super::sync_file(&self.files[file], data_only)
    }

    fn commit(&mut self) -> io::Result<()> {
        let queued = self.ring.submission().len();
        if queued > 0 {
            self.ring.submit()?;
            self.in_flight += queued;
        }
        Ok(())
    }

    fn reap(&mut self, min: usize, max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        let want = min.min(self.in_flight);
        if self.ring.completion().len() < want {
            self.ring.submit_and_wait(want)?;
        }
        for cqe in self.ring.completion().take(max) {
            self.in_flight -= 1;
            done.push(Completion {
                slot: cqe.user_data() as usize,
                result: cqe.result() as i64,
            });
        }
        Ok(())
    }
}
