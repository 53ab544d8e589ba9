//! ferrio's live status in JSON (`--status-format=ndjson`): one complete
//! JSON document per line and per `--status-interval`, holding what each
//! job did in that interval alone (I/Os, bytes, rates, latency
//! percentiles, minimum and maximum), so that a reader sees a stall when
//! it happens rather than diluted in totals. The end-of-run report
//! follows as one more line, so that the whole output stays NDJSON.

use serde_json::{Map, Value, json};

use crate::result::live_job::LiveJob;
use crate::run::status::live::{Latencies, Tally, TallyDir};
use crate::run::status::progress::State;

const DIRECTIONS: [&str; 3] = ["read", "write", "trim"];

/// What one line covers: its number (from 1), when it was made (Unix
/// milliseconds) and how long after the run started.
pub struct Interval {
    pub number: u64,
    pub unix_ms: u64,
    pub elapsed_ms: u64,
}

/// The line for one interval: every job's tally of it, with its state.
pub fn line(at: &Interval, jobs: &[LiveJob], tallies: &[Tally], states: &[State]) -> String {
    let jobs: Vec<Value> = jobs
        .iter()
        .zip(tallies)
        .zip(states)
        .enumerate()
        .map(|(id, ((cfg, tally), state))| job(id, cfg, tally, *state))
        .collect();
    let doc = json!({
        "interval": at.number,
        "timestamp_ms": at.unix_ms,
        "elapsed_ms": at.elapsed_ms,
        "jobs": jobs,
    });
    format!("{doc}\n")
}

fn job(id: usize, cfg: &LiveJob, tally: &Tally, state: State) -> Value {
    let mut o = Map::new();
    o.insert("jobname".into(), json!(cfg.name));
    o.insert("groupid".into(), json!(cfg.group));
    o.insert("jobid".into(), json!(id));
    o.insert("state".into(), json!(state_name(state)));
    let seconds = tally.seconds();
    o.insert("span_ms".into(), json!((seconds * 1000.0).round() as u64));
    for (name, d) in DIRECTIONS.iter().zip(&tally.dirs) {
        o.insert((*name).into(), direction(d, seconds, &cfg.percentile_list));
    }
    Value::Object(o)
}

fn direction(d: &TallyDir, seconds: f64, list: &[f64]) -> Value {
    let per_second = |n: u64| {
        if seconds > 0.0 {
            n as f64 / seconds
        } else {
            0.0
        }
    };
    let mut o = Map::new();
    o.insert("ios".into(), json!(d.ios));
    o.insert("io_bytes".into(), json!(d.bytes));
    o.insert("iops".into(), json!(per_second(d.ios)));
    o.insert("bw_bytes".into(), json!(per_second(d.bytes).round() as u64));
    for (key, series) in [
        ("clat_ns", &d.clat),
        ("lat_ns", &d.lat),
        ("intended_ns", &d.intended),
    ] {
        if series.moments.count > 0 {
            o.insert(key.into(), latencies(series, list));
        }
    }
    Value::Object(o)
}

/// One latency series of the interval, with fio's percentile keys.
fn latencies(s: &Latencies, list: &[f64]) -> Value {
    let m = &s.moments;
    let percentiles: Map<String, Value> = list
        .iter()
        .map(|p| (format!("{p:.6}"), json!(s.percentile(*p))))
        .collect();
    json!({
        "N": m.count,
        "min": m.min,
        "max": m.max,
        "mean": m.mean(),
        "percentile": percentiles,
    })
}

fn state_name(s: State) -> &'static str {
    match s {
        State::Pending => "pending",
        State::SettingUp => "setting_up",
        State::Ramp => "ramp",
        State::Running => "running",
        State::Finishing => "finishing",
        State::Done => "done",
        State::Failed => "failed",
        State::Killed => "killed",
    }
}

/// fio's JSON documents in `text` (one, or several after each other),
/// each written on one line.
pub fn compact(text: &str) -> String {
    let mut out = String::new();
    for doc in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        match doc {
            Ok(doc) => {
                out += &doc.to_string();
                out.push('\n');
            }
            // Not JSON (never the case for a JSON-only run): kept as it is.
            Err(_) => return text.to_string(),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::status::live::Measured;

    #[test]
    fn a_line_is_one_json_document_of_the_interval() {
        let plan =
            crate::plan::plan_for_test("[j]\nioengine=null\nsize=1m\nrw=randrw\n", &[], &[], false)
                .unwrap();
        let cfg = crate::run::config::JobConfig::from_spec(plan.jobs().next().unwrap(), false)
            .unwrap()
            .live_job();
        let mut t = Tally::starting(0);
        for ns in 1..=100 {
            t.record(
                1,
                4096,
                Measured {
                    clat: Some(ns * 1000),
                    lat: None,
                    intended: None,
                },
            );
        }
        t.until = 500_000_000;
        let at = Interval {
            number: 3,
            unix_ms: 1,
            elapsed_ms: 1500,
        };
        let text = line(&at, &[cfg], &[t], &[State::Running]);
        assert!(text.ends_with('\n') && text.matches('\n').count() == 1);
        let v: Value = serde_json::from_str(&text).unwrap();
        let w = &v["jobs"][0]["write"];
        assert_eq!(v["interval"], 3);
        assert_eq!(w["ios"], 100);
        assert_eq!(w["iops"], 200.0);
        assert_eq!(w["clat_ns"]["max"], 100_000);
        // Within the fine histogram's 0.4 %.
        let p50 = w["clat_ns"]["percentile"]["50.000000"].as_f64().unwrap();
        assert!((p50 - 50_000.0).abs() < 200.0, "{p50}");
        assert!(w.get("lat_ns").is_none());
        assert_eq!(v["jobs"][0]["read"]["ios"], 0);
        assert_eq!(v["jobs"][0]["state"], "running");
    }

    #[test]
    fn documents_are_compacted_one_per_line() {
        let text = "{\n  \"a\" : 1,\n  \"b\" : [\n    2\n  ]\n}\n{\"c\" : {}}\n";
        assert_eq!(compact(text), "{\"a\":1,\"b\":[2]}\n{\"c\":{}}\n");
    }
}
