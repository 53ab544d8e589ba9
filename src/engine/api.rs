//! What every engine is written against: the [`Engine`] trait, in the
//! spirit of fio's ioengine_ops, the request and completion types, the
//! view of a job that engines decode their options from, and the system
//! calls several engines share. It names no engine, so that each
//! engine's file depends on it alone (and the table, [`super::kind`],
//! on the engines).

use std::io;
use std::path::Path;

/// The direction of one I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Read = 0,
    Write = 1,
    Trim = 2,
}

/// One I/O handed to an engine.
#[derive(Debug)]
pub struct Request<'a> {
    /// The runner's slot for this I/O, echoed back in its completion.
    pub slot: usize,
    /// An engine file handle from [`Engine::open`].
    pub file: usize,
    pub offset: u64,
    pub dir: Dir,
    /// The data to write, or the space to read into.
    pub buf: &'a mut [u8],
    /// A priority of its own (cmdprio), sent with the I/O where the
    /// engine can; `None` leaves the job's.
    pub ioprio: Option<u16>,
}

/// What became of a queued request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// The engine finished it already (synchronous engines); the result is
    /// the byte count or a negative errno.
    Done(i64),
    /// It is in flight: it will come back from [`Engine::reap`].
    Pending,
}

/// A finished asynchronous I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub slot: usize,
    /// Byte count, or a negative errno.
    pub result: i64,
}

/// How to open a job's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenMode {
    pub write: bool,
    pub direct: bool,
    /// Drop the file's cached pages first, so reads reach the device
    /// (fio's `invalidate`, on by default).
    pub invalidate: bool,
    /// Access-pattern advice for the kernel (fio's fadvise_hint):
    /// POSIX_FADV_RANDOM or POSIX_FADV_SEQUENTIAL.
    pub advice: Option<i32>,
    /// Create the file if it is missing (create_on_open: no layout), with
    /// fio's mode 0600.
    pub create: bool,
    /// O_SYNC or O_DSYNC (fio's `sync`), or 0.
    pub sync_flags: i32,
    /// atomic=1. fio 3.33 asks for atomic writes by adding its own
    /// O_ATOMIC bit (040000000, from a never-merged kernel patch) to
    /// O_DIRECT; no Linux kernel gives that bit a meaning and open(2)
    /// ignores unknown bits, so the job is a plain direct run. ferrio
    /// sends the same bit so the syscalls are fio's too.
    pub atomic: bool,
    /// write_hint: the expected lifetime of the data written (a kernel
    /// RWH_WRITE_LIFE_* value), set on each file as it is opened.
    pub write_hint: Option<u64>,
}

/// Why opening a file failed in the write hint's fcntl (fio's own
/// function name for it, with the errno), not in open(2).
#[derive(Debug)]
pub struct WriteHintFailed(pub i32);

impl std::fmt::Display for WriteHintFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::io::Error::from_raw_os_error(self.0).fmt(f)
    }
}

impl std::error::Error for WriteHintFailed {}

/// An engine call failing as fio's engine fails it, with the job's error
/// `code` and context `func` fio gives it. From the engine's maker, as
/// fio's init fails (gfapi's mount: -EIO and no context, `err=-5/`,
/// 4294967291 in the JSON; e4defrag's donor: the errno at e4defrag.c:113),
/// `detail` then `fio: io engine NAME init failed.` go to stderr; from
/// `open`, `detail` alone (libpmem); from `reap`, the job fails as fio's
/// getevents does (nbd's lost connection: -1 at ioengines.c:320).
#[derive(Debug)]
pub struct FioFailure {
    pub code: i32,
    /// What failed, in ferrio's words (fio's say less); may be empty.
    pub detail: String,
    /// fio's error context, empty for none.
    pub func: &'static str,
}

impl std::fmt::Display for FioFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for FioFailure {}

/// Why an engine's job could not be set up before it starts, as fio's
/// engine setup fails it (rbd's image, nbd's export: the size could not
/// be learnt): the job's error code (0 for none) and context, and what
/// goes to stderr.
#[derive(Debug, Clone)]
pub struct SetupFailed {
    pub errno: i32,
    pub func: &'static str,
    pub message: String,
}

