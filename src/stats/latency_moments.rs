//! Min, max, mean and standard deviation of per-I/O latencies, kept as
//! exact integer sums. fio updates a running (Welford) mean per sample,
//! which costs a division on every I/O; sums cost two additions and a
//! multiplication, are exact, and give the same mean and sample standard
//! deviation (to the last digit or better) when read.

/// Latency statistics in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LatencyMoments {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    sum: u128,
    sum_sq: u128,
}

impl LatencyMoments {
    #[inline]
    pub fn add(&mut self, v: u64) {
        super::moments::widen(self.count, &mut self.min, &mut self.max, v);
        self.count += 1;
        self.sum += u128::from(v);
        self.sum_sq += u128::from(v) * u128::from(v);
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Sample standard deviation (0 with fewer than two samples).
    pub fn stddev(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        let n = u128::from(self.count);
        // n·Σx² − (Σx)², exactly when it fits, else in floating point.
        let spread = n
            .checked_mul(self.sum_sq)
            .zip(self.sum.checked_mul(self.sum))
            .map(|(a, b)| a.saturating_sub(b) as f64)
            .unwrap_or_else(|| {
                let (s, q) = (self.sum as f64, self.sum_sq as f64);
                (n as f64 * q - s * s).max(0.0)
            });
        (spread / (n as f64 * (n - 1) as f64)).sqrt()
    }

    /// The sum and the sum of squares of the samples, which with count,
    /// min and max are the whole state (saved for `ferrio merge`).
    pub fn sums(&self) -> (u128, u128) {
        (self.sum, self.sum_sq)
    }

    /// The moments of saved parts (see [`LatencyMoments::sums`]).
    pub fn from_parts(count: u64, min: u64, max: u64, sum: u128, sum_sq: u128) -> Self {
        LatencyMoments {
            count,
            min,
            max,
            sum,
            sum_sq,
        }
    }

    /// Adds another series (merging jobs or directions).
    pub fn merge(&mut self, other: &LatencyMoments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.count += other.count;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Moments;

    #[test]
    fn agrees_with_the_running_form() {
        let (mut exact, mut running) = (LatencyMoments::default(), Moments::default());
        for i in 0..10_000u64 {
            let v = 50_000 + (i * 7919) % 3000;
            exact.add(v);
            running.add(v);
        }
        assert_eq!(
            (exact.count, exact.min, exact.max),
            (running.count, running.min, running.max)
        );
        assert!((exact.mean() - running.mean()).abs() < 1e-6);
        assert!((exact.stddev() - running.stddev()).abs() < 1e-6);
    }

    #[test]
    fn merged_halves_equal_the_whole() {
        let (mut a, mut b, mut all) = Default::default();
        let (a, b, all): (
            &mut LatencyMoments,
            &mut LatencyMoments,
            &mut LatencyMoments,
        ) = (&mut a, &mut b, &mut all);
        for v in 1..100u64 {
            if v % 2 == 0 {
                a.add(v)
            } else {
                b.add(v)
            }
            all.add(v);
        }
        a.merge(b);
        assert_eq!(a, all);
    }
}
