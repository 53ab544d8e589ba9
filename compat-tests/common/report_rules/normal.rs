//! The normal report a JSON document implies (spec §2, §4).

use serde_json::Value;

use super::text::{Expect, Unit, fixed, line, num2str};
use super::{Aggregate, Settings, directions, f, group_aggregates, percentile_map, u};

/// Latency line units: (name, divisor), chosen per line from min, max and
/// the standard deviation (spec §2.5).
fn latency_unit(min: u64, max: u64, dev: f64) -> (&'static str, u64) {
    if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        ("msec", 1_000_000)
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    }
}

/// A `slat`/`clat`/` lat`/`sync` line.
fn latency_line(name: &str, l: &Value) -> Expect {
    let (min, max, mean, dev) = (u(&l["min"]), u(&l["max"]), f(&l["mean"]), f(&l["stddev"]));
    let (unit, div) = latency_unit(min, max, dev);
    Expect::default()
        .text(format!("    {name} ({unit}): min="))
        .num(num2str(min / div, 6, false, Unit::None))
        .text(", max=")
        .num(num2str(max / div, 6, false, Unit::None))
        .text(", avg=")
        .one_of(fixed(mean, div as f64, 5, 2, 1))
        .text(", stdev=")
        .one_of(fixed(dev, div as f64, 5, 2, 1))
}

/// A percentile table (spec §2.7): the unit from the smallest and largest
/// value, values rounded up per step of 1000, the column as wide as the
/// largest value's digits (at least 5), as many entries a line as fit.
fn percentile_table(label: &str, l: &Value, precision: usize) -> Vec<Expect> {
    let map = percentile_map(l);
    let minv = map.iter().map(|e| e.1).min().unwrap();
    let maxv = map.iter().map(|e| e.1).max().unwrap();
    let (unit, div, steps) = if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 1_000_000, 2)
    } else if minv > 2000 && maxv > 99_999 {
        ("usec", 1000, 1)
    } else {
        ("nsec", 1, 0)
    };
    let scaled_max = maxv / div;
    let width = if scaled_max == 0 {
        5
    } else {
        5.max(scaled_max.to_string().len())
    };
    let per_line = 73 / (precision + 10 + width);
    let mut out = vec![line(format!("    {label} percentiles ({unit}):"))];
    for (row, chunk) in map.chunks(per_line).enumerate() {
        let mut e = line("     |");
        for (i, (p, value)) in chunk.iter().enumerate() {
            let mut v = *value;
            for _ in 0..steps {
                v = v.div_ceil(1000);
            }
            let last = row * per_line + i + 1 == map.len();
            e = e
                .text(" ")
                .num(format!("{:>w$.precision$}", p, w = precision + 3))
                .text("th=[")
                .num(format!("{v:>width$}"))
                .text(if last { "]" } else { "]," });
        }
        out.push(e);
    }
    out
}

/// A `bw`/`iops` sample line, when there were samples.
fn sample_lines(d: &Value, s: &Settings) -> Vec<Expect> {
    let mut out = Vec::new();
    let n = u(&d["bw_samples"]);
    if n > 0 {
        let kb: f64 = if s.binary { 1024.0 } else { 1000.0 };
        let (mut min, mut max, mean, dev) = (
            u(&d["bw_min"]),
            u(&d["bw_max"]),
            f(&d["bw_mean"]),
            f(&d["bw_dev"]),
        );
        let mut label = if s.binary { "KiB" } else { "kB" };
        let mut div = 1.0;
        if mean > kb * kb {
            min = (min as f64 / kb) as u64;
            max = (max as f64 / kb) as u64;
            div = kb;
            label = "MiB";
        }
        out.push(
            Expect::default()
                .text(format!("   bw ({label:>5}/s): min="))
                .num(format!("{min:5}"))
                .text(", max=")
                .num(format!("{max:5}"))
                .text(", per=")
                .one_of(fixed(f(&d["bw_agg"]), 1.0, 3, 2, 1))
                .text("%, avg=")
                .one_of(fixed(mean, div, 5, 2, 1))
                .text(", stdev=")
                .one_of(fixed(dev, div, 5, 2, 1))
                .text(", samples=")
                .num(n),
        );
    }
    let n = u(&d["iops_samples"]);
    if n > 0 {
        out.push(
            Expect::default()
                .text("   iops        : min=")
                .num(format!("{:5}", u(&d["iops_min"])))
                .text(", max=")
                .num(format!("{:5}", u(&d["iops_max"])))
                .text(", avg=")
                .one_of(fixed(f(&d["iops_mean"]), 1.0, 5, 2, 1))
                .text(", stdev=")
                .one_of(fixed(f(&d["iops_stddev"]), 1.0, 5, 2, 1))
                .text(", samples=")
                .num(n),
        );
    }
    out
}

