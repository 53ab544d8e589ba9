//! fio's JSON and json+ output, written byte for byte as fio's own writer
//! writes it: two-space levels, `"key" : value`, integers and `%f`
//! floats, strings with only `"` and `\` escaped, members with an empty
//! string value left out (`../shared/spec/fio-output.md` §6).

use std::time::UNIX_EPOCH;

pub use super::json_tree::{Json, Obj};
use super::model::{Report, bytes_per_sec, cpu_percent, distribution, share_of_group};
use crate::result::options::Unified;
use crate::result::steady::SteadyResult;
use crate::result::{DirStats, JobResult};
use crate::stats::disk::DiskUsage;
use crate::stats::percentile::percentiles;
use crate::stats::{Histogram, LatencyMoments};
use crate::sys::sched::class_and_level;

/// The whole JSON document, newline-terminated.
pub fn render(report: &Report, plus: bool) -> String {
    let mut out = String::new();
    document(report, plus).write(&mut out, 0);
    out.push('\n');
    out
}

/// fio's ETA is unknown during a run's first 3 seconds and then reported
/// as INT_MAX.
const ETA_UNKNOWN: u64 = 2_147_483_647;

pub fn document(report: &Report, plus: bool) -> Obj {
    let since_epoch = report.time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let mut root = Obj::default();
    root.str("fio version", crate::FIO_VERSION)
        .int("timestamp", since_epoch.as_secs())
        .int("timestamp_ms", since_epoch.as_millis() as u64)
        .str("time", &report.ctime());
    if !report.global_options.is_empty() {
        root.obj("global options", options(&report.global_options));
    }
    let jobs = report
        .results
        .iter()
        .map(|r| Json::Obj(job(report, r, plus)))
        .collect();
    root.arr("jobs", jobs);
    if !report.disks.is_empty() {
        let disks = per_disk(report, |d, o| {
            o.int("read_ios", d.ios[0])
                .int("write_ios", d.ios[1])
                .int("read_merges", d.merges[0])
                .int("write_merges", d.merges[1])
                .int("read_ticks", d.ticks[0])
                .int("write_ticks", d.ticks[1])
                .int("in_queue", d.in_queue)
                .float("util", d.util);
        });
        root.arr("disk_util", disks);
        if !crate::persona::as_fio() {
            root.obj("ferrio", disk_series(report));
        }
    }
    root
}

/// One object per watched disk: its name, then what `fill` adds.
fn per_disk(report: &Report, fill: impl Fn(&DiskUsage, &mut Obj)) -> Vec<Json> {
    report
        .disks
        .iter()
        .map(|d| {
            let mut o = Obj::default();
            o.str("name", &d.name);
            fill(d, &mut o);
            Json::Obj(o)
        })
        .collect()
}

/// ferrio's addition beside fio's `disk_util`: each disk's busy share
/// every half second, which fio's JSON does not keep (the HTML page's
/// utilisation chart).
fn disk_series(report: &Report) -> Obj {
    let disks = per_disk(report, |d, o| {
        o.int("interval_ms", crate::stats::disk::SAMPLE.as_millis() as u64)
            .arr(
                "ms",
                d.series.iter().map(|p| Json::Int(p.0 as i64)).collect(),
            )
            .arr("util", d.series.iter().map(|p| Json::Float(p.1)).collect());
    });
    let mut o = Obj::default();
    o.arr("disk_util_over_time", disks);
    o
}

fn options(list: &[(String, String)]) -> Obj {
    let mut o = Obj::default();
    for (k, v) in list {
        o.str(k, v);
    }
    o
}

