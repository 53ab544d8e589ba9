//! The job loop's clock, as plain nanoseconds, so that every time
//! difference on the hot path is one integer subtraction rather than
//! `Instant`'s normalising arithmetic.
//!
//! Where the kernel itself keeps time with the TSC (its clocksource is
//! `tsc`, which it picks only when the counter is invariant and in step
//! across CPUs), the clock reads the TSC directly and scales it, as fio's
//! default `clocksource=cpu` does: about 14 ns a read on these machines
//! against 40 ns for `clock_gettime` through the vDSO, and the loop reads
//! the clock twice per I/O. Elsewhere it reads CLOCK_MONOTONIC.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Nanoseconds on the monotonic clock.
pub type Nanos = u64;

/// Where timestamps come from: the CPU's counter where the kernel trusts
/// it, else the monotonic clock (fio's default `cpu` source, nanoseconds);
/// the monotonic clock through clock_gettime (clocksource=clock_gettime);
/// gettimeofday(2) (clocksource=gettimeofday: whole microseconds, as in
/// fio); or the time a helper thread keeps reading from gettimeofday
/// (gtod_cpu, fio's offloaded clock).
static SOURCE: AtomicU8 = AtomicU8::new(CPU);
const CPU: u8 = 0;
const TIME_OF_DAY: u8 = 1;
const OFFLOADED: u8 = 2;
const CLOCK_GETTIME: u8 = 3;

/// The offloaded clock's latest reading.
static SHARED_NOW: AtomicU64 = AtomicU64::new(0);

/// fio's clocksource values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Cpu,
    ClockGettime,
    TimeOfDay,
}

/// Chooses the clock for the whole run (fio's clocksource is global).
pub fn use_source(source: Source) {
    let source = match source {
        Source::Cpu => CPU,
        Source::ClockGettime => CLOCK_GETTIME,
        Source::TimeOfDay => TIME_OF_DAY,
    };
    SOURCE.store(source, Ordering::Relaxed);
}

/// The current time.
#[inline]
pub fn now() -> Nanos {
    match SOURCE.load(Ordering::Relaxed) {
        CPU => match TSC.get_or_init(Tsc::calibrate) {
            Some(tsc) => tsc.now(),
            None => monotonic(),
        },
        TIME_OF_DAY => time_of_day(),
        CLOCK_GETTIME => monotonic(),
        _ => SHARED_NOW.load(Ordering::Relaxed),
    }
}

/// CLOCK_MONOTONIC through the vDSO.
fn monotonic() -> Nanos {
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

static TSC: OnceLock<Option<Tsc>> = OnceLock::new();

/// The TSC's scale to CLOCK_MONOTONIC, measured once per process.
#[derive(Debug)]
struct Tsc {
    /// A TSC reading and the monotonic time that matched it.
    base_ticks: u64,
    base_nanos: Nanos,
    /// Nanoseconds per tick, as a 32.32 fixed-point number.
    scale: u64,
}

/// How long the TSC is timed against CLOCK_MONOTONIC: a read's jitter of
/// some 20 ns over this is a rate error of about 2 parts per million.
const CALIBRATION: Duration = Duration::from_millis(10);

impl Tsc {
    fn calibrate() -> Option<Tsc> {
        let source = std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )
        .ok()?;
        if source.trim() != "tsc" || !cfg!(target_arch = "x86_64") {
            return None;
        }
        let (t0, m0) = Self::pair();
        std::thread::sleep(CALIBRATION);
        let (t1, m1) = Self::pair();
        let ticks = t1.checked_sub(t0).filter(|&t| t > 0)?;
        let scale = ((u128::from(m1 - m0) << 32) / u128::from(ticks)) as u64;
        Some(Tsc {
            base_ticks: t1,
            base_nanos: m1,
            scale,
        })
    }

    /// A monotonic time and the TSC at its middle, from the tightest of a
    /// few tries: a try that the scheduler interrupted is spread wide.
    fn pair() -> (u64, Nanos) {
        let mut best = (u64::MAX, 0, 0);
        for _ in 0..16 {
            let before = ticks();
            let nanos = monotonic();
            let after = ticks();
            let spread = after.saturating_sub(before);
            if spread < best.0 {
                best = (spread, before + spread / 2, nanos);
            }
        }
        (best.1, best.2)
    }

    #[inline]
    fn now(&self) -> Nanos {
        // Never before the base: a thread on a CPU whose counter is a few
        // ticks behind reads the base time rather than going backwards.
        let elapsed = ticks().saturating_sub(self.base_ticks);
        self.base_nanos + ((u128::from(elapsed) * u128::from(self.scale)) >> 32) as u64
    }
}

/// The time-stamp counter.
#[inline]
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: RDTSC exists on every x86-64 CPU and only reads a counter.
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    0
}

/// The run's time zero, fixed by the first call.
pub fn genesis() -> Nanos {
    static GENESIS: std::sync::OnceLock<Nanos> = std::sync::OnceLock::new();
    *GENESIS.get_or_init(now)
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
    fn the_tsc_scale_matches_the_monotonic_clock() {
        let (a, m) = (now(), monotonic());
        assert!(a.abs_diff(m) < 1_000_000, "{a} vs {m}");
        std::thread::sleep(Duration::from_millis(200));
        let (b, n) = (now(), monotonic());
        // Within 10 µs over 200 ms: 50 parts per million.
        assert!((b - a).abs_diff(n - m) < 10_000, "{} vs {}", b - a, n - m);
    }

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
