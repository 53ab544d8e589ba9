//! HD Tune's read benchmark from the jobs of jobs/desktop/hdtune.fio:
//! the transfer rate of each sampled burst (from the transfer job's
//! `log_offset=1` completion-latency log, which the job file names), the
//! access time (the mean latency of the access job's random reads) and
//! the burst rate (the burst job's bytes per second, as its report has it).

use crate::report::model::bytes_per_sec;
use crate::result::JobResult;

/// The completion-latency logs the transfer and access jobs write
/// (write_lat_log=hdtune; fio numbers them by the job's place in the file).
pub const LOG: &str = "hdtune_clat.1.log";
pub const ACCESS_LOG: &str = "hdtune_clat.2.log";

/// (position in GiB, milliseconds) of each random read of the access log,
/// by position.
pub fn access_points(log: &str) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = log
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            let ns = f.get(1)?.parse::<u64>().ok()?;
            let offset = f.get(4)?.parse::<u64>().ok()?;
            Some((gib(offset), ns as f64 / 1e6))
        })
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points
}

fn gib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 30)
}

/// The HTML page's charts: transfer rate, and access time, against
/// position, as HD Tune draws them.
pub fn charts(log: &str, access: &str, layout: Layout) -> String {
    let rates = curve(log, layout.step)
        .into_iter()
        .map(|(at, rate)| (gib(at), rate))
        .collect();
    crate::report::html::charts(
        "HD Tune-style read test",
        &[
            (
                "Transfer rate against position",
                "position (GiB)",
                "transfer rate (MB/s)",
                rates,
            ),
            (
                "Access time against position",
                "position (GiB)",
                "access time (ms)",
                access_points(access),
            ),
        ],
    )
}

/// How the span is sampled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Bytes between the starts of two samples.
    pub step: u64,
    /// Bytes each sample reads.
    pub burst: u64,
    pub samples: u64,
}

/// Up to 200 samples of up to 1 MiB, evenly spaced over `span` bytes, in
/// whole 64 KiB blocks (the transfer job's block size); `None` when the
/// span holds no block.
pub fn layout(span: u64) -> Option<Layout> {
    const BLOCK: u64 = 64 << 10;
    let step = (span / 200) / BLOCK * BLOCK;
    let step = step.max(BLOCK);
    let samples = (span / step).min(200);
    (samples > 0).then_some(Layout {
        step,
        burst: step.min(1 << 20),
        samples,
    })
}

/// (sample position in bytes, MB/s) of each sample: the bytes of the
/// reads that fell in it over the sum of their completion latencies.
pub fn curve(log: &str, step: u64) -> Vec<(u64, f64)> {
    let mut zones: Vec<(u64, u64, u64)> = Vec::new(); // (zone, bytes, ns)
    for line in log.lines() {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let (Some(ns), Some(bs), Some(offset)) = (
            f.get(1).and_then(|v| v.parse::<u64>().ok()),
            f.get(3).and_then(|v| v.parse::<u64>().ok()),
            f.get(4).and_then(|v| v.parse::<u64>().ok()),
        ) else {
            continue;
        };
        let zone = offset / step;
        match zones.last_mut() {
            Some(z) if z.0 == zone => {
                z.1 += bs;
                z.2 += ns;
            }
            _ => zones.push((zone, bs, ns)),
        }
    }
    zones
        .into_iter()
        .map(|(zone, bytes, ns)| (zone * step, bytes as f64 * 1000.0 / ns.max(1) as f64))
        .collect()
}

/// The summary from the results and the transfer job's log text.
pub fn summary(results: &[JobResult], log: &str, layout: Layout, target: &str) -> String {
    let rates = curve(log, layout.step);
    let values: Vec<f64> = rates.iter().map(|r| r.1).collect();
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(0.0, f64::max);
    let avg = values.iter().sum::<f64>() / values.len().max(1) as f64;
    let job = |name: &str| results.iter().find(|r| r.name == name);
    let access = job("access").map_or(0.0, |r| r.dirs[0].lat.mean() / 1e6);
    let burst = job("burst").map_or(0.0, |r| bytes_per_sec(&r.dirs[0]) as f64 / 1e6);
    let mut out = format!(
        "HD Tune-style (ferrio preset hdtune): {target}\n  \
         {} samples of {} KiB every {} KiB; MB/s = 1,000,000 bytes/s\n\
         Transfer Rate\n  Minimum : {:9.1} MB/s\n  Maximum : {:9.1} MB/s\n  Average : {:9.1} MB/s\n\
         Access Time  : {:9.3} ms\nBurst Rate   : {:9.1} MB/s\n",
        rates.len(),
        layout.burst >> 10,
        layout.step >> 10,
        if values.is_empty() { 0.0 } else { min },
        max,
        avg,
        access,
        burst
    );
    // The curve in at most 20 rows (every sample is in the log).
    out.push_str("Position (GiB)  MB/s\n");
    let every = rates.len().div_ceil(20).max(1);
    for (at, rate) in rates.iter().step_by(every) {
        out.push_str(&format!(
            "  {:10.3}  {rate:9.1}\n",
            *at as f64 / f64::from(1u32 << 30)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_span_is_cut_into_whole_blocks() {
        let gib = 1u64 << 30;
        // 100 GiB: 200 samples of 1 MiB, 512 MiB apart.
        assert_eq!(
            layout(100 * gib),
            Some(Layout {
                step: 512 << 20,
                burst: 1 << 20,
                samples: 200
            })
        );
        // 4 MiB: 200 steps would be under a block, so one block apart.
        assert_eq!(
            layout(4 << 20),
            Some(Layout {
                step: 64 << 10,
                burst: 64 << 10,
                samples: 64
            })
        );
        assert_eq!(layout(1000), None);
    }

    #[test]
    fn each_sample_is_its_bytes_over_its_latencies() {
        // Two reads of 64 KiB in the first sample (100 us + 300 us), one in
        // the second (1 ms): 131072 bytes / 400 us, 65536 bytes / 1 ms.
        let log = "1, 100000, 0, 65536, 0, 0\n2, 300000, 0, 65536, 65536, 0\n\
                   3, 1000000, 0, 65536, 524288, 0\n";
        let c = curve(log, 512 << 10);
        assert_eq!(c, vec![(0, 327.68), (524288, 65.536)]);
    }
}