/// One direction's section of a job's block (spec §2.4-2.8). `sig_figs`
/// and `rate_unit` are the job's, except in the per-job `mixed:` section
/// of unified_rw_reporting=both, where fio 3.33 formats with neither
/// (num2str with no room and no unit, spec §4.2).
fn direction_section(
    label: &str,
    d: &Value,
    s: &Settings,
    sig_figs: usize,
    rate_unit: Unit,
    zone_resets: bool,
) -> Vec<Expect> {
    let runtime = u(&d["runtime"]);
    if runtime == 0 {
        return Vec::new();
    }
    let (io, ios) = (u(&d["io_bytes"]), u(&d["total_ios"]));
    let bw = io * 1000 / runtime;
    let mut head = Expect::default()
        .text(format!("  {label}: IOPS="))
        .num(num2str(ios * 1000 / runtime, sig_figs, false, Unit::None))
        .text(", BW=")
        .num(num2str(bw, sig_figs, s.binary, rate_unit))
        .text(" (")
        .num(num2str(bw, sig_figs, !s.binary, rate_unit))
        .text(")(")
        .num(num2str(io, sig_figs, s.binary, Unit::Bytes))
        .text("/")
        .num(runtime)
        .text("msec)");
    if zone_resets {
        head = head.text("; ").num(0).text(" zone resets");
    }
    let mut out = vec![head];
    for (kind, name) in [("slat_ns", "slat"), ("clat_ns", "clat"), ("lat_ns", " lat")] {
        if u(&d[kind]["N"]) > 0 {
            out.push(latency_line(name, &d[kind]));
        }
    }
    for (kind, name) in [("slat_ns", "slat"), ("clat_ns", "clat"), ("lat_ns", "lat")] {
        if d[kind].get("percentile").is_some() {
            out.extend(percentile_table(name, &d[kind], s.precision));
        }
    }
    out.extend(sample_lines(d, s));
    out
}

pub(super) const LAT_KEYS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

/// The `lat (nsec|usec|msec)` distribution lines: the non-empty buckets,
/// five to a line.
fn distribution_lines(job: &Value) -> Vec<Expect> {
    let mut out = Vec::new();
    for (key, unit, n) in [
        ("latency_ns", "nsec", 10),
        ("latency_us", "usec", 10),
        ("latency_ms", "msec", 12),
    ] {
        let filled: Vec<(&str, f64)> = LAT_KEYS[..n]
            .iter()
            .map(|k| (*k, f(&job[key][*k])))
            .filter(|(_, v)| *v > 0.0)
            .collect();
        for chunk in filled.chunks(5) {
            let mut e = line(format!("  lat ({unit})   : "));
            for (i, (k, v)) in chunk.iter().enumerate() {
                e = e
                    .text(format!("{}{k}=", if i > 0 { ", " } else { "" }))
                    .one_of(fixed(*v, 1.0, 3, 2, 1))
                    .text("%");
            }
            out.push(e);
        }
    }
    out
}

/// A `1=…%, 2=…%` depth row of `map` with fio's keys.
fn depth_row(prefix: &str, map: &Value, keys: &[&str]) -> Expect {
    let mut e = line(prefix);
    for (i, k) in keys.iter().enumerate() {
        e = e
            .text(format!("{}{k}=", if i > 0 { ", " } else { "" }))
            .one_of(fixed(f(&map[*k]), 1.0, 3, 1, 1))
            .text("%");
    }
    e
}

pub(super) const DEPTH_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
const BATCH_KEYS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];