/// What an engine's options are decoded from: the job's settings, and
/// what the job's setup has made of the rest by then.
#[derive(Debug, Clone, Copy)]
pub struct OptionSource<'a> {
    pub job: &'a crate::plan::JobSpec,
    /// Directions in use, and whether offsets are random.
    pub reads: bool,
    pub writes: bool,
    pub random: bool,
    /// Bytes per file.
    pub size: u64,
    /// Whether the job's I/O is O_DIRECT.
    pub direct: bool,
    /// The job's own I/O priority (prio/prioclass).
    pub default_ioprio: u16,
}

/// An option's number, only if the job sets it (engine options have no
/// table defaults).
pub(super) fn set(job: &crate::plan::JobSpec, name: &str) -> Option<u64> {
    job.setting(name).and_then(|s| s.value.number())
}

/// Whether the job sets a flag to something other than 0.
pub(super) fn on(job: &crate::plan::JobSpec, name: &str) -> bool {
    set(job, name).is_some_and(|v| v != 0)
}

/// A text option's value, if set and not empty.
pub(super) fn text(job: &crate::plan::JobSpec, name: &str) -> Option<String> {
    match job.value(name) {
        Some(crate::options::Value::Text(t)) if !t.is_empty() => Some(t.clone()),
        _ => None,
    }
}

/// A file operation that failed (the file engines'), with fio's name for
/// it, such as `delete(name)`.
#[derive(Debug)]
pub struct FileOpError {
    pub error: io::Error,
    pub func: String,
}

