//! The synchronous engines: `psync` (pread/pwrite at an offset) and
//! `sync` (seek, then read/write). Each I/O completes inside `queue`.

use super::file_table::FileTable;
use std::fs::{File, OpenOptions};
use std::io::{self, IoSlice, IoSliceMut, Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use super::api::{Dir, Engine, OpenMode, OptionSource, Queued, Request};
use crate::rand::fio_rand::FioRng;

/// Linux's O_DIRECT flag.
const O_DIRECT: i32 = 0o40000;
/// fio's O_ATOMIC for Linux (see `OpenMode::atomic`).
const FIO_O_ATOMIC: i32 = 0o40000000;

/// Which system calls move the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    Positional,
    SeekThenTransfer,
    SeekThenVectored,
    PositionalVectored,
    PositionalVectored2,
}

pub struct Psync {
    calls: Calls,
    files: FileTable,
    /// preadv2/pwritev2 flags every transfer gets (RWF_NOWAIT).
    flags: i32,
    /// pvsync2's hipri: the share of transfers (hipri_percentage) that
    /// poll for their completion, drawn per I/O from fio's generator
    /// seeded as its engine seeds it.
    hipri: Option<(FioRng, u64)>,
}

/// Linux's RWF_HIPRI: poll for the completion.
const RWF_HIPRI: i32 = 1;
/// Linux's RWF_NOWAIT: fail with EAGAIN rather than wait.
pub const RWF_NOWAIT: i32 = 8;

impl Psync {
    pub fn new(calls: Calls) -> Self {
        Psync {
            calls,
            files: FileTable::default(),
            flags: 0,
            hipri: None,
        }
    }

    /// pvsync2 with `hipri`: `percentage` of the transfers poll for their
    /// completion.
    pub fn polled(mut self, percentage: u64) -> Self {
        self.hipri = Some((FioRng::new(1, false), percentage));
        self
    }

    /// pvsync2 with `nowait`: transfers that would block fail instead.
    pub fn nowait(mut self) -> Self {
        self.flags |= RWF_NOWAIT;
        self
    }

    /// pvsync2 with `uncached` (buffered jobs): every transfer carries
    /// fio's RWF_UNCACHED bit.
    pub fn uncached(mut self) -> Self {
        self.flags |= super::uncached::RWF_UNCACHED;
        self
    }
}

/// Opens a job file the way the file engines do: read-only unless the job
/// writes, O_DIRECT when asked, creating it only for create_on_open (the
/// runner lays files out before the engines see them otherwise), and with
/// its cached pages dropped when asked.
pub fn open_file(path: &Path, mode: OpenMode) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(mode.write);
    let mut flags = 0;
    if mode.create {
        // O_CREAT with fio's mode, also for a reading job (which std
        // only allows through custom flags).
        options.mode(0o600);
        flags |= libc::O_CREAT;
    }
    if mode.direct {
        flags |= O_DIRECT;
    }
    if mode.atomic {
        flags |= O_DIRECT | FIO_O_ATOMIC;
    }
    flags |= mode.sync_flags;
    options.custom_flags(flags);
    let file = options.open(path)?;
    if mode.invalidate {
        // SAFETY: posix_fadvise only advises the kernel about an open file.
        let r = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
    }
    if let Some(hint) = mode.write_hint {
        // The hint goes on the open file itself for direct I/O, on the
        // inode otherwise (as fio sets it); kernels without per-file
        // hints refuse the first with EINVAL, which fails the job in fio.
        const F_SET_RW_HINT: libc::c_int = 1024 + 12;
        const F_SET_FILE_RW_HINT: libc::c_int = 1024 + 14;
        let cmd = if mode.direct {
            F_SET_FILE_RW_HINT
        } else {
            F_SET_RW_HINT
        };
        // SAFETY: the call reads one u64 through the pointer, which
        // points at `hint` for its duration.
        if unsafe { libc::fcntl(file.as_raw_fd(), cmd, &hint as *const u64) } < 0 {
            let code = io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            return Err(io::Error::other(super::api::WriteHintFailed(code)));
        }
    }
    if let Some(advice) = mode.advice {
        // Advice only: fio warns and carries on when the kernel refuses.
        // SAFETY: as above.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, advice) };
    }
    Ok(file)
}

