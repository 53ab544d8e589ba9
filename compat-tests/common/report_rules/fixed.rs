//! What a report holds that does not depend on timing, for comparing fio's
//! and ferrio's documents exactly; and the job files both report tests run.

use std::path::PathBuf;

use serde_json::Value;

/// The job files of compat-tests/reports/, sorted by name.
pub fn report_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("compat-tests/reports");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.sort();
    files
}

/// Whether a job's I/O counts are fixed: size-based, and neither a mix
/// that fio's random generator splits nor block sizes it draws.
pub fn size_based(job: &str) -> bool {
    ["time_based", "randrw", "bsrange"]
        .iter()
        .all(|w| !job.contains(w))
}

/// What a job file's text says of its report's fixed values: whether
/// its I/O counts are fixed ([`size_based`]) and whether it runs on the
/// null engine (whose depth maps are fixed).
pub fn kinds(job: &str) -> (bool, bool) {
    (size_based(job), job.contains("ioengine=null"))
}

/// Where two lists of fixed values (fio's, ferrio's) differ: a count
/// that differs, then every pair that does.
pub fn differences(want: &[String], got: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if want.len() != got.len() {
        out.push(format!(
            "fixed values: fio has {}, ferrio {}",
            want.len(),
            got.len()
        ));
    }
    for (a, b) in want.iter().zip(got) {
        if a != b {
            out.push(format!("fixed value: fio {a}, ferrio {b}"));
        }
    }
    out
}

/// The JSON document's values that do not depend on timing: version,
/// options, job structure, percentile keys; the I/O counts of size-based
/// jobs and the depth maps of null-engine jobs.
pub fn fixed_json_values(doc: &Value, size_based: bool, null_engine: bool) -> Vec<String> {
    let mut out = vec![
        format!("fio version {}", doc["fio version"]),
        format!("global {}", doc["global options"]),
    ];
    for job in doc["jobs"].as_array().unwrap() {
        for key in [
            "jobname",
            "groupid",
            "error",
            "job options",
            "desc",
            "latency_depth",
            "latency_target",
            "latency_window",
            "latency_percentile",
        ] {
            out.push(format!("{key} {}", job[key]));
        }
        if null_engine {
            for key in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
                out.push(format!("{key} {}", job[key]));
            }
        }
        for dir in ["read", "write", "trim", "mixed", "sync"] {
            let d = &job[dir];
            for lat in ["slat_ns", "clat_ns", "lat_ns"] {
                if let Some(p) = d[lat]["percentile"].as_object() {
                    let keys: Vec<&String> = p.keys().collect();
                    out.push(format!("{dir} {lat} percentiles {keys:?}"));
                }
            }
            if size_based {
                for key in [
                    "total_ios",
                    "io_kbytes",
                    "io_bytes",
                    "short_ios",
                    "drop_ios",
                ] {
                    out.push(format!("{dir} {key} {}", d[key]));
                }
            }
        }
    }
    out
}
