//! The `io_uring` engine, through the `io-uring` crate, with no async
//! runtime: requests become submission entries, a commit is one
//! `io_uring_enter`, and completions are read from the completion ring.
//! fio's engine options: `fixedbufs` (buffers registered once, READ_FIXED
//! and WRITE_FIXED), `registerfiles` (fixed file slots), `sqthread_poll`
//! and `sqthread_poll_cpu` (a kernel thread polls the submission ring),
//! `hipri` (polled completions), `nonvectored=0` (READV/WRITEV) and
//! `force_async` (every N-th entry issued asynchronously).
//!
//! The crate's unsafe calls (pushing an entry that points at a buffer;
//! registering buffers) are here, under the rule of [`Engine::queue`]'s
//! and [`Engine::register_buffers`]' Safety sections.

use super::file_table::FileTable;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use io_uring::squeue::{Entry, Flags};
use io_uring::{IoUring, opcode, types};

use super::api::{Completion, Dir, Engine, OpenMode, OptionSource, Queued, Request};
use super::psync::open_file;

/// The iovecs of the vectored operations.
struct IoVecs(Vec<libc::iovec>);

// SAFETY: the pointers in these iovecs point into the runner's buffers,
// which the job thread owns and which move with the engine to that thread;
// nothing else reads or writes through them.
unsafe impl Send for IoVecs {}

pub struct Uring {
    ring: IoUring,
    files: FileTable,
    /// Entries committed and not yet reaped: what a reap may still wait
    /// for, and what the drop waits for.
    in_flight: usize,
    /// Entries pushed since the last commit. Counted here, not read off
    /// the ring: with a polling kernel thread (sqthread_poll) the kernel
    /// takes entries as soon as they are pushed, so the ring's length
    /// says nothing of what the runner queued.
    uncommitted: usize,
    options: UringOptions,
    /// How many of the files are registered: `None` until the first
    /// request, when the job's files are open; a file opened later goes
    /// by its descriptor.
    registered_files: Option<usize>,
    /// Whether the runner's buffers are registered.
    buffers_registered: bool,
    /// One iovec per slot for the vectored operations; each lives until
    /// its slot's I/O completes.
    iovecs: IoVecs,
    /// Entries queued so far (for force_async's every N-th).
    queued: u64,
    /// The job's queue depth.
    depth: usize,
    /// Entries committed but left for the next reap to submit: when a
    /// commit fills the queue, the runner's next call is a reap, and one
    /// io_uring_enter can both submit and wait.
    deferred: usize,
}

fn build_ring(
    entries: u32,
    options: &UringOptions,
    deferred_task_work: bool,
) -> io::Result<IoUring> {
    let mut builder = IoUring::builder();
    if deferred_task_work {
        builder
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_taskrun_flag();
    }
    if options.sq_poll {
        builder.setup_sqpoll(2000);
        if let Some(cpu) = options.sq_poll_cpu {
            builder.setup_sqpoll_cpu(cpu);
        }
    }
    if options.polled {
        builder.setup_iopoll();
    }
    builder.build(entries)
}

impl Uring {
    pub fn new(depth: usize, options: UringOptions) -> io::Result<Self> {
        let entries = (depth as u32).next_power_of_two().max(1);
        // One thread submits and reaps, so completions can wait for its
        // next enter instead of interrupting it: task work deferred to
        // io_uring_enter is less kernel work per I/O. A polling kernel
        // thread cannot be combined with that; kernels before 6.1 refuse
        // it, and then the ring is built without.
        let deferred_task_work = !options.sq_poll;
        let ring = match build_ring(entries, &options, deferred_task_work) {
            Err(e) if deferred_task_work && e.raw_os_error() == Some(libc::EINVAL) => {
                build_ring(entries, &options, false)?
            }
            built => built?,
        };
        let iovec = libc::iovec {
            iov_base: std::ptr::null_mut(),
            iov_len: 0,
        };
        // A depth whose memory is not to be had fails the job (ENOMEM).
        let mut iovecs = Vec::new();
        iovecs
            .try_reserve_exact(depth)
            .map_err(|_| io::Error::from_raw_os_error(libc::ENOMEM))?;
        iovecs.resize(depth, iovec);
        Ok(Uring {
            ring,
            files: FileTable::default(),
            in_flight: 0,
            uncommitted: 0,
            options,
            registered_files: None,
            buffers_registered: false,
            iovecs: IoVecs(iovecs),
            queued: 0,
            depth,
            deferred: 0,
        })
    }