pub fn job(report: &Report, r: &JobResult, plus: bool) -> Obj {
    let opts = &r.report;
    let group = report.group(r.group);
    let elapsed_ms = report.elapsed.as_millis() as u64;
    let mut o = Obj::default();
    o.str("jobname", &r.name)
        .int("groupid", r.group as u64)
        .int("error", u64::from(r.reported_error().0 as u32))
        .int("eta", if elapsed_ms < 3000 { ETA_UNKNOWN } else { 0 })
        .int("elapsed", elapsed_ms.div_ceil(1000));
    if !opts.job_options.is_empty() {
        o.obj("job options", options(&opts.job_options));
    }
    let names = ["read", "write", "trim"];
    if opts.unified == Unified::Mixed {
        o.obj("mixed", direction(r, &r.dirs[0], group.dirs[0].agg, plus));
    } else {
        for (d, name) in names.iter().enumerate() {
            o.obj(name, direction(r, &r.dirs[d], group.dirs[d].agg, plus));
        }
        let mut sync = Obj::default();
        sync.int("total_ios", r.syncs);
        let pct = opts.clat_percentiles || opts.lat_percentiles;
        sync.obj("lat_ns", latency(r, &r.sync_lat, &r.sync_hist, pct, plus));
        o.obj("sync", sync);
        if opts.unified == Unified::Both {
            let mixed = r.mixed();
            // The group aggregate of fio's merged record is that of reads.
            o.obj("mixed", direction(r, &mixed, group.dirs[0].agg, plus));
        }
    }
    let (usr, sys) = cpu_percent(r);
    o.int("job_runtime", r.runtime.as_millis() as u64)
        .float("usr_cpu", usr)
        .float("sys_cpu", sys)
        .int("ctx", r.cpu.ctx)
        .int("majf", r.cpu.major_faults)
        .int("minf", r.cpu.minor_faults);
    let issued = r.issued();
    let depth_keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let batch_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    let submits: u64 = r.submits.iter().sum();
    let completes: u64 = r.completes.iter().sum();
    o.obj("iodepth_level", shares(&depth_keys, &r.depths, issued, 0.1))
        .obj(
            "iodepth_submit",
            shares(&batch_keys, &r.submits, submits, 0.1),
        )
        .obj(
            "iodepth_complete",
            shares(&batch_keys, &r.completes, completes, 0.1),
        );
    let lat_keys = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    o.obj("latency_ns", shares(&lat_keys, &r.latency.ns, issued, 0.01))
        .obj("latency_us", shares(&lat_keys, &r.latency.us, issued, 0.01))
        .obj("latency_ms", shares(&lat_keys, &r.latency.ms, issued, 0.01));
    if opts.continue_on_error {
        o.int("total_err", r.total_err)
            .int("first_error", r.first_error as u64);
    }
    // Absent, as in fio, for a job without a latency depth (verify_only).
    if r.latency_depth > 0 {
        o.int("latency_depth", r.latency_depth as u64)
            .int("latency_target", opts.latency_target_ns)
            .float("latency_percentile", opts.latency_percentile)
            .int("latency_window", opts.latency_window_us);
    }
    o.str("desc", &opts.description);
    if let Some(ss) = &r.steady {
        o.obj("steadystate", steady(ss));
    }
    if !crate::persona::as_fio() {
        let agg = [0, 1, 2].map(|d| group.dirs[d].agg);
        o.obj("ferrio", super::ferrio::section(r, agg));
    }
    o
}

/// fio's `steadystate` object: the criterion, whether it was met, and the
/// window of one-second rates, oldest first.
fn steady(ss: &SteadyResult) -> Obj {
    let c = &ss.config;
    let pct = if c.percent { "%" } else { "" };
    let mut o = Obj::default();
    o.str("ss", &c.describe())
        .int("duration", u64::from(c.dur))
        .int("attained", u64::from(ss.attained))
        .str("criterion", &format!("{:.6}{pct}", ss.criterion as f32))
        .float("max_deviation", ss.deviation)
        .float("slope", ss.slope);
    let (bw, iops): (Vec<Json>, Vec<Json>) = ss
        .ordered()
        .map(|(bw, iops)| (Json::Int(bw as i64), Json::Int(iops as i64)))
        .unzip();
    let mut data = Obj::default();
    data.int("bw_mean", ss.bw_mean())
        .int("iops_mean", ss.iops_mean())
        .arr("iops", iops)
        .arr("bw", bw);
    o.obj("data", data);
    o
}

fn shares(keys: &[&str], counts: &[u64], total: u64, floor: f64) -> Obj {
    let mut o = Obj::default();
    for (k, v) in keys.iter().zip(distribution(counts, total, floor)) {
        o.float(k, v);
    }
    o
}

