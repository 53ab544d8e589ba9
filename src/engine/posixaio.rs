//! The `posixaio` engine: POSIX asynchronous I/O (aio_read, aio_write,
//! aio_error, aio_return, aio_suspend), which glibc runs on helper
//! threads. Like fio's engine it has no commit step: each request starts
//! inside `queue`, and reaping polls every I/O in flight, sleeping in
//! aio_suspend until at least the wanted number has finished.
//!
//! This is the only module that talks to POSIX AIO, and all of its unsafe
//! code is here. How long a request's buffer must live is the rule of
//! [`Engine::queue`]'s Safety section, which POSIX AIO needs.

use super::file_table::FileTable;
use std::io;
use std::os::fd::AsRawFd;

use super::api::{Completion, Dir, Engine, Queued, Request};

/// How many unfinished control blocks one aio_suspend call waits on, as
/// in fio (any one finishing wakes the caller, which then rescans).
const SUSPEND_ENTRIES: usize = 8;

pub struct PosixAio {
    files: FileTable,
    /// One control block per slot, boxed so that its address stays put
    /// while glibc works on it.
    blocks: Box<[libc::aiocb]>,
    /// Which slots have an I/O in flight. Reaping scans them in slot
    /// order, as fio scans its I/O units: which unfinished ones it then
    /// sleeps on decides how many finish meanwhile, and so the depths.
    in_flight: Vec<bool>,
    /// How many are in flight.
    pending: usize,
}

// SAFETY: the control blocks hold raw pointers into the runner's buffers,
// which `queue`'s Safety section keeps valid for every I/O in flight; the
// value moves between threads as a whole.
unsafe impl Send for PosixAio {}

impl PosixAio {
    /// An engine for `depth` I/Os; a depth whose control blocks cannot
    /// be had is an ENOMEM for the job, not an abort.
    pub fn new(depth: usize) -> io::Result<Self> {
        // SAFETY: an all-zero aiocb is a valid, idle control block.
        let idle: libc::aiocb = unsafe { std::mem::zeroed() };
        let no_memory = |_| io::Error::from_raw_os_error(libc::ENOMEM);
        let (mut blocks, mut in_flight) = (Vec::new(), Vec::new());
        blocks.try_reserve_exact(depth).map_err(no_memory)?;
        in_flight.try_reserve_exact(depth).map_err(no_memory)?;
        blocks.resize(depth, idle);
        in_flight.resize(depth, false);
        Ok(PosixAio {
            files: FileTable::default(),
            blocks: blocks.into_boxed_slice(),
            in_flight,
            pending: 0,
        })
    }

    /// Moves every finished I/O to `done`; returns how many
    /// it moved, and fills `waiting` with up to [`SUSPEND_ENTRIES`] of the
    /// unfinished ones.
    fn collect(
        &mut self,
        done: &mut Vec<Completion>,
        waiting: &mut [*const libc::aiocb; SUSPEND_ENTRIES],
    ) -> (usize, usize) {
        let (mut found, mut pending) = (0, 0);
        for slot in 0..self.in_flight.len() {
            if !self.in_flight[slot] {
                continue;
            }
            let block = &self.blocks[slot];
            // SAFETY: the block was handed to aio_read/aio_write and has
            // not been reaped yet.
            let err = unsafe { libc::aio_error(block) };
            if err == libc::EINPROGRESS {
                if pending < SUSPEND_ENTRIES {
                    waiting[pending] = block;
                    pending += 1;
                }
                continue;
            }
            let result = if err == 0 {
                // SAFETY: the I/O has finished; its result is read once.
                unsafe { libc::aio_return(&mut self.blocks[slot]) as i64 }
            } else if err == libc::ECANCELED {
                0
            } else {
                -(err as i64)
            };
            self.in_flight[slot] = false;
            self.pending -= 1;
            done.push(Completion { slot, result });
            found += 1;
        }
        (found, pending)
    }
}

impl Drop for PosixAio {
    fn drop(&mut self) {
        // Buffers must not be written after the runner frees them: wait
        // for anything still in flight.
        let left = self.pending;
        let mut done = Vec::with_capacity(left);
        let _ = self.reap(left, left, &mut done);
    }
}

impl Engine for PosixAio {
    fn name(&self) -> &'static str {
        "posixaio"
    }

    file_table_open_close!();

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        let fd = self.files[req.file].as_raw_fd();
        if req.dir == Dir::Trim {
            return Queued::Done(super::api::discard(fd, req.offset, req.buf.len()));
        }
        let block = &mut self.blocks[req.slot];
        block.aio_fildes = fd;
        block.aio_buf = req.buf.as_mut_ptr().cast();
        block.aio_nbytes = req.buf.len();
        block.aio_offset = req.offset as libc::off_t;
        block.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        // SAFETY: the block describes the request's buffer, under our
        // caller's rule; the block itself stays in place in `blocks`.
        let r = unsafe {
            match req.dir {
                Dir::Read => libc::aio_read(block),
                _ => libc::aio_write(block),
            }
        };
        if r != 0 {
            return Queued::Done(super::api::neg_errno());
        }
        self.in_flight[req.slot] = true;
        self.pending += 1;
        Queued::Pending
    }

    /// Nothing to send: each I/O started inside `queue`.
    fn commit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn submits_in_queue(&self) -> bool {
        true
    }

    fn counts_submits(&self) -> bool {
        false
    }

    fn sync(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        super::api::sync_file(&self.files[file], data_only)
    }

    fn syncs_in_queue(&self) -> bool {
        true
    }

    /// aio_fsync, always with O_SYNC as fio's engine asks (an fdatasync
    /// too).
    fn queue_sync(&mut self, slot: usize, file: usize, _data_only: bool) -> Queued {
        let block = &mut self.blocks[slot];
        block.aio_fildes = self.files[file].as_raw_fd();
        block.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        // SAFETY: the block stays in place in `blocks` until reaped; a
        // sync reads no buffer.
        if unsafe { libc::aio_fsync(libc::O_SYNC, block) } != 0 {
            return Queued::Done(super::api::neg_errno());
        }
        self.in_flight[slot] = true;
        self.pending += 1;
        Queued::Pending
    }

    /// fio's posixaio engine answers sync_file_range with aio_fsync
    /// (O_SYNC): a full fsync of the file.
    fn sync_range(&mut self, file: usize, _offset: u64, _len: u64, _flags: u32) -> io::Result<()> {
        self.sync(file, false)
    }

    fn reap(&mut self, min: usize, _max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        let want = min.min(self.pending);
        let mut found = 0;
        let mut waiting = [std::ptr::null::<libc::aiocb>(); SUSPEND_ENTRIES];
        loop {
            let (n, pending) = self.collect(done, &mut waiting);
            found += n;
            if found >= want || pending == 0 {
                return Ok(());
            }
            // SAFETY: `waiting` holds `pending` blocks in flight.
            let r =
                unsafe { libc::aio_suspend(waiting.as_ptr(), pending as i32, std::ptr::null()) };
            if r != 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EINTR) && e.raw_os_error() != Some(libc::EAGAIN) {
                    return Err(e);
                }
            }
        }
    }
}

/// The table's maker.
pub fn make(depth: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(PosixAio::new(depth)?))
}
