//! `ferrio merge A.json B.json ... [--output FILE]`: the JSON results of
//! instances run on many hosts (see [`crate::distributed`]) as one
//! document in the shape fio's client mode writes (`client_stats` holding
//! every job with its `hostname` and `port`, then an `All clients` entry).
//!
//! The `All clients` entry is folded as fio folds its clients' results
//! (sum_thread_stats): counts, histograms and CPU time add up, latency
//! moments combine, each direction's runtime is the longest. Each job is
//! rebuilt from the state ferrio saves in its JSON (`ferrio.state`), so
//! the merged percentiles come from the summed histograms: exactly those
//! of one run whose histogram holds every sample (fio's own `All clients`
//! has no percentiles; ferrio's has them). fio has no port here: `port`
//! carries the instance's rank.
//!
//! A merged document is itself an input: its client entries are the jobs
//! it was made of (each still carrying its state, and its elapsed time
//! under `ferrio`, as fio's client entries have none), and its `All
//! clients` entry, being their sum, is left out; so merging merged results
//! equals merging all their jobs at once.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::files_command::Usage;
use crate::report::Report;
use crate::report::json::{Json, Obj, job};
use crate::report::state::{restore, to_json};
use crate::result::JobResult;

mod totals;

/// `ferrio merge`'s command line.
const USAGE: Usage = Usage {
    name: "merge",
    about: "Merge the JSON results of ferrio instances run on several hosts into one document shaped as fio's client mode writes it",
    files: "the JSON (--output-format=json or json+) of each instance, or of an earlier merge",
    output: "write the merged document to FILE instead of stdout",
    repeats: false,
};

/// Runs `ferrio merge` with its arguments (after `merge`); returns the
/// exit status.
pub fn run(argv: &[String]) -> i32 {
    USAGE.run(argv, |request| merge_files(&request.files))
}

/// One input: its document and its jobs, each rebuilt with its group's
/// aggregate bandwidths.
struct Input {
    doc: Value,
    jobs: Vec<(Value, JobResult, [u64; 3])>,
}

fn read(path: &str) -> Result<Input, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| {
        format!("{path}: not a JSON document ({e}); run each instance with --output-format=json")
    })?;
    let jobs = match (doc.get("jobs"), doc.get("client_stats")) {
        (Some(Value::Array(jobs)), _) => &jobs[..],
        (None, Some(Value::Array(clients))) => match clients.split_last() {
            Some((last, rest)) if !rest.is_empty() && last["jobname"] == ALL_CLIENTS => rest,
            _ => &clients[..],
        },
        _ => {
            return Err(format!(
                "{path}: no \"jobs\" array; expected the JSON of one ferrio run or of ferrio merge"
            ));
        }
    };
    let jobs = jobs
        .iter()
        .map(|j| {
            let name = j.get("jobname").and_then(Value::as_str).unwrap_or("?");
            let (result, agg) =
                restore(j).map_err(|e| format!("{path}: cannot merge job {name}: {e}"))?;
            Ok((j.clone(), result, agg))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Input { doc, jobs })
}

/// The merged document of the files, as text.
fn merge_files(files: &[String]) -> Result<String, String> {
    let inputs = files
        .iter()
        .map(|f| read(f))
        .collect::<Result<Vec<_>, _>>()?;
    totals::totals_fit(inputs.iter().flat_map(|i| &i.jobs).map(|(_, r, a)| (r, a)))?;
    let mut out = String::new();
    document(&inputs).write(&mut out, 0);
    out.push('\n');
    Ok(out)
}

