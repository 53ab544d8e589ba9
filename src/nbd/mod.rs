//! libnbd (the NBD client library) behind a safe wrapper: a connection
//! to an NBD export named by a URI (`nbd://host:port/`, or
//! `nbd+unix:///?socket=PATH`), its size, and reads, writes, trims and
//! flushes started without waiting and retired by cookie. Loaded at run
//! time (crate::clib), so ferrio builds and runs without libnbd; only an
//! nbd job fails there, saying what to install. Every unsafe call to
//! libnbd is here.
//!
//! A handle is driven by one thread: the job's, which starts commands and
//! polls the socket for their replies. No completion callbacks are used:
//! a finished command is found by its cookie, so nothing of the job's is
//! reached from inside libnbd.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;

use crate::clib::error::{LibError, c_text};
use crate::clib::library::LoadError;

/// A libnbd handle (`struct nbd_handle *`).
type Handle = *mut c_void;

/// libnbd.h's `nbd_completion_callback`, passed by value: all null here
/// (LIBNBD_NULL_COMPLETION), as commands are retired by cookie.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct NoCallback {
    callback: *mut c_void,
    user_data: *mut c_void,
    free: *mut c_void,
}

const NO_CALLBACK: NoCallback = NoCallback {
    callback: std::ptr::null_mut(),
    user_data: std::ptr::null_mut(),
    free: std::ptr::null_mut(),
};

crate::c_library!(NbdApi, "libnbd.so.0", {
    fn nbd_create() -> Handle;
    fn nbd_close(h: Handle);
    fn nbd_get_error() -> *const c_char;
    fn nbd_get_errno() -> c_int;
    fn nbd_connect_uri(h: Handle, uri: *const c_char) -> c_int;
    fn nbd_get_size(h: Handle) -> i64;
    fn nbd_aio_pread(
        h: Handle,
        buf: *mut c_void,
        count: usize,
        offset: u64,
        completion: NoCallback,
        flags: u32,
    ) -> i64;
    fn nbd_aio_pwrite(
        h: Handle,
        buf: *const c_void,
        count: usize,
        offset: u64,
        completion: NoCallback,
        flags: u32,
    ) -> i64;
    fn nbd_aio_trim(h: Handle, count: u64, offset: u64, completion: NoCallback, flags: u32) -> i64;
    fn nbd_aio_flush(h: Handle, completion: NoCallback, flags: u32) -> i64;
    fn nbd_poll(h: Handle, timeout: c_int) -> c_int;
    fn nbd_aio_peek_command_completed(h: Handle) -> i64;
    fn nbd_aio_command_completed(h: Handle, cookie: u64) -> c_int;
});

static API: OnceLock<Result<NbdApi, LoadError>> = OnceLock::new();

fn api() -> Result<&'static NbdApi, LibError> {
    let loaded = API.get_or_init(NbdApi::load);
    loaded.as_ref().map_err(|e| LibError::Missing(e.clone()))
}

/// Loads libnbd (once per process), or says what to install.
pub fn load() -> std::io::Result<()> {
    api().map(|_| ()).map_err(Into::into)
}

/// A failed libnbd call: libnbd's own message (which names the call and
/// what went wrong), and its errno (EIO where libnbd gives none).
#[derive(Debug, Clone)]
pub struct NbdError {
    pub call: &'static str,
    pub message: String,
    pub errno: i32,
}

impl std::fmt::Display for NbdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl NbdError {
    /// The error of the last libnbd call on this thread.
    fn last(api: &NbdApi, call: &'static str) -> NbdError {
        // SAFETY: both read libnbd's thread-local error, set by the call
        // that just failed on this thread; the message is a NUL-terminated
        // string valid until the next libnbd call here, copied at once.
        let (message, errno) = unsafe {
            let text = (api.nbd_get_error)();
            let message = if text.is_null() {
                format!("{call} failed")
            } else {
                CStr::from_ptr(text).to_string_lossy().into_owned()
            };
            (message, (api.nbd_get_errno)())
        };
        NbdError {
            call,
            message,
            errno: if errno > 0 { errno } else { libc::EIO },
        }
    }

    fn from_lib(call: &'static str, e: &LibError) -> NbdError {
        NbdError {
            call,
            message: e.to_string(),
            errno: e.errno(),
        }
    }
}

/// One command's data: the buffer a read fills or a write sends.
pub use crate::clib::Transfer;

/// A connection to an NBD export, closed when dropped (which also ends
/// every command in flight: libnbd touches no buffer after closing).
pub struct Connection {
    api: &'static NbdApi,
    handle: Handle,
}

// SAFETY: a handle is used by one thread at a time (the job's); libnbd
// handles may move between threads.
unsafe impl Send for Connection {}

/// A handle's address, to hand a fresh handle back from the thread that
/// connects it.
struct SendHandle(Handle);
// SAFETY: the handle is used by the connecting thread, then by its
// receiver only.
unsafe impl Send for SendHandle {}

