//! fio's terse (minimal) output: one `;`-separated line per reported job,
//! versions 2 to 5 (`../shared/spec/fio-output.md` §7).

use std::fmt::Write;

use super::model::{Report, bytes_per_sec, cpu_percent, distribution, iops};
use crate::result::options::Unified;
use crate::result::{DirStats, JobResult};
use crate::stats::LatencyMoments;
use crate::stats::percentile::percentiles;

/// Percentile slots in every direction block.
const SLOTS: usize = 20;

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for r in &report.results {
        line(&mut out, report, r);
    }
    out
}

fn line(out: &mut String, report: &Report, r: &JobResult) {
    let version = report.terse_version;
    let error = r.reported_error().0;
    // fio prints the group signed: an unfilled slot's is -1.
    let group = r.group as i32;
    if version == 2 {
        let _ = write!(out, "2;{};{group};{error}", r.name);
    } else {
        let _ = write!(
            out,
            "{version};{};{};{group};{error}",
            crate::FIO_VERSION,
            r.name,
        );
    }
    let group = report.group(r.group);
    let unified = r.report.unified;
    block(out, r, &r.dirs[0], group.dirs[0].agg, version);
    if unified != Unified::Mixed {
        block(out, r, &r.dirs[1], group.dirs[1].agg, version);
        if version != 3 {
            block(out, r, &r.dirs[2], group.dirs[2].agg, version);
        }
    }
    if unified == Unified::Both {
        block(out, r, &r.mixed(), group.dirs[0].agg, version);
    }
    let (usr, sys) = cpu_percent(r);
    let _ = write!(
        out,
        ";{usr:.6}%;{sys:.6}%;{};{};{}",
        r.cpu.ctx, r.cpu.major_faults, r.cpu.minor_faults
    );
    let issued = r.issued();
    for share in distribution(&r.depths, issued, 0.1) {
        let _ = write!(out, ";{share:3.1}%");
    }
    // The microsecond buckets, with every sub-microsecond completion
    // added to the first so the field layout predates nanosecond stats.
    let mut us = distribution(&r.latency.us, issued, 0.01);
    let ns: u64 = r.latency.ns.iter().sum();
    us[0] += 100.0 * ns as f64 / issued as f64;
    for share in us.iter().chain(&distribution(&r.latency.ms, issued, 0.01)) {
        // fio divides by the I/O count unguarded: a job without I/O
        // (stats=0's unfilled slots among them) gets glibc's `-nan`.
        if share.is_nan() {
            out.push_str(";-nan%");
        } else {
            let _ = write!(out, ";{share:3.2}%");
        }
    }
    if version >= 3 {
        for d in &report.disks {
            let _ = write!(out, ";{}", d.name);
            for c in d.counters() {
                let _ = write!(out, ";{c}");
            }
            let _ = write!(out, ";{:3.2}%", d.util);
        }
    }
    if r.report.continue_on_error {
        let _ = write!(out, ";{};{}", r.total_err, r.first_error);
    }
    let description = &r.report.description;
    if !description.is_empty() {
        if version == 2 {
            out.push('\n');
        }
        let _ = write!(out, ";{description}");
    }
    out.push('\n');
}

/// One direction's 41 fields (47 in version 5).
fn block(out: &mut String, r: &JobResult, d: &DirStats, group_agg: u64, version: u32) {
    let opts = &r.report;
    let kib_per_sec = bytes_per_sec(d) / 1024;
    let _ = write!(
        out,
        ";{};{kib_per_sec};{};{}",
        d.bytes >> 10,
        iops(d),
        d.runtime_ms
    );
    micro(out, &d.slat);
    micro(out, &d.clat);
    let from = if opts.lat_percentiles {
        Some((&d.lat_hist, d.lat.count))
    } else if opts.clat_percentiles {
        Some((&d.clat_hist, d.clat.count))
    } else {
        None
    };
    let values = from.map_or_else(Vec::new, |(h, n)| percentiles(h, n, &opts.percentile_list));
    for slot in 0..SLOTS {
        match (opts.percentile_list.get(slot), values.get(slot)) {
            (Some(p), Some(v)) => {
                let _ = write!(out, ";{p:.6}%={}", v / 1000);
            }
            _ => out.push_str(";0%=0"),
        }
    }
    micro(out, &d.lat);
    if d.bw.count > 0 {
        let agg_kib = group_agg / 1024;
        let share = if group_agg == 0 {
            100.0
        } else {
            (d.bw.mean() * 100.0 / agg_kib as f64).min(100.0)
        };
        let _ = write!(
            out,
            ";{};{};{share:.6}%;{:.6};{:.6}",
            d.bw.min,
            d.bw.max,
            d.bw.mean(),
            d.bw.stddev()
        );
    } else {
        out.push_str(";0;0;0.000000%;0.000000;0.000000");
    }
    if version == 5 {
        let _ = write!(out, ";{}", d.bw.count);
        let _ = write!(
            out,
            ";{};{};{:.6};{:.6};{}",
            d.iops.min,
            d.iops.max,
            d.iops.mean(),
            d.iops.stddev(),
            d.iops.count
        );
    }
}

/// min, max (truncated µs), mean and deviation (µs) of a latency.
fn micro(out: &mut String, m: &LatencyMoments) {
    if m.count == 0 {
        out.push_str(";0;0;0.000000;0.000000");
        return;
    }
    let _ = write!(
        out,
        ";{};{};{:.6};{:.6}",
        m.min / 1000,
        m.max / 1000,
        m.mean() / 1000.0,
        m.stddev() / 1000.0
    );
}
