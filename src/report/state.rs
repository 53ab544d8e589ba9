//! What a job's JSON carries, under `ferrio.state`, so that `ferrio merge`
//! can fold the results of many hosts exactly: the raw counts of fio's
//! latency histograms (fio's JSON has only their percentiles), of the
//! depth, batch and latency distributions (fio's JSON has only shares),
//! the latency moments as sums (fio's JSON has a rounded mean and
//! deviation), CPU time and error counts, and the report settings.
//!
//! Histograms list only their non-empty buckets, as `index:count` pairs
//! in one string; moments are a string of their parts, so that 128-bit
//! sums and floats survive a JSON reader exactly.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::json_tree::{Json, Obj};
use crate::result::options::{ReportOptions, Unified};
use crate::result::{DirStats, JobResult, LatencyBuckets};
use crate::stats::fine::FineHistogram;
use crate::stats::{CpuUsage, Histogram, LatencyMoments, Moments};

const DIRECTIONS: [&str; 3] = ["read", "write", "trim"];

/// The `state` object of a job's `ferrio` section.
pub fn save(r: &JobResult, group_agg: [u64; 3]) -> Obj {
    let mut o = Obj::default();
    o.int("members", u64::from(r.members))
        .int("runtime_us", r.runtime.as_micros() as u64)
        .str("group_agg", &words(&group_agg))
        .obj("report", save_options(&r.report))
        .int("syncs", r.syncs)
        .str("sync_lat", &latency_moments(&r.sync_lat))
        .str("sync_hist", &buckets(r.sync_hist.buckets()))
        .str("depths", &words(&r.depths))
        .str("submits", &words(&r.submits))
        .str("completes", &words(&r.completes))
        .str("latency_ns", &words(&r.latency.ns))
        .str("latency_us", &words(&r.latency.us))
        .str("latency_ms", &words(&r.latency.ms))
        .int("total_err", r.total_err)
        .int("first_error", r.first_error as u64)
        .str("cpu", &cpu(&r.cpu))
        .int("latency_depth", r.latency_depth as u64)
        .str("depth_mean", &format!("{:?}", r.depth_mean))
        .str("depth_per_second", &floats(&r.depth_per_second));
    for (name, d) in DIRECTIONS.iter().zip(&r.dirs) {
        o.obj(name, save_dir(d));
    }
    o
}

fn save_dir(d: &DirStats) -> Obj {
    let mut o = Obj::default();
    o.int("ios", d.ios)
        .int("bytes", d.bytes)
        .int("issued", d.issued)
        .int("short", d.short)
        .int("dropped", d.dropped)
        .int("runtime_ms", d.runtime_ms)
        .str("slat", &latency_moments(&d.slat))
        .str("clat", &latency_moments(&d.clat))
        .str("lat", &latency_moments(&d.lat))
        .str("slat_hist", &buckets(d.slat_hist.buckets()))
        .str("clat_hist", &buckets(d.clat_hist.buckets()))
        .str("lat_hist", &buckets(d.lat_hist.buckets()))
        .str("clat_fine", &buckets(d.clat_fine.buckets()))
        .str("lat_fine", &buckets(d.lat_fine.buckets()))
        .str("clat_fine_hdr", &hdr(&d.clat_fine))
        .str("lat_fine_hdr", &hdr(&d.lat_fine))
        .str("intended", &latency_moments(&d.intended))
        .str("intended_fine", &buckets(d.intended_fine.buckets()))
        .str("bw", &moments(&d.bw))
        .str("iops", &moments(&d.iops));
    o
}

/// A fine histogram in HdrHistogram's interchange format: V2 with
/// deflate, in base64, as HdrHistogram's log files hold each interval,
/// so that its tools (and any reader of that format) can take the merge
/// state's latencies. Written beside `*_fine`, which `ferrio merge`
/// reads; these are not read back.
fn hdr(fine: &FineHistogram) -> String {
    // Most directions of most jobs are empty: their form is the same
    // every time, and made once it spares a deflate state (about 280 KB)
    // per job and direction.
    static EMPTY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    if fine.buckets().next().is_none() {
        return EMPTY
            .get_or_init(|| serialized_hdr(&FineHistogram::default()))
            .clone();
    }
    serialized_hdr(fine)
}

