//! fio's `splice` engine: file data moves through a pipe the engine owns.
//! A write hands the buffer's pages to the pipe (vmsplice) and splices
//! them on into the file at the I/O's offset; a read splices the file
//! into the pipe and takes the data out into the buffer (vmsplice
//! towards user memory), in pieces of at most 64 KiB as fio does.
//! Trims discard and syncs flush, as in the other file engines.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

use super::api::{Dir, Engine, OpenMode, Queued, Request, neg_errno};

/// The largest piece fio splices from a file at once (SPLICE_DEF_SIZE).
const PIECE: usize = 64 * 1024;

pub struct Splice {
    files: Vec<File>,
    /// The pipe's read and write ends.
    pipe: (OwnedFd, OwnedFd),
}

/// A fresh pipe: (read end, write end).
pub fn make_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe fills the two descriptors of `fds`.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Moves `len` bytes already in the pipe out to user memory at `dst`
/// (vmsplice from the pipe's read end, which copies).
pub fn pipe_to_user(pipe_out: RawFd, dst: &mut [u8]) -> Result<(), i64> {
    let mut done = 0;
    while done < dst.len() {
        let iov = libc::iovec {
            iov_base: dst[done..].as_mut_ptr().cast(),
            iov_len: dst.len() - done,
        };
        // SAFETY: `iov` describes the unfilled tail of `dst`.
        let n = unsafe { libc::vmsplice(pipe_out, &iov, 1, libc::SPLICE_F_MOVE) };
        if n < 0 {
            return Err(neg_errno());
        }
        if n == 0 {
            return Err(-i64::from(libc::ENODATA));
        }
        done += n as usize;
    }
    Ok(())
}

/// Hands user memory to the pipe's write end (vmsplice), returning how
/// much the pipe took.
pub fn user_to_pipe(pipe_in: RawFd, src: &[u8]) -> Result<usize, i64> {
    let iov = libc::iovec {
        iov_base: src.as_ptr() as *mut libc::c_void,
        iov_len: src.len(),
    };
    // SAFETY: `iov` describes `src`, which the kernel only reads.
    let n = unsafe { libc::vmsplice(pipe_in, &iov, 1, 0) };
    if n < 0 {
        Err(neg_errno())
    } else {
        Ok(n as usize)
    }
}

/// Splices exactly `len` bytes from the pipe's read end into the file
/// at `off`, moving `off` on.
fn splice_all(from: RawFd, to: RawFd, off: &mut i64, mut len: usize) -> Result<(), i64> {
    while len > 0 {
        // SAFETY: `off` points at a live i64.
        let n = unsafe { libc::splice(from, std::ptr::null_mut(), to, off, len, 0) };
        if n < 0 {
            return Err(neg_errno());
        }
        if n == 0 {
            return Err(-i64::from(libc::ENODATA));
        }
        len -= n as usize;
    }
    Ok(())
}

impl Splice {
    pub fn new() -> io::Result<Self> {
        Ok(Splice {
            files: Vec::new(),
            pipe: make_pipe()?,
        })
    }

    fn read(&mut self, fd: RawFd, buf: &mut [u8], offset: u64) -> Result<usize, i64> {
        let (out, inn) = (self.pipe.0.as_raw_fd(), self.pipe.1.as_raw_fd());
        let mut off = offset as i64;
        let mut done = 0;
        while done < buf.len() {
            let want = (buf.len() - done).min(PIECE);
            // SAFETY: splice from the file at `off` into the pipe.
            let n = unsafe { libc::splice(fd, &mut off, inn, std::ptr::null_mut(), want, 0) };
            if n < 0 {
                let e = neg_errno();
                if e == -i64::from(libc::EAGAIN) {
                    continue;
                }
                return Err(e);
            }
            if n == 0 {
                // The end of the file: a short read.
                break;
            }
            let n = n as usize;
            pipe_to_user(out, &mut buf[done..done + n])?;
            done += n;
        }
        Ok(done)
    }

    fn write(&mut self, fd: RawFd, buf: &[u8], offset: u64) -> Result<usize, i64> {
        let (out, inn) = (self.pipe.0.as_raw_fd(), self.pipe.1.as_raw_fd());
        let mut off = offset as i64;
        let mut done = 0;
        while done < buf.len() {
            let n = user_to_pipe(inn, &buf[done..])?;
            splice_all(out, fd, &mut off, n)?;
            done += n;
        }
        Ok(done)
    }
}

impl Engine for Splice {
    fn name(&self) -> &'static str {
        "splice"
    }

    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize> {
        self.files.push(super::psync::open_file(path, mode)?);
        Ok(self.files.len() - 1)
    }

    fn invalidate_open(&mut self, file: usize) -> Option<io::Result<()>> {
        self.files.get(file).map(super::api::drop_pages_of)
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        let fd = self.files[req.file].as_raw_fd();
        let r = match req.dir {
            Dir::Read => self.read(fd, req.buf, req.offset),
            Dir::Write => self.write(fd, req.buf, req.offset),
            Dir::Trim => return Queued::Done(super::api::discard(fd, req.offset, req.buf.len())),
        };
        Queued::Done(r.map_or_else(|e| e, |n| n as i64))
    }

    sync_each_file!();

    fn commits(&self) -> bool {
        false
    }
}

/// The table's maker.
pub fn make(_: usize) -> io::Result<Box<dyn Engine>> {
    Splice::new().map(|e| Box::new(e) as Box<dyn Engine>)
}
