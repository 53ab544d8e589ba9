//! Whether the totals of the jobs being merged fit their types: fio's
//! counters are 64-bit (signed in its JSON), and a merge that wrapped one round (a
//! hand-edited or hostile input, or ever longer runs merged again and
//! again) would print a small, plausible and wrong number. ferrio refuses
//! such a merge, naming the total, rather than wrap or saturate.

use std::time::Duration;

use crate::result::{DirStats, JobResult};

/// One of a direction's counters: the name an error gives it, and where
/// it is.
type Counter = (&'static str, fn(&DirStats) -> u64);

/// Checks every total that merging `jobs` (with their group aggregate
/// bandwidths `aggs`) adds up; the error names the first that does not fit.
pub fn totals_fit<'a>(
    jobs: impl Iterator<Item = (&'a JobResult, &'a [u64; 3])> + Clone,
) -> Result<(), String> {
    const DIRS: [&str; 3] = ["read", "write", "trim"];
    for (d, dir) in DIRS.iter().enumerate() {
        let counters: [Counter; 13] = [
            ("I/O counts", |s| s.ios),
            ("byte counts", |s| s.bytes),
            ("issued counts", |s| s.issued),
            ("short counts", |s| s.short),
            ("dropped counts", |s| s.dropped),
            ("slat counts", |s| s.slat.count),
            ("clat counts", |s| s.clat.count),
            ("lat counts", |s| s.lat.count),
            ("clat histogram counts", |s| s.clat_hist.total()),
            ("lat histogram counts", |s| s.lat_hist.total()),
            ("slat histogram counts", |s| s.slat_hist.total()),
            ("bandwidth samples", |s| s.bw.count),
            ("IOPS samples", |s| s.iops.count),
        ];
        for (what, pick) in counters {
            let each = jobs.clone().map(|(j, _)| pick(&j.dirs[d]));
            total(&format!("{dir} {what}"), each)?;
        }
        total(
            &format!("{dir} aggregate bandwidths"),
            jobs.clone().map(|(_, a)| a[d]),
        )?;
        for (name, pick) in [
            (
                "slat",
                (|j: &JobResult, d: usize| j.dirs[d].slat.sums())
                    as fn(&JobResult, usize) -> (u128, u128),
            ),
            ("clat", |j, d| j.dirs[d].clat.sums()),
            ("lat", |j, d| j.dirs[d].lat.sums()),
        ] {
            wide(
                &format!("{dir} {name} sums"),
                jobs.clone().map(|(j, _)| pick(j, d).0),
            )?;
            wide(
                &format!("{dir} {name} sums of squares"),
                jobs.clone().map(|(j, _)| pick(j, d).1),
            )?;
        }
    }
    total("sync counts", jobs.clone().map(|(j, _)| j.syncs))?;
    total("error counts", jobs.clone().map(|(j, _)| j.total_err))?;
    total("zone resets", jobs.clone().map(|(j, _)| j.zone_resets))?;
    total(
        "job counts",
        jobs.clone().map(|(j, _)| u64::from(j.members)),
    )?;
    for (name, pick) in [
        (
            "I/O depth counts",
            (|j: &JobResult| j.depths) as fn(&JobResult) -> [u64; 7],
        ),
        ("submission counts", |j| j.submits),
        ("completion counts", |j| j.completes),
    ] {
        for i in 0..7 {
            total(name, jobs.clone().map(|(j, _)| pick(j)[i]))?;
        }
    }
    jobs.clone()
        .try_fold(Duration::ZERO, |sum, (j, _)| sum.checked_add(j.runtime))
        .map(|_| ())
        .ok_or_else(|| {
            "the run times of the jobs add up to more than a Duration holds; not merged".to_string()
        })?;
    // members is a u32 in the merged record.
    let members: u64 = jobs.map(|(j, _)| u64::from(j.members)).sum();
    u32::try_from(members).map(|_| ()).map_err(|_| {
        "the job counts of the jobs add up to more than 2^32-1; not merged".to_string()
    })
}

/// The sum of `values`, or an error naming `what` when it passes
/// 2^63-1: fio's JSON writes its integers as signed 64-bit, so a larger
/// total would be printed negative.
fn total(what: &str, values: impl Iterator<Item = u64>) -> Result<(), String> {
    let mut sum = 0u64;
    for v in values {
        sum = sum.checked_add(v).filter(|s| i64::try_from(*s).is_ok()).ok_or_else(|| {
            format!("the {what} of the jobs add up to more than 2^63-1, the largest integer of fio's JSON; not merged")
        })?;
    }
    Ok(())
}

/// [`total`] for the 128-bit latency sums.
fn wide(what: &str, values: impl Iterator<Item = u128>) -> Result<(), String> {
    let mut sum = 0u128;
    for v in values {
        sum = sum.checked_add(v).ok_or_else(|| {
            format!("the {what} of the jobs add up to more than 2^128-1; not merged")
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_result() -> JobResult {
        let p =
            crate::plan::plan_for_test("[j]\nioengine=null\nsize=1m\n", &[], &[], false).unwrap();
        let cfg =
            crate::run::config::JobConfig::from_spec(p.jobs().next().unwrap(), false).unwrap();
        JobResult::new(&cfg)
    }

    #[test]
    fn the_first_total_past_fios_json_is_named() {
        let aggs = [0u64; 3];
        let check = |a: &JobResult| totals_fit([(a, &aggs), (a, &aggs)].into_iter());
        let mut a = empty_result();
        assert_eq!(check(&a), Ok(()));
        a.dirs[2].iops.count = i64::MAX as u64;
        let e = check(&a).unwrap_err();
        assert!(e.starts_with("the trim IOPS samples of the jobs"), "{e}");
        a.dirs[1].dropped = i64::MAX as u64;
        let e = check(&a).unwrap_err();
        assert!(e.starts_with("the write dropped counts of the jobs"), "{e}");
    }
}
