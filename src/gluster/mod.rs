//! GlusterFS's client library, libgfapi, behind safe wrappers: a
//! connection to a volume ([`Volume`]), its files ([`GlusterFile`]), and
//! asynchronous I/O that completes into a [`CallbackQueue`]. libgfapi is
//! loaded at run time ([`sys`]), so ferrio builds and runs without it;
//! the first use there fails with [`GlusterError::Missing`], which says
//! what to install. Every unsafe call to GlusterFS is in this module.

mod sys;

use std::ffi::c_void;
use std::io;
use std::sync::OnceLock;

use crate::clib::Transfer;
use crate::clib::callbacks::{self, CallbackQueue};
use crate::clib::library::LoadError;
use sys::GfapiApi;

static API: OnceLock<Result<GfapiApi, LoadError>> = OnceLock::new();

fn api() -> Result<&'static GfapiApi, GlusterError> {
    let loaded = API.get_or_init(GfapiApi::load);
    loaded
        .as_ref()
        .map_err(|e| GlusterError::Missing(e.clone()))
}

/// Loads libgfapi (once per process), or says what to install.
pub fn load() -> Result<(), GlusterError> {
    api().map(|_| ())
}

/// What went wrong talking to GlusterFS.
pub type GlusterError = crate::clib::error::LibError;

use crate::clib::error::c_text;

/// The errno libgfapi left, EIO if none.
fn last_errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .filter(|&e| e != 0)
        .unwrap_or(libc::EIO)
}

/// A failed call's error, with the errno it left.
fn failed(call: &'static str, subject: &str) -> GlusterError {
    GlusterError::Call {
        call,
        subject: subject.to_string(),
        errno: last_errno(),
    }
}

/// A mounted volume: libgfapi's virtual mount (`glfs_t`), connected to a
/// volume through its management daemon. Unmounted (glfs_fini) when
/// dropped, which waits for the library's own background work.
pub struct Volume {
    api: &'static GfapiApi,
    fs: sys::Fs,
    name: String,
}

// SAFETY: libgfapi's handles may be used from any thread; a Volume is
// used by one job's thread at a time.
unsafe impl Send for Volume {}
// SAFETY: as above: libgfapi serialises calls on one mount itself.
unsafe impl Sync for Volume {}

impl Volume {
    /// Mounts `volume` from the management daemon at `server` (TCP, its
    /// default port), as fio's gfapi engines do, and checks the volume's
    /// root can be read. The library's log goes nowhere: fio's debug log
    /// in /tmp is a file no job named.
    pub fn connect(volume: &str, server: &str) -> Result<Volume, GlusterError> {
        let api = api()?;
        let c_volume = c_text(volume)?;
        let c_server = c_text(server)?;
        // SAFETY: a valid C string; NULL is checked.
        let fs = unsafe { (api.glfs_new)(c_volume.as_ptr()) };
        if fs.is_null() {
            return Err(failed("glfs_new", &format!("volume {volume}")));
        }
        let mounted = Volume {
            api,
            fs,
            name: volume.to_string(),
        };
        // SAFETY: a live handle and valid C strings.
        unsafe {
            (api.glfs_set_logging)(fs, c"/dev/null".as_ptr(), 0);
            if (api.glfs_set_volfile_server)(fs, c"tcp".as_ptr(), c_server.as_ptr(), 0) != 0 {
                return Err(failed("glfs_set_volfile_server", server));
            }
        }
        let mounted = init_or_stop(mounted, server)?;
        mounted.size_of(".").map(|_| mounted)
    }

    /// The volume's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A file's size, `None` if it does not exist (glfs_lstat).
    pub fn size_of(&self, path: &str) -> Result<Option<u64>, GlusterError> {
        let c_path = c_text(path)?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::zeroed();
        // SAFETY: a live mount, a C string, room for one stat.
        let r = unsafe { (self.api.glfs_lstat)(self.fs, c_path.as_ptr(), st.as_mut_ptr()) };
        if r == 0 {
            // SAFETY: filled by the successful call (and zeroed before).
            Ok(Some(unsafe { st.assume_init() }.st_size as u64))
        } else if last_errno() == libc::ENOENT {
            Ok(None)
        } else {
            Err(failed("glfs_lstat", path))
        }
    }