fn serialized_hdr(fine: &FineHistogram) -> String {
    use base64::Engine;
    use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
    let mut bytes = Vec::new();
    match V2DeflateSerializer::new().serialize(&fine.to_hdr(), &mut bytes) {
        Ok(_) => base64::engine::general_purpose::STANDARD.encode(bytes),
        Err(_) => String::new(),
    }
}

fn save_options(r: &ReportOptions) -> Obj {
    let mut o = Obj::default();
    o.str("engine", &r.engine)
        .str("percentile_list", &floats(&r.percentile_list))
        .int("percentile_precision", r.percentile_precision as u64)
        .int("clat_percentiles", u64::from(r.clat_percentiles))
        .int("lat_percentiles", u64::from(r.lat_percentiles))
        .int("slat_percentiles", u64::from(r.slat_percentiles))
        .int("sig_figs", r.sig_figs as u64)
        .int("kb_base", r.kb_base)
        .int("bits", u64::from(r.bits))
        .str(
            "unified",
            match r.unified {
                Unified::None => "none",
                Unified::Mixed => "mixed",
                Unified::Both => "both",
            },
        )
        .int("continue_on_error", u64::from(r.continue_on_error))
        .int("latency_target_ns", r.latency_target_ns)
        .int("latency_window_us", r.latency_window_us)
        .str("latency_percentile", &format!("{:?}", r.latency_percentile))
        .int("block_error_hist", u64::from(r.block_error_hist));
    o
}

