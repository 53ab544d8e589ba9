//! Log files beside fio 3.33's (names, entry counts, line shapes), the
//! exactness of the reported percentiles against ferrio's own per-I/O
//! log, and fio's own tools reading what ferrio writes.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{Outcome, Run};
use serde_json::Value;

/// Each log file of a folder with (lines, fields per line).
fn logs(dir: &Path) -> BTreeMap<String, (usize, Vec<usize>)> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".log") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut widths: Vec<usize> = text.lines().map(|l| l.split(", ").count()).collect();
        widths.dedup();
        out.insert(name, (text.lines().count(), widths));
    }
    out
}

#[test]
fn per_io_logs_have_fios_names_counts_and_columns() {
    for extra in [
        "write_lat_log=lg\nwrite_bw_log=lg\nwrite_iops_log=lg",
        "write_lat_log=lg\nlog_offset=1\nlog_prio=1",
        "write_bw_log\nnumjobs=2",
        "write_iops_log=agg\nper_job_logs=0\nnumjobs=2",
        "write_lat_log=lg\ndisable_slat=1\niodepth=4\niodepth_batch=4",
    ] {
        let job = format!("[j]\nioengine=null\nrw=randrw\nbs=4k\nsize=2m\n{extra}\n");
        let (want, _) = Run::fio().job(&job).ok_kept("logs");
        let (got, _) = Run::ferrio().job(&job).ok_kept("logs");
        assert_eq!(logs(&got.0), logs(&want.0), "{extra}");
    }
}

#[test]
fn averaged_and_histogram_logs_match_fios_shape() {
    let job = "[av]\nioengine=psync\nfilename=data\nsize=16m\nrw=randrw\nruntime=2\ntime_based\n\
               write_bw_log=av\nwrite_iops_log=av\nwrite_lat_log=av\nlog_avg_msec=500\n\
               write_hist_log=av\nlog_hist_msec=300\nlog_hist_coarseness=2\n";
    let (want, _) = Run::fio().job(job).ok_kept("logs");
    let (got, _) = Run::ferrio().job(job).ok_kept("logs");
    let (want, got) = (logs(&want.0), logs(&got.0));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (name, (lines, widths)) in &want {
        let (got_lines, got_widths) = &got[name];
        assert_eq!(widths, got_widths, "{name}: fields per line");
        // Window edges fall where the clock puts them: allow one entry
        // per direction either way.
        assert!(
            lines.abs_diff(*got_lines) <= 2,
            "{name}: fio {lines} lines, ferrio {got_lines}"
        );
    }
    assert_eq!(got["av_clat_hist.1.log"].1, vec![467]);
}

#[test]
fn unaveraged_logs_make_bw_and_iops_samples_per_io_as_in_fio() {
    let job = "[pi]\nioengine=null\nrw=read\nbs=4k\nsize=1m\nwrite_bw_log=pi\nwrite_iops_log=pi\n";
    let (_, want) = Run::fio()
        .args(["--output-format=json"])
        .job(job)
        .ok_kept("logs");
    let (_, got) = Run::ferrio()
        .args(["--output-format=json"])
        .job(job)
        .ok_kept("logs");
    let read = |o: &Outcome, key: &str| {
        let v: Value = serde_json::from_str(&o.stdout).unwrap();
        v["jobs"][0]["read"][key].clone()
    };
    for key in ["bw_samples", "iops_samples", "iops_min", "iops_max"] {
        assert_eq!(read(&got, key), read(&want, key), "{key}");
    }
    assert_eq!(read(&got, "iops_samples"), 256);
}

/// fio's bucket of a latency, as the output specification gives it.
fn bucket(ns: u64) -> usize {
    let msb = 63 - ns.max(1).leading_zeros() as u64;
    if msb <= 6 {
        return ns as usize;
    }
    let eb = msb - 6;
    (((eb + 1) * 64 + ((ns >> eb) & 63)) as usize).min(1855)
}

/// The value fio reports for a bucket.
fn bucket_value(idx: usize) -> u64 {
    if idx < 128 {
        return idx as u64;
    }
    let eb = (idx / 64 - 1) as u32;
    (1u64 << (eb + 6)) + (((2 * (idx % 64) + 1) as u64) << eb) / 2
}

/// Percentiles of `samples` by the specification's rule: the value of the
/// bucket where the running count first reaches the threshold (computed
/// as fio's x87 code does, see ferrio's percentile module).
fn recompute(samples: &[u64], list: &[f64]) -> Vec<u64> {
    let mut counts = vec![0u64; 1856];
    for &s in samples {
        counts[bucket(s)] += 1;
    }
    let n = samples.len() as u64;
    let mut out = Vec::new();
    let mut cumulative = 0u128;
    let mut wanted = list.iter().peekable();
    for (idx, c) in counts.iter().enumerate() {
        cumulative += *c as u128;
        while let Some(p) = wanted.peek() {
            if cumulative < ferrio::stats::percentile::threshold(**p, n) {
                break;
            }
            out.push(bucket_value(idx));
            wanted.next();
        }
    }
    out
}

