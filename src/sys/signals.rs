//! SIGINT and SIGTERM end a run early, as in fio: every job stops at its
//! next I/O, and the results so far are reported. SIGUSR1 asks for an
//! interim report. The handlers only store into atomics, which is all a
//! signal handler may safely do.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Set when a terminating signal arrived; jobs poll it.
pub static STOP: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Set by SIGUSR1 until the interim report is made.
static REPORT: AtomicBool = AtomicBool::new(false);

extern "C" fn on_usr1(_: libc::c_int) {
    REPORT.store(true, Ordering::Relaxed);
}

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
    let usr1 = on_usr1 as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler is async-signal-safe (one atomic store).
    unsafe {
        libc::signal(libc::SIGUSR1, usr1);
    }
}

/// Whether SIGUSR1 asked for an interim report since the last call.
pub fn report_requested() -> bool {
    REPORT.swap(false, Ordering::Relaxed)
}

/// The signal that stopped the run, if one did.
pub fn received() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}
