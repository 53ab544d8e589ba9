//! SIGINT and SIGTERM end a run early, as in fio: every job stops at its
//! next I/O, and the results so far are reported. The handler only stores
//! into atomics, which is all a signal handler may safely do.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Set when a terminating signal arrived; jobs poll it.
pub static STOP: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    SIGNAL.store(signal, Ordering::Relaxed);
    STOP.store(true, Ordering::Relaxed);
}

/// Routes SIGINT and SIGTERM to the stop flag.
pub fn install() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler is async-signal-safe (two atomic stores).
        unsafe {
            libc::signal(signal, handler);
        }
    }
}

/// The signal that stopped the run, if one did.
pub fn received() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}