fn direction(r: &JobResult, d: &DirStats, group_agg: u64, plus: bool) -> Obj {
    let opts = &r.report;
    let bw_bytes = bytes_per_sec(d);
    let iops = if d.runtime_ms > 0 {
        1000.0 * d.issued as f64 / d.runtime_ms as f64
    } else {
        0.0
    };
    let mut o = Obj::default();
    o.int("io_bytes", d.bytes)
        .int("io_kbytes", d.bytes >> 10)
        .int("bw_bytes", bw_bytes)
        .int("bw", bw_bytes / 1024)
        .float("iops", iops)
        .int("runtime", d.runtime_ms)
        .int("total_ios", d.issued)
        .int("short_ios", d.short)
        .int("drop_ios", d.dropped)
        .obj(
            "slat_ns",
            latency(r, &d.slat, &d.slat_hist, opts.slat_percentiles, plus),
        )
        .obj(
            "clat_ns",
            latency(r, &d.clat, &d.clat_hist, opts.clat_percentiles, plus),
        )
        .obj(
            "lat_ns",
            latency(r, &d.lat, &d.lat_hist, opts.lat_percentiles, plus),
        );
    if let Some(prios) = d.reported_prios() {
        let key = if opts.lat_percentiles {
            "lat_ns"
        } else {
            "clat_ns"
        };
        let pct = opts.clat_percentiles || opts.lat_percentiles;
        let list = prios
            .map(|p| {
                let (class, level) = class_and_level(p.ioprio);
                let mut e = Obj::default();
                e.int("prioclass", u64::from(class))
                    .int("prio", u64::from(level))
                    .obj(key, latency(r, &p.lat, &p.hist, pct, plus));
                Json::Obj(e)
            })
            .collect();
        o.arr("prios", list);
    }
    let agg = if d.bw.count > 0 {
        share_of_group(d.bw.mean(), group_agg)
    } else {
        0.0
    };
    o.int("bw_min", d.bw.min)
        .int("bw_max", d.bw.max)
        .float("bw_agg", agg)
        .float("bw_mean", d.bw.mean())
        .float("bw_dev", d.bw.stddev())
        .int("bw_samples", d.bw.count)
        .int("iops_min", d.iops.min)
        .int("iops_max", d.iops.max)
        .float("iops_mean", d.iops.mean())
        .float("iops_stddev", d.iops.stddev())
        .int("iops_samples", d.iops.count);
    o
}

fn latency(r: &JobResult, m: &LatencyMoments, hist: &Histogram, pct: bool, plus: bool) -> Obj {
    let mut o = Obj::default();
    o.int("min", m.min)
        .int("max", m.max)
        .float("mean", m.mean())
        .float("stddev", m.stddev())
        .int("N", m.count);
    if pct && m.count > 0 {
        let list = &r.report.percentile_list;
        let mut p = Obj::default();
        for (pc, v) in list.iter().zip(percentiles(hist, m.count, list)) {
            p.int(&format!("{pc:.6}"), v);
        }
        o.obj("percentile", p);
        if plus {
            let mut bins = Obj::default();
            for (v, c) in hist.bins() {
                bins.int(&v.to_string(), c);
            }
            o.obj("bins", bins);
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_like_fio() {
        let mut inner = Obj::default();
        inner.int("a", 1).float("b", 100.0).str("empty", "");
        let mut root = Obj::default();
        root.str("s", "q\"\\x")
            .obj("o", inner)
            .arr("l", vec![Json::Int(1), Json::Obj(Obj::default())]);
        let mut out = String::new();
        root.write(&mut out, 0);
        let want = "{\n  \"s\" : \"q\\\"\\\\x\",\n  \"o\" : {\n    \"a\" : 1,\n    \"b\" : 100.000000\n  },\n  \"l\" : [\n    1,\n    {}\n  ]\n}";
        assert_eq!(out, want);
    }

    /// No blank line inside a document, however empty its parts: CBT's
    /// parser ends the document at the first one.
    #[test]
    fn empty_parts_leave_no_blank_line() {
        let mut root = Obj::default();
        root.obj("o", Obj::default()).arr("l", Vec::new());
        let mut out = String::new();
        root.write(&mut out, 0);
        assert_eq!(out, "{\n  \"o\" : {},\n  \"l\" : []\n}");
    }
}