/// An I/O engine.
pub trait Engine: Send {
    /// The name fio reports for it.
    fn name(&self) -> &'static str;
    /// Opens a file for the job; returns the handle requests use.
    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize>;
    /// Takes one request. Synchronous engines do the I/O here.
    ///
    /// # Safety
    ///
    /// An asynchronous engine keeps `req.buf`'s pointer past the call and
    /// the I/O reads or writes those bytes later, so when this returns
    /// [`Queued::Pending`] the caller must keep `req.buf`'s memory
    /// allocated, in place and untouched (neither read nor written, by
    /// anything) until the engine has handed back this I/O's
    /// [`Completion`] from [`Engine::reap`]. If the engine is dropped
    /// first, the memory must stay allocated until the drop returns (an
    /// engine's drop returns only once its I/O is over, unless it is
    /// abandoned); if the engine is [abandoned](Engine::abandoned), it
    /// must never be freed (the I/O given up on may land at any time). On
    /// [`Queued::Done`] the engine keeps nothing.
    unsafe fn queue(&mut self, req: Request<'_>) -> Queued;
    /// Sends what was queued since the last commit to the device (nothing
    /// to do for engines that complete each I/O inside `queue`).
    fn commit(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// Learns the runner's buffers, one per slot (`slot` in requests
    /// indexes them): engines that register memory with the kernel do it
    /// here.
    ///
    /// # Safety
    ///
    /// On success the engine may use each buffer at any time while it
    /// lives, so every `iovec` must stay allocated and in place until the
    /// engine has been dropped (never freed, if it is
    /// [abandoned](Engine::abandoned)), and be touched by the caller only
    /// as [`Engine::queue`]'s Safety section allows: not while an I/O on
    /// it is in flight. On an error the engine keeps nothing.
    unsafe fn register_buffers(&mut self, _buffers: &[libc::iovec]) -> io::Result<()> {
        Ok(())
    }
    /// Whether the engine has a commit step of its own. fio counts one
    /// submit and one reap per I/O for engines without one (the sync
    /// family), and the real calls for the others.
    fn commits(&self) -> bool {
        true
    }
    /// Whether its commits count as submit calls in fio's `submit`
    /// distribution (not for io_uring with a polling kernel thread, where
    /// fio's commit makes no call).
    fn counts_submits(&self) -> bool {
        true
    }
    /// Whether the engine starts each I/O inside `queue` although it
    /// completes them later (posixaio): fio counts one submit and one
    /// reap for every such queue call, besides the real reaps.
    fn submits_in_queue(&self) -> bool {
        false
    }
    /// Whether the engine takes no new I/O until completions are reaped
    /// (fio's FIO_Q_BUSY). Only the null engine says so: fio's holds one
    /// committed batch at a time, which decides the depths it reports.
    fn busy(&self) -> bool {
        false
    }
    /// Flushes a file's written data to stable storage (fsync, or
    /// fdatasync when `data_only`), waiting for it.
    fn sync(&mut self, file: usize, data_only: bool) -> io::Result<()>;
    /// Whether the engine flushes asynchronously, as one more request in
    /// its queue (io_uring's IORING_OP_FSYNC, rbd's rbd_aio_flush). fio
    /// hands such an engine its periodic syncs without draining the I/O
    /// in flight, and counts each one done only when it completes: until
    /// then every look for the next I/O finds another sync due, so fio
    /// issues more of them than one per `fsync` writes.
    fn syncs_in_queue(&self) -> bool {
        false
    }
    /// Starts a flush (fsync, or fdatasync when `data_only`) that comes
    /// back from [`Engine::reap`] under `slot`. Only called on engines
    /// whose [`Engine::syncs_in_queue`] says so.
    fn queue_sync(&mut self, _slot: usize, _file: usize, _data_only: bool) -> Queued {
        Queued::Done(-i64::from(libc::EINVAL))
    }
    /// sync_file_range(2) over `len` bytes of a file from `offset`, with
    /// its SYNC_FILE_RANGE_* flags (fio's sync_file_range). Only the
    /// engines that fio makes the call from have it, and mmap, where fio
    /// syncs the whole mapping instead.
    fn sync_range(&mut self, _file: usize, _offset: u64, _len: u64, _flags: u32) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }
    /// Drops what is cached of a file, so reads reach the device (fio's
    /// `invalidate`, at every new pass over the files).
    fn invalidate(&mut self, path: &Path) -> io::Result<()> {
        drop_cached_pages(path)
    }
    /// Drops what is cached of the open file `file` through the engine's
    /// own descriptor, as fio's invalidate does on its fd when a
    /// time-based job starts its files over without reopening them: a
    /// file removed meanwhile is still there for the job. `None` from an
    /// engine that keeps no descriptors; the caller goes by the path.
    fn invalidate_open(&mut self, _file: usize) -> Option<io::Result<()>> {
        None
    }
    /// Waits until at least `min` in-flight I/Os have finished and appends
    /// up to `max` finished ones to `done` (fio's getevents). Engines that
    /// complete each I/O inside `queue` never have any.
    fn reap(&mut self, _min: usize, _max: usize, _done: &mut Vec<Completion>) -> io::Result<()> {
        Ok(())
    }
    /// Whether the engine gave up on I/O still in flight (an rbd or rados
    /// job past its grace): that I/O will never be reaped but may still
    /// use the runner's buffers (see [`Engine::queue`]'s Safety section).
    fn abandoned(&self) -> bool {
        false
    }
    /// The storage object an offset of a file lands in, where the engine
    /// knows one (rbd: the image's RADOS object; rados: the object).
    fn object_of(&self, _file: usize, _offset: u64) -> Option<String> {
        None
    }
    /// Which connection the engine's I/O went through, where it has one
    /// worth telling apart (rbd and rados: the librados client).
    fn connection(&self) -> Option<String> {
        None
    }
    /// For the engines whose work is one operation per file (fio does it
    /// as it opens the file): does it if this is the file's first I/O of
    /// the pass, returning how long it took in nanoseconds. `None` when
    /// nothing was done.
    fn file_op(&mut self, _file: usize) -> Option<Result<u64, FileOpError>> {
        None
    }
    /// Closes a file the job is done with (openfiles below the file
    /// count); its handle is not used again. Engines without descriptors
    /// of their own have nothing to close.
    fn close(&mut self, _file: usize) {}
    /// A new pass over the files begins (fio closes and reopens them).
    fn new_pass(&mut self) {}
    /// The pause the engine asks for after each of its I/Os completes,
    /// in place of the job's think time (cpuio's).
    fn think_time(&self) -> Option<std::time::Duration> {
        None
    }
    /// Removes a file from the engine's own store (a GlusterFS volume),
    /// for unlink=1; `None` from engines whose files are local, which
    /// the runner removes itself.
    fn unlink(&mut self, _path: &Path) -> Option<io::Result<()>> {
        None
    }
    /// What fio's engine says on stdout once it is set up, whatever the
    /// output format (nbd: that it connected).
    fn set_up_line(&self) -> Option<&'static str> {
        None
    }
    /// Whether the other end closed the link (the net engines): an I/O
    /// that then moved nothing ends the job, without failing it.
    fn ended(&self) -> bool {
        false
    }
    /// Reads that never arrived (a UDP reader's lost messages).
    fn dropped(&self) -> u64 {
        0
    }
}

