//! Running min, max, mean and standard deviation of a series of samples,
//! as fio keeps them for latencies and bandwidth samples: Welford's
//! update, and the sample (n-1) standard deviation.

/// Min/max/mean/stddev of the samples seen so far.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Moments {
    pub count: u64,
    pub min: u64,
    pub max: u64,
    mean: f64,
    /// Sum of squared differences from the running mean.
    m2: f64,
}

impl Moments {
    #[inline]
    pub fn add(&mut self, v: u64) {
        widen(self.count, &mut self.min, &mut self.max, v);
        self.count += 1;
        let delta = v as f64 - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (v as f64 - self.mean);
    }

    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Sample standard deviation (0 with fewer than two samples).
    pub fn stddev(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        (self.m2 / (self.count - 1) as f64).sqrt()
    }

    /// The sum of squared deviations from the mean (saved, with the
    /// mean, for `ferrio merge`).
    pub fn squared_deviations(&self) -> f64 {
        self.m2
    }

    /// The moments of saved parts (see [`Moments::squared_deviations`]).
    pub fn from_parts(count: u64, min: u64, max: u64, mean: f64, m2: f64) -> Self {
        Moments {
            count,
            min,
            max,
            mean,
            m2,
        }
    }

    /// Combines two series (parallel form of Welford's update), with
    /// fio's formula so that merged means round as fio's do.
    pub fn merge(&mut self, other: &Moments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        let (n1, n2) = (self.count, other.count);
        let total = (n1 + n2) as f64;
        let delta = other.mean - self.mean;
        self.mean = (other.mean * n2 as f64 + self.mean * n1 as f64) / total;
        self.m2 = other.m2 + self.m2 + delta.powi(2) * (n1 * n2) as f64 / total;
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Adds another job's rate samples to these, as fio's group_reporting
    /// adds bandwidth and IOPS statistics: mins, maxes, means and squared
    /// deviations are summed, so the mean is the group's total rate.
    pub fn sum(&mut self, other: &Moments) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        self.min += other.min;
        self.max += other.max;
        self.count += other.count;
        self.mean += other.mean;
        self.m2 += other.m2;
    }
}

/// Takes sample `v` into a series' min and max, `count` samples in: the
/// first sample sets both. Both kinds of moments keep their extremes so.
#[inline]
pub(super) fn widen(count: u64, min: &mut u64, max: &mut u64, v: u64) {
    if count == 0 || v < *min {
        *min = v;
    }
    if v > *max {
        *max = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_stddev() {
        let mut m = Moments::default();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            m.add(v);
        }
        assert_eq!((m.count, m.min, m.max), (8, 2, 9));
        assert!((m.mean() - 5.0).abs() < 1e-12);
        assert!((m.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn merged_series_equal_one_series() {
        let (mut a, mut b, mut all) = (Moments::default(), Moments::default(), Moments::default());
        for v in 1..50u64 {
            let v = v * v % 97;
            if v % 3 == 0 {
                a.add(v)
            } else {
                b.add(v)
            }
            all.add(v);
        }
        a.merge(&b);
        assert_eq!((a.count, a.min, a.max), (all.count, all.min, all.max));
        assert!((a.mean() - all.mean()).abs() < 1e-9);
        assert!((a.stddev() - all.stddev()).abs() < 1e-9);
    }
}