fn words<T: std::fmt::Display>(values: &[T]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Floats written so that they read back to the same bits.
fn floats(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn buckets(iter: impl Iterator<Item = (usize, u64)>) -> String {
    iter.map(|(b, c)| format!("{b}:{c}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn latency_moments(m: &LatencyMoments) -> String {
    let (sum, sum_sq) = m.sums();
    format!("{} {} {} {sum} {sum_sq}", m.count, m.min, m.max)
}

fn moments(m: &Moments) -> String {
    format!(
        "{} {} {} {:?} {:?}",
        m.count,
        m.min,
        m.max,
        m.mean(),
        m.squared_deviations()
    )
}

fn cpu(c: &CpuUsage) -> String {
    words(&[
        c.user_us,
        c.system_us,
        c.ctx,
        c.voluntary_ctx,
        c.major_faults,
        c.minor_faults,
        c.waiting_us,
    ])
}

/// A job read back from its JSON object (one element of `jobs`), with the
/// group aggregates it was reported against; an error names what is
/// missing or malformed.
pub fn restore(job: &Value) -> Result<(JobResult, [u64; 3]), String> {
    let state = job
        .pointer("/ferrio/state")
        .ok_or("it has no ferrio.state, the histogram counts an exact merge needs (fio's own JSON lacks them; run each instance with ferrio --output-format=json)")?;
    let field = Field(state);
    let report = Arc::new(
        restore_options(&Field(
            state.get("report").ok_or("ferrio.state has no report")?,
        ))
        .map_err(|e| format!("ferrio.state.report: {e}"))?,
    );
    let mut dirs: [DirStats; 3] = Default::default();
    for (name, d) in DIRECTIONS.iter().zip(&mut dirs) {
        *d = restore_dir(&Field(
            state
                .get(*name)
                .ok_or_else(|| format!("ferrio.state has no {name}"))?,
        ))
        .map_err(|e| format!("ferrio.state.{name}: {e}"))?;
    }
    let mut sync_hist = Histogram::default();
    fill(&field.text("sync_hist")?, |b, n| {
        sync_hist.add_to_bucket(b, n)
    })?;
    let latency = LatencyBuckets {
        ns: field.array("latency_ns")?,
        us: field.array("latency_us")?,
        ms: field.array("latency_ms")?,
    };
    let cpu: [u64; 7] = field.array("cpu")?;
    let result = JobResult {
        ioprio: 0,
        zone_resets: 0,
        name: job
            .get("jobname")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        group: job.get("groupid").and_then(Value::as_u64).unwrap_or(0) as u32,
        pid: 0,
        members: field.int("members")? as u32,
        dirs,
        runtime: Duration::from_micros(field.int("runtime_us")?),
        error: None,
        carried_on: false,
        warn_direct: false,
        stopped_in_setup: false,
        syncs: field.int("syncs")?,
        sync_lat: parse_latency_moments(&field.text("sync_lat")?)?,
        sync_hist,
        depths: field.array("depths")?,
        submits: field.array("submits")?,
        completes: field.array("completes")?,
        latency,
        total_err: field.int("total_err")?,
        first_error: field.int("first_error")? as i32,
        later_errors: Vec::new(),
        cpu: CpuUsage {
            user_us: cpu[0],
            system_us: cpu[1],
            ctx: cpu[2],
            voluntary_ctx: cpu[3],
            major_faults: cpu[4],
            minor_faults: cpu[5],
            waiting_us: cpu[6],
        },
        latency_depth: field.int("latency_depth")? as usize,
        depth_mean: field.parsed("depth_mean")?,
        depth_per_second: field.list("depth_per_second")?,
        steady: None,
        slowest: Default::default(),
        connection: None,
        report,
    };
    Ok((result, field.array("group_agg")?))
}

fn restore_dir(f: &Field) -> Result<DirStats, String> {
    let mut d = DirStats {
        ios: f.int("ios")?,
        bytes: f.int("bytes")?,
        issued: f.int("issued")?,
        short: f.int("short")?,
        // Results saved before ferrio counted dropped messages lack it.
        dropped: f.int("dropped").unwrap_or(0),
        runtime_ms: f.int("runtime_ms")?,
        slat: parse_latency_moments(&f.text("slat")?)?,
        clat: parse_latency_moments(&f.text("clat")?)?,
        lat: parse_latency_moments(&f.text("lat")?)?,
        bw: parse_moments(&f.text("bw")?)?,
        iops: parse_moments(&f.text("iops")?)?,
        ..DirStats::default()
    };
    // Results saved before ferrio measured intended-time latency lack it.
    let intended = f.text("intended")?;
    if !intended.is_empty() {
        d.intended = parse_latency_moments(&intended)?;
    }
    let DirStats {
        slat_hist,
        clat_hist,
        lat_hist,
        clat_fine,
        lat_fine,
        intended_fine,
        ..
    } = &mut d;
    for (key, hist) in [
        ("slat_hist", slat_hist),
        ("clat_hist", clat_hist),
        ("lat_hist", lat_hist),
    ] {
        fill(&f.text(key)?, |b, n| hist.add_to_bucket(b, n)).map_err(|e| format!("{key}: {e}"))?;
    }
    for (key, hist) in [
        ("clat_fine", clat_fine),
        ("lat_fine", lat_fine),
        ("intended_fine", intended_fine),
    ] {
        let hist: &mut FineHistogram = hist;
        fill(&f.text(key)?, |b, n| hist.add_to_bucket(b, n)).map_err(|e| format!("{key}: {e}"))?;
    }
    Ok(d)
}

fn restore_options(f: &Field) -> Result<ReportOptions, String> {
    Ok(ReportOptions {
        engine: f.text("engine")?,
        description: String::new(),
        percentile_list: f.list("percentile_list")?,
        percentile_precision: f.int("percentile_precision")? as usize,
        clat_percentiles: f.int("clat_percentiles")? != 0,
        lat_percentiles: f.int("lat_percentiles")? != 0,
        slat_percentiles: f.int("slat_percentiles")? != 0,
        sig_figs: f.int("sig_figs")? as usize,
        kb_base: f.int("kb_base")?,
        bits: f.int("bits")? != 0,
        unified: match f.text("unified")?.as_str() {
            "mixed" => Unified::Mixed,
            "both" => Unified::Both,
            _ => Unified::None,
        },
        continue_on_error: f.int("continue_on_error")? != 0,
        latency_target_ns: f.int("latency_target_ns")?,
        latency_window_us: f.int("latency_window_us")?,
        latency_percentile: f.parsed("latency_percentile")?,
        block_error_hist: f.int("block_error_hist")? != 0,
        job_options: Vec::new(),
        global_options: Vec::new(),
    })
}

/// Members of a saved object, each read with a message naming the key.
struct Field<'a>(&'a Value);

impl Field<'_> {
    fn int(&self, key: &str) -> Result<u64, String> {
        self.0
            .get(key)
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("{key}: expected a whole number"))
    }

    /// A string member; absent means empty (the JSON writer leaves empty
    /// strings out).
    fn text(&self, key: &str) -> Result<String, String> {
        match self.0.get(key) {
            None => Ok(String::new()),
            Some(v) => v
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("{key}: expected a string")),
        }
    }

    fn parsed<T: std::str::FromStr>(&self, key: &str) -> Result<T, String> {
        self.text(key)?
            .parse()
            .map_err(|_| format!("{key}: expected a number"))
    }

    fn list<T: std::str::FromStr>(&self, key: &str) -> Result<Vec<T>, String> {
        self.text(key)?
            .split_whitespace()
            .map(|w| w.parse().map_err(|_| format!("{key}: bad number {w}")))
            .collect()
    }

    fn array<const N: usize>(&self, key: &str) -> Result<[u64; N], String> {
        self.list(key)?
            .try_into()
            .map_err(|_| format!("{key}: expected {N} numbers"))
    }
}