/// The lines after the directions: distribution, sync, cpu, depths,
/// issued, errors, latency target.
fn job_tail(job: &Value, s: &Settings) -> Vec<Expect> {
    let mut out = distribution_lines(job);
    let sync = &job["sync"]["lat_ns"];
    if sync.is_object() && u(&sync["N"]) > 0 {
        out.push(line("  fsync/fdatasync/sync_file_range:"));
        out.push(latency_line("sync", sync));
        if sync.get("percentile").is_some() {
            out.extend(percentile_table("sync", sync, s.precision));
        }
    }
    out.push(
        line("  cpu          : usr=")
            .one_of(fixed(f(&job["usr_cpu"]), 1.0, 3, 2, 1))
            .text("%, sys=")
            .one_of(fixed(f(&job["sys_cpu"]), 1.0, 3, 2, 1))
            .text("%, ctx=")
            .num(u(&job["ctx"]))
            .text(", majf=")
            .num(u(&job["majf"]))
            .text(", minf=")
            .num(u(&job["minf"])),
    );
    out.push(depth_row(
        "  IO depths    : ",
        &job["iodepth_level"],
        &DEPTH_KEYS,
    ));
    out.push(depth_row(
        "     submit    : ",
        &job["iodepth_submit"],
        &BATCH_KEYS,
    ));
    out.push(depth_row(
        "     complete  : ",
        &job["iodepth_complete"],
        &BATCH_KEYS,
    ));
    let dirs = directions(job);
    let per = |key: &str| -> Vec<u64> {
        let mut v: Vec<u64> = dirs.iter().map(|d| u(&job[d][key])).collect();
        v.resize(3, 0);
        v
    };
    let sync_ios = job["sync"]["total_ios"].as_u64().unwrap_or(0);
    let mut issued = line("     issued rwts: total=");
    for (i, n) in per("total_ios").iter().chain([&sync_ios]).enumerate() {
        issued = issued.text(if i > 0 { "," } else { "" }).num(n);
    }
    for (label, key) in [(" short=", "short_ios"), (" dropped=", "drop_ios")] {
        issued = issued.text(label);
        for n in per(key) {
            issued = issued.num(n).text(",");
        }
        issued = issued.num(0);
    }
    out.push(issued);
    if s.continue_on_error {
        out.push(
            line("     errors    : total=")
                .num(u(&job["total_err"]))
                .text(", first_error=")
                .num(u(&job["first_error"]))
                .text("/<")
                .anything()
                .text(">"),
        );
    }
    if job["latency_depth"].as_u64().unwrap_or(0) > 0 {
        out.push(
            line("     latency   : target=")
                .num(u(&job["latency_target"]))
                .text(", window=")
                .num(u(&job["latency_window"]))
                .text(", percentile=")
                .one_of(fixed(f(&job["latency_percentile"]), 1.0, 0, 2, 1))
                .text("%, depth=")
                .num(u(&job["latency_depth"])),
        );
    }
    out
}

/// One job's block, or nothing for a job that moved no bytes and issued
/// no I/O.
fn job_block(doc: &Value, job: &Value) -> Vec<Expect> {
    let s = Settings::of(doc, job);
    let dirs = directions(job);
    let moved = dirs
        .iter()
        .any(|d| u(&job[d]["io_bytes"]) > 0 || u(&job[d]["total_ios"]) > 0);
    if !moved {
        return Vec::new();
    }
    let error = u(&job["error"]);
    let mut head = Expect::default()
        .text(format!(
            "{}: (groupid={}, jobs=",
            job["jobname"].as_str().unwrap(),
            u(&job["groupid"])
        ))
        .anything()
        .text("): err=")
        .num(format!("{error:2}"));
    if error != 0 {
        head = head.text(" (").anything().text(")");
    }
    let mut out = vec![head.text(": pid=").anything().text(": ").anything()];
    if let Some(desc) = job["desc"].as_str().filter(|d| !d.is_empty()) {
        out.push(line(format!("  Description  : [{desc}]")));
    }
    for dir in &dirs {
        if u(&job[dir]["io_bytes"]) > 0 {
            out.extend(direction_section(
                dir,
                &job[dir],
                &s,
                s.sig_figs,
                s.rate_unit,
                *dir == "write",
            ));
        }
    }
    if dirs.len() == 3 && job.get("mixed").is_some() {
        out.extend(direction_section(
            "mixed",
            &job["mixed"],
            &s,
            0,
            Unit::None,
            false,
        ));
    }
    out.extend(job_tail(job, &s));
    out
}