    /// Opens `path` with open(2)'s `flags`, creating it (mode `mode`)
    /// if it is missing (glfs_creat, as fio opens every file).
    pub fn create(&self, path: &str, flags: i32, mode: u32) -> Result<GlusterFile, GlusterError> {
        let c_path = c_text(path)?;
        // SAFETY: a live mount and a C string; NULL is checked.
        let fd = unsafe { (self.api.glfs_creat)(self.fs, c_path.as_ptr(), flags, mode) };
        if fd.is_null() {
            return Err(failed("glfs_creat", path));
        }
        Ok(GlusterFile {
            api: self.api,
            fd,
            path: path.to_string(),
        })
    }

    /// Removes a file of the volume.
    pub fn unlink(&self, path: &str) -> Result<(), GlusterError> {
        let c_path = c_text(path)?;
        // SAFETY: a live mount and a C string.
        if unsafe { (self.api.glfs_unlink)(self.fs, c_path.as_ptr()) } == 0 {
            Ok(())
        } else {
            Err(failed("glfs_unlink", path))
        }
    }
}

/// glfs_init, which a stop signal does not interrupt (an unreachable
/// server holds it for a second, a stuck one longer), on a thread of its
/// own ([`crate::clib::unless_stopped`]). A failed mount is unmounted on
/// a thread nobody waits for (glfs_fini takes up to 10 s). A stop fails
/// with EINTR and leaves the thread to finish.
fn init_or_stop(volume: Volume, server: &str) -> Result<Volume, GlusterError> {
    let subject = format!("volume {} at {server}", volume.name);
    let init = crate::clib::unless_stopped("glfs-init", move || {
        // SAFETY: a created, configured mount, used by this thread alone
        // until it is sent back.
        let code = unsafe { (volume.api.glfs_init)(volume.fs) };
        if code == 0 {
            return Ok(volume);
        }
        let errno = last_errno();
        // The caller does not wait for the unmount: the process ends
        // with _exit if it is still under way.
        crate::clib::left_a_call_running();
        let _ = std::thread::Builder::new()
            .name("glfs-fini".into())
            .spawn(move || drop(volume));
        Err(errno)
    });
    let errno = match init {
        Ok(Ok(volume)) => return Ok(volume),
        Ok(Err(errno)) => errno,
        Err(why) => why.errno(),
    };
    Err(GlusterError::Call {
        call: "glfs_init",
        subject,
        errno,
    })
}