fn fill(text: &str, mut add: impl FnMut(usize, u64) -> Option<()>) -> Result<(), String> {
    // A histogram's total is the sum of its buckets: one that does not fit
    // in 64 bits is not a histogram any run wrote.
    let mut total = 0u64;
    for pair in text.split_whitespace() {
        let (b, n) = pair
            .split_once(':')
            .and_then(|(b, n)| Some((b.parse().ok()?, n.parse().ok()?)))
            .ok_or_else(|| format!("expected bucket:count pairs, found {pair}"))?;
        total = total
            .checked_add(n)
            .ok_or_else(|| format!("its bucket counts add up to more than 2^64-1 at {pair}"))?;
        add(b, n).ok_or_else(|| format!("bucket {b} does not exist"))?;
    }
    Ok(())
}

fn parse_latency_moments(text: &str) -> Result<LatencyMoments, String> {
    let (count, min, max, sum, sum_sq) = moment_parts(text, "sum sum_sq")?;
    Ok(LatencyMoments::from_parts(count, min, max, sum, sum_sq))
}

fn parse_moments(text: &str) -> Result<Moments, String> {
    let (count, min, max, mean, m2) = moment_parts(text, "mean m2")?;
    Ok(Moments::from_parts(count, min, max, mean, m2))
}

/// The five words of a saved series: count, min and max, then the two
/// sums of the series' kind (`sums` names them in the error), as both
/// [`LatencyMoments`] and [`Moments`] are saved.
fn moment_parts<S: std::str::FromStr>(
    text: &str,
    sums: &str,
) -> Result<(u64, u64, u64, S, S), String> {
    let w: Vec<&str> = text.split_whitespace().collect();
    let bad = || format!("expected count min max {sums}, found '{text}'");
    let [count, min, max, first, second] = w[..] else {
        return Err(bad());
    };
    let int = |s: &str| s.parse::<u64>().map_err(|_| bad());
    let sum = |s: &str| s.parse::<S>().map_err(|_| bad());
    Ok((int(count)?, int(min)?, int(max)?, sum(first)?, sum(second)?))
}

