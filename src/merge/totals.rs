//! Whether the totals of the jobs being merged fit their types: fio's
//! counters are 64-bit (signed in its JSON), and a merge that wrapped one round (a
//! hand-edited or hostile input, or ever longer runs merged again and
//! again) would print a small, plausible and wrong number. ferrio refuses
//! such a merge, naming the total, rather than wrap or saturate.

use std::time::Duration;

use crate::result::JobResult;

/// Checks every total that merging `jobs` (with their group aggregate
/// bandwidths `aggs`) adds up; the error names the first that does not fit.
pub fn totals_fit<'a>(
    jobs: impl Iterator<Item = (&'a JobResult, &'a [u64; 3])> + Clone,
) -> Result<(), String> {
    const DIRS: [&str; 3] = ["read", "write", "trim"];
    for (d, dir) in DIRS.iter().enumerate() {
        let of = |pick: fn(&JobResult, usize) -> u64| jobs.clone().map(move |(j, _)| pick(j, d));
        total(&format!("{dir} I/O counts"), of(|j, d| j.dirs[d].ios))?;
        total(&format!("{dir} byte counts"), of(|j, d| j.dirs[d].bytes))?;
        total(&format!("{dir} issued counts"), of(|j, d| j.dirs[d].issued))?;
        total(&format!("{dir} short counts"), of(|j, d| j.dirs[d].short))?;
        total(
            &format!("{dir} dropped counts"),
            of(|j, d| j.dirs[d].dropped),
        )?;
        total(
            &format!("{dir} slat counts"),
            of(|j, d| j.dirs[d].slat.count),
        )?;
        total(
            &format!("{dir} clat counts"),
            of(|j, d| j.dirs[d].clat.count),
        )?;
        total(&format!("{dir} lat counts"), of(|j, d| j.dirs[d].lat.count))?;
        total(
            &format!("{dir} clat histogram counts"),
            of(|j, d| j.dirs[d].clat_hist.total()),
        )?;
        total(
            &format!("{dir} lat histogram counts"),
            of(|j, d| j.dirs[d].lat_hist.total()),
        )?;
        total(
            &format!("{dir} slat histogram counts"),
            of(|j, d| j.dirs[d].slat_hist.total()),
        )?;
        total(
            &format!("{dir} bandwidth samples"),
            of(|j, d| j.dirs[d].bw.count),
        )?;
        total(
            &format!("{dir} IOPS samples"),
            of(|j, d| j.dirs[d].iops.count),
        )?;
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
