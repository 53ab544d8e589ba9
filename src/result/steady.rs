//! A job's steady-state options and the window of rates the reports
//! show of it (`steadystate`, `ss_dur`, `ss_ramp`): the arithmetic that
//! decides whether the rates have settled follows fio's, integer sums
//! included, so that the same rates settle at the same second. The run's
//! checker (`run::pacing::steady`) feeds the window once a second.

/// A job's steady-state options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyConfig {
    /// IOPS rather than bandwidth.
    pub iops: bool,
    /// The slope of the trend rather than the deviation from the mean.
    pub slope: bool,
    /// The limit is a percentage of the mean.
    pub percent: bool,
    pub limit: f64,
    /// Samples in the window (seconds).
    pub dur: u32,
    /// Microseconds after the job's start before samples count.
    pub ramp_us: u64,
}

impl SteadyConfig {
    /// Reads `steadystate=iops_slope:0.1%`'s criterion word and limit;
    /// the caller has already checked the text.
    pub fn new(word: &str, limit: &str, dur_us: u64, ramp_us: u64) -> Option<Self> {
        let (iops, slope) = match word {
            "iops" => (true, false),
            "iops_slope" => (true, true),
            "bw" => (false, false),
            "bw_slope" => (false, true),
            _ => return None,
        };
        let limit = limit.trim();
        let (percent, limit) = match limit.split_once('%') {
            Some((n, _)) => (true, crate::options::number::c_float(n.trim())?),
            None if iops => (false, crate::options::number::c_float(limit)?),
            None => match crate::options::number::size(limit, 1024)? {
                crate::options::number::SizeValue::Bytes(b) => (false, b as f64),
                crate::options::number::SizeValue::Percent(_) => return None,
            },
        };
        Some(SteadyConfig {
            iops,
            slope,
            percent,
            limit,
            dur: (dur_us / 1_000_000) as u32,
            ramp_us,
        })
    }

    /// The `ss` value as fio's JSON writes it: `iops_slope:0.100000%`.
    pub fn describe(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            if self.iops { "iops" } else { "bw" },
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.percent { "%" } else { "" }
        )
    }
}

/// The window of rates and what was last computed from it: what the
/// reports show of a job's steady state.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyResult {
    pub config: SteadyConfig,
    pub attained: bool,
    pub full: bool,
    /// Ring positions: the oldest sample and the next to write.
    pub head: usize,
    tail: usize,
    /// One-second rates: bytes/s and IOPS.
    pub bw: Vec<u64>,
    pub iops: Vec<u64>,
    pub slope: f64,
    pub deviation: f64,
    /// The deviation or slope compared with the limit (in percent of
    /// the mean for a percentage limit).
    pub criterion: f64,
    sum_y: u64,
    sum_xy: u64,
    oldest_y: u64,
    /// Whether any sample was taken at all.
    pub sampled: bool,
}

impl SteadyResult {
    pub fn new(config: SteadyConfig) -> Self {
        let n = config.dur as usize;
        SteadyResult {
            config,
            attained: false,
            full: false,
            head: 0,
            tail: 0,
            bw: vec![0; n],
            iops: vec![0; n],
            slope: 0.0,
            deviation: 0.0,
            criterion: 0.0,
            sum_y: 0,
            sum_xy: 0,
            oldest_y: 0,
            sampled: false,
        }
    }

    fn values(&self) -> &[u64] {
        if self.config.iops {
            &self.iops
        } else {
            &self.bw
        }
    }

    /// The samples oldest first, as fio lists them: once the window has
    /// wrapped and the criterion was not met, `head` has moved one past
    /// the oldest.
    pub fn ordered(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let n = self.bw.len();
        let first = if self.attained || !self.full {
            self.head
        } else {
            (self.head + n - 1) % n
        };
        (0..n).map(move |l| {
            let k = (first + l) % n;
            (self.bw[k], self.iops[k])
        })
    }

    pub fn bw_mean(&self) -> u64 {
        mean(&self.bw)
    }

    pub fn iops_mean(&self) -> u64 {
        mean(&self.iops)
    }