/// A JSON value read by serde as fio's writer would write it again.
pub fn to_json(v: &Value) -> Json {
    match v {
        Value::Null => Json::Str(String::new()),
        Value::Bool(b) => Json::Int(i64::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Json::Int(i),
            (None, Some(u)) => Json::Int(u as i64),
            _ => Json::Float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => Json::Str(s.clone()),
        Value::Array(items) => Json::Arr(items.iter().map(to_json).collect()),
        Value::Object(members) => {
            let mut o = Obj::default();
            for (k, v) in members {
                o.value(k, to_json(v));
            }
            Json::Obj(o)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy_result() -> JobResult {
        let plan = crate::plan::plan_for_test(
            "[j]\nioengine=null\nsize=1m\nlat_percentiles=1\n",
            &[],
            &[],
            false,
        )
        .unwrap();
        let cfg =
            crate::run::config::JobConfig::from_spec(plan.jobs().next().unwrap(), false).unwrap();
        let mut r = JobResult::new(&cfg);
        for (i, d) in r.dirs.iter_mut().enumerate() {
            for k in 1..=500u64 {
                let ns = k * k * 37 * (i as u64 + 1) + 90;
                d.clat.add(ns);
                d.clat_hist.add(ns);
                d.clat_fine.add(ns);
                d.lat.add(ns + 300);
                d.lat_hist.add(ns + 300);
                d.lat_fine.add(ns + 300);
                d.bw.add(k * 3);
                d.intended.add(ns * 2);
                d.intended_fine.add(ns * 2);
            }
            d.ios = 500;
            d.issued = 501;
            d.bytes = 500 * 4096;
            d.runtime_ms = 12;
        }
        r.sync_lat.add(77);
        r.sync_hist.add(77);
        r.depths = [1, 2, 3, 4, 5, 6, 7];
        r.latency.add(1500);
        r.cpu.user_us = 1234;
        r.depth_mean = 1.0 / 3.0;
        r.depth_per_second = vec![0.1, 2.5];
        r.runtime = Duration::from_micros(12_345);
        r
    }

    /// A saved result read back saves the same state again, and reports
    /// the same percentiles and moments.
    #[test]
    fn saved_state_reads_back_whole() {
        let original = busy_result();
        let mut text = String::new();
        let mut job = Obj::default();
        job.str("jobname", "j").int("groupid", 0);
        let mut ferrio = Obj::default();
        ferrio.obj("state", save(&original, [5, 6, 7]));
        job.obj("ferrio", ferrio);
        job.write(&mut text, 0);
        let value: Value = serde_json::from_str(&text).unwrap();
        let (restored, agg) = restore(&value).unwrap();
        assert_eq!(agg, [5, 6, 7]);
        let again = |r: &JobResult| {
            let mut out = String::new();
            save(r, agg).write(&mut out, 0);
            out
        };
        assert_eq!(again(&restored), again(&original));
        assert_eq!(
            restored.report.as_ref().percentile_list,
            original.report.percentile_list
        );
        for (a, b) in restored.dirs.iter().zip(&original.dirs) {
            assert_eq!(a.clat, b.clat);
            assert_eq!(a.lat_hist, b.lat_hist);
            assert_eq!(a.clat_fine, b.clat_fine);
            assert_eq!(a.intended, b.intended);
            assert_eq!(a.intended_fine, b.intended_fine);
            assert_eq!(a.bw.stddev(), b.bw.stddev());
        }
        assert_eq!(restored.depth_mean, original.depth_mean);
    }

    #[test]
    fn damaged_state_is_named() {
        let value: Value =
            serde_json::from_str(r#"{"jobname":"j","ferrio":{"state":{"report":{},"read":{}}}}"#)
                .unwrap();
        let e = restore(&value).unwrap_err();
        assert!(
            e.contains("percentile_precision") || e.contains("expected"),
            "{e}"
        );
        let bad = serde_json::json!({"ferrio": {"state": {}}});
        assert_eq!(restore(&bad).unwrap_err(), "ferrio.state has no report");
    }

    /// The HdrHistogram copies decode with an HdrHistogram reader (the
    /// hdrhistogram crate's V2 deserializer) to the fine histograms'
    /// counts and tails.
    #[test]
    fn hdr_copies_read_back_in_hdrhistograms_format() {
        use base64::Engine;
        let original = busy_result();
        let mut text = String::new();
        save(&original, [0; 3]).write(&mut text, 0);
        let value: Value = serde_json::from_str(&text).unwrap();
        for (i, name) in DIRECTIONS.iter().enumerate() {
            for (key, fine) in [
                ("clat_fine_hdr", &original.dirs[i].clat_fine),
                ("lat_fine_hdr", &original.dirs[i].lat_fine),
            ] {
                let encoded = value[name][key].as_str().unwrap();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(encoded)
                    .unwrap();
                let hdr: hdrhistogram::Histogram<u64> =
                    hdrhistogram::serialization::Deserializer::new()
                        .deserialize(&mut bytes.as_slice())
                        .unwrap();
                assert_eq!(hdr, fine.to_hdr(), "{name}.{key}");
                assert_eq!(hdr.len(), 500, "{name}.{key}");
            }
        }
    }
}