    /// Registers the open files. Registered files spare the kernel a file
    /// lookup per I/O, so ferrio registers them even when the job did not
    /// ask (`registerfiles`); only a job that asked fails without them.
    fn register_files(&mut self) -> io::Result<()> {
        let fds: Vec<i32> = self.files.open().map(|f| f.as_raw_fd()).collect();
        let registered = self.ring.submitter().register_files(&fds);
        self.registered_files = Some(if registered.is_ok() { fds.len() } else { 0 });
        match registered {
            Err(e) if self.options.registered_files => Err(e),
            _ => Ok(()),
        }
    }

    fn entry(&mut self, req: &mut Request<'_>) -> Result<Entry, i64> {
        let ptr = req.buf.as_mut_ptr();
        let len = req.buf.len() as u32;
        let slot = req.slot;
        macro_rules! with_fd {
            ($build:expr) => {
                if req.file < self.registered_files.unwrap_or(0) {
                    $build(types::Fixed(req.file as u32))
                } else {
                    $build(types::Fd(self.files[req.file].as_raw_fd()))
                }
            };
        }
        let prio = req.ioprio.unwrap_or(self.options.default_ioprio);
        let mut rw_flags = if self.options.nowait {
            super::psync::RWF_NOWAIT
        } else {
            0
        };
        if self.options.uncached {
            rw_flags |= super::uncached::RWF_UNCACHED;
        }
        // Every transfer's entry: the opcode on the file's descriptor (or
        // its registered index), at the request's offset, with the job's
        // priority and flags.
        macro_rules! transfer {
            ($op:ident($($arg:expr),*)) => {
                with_fd!(|fd| opcode::$op::new(fd, $($arg),*)
                    .offset(req.offset)
                    .ioprio(prio)
                    .rw_flags(rw_flags)
                    .build())
            };
        }
        let fixed = self.buffers_registered && !self.options.vectored;
        let entry = match (req.dir, fixed, self.options.vectored) {
            (Dir::Trim, ..) => {
                let fd = self.files[req.file].as_raw_fd();
                return Err(super::api::discard(fd, req.offset, req.buf.len()));
            }
            (Dir::Read, true, _) => transfer!(ReadFixed(ptr, len, slot as u16)),
            (Dir::Write, true, _) => transfer!(WriteFixed(ptr, len, slot as u16)),
            (dir, false, true) => {
                self.iovecs.0[slot] = libc::iovec {
                    iov_base: ptr.cast(),
                    iov_len: len as usize,
                };
                let iov = &self.iovecs.0[slot] as *const libc::iovec;
                if dir == Dir::Read {
                    transfer!(Readv(iov, 1))
                } else {
                    transfer!(Writev(iov, 1))
                }
            }
            (Dir::Read, false, false) => transfer!(Read(ptr, len)),
            (Dir::Write, false, false) => transfer!(Write(ptr, len)),
        };
        self.queued += 1;
        let every = u64::from(self.options.force_async);
        let entry = if every > 0 && self.queued.is_multiple_of(every) {
            entry.flags(Flags::ASYNC)
        } else {
            entry
        };
        Ok(entry.user_data(slot as u64))
    }

