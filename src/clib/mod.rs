//! What ferrio needs to call C libraries it does not link against: a
//! table of a library's functions found at run time ([`library`]), so
//! that ferrio builds and runs where the library is absent, and the
//! queue that such a library's completion callbacks report into
//! ([`callbacks`]). The Ceph and GlusterFS wrappers are built on both.

pub mod callbacks;
pub mod error;
pub mod library;

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a stop left a thread inside a library's blocking call (a
/// connect that waits for an unreachable server): the process must then
/// end without running the library's exit-time destructors under it.
static ABANDONED: AtomicBool = AtomicBool::new(false);

/// Records that a thread was left inside a library call ([`abandoned`]).
pub fn left_a_call_running() {
    ABANDONED.store(true, Ordering::Relaxed);
}

/// How often a wait for a blocking library call looks for a stop signal.
const POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Why a blocking library call gave no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unanswered {
    /// A stop signal came first; the call is left to finish on its own.
    Stopped,
    /// No thread could be made: the call was not made.
    NoThread,
    /// The call's thread ended without an answer (it panicked).
    Lost,
}

impl Unanswered {
    /// The errno a caller reports for it.
    pub fn errno(self) -> i32 {
        match self {
            Unanswered::Stopped => libc::EINTR,
            Unanswered::NoThread => libc::EAGAIN,
            Unanswered::Lost => libc::EIO,
        }
    }
}

/// Runs a blocking library call (one that no signal interrupts, such as
/// rados_connect, glfs_init or glfs_fini) on a thread of its own and
/// waits for it in short slices, so that a stop signal ends the wait at
/// once; the call is then left running (see [`abandoned`]).
pub fn unless_stopped<R: Send + 'static>(
    name: &str,
    call: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Unanswered> {
    use std::sync::mpsc::RecvTimeoutError;
    if crate::sys::signals::stop_requested() {
        return Err(Unanswered::Stopped);
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            // Nobody waits any more after a stop: the answer is dropped.
            let _ = tx.send(call());
        });
    spawned.map_err(|_| Unanswered::NoThread)?;
    loop {
        if crate::sys::signals::stop_requested() {
            left_a_call_running();
            return Err(Unanswered::Stopped);
        }
        match rx.recv_timeout(POLL) {
            Ok(answer) => return Ok(answer),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Err(Unanswered::Lost),
        }
    }
}

/// Whether a stop left such a call running (the process should then end
/// with `_exit`, after flushing its output).
pub fn abandoned() -> bool {
    ABANDONED.load(Ordering::Relaxed)
}

/// The data of an asynchronous read or write (to an rbd image, a rados
/// object, a GlusterFS file): the buffer a read fills or a write sends,
/// which the caller keeps valid until the operation completes.
#[derive(Debug, Clone, Copy)]
pub enum Transfer {
    Read {
        offset: u64,
        buf: *mut u8,
        len: usize,
    },
    Write {
        offset: u64,
        buf: *const u8,
        len: usize,
    },
}
