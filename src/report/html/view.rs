//! What the HTML page shows, read from a JSON(+) results document (fio's
//! shape, with ferrio's `ferrio` section when present): the run's jobs,
//! their settings, per direction the summary values and the latency
//! histogram, and whatever series over time the caller adds. Reading the
//! JSON, rather than ferrio's in-memory results, makes the page of a run
//! and the page of its saved results (`ferrio report`) one and the same,
//! and the page's numbers the document's.

use serde_json::Value;

/// The direction names, in fio's order.
pub const DIRS: [&str; 3] = ["read", "write", "trim"];

/// One run: a results document.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// What names it on the page (its file, or "this run").
    pub label: String,
    pub time: String,
    pub jobs: Vec<Job>,
    /// (device, utilisation %).
    pub disks: Vec<(String, f64)>,
    /// Per device, (seconds, percent busy) over the run, from ferrio's
    /// `disk_util_over_time` (fio's JSON has none).
    pub disk_series: Vec<(String, Vec<(f64, f64)>)>,
}

/// A job's options that say what it did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub engine: String,
    pub rw: String,
    pub bs: String,
    pub iodepth: String,
    pub numjobs: String,
    pub size: String,
    pub runtime: String,
}

#[derive(Debug, Clone, Default)]
pub struct Job {
    pub name: String,
    pub group: u64,
    pub members: u64,
    pub settings: Settings,
    /// The job's runtime (fio's job_runtime), ms.
    pub runtime_ms: u64,
    /// The options as the document gives them (global, then the job's).
    pub options: Vec<(String, String)>,
    pub dirs: Vec<Dir>,
    pub depth_requested: f64,
    /// Mean I/Os in flight per second (ferrio's measure), when known.
    pub depth_per_second: Vec<f64>,
}

/// One direction of a job.
#[derive(Debug, Clone, Default)]
pub struct Dir {
    pub name: &'static str,
    pub iops: f64,
    pub bw_bytes: f64,
    /// (percentile, ns), ascending.
    pub percentiles: Vec<(f64, f64)>,
    pub clat_max: f64,
    /// json+'s histogram: (bucket value ns, I/Os), ascending.
    pub bins: Vec<(f64, u64)>,
    /// (seconds, bytes/s) and (seconds, IOPS) samples.
    pub bw_series: Vec<(f64, f64)>,
    pub iops_series: Vec<(f64, f64)>,
    /// (seconds, p50, p99, max) of completion latency, ns, per interval.
    pub lat_series: Vec<(f64, f64, f64, f64)>,
}

impl Dir {
    /// The latency at percentile `p` as the document gives it.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        self.percentiles
            .iter()
            .find(|(q, _)| (q - p).abs() < 1e-9)
            .map(|x| x.1)
    }
}

impl Job {
    pub fn dir(&self, name: &str) -> Option<&Dir> {
        self.dirs.iter().find(|d| d.name == name)
    }

    /// Whether the engine keeps one I/O in flight, so that a queue-depth
    /// chart would be a flat line at 1.
    pub fn synchronous(&self) -> bool {
        const SYNC: [&str; 7] = [
            "sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "null",
        ];
        self.depth_requested <= 1.0 || SYNC.contains(&self.settings.engine.as_str())
    }

    fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn pairs(v: &Value) -> Vec<(String, String)> {
    v.as_object()
        .map(|o| o.iter().map(|(k, v)| (k.clone(), text(v))).collect())
        .unwrap_or_default()
}

/// Reads a results document. `Err` says what is missing.
pub fn read(doc: &Value, label: &str) -> Result<Run, String> {
    let jobs = doc["jobs"]
        .as_array()
        .ok_or("no \"jobs\" array: not a fio/ferrio JSON results document")?;
    let global = pairs(&doc["global options"]);
    let disks = doc["disk_util"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|d| (text(&d["name"]), d["util"].as_f64().unwrap_or(0.0)))
                .collect()
        })
        .unwrap_or_default();
    Ok(Run {
        label: label.to_string(),
        time: text(&doc["time"]),
        jobs: jobs.iter().map(|j| job(j, &global)).collect(),
        disks,
        disk_series: disk_series(&doc["ferrio"]["disk_util_over_time"]),
    })
}

fn disk_series(list: &Value) -> Vec<(String, Vec<(f64, f64)>)> {
    let numbers = |v: &Value| -> Vec<f64> {
        v.as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    list.as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            let at = numbers(&d["ms"]).into_iter().map(|ms| ms / 1000.0);
            (text(&d["name"]), at.zip(numbers(&d["util"])).collect())
        })
        .filter(|(_, points): &(String, Vec<_>)| !points.is_empty())
        .collect()
}

