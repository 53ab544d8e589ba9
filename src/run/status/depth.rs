//! The queue depth a job achieved over time (beyond fio, which counts
//! depths only when I/Os are handed over): the time-weighted mean of the
//! I/Os in flight, overall and per second, to compare with the depth the
//! job asked for.

use crate::run::pacing::clock::Nanos;

/// Accumulates in-flight depth × time between clock reads.
#[derive(Debug, Clone)]
pub struct DepthTracker {
    last: Nanos,
    depth: usize,
    /// ∑ depth × ns, overall and in the current one-second window.
    area: u128,
    window_area: u128,
    window_start: Nanos,
    epoch: Nanos,
    /// Mean depth of each whole second since the epoch.
    pub per_second: Vec<f64>,
}

const WINDOW: Nanos = 1_000_000_000;

impl DepthTracker {
    pub fn new(epoch: Nanos) -> Self {
        DepthTracker {
            last: epoch,
            depth: 0,
            area: 0,
            window_area: 0,
            window_start: epoch,
            epoch,
            per_second: Vec::new(),
        }
    }

    /// The depth changed to `depth` at `now` (ignored before the epoch).
    #[inline]
    pub fn set(&mut self, now: Nanos, depth: usize) {
        if now > self.last {
            let ns = u128::from(now - self.last);
            self.area += ns * self.depth as u128;
            self.window_area += ns * self.depth as u128;
            self.last = now;
            if now - self.window_start >= WINDOW {
                self.close_window(now);
            }
        }
        self.depth = depth;
    }

    fn close_window(&mut self, now: Nanos) {
        let ns = (now - self.window_start).max(1);
        self.per_second.push(self.window_area as f64 / ns as f64);
        self.window_area = 0;
        self.window_start = now;
    }

    /// The mean depth from the epoch to `end`.
    pub fn mean(&self, end: Nanos) -> f64 {
        let ns = end.saturating_sub(self.epoch);
        if ns == 0 {
            0.0
        } else {
            self.area as f64 / ns as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_mean() {
        let t0: Nanos = 5_000_000_000;
        let ms = |n: u64| n * 1_000_000;
        let mut d = DepthTracker::new(t0);
        d.set(t0, 4);
        d.set(t0 + ms(500), 2);
        d.set(t0 + ms(1500), 0);
        // 4 for 0.5 s, 2 for 1 s: 4 ns·s over 1.5 s.
        assert!((d.mean(t0 + ms(1500)) - 8.0 / 3.0).abs() < 1e-9);
        assert_eq!(d.per_second.len(), 1);
    }
}
