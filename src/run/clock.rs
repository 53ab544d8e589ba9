//! The job loop's clock: CLOCK_MONOTONIC (read through the vDSO, as
//! `Instant` does) as plain nanoseconds, so that every time difference on
//! the hot path is one integer subtraction rather than `Instant`'s
//! normalising arithmetic.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

/// Nanoseconds on the monotonic clock.
pub type Nanos = u64;

/// Where timestamps come from: the monotonic clock (fio's
/// clock_gettime, and what its `cpu` source is calibrated against:
/// nanoseconds); gettimeofday(2) (clocksource=gettimeofday: whole
/// microseconds, as in fio); or the time a helper thread keeps reading
/// from gettimeofday (gtod_cpu, fio's offloaded clock).
static SOURCE: AtomicU8 = AtomicU8::new(MONOTONIC);
const MONOTONIC: u8 = 0;
const TIME_OF_DAY: u8 = 1;
const OFFLOADED: u8 = 2;

/// The offloaded clock's latest reading.
static SHARED_NOW: AtomicU64 = AtomicU64::new(0);

/// Chooses the clock for the whole run (fio's clocksource is global).
pub fn use_time_of_day(on: bool) {
    let source = if on { TIME_OF_DAY } else { MONOTONIC };
    SOURCE.store(source, Ordering::Relaxed);
}

/// The current time.
#[inline]
pub fn now() -> Nanos {
    match SOURCE.load(Ordering::Relaxed) {
        MONOTONIC => {}
        TIME_OF_DAY => return time_of_day(),
        _ => return SHARED_NOW.load(Ordering::Relaxed),
    }
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec we own; CLOCK_MONOTONIC
    // always exists on Linux.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn time_of_day() -> Nanos {
    let mut tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    // SAFETY: gettimeofday writes the timeval we own; no time zone.
    unsafe {
        libc::gettimeofday(&mut tv, std::ptr::null_mut());
    }
    tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000
}

/// fio's gtod_cpu: a thread pinned to one CPU reads gettimeofday(2)
/// over and over, and every timestamp of the run is its latest reading.
/// The clock goes back to its source when this is dropped.
#[derive(Debug)]
pub struct GtodThread {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    previous: u8,
}

impl GtodThread {
    pub fn start(cpu: usize) -> GtodThread {
        SHARED_NOW.store(time_of_day(), Ordering::Relaxed);
        let previous = SOURCE.swap(OFFLOADED, Ordering::Relaxed);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            // SAFETY: a CPU set on the stack for the calling thread.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                if libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) != 0 {
                    eprintln!("gtod: setaffinity failed");
                }
            }
            while !flag.load(Ordering::Relaxed) {
                SHARED_NOW.store(time_of_day(), Ordering::Relaxed);
                std::hint::spin_loop();
            }
        });
        GtodThread {
            stop,
            thread: Some(thread),
            previous,
        }
    }
}

impl Drop for GtodThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        SOURCE.store(self.previous, Ordering::Relaxed);
    }
}

/// How many reads a coarse [`LoopClock`] answers from its last one.
const COARSE_EVERY: u32 = 64;

/// The I/O loop's clock. A job that measures no latency and logs none
/// (gtod_reduce, or every disable_* set) needs the time only for its
/// runtime, samples and rates, so it reads the clock once every
/// [`COARSE_EVERY`] calls, as fio caches the time of day then; the
/// runtime may run over by those few I/Os.
#[derive(Debug)]
pub struct LoopClock {
    coarse: bool,
    calls: u32,
    last: Nanos,
}

impl LoopClock {
    pub fn new(coarse: bool) -> Self {
        LoopClock {
            coarse,
            calls: 0,
            last: now(),
        }
    }

    #[inline]
    pub fn read(&mut self) -> Nanos {
        if self.coarse {
            self.calls += 1;
            if self.calls < COARSE_EVERY {
                return self.last;
            }
            self.calls = 0;
        }
        self.last = now();
        self.last
    }
}

/// A duration in nanoseconds (saturating past 584 years).
#[inline]
pub fn nanos(d: Duration) -> Nanos {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Whole milliseconds from `from` to `to` (0 if `to` is earlier).
#[inline]
pub fn ms_between(from: Nanos, to: Nanos) -> u64 {
    to.saturating_sub(from) / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_forward_in_step_with_instant() {
        let (a, i) = (now(), std::time::Instant::now());
        std::thread::sleep(Duration::from_millis(20));
        let (b, j) = (now(), std::time::Instant::now());
        let ours = b - a;
        let theirs = nanos(j - i);
        assert!(ours.abs_diff(theirs) < 2_000_000, "{ours} vs {theirs}");
        assert_eq!(ms_between(b, a), 0);
    }
}
