//! SIGINT and SIGTERM end a run early, as in fio: every job stops at its
//! next I/O, and the results so far are reported. SIGUSR1 asks for an
//! interim report. The handlers are signal-hook's (sigaction): ours only
//! store into atomics, and signal-hook's self-pipe action then writes to
//! a socket, which is what wakes a thread asleep in [`sleep_or_stop`] at
//! once.

use std::os::fd::{AsRawFd, IntoRawFd};
use std::os::unix::net::UnixStream;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// Set when a terminating signal arrived: read through [`stop_requested`]
/// (or, where the run shares it with its jobs, [`stop_flag`]).
static STOP: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Set by SIGUSR1 until the interim report is made.
static REPORT: AtomicBool = AtomicBool::new(false);
/// The read end of the wake-up socket, which a stop signal makes readable
/// (and which stays readable: it is never read), so that every sleeper
/// polling it wakes; -1 until [`install`] made it.
static WAKE: AtomicI32 = AtomicI32::new(-1);
static INSTALL: Once = Once::new();

/// The longest a sleeper goes without looking at its own stop flags,
/// which other threads set without a signal (runtime end, exitall).
const SLICE: Duration = Duration::from_millis(50);

/// Routes SIGINT and SIGTERM to the stop flag (and the wake-up socket),
/// SIGUSR1 to the report flag. Done once; a failure to make the socket
/// leaves the sleepers on their slices.
pub fn install() {
    INSTALL.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            let stop = move || {
                SIGNAL.store(signal, Ordering::Relaxed);
                STOP.store(true, Ordering::Relaxed);
            };
            // SAFETY: the action only stores into atomics, which is
            // async-signal-safe.
            let _ = unsafe { signal_hook::low_level::register(signal, stop) };
        }
        // SAFETY: as above, one atomic store.
        let _ = unsafe {
            signal_hook::low_level::register(libc::SIGUSR1, || {
                REPORT.store(true, Ordering::Relaxed);
            })
        };
        // Registered after the flags, so that a woken sleeper sees them set.
        if let Ok((read, write)) = UnixStream::pair() {
            let registered = write.try_clone().is_ok_and(|second| {
                signal_hook::low_level::pipe::register(libc::SIGINT, write).is_ok()
                    && signal_hook::low_level::pipe::register(libc::SIGTERM, second).is_ok()
            });
            if registered {
                WAKE.store(read.as_raw_fd(), Ordering::Relaxed);
                // Kept open for the life of the process.
                let _ = read.into_raw_fd();
            }
        }
    });
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
