//! Engines, rate floors, error lists and buffer contents, run by ferrio
//! beside the same job files run by fio 3.33.

mod common;

use std::collections::HashMap;

use common::{Outcome, Scratch, ferrio, fio, run};
use serde_json::Value;

/// Runs a job file with both tools, each in its own scratch folder;
/// returns (fio's, ferrio's) outcome and the two folders.
fn run_both_in(job: &str, args: &[&str]) -> (Outcome, Outcome, Scratch, Scratch) {
    let env = HashMap::new();
    let a = Scratch::new("engfio");
    let b = Scratch::new("engferrio");
    for s in [&a, &b] {
        s.write("job.fio", job);
    }
    let mut all = args.to_vec();
    all.push("job.fio");
    let want = run(fio(), &all, &a.0, &env);
    let got = run(ferrio(), &all, &b.0, &env);
    (want, got, a, b)
}

/// The JSON document on a run's stdout (fio may print notices before it).
fn json(out: &Outcome) -> Value {
    let s = &out.stdout;
    serde_json::from_str(&s[s.find('{').unwrap_or(0)..])
        .unwrap_or_else(|e| panic!("no JSON on stdout ({e}): {s:?}"))
}

/// Runs a job file with both tools; (fio's JSON, ferrio's JSON), after
/// checking that both ended well.
fn both(job: &str) -> (Value, Value) {
    let (want, got, _, _) = run_both_in(job, &["--output-format=json"]);
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    (json(&want), json(&got))
}

/// Job 0's depth, submit and complete distributions, as
/// (map, bucket) → percent for the buckets of at least `floor` percent.
fn distributions(doc: &Value, floor: f64) -> HashMap<(String, String), f64> {
    ["iodepth_level", "iodepth_submit", "iodepth_complete"]
        .iter()
        .flat_map(|map| {
            doc["jobs"][0][map]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, v)| v.as_f64().unwrap() >= floor)
                .map(|(k, v)| ((map.to_string(), k.clone()), v.as_f64().unwrap()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Asserts that the buckets holding at least `floor` percent in either
/// run are within `points` of each other.
fn close_distributions(want: &Value, got: &Value, floor: f64, points: f64, label: &str) {
    let (w, g) = (distributions(want, floor), distributions(got, floor));
    for key in w.keys().chain(g.keys()) {
        let (a, b) = (w.get(key), g.get(key));
        let (a, b) = (
            a.copied().unwrap_or_else(|| bucket(want, key)),
            b.copied().unwrap_or_else(|| bucket(got, key)),
        );
        assert!(
            (a - b).abs() <= points,
            "{label}: {key:?}: fio {a}, ferrio {b}\nfio {w:?}\nferrio {g:?}"
        );
    }
}

fn bucket(doc: &Value, key: &(String, String)) -> f64 {
    doc["jobs"][0][&key.0][&key.1].as_f64().unwrap_or(0.0)
}

fn ios(doc: &Value, dir: &str) -> u64 {
    doc["jobs"][0][dir]["total_ios"].as_u64().unwrap()
}

#[test]
fn posixaio_holds_the_depth_as_fio_does() {
    // At depth 32 glibc serves one file's requests in order, and which
    // unfinished I/Os the reaper sleeps on decides how far the queue
    // drains: the split between 8, 16 and 32 varies from run to run.
    for (depth, points) in [(1, 0.15), (8, 1.0), (32, 12.0)] {
        let job = format!(
            "[j]\nioengine=posixaio\nrw=randread\nbs=4k\nsize=16m\ndirect=1\niodepth={depth}\n"
        );
        let (want, got) = both(&job);
        assert_eq!(ios(&got, "read"), ios(&want, "read"), "depth {depth}");
        close_distributions(&want, &got, 1.0, points, &format!("depth {depth}"));
    }
}

#[test]
fn libaio_userspace_reap_polls_as_fio_does() {
    for extra in [
        // Polling reaps after every I/O: the queue never grows.
        "iodepth=16\niodepth_batch_complete_min=0\nuserspace_reap",
        "iodepth=16\niodepth_batch_complete_min=0",
        // Reaping waits for a completion: the ring is not read.
        "iodepth=16\nuserspace_reap",
    ] {
        let job =
            format!("[j]\nioengine=libaio\nrw=randread\nbs=4k\nsize=16m\ndirect=1\n{extra}\n");
        let (want, got) = both(&job);
        assert_eq!(ios(&got, "read"), ios(&want, "read"), "{extra}");
        close_distributions(&want, &got, 1.0, 2.0, extra);
    }
}
