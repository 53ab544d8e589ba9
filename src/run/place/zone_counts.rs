//! Sizes and offsets counted in zones (`size=4z`). The parser keeps such a
//! value as a count marked by the top bit; fio turns it into bytes only
//! once the job's files are set up, multiplying by the zone size it knows
//! then: the `zonesize` option for zonemode=strided, and for zonemode=zbd
//! on the regular files ferrio emulates zones in (a zoned device's own
//! zone size is not read by ferrio, which refuses such devices). With
//! zonemode=none (where fio forbids a zonesize) the option is left at 0,
//! as if it had not been given. A count of 0 zones also stays 0.

use std::borrow::Cow;

use crate::options::Value;
use crate::plan::JobSpec;

/// The options whose values may be counted in zones.
pub const ZONED: [&str; 5] = ["size", "io_size", "offset", "offset_increment", "zoneskip"];

/// Where the parser puts zone counts: fio's base for them, half of the
/// 64-bit range, plus a count of at most 32 bits.
const ZONE_BASE: u64 = 1 << 63;

/// The zone count a parsed number stands for, if it is one.
pub fn zones(v: u64) -> Option<u64> {
    v.checked_sub(ZONE_BASE)
        .filter(|n| *n <= u64::from(u32::MAX))
}

/// The job with every zone count turned into bytes of `zonesize`, or the
/// job itself when none is counted in zones.
pub fn in_bytes(job: &JobSpec) -> Cow<'_, JobSpec> {
    let counted = |s: &crate::plan::Setting| {
        ZONED.iter().any(|n| s.def.matches(n))
            && matches!(&s.value, Value::Nums(v) if v.iter().any(|x| zones(*x).is_some()))
    };
    if !job.settings.iter().any(counted) {
        return Cow::Borrowed(job);
    }
    let zone_size = job.num("zonesize").unwrap_or(0);
    let mut job = job.clone();
    for setting in job.settings.iter_mut().filter(|s| counted(s)) {
        if let Value::Nums(values) = &mut setting.value {
            for v in values.iter_mut() {
                if let Some(n) = zones(*v) {
                    *v = n.saturating_mul(zone_size);
                }
            }
        }
    }
    Cow::Owned(job)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_marked_counts_are_zones() {
        assert_eq!(zones(ZONE_BASE + 4), Some(4));
        assert_eq!(zones(ZONE_BASE), Some(0));
        assert_eq!(zones(4096), None);
        // Percentages sit at the top of the range, above any zone count.
        assert_eq!(zones(u64::MAX - 50), None);
    }
}
