//! A thread's CPU time, context switches and page faults (getrusage of
//! the calling thread), which fio reports per job on its `cpu` line.

/// Resource use of one thread, or the difference of two readings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuUsage {
    /// User and system CPU time, in microseconds.
    pub user_us: u64,
    pub system_us: u64,
    /// Voluntary plus involuntary context switches, and the voluntary
    /// ones alone (the times the thread blocked, e.g. on the device).
    pub ctx: u64,
    pub voluntary_ctx: u64,
    pub major_faults: u64,
    pub minor_faults: u64,
    /// Time the thread was ready to run but waited for a CPU taken by
    /// others, in microseconds (the scheduler's run delay): on a busy
    /// machine, time a CPU-bound thread wanted but did not get.
    pub waiting_us: u64,
}

impl CpuUsage {
    /// The calling thread's use so far.
    pub fn of_this_thread() -> Self {
        // SAFETY: getrusage writes a plain struct that we own; a zeroed
        // rusage is a valid value of it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
        if rc != 0 {
            return CpuUsage::default();
        }
        let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
        CpuUsage {
            user_us: us(ru.ru_utime),
            system_us: us(ru.ru_stime),
            ctx: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
            voluntary_ctx: ru.ru_nvcsw as u64,
            major_faults: ru.ru_majflt as u64,
            minor_faults: ru.ru_minflt as u64,
            waiting_us: run_delay_us().unwrap_or(0),
        }
    }

    /// What was used between `earlier` and this reading.
    pub fn since(&self, earlier: &CpuUsage) -> CpuUsage {
        CpuUsage {
            user_us: self.user_us.saturating_sub(earlier.user_us),
            system_us: self.system_us.saturating_sub(earlier.system_us),
            ctx: self.ctx.saturating_sub(earlier.ctx),
            voluntary_ctx: self.voluntary_ctx.saturating_sub(earlier.voluntary_ctx),
            major_faults: self.major_faults.saturating_sub(earlier.major_faults),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
            waiting_us: self.waiting_us.saturating_sub(earlier.waiting_us),
        }
    }

    /// Adds another job's use (group_reporting).
    pub fn add(&mut self, other: &CpuUsage) {
        self.user_us += other.user_us;
        self.system_us += other.system_us;
        self.ctx += other.ctx;
        self.voluntary_ctx += other.voluntary_ctx;
        self.major_faults += other.major_faults;
        self.minor_faults += other.minor_faults;
        self.waiting_us += other.waiting_us;
    }
}

/// The calling thread's run delay so far, from the second field of
/// /proc/thread-self/schedstat (nanoseconds).
fn run_delay_us() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(ns / 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_uses_cpu() {
        let before = CpuUsage::of_this_thread();
        // Spin until the thread's own clock has run 30 ms (a wall-clock
        // bound fails on a loaded machine, where the thread mostly waits),
        // then check that getrusage saw at least a third of it.
        let thread_ns = || {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: clock_gettime writes the timespec we own.
            unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
            ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
        };
        let until = thread_ns() + 30_000_000;
        let mut x = 0u64;
        while thread_ns() < until {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        let used = CpuUsage::of_this_thread().since(&before);
        assert!(x > 0);
        assert!(used.user_us + used.system_us >= 10_000, "{used:?}");
    }
}
