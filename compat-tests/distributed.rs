//! Distributed runs: several ferrio instances on this machine, ranked by a
//! launcher's environment variables (and through Open MPI's `mpirun` when
//! it is installed), started together with `--start-at`, merged with
//! `ferrio merge`; the merged document has the shape fio 3.33's client
//! mode writes, checked beside fio's own client/server run.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{Run, Scratch, ferrio, fio, free_port};
use ferrio::stats::percentile::threshold;
use serde_json::Value;

/// A size-based job with a fixed seed, writing its own file per rank.
const RANKED_JOB: &str = "[job]
ioengine=psync
rw=randwrite
bs=4k
size=2m
randseed=42
lat_percentiles=1
filename=data.${FERRIO_RANK}
";

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

/// Starts one ferrio per rank at once (as a launcher does), each with its
/// rank in `variable`, and waits for all; returns their JSON documents
/// (json+, unless `extra` names another format).
fn ranked_instances(dir: &Path, variable: &str, ranks: u32, extra: &[&str]) -> Vec<Value> {
    let children: Vec<_> = (0..ranks)
        .map(|rank| {
            let out = format!("--output=rank{rank}.json");
            Command::new(ferrio())
                .args(["--output-format=json+", &out])
                .args(extra)
                .arg("job.fio")
                .current_dir(dir)
                .env(variable, rank.to_string())
                .stdin(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn ferrio")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    (0..ranks)
        .map(|r| json_file(&dir.join(format!("rank{r}.json"))))
        .collect()
}

fn merge(dir: &Path, inputs: &[&str]) -> Value {
    let mut args = vec!["merge"];
    args.extend(inputs);
    args.extend(["--output", "merged.json"]);
    let out = Run::ferrio().args(&args).in_dir(dir).out();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    json_file(&dir.join("merged.json"))
}

/// fio's rule for its percentiles, applied to a histogram given as
/// json+ bins (bucket value -> count): the p-th percentile is the first
/// bucket, in value order, at which the running count reaches the
/// threshold of p over N samples (the threshold in fio's extended
/// precision, shared with the library and tested there beside fio).
fn percentiles_of_bins(bins: &BTreeMap<u64, u64>, list: &[f64]) -> Vec<u64> {
    let n: u64 = bins.values().sum();
    list.iter()
        .map(|p| {
            let mut seen: u128 = 0;
            *bins
                .iter()
                .find(|(_, c)| {
                    seen += u128::from(**c);
                    seen >= threshold(*p, n)
                })
                .expect("the threshold is within the histogram")
                .0
        })
        .collect()
}

fn bins_of(latency: &Value) -> BTreeMap<u64, u64> {
    latency["bins"]
        .as_object()
        .expect("json+ bins")
        .iter()
        .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
        .collect()
}

fn percentile_map(latency: &Value) -> Vec<(f64, u64)> {
    latency["percentile"]
        .as_object()
        .expect("percentiles")
        .iter()
        .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
        .collect()
}

/// The must-show: three ranked instances merged equal, in total_ios and
/// in every clat percentile, one histogram holding all their samples (the
/// sum of their json+ bins, read with fio's percentile rule); total_ios
/// equals one run of the same three jobs under group_reporting, by fio
/// and by ferrio.
#[test]
fn merge_of_ranked_instances_equals_one_histogram_of_all_samples() {
    fio();
    let scratch = Scratch::new("merge3");
    let dir = &scratch.0;
    scratch.write("job.fio", RANKED_JOB);
    let ranks = ranked_instances(dir, "OMPI_COMM_WORLD_RANK", 3, &[]);
    for (rank, doc) in ranks.iter().enumerate() {
        let job = &doc["jobs"][0];
        // ${FERRIO_RANK} named each instance's own file.
        assert_eq!(
            job["job options"]["filename"],
            format!("data.{rank}").as_str()
        );
        assert!(dir.join(format!("data.{rank}")).exists());
        assert_eq!(job["ferrio"]["rank"], rank as u64);
    }
    let merged = merge(dir, &["rank0.json", "rank1.json", "rank2.json"]);
    let clients = merged["client_stats"].as_array().unwrap();
    assert_eq!(clients.len(), 4);
    for (rank, client) in clients[..3].iter().enumerate() {
        assert_eq!(client["port"], rank as u64, "the port carries the rank");
        assert_eq!(
            client["hostname"],
            ranks[rank]["jobs"][0]["ferrio"]["hostname"]
        );
    }
    let all = &clients[3];
    assert_eq!(all["jobname"], "All clients");

    let write = &all["write"];
    let total_ios: u64 = ranks
        .iter()
        .map(|d| d["jobs"][0]["write"]["total_ios"].as_u64().unwrap())
        .sum();
    assert_eq!(write["total_ios"].as_u64(), Some(total_ios));
    assert_eq!(total_ios, 3 * 512);
    let mut compared = 0;
    for kind in ["clat_ns", "lat_ns"] {
        if write[kind].get("percentile").is_none() {
            continue;
        }
        // The reference histogram: every sample of the three instances.
        let mut bins = BTreeMap::new();
        for doc in &ranks {
            let latency = &doc["jobs"][0]["write"][kind];
            let own = bins_of(latency);
            // The rule reproduces each instance's own percentiles.
            let (list, values): (Vec<f64>, Vec<u64>) = percentile_map(latency).into_iter().unzip();
            assert_eq!(percentiles_of_bins(&own, &list), values, "{kind}");
            for (v, c) in own {
                *bins.entry(v).or_insert(0) += c;
            }
        }
        assert_eq!(write[kind]["N"].as_u64(), Some(bins.values().sum()));
        let (list, merged_values): (Vec<f64>, Vec<u64>) =
            percentile_map(&write[kind]).into_iter().unzip();
        assert_eq!(list.len(), 17);
        assert_eq!(merged_values, percentiles_of_bins(&bins, &list), "{kind}");
        let mins = ranks
            .iter()
            .map(|d| d["jobs"][0]["write"][kind]["min"].as_u64().unwrap());
        assert_eq!(write[kind]["min"].as_u64(), mins.min());
        compared += 1;
    }
    println!("compared the percentiles of {compared} latency kinds");
    assert!(compared >= 1, "no percentiles to compare");

    // One run of the same three jobs, reported as a group.
    let group = "[global]\nioengine=psync\nrw=randwrite\nbs=4k\nsize=2m\nrandseed=42\ngroup_reporting\n\
                 [a]\nfilename=g.0\n[b]\nfilename=g.1\n[c]\nfilename=g.2\n";
    scratch.write("group.fio", group);
    for bin in [fio(), ferrio()] {
        let out = Run::tool(bin)
            .args(["--output-format=json", "group.fio"])
            .in_dir(dir)
            .out();
        assert_eq!(out.code, 0, "{bin}: {}", out.stderr);
        let doc: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            doc["jobs"][0]["write"]["total_ios"].as_u64(),
            Some(total_ios),
            "{bin}"
        );
    }
}

/// The members of each object, in order: the shape a consumer walks.
fn keys(v: &Value) -> Vec<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// fio 3.33 in client/server mode on two local servers: the document
/// fio's own multi-client JSON is.
fn fio_client_document(dir: &Path) -> Value {
    let ports = [free_port(false), free_port(false)];
    let mut servers: Vec<_> = ports
        .iter()
        .map(|p| {
            Command::new(fio())
                .arg(format!("--server=ip:127.0.0.1,{p}"))
                .current_dir(dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let mut args = vec!["--output-format=json".to_string()];
    for p in ports {
        args.push(format!("--client=ip:127.0.0.1,{p}"));
        args.push("fio.fio".to_string());
    }
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = Run::fio().args(&arg_refs).in_dir(dir).out();
    for s in &mut servers {
        let _ = s.kill();
        let _ = s.wait();
    }
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The clients' own lines come before the document.
    let start = out.stdout.find("\n{\n").map_or(0, |i| i + 1);
    serde_json::from_str(&out.stdout[start..]).unwrap()
}

/// Every total_ios and every percentile (clat, lat, and ferrio's own) of
/// each client entry, by direction, as (path, value) pairs.
fn counts_and_percentiles(doc: &Value) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    for (n, entry) in doc["client_stats"].as_array().unwrap().iter().enumerate() {
        let name = format!("{n}:{}", entry["jobname"]);
        for dir in ["read", "write", "trim"] {
            let d = &entry[dir];
            found.push((format!("{name}.{dir}.total_ios"), d["total_ios"].clone()));
            for kind in ["slat_ns", "clat_ns", "lat_ns"] {
                if let Some(Value::Object(p)) = d[kind].get("percentile") {
                    for (k, v) in p {
                        found.push((format!("{name}.{dir}.{kind}.{k}"), v.clone()));
                    }
                }
            }
        }
        found.push((
            format!("{name}.ferrio"),
            entry["ferrio"]["percentiles"].clone(),
        ));
    }
    found
}

/// A merged document merges again: merge(merge(a, b), c) has the entries
/// of merge(a, b, c), with the same total_ios and every percentile, the
/// `All clients` of the first merge being left out rather than counted
/// twice.
#[test]
fn merging_merged_results_equals_merging_all_at_once() {
    let scratch = Scratch::new("remerge");
    let dir = &scratch.0;
    scratch.write("job.fio", RANKED_JOB);
    ranked_instances(dir, "OMPI_COMM_WORLD_RANK", 3, &[]);
    let all = merge(dir, &["rank0.json", "rank1.json", "rank2.json"]);
    let first = merge(dir, &["rank0.json", "rank1.json"]);
    std::fs::rename(dir.join("merged.json"), dir.join("ab.json")).unwrap();
    assert_eq!(first["client_stats"].as_array().unwrap().len(), 3);
    let again = merge(dir, &["ab.json", "rank2.json"]);
    let (want, got) = (counts_and_percentiles(&all), counts_and_percentiles(&again));
    assert_eq!(got.len(), want.len());
    assert!(
        want.iter()
            .any(|(k, _)| k.contains("All clients") && k.contains("clat_ns.99"))
    );
    assert_eq!(got, want);
    assert_eq!(
        again["client_stats"], all["client_stats"],
        "every member of every entry"
    );
    // Twice merged: still the same.
    std::fs::rename(dir.join("merged.json"), dir.join("abc.json")).unwrap();
    let thrice = merge(dir, &["abc.json"]);
    assert_eq!(thrice["client_stats"], all["client_stats"]);
}

/// The merged document has the members of fio's client-mode document, in
/// the same order, at the top, in each client's entry and in `All
/// clients` (whose percentiles ferrio adds: fio's has none).
#[test]
fn merged_document_has_fio_client_mode_shape() {
    let scratch = Scratch::new("mergeshape");
    let dir = &scratch.0;
    let job = "[job]\nioengine=null\nrw=randread\nbs=4k\nsize=4m\n";
    scratch.write("fio.fio", job);
    scratch.write("job.fio", job);
    let theirs = fio_client_document(dir);
    ranked_instances(dir, "SLURM_PROCID", 2, &["--output-format=json"]);
    let ours = merge(dir, &["rank0.json", "rank1.json"]);
    assert_eq!(keys(&ours), keys(&theirs));
    let (our_clients, their_clients) = (
        ours["client_stats"].as_array().unwrap(),
        theirs["client_stats"].as_array().unwrap(),
    );
    assert_eq!(our_clients.len(), their_clients.len());
    for (o, t) in our_clients.iter().zip(their_clients) {
        let mut ours = keys(o);
        ours.retain(|k| k != "ferrio");
        assert_eq!(ours, keys(t), "{}", t["jobname"]);
        for dir in ["read", "write", "trim"] {
            let mut clat = keys(&o[dir]["clat_ns"]);
            if t["jobname"] == "All clients" {
                clat.retain(|k| k != "percentile");
            }
            assert_eq!(keys(&o[dir]), keys(&t[dir]));
            assert_eq!(clat, keys(&t[dir]["clat_ns"]));
        }
    }
    assert_eq!(our_clients[2]["read"]["total_ios"], 2048);
    assert_eq!(their_clients[2]["read"]["total_ios"], 2048);
}

/// fio's own JSON lacks the state an exact merge needs: refused, naming
/// the file.
#[test]
fn fio_json_is_refused_by_name() {
    let scratch = Scratch::new("mergefio");
    let dir = &scratch.0;
    let out = Run::fio()
        .args([
            "--name=x",
            "--ioengine=null",
            "--size=1m",
            "--output-format=json",
            "--output=fio.json",
        ])
        .in_dir(dir)
        .out();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = Run::ferrio().args(["merge", "fio.json"]).in_dir(dir).out();
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("ferrio merge: fio.json: cannot merge job x: it has no ferrio.state"),
        "{}",
        out.stderr
    );
    // A job file named `merge` is a job file, as for fio.
    scratch.write("merge", "[m]\nioengine=null\nsize=1m\n");
    let out = Run::ferrio()
        .args(["merge", "--output-format=json"])
        .in_dir(dir)
        .out();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"jobname\" : \"m\""));
}

fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

/// Two instances given the same `--start-at` begin their jobs within a
/// few milliseconds of it (their JSON records when the jobs began).
#[test]
fn start_at_starts_instances_together() {
    let scratch = Scratch::new("startat");
    let dir = &scratch.0;
    scratch.write("job.fio", "[job]\nioengine=null\nsize=1m\n");
    let at = SystemTime::now() + Duration::from_millis(1500);
    let at_secs = format!(
        "{:.3}",
        at.duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
    );
    let at_ms = (at_secs.parse::<f64>().unwrap() * 1000.0).round() as u64;
    let flag = format!("--start-at={at_secs}");
    let docs = ranked_instances(dir, "PMI_RANK", 2, &[&flag]);
    let starts: Vec<u64> = docs
        .iter()
        .map(|d| d["jobs"][0]["ferrio"]["started_ms"].as_u64().unwrap())
        .collect();
    for s in &starts {
        assert!(
            *s >= at_ms && *s <= at_ms + 20,
            "started at {s}, asked for {at_ms}"
        );
    }
    // A past instant starts at once; a bad one is refused.
    let before = unix_ms(SystemTime::now());
    let out = Run::ferrio()
        .args(["--start-at=1", "--output-format=json", "job.fio"])
        .in_dir(dir)
        .out();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let started = doc["jobs"][0]["ferrio"]["started_ms"].as_u64().unwrap();
    assert!(started >= before && started < before + 2000);
    let out = Run::ferrio()
        .args(["--start-at=noon", "job.fio"])
        .in_dir(dir)
        .out();
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("--start-at=noon: expected a Unix time in seconds")
    );
}

