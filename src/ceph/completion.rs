//! How librados' and librbd's asynchronous operations report into a
//! [`CallbackQueue`]: each operation gets a completion of its library's
//! whose callback records the result and frees the completion.

use std::ffi::{c_int, c_void};

use super::sys::{RadosApi, RbdApi};
use super::{Apis, CephError, check};
use crate::clib::callbacks::{self, CallbackQueue};

/// How one library makes, reads and frees the completions of its
/// asynchronous operations.
pub(super) trait CompletionCalls: Sized + 'static {
    const CREATE: &'static str;
    /// The library's table, loaded before any completion was made.
    fn of(apis: &'static Apis) -> &'static Self;
    /// Makes a completion that calls [`finished`] with `arg`.
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int;
    /// A finished operation's result: a byte count, 0, or a negative errno.
    fn result(&self, completion: *mut c_void) -> i64;
    /// Frees a completion that is finished, or whose operation never
    /// started.
    fn release(&self, completion: *mut c_void);
}

impl CompletionCalls for RbdApi {
    const CREATE: &'static str = "rbd_aio_create_completion";
    fn of(apis: &'static Apis) -> &'static Self {
        &apis.rbd
    }
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int {
        // SAFETY: a valid out pointer; `arg` is a ticket, which outlives
        // the operation (the queue waits for every operation it started).
        unsafe { (self.rbd_aio_create_completion)(arg, finished::<Self>, completion) }
    }
    fn result(&self, completion: *mut c_void) -> i64 {
        // SAFETY: a live completion.
        unsafe { (self.rbd_aio_get_return_value)(completion) as i64 }
    }
    fn release(&self, completion: *mut c_void) {
        // SAFETY: a live completion, released once.
        unsafe { (self.rbd_aio_release)(completion) }
    }
}

impl CompletionCalls for RadosApi {
    const CREATE: &'static str = "rados_aio_create_completion2";
    fn of(apis: &'static Apis) -> &'static Self {
        &apis.rados
    }
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int {
        // SAFETY: as for librbd's.
        unsafe { (self.rados_aio_create_completion2)(arg, finished::<Self>, completion) }
    }
    fn result(&self, completion: *mut c_void) -> i64 {
        // SAFETY: a live completion.
        i64::from(unsafe { (self.rados_aio_get_return_value)(completion) })
    }
    fn release(&self, completion: *mut c_void) {
        // SAFETY: a live completion, released once.
        unsafe { (self.rados_aio_release)(completion) }
    }
}

/// Starts one operation for `token` of `queue`: makes its completion,
/// counts it in flight, and lets `start` hand it to the library, which
/// returns its code and the call's name; a refused operation is uncounted
/// and its completion freed.
pub(super) fn launch<L: CompletionCalls>(
    queue: &CallbackQueue,
    library: &L,
    token: usize,
    subject: &str,
    start: impl FnOnce(*mut c_void) -> (c_int, &'static str),
) -> Result<(), CephError> {
    let ticket = queue.ticket(token).ok_or_else(|| CephError::Call {
        call: "submit",
        subject: format!("token {token} of a queue of {}", queue.capacity()),
        errno: libc::EINVAL,
    })?;
    let mut completion: *mut c_void = std::ptr::null_mut();
    let made = library.create(ticket, &mut completion);
    check(made.into(), L::CREATE, subject)?;
    queue.started();
    let (r, call) = start(completion);
    if r < 0 {
        queue.refused();
        library.release(completion);
    }
    check(r.into(), call, subject)
}

/// The completion callback of both libraries: records the operation's
/// result and frees its completion.
unsafe extern "C" fn finished<L: CompletionCalls>(completion: *mut c_void, arg: *mut c_void) {
    // Loaded: the completion was made through it.
    let Ok(apis) = super::apis() else { return };
    let library = L::of(apis);
    let result = library.result(completion);
    // The completion is finished and released once, here: each library
    // holds a reference of its own while the callback runs.
    library.release(completion);
    // SAFETY: `arg` is the ticket the completion was made with, of an
    // operation counted started when it was launched.
    unsafe { callbacks::finish(arg, result) };
}
