//! Rate control beyond the linear caps: the floors of `rate_min` and
//! `rate_iops_min`, checked once per `rate_cycle` as fio checks them, and
//! the random arrivals of `rate_process=poisson`.

use crate::result::DirStats;
use crate::run::pacing::clock::Nanos;
use crate::run::place::offsets::Rng;

/// The rate floors of a job, per direction (0: none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Floors {
    pub bytes: [u64; 3],
    pub iops: [u64; 3],
    /// The window, in ms, over which a rate is measured.
    pub cycle_ms: u64,
}

impl Floors {
    pub fn any(&self) -> bool {
        self.bytes.iter().chain(&self.iops).any(|&v| v > 0)
    }
}

/// fio lets a job settle this long before measuring it against its floors.
const SETTLE_MS: u64 = 2000;

/// Measures a job's rates against its floors, one direction at a time.
pub struct FloorCheck {
    floors: Floors,
    /// When the job (or its current pass) started.
    start: Nanos,
    /// Per direction: the time, bytes and I/Os of the last measurement.
    last: [Option<(Nanos, u64, u64)>; 3],
    /// I/Os issued at the last check: fio checks once per I/O it issues.
    issued: u64,
}

impl FloorCheck {
    pub fn new(floors: Floors, start: Nanos) -> Option<Self> {
        floors.any().then_some(FloorCheck {
            floors,
            start,
            last: [None; 3],
            issued: 0,
        })
    }

    /// Checks the completed I/O of every direction that has done some
    /// against its floor at time `now`, once for each new I/O `issued`
    /// (fio's loop checks after each I/O it issues, not while it waits);
    /// the message fio prints when one falls short. `job` names the job
    /// in it.
    pub fn check(
        &mut self,
        now: Nanos,
        issued: u64,
        done: &[DirStats; 3],
        job: &str,
    ) -> Option<String> {
        if issued == self.issued {
            return None;
        }
        self.issued = issued;
        let mut failure = None;
        for (dir, stats) in done.iter().enumerate() {
            if stats.bytes > 0 && failure.is_none() {
                failure = self.check_dir(dir, now, stats.bytes, stats.ios, job);
            }
        }
        failure
    }

    fn check_dir(
        &mut self,
        dir: usize,
        now: Nanos,
        bytes: u64,
        ios: u64,
        job: &str,
    ) -> Option<String> {
        let (min_bytes, min_iops) = (self.floors.bytes[dir], self.floors.iops[dir]);
        if min_bytes == 0 && min_iops == 0 {
            return None;
        }
        let ms = |from: Nanos| now.saturating_sub(from) / 1_000_000;
        if ms(self.start) < SETTLE_MS {
            return None;
        }
        // The first look after settling only takes a measurement.
        if let Some((at, last_bytes, last_ios)) = self.last[dir] {
            let spent = ms(at);
            if spent < self.floors.cycle_ms || spent == 0 {
                return None;
            }
            if min_bytes > 0 {
                let rate = (bytes - last_bytes) * 1000 / spent;
                if rate < min_bytes {
                    return Some(format!(
                        "{job}: rate_min={min_bytes}B/s not met, got {rate}B/s"
                    ));
                }
            } else {
                let rate = (ios - last_ios) * 1000 / spent;
                if rate < min_iops {
                    return Some(format!(
                        "{job}: rate_iops_min={min_iops} not met, got {rate} IOPS"
                    ));
                }
            }
        }
        self.last[dir] = Some((now, bytes, ios));
        None
    }
}

/// `rate_process=poisson`: each direction's I/Os arrive with exponential
/// gaps whose mean is one I/O's share of the rate, as fio draws them.
pub struct PoissonArrivals {
    /// Mean gap in whole microseconds per direction (0: not capped).
    mean_us: [u64; 3],
    /// When the next I/O of each direction is due, in µs from the start.
    next_us: [u64; 3],
    rng: Rng,
}

impl PoissonArrivals {
    /// Arrivals at `rate_bytes` per second (or `rate_iops`, in blocks of
    /// the direction's smallest size `min_bs`).
    pub fn new(rate_bytes: [u64; 3], rate_iops: [u64; 3], min_bs: [u64; 3], seed: u64) -> Self {
        let mean_us = [0, 1, 2].map(|d| {
            let bytes_per_s = rate_bytes[d].max(rate_iops[d] * min_bs[d]);
            match bytes_per_s / min_bs[d].max(1) {
                0 => 0,
                iops => 1_000_000 / iops,
            }
        });
        PoissonArrivals {
            mean_us,
            next_us: [0; 3],
            rng: Rng::new(seed),
        }
    }

