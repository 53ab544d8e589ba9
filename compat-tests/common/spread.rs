//! Bounds learnt from fio's own repeated runs, for the figures that
//! depend on timing (runtimes, counts under a rate or a clock).
//!
//! A timing figure has no exact value to compare, and a constant bound
//! wide enough for every machine passes nearly anything. So fio runs the
//! same job several times here and now, and ferrio's figure must lie in
//! the range of fio's runs widened on each side by their spread, and by
//! no less than a floor the caller names and explains (the part of the
//! figure fio's few runs cannot show: a period a runtime's end cuts or
//! not, a reap that lands a scheduler tick late beside a CPU hog).
//!
//! fio's runs that teach a timing figure run their jobs as threads
//! ([`THREAD`]), as ferrio always does. fio's default forks each job,
//! and each forked job calls setsid(): with the kernel's autogroup
//! scheduling (sched_autogroup_enabled=1 here) every job is then a
//! group of its own, given as much CPU as the whole session that runs
//! the suite and `stress-ng --cpu 2` beside it, where ferrio's threads
//! and fio's `thread` jobs share that session's one share. Beside the
//! CPU hog fio's forked jobs end a 1 s null run at 1000-1007 ms, its
//! threads and ferrio at 1030-1047 and 1013-1055; forked they send over
//! loopback at 2.0-2.9 GB/s, as threads at 0.52-2.4 and ferrio at
//! 0.53-2.1. Only the threads are the measure of a threaded engine.

use std::ops::RangeInclusive;

/// The option that makes fio run its jobs as threads, in a job file's
/// `[global]` section or as a job's first line.
pub const THREAD: &str = "thread\n";

/// `job` (a job file's text) with its jobs run as threads: `thread` in
/// its `[global]` section, or added to its one job.
pub fn threaded(job: &str) -> String {
    if job.contains("[global]\n") {
        return job.replacen("[global]\n", &format!("[global]\n{THREAD}"), 1);
    }
    let end = job.find('\n').expect("a job file with a section") + 1;
    format!("{}{THREAD}{}", &job[..end], &job[end..])
}

/// The values ferrio may have, from `fio`'s values of the same figure:
/// their range widened on each side by their spread, and by at least
/// `floor`. The window is printed with fio's values, so a failure (and
/// a passing run's log) shows what fio did.
pub fn window(what: &str, fio: &[u64], floor: u64) -> RangeInclusive<u64> {
    assert!(!fio.is_empty(), "{what}: no fio runs to learn from");
    let (low, high) = (*fio.iter().min().unwrap(), *fio.iter().max().unwrap());
    let widen = (high - low).max(floor);
    let window = low.saturating_sub(widen)..=high + widen;
    eprintln!("{what}: fio {fio:?}, window {window:?}");
    window
}

/// [`window`], then asserts that ferrio's `got` lies in it.
pub fn assert_within(what: &str, fio: &[u64], floor: u64, got: u64) {
    let window = window(what, fio, floor);
    eprintln!("{what}: ferrio {got}");
    assert!(
        window.contains(&got),
        "{what}: ferrio {got}, outside {window:?} (fio's runs {fio:?}, floor {floor})"
    );
}

/// [`assert_within`] for the median of several ferrio runs: on a loaded
/// machine one run in several of either tool is held up for hundreds of
/// milliseconds at its end (seen beside `stress-ng --cpu 2` and three
/// other builds: fio 912 ms and ferrio 1016 ms for a 500 ms runtime),
/// which widens fio's window when fio's run is the one, and which the
/// median of ferrio's runs does not follow when ferrio's is.
pub fn assert_median_within(what: &str, fio: &[u64], floor: u64, ferrio: &[u64]) {
    let mut sorted = ferrio.to_vec();
    sorted.sort_unstable();
    eprintln!("{what}: ferrio's runs {sorted:?}");
    assert_within(what, fio, floor, sorted[sorted.len() / 2]);
}