/// preadv/pwritev (or their `2` forms, with `v2` flags) with one buffer.
fn positional_vectored(
    file: &File,
    dir: Dir,
    buf: &mut [u8],
    offset: u64,
    v2: Option<i32>,
) -> io::Result<usize> {
    let iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let (fd, off) = (file.as_raw_fd(), offset as libc::off_t);
    // SAFETY: `iov` describes `buf`, which lives and is not otherwise
    // touched for the duration of the call.
    let n = unsafe {
        match (dir, v2) {
            (Dir::Read, None) => libc::preadv(fd, &iov, 1, off),
            (Dir::Read, Some(flags)) => libc::preadv2(fd, &iov, 1, off, flags),
            (_, None) => libc::pwritev(fd, &iov, 1, off),
            (_, Some(flags)) => libc::pwritev2(fd, &iov, 1, off, flags),
        }
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

fn result(r: io::Result<usize>) -> i64 {
    match r {
        Ok(n) => n as i64,
        Err(e) => -(e.raw_os_error().unwrap_or(5) as i64),
    }
}

impl Engine for Psync {
    fn name(&self) -> &'static str {
        match self.calls {
            Calls::Positional => "psync",
            Calls::SeekThenTransfer => "sync",
            Calls::SeekThenVectored => "vsync",
            Calls::PositionalVectored => "pvsync",
            Calls::PositionalVectored2 => "pvsync2",
        }
    }

    file_table_open_close!();

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        let file = &mut self.files[req.file];
        let mut flags = self.flags;
        if let Some((rng, percentage)) = &mut self.hipri
            && rng.between(1, 100) <= *percentage
        {
            flags |= RWF_HIPRI;
        }
        let r = match (self.calls, req.dir) {
            (Calls::Positional, Dir::Read) => file.read_at(req.buf, req.offset),
            (Calls::Positional, Dir::Write) => file.write_at(req.buf, req.offset),
            (Calls::SeekThenTransfer, Dir::Read) => file
                .seek(SeekFrom::Start(req.offset))
                .and_then(|_| file.read(req.buf)),
            (Calls::SeekThenTransfer, Dir::Write) => file
                .seek(SeekFrom::Start(req.offset))
                .and_then(|_| file.write(req.buf)),
            (Calls::SeekThenVectored, Dir::Read) => file
                .seek(SeekFrom::Start(req.offset))
                .and_then(|_| file.read_vectored(&mut [IoSliceMut::new(req.buf)])),
            // fio's vsync gathers every direction but reads into a
            // writev: a trim writes the I/O's buffer over its blocks.
            (Calls::SeekThenVectored, Dir::Write | Dir::Trim) => file
                .seek(SeekFrom::Start(req.offset))
                .and_then(|_| file.write_vectored(&[IoSlice::new(req.buf)])),
            (
                Calls::PositionalVectored | Calls::PositionalVectored2,
                dir @ (Dir::Read | Dir::Write),
            ) => positional_vectored(
                file,
                dir,
                req.buf,
                req.offset,
                (self.calls == Calls::PositionalVectored2).then_some(flags),
            ),
            (_, Dir::Trim) => {
                return Queued::Done(super::api::discard(
                    file.as_raw_fd(),
                    req.offset,
                    req.buf.len(),
                ));
            }
        };
        // fio's vsync never sees a short transfer (it forgets its queue
        // before it shares the bytes out): each I/O counts whole.
        let r = match (self.calls, r) {
            (Calls::SeekThenVectored, Ok(_)) => Ok(req.buf.len()),
            (_, r) => r,
        };
        Queued::Done(result(r))
    }

    sync_each_file!();

    fn commits(&self) -> bool {
        false
    }
}

/// pvsync2's options: polled completions (hipri, for hipri_percentage
/// of the I/Os), RWF_NOWAIT, and RWF_UNCACHED on a buffered job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pvsync2Options {
    pub polled: bool,
    pub hipri_percentage: u64,
    pub nowait: bool,
    pub uncached: bool,
}

/// pvsync2's options, as the job sets them.
pub fn pvsync2_options(src: &OptionSource) -> Pvsync2Options {
    Pvsync2Options {
        polled: super::api::on(src.job, "hipri"),
        hipri_percentage: super::api::set(src.job, "hipri_percentage").unwrap_or(100),
        nowait: super::api::on(src.job, "nowait"),
        // fio sends the flag with buffered I/O only.
        uncached: super::api::on(src.job, "uncached") && !src.direct,
    }
}

/// The table's makers, one per way of calling.
pub fn psync(_: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(Psync::new(Calls::Positional)))
}

pub fn sync(_: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(Psync::new(Calls::SeekThenTransfer)))
}

pub fn vsync(_: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(Psync::new(Calls::SeekThenVectored)))
}

pub fn pvsync(_: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(Psync::new(Calls::PositionalVectored)))
}

pub fn pvsync2(_: usize, options: &Pvsync2Options) -> io::Result<Box<dyn Engine>> {
    let mut engine = Psync::new(Calls::PositionalVectored2);
    if options.polled {
        engine = engine.polled(options.hipri_percentage);
    }
    if options.nowait {
        engine = engine.nowait();
    }
    if options.uncached {
        engine = engine.uncached();
    }
    Ok(Box::new(engine))
}
