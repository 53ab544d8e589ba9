//! CrystalDiskMark's result table for the jobs of
//! jobs/desktop/crystaldiskmark.fio: each of its eight tests by its best
//! pass (the highest rate, as CrystalDiskMark keeps), in MB/s of
//! 1,000,000 bytes, with IOPS and the mean completion latency as
//! CrystalDiskMark's text export shows them, and beside them what it does
//! not show: the completion latency's 50th, 99th and 99.9th percentiles.
//! Every figure is one the run's JSON report holds for that pass
//! (bw_bytes / 1e6, iops, clat_ns mean and percentiles).

use crate::report::model::bytes_per_sec;
use crate::result::{DirStats, JobResult};
use crate::stats::percentile::percentiles;

/// The tests, in the order of the job file and of the table: (job name
/// stem, the label CrystalDiskMark prints).
const TESTS: [(&str, &str); 4] = [
    ("seq1m-q8t1", "SEQ    1MiB (Q=  8, T= 1)"),
    ("seq1m-q1t1", "SEQ    1MiB (Q=  1, T= 1)"),
    ("rnd4k-q32t1", "RND    4KiB (Q= 32, T= 1)"),
    ("rnd4k-q1t1", "RND    4KiB (Q=  1, T= 1)"),
];

/// The percentiles shown beside CrystalDiskMark's figures.
const PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// What the footer says about the run: the test size, the measuring
/// time and the interval, as the job file was given them.
pub struct Profile<'a> {
    pub size: &'a str,
    pub runtime: &'a str,
    pub interval: &'a str,
    pub target: &'a str,
}

/// The best pass of one test: its pass number (from 1), of how many.
struct Best<'a> {
    pass: usize,
    passes: usize,
    dir: &'a DirStats,
}

/// (job name, its read and write figures) of each job of the run.
type Job<'a> = (&'a str, [&'a DirStats; 2]);

/// The pass of `stem` in direction `dir` (0 read, 1 write) with the
/// highest rate; the first of equals.
fn best<'a>(jobs: &[Job<'a>], stem: &str, dir: usize) -> Option<Best<'a>> {
    let prefix = format!("{stem}-{}-", ["read", "write"][dir]);
    let passes: Vec<&DirStats> = jobs
        .iter()
        .filter(|(name, _)| name.starts_with(&prefix))
        .map(|(_, dirs)| dirs[dir])
        .collect();
    let mut at = 0;
    for (i, d) in passes.iter().enumerate() {
        if bytes_per_sec(d) > bytes_per_sec(passes[at]) {
            at = i;
        }
    }
    passes.get(at).map(|d| Best {
        pass: at + 1,
        passes: passes.len(),
        dir: d,
    })
}

/// One row: `LABEL: MB/s [IOPS] <mean us>  p50 / p99 / p99.9 us (pass)`.
fn row(label: &str, b: &Best) -> String {
    let d = b.dir;
    let mb = bytes_per_sec(d) as f64 / 1e6;
    let iops = if d.runtime_ms > 0 {
        1000.0 * d.issued as f64 / d.runtime_ms as f64
    } else {
        0.0
    };
    let mean = d.clat.mean() / 1000.0;
    let p = percentiles(&d.clat_hist, d.clat.count, &PERCENTILES);
    let us = |ns: Option<&u64>| format!("{:.2}", ns.copied().unwrap_or(0) as f64 / 1000.0);
    format!(
        "  {label}: {mb:9.3} MB/s [{iops:9.1} IOPS] <{mean:9.2} us>  p50/p99/p99.9 {} / {} / {} us  (pass {} of {})\n",
        us(p.first()),
        us(p.get(1)),
        us(p.get(2)),
        b.pass,
        b.passes
    )
}

/// The whole table, or `None` when the run holds none of the tests.
pub fn summary(results: &[JobResult], profile: &Profile) -> Option<String> {
    let jobs: Vec<Job> = results
        .iter()
        .map(|r| (r.name.as_str(), [&r.dirs[0], &r.dirs[1]]))
        .collect();
    let mut out = String::from(
        "------------------------------------------------------------------------------\n\
         CrystalDiskMark-style (ferrio preset crystaldiskmark)\n  \
         MB/s = 1,000,000 bytes/s; best of each test's passes; latency: completion (clat)\n\
         ------------------------------------------------------------------------------\n",
    );
    let mut any = false;
    for (dir, title) in ["[Read]", "[Write]"].iter().enumerate() {
        out.push_str(&format!("{title}\n"));
        for (stem, label) in TESTS {
            if let Some(b) = best(&jobs, stem, dir) {
                any = true;
                out.push_str(&row(label, &b));
            }
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "Profile: Default\n   Test: {} [{}]\n   Mode: direct I/O (libaio)\n   Time: Measure {} sec / Interval {} sec\n",
        profile.size, profile.target, profile.runtime, profile.interval
    ));
    any.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direction that moved `bytes` in `ios` I/Os of 250 us each over
    /// `ms` milliseconds.
    fn moved(bytes: u64, ios: u64, ms: u64) -> DirStats {
        let mut d = DirStats {
            bytes,
            issued: ios,
            ios,
            runtime_ms: ms,
            ..DirStats::default()
        };
        for _ in 0..ios {
            d.clat.add(250_000);
            d.clat_hist.add(250_000);
        }
        d
    }

    #[test]
    fn the_best_pass_is_the_fastest_and_its_figures_are_fios() {
        let none = DirStats::default();
        let seq = [moved(3 << 30, 3072, 1500), moved(3 << 30, 3072, 1000)];
        let rnd = moved(4096 * 999, 999, 333);
        let jobs: Vec<Job> = vec![
            ("seq1m-q8t1-read-1", [&seq[0], &none]),
            ("seq1m-q8t1-read-2", [&seq[1], &none]),
            ("seq1m-q8t1-read-3", [&seq[1], &none]),
            ("rnd4k-q1t1-write-1", [&none, &rnd]),
        ];
        let b = best(&jobs, "seq1m-q8t1", 0).unwrap();
        // Passes 2 and 3 tie; the first of them is kept.
        assert_eq!((b.pass, b.passes), (2, 3));
        let line = row("X", &b);
        // 3 GiB in 1 s: 3221.225472 MB/s, 3072 IOPS, 250 us each.
        assert!(
            line.starts_with("  X:  3221.225 MB/s [   3072.0 IOPS] <   250.00 us>"),
            "{line}"
        );
        // 250 us falls in fio's histogram bucket of 250.880 us.
        assert!(
            line.contains("p50/p99/p99.9 250.88 / 250.88 / 250.88 us"),
            "{line}"
        );
        assert!(line.ends_with("(pass 2 of 3)\n"), "{line}");
        let w = best(&jobs, "rnd4k-q1t1", 1).unwrap();
        // 4091904 bytes * 1000 / 333 ms = 12288000 bytes/s (fio's integer).
        let line = row("Y", &w);
        assert!(line.contains("    12.288 MB/s [   3000.0 IOPS]"), "{line}");
        assert!(best(&jobs, "seq1m-q1t1", 0).is_none());
    }
}