/// Answering as fio, `--start-at` is unknown, as it is to fio.
#[test]
fn start_at_is_unknown_to_fio_persona() {
    let scratch = Scratch::new("startatfio");
    let dir = &scratch.0;
    let alias = dir.join("fio");
    std::os::unix::fs::symlink(ferrio(), &alias).unwrap();
    let args = ["--start-at=1", "--name=x", "--ioengine=null", "--size=1m"];
    let theirs = Run::fio().args(args).in_dir(dir).out();
    let ours = Run::tool(alias.to_str().unwrap())
        .args(args)
        .in_dir(dir)
        .out();
    assert_eq!(ours.code, theirs.code);
    assert_eq!(
        ours.stderr.replace(alias.to_str().unwrap(), "fio"),
        theirs.stderr
    );
}

/// Through Open MPI's mpirun on this machine: each rank reads
/// OMPI_COMM_WORLD_RANK, writes its own file and JSON; the merge holds
/// both ranks.
#[test]
fn mpirun_ranks_merge() {
    if !common::need::require("mpirun", common::need::program("mpirun")) {
        return;
    }
    let scratch = Scratch::new("mpirun");
    let dir = &scratch.0;
    scratch.write("job.fio", RANKED_JOB);
    let at = SystemTime::now() + Duration::from_millis(500);
    let script = format!(
        "exec {} --start-at={:.3} --output-format=json --output=rank$OMPI_COMM_WORLD_RANK.json job.fio",
        ferrio(),
        at.duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
    );
    let out = Run::tool("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            "2",
            "sh",
            "-c",
            &script,
        ])
        .in_dir(dir)
        .out();
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let merged = merge(dir, &["rank0.json", "rank1.json"]);
    let clients = merged["client_stats"].as_array().unwrap();
    let ports: Vec<_> = clients
        .iter()
        .map(|c| c["port"].as_u64().unwrap())
        .collect();
    assert_eq!(ports, [0, 1, 1]);
    assert_eq!(clients[2]["write"]["total_ios"], 1024);
    assert!(dir.join("data.0").exists() && dir.join("data.1").exists());
}