    /// Adds one second's rates; true when the window meets the criterion.
    pub fn add(&mut self, iops: u64, bw: u64) -> bool {
        let n = self.bw.len();
        self.sampled = true;
        self.bw[self.tail] = bw;
        self.iops[self.tail] = iops;
        let new = if self.config.iops { iops } else { bw };
        if self.full || self.tail.wrapping_sub(self.head) == n - 1 {
            let met = if self.config.slope {
                self.slope_met(new)
            } else {
                self.deviation_met()
            };
            if met {
                return true;
            }
        }
        self.tail = (self.tail + 1) % n;
        if self.tail <= self.head {
            self.head = (self.head + 1) % n;
        }
        false
    }

    /// The least-squares slope, taking the samples as evenly spaced.
    fn slope_met(&mut self, new: u64) -> bool {
        let n = self.bw.len() as u64;
        if !self.full {
            self.sum_y = 0;
            for i in 0..self.bw.len() {
                self.sum_y = self.sum_y.wrapping_add(self.values()[i]);
                let j = (self.head + i) % self.bw.len();
                let term = (i as u64).wrapping_mul(self.values()[j]);
                self.sum_xy = self.sum_xy.wrapping_add(term);
            }
            self.full = true;
        } else {
            self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(new);
            self.sum_xy = self
                .sum_xy
                .wrapping_sub(self.sum_y)
                .wrapping_add(n.wrapping_mul(new));
        }
        self.oldest_y = self.values()[self.head];
        let sum_x = n * n.saturating_sub(1) / 2;
        let sum_x_sq = n.saturating_sub(1) * n * (2 * n).saturating_sub(1) / 6;
        let nf = n as f64;
        self.slope = (self.sum_xy as f64 - sum_x as f64 * self.sum_y as f64 / nf)
            / (sum_x_sq as f64 - sum_x as f64 * sum_x as f64 / nf);
        self.criterion = if self.config.percent {
            100.0 * self.slope / (self.sum_y / n) as f64
        } else {
            self.slope
        };
        self.criterion.abs() < self.config.limit
    }

    /// The largest distance of a sample from the window's mean.
    fn deviation_met(&mut self) -> bool {
        let n = self.bw.len();
        if !self.full {
            self.sum_y = self.values().iter().fold(0u64, |s, &v| s.wrapping_add(v));
            self.full = true;
        } else {
            let newest = self.values()[self.tail];
            self.sum_y = self.sum_y.wrapping_sub(self.oldest_y).wrapping_add(newest);
        }
        self.oldest_y = self.values()[self.head];
        let mean = self.sum_y as f64 / n as f64;
        self.deviation = self
            .values()
            .iter()
            .map(|&v| (v as f64 - mean).abs())
            .fold(0.0, f64::max);
        self.criterion = if self.config.percent {
            100.0 * self.deviation / mean
        } else {
            self.deviation
        };
        self.criterion < self.config.limit
    }
}

fn mean(values: &[u64]) -> u64 {
    if values.is_empty() {
        return 0;
    }
    values.iter().sum::<u64>() / values.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(word: &str, limit: &str, dur: u64) -> SteadyConfig {
        SteadyConfig::new(word, limit, dur * 1_000_000, 0).unwrap()
    }

    #[test]
    fn limits_read_as_fio_reads_them() {
        let c = config("bw_slope", "1%", 10);
        assert!(c.slope && !c.iops && c.percent && c.limit == 1.0 && c.dur == 10);
        assert_eq!(c.describe(), "bw_slope:1.000000%");
        let c = config("bw", "2m", 3);
        assert_eq!(c.limit, 2.0 * 1024.0 * 1024.0);
        assert_eq!(config("iops", "50", 3).describe(), "iops:50.000000");
    }

    #[test]
    fn steady_rates_meet_the_deviation_limit_once_the_window_fills() {
        let mut r = SteadyResult::new(config("iops", "5%", 3));
        assert!(!r.add(1000, 0));
        assert!(!r.add(1010, 0));
        assert!(r.add(990, 0));
        assert!((r.criterion - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_rising_trend_has_a_slope() {
        let mut r = SteadyResult::new(config("iops_slope", "1", 3));
        assert!(!r.add(100, 0));
        assert!(!r.add(200, 0));
        assert!(!r.add(300, 0));
        assert_eq!(r.slope, 100.0);
        // The window slides: 200, 300, 300.
        assert!(!r.add(300, 0));
        assert_eq!(r.slope, 50.0);
        assert!(r.add(300, 0));
        r.attained = true;
        let listed: Vec<u64> = r.ordered().map(|(_, iops)| iops).collect();
        assert_eq!(listed, [300, 300, 300]);
    }
}
