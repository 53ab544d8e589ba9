//! The `libaio` engine: Linux kernel AIO through its system calls
//! (io_setup, io_submit, io_getevents), as libaio would make them.
//!
//! With `userspace_reap`, completions are taken straight from the ring
//! the kernel shares with the process (fio's user_io_getevents), without
//! a system call; like fio, only when completions are polled
//! (iodepth_batch_complete_min=0), and through io_getevents otherwise.
//!
//! This is the only module that talks to kernel AIO, and all of its
//! unsafe code is here. How long a request's buffer must live is the
//! rule of [`Engine::queue`]'s Safety section, which kernel AIO needs.

use super::file_table::FileTable;
use std::io;
use std::os::fd::AsRawFd;

use super::api::{Completion, Dir, Engine, OptionSource, Queued, Request};

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

/// The header of the completion ring the kernel maps at the address of
/// an AIO context; the events follow it.
#[repr(C)]
struct AioRing {
    id: u32,
    nr: u32,
    head: u32,
    tail: u32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

/// The kernel's mark of a ring laid out as [`AioRing`].
const AIO_RING_MAGIC: u32 = 0xa10a10a1;

/// The kernel reads `reqprio` only with this flag.
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;
const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;

pub struct Libaio {
    ctx: libc::c_ulong,
    files: FileTable,
    /// One control block per slot, stable in memory while in flight.
    iocbs: Vec<Iocb>,
    /// Pointers to the control blocks queued since the last commit.
    pending: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    in_flight: usize,
    /// Reap by polling (iodepth_batch_complete_min=0): ask for no minimum
    /// and ask again until enough have come.
    polled: bool,
    /// Poll the completion ring from user space (userspace_reap).
    from_ring: bool,
    /// nowait: RWF_NOWAIT on every read and write.
    rw_flags: u32,
}

// SAFETY: the raw pointers only ever point into `iocbs`, which this value
// owns; it moves between threads as a whole, never shared.
unsafe impl Send for Libaio {}

impl Libaio {
    /// A context for `depth` I/Os; `polled` and `from_ring` as fio's
    /// iodepth_batch_complete_min=0 and userspace_reap.
    pub fn new(depth: usize, polled: bool, from_ring: bool) -> io::Result<Self> {
        // The depth's control blocks and events: a depth whose memory is
        // not to be had fails the job (ENOMEM), not the process.
        let no_memory = |_| io::Error::from_raw_os_error(libc::ENOMEM);
        let (mut iocbs, mut pending, mut events) = (Vec::new(), Vec::new(), Vec::new());
        iocbs.try_reserve_exact(depth).map_err(no_memory)?;
        pending.try_reserve_exact(depth).map_err(no_memory)?;
        events.try_reserve_exact(depth).map_err(no_memory)?;
        iocbs.resize(depth, Iocb::default());
        events.resize(depth, IoEvent::default());
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
            files: FileTable::default(),
            iocbs,
            pending,
            events,
            in_flight: 0,
            polled,
            from_ring,
            rw_flags: 0,
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

    file_table_open_close!();

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        let opcode = match req.dir {
            Dir::Read => IOCB_CMD_PREAD,
            Dir::Write => IOCB_CMD_PWRITE,
            Dir::Trim => {
                let fd = self.files[req.file].as_raw_fd();
                return Queued::Done(super::api::discard(fd, req.offset, req.buf.len()));
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
            reqprio: req.ioprio.unwrap_or(0) as i16,
            rw_flags: self.rw_flags,
            flags: if req.ioprio.is_some() {
                IOCB_FLAG_IOPRIO
            } else {
                0
            },
            ..Iocb::default()
        };
        self.pending.push(cb as *mut Iocb);
        Queued::Pending
    }

    sync_each_file!();

    fn commit(&mut self) -> io::Result<()> {
        let mut start = 0;
        while start < self.pending.len() {
            let rest = &mut self.pending[start..];
            // SAFETY: each pointer is to a live control block in `iocbs`
            // whose buffer `queue`'s caller keeps for it (its Safety
            // section).
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
        // fio polls when no minimum is set, and waits in the kernel
        // otherwise.
        let wait_for = if self.polled { 0 } else { want };
        let mut got = 0;
        loop {
            let room = max - got;
            let n = if self.polled && self.from_ring && self.ring_is_readable() {
                self.reap_ring(room)
            } else {
                self.get_events(wait_for, room)?
            };
            self.in_flight -= n;
            done.extend(self.events[..n].iter().map(|ev| Completion {
                slot: ev.data as usize,
                result: ev.res,
            }));
            got += n;
            if got >= want || got == max {
                return Ok(());
            }
        }
    }
}

impl Libaio {
    /// With `on` (the nowait option), reads and writes that would block
    /// fail with EAGAIN instead.
    pub fn nowait(mut self, on: bool) -> Self {
        self.rw_flags = if on {
            super::psync::RWF_NOWAIT as u32
        } else {
            0
        };
        self
    }

    /// io_getevents for between `min` and `max` events into `events`;
    /// an interrupted call counts as none.
    fn get_events(&mut self, min: usize, max: usize) -> io::Result<usize> {
        // SAFETY: `events` has room for `max` events, which the kernel fills.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                min as libc::c_long,
                max as libc::c_long,
                self.events.as_mut_ptr(),
                std::ptr::null_mut::<libc::timespec>(),
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EINTR | libc::EAGAIN) => Ok(0),
                _ => Err(e),
            };
        }
        Ok(r as usize)
    }

