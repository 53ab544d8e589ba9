//! The series over time of saved results, from the logs their jobs name:
//! `write_bw_log=P` → `P_bw.N.log`, `write_iops_log` → `P_iops.N.log`,
//! `write_lat_log` → `P_clat.N.log`, N the job's place in the run from 1
//! (fio's naming). A log entry is `msec, value, direction, bs, offset`.
//! With `log_avg_msec` each entry is already an interval's mean (KiB/s,
//! IOPS, ns), drawn as it is; otherwise an entry is one I/O, and the
//! series are per second: bytes and I/Os completed (from whichever of the
//! logs is there, as each has a line per I/O), and the p50, p99 and
//! largest completion latency of the I/Os that completed in it.

use std::collections::BTreeMap;
use std::path::Path;

use super::view::{DIRS, Run};

/// One log line: (ms, value, direction, bytes).
type Entry = (u64, f64, usize, f64);

fn parse(path: &Path) -> Result<Option<Vec<Entry>>, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let num = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok());
        match (num(0), num(1), num(2), num(3)) {
            (Some(ms), Some(v), Some(d), Some(bs)) => out.push((ms as u64, v, d as usize, bs)),
            _ => {
                return Err(format!(
                    "{}:{}: expected a fio log line `msec, value, direction, bs, offset`, found `{line}`",
                    path.display(),
                    n + 1
                ));
            }
        }
    }
    Ok(Some(out))
}

/// Adds to each job of `run` what its logs in `folder` hold.
pub fn attach(run: &mut Run, folder: &Path) -> Result<(), String> {
    for (n, job) in run.jobs.iter_mut().enumerate() {
        let opt = |name: &str| {
            job.options
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let averaged = opt("log_avg_msec").is_some_and(|v| v != "0");
        let log = |option: &str, kind: &str| -> Result<Option<Vec<Entry>>, String> {
            match opt(option) {
                Some(prefix) => parse(&folder.join(format!("{prefix}_{kind}.{}.log", n + 1))),
                None => Ok(None),
            }
        };
        let bw = log("write_bw_log", "bw")?;
        let iops = log("write_iops_log", "iops")?;
        let clat = log("write_lat_log", "clat")?;
        for dir in &mut job.dirs {
            let d = DIRS.iter().position(|x| *x == dir.name).unwrap_or(0);
            let of = |entries: &Option<Vec<Entry>>| -> Vec<Entry> {
                entries
                    .iter()
                    .flatten()
                    .filter(|e| e.2 == d)
                    .copied()
                    .collect()
            };
            if averaged {
                let at = |e: &Entry| e.0 as f64 / 1000.0;
                dir.bw_series = of(&bw).iter().map(|e| (at(e), e.1 * 1024.0)).collect();
                dir.iops_series = of(&iops).iter().map(|e| (at(e), e.1)).collect();
                dir.lat_series = of(&clat).iter().map(|e| (at(e), e.1, e.1, e.1)).collect();
            } else {
                // A last second the job did not run to its end would
                // read as a drop: it is left out.
                let whole = (job.runtime_ms + 50) / 1000;
                let per_second = |entries: &[Entry]| -> BTreeMap<u64, Vec<Entry>> {
                    let mut m: BTreeMap<u64, Vec<Entry>> = BTreeMap::new();
                    for e in entries.iter().filter(|e| e.0 / 1000 < whole.max(1)) {
                        m.entry(e.0 / 1000).or_default().push(*e);
                    }
                    m
                };
                let mid = |s: u64| s as f64 + 0.5;
                // Every per-I/O log has a line per I/O with its size: the
                // bytes and I/Os of a second come from whichever is there.
                let any = bw.as_ref().or(iops.as_ref()).or(clat.as_ref()).cloned();
                dir.bw_series = per_second(&of(&any))
                    .iter()
                    .map(|(s, es)| (mid(*s), es.iter().map(|e| e.3).sum()))
                    .collect();
                dir.iops_series = per_second(&of(&any))
                    .iter()
                    .map(|(s, es)| (mid(*s), es.len() as f64))
                    .collect();
                dir.lat_series = per_second(&of(&clat))
                    .iter()
                    .map(|(s, es)| {
                        let mut v: Vec<f64> = es.iter().map(|e| e.1).collect();
                        v.sort_by(f64::total_cmp);
                        let q = |p: f64| {
                            v[((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1]
                        };
                        (mid(*s), q(0.5), q(0.99), v[v.len() - 1])
                    })
                    .collect();
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_log_line_names_file_and_line() {
        let dir = std::env::temp_dir().join(format!("ferrio-logs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x_bw.1.log");
        std::fs::write(&path, "0, 5, 0, 4096, 0\nnonsense\n").unwrap();
        let e = parse(&path).unwrap_err();
        assert!(e.ends_with("x_bw.1.log:2: expected a fio log line `msec, value, direction, bs, offset`, found `nonsense`"), "{e}");
        assert_eq!(parse(&dir.join("absent")).unwrap(), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn per_io_logs_become_whole_seconds() {
        use crate::report::html::view::{Dir, Job};
        let dir = std::env::temp_dir().join(format!("ferrio-logs-s-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Two I/Os in second 0, one in second 1, one in the unfinished second 2.
        std::fs::write(
            dir.join("p_clat.1.log"),
            "10, 100, 0, 4096, 0\n900, 300, 0, 4096, 0\n1500, 50, 0, 8192, 0\n2010, 9, 0, 4096, 0\n",
        )
        .unwrap();
        let mut run = Run {
            jobs: vec![Job {
                options: vec![("write_lat_log".into(), "p".into())],
                runtime_ms: 2020,
                dirs: vec![Dir {
                    name: "read",
                    ..Dir::default()
                }],
                ..Job::default()
            }],
            ..Run::default()
        };
        attach(&mut run, &dir).unwrap();
        let d = &run.jobs[0].dirs[0];
        assert_eq!(d.bw_series, [(0.5, 8192.0), (1.5, 8192.0)]);
        assert_eq!(d.iops_series, [(0.5, 2.0), (1.5, 1.0)]);
        assert_eq!(
            d.lat_series,
            [(0.5, 100.0, 300.0, 300.0), (1.5, 50.0, 50.0, 50.0)]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