/// A system call's 0-or-errno return as a request result: `len` bytes
/// done, or the negative errno.
pub(super) fn call_result(r: i32, len: usize) -> i64 {
    if r == 0 { len as i64 } else { neg_errno() }
}

/// The current errno as a negative request result (EIO if there is none).
pub(super) fn neg_errno() -> i64 {
    -i64::from(
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO),
    )
}

/// fsync or fdatasync of an open file, for the engines that hold `File`s.
pub(super) fn sync_file(file: &std::fs::File, data_only: bool) -> io::Result<()> {
    if data_only {
        file.sync_data()
    } else {
        file.sync_all()
    }
}

/// sync_file_range(2) on an open file; like fio, no call for an empty
/// span.
pub(super) fn sync_file_range(
    file: &std::fs::File,
    offset: u64,
    len: u64,
    flags: u32,
) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    if len == 0 {
        return Ok(());
    }
    // SAFETY: a plain system call on a descriptor the file keeps open.
    let r = unsafe { libc::sync_file_range(file.as_raw_fd(), offset as i64, len as i64, flags) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Discards a byte range of a block device (BLKDISCARD), as fio trims in
/// every engine: synchronously. On a regular file the ioctl fails with
/// ENOTTY, as fio's trims do. Returns the byte count or a negative errno.
pub(super) fn discard(fd: i32, offset: u64, len: usize) -> i64 {
    /// Linux's BLKDISCARD ioctl: _IO(0x12, 119).
    const BLKDISCARD: libc::c_ulong = 0x1277;
    let range: [u64; 2] = [offset, len as u64];
    // SAFETY: BLKDISCARD reads two u64s from the pointer, which points at
    // `range`.
    let r = unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) };
    call_result(r, len)
}

/// Drops a file's cached pages (fio's `invalidate`, which fio applies
/// whenever it opens a job's file: at the start and at every new pass).
pub fn drop_cached_pages(path: &Path) -> io::Result<()> {
    drop_pages_of(&std::fs::File::open(path)?)
}

/// Drops the cached pages of an open file, through its descriptor.
pub fn drop_pages_of(file: &std::fs::File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: posix_fadvise only advises the kernel about an open file.
    let r = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(r))
    }
}

/// How space is reserved for a file being laid out (fio's `fallocate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocation {
    None,
    /// fallocate(2) with no flags, quietly skipped where unsupported.
    Native,
    /// posix_fallocate(3).
    Posix,
    /// fallocate(2) with FALLOC_FL_KEEP_SIZE: blocks, but not the size.
    KeepSize,
    /// Only ftruncate(2) to the size.
    Truncate,
}

/// Reserves `len` bytes of `file` as `how` asks. Errors of the native
/// mode are ignored, as fio ignores them; posix_fallocate's are returned
/// for the caller to report (fio only prints them).
pub fn allocate(file: &std::fs::File, how: Allocation, len: u64) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    let len = len as libc::off_t;
    match how {
        Allocation::None => Ok(()),
        Allocation::Truncate => file.set_len(len as u64),
        Allocation::Native => {
            // SAFETY: fallocate works on an open descriptor owned by `file`.
            let _ = unsafe { libc::fallocate(fd, 0, 0, len) };
            Ok(())
        }
        Allocation::KeepSize => {
            // SAFETY: as above.
            let r = unsafe { libc::fallocate(fd, libc::FALLOC_FL_KEEP_SIZE, 0, len) };
            if r == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        }
        Allocation::Posix => {
            // SAFETY: as above; posix_fallocate returns the error number.
            let r = unsafe { libc::posix_fallocate(fd, 0, len) };
            if r == 0 {
                Ok(())
            } else {
                Err(io::Error::from_raw_os_error(r))
            }
        }
    }
}

/// A request's data as the asynchronous C libraries take it (librbd,
/// librados, libgfapi, libnbd); `None` for a trim, which each engine does its
/// own way.
pub fn transfer(req: &mut Request<'_>) -> Option<crate::clib::Transfer> {
    let (offset, len) = (req.offset, req.buf.len());
    match req.dir {
        Dir::Read => Some(crate::clib::Transfer::Read {
            offset,
            buf: req.buf.as_mut_ptr(),
            len,
        }),
        Dir::Write => Some(crate::clib::Transfer::Write {
            offset,
            buf: req.buf.as_ptr(),
            len,
        }),
        Dir::Trim => None,
    }
}
