//! SIGINT and SIGTERM end a run early, as in fio: every job stops at its
//! next I/O, and the results so far are reported. SIGUSR1 asks for an
//! interim report. The handlers only store into atomics and write to an
//! eventfd, which is all a signal handler may safely do; the eventfd is
//! what wakes a thread asleep in [`sleep_or_stop`] at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// Set when a terminating signal arrived: read through [`stop_requested`]
/// (or, where the run shares it with its jobs, [`stop_flag`]).
static STOP: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Set by SIGUSR1 until the interim report is made.
static REPORT: AtomicBool = AtomicBool::new(false);
/// An eventfd the stop handler makes readable (and that stays readable:
/// it is never read), so that every sleeper polling it wakes; -1 until
/// [`install`] made it.
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// The longest a sleeper goes without looking at its own stop flags,
/// which other threads set without a signal (runtime end, exitall).
const SLICE: Duration = Duration::from_millis(50);

extern "C" fn on_usr1(_: libc::c_int) {
    REPORT.store(true, Ordering::Relaxed);
}

extern "C" fn on_signal(signal: libc::c_int) {
    SIGNAL.store(signal, Ordering::Relaxed);
    STOP.store(true, Ordering::Relaxed);
    let fd = WAKE.load(Ordering::Relaxed);
    if fd >= 0 {
        let one: u64 = 1;
        // SAFETY: write(2) is async-signal-safe; the buffer is 8 valid
        // bytes, as an eventfd takes. A full counter (EAGAIN) still
        // leaves the fd readable, which is all that matters.
        unsafe {
            libc::write(fd, (&raw const one).cast(), 8);
        }
    }
}

/// Routes SIGINT and SIGTERM to the stop flag (and the wake-up fd).
pub fn install() {
    if WAKE.load(Ordering::Relaxed) < 0 {
        // SAFETY: eventfd takes no pointers; a failure (-1) leaves the
        // sleepers on their slices alone.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        WAKE.store(fd, Ordering::Relaxed);
    }
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler is async-signal-safe (atomic stores and a
        // write to an eventfd).
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

/// Whether a terminating signal asked the run to stop: the one way
/// anything in ferrio reads it.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// The stop flag itself, which the run hands its jobs and its trigger
/// (an exitall or a trigger sets it too).
pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}

/// Sleeps until `wait` has passed (true) or a stop was asked (false):
/// a terminating signal, seen at once, or `also` (a flag another thread
/// sets), seen within [`SLICE`]. A wait too long to be a time (fio's
/// `thinktime=-1`) lasts until a stop.
pub fn sleep_or_stop(wait: Duration, also: impl Fn() -> bool) -> bool {
    let until = Instant::now().checked_add(wait);
    loop {
        if stop_requested() || also() {
            return false;
        }
        let now = Instant::now();
        let left = match until {
            Some(until) if now >= until => return true,
            Some(until) => until - now,
            None => SLICE,
        };
        nap(left.min(SLICE));
    }
}

/// One slice of a sleep: poll(2) on the wake-up fd, which returns early
/// when a stop signal arrives; a plain sleep before [`install`].
fn nap(slice: Duration) {
    let fd = WAKE.load(Ordering::Relaxed);
    if fd < 0 {
        std::thread::sleep(slice);
        return;
    }
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let time = libc::timespec {
        tv_sec: slice.as_secs() as libc::time_t,
        tv_nsec: slice.subsec_nanos() as libc::c_long,
    };
    // SAFETY: one valid pollfd, a valid timespec and no signal mask. An
    // EINTR (SIGUSR1) just ends the slice early.
    unsafe {
        libc::ppoll(&raw mut poll, 1, &raw const time, std::ptr::null());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_lasts_its_time_without_a_stop() {
        let began = Instant::now();
        assert!(sleep_or_stop(Duration::from_millis(30), || false));
        assert!(began.elapsed() >= Duration::from_millis(30));
    }

    #[test]
    fn a_flag_set_by_another_thread_ends_an_endless_sleep() {
        let flag = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(20));
                flag.store(true, Ordering::Relaxed);
            });
            assert!(!sleep_or_stop(Duration::MAX, || flag.load(Ordering::Relaxed)));
        });
    }
}