    /// Registers the files before the first request (they are all open by
    /// then), or the negative errno when a job that asked cannot have it.
    fn files_registered(&mut self) -> Result<(), i64> {
        if self.registered_files.is_none() {
            self.register_files()
                .map_err(|e| -(e.raw_os_error().unwrap_or(libc::EIO) as i64))?;
        }
        Ok(())
    }

    /// Puts an entry in the submission ring. The ring has room for the
    /// queue depth, which the runner never exceeds; should it be full,
    /// this submits what is there and tries again.
    ///
    /// # Safety
    ///
    /// The entry's buffer (and iovec), if it has one, is under the rule
    /// of [`Engine::queue`]'s Safety section.
    unsafe fn push(&mut self, entry: &Entry) -> Queued {
        loop {
            // SAFETY: passed on from the caller.
            let pushed = unsafe { self.ring.submission().push(entry) };
            if pushed.is_ok() {
                self.uncommitted += 1;
                return Queued::Pending;
            }
            if let Err(e) = self.ring.submit() {
                return Queued::Done(-(e.raw_os_error().unwrap_or(libc::EIO) as i64));
            }
            self.deferred = 0;
        }
    }
}

impl Engine for Uring {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize> {
        Ok(self.files.push(open_file(path, mode)?))
    }

    fn invalidate_open(&mut self, file: usize) -> Option<io::Result<()>> {
        self.files.get(file).map(super::api::drop_pages_of)
    }
    fn close(&mut self, file: usize) {
        // A registered file is taken out of the ring's table too, or the
        // ring would keep it open.
        if file < self.registered_files.unwrap_or(0) {
            let _ = self
                .ring
                .submitter()
                .register_files_update(file as u32, &[-1]);
        }
        self.files.close(file);
    }

    unsafe fn register_buffers(&mut self, buffers: &[libc::iovec]) -> io::Result<()> {
        // Registered buffers spare the kernel pinning each buffer's pages
        // per I/O, so ferrio registers them even when the job did not ask
        // (`fixedbufs`) and it changes nothing the job can observe; only a
        // job that asked fails without them. Vectored operations
        // (nonvectored=0) cannot use them.
        if self.buffers_registered || self.options.vectored {
            return Ok(());
        }
        // SAFETY: passed on from the caller: the buffers live as long as
        // the engine, and so as long as the ring.
        match unsafe { self.ring.submitter().register_buffers(buffers) } {
            Ok(()) => self.buffers_registered = true,
            Err(e) if self.options.fixed_buffers => return Err(e),
            Err(_) => {}
        }
        Ok(())
    }

    unsafe fn queue(&mut self, mut req: Request<'_>) -> Queued {
        if let Err(errno) = self.files_registered() {
            return Queued::Done(errno);
        }
        match self.entry(&mut req) {
            // SAFETY: the entry points at `req.buf` (or at this slot's
            // iovec, which lives in the engine), under our caller's rule.
            Ok(entry) => unsafe { self.push(&entry) },
            Err(errno) => Queued::Done(errno),
        }
    }

    fn sync(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        super::api::sync_file(&self.files[file], data_only)
    }

    fn syncs_in_queue(&self) -> bool {
        true
    }

    fn queue_sync(&mut self, slot: usize, file: usize, data_only: bool) -> Queued {
        if let Err(errno) = self.files_registered() {
            return Queued::Done(errno);
        }
        let flags = if data_only {
            types::FsyncFlags::DATASYNC
        } else {
            types::FsyncFlags::empty()
        };
        let entry = if file < self.registered_files.unwrap_or(0) {
            opcode::Fsync::new(types::Fixed(file as u32))
                .flags(flags)
                .build()
        } else {
            opcode::Fsync::new(types::Fd(self.files[file].as_raw_fd()))
                .flags(flags)
                .build()
        };
        // SAFETY: a flush carries no buffer.
        unsafe { self.push(&entry.user_data(slot as u64)) }
    }

    fn counts_submits(&self) -> bool {
        !self.options.sq_poll
    }

