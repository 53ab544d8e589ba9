//! Where a write goes in zbd mode: to a zone's write pointer, in a zone
//! that is open (or may be opened) with room for it, resetting full
//! zones as fio does.

use super::file::{Adjusted, ZbdFile, ZbdJob, ZoneIo};
use super::spec::ZbdSpec;
use super::zones::{MAX_OPEN_ZONES, ZoneTable};
use crate::result::JobError;

impl ZbdFile {
    pub(super) fn write(
        &self,
        t: &mut ZoneTable,
        spec: &ZbdSpec,
        job: &mut ZbdJob,
        io: ZoneIo,
    ) -> Adjusted {
        let ZoneIo {
            min_bs, at, len, ..
        } = io;
        let einval = |func: &str| {
            Adjusted::Fail(JobError {
                errno: libc::EINVAL,
                func: func.to_string(),
                message: String::new(),
            })
        };
        if len > t.zone_size {
            return einval("I/O buflen exceeds zone size");
        }
        let mut zi = t.index(at);
        if !open_zone(t, spec, job, zi) {
            match self.open_another(t, spec, job, min_bs, at) {
                Some(z) => zi = z,
                None => return Adjusted::Done,
            }
        }
        if spec.reset_frequency > 0.0
            && t.with_data as f64 >= self.io_size as f64 * spec.reset_threshold
        {
            t.write_cnt = t.write_cnt.saturating_sub(1);
            if t.write_cnt == 0 {
                t.reset_write_cnt(spec.reset_frequency);
                t.zones[zi as usize].reset_next = true;
            }
        }
        let zone = t.zones[zi as usize];
        if zone.reset_next || zone.full(min_bs) {
            t.zones[zi as usize].reset_next = false;
            t.reset(zi, &mut job.resets);
            if zone.capacity < min_bs {
                return Adjusted::Fail(JobError {
                    errno: libc::EINVAL,
                    func: "ZCAP is less min_bs".to_string(),
                    message: format!(
                        "zone capacity {} smaller than minimum block size {min_bs}",
                        zone.capacity
                    ),
                });
            }
        }
        let zone = t.zones[zi as usize];
        let at = zone.wp;
        if !self.valid(at) {
            return einval("invalid WP value");
        }
        let fits = len.min(zone.capacity_end() - at) / min_bs * min_bs;
        let len = if fits == len {
            len
        } else if fits >= min_bs {
            fits
        } else {
            return Adjusted::Fail(JobError {
                errno: libc::EIO,
                func: "zone remainder too small".to_string(),
                message: format!(
                    "zone remainder {} smaller than min block size {min_bs}",
                    zone.capacity_end() - at
                ),
            });
        };
        Adjusted::Go(at, len)
    }

    /// fio's zbd_convert_to_open_zone: an open zone (or one that can be
    /// opened) with room for `min_bs`, searched from among the open zones
    /// or, without limits, from the zone of `at`.
    pub(super) fn open_another(
        &self,
        t: &mut ZoneTable,
        spec: &ZbdSpec,
        job: &mut ZbdJob,
        min_bs: u64,
        at: u64,
    ) -> Option<u32> {
        let limited = t.max_open > 0 || spec.job_max_open_zones > 0;
        let pick = |t: &ZoneTable| -> u32 {
            ((u128::from(at - self.offset) * u128::from(t.open_count))
                / u128::from(self.io_size.max(1))) as u32
        };
        let mut zi = if limited {
            t.open[pick(t) as usize % MAX_OPEN_ZONES]
        } else {
            t.index(at)
        };
        zi = zi.clamp(self.min_zone, self.max_zone.saturating_sub(1));
        let examine = loop {
            if !limited {
                break true;
            }
            if t.open_count == 0 {
                break false;
            }
            let count = t.open_count;
            let mut tmp = pick(t);
            let mut found = None;
            for _ in 0..count {
                if tmp >= count {
                    tmp = 0;
                }
                let z = t.open[tmp as usize];
                if (self.min_zone..self.max_zone).contains(&z) {
                    found = Some(tmp);
                    break;
                }
                tmp += 1;
            }
            let new = t.open[found? as usize];
            if new == zi {
                break true;
            }
            zi = new;
        };
        if examine && t.zones[zi as usize].wp + min_bs <= t.zones[zi as usize].capacity_end() {
            return Some(zi);
        }
        // Two rounds: fio tries again once after waiting for I/O in
        // flight, which a ferrio job has none of here.
        for _ in 0..2 {
            for _ in 0..self.io_size / t.zone_size {
                zi += 1;
                if !self.valid(t.zones[zi as usize].start) {
                    zi = self.min_zone;
                }
                if t.zones[zi as usize].open {
                    continue;
                }
                if open_zone(t, spec, job, zi) {
                    return Some(zi);
                }
            }
            for i in 0..t.open_count as usize {
                let z = t.open[i];
                if !(self.min_zone..self.max_zone).contains(&z) {
                    continue;
                }
                zi = z;
                let zone = &t.zones[z as usize];
                if zone.wp + min_bs <= zone.capacity_end() {
                    return Some(z);
                }
            }
        }
        None
    }
}

/// fio's zbd_open_zone: whether zone `z` may take writes, opening it if
/// the limits allow.
fn open_zone(t: &mut ZoneTable, spec: &ZbdSpec, job: &mut ZbdJob, z: u32) -> bool {
    if t.max_open == 0 {
        return true;
    }
    let zone = &t.zones[z as usize];
    if zone.open {
        return zone.wp < zone.capacity_end();
    }
    if spec.job_max_open_zones > 0 && job.open >= spec.job_max_open_zones {
        return false;
    }
    if t.open_count >= t.max_open {
        return false;
    }
    t.open[t.open_count as usize] = z;
    t.open_count += 1;
    job.open += 1;
    t.zones[z as usize].open = true;
    true
}
