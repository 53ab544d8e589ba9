//! A json+ document checked against itself: rates from bytes and
//! runtimes, percentiles, means and deviations from the bins.

use serde_json::Value;

use std::collections::BTreeMap;

use super::percentile::{
    LAST_BUCKET, bins_of, bucket_half_width, bucket_middle, bucket_of, percentile_map,
    percentiles_of_bins,
};
use super::text::fixed;
use super::{Verdict, directions, f, group_aggregates, u};

/// The JSON against itself: rates and sizes from bytes, I/Os and runtime;
/// percentiles from bins by fio's rule; bins against N, min and max;
/// sample statistics in order; lat = slat + clat where all three were
/// measured for every I/O; the bw share from the group aggregate.
pub(super) fn check_json(doc: &Value, v: &mut Verdict) {
    for job in doc["jobs"].as_array().unwrap() {
        let name = job["jobname"].as_str().unwrap_or("?").to_string();
        let aggs = group_aggregates(doc, u(&job["groupid"]));
        let mut dirs: Vec<&str> = directions(job);
        if job.get("mixed").is_some() && dirs.len() == 3 {
            dirs.push("mixed");
        }
        for dir in dirs {
            let d = &job[dir];
            let at = |k: &str| format!("{name} {dir} {k}");
            let (io, runtime, ios) = (u(&d["io_bytes"]), u(&d["runtime"]), u(&d["total_ios"]));
            let bw_bytes = (io * 1000).checked_div(runtime).unwrap_or(0);
            v.expect_eq(&at("io_kbytes"), u(&d["io_kbytes"]), io >> 10);
            v.expect_eq(&at("bw_bytes"), u(&d["bw_bytes"]), bw_bytes);
            v.expect_eq(&at("bw"), u(&d["bw"]), bw_bytes / 1024);
            let iops = if runtime > 0 {
                1000.0 * ios as f64 / runtime as f64
            } else {
                0.0
            };
            v.expect_eq(
                &at("iops"),
                format!("{:.6}", f(&d["iops"])),
                format!("{iops:.6}"),
            );
            check_latencies(&at(""), d, v);
            check_samples(&at("bw"), d, BW_KEYS, v);
            check_samples(&at("iops"), d, IOPS_KEYS, v);
            // The share of the group's bandwidth (the per= of the bw line):
            // the truncated mean over the aggregate in KiB/s, at most 100.
            let agg = aggs[if dir == "mixed" { 0 } else { dir_index(dir) }].agg;
            if u(&d["bw_samples"]) > 0 {
                let mean = f(&d["bw_mean"]).trunc();
                let share = if agg > 1024 {
                    (mean * 100.0 / (agg as f64 / 1024.0)).min(100.0)
                } else {
                    100.0
                };
                v.json_numbers += 1;
                let want = fixed(share, 1.0, 0, 6, 1);
                let got = format!("{:.6}", f(&d["bw_agg"]));
                if !want.contains(&got) {
                    v.problems.push(format!(
                        "JSON {}: {got}, the rule gives {want:?}",
                        at("bw_agg")
                    ));
                }
            }
        }
        if let Some(sync) = job.get("sync") {
            check_percentiles(&format!("{name} sync lat_ns"), &sync["lat_ns"], v);
        }
    }
}

fn dir_index(dir: &str) -> usize {
    match dir {
        "write" => 1,
        "trim" => 2,
        _ => 0,
    }
}

fn check_latencies(at: &str, d: &Value, v: &mut Verdict) {
    for kind in ["slat_ns", "clat_ns", "lat_ns"] {
        let l = &d[kind];
        let (n, min, max) = (u(&l["N"]), u(&l["min"]), u(&l["max"]));
        v.json_numbers += 1;
        if n > 0
            && !(min <= max
                && f(&l["mean"]) >= min as f64 - 1e-6
                && f(&l["mean"]) <= max as f64 + 1e-6)
        {
            v.problems
                .push(format!("JSON {at}{kind}: mean outside min..max: {l}"));
        }
        if n <= 1 {
            v.expect_eq(&format!("{at}{kind} stddev of {n}"), f(&l["stddev"]), 0.0);
        }
        check_percentiles(&format!("{at}{kind}"), l, v);
    }
    // Where slat, clat and lat were all measured for every I/O, each I/O's
    // lat is its slat plus its clat: so are the means (to the sixth
    // decimal of each).
    let n = |k: &str| u(&d[k]["N"]);
    if n("slat_ns") > 0 && n("slat_ns") == n("clat_ns") && n("clat_ns") == n("lat_ns") {
        let mean = |k: &str| f(&d[k]["mean"]);
        let sum = mean("slat_ns") + mean("clat_ns");
        v.json_numbers += 1;
        if (sum - mean("lat_ns")).abs() > 2e-6 + sum * 1e-12 {
            v.problems.push(format!(
                "JSON {at}: lat mean {} is not slat {} + clat {}",
                mean("lat_ns"),
                mean("slat_ns"),
                mean("clat_ns")
            ));
        }
        let (lo, hi) = (u(&d["lat_ns"]["min"]), u(&d["lat_ns"]["max"]));
        let low = u(&d["slat_ns"]["min"]) + u(&d["clat_ns"]["min"]);
        let high = u(&d["slat_ns"]["max"]) + u(&d["clat_ns"]["max"]);
        v.json_numbers += 2;
        if lo < low || hi > high {
            v.problems.push(format!(
                "JSON {at}: lat min/max {lo}/{hi} outside slat+clat {low}..{high}"
            ));
        }
    }
}

