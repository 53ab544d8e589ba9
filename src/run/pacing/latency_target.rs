//! `latency_target`: the search for the deepest queue whose I/Os still
//! complete within the target. The job starts at depth 1; each
//! `latency_window` in which enough I/Os (`latency_percentile`) met the
//! target doubles the depth (or, once a depth has failed, bisects towards
//! it); a failing window, or with a 100% percentile a single late I/O,
//! bisects down. When a success leaves the depth unchanged, the job drains,
//! starts its statistics over and runs one last window at that depth
//! (unless `latency_run` keeps it searching for the whole run).

use crate::run::pacing::clock::Nanos;

/// What the job loop has to do after a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Carry,
    /// The depth went down: wait for the I/O in flight first.
    Drain,
    /// The depth settled: drain, then start the statistics over for the
    /// final window.
    FinalWindow,
    /// The final window is over: the job ends.
    Done,
    /// A late I/O at depth 1 with a 100% percentile: the target cannot be
    /// met, and the job fails.
    Fatal,
}

#[derive(Debug, Clone)]
pub struct LatencyTarget {
    target_ns: u64,
    window_ns: u64,
    percentile: f64,
    keep_running: bool,
    iodepth: usize,
    /// The depth in use, and the bounds of the search.
    pub depth: usize,
    low: usize,
    high: usize,
    stable: u32,
    /// In the final window.
    final_window: bool,
    /// When the current window began, the I/Os completed by then, and
    /// the late ones since.
    window_start: Nanos,
    window_ios: u64,
    late: u64,
}

impl LatencyTarget {
    pub fn new(
        target_ns: u64,
        window_ns: u64,
        percentile: f64,
        keep_running: bool,
        iodepth: usize,
        now: Nanos,
    ) -> Self {
        LatencyTarget {
            target_ns,
            window_ns,
            percentile,
            keep_running,
            iodepth,
            depth: 1,
            low: 1,
            high: iodepth,
            stable: 0,
            final_window: false,
            window_start: now,
            window_ios: 0,
            late: 0,
        }
    }

    /// Starts the search over (the end of ramp_time), unless the final
    /// window has begun.
    pub fn restart(&mut self, now: Nanos, ios: u64) {
        if !self.final_window {
            *self = LatencyTarget::new(
                self.target_ns,
                self.window_ns,
                self.percentile,
                self.keep_running,
                self.iodepth,
                now,
            );
            self.window_ios = ios;
        }
    }

    fn new_window(&mut self, now: Nanos, ios: u64) {
        self.window_start = now;
        self.window_ios = ios;
        self.late = 0;
    }

    /// One completed I/O's total latency.
    pub fn completed(&mut self, lat_ns: u64, now: Nanos, ios: u64) -> Step {
        if lat_ns <= self.target_ns {
            return Step::Carry;
        }
        if self.percentile == 100.0 {
            return self.failed(now, ios);
        }
        self.late += 1;
        Step::Carry
    }

    fn failed(&mut self, now: Nanos, ios: u64) -> Step {
        if self.depth == 1 {
            return Step::Fatal;
        }
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = (self.depth + self.low) / 2;
        self.stable = 0;
        self.new_window(now, ios);
        Step::Drain
    }

    /// At the end of each window, judges it; `ios` counts the I/Os
    /// completed since the statistics began.
    pub fn check(&mut self, now: Nanos, ios: u64) -> Step {
        if now.saturating_sub(self.window_start) / 1000 < self.window_ns / 1000 {
            return Step::Carry;
        }
        let n = ios.wrapping_sub(self.window_ios);
        let met = 100.0 * (n.wrapping_sub(self.late)) as f64 / n as f64;
        if met >= self.percentile {
            self.succeeded(now, ios)
        } else {
            match self.failed(now, ios) {
                // Only a late I/O ends the job; a failed window at depth
                // 1 carries on there.
                Step::Fatal => Step::Carry,
                step => step,
            }
        }
    }

    fn succeeded(&mut self, now: Nanos, ios: u64) -> Step {
        let before = self.depth;
        self.low = self.depth;
        if self.depth + 1 == self.high {
            // The search cannot go up from here: after three such windows
            // in a row, let the upper bound creep up by one.
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        self.depth = if self.high != self.iodepth {
            (self.depth + self.high) / 2
        } else {
            self.depth * 2
        };
        self.depth = self.depth.min(self.iodepth);
        let mut step = Step::Carry;
        if !self.keep_running && self.depth == before {
            if self.final_window {
                step = Step::Done;
            } else {
                self.final_window = true;
                step = Step::FinalWindow;
            }
        }
        self.new_window(now, ios);
        step
    }

    /// After the statistics start over for the final window, its I/O
    /// count starts from zero.
    pub fn stats_restarted(&mut self, now: Nanos) {
        self.new_window(now, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_met_target_doubles_up_to_iodepth_then_settles() {
        let mut lt = LatencyTarget::new(500 * MS, 100 * MS, 99.9, false, 16, 0);
        let mut depths = vec![lt.depth];
        let mut now = 0;
        let mut step = Step::Carry;
        while step != Step::Done {
            now += 100 * MS;
            step = lt.check(now, now / 1000);
            if step == Step::FinalWindow {
                lt.stats_restarted(now);
            }
            depths.push(lt.depth);
        }
        assert_eq!(depths, [1, 2, 4, 8, 16, 16, 16]);
    }

    #[test]
    fn a_late_io_bisects_down_and_fails_at_depth_one() {
        let mut lt = LatencyTarget::new(MS, 100 * MS, 100.0, false, 8, 0);
        lt.check(100 * MS, 10);
        lt.check(200 * MS, 20);
        assert_eq!(lt.depth, 4);
        assert_eq!(lt.completed(2 * MS, 210 * MS, 21), Step::Drain);
        assert_eq!(lt.depth, 3);
        lt.completed(2 * MS, 220 * MS, 22);
        assert_eq!(lt.depth, 2);
        lt.completed(2 * MS, 230 * MS, 23);
        assert_eq!(lt.depth, 1);
        assert_eq!(lt.completed(2 * MS, 240 * MS, 24), Step::Fatal);
    }
}