fn document(inputs: &[Input]) -> Obj {
    let now = SystemTime::now();
    let mut root = Obj::default();
    root.str("fio version", crate::FIO_VERSION)
        .int(
            "timestamp",
            now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        )
        .str("time", &crate::report::ctime(now));
    let global = inputs
        .iter()
        .find_map(|i| i.doc.get("global options"))
        .map_or(Json::Obj(Obj::default()), to_json);
    root.value("global options", global);
    let mut clients = Vec::new();
    let mut last_client = (String::new(), 0);
    for (doc, _, _) in inputs.iter().flat_map(|i| &i.jobs) {
        // The elapsed time fio's entry leaves out is kept for a later merge.
        let mut kept = doc.clone();
        if let (Some(elapsed), Some(Value::Object(own))) =
            (doc.get("elapsed").cloned(), kept.get_mut("ferrio"))
        {
            own.insert("elapsed".to_string(), elapsed);
        }
        let Json::Obj(mut entry) = to_json(&kept) else {
            continue;
        };
        last_client = client_of(doc);
        // fio's client mode reports no ETA or elapsed time per job.
        entry
            .remove(&CLIENT_LESS)
            .str("hostname", &last_client.0)
            .int("port", last_client.1);
        clients.push(Json::Obj(entry));
    }
    if clients.len() > 1 {
        let mut all = all_clients(inputs);
        all.str("hostname", &last_client.0)
            .int("port", last_client.1);
        clients.push(Json::Obj(all));
    }
    root.arr("client_stats", clients);
    let disks = inputs
        .iter()
        .filter_map(|i| i.doc.get("disk_util").and_then(Value::as_array))
        .flatten()
        .map(to_json)
        .collect();
    root.arr("disk_util", disks);
    root
}

/// The name of the entry that sums every client.
const ALL_CLIENTS: &str = "All clients";

/// A job's elapsed seconds: its own, or as kept in a merged entry.
fn elapsed(job: &Value) -> Option<u64> {
    job.get("elapsed")
        .or_else(|| job.pointer("/ferrio/elapsed"))?
        .as_u64()
}

/// What a job's JSON has that fio's client mode leaves out.
const CLIENT_LESS: [&str; 2] = ["eta", "elapsed"];

/// The host name and rank an instance recorded.
fn client_of(job: &Value) -> (String, u64) {
    let hostname = job
        .pointer("/ferrio/hostname")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let rank = job
        .pointer("/ferrio/rank")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    (hostname.to_string(), rank)
}

/// Every job folded into one, reported as fio reports its `All clients`.
fn all_clients(inputs: &[Input]) -> Obj {
    let mut jobs = inputs.iter().flat_map(|i| &i.jobs);
    let (_, first, first_agg) = jobs.next().expect("called with two jobs or more");
    let mut merged = first.clone();
    let mut agg = *first_agg;
    for (_, r, a) in jobs {
        merged.absorb(r);
        merged.group = r.group;
        for (mine, theirs) in agg.iter_mut().zip(a) {
            *mine += theirs;
        }
    }
    merged.name = ALL_CLIENTS.to_string();
    // fio's summed record carries no error and no latency target of its
    // own (so no latency_depth and latency_target members).
    merged.error = None;
    merged.carried_on = false;
    merged.latency_depth = 0;
    let elapsed = inputs
        .iter()
        .flat_map(|i| &i.jobs)
        .filter_map(|(j, _, _)| elapsed(j))
        .max()
        .unwrap_or(0);
    let group = merged.group as usize;
    let mut report = Report::new(
        vec![merged],
        Some(group as u32),
        Vec::new(),
        Duration::from_secs(elapsed),
        3,
    );
    for (d, a) in report.groups[group].dirs.iter_mut().zip(agg) {
        d.agg = a;
    }
    let mut all = job(&report, &report.results[0], false);
    all.remove(&CLIENT_LESS);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn files_and_output() {
        use crate::files_command::Request;
        let request = |argv: &[String]| USAGE.request(argv);
        assert_eq!(
            request(&args(&["a.json", "--output", "m.json", "b.json"])),
            Ok(Request {
                files: args(&["a.json", "b.json"]),
                output: Some("m.json".into()),
                repeats: 1,
            })
        );
        assert_eq!(
            request(&args(&["--output=m.json", "a.json"])).map(|r| r.output),
            Ok(Some("m.json".into()))
        );
        assert!(request(&args(&[])).is_err());
        assert!(request(&args(&["a.json", "--output"])).is_err());
        assert!(request(&args(&["--bogus", "a.json"])).is_err());
    }
}