/// The group ids of a document's jobs, ascending.
fn group_ids(doc: &Value) -> Vec<u64> {
    let mut ids: Vec<u64> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| u(&j["groupid"]))
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// A `Run status group` direction line.
fn group_line(label: &str, a: &Aggregate, s: &Settings) -> Expect {
    let two = |x: u64, unit| {
        (
            num2str(x, s.sig_figs, s.binary, unit),
            num2str(x, s.sig_figs, !s.binary, unit),
        )
    };
    let (agg, agg_alt) = two(a.agg, s.rate_unit);
    let (min, min_alt) = two(a.min_bw, s.rate_unit);
    let (max, max_alt) = two(a.max_bw, s.rate_unit);
    let (io, io_alt) = two(a.io, Unit::Bytes);
    line(format!("{label}: bw="))
        .num(agg)
        .text(" (")
        .num(agg_alt)
        .text("), ")
        .num(min)
        .text("-")
        .num(max)
        .text(" (")
        .num(min_alt)
        .text("-")
        .num(max_alt)
        .text("), io=")
        .num(io)
        .text(" (")
        .num(io_alt)
        .text("), run=")
        .num(a.min_run)
        .text("-")
        .num(a.max_run)
        .text("msec")
}

/// The `Run status group` blocks (spec §4.1): per direction over the
/// group's jobs that ran in it, with the last job's units.
fn group_blocks(doc: &Value) -> Vec<Expect> {
    let jobs = doc["jobs"].as_array().unwrap();
    let mut out = Vec::new();
    for g in group_ids(doc) {
        out.push(line(""));
        out.push(line(format!("Run status group {g} (all jobs):")));
        let members: Vec<&Value> = jobs.iter().filter(|j| u(&j["groupid"]) == g).collect();
        let last = Settings::of(doc, members.last().unwrap());
        let unified = members
            .iter()
            .map(|j| Settings::of(doc, j).unified)
            .fold(0, |a, b| a | b);
        let aggs = group_aggregates(doc, g);
        let labels = if unified == 1 {
            ["  MIXED", "", ""]
        } else {
            ["   READ", "  WRITE", "   TRIM"]
        };
        for (a, label) in aggs.iter().zip(labels) {
            if a.max_run > 0 {
                out.push(group_line(label, a, &last));
            }
        }
        if unified == 2 {
            let ran: Vec<&Aggregate> = aggs.iter().filter(|a| a.max_run > 0).collect();
            let mixed = Aggregate {
                min_run: ran.iter().map(|a| a.min_run).min().unwrap_or(u64::MAX),
                max_run: ran.iter().map(|a| a.max_run).max().unwrap_or(0),
                min_bw: ran.iter().map(|a| a.min_bw).min().unwrap_or(u64::MAX),
                max_bw: ran.iter().map(|a| a.max_bw).max().unwrap_or(0),
                io: ran.iter().map(|a| a.io).sum(),
                agg: ran.iter().map(|a| a.agg).sum(),
            };
            out.push(group_line("  MIXED", &mixed, &last));
        }
    }
    out
}

/// The whole normal report a JSON document implies, from the empty line
/// it starts with to the disk stats.
pub fn expected_normal(doc: &Value) -> Vec<Expect> {
    let mut out = vec![line("")];
    for job in doc["jobs"].as_array().unwrap() {
        out.extend(job_block(doc, job));
    }
    out.extend(group_blocks(doc));
    if let Some(disks) = doc["disk_util"].as_array() {
        out.push(line(""));
        out.push(line("Disk stats (read/write):"));
        for d in disks {
            let pair = |e: Expect, a: &str, b: &str| e.num(u(&d[a])).text("/").num(u(&d[b]));
            let e = line(format!("  {}: ios=", d["name"].as_str().unwrap()));
            let e = pair(e, "read_ios", "write_ios").text(", merge=");
            let e = pair(e, "read_merges", "write_merges").text(", ticks=");
            let e = pair(e, "read_ticks", "write_ticks")
                .text(", in_queue=")
                .num(u(&d["in_queue"]))
                .text(", util=")
                .one_of(fixed(f(&d["util"]), 1.0, 3, 2, 1))
                .text("%");
            out.push(e);
        }
    }
    out
}