    fn ring(&self) -> *mut AioRing {
        self.ctx as *mut AioRing
    }

    /// Whether the context's address holds a ring this code can read.
    fn ring_is_readable(&self) -> bool {
        // SAFETY: on Linux the context id is the address of the ring the
        // kernel mapped into this process, which lives until io_destroy.
        unsafe { std::ptr::addr_of!((*self.ring()).magic).read_volatile() == AIO_RING_MAGIC }
    }

    /// Takes up to `max` finished events off the ring into `events`,
    /// moving its head past them; returns how many.
    fn reap_ring(&mut self, max: usize) -> usize {
        use std::sync::atomic::{AtomicU32, Ordering};
        let ring = self.ring();
        // SAFETY: as in `ring_is_readable`; head and tail are u32s the
        // kernel updates concurrently, so they are accessed atomically,
        // and the events after the header number `nr`.
        unsafe {
            let head = AtomicU32::from_ptr(std::ptr::addr_of_mut!((*ring).head));
            let tail = AtomicU32::from_ptr(std::ptr::addr_of_mut!((*ring).tail));
            let nr = std::ptr::addr_of!((*ring).nr).read_volatile();
            let first = ring.add(1).cast::<IoEvent>();
            let mut n = 0;
            while n < max {
                let at = head.load(Ordering::Acquire);
                if at == tail.load(Ordering::Acquire) {
                    break;
                }
                self.events[n] = first.add(at as usize).read_volatile();
                head.store((at + 1) % nr, Ordering::Release);
                n += 1;
            }
            n
        }
    }
}

/// libaio's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LibaioOptions {
    /// Reap without waiting in the kernel, asking again until enough
    /// have come (iodepth_batch_complete_min=0).
    pub poll_completions: bool,
    /// Take completions from the ring in user space (userspace_reap).
    pub userspace_reap: bool,
    /// Reads and writes that would block fail with EAGAIN (nowait).
    pub nowait: bool,
}

/// libaio's options, as the job sets them.
pub fn options(src: &OptionSource) -> LibaioOptions {
    LibaioOptions {
        poll_completions: super::api::set(src.job, "iodepth_batch_complete_min") == Some(0),
        userspace_reap: src.job.flag("userspace_reap"),
        nowait: super::api::on(src.job, "nowait"),
    }
}

/// The table's maker.
pub fn make(depth: usize, o: &LibaioOptions) -> io::Result<Box<dyn Engine>> {
    Libaio::new(depth, o.poll_completions, o.userspace_reap)
        .map(|e| Box::new(e.nowait(o.nowait)) as Box<dyn Engine>)
}