/// A mount's handle, to unmount on another thread.
struct Unmount(&'static GfapiApi, sys::Fs);

// SAFETY: libgfapi's handles may be used from any thread; the handle is
// used by that thread alone.
unsafe impl Send for Unmount {}

impl Drop for Volume {
    /// Unmounts, which waits for libgfapi's background work (about 10 s
    /// on these machines, as for fio); a stop signal leaves it to finish
    /// on its own thread.
    fn drop(&mut self) {
        let handle = Unmount(self.api, self.fs);
        // A stop leaves the unmount to finish on its own thread.
        let _ = crate::clib::unless_stopped("glfs-fini", move || handle.run());
    }
}

impl Unmount {
    fn run(self) {
        // SAFETY: the mount was created and its files are closed (the
        // engine drops them first); it is unmounted once, here.
        unsafe { (self.0.glfs_fini)(self.1) };
    }
}

/// One asynchronous operation on a file.
#[derive(Debug, Clone, Copy)]
pub enum AsyncOp {
    Data(Transfer),
    Trim { offset: u64, len: usize },
    Sync { data_only: bool },
}

/// An open file of a volume (`glfs_fd_t`), closed when dropped.
pub struct GlusterFile {
    api: &'static GfapiApi,
    fd: sys::Fd,
    path: String,
}

// SAFETY: as for Volume.
unsafe impl Send for GlusterFile {}

/// A byte count or -1 as a request result: the count, or the negative
/// errno.
fn counted(r: isize) -> i64 {
    if r >= 0 {
        r as i64
    } else {
        -i64::from(last_errno())
    }
}

/// A 0-or-minus-1 return as a request result: `len` bytes, or the
/// negative errno.
fn done(r: i32, len: usize) -> i64 {
    if r == 0 {
        len as i64
    } else {
        -i64::from(last_errno())
    }
}

impl GlusterFile {
    /// The file's path in its volume.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Reads into `buf` from `offset`: bytes read, or a negative errno.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> i64 {
        // SAFETY: an open fd and a buffer of `buf.len()` writable bytes.
        counted(unsafe {
            (self.api.glfs_pread)(
                self.fd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                offset as libc::off_t,
                0,
                std::ptr::null_mut(),
            )
        })
    }

    /// Writes `buf` at `offset`: bytes written, or a negative errno.
    pub fn write_at(&self, buf: &[u8], offset: u64) -> i64 {
        // SAFETY: an open fd and a buffer of `buf.len()` readable bytes.
        counted(unsafe {
            (self.api.glfs_pwrite)(
                self.fd,
                buf.as_ptr().cast(),
                buf.len(),
                offset as libc::off_t,
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        })
    }

    /// Discards `len` bytes at `offset`: `len`, or a negative errno.
    pub fn discard(&self, offset: u64, len: usize) -> i64 {
        // SAFETY: an open fd.
        done(
            unsafe { (self.api.glfs_discard)(self.fd, offset as libc::off_t, len) },
            len,
        )
    }

    /// fsync, or fdatasync when `data_only`.
    pub fn sync(&self, data_only: bool) -> io::Result<()> {
        let call = if data_only {
            self.api.glfs_fdatasync
        } else {
            self.api.glfs_fsync
        };
        // SAFETY: an open fd; the stat pointers may be NULL.
        let r = unsafe { call(self.fd, std::ptr::null_mut(), std::ptr::null_mut()) };
        if r == 0 {
            Ok(())
        } else {
            Err(io::Error::from_raw_os_error(last_errno()))
        }
    }

    /// Sets the file's size.
    pub fn truncate(&self, len: u64) -> Result<(), GlusterError> {
        // SAFETY: an open fd; the stat pointers may be NULL.
        let r = unsafe {
            (self.api.glfs_ftruncate)(
                self.fd,
                len as libc::off_t,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(failed("glfs_ftruncate", &self.path))
        }
    }

    /// Starts `op` for `token` of `queue`; its result comes back from the
    /// queue's reap. `Err` holds the errno of an operation the library
    /// refused (it then never completes).
    ///
    /// # Safety
    ///
    /// A read's or write's buffer must stay allocated, in place and
    /// untouched until the queue has handed back this token's result, and
    /// the queue must outlive the operation (a [`CallbackQueue`] waits for
    /// its operations when dropped, unless abandoned, when it must then
    /// never be freed, nor the buffer).
    pub unsafe fn start(
        &self,
        queue: &CallbackQueue,
        token: usize,
        op: AsyncOp,
    ) -> Result<(), i32> {
        let ticket = queue.ticket(token).ok_or(libc::EINVAL)?;
        let api = self.api;
        let fd = self.fd;
        queue.started();
        // SAFETY: an open fd; the caller keeps the buffer and the queue
        // alive until the callback has run; `ticket` is this token's.
        let r = unsafe {
            match op {
                AsyncOp::Data(Transfer::Read { offset, buf, len }) => (api.glfs_pread_async)(
                    fd,
                    buf.cast(),
                    len,
                    offset as libc::off_t,
                    0,
                    io_done,
                    ticket,
                ),
                AsyncOp::Data(Transfer::Write { offset, buf, len }) => (api.glfs_pwrite_async)(
                    fd,
                    buf.cast(),
                    len as i32,
                    offset as libc::off_t,
                    0,
                    io_done,
                    ticket,
                ),
                AsyncOp::Trim { offset, len } => {
                    (api.glfs_discard_async)(fd, offset as libc::off_t, len, io_done, ticket)
                }
                AsyncOp::Sync { data_only: true } => {
                    (api.glfs_fdatasync_async)(fd, io_done, ticket)
                }
                AsyncOp::Sync { data_only: false } => (api.glfs_fsync_async)(fd, io_done, ticket),
            }
        };
        if r != 0 {
            queue.refused();
            return Err(last_errno());
        }
        Ok(())
    }
}

impl Drop for GlusterFile {
    fn drop(&mut self) {
        // SAFETY: an open fd, closed once; the engine has reaped (or
        // abandoned) the operations on it first.
        unsafe { (self.api.glfs_close)(self.fd) };
    }
}

/// libgfapi's completion callback: the operation's return (bytes, or -1
/// with errno set on this thread) into the queue.
unsafe extern "C" fn io_done(
    _fd: sys::Fd,
    ret: isize,
    _prestat: *mut c_void,
    _poststat: *mut c_void,
    data: *mut c_void,
) {
    let result = counted(ret);
    // SAFETY: `data` is the ticket `start` gave this operation, counted
    // started there and finished once, here.
    unsafe { callbacks::finish(data, result) };
}
