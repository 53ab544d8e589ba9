//! For every job file that both accept, ferrio's plan has the same jobs, in
//! the same order, with the same names, group ids and clone counts as the
//! jobs fio 3.33 actually runs. fio's side comes from a dry run on the
//! null engine: the file is copied with the engine switched to `null`,
//! sizes and runtimes made small and side effects (files, logs, hooks)
//! removed — none of which changes names, groups or clones.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{JobFile, Scratch, corpus, ferrio, fio, parallel, run};
use ferrio::options::table::OPTIONS;

/// Option names whose lines are dropped from fio's dry-run copy.
const DROP: &[&str] = &[
    "filename",
    "directory",
    "filename_format",
    "opendir",
    "lockfile",
    "ramp_time",
    "startdelay",
    "write_bw_log",
    "write_lat_log",
    "write_iops_log",
    "write_hist_log",
    "write_iolog",
    "read_iolog",
    "exec_prerun",
    "exec_postrun",
    "group_reporting",
    "rate",
    "rate_iops",
    "rate_min",
    "rate_iops_min",
    "thinktime",
    "thinktime_blocks",
    "thinktime_spin",
    "loops",
    "offset",
    "offset_increment",
    "fileoffset",
    "create_on_open",
    "pre_read",
    "fill_device",
    "fill_fs",
    "cpus_allowed",
    "cpumask",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "prioclass",
    "prio",
    "nice",
    "uid",
    "gid",
    "verify",
    "do_verify",
    "verify_backlog",
    "trim_percentage",
    "ss",
    "steadystate",
    "latency_target",
    "max_latency",
    "flow",
    "flow_id",
    "nrfiles",
    "nr_files",
    "filesize",
    "file_service_type",
    "io_submit_mode",
];

fn key_of(line: &str) -> String {
    let t = line.trim_start();
    t.split('=').next().unwrap_or("").trim().to_string()
}

/// The dry-run copy of one job file's text.
fn rewrite(text: &str) -> String {
    let engine_only: Vec<&str> = OPTIONS
        .iter()
        .filter(|o| !o.engines.is_empty())
        .map(|o| o.name)
        .collect();
    let mut out = String::new();
    for line in text.lines() {
        let key = key_of(line);
        let replaced = match key.as_str() {
            "ioengine" => Some("ioengine=null".to_string()),
            "size" | "io_size" | "io_limit" => Some(format!("{key}=16m")),
            "runtime" | "timeout" => Some("runtime=200ms".to_string()),
            k if DROP.contains(&k)
                || (engine_only.contains(&k) && ferrio::options::find(k).is_none()) =>
            {
                Some(String::new())
            }
            _ => None,
        };
        out.push_str(replaced.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

/// (name, group) of each job fio ran, in report order.
fn fio_jobs(file: &JobFile) -> Result<Vec<(String, u64)>, String> {
    let scratch = Scratch::new("plan");
    for entry in std::fs::read_dir(file.dir())
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let p = entry.path();
        if p.is_file() {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            scratch.write(&p.file_name().unwrap().to_string_lossy(), &rewrite(&text));
        }
    }
    let name = file.name();
    let out = run(
        fio(),
        &[
            "--ioengine=null",
            "--size=16m",
            "--output-format=json",
            "--output=out.json",
            &name,
        ],
        &scratch.0,
        &file.env,
    );
    if out.stderr.contains("No job(s) defined") {
        return Ok(Vec::new());
    }
    let json = std::fs::read_to_string(scratch.0.join("out.json")).unwrap_or_default();
    let start = json.find('{').ok_or_else(|| {
        format!(
            "fio wrote no JSON (exit {}): {}",
            out.code,
            out.stderr.trim()
        )
    })?;
    let doc: serde_json::Value = serde_json::from_str(&json[start..]).map_err(|e| e.to_string())?;
    Ok(doc["jobs"]
        .as_array()
        .ok_or("no jobs array")?
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap_or("").to_string(),
                j["groupid"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect())
}

/// (name, group) of each job in ferrio's plan.
fn ferrio_jobs(file: &JobFile) -> Result<Vec<(String, u64)>, String> {
    let out = run(
        ferrio(),
        &["--explain", "--output-format=json", &file.name()],
        file.dir(),
        &file.env,
    );
    if out.code != 0 {
        return Err(format!("ferrio refused: {}", out.stderr.trim()));
    }
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).map_err(|e| e.to_string())?;
    let mut jobs = Vec::new();
    for g in doc["groups"].as_array().ok_or("no groups")? {
        for j in g["jobs"].as_array().ok_or("no jobs")? {
            jobs.push((
                j["name"].as_str().unwrap_or("").to_string(),
                g["id"].as_u64().unwrap_or(0),
            ));
        }
    }
    Ok(jobs)
}

fn accepted_by_fio(file: &JobFile) -> bool {
    run(
        fio(),
        &["--parse-only", &file.name()],
        file.dir(),
        &file.env,
    )
    .code
        == 0
}

enum Verdict {
    Same(usize),
    Differ(String),
    /// fio itself cannot dry-run this file here (the reason is listed).
    NotComparable(String),
}

fn compare(file: &JobFile) -> Verdict {
    if !accepted_by_fio(file) {
        return Verdict::NotComparable(
            "fio rejects the file (parse verdicts are compared elsewhere)".into(),
        );
    }
    let want = match fio_jobs(file) {
        Ok(w) => w,
        Err(e) => return Verdict::NotComparable(e),
    };
    match ferrio_jobs(file) {
        Ok(got) if got == want => Verdict::Same(got.len()),
        Ok(got) => Verdict::Differ(format!("fio {want:?}\n  ferrio {got:?}")),
        Err(e) => Verdict::Differ(e),
    }
}

#[test]
fn planned_jobs_groups_and_clones_match_fio() {
    let files = corpus();
    let verdicts = parallel(&files, compare);
    let (mut same, mut differ, mut skipped) = (0, 0, 0);
    let mut reasons: HashMap<String, usize> = HashMap::new();
    for (f, v) in files.iter().zip(&verdicts) {
        let shown = f
            .path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")))
            .unwrap_or(&f.path)
            .display();
        match v {
            Verdict::Same(n) => {
                same += 1;
                println!("same    {shown} ({n} jobs)");
            }
            Verdict::Differ(e) => {
                differ += 1;
                println!("DIFFER  {shown}\n  {e}");
            }
            Verdict::NotComparable(why) => {
                skipped += 1;
                *reasons.entry(why.clone()).or_default() += 1;
                println!("n/a     {shown}: {why}");
            }
        }
    }
    println!(
        "plans: {same} same, {differ} differ, {skipped} not comparable, of {}",
        files.len()
    );
    assert_eq!(differ, 0);
    assert!(same > 0);
}
