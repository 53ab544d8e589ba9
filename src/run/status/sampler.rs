//! fio's periodic bandwidth and IOPS samples: every `bwavgtime` (and
//! `iopsavgtime`) the bytes and I/Os completed since the previous sample
//! become one sample per direction; a direction that completed nothing
//! in the interval gets no sample.
//!
//! fio takes them from a helper thread; ferrio takes them on the job's
//! own thread at its existing clock reads, so the hot path gains one
//! comparison and no lock. A sample is due once a full interval has
//! passed; the job's last, partial interval gives none, as in fio. A
//! stall that keeps the thread away for whole intervals leaves a gap in
//! the samples, as fio's helper thread leaves one.

use std::time::Duration;

use crate::run::pacing::clock::{Nanos, nanos};

use crate::result::DirStats;

/// One kind of sample (bandwidth or IOPS).
#[derive(Debug, Clone, Copy)]
struct Series {
    every: Nanos,
    last: Nanos,
    /// The completed bytes (or I/Os) per direction at the last sample.
    seen: [u64; 3],
}

impl Series {
    fn due(&self) -> Nanos {
        self.last + self.every
    }

    /// Takes a sample if its interval has passed; `count` reads a
    /// direction's running total, `per_ms` turns (delta, ms) into the
    /// sample value.
    fn take(
        &mut self,
        now: Nanos,
        dirs: &mut [DirStats; 3],
        count: fn(&DirStats) -> u64,
        per_ms: fn(u64, u64) -> u64,
        store: &mut dyn FnMut(&mut DirStats, usize, u64),
    ) {
        if now < self.due() {
            return;
        }
        // Whole intervals went by without the job thread getting here: it
        // waited on I/O that stalled (a paused OSD, a hung device) or slept
        // for its rate. fio's helper thread would have found those
        // intervals empty, logged nothing for them and moved its interval
        // start along; the I/O counted now finished as the wait ended, so
        // it makes one sample over one interval.
        let intervals = (now - self.last) / self.every.max(1);
        let ms = if intervals >= 2 {
            self.every / 1_000_000
        } else {
            (now - self.last) / 1_000_000
        };
        for (i, (d, seen)) in dirs.iter_mut().zip(self.seen.iter_mut()).enumerate() {
            let total = count(d);
            let delta = total - *seen;
            if delta > 0 {
                store(d, i, if ms > 0 { per_ms(delta, ms) } else { 0 });
            }
            *seen = total;
        }
        self.last = if intervals >= 2 {
            self.last + intervals * self.every
        } else {
            now
        };
    }
}

/// The bandwidth and IOPS samplers of one job.
#[derive(Debug, Clone, Copy)]
pub struct RateSampler {
    bw: Series,
    iops: Series,
    epoch: Nanos,
    /// The earlier of the two due times: the only thing the hot loop
    /// compares against.
    pub next: Nanos,
}

impl RateSampler {
    /// Samplers whose first interval starts at `epoch` (the end of
    /// ramp_time).
    pub fn new(epoch: Nanos, bw_every: Duration, iops_every: Duration) -> Self {
        let series = |every| Series {
            every: nanos(every),
            last: epoch,
            seen: [0; 3],
        };
        let (bw, iops) = (series(bw_every), series(iops_every));
        RateSampler {
            next: bw.due().min(iops.due()),
            epoch,
            bw,
            iops,
        }
    }

    /// Takes the samples that are due at `now`, for bandwidth and IOPS
    /// as `on` says; `log` also receives each sample as (is IOPS,
    /// direction, value).
    pub fn sample(
        &mut self,
        now: Nanos,
        dirs: &mut [DirStats; 3],
        on: [bool; 2],
        log: &mut dyn FnMut(bool, usize, u64),
    ) {
        let at = now.saturating_sub(self.epoch) / 1_000_000;
        if on[0] {
            self.bw.take(
                now,
                dirs,
                |d| d.bytes,
                |bytes, ms| bytes * 1000 / ms / 1024,
                &mut |d, dir, v| {
                    d.bw.add(v);
                    d.bw_series.push((at, v));
                    log(false, dir, v);
                },
            );
        }
        if on[1] {
            self.iops.take(
                now,
                dirs,
                |d| d.ios,
                |ios, ms| ios * 1000 / ms,
                &mut |d, dir, v| {
                    d.iops.add(v);
                    d.iops_series.push((at, v));
                    log(true, dir, v);
                },
            );
        }
        // A kind that is not sampled is never due.
        let due = |s: &Series, on: bool| if on { s.due() } else { Nanos::MAX };
        self.next = due(&self.bw, on[0]).min(due(&self.iops, on[1]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_rates_per_interval_and_skips_idle_directions() {
        let t0: Nanos = 1_000_000_000;
        let ms = |n: u64| n * 1_000_000;
        let mut s = RateSampler::new(t0, Duration::from_millis(500), Duration::from_millis(500));
        let mut dirs: [DirStats; 3] = Default::default();
        dirs[0].bytes = 1024 * 1000;
        dirs[0].ios = 250;
        let mut logged = Vec::new();
        let mut log = |iops, dir, v| logged.push((iops, dir, v));
        s.sample(t0 + ms(400), &mut dirs, [true; 2], &mut log);
        assert_eq!(dirs[0].bw.count, 0, "not due yet");
        s.sample(t0 + ms(500), &mut dirs, [true; 2], &mut log);
        assert_eq!(logged, vec![(false, 0, 2000), (true, 0, 500)]);
        assert_eq!((dirs[0].bw.count, dirs[0].bw.max), (1, 2000));
        assert_eq!((dirs[0].iops.count, dirs[0].iops.max), (1, 500));
        assert_eq!(dirs[1].bw.count, 0, "no writes, no write sample");
        assert_eq!(s.next, t0 + ms(1000));
        // Nothing for two and a half intervals (a stall), then 100 KiB: a
        // gap in the samples, then one sample over one interval.
        dirs[0].bytes += 100 * 1024;
        dirs[0].ios += 25;
        let mut late = Vec::new();
        s.sample(t0 + ms(1750), &mut dirs, [true; 2], &mut |iops, dir, v| {
            late.push((iops, dir, v))
        });
        assert_eq!(late, [(false, 0, 200), (true, 0, 50)]);
        assert_eq!(s.next, t0 + ms(2000));
    }
}