#[test]
fn reported_percentiles_equal_those_recomputed_from_the_clat_log() {
    let list = [
        1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9,
        99.95, 99.99,
    ];
    // Sample counts that include the spec's rounding edges (30th of 100,
    // 99.95th of 2000), latencies from a null engine, a queued null
    // engine and real file I/O.
    for (n, setup) in [
        (100, "ioengine=null"),
        (2000, "ioengine=null\niodepth=16\niodepth_batch=16"),
        (4000, "ioengine=null\nrw=randread"),
        (
            2000,
            "ioengine=psync\nfilename=data\nsize=32m\nrw=randread\ndirect=1",
        ),
        (
            6000,
            "ioengine=libaio\nfilename=data\nsize=32m\nrw=randread\niodepth=8\ndirect=1",
        ),
    ] {
        let job = format!("[p]\nsize=64m\nbs=4k\nnumber_ios={n}\nwrite_lat_log=p\n{setup}\n");
        let (dir, out) = Run::ferrio()
            .args(["--output-format=json,terse"])
            .job(&job)
            .ok_kept("logs");
        let log = std::fs::read_to_string(dir.0.join("p_clat.1.log")).unwrap();
        let samples: Vec<u64> = log
            .lines()
            .map(|l| l.split(", ").nth(1).unwrap().parse().unwrap())
            .collect();
        assert_eq!(samples.len(), n, "{setup}: one clat entry per I/O");
        let json_text = &out.stdout[out.stdout.find('{').unwrap()..];
        let doc: Value = serde_json::from_str(json_text).unwrap();
        let pct = doc["jobs"][0]["read"]["clat_ns"]["percentile"]
            .as_object()
            .unwrap();
        let reported: Vec<u64> = pct.values().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(reported, recompute(&samples, &list), "{setup}");
        // Terse shows the same values truncated to microseconds.
        let terse = out.stdout.lines().next().unwrap();
        let fields: Vec<&str> = terse.split(';').collect();
        let terse_values: Vec<u64> = fields[17..34]
            .iter()
            .map(|f| f.split('=').nth(1).unwrap().parse().unwrap())
            .collect();
        let truncated: Vec<u64> = reported.iter().map(|v| v / 1000).collect();
        assert_eq!(terse_values, truncated, "{setup}: terse");
    }
}

#[test]
fn fio_tools_read_ferrio_outputs() {
    let job = "[tool]\nioengine=psync\nfilename=data\nsize=8m\nrw=randrw\nruntime=1\ntime_based\n\
               write_bw_log=tool\nwrite_iops_log=tool\nwrite_lat_log=tool\nlog_avg_msec=100\n";
    let (dir, out) = Run::ferrio()
        .args(["--output-format=json+", "--output=out.json"])
        .job(job)
        .ok_kept("logs");
    assert_eq!(out.stdout, "", "the report went to --output");
    // fio_jsonplus_clat2csv: json+ bins to CSV, one file per job and
    // direction.
    let csv = Run::tool("fio_jsonplus_clat2csv")
        .args(["out.json", "clat.csv"])
        .in_dir(&dir.0)
        .out();
    assert_eq!(csv.code, 0, "{}{}", csv.stdout, csv.stderr);
    let made: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("clat") && n.ends_with(".csv"))
        .collect();
    assert!(!made.is_empty(), "no CSV from fio_jsonplus_clat2csv");
    let first = std::fs::read_to_string(dir.0.join(&made[0])).unwrap();
    assert!(first.lines().count() > 2, "{first}");
    // fio2gnuplot: reads the bw and iops logs (its default patterns miss
    // per-job names, so they are given).
    for pattern in ["tool_bw.1.log", "tool_iops.1.log"] {
        let plot = Run::tool("fio2gnuplot")
            .args(["-p", pattern, "-g", "-t", "ferrio"])
            .in_dir(&dir.0)
            .out();
        assert_eq!(plot.code, 0, "{pattern}: {}{}", plot.stdout, plot.stderr);
        assert!(!plot.stdout.contains("Traceback"), "{}", plot.stdout);
    }
    // fio_generate_plots: gnuplot on the lat, clat, slat, bw and iops
    // logs, an SVG per kind.
    // (gnuplot comes from Debian's gnuplot-nox, which scripts/test installs.)
    let plots = Run::tool("fio_generate_plots")
        .args(["ferrio"])
        .in_dir(&dir.0)
        .out();
    assert_eq!(plots.code, 0, "{}{}", plots.stdout, plots.stderr);
    let svgs = std::fs::read_dir(&dir.0)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "svg")
        })
        .count();
    assert!(
        svgs >= 3,
        "{svgs} plots; is gnuplot installed? {}",
        plots.stderr
    );
}

#[test]
fn bandwidth_log_writes_fios_aggregate_files() {
    let job = "[ag]\nioengine=psync\nfilename=data\nsize=16m\nrw=randrw\nruntime=2\ntime_based\n";
    for (args, filled) in [
        (&["--bandwidth-log", "--eta=always"][..], true),
        (&["--bandwidth-log"][..], false),
    ] {
        let (want, _) = Run::fio().args(args).job(job).ok_kept("logs");
        let (got, _) = Run::ferrio().args(args).job(job).ok_kept("logs");
        let (want, got) = (logs(&want.0), logs(&got.0));
        let names: Vec<&String> = want.keys().filter(|n| n.starts_with("agg-")).collect();
        assert_eq!(names.len(), 3, "{want:?}");
        for name in names {
            let (w, g) = (&want[name], &got[name]);
            assert!(
                w.0.abs_diff(g.0) <= 1,
                "{args:?} {name}: fio {w:?}, ferrio {g:?}"
            );
            assert_eq!(w.0 > 0, filled, "{args:?} {name}");
            assert_eq!(w.1, g.1, "{name}: fields per line");
        }
    }
}
