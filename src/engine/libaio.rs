//! The `libaio` engine: Linux kernel AIO through its system calls
//! (io_setup, io_submit, io_getevents), as libaio would make them.
//!
//! This is the only module that talks to kernel AIO, and all of its
//! unsafe code is here. The runner keeps each request's buffer untouched
//! until its completion has been reaped, which is what kernel AIO needs.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::psync::open_file;
use super::{Completion, Dir, Engine, OpenMode, Queued, Request};

/// The kernel's `struct iocb`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct Iocb {
    data: u64,
    key: u32,
    rw_flags: u32,
    opcode: u16,
    reqprio: i16,
    fd: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// The kernel's `struct io_event`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;

pub struct Libaio {
    ctx: libc::c_ulong,
    files: Vec<File>,
    /// One control block per slot, stable in memory while in flight.
    iocbs: Vec<Iocb>,
    /// Pointers to the control blocks queued since the last commit.
    pending: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    in_flight: usize,
}

// SAFETY: the raw pointers only ever point into `iocbs`, which this value
// owns; it moves between threads as a whole, never shared.
unsafe impl Send for Libaio {}

impl Libaio {
    pub fn new(depth: usize) -> io::Result<Self> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the new context into `ctx`.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_setup,
                depth as libc::c_long,
                &mut ctx as *mut libc::c_ulong,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Libaio {
            ctx,
            files: Vec::new(),
            iocbs: vec![Iocb::default(); depth],
            pending: Vec::with_capacity(depth),
            events: vec![IoEvent::default(); depth],
            in_flight: 0,
        })
    }
}

impl Drop for Libaio {
    fn drop(&mut self) {
        // SAFETY: the context was made by io_setup and is destroyed once;
        // the kernel cancels or waits for anything still in flight.
        unsafe {
            libc::syscall(libc::SYS_io_destroy, self.ctx);
        }
    }
}

impl Engine for Libaio {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize> {
        self.files.push(open_file(path, mode)?);
        Ok(self.files.len() - 1)
    }

    fn queue(&mut self, req: Request<'_>) -> Queued {
        let opcode = match req.dir {
            Dir::Read => IOCB_CMD_PREAD,
            Dir::Write => IOCB_CMD_PWRITE,
            Dir::Trim => {
                let fd = self.files[req.file].as_raw_fd();
                return Queued::Done(super::discard(fd, req.offset, req.buf.len()));
            }
        };
        let cb = &mut self.iocbs[req.slot];
        *cb = Iocb {
            data: req.slot as u64,
            opcode,
            fd: self.files[req.file].as_raw_fd() as u32,
            buf: req.buf.as_mut_ptr() as u64,
            nbytes: req.buf.len() as u64,
            offset: req.offset as i64,
            ..Iocb::default()
        };
        self.pending.push(cb as *mut Iocb);
        Queued::Pending
    }

    fn sync(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        super::sync_file(&self.files[file], data_only)
    }

    fn commit(&mut self) -> io::Result<()> {
        let mut start = 0;
        while start < self.pending.len() {
            let rest = &mut self.pending[start..];
            // SAFETY: each pointer is to a live control block in `iocbs`
            // whose buffer the runner keeps untouched until reaped.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    rest.len() as libc::c_long,
                    rest.as_mut_ptr(),
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EAGAIN) {
                    continue;
                }
                return Err(e);
            }
            start += r as usize;
            self.in_flight += r as usize;
        }
        self.pending.clear();
        Ok(())
    }

    fn reap(&mut self, min: usize, max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        let want = min.min(self.in_flight);
        let max = max.clamp(want.max(1), self.events.len());
        loop {
            // SAFETY: `events` has room for `len` events, which the kernel fills.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    want as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            let n = r as usize;
            self.in_flight -= n;
            done.extend(self.events[..n].iter().map(|ev| Completion {
                slot: ev.data as usize,
                result: ev.res,
            }));
            return Ok(());
        }
    }
}