    fn commit(&mut self) -> io::Result<()> {
        let queued = std::mem::take(&mut self.uncommitted);
        if queued == 0 {
            return Ok(());
        }
        self.in_flight += queued;
        if self.in_flight >= self.depth && !self.options.sq_poll {
            // The queue is full: the runner reaps next, and that call
            // submits these too.
            self.deferred += queued;
            return Ok(());
        }
        self.ring.submit()?;
        self.deferred = 0;
        Ok(())
    }

    fn reap(&mut self, min: usize, max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        let want = min.min(self.in_flight);
        // Polled rings (hipri) complete only when asked, so they are
        // always entered; others only when too few completions are there,
        // or when finished I/Os wait for an enter to be posted (deferred
        // task work).
        if self.options.polled
            || self.deferred > 0
            || self.ring.completion().len() < want
            || self.ring.submission().taskrun()
        {
            self.ring.submit_and_wait(want)?;
            self.deferred = 0;
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

/// The runner frees its buffers after its engine. A ring closed with
/// I/O in flight is torn down by the kernel in the background, which may
/// still read into or write from those buffers, so the engine waits for
/// every completion first (libaio's io_destroy and posixaio's drop wait
/// likewise). The job loop drains before it ends; this covers the paths
/// that leave it early. The count is ferrio's own (`in_flight` and
/// `uncommitted`), never the ring's, which a polling kernel thread moves.
impl Drop for Uring {
    fn drop(&mut self) {
        // Entries pushed but not committed are submitted by the enter
        // below, so they are waited for too.
        let mut left = self.in_flight + self.uncommitted;
        while left > 0 {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return,
            }
            left = left.saturating_sub(self.ring.completion().count());
        }
    }
}

/// io_uring's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UringOptions {
    /// Register the buffers once, use READ_FIXED/WRITE_FIXED (fixedbufs).
    pub fixed_buffers: bool,
    /// Register the files, use fixed file slots (registerfiles).
    pub registered_files: bool,
    /// A kernel thread polls the submission ring, optionally pinned to
    /// a CPU (sqthread_poll, sqthread_poll_cpu).
    pub sq_poll: bool,
    pub sq_poll_cpu: Option<u32>,
    /// Polled completions (hipri).
    pub polled: bool,
    /// Reads and writes that would block fail with EAGAIN (nowait).
    pub nowait: bool,
    /// Every read and write of a buffered job carries fio's
    /// RWF_UNCACHED (see `uncached::RWF_UNCACHED`).
    pub uncached: bool,
    /// READV/WRITEV rather than READ/WRITE (nonvectored=0).
    pub vectored: bool,
    /// Issue every N-th entry asynchronously (0: none).
    pub force_async: u32,
    /// The job's own I/O priority (prio/prioclass), sent with every I/O
    /// since a polling kernel thread would not inherit it.
    pub default_ioprio: u16,
}

/// io_uring's options, as the job sets them.
pub fn options(src: &OptionSource) -> UringOptions {
    let job = src.job;
    UringOptions {
        fixed_buffers: super::api::on(job, "fixedbufs"),
        registered_files: super::api::on(job, "registerfiles"),
        sq_poll: super::api::on(job, "sqthread_poll"),
        sq_poll_cpu: super::api::set(job, "sqthread_poll_cpu").map(|c| c as u32),
        polled: super::api::on(job, "hipri"),
        nowait: super::api::on(job, "nowait"),
        // fio sends the flag with buffered I/O only.
        uncached: super::api::on(job, "uncached") && !src.direct,
        // fio's default (-1) finds READ/WRITE supported: non-vectored.
        vectored: job
            .setting("nonvectored")
            .is_some_and(|s| matches!(&s.value, crate::options::Value::Nums(v) if v[0] == 0)),
        force_async: super::api::set(job, "force_async").unwrap_or(0) as u32,
        default_ioprio: src.default_ioprio,
    }
}

/// The table's maker.
pub fn make(depth: usize, options: &UringOptions) -> io::Result<Box<dyn Engine>> {
    Uring::new(depth, *options).map(|e| Box::new(e) as Box<dyn Engine>)
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::*;

    fn options(sq_poll: bool) -> UringOptions {
        UringOptions {
            fixed_buffers: false,
            registered_files: false,
            sq_poll,
            sq_poll_cpu: None,
            polled: false,
            nowait: false,
            uncached: false,
            vectored: false,
            force_async: 0,
            default_ioprio: 0,
        }
    }

    fn read_only() -> OpenMode {
        OpenMode {
            write: false,
            direct: false,
            invalidate: false,
            advice: None,
            create: false,
            sync_flags: 0,
            atomic: false,
            write_hint: None,
        }
    }

    /// With a polling kernel thread the kernel takes entries as they are
    /// pushed; the engine's count of what is in flight must still come
    /// back to zero after every completion is reaped, or the drop would
    /// wait for completions that never come (this hung with the count
    /// read off the ring).
    #[test]
    fn with_a_polling_kernel_thread_every_io_is_counted_once() {
        let path = std::env::temp_dir().join(format!("ferrio-uring-sqpoll-{}", std::process::id()));
        std::fs::write(&path, vec![7u8; 64 * 4096]).unwrap();
        let mut engine = Uring::new(8, options(true)).unwrap();
        let file = engine.open(&path, read_only()).unwrap();
        let mut bufs = vec![vec![0u8; 4096]; 8];
        let mut done = Vec::new();
        let mut reaped = 0;
        for round in 0..8u64 {
            for (slot, buf) in bufs.iter_mut().enumerate() {
                let req = Request {
                    slot,
                    file,
                    offset: (round * 8 + slot as u64) * 4096,
                    dir: Dir::Read,
                    buf,
                    ioprio: None,
                };
                // SAFETY: every buffer outlives its completion, reaped below.
                let queued = unsafe { engine.queue(req) };
                assert!(matches!(queued, Queued::Pending), "{queued:?}");
                // Let the kernel thread take each entry before the commit.
                std::thread::sleep(Duration::from_micros(200));
            }
            engine.commit().unwrap();
            assert_eq!(engine.in_flight, 8, "round {round}");
            while engine.in_flight > 0 {
                done.clear();
                engine.reap(1, 8, &mut done).unwrap();
                reaped += done.len();
                assert!(done.iter().all(|c| c.result == 4096), "{done:?}");
            }
        }
        assert_eq!(reaped, 64);
        drop(engine);
        let _ = std::fs::remove_file(&path);
    }

    /// A read still in flight when the engine is dropped completes before
    /// the drop returns: its buffer is not left to the kernel.
    #[test]
    fn dropping_the_engine_waits_for_io_in_flight() {
        let dir = std::env::temp_dir().join(format!("ferrio-uring-drop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let wrote = Arc::new(AtomicBool::new(false));
        let writer = {
            let (fifo, wrote) = (fifo.clone(), wrote.clone());
            std::thread::spawn(move || {
                let mut w = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
                std::thread::sleep(Duration::from_millis(200));
                wrote.store(true, Ordering::SeqCst);
                let _ = w.write_all(b"data");
            })
        };
        let mut engine = Uring::new(4, options(false)).unwrap();
        let file = engine.open(&fifo, read_only()).unwrap();
        let mut buf = vec![0u8; 4];
        let req = Request {
            slot: 0,
            file,
            offset: 0,
            dir: Dir::Read,
            buf: &mut buf,
            ioprio: None,
        };
        // SAFETY: `buf` outlives the engine, which is dropped below.
        let queued = unsafe { engine.queue(req) };
        assert!(matches!(queued, Queued::Pending), "{queued:?}");
        engine.commit().unwrap();
        drop(engine);
        assert!(
            wrote.load(Ordering::SeqCst),
            "the drop returned before the read completed"
        );
        assert_eq!(&buf, b"data");
        writer.join().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
