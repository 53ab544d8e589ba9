//! The terse (v3) lines a JSON document implies (spec §7).

use serde_json::Value;

use super::normal::{DEPTH_KEYS, LAT_KEYS};
use super::text::{Expect, fixed, line};
use super::{Settings, f, group_aggregates, percentile_map, u};

fn num_field(n: impl ToString) -> Expect {
    Expect::default().num(n)
}

/// Four latency fields in µs: min, max (truncated), mean, stdev (`%f`).
fn terse_latency(l: &Value) -> Vec<Expect> {
    if u(&l["N"]) == 0 {
        return ["0", "0", "0.000000", "0.000000"].map(num_field).to_vec();
    }
    vec![
        num_field(u(&l["min"]) / 1000),
        num_field(u(&l["max"]) / 1000),
        Expect::default().one_of(fixed(f(&l["mean"]), 1000.0, 0, 6, 1)),
        Expect::default().one_of(fixed(f(&l["stddev"]), 1000.0, 0, 6, 1)),
    ]
}

/// One direction's 41 fields; `agg` is the group aggregate (B/s) of the
/// direction the bandwidth share is taken of.
fn terse_block(d: &Value, s: &Settings, agg: u64) -> Vec<Expect> {
    let runtime = u(&d["runtime"]);
    let (io, ios) = (u(&d["io_bytes"]), u(&d["total_ios"]));
    let bw = (io * 1000).checked_div(runtime).unwrap_or(0) / 1024;
    let iops = (ios * 1000).checked_div(runtime).unwrap_or(0);
    let mut out = vec![
        num_field(io >> 10),
        num_field(bw),
        num_field(iops),
        num_field(runtime),
    ];
    out.extend(terse_latency(&d["slat_ns"]));
    out.extend(terse_latency(&d["clat_ns"]));
    let source = if s.lat_percentiles {
        Some(&d["lat_ns"])
    } else if s.clat_percentiles {
        Some(&d["clat_ns"])
    } else {
        None
    };
    let entries: Vec<(f64, u64)> = match source {
        Some(l) if l.get("percentile").is_some() => percentile_map(l),
        Some(_) => s.list.iter().map(|p| (*p, 0)).collect(),
        None => Vec::new(),
    };
    for i in 0..20 {
        out.push(match entries.get(i) {
            Some((p, v)) => Expect::default()
                .num(format!("{p:.6}"))
                .text("%=")
                .num(v / 1000),
            None => Expect::default().text("0%=0"),
        });
    }
    out.extend(terse_latency(&d["lat_ns"]));
    if u(&d["bw_samples"]) > 0 {
        let mean = f(&d["bw_mean"]);
        let kib = agg / 1024;
        let share = |m: f64| {
            if agg == 0 || kib == 0 {
                100.0
            } else {
                (m * 100.0 / kib as f64).min(100.0)
            }
        };
        let mut shares = Vec::new();
        for m in [mean - 5e-7, mean, mean + 5e-7] {
            let text = format!("{:.6}", share(m));
            if !shares.contains(&text) {
                shares.push(text);
            }
        }
        out.push(num_field(u(&d["bw_min"])));
        out.push(num_field(u(&d["bw_max"])));
        out.push(Expect::default().one_of(shares).text("%"));
        out.push(Expect::default().one_of(fixed(mean, 1.0, 0, 6, 1)));
        out.push(Expect::default().one_of(fixed(f(&d["bw_dev"]), 1.0, 0, 6, 1)));
    } else {
        out.extend(["0", "0", "0.000000%", "0.000000", "0.000000"].map(num_field));
    }
    out
}

/// Every text `%3.2f` can give for a value known to lie in [lo, hi].
fn fixed_between(lo: f64, hi: f64) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut x = lo.max(0.0);
    loop {
        let text = format!("{x:3.2}");
        if !out.contains(&text) {
            out.push(text);
        }
        if x >= hi {
            break;
        }
        x = (x + 0.004).min(hi);
    }
    out
}

/// One terse line a job implies, as fields.
fn terse_line(doc: &Value, job: &Value) -> Vec<Expect> {
    let s = Settings::of(doc, job);
    let aggs = group_aggregates(doc, u(&job["groupid"]));
    let mut out = vec![
        num_field(3),
        line("fio-3.33"),
        line(job["jobname"].as_str().unwrap()),
        num_field(u(&job["groupid"])),
        num_field(u(&job["error"])),
    ];
    if s.unified == 1 {
        out.extend(terse_block(&job["mixed"], &s, aggs[0].agg));
    } else {
        out.extend(terse_block(&job["read"], &s, aggs[0].agg));
        out.extend(terse_block(&job["write"], &s, aggs[1].agg));
        if job.get("mixed").is_some() {
            out.extend(terse_block(&job["mixed"], &s, aggs[0].agg));
        }
    }
    for key in ["usr_cpu", "sys_cpu"] {
        out.push(
            Expect::default()
                .one_of(fixed(f(&job[key]), 1.0, 0, 6, 1))
                .text("%"),
        );
    }
    for key in ["ctx", "majf", "minf"] {
        out.push(num_field(u(&job[key])));
    }
    for k in DEPTH_KEYS {
        out.push(
            Expect::default()
                .one_of(fixed(f(&job["iodepth_level"][k]), 1.0, 3, 1, 1))
                .text("%"),
        );
    }
    // The first µs bucket also holds every sub-µs completion (the nsec
    // counts, without the 0.01 floor the JSON applies to each).
    let ns: Vec<f64> = LAT_KEYS[..10]
        .iter()
        .map(|k| f(&job["latency_ns"][*k]))
        .collect();
    let floored = ns.iter().filter(|v| **v == 0.01).count() as f64;
    let first = f(&job["latency_us"]["2"]) + ns.iter().sum::<f64>();
    let slack = 11.0 * 5.000_001e-7;
    out.push(
        Expect::default()
            .one_of(fixed_between(first - slack - 0.01 * floored, first + slack))
            .text("%"),
    );
    for (key, n) in [("latency_us", 10), ("latency_ms", 12)] {
        for k in &LAT_KEYS[usize::from(key == "latency_us")..n] {
            out.push(
                Expect::default()
                    .one_of(fixed(f(&job[key][*k]), 1.0, 3, 2, 1))
                    .text("%"),
            );
        }
    }
    for d in doc["disk_util"].as_array().into_iter().flatten() {
        out.push(line(d["name"].as_str().unwrap()));
        for key in [
            "read_ios",
            "write_ios",
            "read_merges",
            "write_merges",
            "read_ticks",
            "write_ticks",
            "in_queue",
        ] {
            out.push(num_field(u(&d[key])));
        }
        out.push(
            Expect::default()
                .one_of(fixed(f(&d["util"]), 1.0, 3, 2, 1))
                .text("%"),
        );
    }
    if s.continue_on_error {
        out.push(num_field(u(&job["total_err"])));
        out.push(num_field(u(&job["first_error"])));
    }
    if let Some(desc) = job["desc"].as_str().filter(|d| !d.is_empty()) {
        out.push(line(desc));
    }
    out
}

/// The terse lines a JSON document implies, one a job, as fields.
pub fn expected_terse(doc: &Value) -> Vec<Vec<Expect>> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| terse_line(doc, j))
        .collect()
}