/// A latency object's percentiles against fio's rule applied to its json+
/// bins, and the bins against its N, min and max.
pub fn check_percentiles(at: &str, l: &Value, v: &mut Verdict) {
    let map = percentile_map(l);
    if map.is_empty() {
        return;
    }
    let Some(raw) = l.get("bins").and_then(Value::as_object) else {
        v.problems
            .push(format!("JSON {at}: percentiles without json+ bins"));
        return;
    };
    let bins = bins_of(l);
    for key in raw.keys() {
        let value: u64 = key.parse().unwrap();
        if bucket_middle(bucket_of(value)) != value {
            v.problems
                .push(format!("JSON {at}: bin {value} is no bucket's value"));
        }
    }
    v.expect_eq(
        &format!("{at} Σ bins"),
        bins.values().sum::<u64>(),
        u(&l["N"]),
    );
    if let (Some(first), Some(last)) = (bins.keys().next(), bins.keys().last()) {
        v.expect_eq(
            &format!("{at} first bin"),
            bucket_of(*first),
            bucket_of(u(&l["min"])),
        );
        v.expect_eq(
            &format!("{at} last bin"),
            bucket_of(*last),
            bucket_of(u(&l["max"])),
        );
    }
    let (list, values): (Vec<f64>, Vec<u64>) = map.into_iter().unzip();
    let want = percentiles_of_bins(&bins, &list);
    v.percentiles += list.len();
    if want != values {
        v.problems.push(format!(
            "JSON {at}: percentiles {values:?}, fio's rule on the bins gives {want:?} (list {list:?})"
        ));
    }
    check_moments_against_bins(at, l, &bins, v);
}

/// The mean and the sample standard deviation against the bins: each
/// latency lies within half its bucket's width `h` of the bucket's value,
/// so the mean lies within Σh/n of the bins' mean, and (the deviation
/// being a norm of the centred values) the standard deviation within
/// √(Σh²/(n−1)) of the bins' one. Below 128 ns each value has a bucket of
/// its own, and both must agree to the printed decimals. The last bucket
/// is open above: a document reaching it is not judged here.
fn check_moments_against_bins(at: &str, l: &Value, bins: &BTreeMap<u64, u64>, v: &mut Verdict) {
    let n: u64 = bins.values().sum();
    if n == 0 || bins.keys().any(|b| bucket_of(*b) >= LAST_BUCKET) {
        return;
    }
    let count = n as f64;
    let weighted =
        |g: &dyn Fn(u64) -> f64| -> f64 { bins.iter().map(|(b, c)| *c as f64 * g(*b)).sum() };
    let mean = weighted(&|b| b as f64) / count;
    let half = |b: u64| bucket_half_width(bucket_of(b));
    let printed = |x: f64| 1e-6 + x.abs() * 1e-12;
    let (json_mean, json_dev) = (f(&l["mean"]), f(&l["stddev"]));
    let mean_slack = weighted(&|b| half(b)) / count + printed(mean);
    v.json_numbers += 1;
    if (json_mean - mean).abs() > mean_slack {
        v.problems.push(format!(
            "JSON {at}: mean {json_mean}, the bins give {mean} ± {mean_slack}"
        ));
    }
    if n < 2 {
        return;
    }
    let dev = (weighted(&|b| (b as f64 - mean).powi(2)) / (count - 1.0)).sqrt();
    let dev_slack = (weighted(&|b| half(b).powi(2)) / (count - 1.0)).sqrt() + printed(dev);
    v.json_numbers += 1;
    if (json_dev - dev).abs() > dev_slack {
        v.problems.push(format!(
            "JSON {at}: stddev {json_dev}, the bins give {dev} ± {dev_slack}"
        ));
    }
}

/// The keys of a sample statistic: min, max, mean, deviation, samples.
const BW_KEYS: [&str; 5] = ["bw_min", "bw_max", "bw_mean", "bw_dev", "bw_samples"];
const IOPS_KEYS: [&str; 5] = [
    "iops_min",
    "iops_max",
    "iops_mean",
    "iops_stddev",
    "iops_samples",
];

fn check_samples(at: &str, d: &Value, keys: [&str; 5], v: &mut Verdict) {
    let [min, max, mean, dev, samples] = keys;
    let n = u(&d[samples]);
    let (lo, hi, m, s) = (u(&d[min]), u(&d[max]), f(&d[mean]), f(&d[dev]));
    v.json_numbers += 1;
    let ordered = if n == 0 {
        lo == 0 && hi == 0 && m == 0.0 && s == 0.0
    } else {
        lo as f64 <= m + 1e-6 && m <= hi as f64 + 1e-6 && (n > 1 || s == 0.0)
    };
    if !ordered {
        v.problems.push(format!(
            "JSON {at}: min {lo} max {hi} mean {m} stdev {s} of {n} samples are not in order"
        ));
    }
    // The standard deviation of n values within [lo, hi] cannot exceed
    // half the range times sqrt(n / (n - 1)).
    if n > 1 {
        let bound = (hi - lo) as f64 / 2.0 * (n as f64 / (n as f64 - 1.0)).sqrt();
        v.json_numbers += 1;
        if s > bound + 1e-6 {
            v.problems.push(format!(
                "JSON {at}: stdev {s} exceeds what {n} samples within {lo}..{hi} allow ({bound})"
            ));
        }
    }
}