impl Connection {
    /// Connects to the export at `uri`, as nbd_connect_uri does (connect
    /// and handshake). The wait is left at once on a stop signal: the
    /// handshake goes on in its own thread, and the handle is then never
    /// closed (crate::clib::abandoned).
    pub fn open(uri: &str) -> Result<Connection, NbdError> {
        let api = api().map_err(|e| NbdError::from_lib("nbd_create", &e))?;
        let c_uri = c_text(uri).map_err(|e| NbdError::from_lib("nbd_connect_uri", &e))?;
        let connected = crate::clib::unless_stopped("nbd-connect", move || {
            // SAFETY: nbd_create takes nothing; a null answer is checked.
            let handle = unsafe { (api.nbd_create)() };
            if handle.is_null() {
                return Err(NbdError::last(api, "nbd_create"));
            }
            // SAFETY: a live handle and a C string that outlives the call.
            if unsafe { (api.nbd_connect_uri)(handle, c_uri.as_ptr()) } == -1 {
                let e = NbdError::last(api, "nbd_connect_uri");
                // SAFETY: the handle is ours and closed once.
                unsafe { (api.nbd_close)(handle) };
                return Err(e);
            }
            Ok(SendHandle(handle))
        });
        match connected {
            Ok(Ok(SendHandle(handle))) => Ok(Connection { api, handle }),
            Ok(Err(e)) => Err(e),
            Err(why) => Err(NbdError {
                call: "nbd_connect_uri",
                message: format!("nbd_connect_uri: no answer from {uri}"),
                errno: why.errno(),
            }),
        }
    }

    /// The export's size in bytes.
    pub fn size(&self) -> Result<u64, NbdError> {
        // SAFETY: a live, connected handle.
        let size = unsafe { (self.api.nbd_get_size)(self.handle) };
        if size < 0 {
            return Err(NbdError::last(self.api, "nbd_get_size"));
        }
        Ok(size as u64)
    }

    /// Starts a read or write; its cookie, or the errno of a refusal.
    ///
    /// # Safety
    ///
    /// The transfer's buffer must stay allocated, in place and untouched
    /// until the command is retired ([`Connection::next_done`]) or the
    /// connection is dropped.
    pub unsafe fn start(&self, data: Transfer) -> Result<u64, i32> {
        let (api, h) = (self.api, self.handle);
        // SAFETY: a live handle; the buffer is kept as the caller promises.
        let (cookie, call) = unsafe {
            match data {
                Transfer::Read { offset, buf, len } => (
                    (api.nbd_aio_pread)(h, buf.cast(), len, offset, NO_CALLBACK, 0),
                    "nbd_aio_pread",
                ),
                Transfer::Write { offset, buf, len } => (
                    (api.nbd_aio_pwrite)(h, buf.cast(), len, offset, NO_CALLBACK, 0),
                    "nbd_aio_pwrite",
                ),
            }
        };
        self.cookie(cookie, call)
    }

    /// Starts a trim of `len` bytes at `offset`.
    pub fn start_trim(&self, offset: u64, len: u64) -> Result<u64, i32> {
        // SAFETY: a live handle; a trim carries no buffer.
        let cookie = unsafe { (self.api.nbd_aio_trim)(self.handle, len, offset, NO_CALLBACK, 0) };
        self.cookie(cookie, "nbd_aio_trim")
    }

    /// Starts a flush of everything written so far.
    pub fn start_flush(&self) -> Result<u64, i32> {
        // SAFETY: a live handle; a flush carries no buffer.
        let cookie = unsafe { (self.api.nbd_aio_flush)(self.handle, NO_CALLBACK, 0) };
        self.cookie(cookie, "nbd_aio_flush")
    }

    fn cookie(&self, cookie: i64, call: &'static str) -> Result<u64, i32> {
        if cookie > 0 {
            Ok(cookie as u64)
        } else {
            Err(NbdError::last(self.api, call).errno)
        }
    }

    /// Waits up to `timeout_ms` for the socket and moves the connection's
    /// state on (sends what is queued, reads replies). `Ok(false)` on a
    /// timeout; an error once the connection is lost.
    pub fn poll(&self, timeout_ms: i32) -> Result<bool, NbdError> {
        // SAFETY: a live handle, driven by this thread only.
        match unsafe { (self.api.nbd_poll)(self.handle, timeout_ms) } {
            -1 => Err(NbdError::last(self.api, "nbd_poll")),
            0 => Ok(false),
            _ => Ok(true),
        }
    }

    /// Retires the next finished command: its cookie, and 0 or the errno
    /// the server (or a lost connection) failed it with. `None` when none
    /// has finished.
    pub fn next_done(&self) -> Option<(u64, i32)> {
        // SAFETY: a live handle.
        let cookie = unsafe { (self.api.nbd_aio_peek_command_completed)(self.handle) };
        if cookie <= 0 {
            return None;
        }
        let cookie = cookie as u64;
        // SAFETY: a live handle and the cookie of a finished command.
        match unsafe { (self.api.nbd_aio_command_completed)(self.handle, cookie) } {
            -1 => Some((
                cookie,
                NbdError::last(self.api, "nbd_aio_command_completed").errno,
            )),
            _ => Some((cookie, 0)),
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        // SAFETY: the handle is ours and closed once.
        unsafe { (self.api.nbd_close)(self.handle) };
    }
}