    /// When the next I/O of `dir` is due, in µs from the start.
    pub fn due_us(&self, dir: usize) -> u64 {
        self.next_us[dir]
    }

    /// The job thought for `us` µs and means to ignore it
    /// (rate_ignore_thinktime): the next I/O of `dir` moves that much later.
    pub fn delay(&mut self, dir: usize, us: u64) {
        self.next_us[dir] += us;
    }

    /// One I/O of `dir` was issued: draws the gap to the next.
    pub fn issued(&mut self, dir: usize) {
        if self.mean_us[dir] == 0 {
            return;
        }
        // A uniform draw in (0, 1]: never 0, whose logarithm is infinite.
        let u = (self.rng.below(1 << 24) + 1) as f64 / (1u64 << 24) as f64;
        self.next_us[dir] += (self.mean_us[dir] as f64 * -u.ln()) as u64;
    }
}

/// rate_ignore_thinktime: the bytes a direction (smallest block
/// `min_bs`, capped at `rate_bytes` or `rate_iops`) would have issued at
/// its cap while the job thought for `us` µs, less one block once the
/// pause spans a whole I/O (so that the next goes at once), as fio
/// reckons them.
pub fn thinktime_credit(min_bs: u64, rate_bytes: u64, rate_iops: u64, us: u64) -> u64 {
    let min_bs = min_bs.max(1);
    let bps = rate_bytes.max(rate_iops * min_bs);
    if bps == 0 || us == 0 {
        return 0;
    }
    let missed = bps * us / 1_000_000;
    let us_per_io = min_bs * 1_000_000 / bps;
    let over = if us_per_io <= us { min_bs } else { 0 };
    missed.saturating_sub(over)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(bytes: u64, ios: u64) -> [DirStats; 3] {
        let mut d: [DirStats; 3] = Default::default();
        d[0].bytes = bytes;
        d[0].ios = ios;
        d
    }

    const MS: Nanos = 1_000_000;

    #[test]
    fn floors_are_measured_over_a_cycle_after_two_seconds() {
        let floors = Floors {
            bytes: [2 << 20, 0, 0],
            iops: [0; 3],
            cycle_ms: 1000,
        };
        let mut check = FloorCheck::new(floors, 0).unwrap();
        assert_eq!(check.check(1999 * MS, 1, &done(1 << 20, 256), "j"), None);
        assert_eq!(check.check(2000 * MS, 2, &done(2 << 20, 512), "j"), None);
        assert_eq!(check.check(2999 * MS, 3, &done(3 << 20, 768), "j"), None);
        assert_eq!(
            check
                .check(3000 * MS, 4, &done(3 << 20, 768), "j")
                .as_deref(),
            Some("j: rate_min=2097152B/s not met, got 1048576B/s")
        );
    }

    #[test]
    fn iops_floor_applies_when_no_byte_floor_is_set() {
        let floors = Floors {
            bytes: [0; 3],
            iops: [1000, 0, 0],
            cycle_ms: 500,
        };
        let mut check = FloorCheck::new(floors, 0).unwrap();
        assert_eq!(check.check(2000 * MS, 5, &done(4096, 1), "j"), None);
        assert_eq!(
            check
                .check(2500 * MS, 6, &done(4096 * 129, 129), "j")
                .as_deref(),
            Some("j: rate_iops_min=1000 not met, got 256 IOPS")
        );
        assert!(FloorCheck::new(Floors::default(), 0).is_none());
    }

    #[test]
    fn floors_are_checked_only_after_new_io() {
        let floors = Floors {
            bytes: [1024, 0, 0],
            iops: [0; 3],
            cycle_ms: 1000,
        };
        let mut check = FloorCheck::new(floors, 0).unwrap();
        assert_eq!(check.check(3000 * MS, 2, &done(8192, 2), "j"), None);
        // Waiting for the next I/O's turn: no new I/O, no verdict.
        assert_eq!(check.check(6000 * MS, 2, &done(8192, 2), "j"), None);
        assert!(check.check(6000 * MS, 3, &done(8192, 2), "j").is_some());
    }

    #[test]
    fn poisson_gaps_average_the_rate() {
        let mut p = PoissonArrivals::new([1 << 20, 0, 0], [0; 3], [4096; 3], 7);
        for _ in 0..10_000 {
            p.issued(0);
        }
        // 256 IOPS: 10000 I/Os take about 39 s.
        let s = p.due_us(0) as f64 / 1e6;
        assert!((37.0..41.0).contains(&s), "{s}");
        assert_eq!(p.due_us(1), 0);
    }
}