fn job(j: &Value, global: &[(String, String)]) -> Job {
    let mut options = global.to_vec();
    options.extend(pairs(&j["job options"]));
    let ferrio = &j["ferrio"];
    let mut job = Job {
        name: text(&j["jobname"]),
        group: j["groupid"].as_u64().unwrap_or(0),
        members: ferrio["state"]["members"].as_u64().unwrap_or(1),
        runtime_ms: j["job_runtime"].as_u64().unwrap_or(0),
        options,
        depth_requested: j["latency_depth"].as_f64().unwrap_or(1.0),
        depth_per_second: ferrio["iodepth_per_second"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default(),
        ..Job::default()
    };
    let get = |name: &str, default: &str| job.option(name).unwrap_or(default).to_string();
    let runtime = match (job.option("runtime"), job.option("time_based")) {
        (Some(r), Some(_)) => format!("{r} (time_based)"),
        (Some(r), None) => r.to_string(),
        (None, _) => "-".to_string(),
    };
    job.settings = Settings {
        engine: get("ioengine", "psync"),
        rw: get("rw", get("readwrite", "read").as_str()),
        bs: get("bs", get("blocksize", "4k").as_str()),
        iodepth: get("iodepth", "1"),
        numjobs: get("numjobs", "1"),
        size: get("size", "-"),
        runtime,
    };
    job.dirs = DIRS
        .iter()
        .filter(|d| j[**d]["total_ios"].as_u64().unwrap_or(0) > 0)
        .map(|d| dir(d, &j[*d], &ferrio["percentiles"][*d]))
        .collect();
    job
}

fn dir(name: &'static str, d: &Value, fine: &Value) -> Dir {
    // Percentiles as fio prints them: clat's, or total latency's under
    // lat_percentiles; ferrio's high-resolution ones when fio's are off.
    let percentiles = ["clat_ns", "lat_ns"]
        .iter()
        .map(|k| &d[*k]["percentile"])
        .chain([&fine["clat_ns"]["percentile"]])
        .find_map(Value::as_object)
        .map(|o| {
            let mut v: Vec<(f64, f64)> = o
                .iter()
                .filter_map(|(p, ns)| Some((p.parse().ok()?, ns.as_f64()?)))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            v
        })
        .unwrap_or_default();
    let bins = ["clat_ns", "lat_ns"]
        .iter()
        .find_map(|k| d[*k]["bins"].as_object())
        .map(|o| {
            let mut v: Vec<(f64, u64)> = o
                .iter()
                .filter_map(|(ns, c)| Some((ns.parse().ok()?, c.as_u64()?)))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            v
        })
        .unwrap_or_default();
    Dir {
        name,
        iops: d["iops"].as_f64().unwrap_or(0.0),
        bw_bytes: d["bw_bytes"].as_f64().unwrap_or(0.0),
        percentiles,
        clat_max: d["clat_ns"]["max"].as_f64().unwrap_or(0.0),
        bins,
        ..Dir::default()
    }
}

/// The run's groups in order: (group id, its jobs).
pub fn groups(run: &Run) -> Vec<(u64, Vec<&Job>)> {
    let mut out: Vec<(u64, Vec<&Job>)> = Vec::new();
    for j in &run.jobs {
        match out.iter_mut().find(|(g, _)| *g == j.group) {
            Some((_, list)) => list.push(j),
            None => out.push((j.group, vec![j])),
        }
    }
    out
}

/// The value at percentile `p` of a histogram of (value, count) bins.
pub fn bins_percentile(bins: &[(f64, u64)], p: f64) -> f64 {
    let total: u64 = bins.iter().map(|b| b.1).sum();
    let want = (p / 100.0 * total as f64).ceil().max(1.0) as u64;
    let mut seen = 0;
    for (v, c) in bins {
        seen += c;
        if seen >= want {
            return *v;
        }
    }
    bins.last().map_or(0.0, |b| b.0)
}

/// Several histograms summed bucket by bucket.
pub fn merge_bins<'a>(all: impl Iterator<Item = &'a [(f64, u64)]>) -> Vec<(f64, u64)> {
    let mut map: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    for bins in all {
        for (v, c) in bins {
            *map.entry(*v as u64).or_default() += c;
        }
    }
    map.into_iter().map(|(v, c)| (v as f64, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_settings_defaults_and_percentiles() {
        let doc: Value = serde_json::from_str(
            r#"{"time":"t","global options":{"bs":"64k"},"jobs":[{"jobname":"a","groupid":0,
            "job options":{"rw":"randread","iodepth":"8","ioengine":"libaio"},
            "read":{"total_ios":10,"iops":5.5,"bw_bytes":100,
              "clat_ns":{"max":900,"percentile":{"99.000000":800,"50.000000":100},
                "bins":{"100":5,"800":5}}},
            "write":{"total_ios":0},"trim":{"total_ios":0},"latency_depth":8}]}"#,
        )
        .unwrap();
        let run = read(&doc, "x").unwrap();
        let j = &run.jobs[0];
        assert_eq!(j.settings.bs, "64k");
        assert_eq!(j.settings.engine, "libaio");
        assert_eq!(j.settings.numjobs, "1");
        assert!(!j.synchronous());
        let d = j.dir("read").unwrap();
        assert_eq!(d.percentiles, vec![(50.0, 100.0), (99.0, 800.0)]);
        assert_eq!(d.percentile(99.0), Some(800.0));
        assert_eq!(bins_percentile(&d.bins, 50.0), 100.0);
        assert_eq!(bins_percentile(&d.bins, 51.0), 800.0);
        assert!(read(&serde_json::json!({}), "x").is_err());
    }
}
