//! Report values, not only shapes: each job file runs with
//! `--output-format=json+,terse,normal`, and the checker of
//! `common::report_rules` (fio's rules written from its documentation and
//! the output specification) judges every number of the normal report and
//! the terse line against the JSON document of the same run, the JSON
//! against itself, and every percentile against fio's selection rule on
//! the json+ bins. The rules are proven on fio's own output first; then
//! the same code judges ferrio's, and what does not depend on timing is
//! compared between the tools exactly.

mod common;

use common::report_rules::percentile::{bucket_middle, bucket_of, rank_threshold};
use common::report_rules::text::{Unit, num2str};
use common::report_rules::{self, Parts, Verdict, fixed};
use common::{Run, Scratch, ferrio, fio, parallel};
use serde_json::Value;

/// Jobs beyond compat-tests/reports/: more engines, mixes and units.
const EXTRA: &[(&str, &str)] = &[
    (
        "libaio-lat-percentiles",
        "[a]\nioengine=libaio\nfilename=data\nsize=16m\nrw=randrw\nbs=4k\niodepth=8\ndirect=1\nlat_percentiles=1\nslat_percentiles=1\nruntime=1\ntime_based\n",
    ),
    (
        "psync-kb-base-1000",
        "[k]\nioengine=psync\nkb_base=1000\nfilename=data\nsize=16m\nrw=randread\nbs=4k\nruntime=1200ms\ntime_based\n",
    ),
    (
        "psync-unit-base-bits",
        "[b]\nioengine=psync\nunit_base=1\nfilename=data\nsize=16m\nrw=write\nbs=64k\nruntime=1200ms\ntime_based\n",
    ),
    (
        "psync-thinktime-sig2",
        "[t]\nioengine=psync\nfilename=data\nsize=16m\nrw=randread\nthinktime=200\nsignificant_figures=2\nruntime=1200ms\ntime_based\n",
    ),
    // Few I/Os, most of them below 128 ns where the bins are exact: the
    // mean and the (n-1) deviation are pinned by the bins.
    ("null-16-ios", "[n]\nioengine=null\nsize=64k\nrw=read\n"),
    (
        "groups-reporting",
        "[global]\nioengine=null\nsize=8m\ngroup_reporting\n[g1]\nrw=read\nnumjobs=2\n[g2]\nstonewall\nrw=randwrite\nbs=16k\nnumjobs=2\n",
    ),
];

fn report_files() -> Vec<(String, String)> {
    let mut jobs: Vec<(String, String)> = fixed::report_files()
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(p).unwrap(),
            )
        })
        .collect();
    jobs.extend(EXTRA.iter().map(|(n, t)| (n.to_string(), t.to_string())));
    jobs
}

/// Runs a job with a tool in a fresh folder; its output split.
fn run(tool: &str, job: &str) -> Parts {
    let scratch = Scratch::new("values");
    scratch.write("job.fio", job);
    let out = Run::tool(tool)
        .args(["--output-format=json+,terse,normal", "job.fio"])
        .in_dir(&scratch.0)
        .out();
    assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
    report_rules::split(&out.stdout).unwrap_or_else(|e| panic!("{tool}: {e}\n{}", out.stdout))
}

fn ferrio_line(l: &str) -> bool {
    l.trim_start().starts_with("ferrio ")
}

fn no_own_lines(_: &str) -> bool {
    false
}

fn summary(tool: &str, verdicts: &[(String, Verdict)]) -> String {
    let sum = |f: fn(&Verdict) -> usize| verdicts.iter().map(|(_, v)| f(v)).sum::<usize>();
    format!(
        "{tool}: {} documents, numbers checked: normal {}, terse {}, JSON {}, percentiles {}",
        verdicts.len(),
        sum(|v| v.normal_numbers),
        sum(|v| v.terse_numbers),
        sum(|v| v.json_numbers),
        sum(|v| v.percentiles)
    )
}

fn failures(verdicts: &[(String, Verdict)]) -> Vec<String> {
    verdicts
        .iter()
        .filter(|(_, v)| !v.problems.is_empty())
        .map(|(n, v)| format!("{n}:\n  {}", v.problems.join("\n  ")))
        .collect()
}

#[test]
fn fio_output_follows_the_report_rules() {
    let jobs = report_files();
    let verdicts: Vec<(String, Verdict)> = parallel(&jobs, |(name, text)| {
        (
            name.clone(),
            report_rules::check(&run(fio(), text), no_own_lines),
        )
    });
    println!("{}", summary("fio", &verdicts));
    let bad = failures(&verdicts);
    assert!(
        bad.is_empty(),
        "the rules fail on fio's own output:\n{}",
        bad.join("\n")
    );
    assert!(
        verdicts
            .iter()
            .all(|(_, v)| v.normal_numbers > 0 && v.terse_numbers > 0)
    );
}

/// What does not depend on timing in a run: job structure, options,
/// counts of size-based jobs, depth maps of the null engine.
fn deterministic(parts: &Parts, size_based: bool, null_engine: bool) -> Vec<String> {
    let mut out: Vec<String> = parts.headers.clone();
    out.push(format!("terse lines {}", parts.terse.len()));
    for l in &parts.terse {
        out.push(format!("terse fields {}", l.split(';').count()));
    }
    for l in parts.normal.iter().filter(|l| l.contains("(groupid=")) {
        let jobs = l.split("jobs=").nth(1).and_then(|r| r.split(')').next());
        out.push(format!("normal header jobs={jobs:?}"));
    }
    out.extend(fixed::fixed_json_values(
        &parts.json,
        size_based,
        null_engine,
    ));
    out
}

#[test]
fn ferrio_output_follows_the_report_rules_and_fios_fixed_values() {
    let jobs = report_files();
    let results = parallel(&jobs, |(name, text)| {
        let want = run(fio(), text);
        let got = run(ferrio(), text);
        let (size_based, null_engine) = fixed::kinds(text);
        let mut verdict = report_rules::check(&got, ferrio_line);
        let (w, g) = (
            deterministic(&want, size_based, null_engine),
            deterministic(&got, size_based, null_engine),
        );
        verdict.problems.extend(fixed::differences(&w, &g));
        (name.clone(), verdict)
    });
    println!("{}", summary("ferrio", &results));
    let bad = failures(&results);
    assert!(
        bad.is_empty(),
        "{} of {} jobs:\n{}",
        bad.len(),
        results.len(),
        bad.join("\n")
    );
}

/// Latency shapes for the percentile rule: engines, pacing, lists, and
/// the three latency kinds.
const SHAPES: &[&str] = &[
    "[n]\nioengine=null\nsize=64m\nrw=randread\n",
    "[n8]\nioengine=null\nsize=64m\niodepth=8\nlat_percentiles=1\nslat_percentiles=1\n",
    "[p]\nioengine=psync\nfilename=data\nsize=16m\nrw=randrw\nruntime=1\ntime_based\n",
    "[a]\nioengine=libaio\nfilename=data\nsize=16m\nrw=randread\niodepth=16\ndirect=1\nlat_percentiles=1\nslat_percentiles=1\nruntime=1\ntime_based\n",
    "[r]\nioengine=psync\nfilename=data\nsize=16m\nrw=randread\nrate_iops=300\nruntime=1\ntime_based\n",
    "[t]\nioengine=psync\nfilename=data\nsize=16m\nrw=randwrite\nthinktime=100\nruntime=1\ntime_based\n",
    "[l]\nioengine=null\nsize=32m\npercentile_list=0.1:25:50:75:99.5:99.95:99.995:100\n",
    "[l2]\nioengine=psync\nfilename=data\nsize=8m\npercentile_list=10:20:33.3:66.6:90:99:99.99:100\nlat_percentiles=1\nclat_percentiles=0\n",
    "[s]\nioengine=psync\nfilename=data\nsize=2m\nrw=randwrite\nfsync=4\n",
    "[q]\nioengine=null\nsize=128k\niodepth=4\nslat_percentiles=1\nlat_percentiles=1\n",
    "[rn]\nioengine=null\nsize=16m\nrate_iops=20000\niodepth=2\nlat_percentiles=1\nslat_percentiles=1\nruntime=500ms\ntime_based\n",
    "[ln]\nioengine=null\nsize=16m\nrw=randrw\npercentile_list=1:2:3:4:5:10:15:20:25:30:40:50:60:70:80:90:95:99:99.9:99.999\n",
    "[tn]\nioengine=null\nsize=4m\nthinktime=50\nthinktime_blocks=8\nlat_percentiles=1\n",
];

#[test]
fn percentile_rule_reproduces_fios_percentile_maps() {
    let docs: Vec<Value> = parallel(SHAPES, |job| {
        let s = Scratch::new("pct");
        s.write("job.fio", job);
        Run::fio()
            .args(["--output-format=json+", "job.fio"])
            .in_dir(&s.0)
            .json()
    });
    let mut v = Verdict::default();
    for doc in &docs {
        for job in doc["jobs"].as_array().unwrap() {
            for dir in ["read", "write", "trim", "sync"] {
                for kind in ["slat_ns", "clat_ns", "lat_ns"] {
                    let l = &job[dir][kind];
                    if l.is_object() {
                        report_rules::json::check_percentiles(&format!("{dir} {kind}"), l, &mut v);
                    }
                }
            }
        }
    }
    println!(
        "{} documents, {} percentiles reproduced",
        docs.len(),
        v.percentiles
    );
    assert!(v.problems.is_empty(), "{}", v.problems.join("\n"));
    assert!(
        v.percentiles >= 200,
        "only {} percentiles compared",
        v.percentiles
    );
}

/// min, max, mean and sample standard deviation of `values`.
fn moments(values: &[u64]) -> (u64, u64, f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().map(|v| *v as f64).sum::<f64>() / n;
    let squares: f64 = values.iter().map(|v| (*v as f64 - mean).powi(2)).sum();
    let dev = if values.len() > 1 {
        (squares / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    let (min, max) = (values.iter().min(), values.iter().max());
    (*min.unwrap(), *max.unwrap(), mean, dev)
}

/// The bandwidth and IOPS statistics are those of the samples the logs
/// hold (with `log_avg_msec` equal to the sampling interval, each log
/// line is one sample of the statistic): min, max, mean and the sample
/// (n-1) standard deviation. Proven on fio's run, then ferrio's.
#[test]
fn bandwidth_and_iops_statistics_are_those_of_the_logged_samples() {
    let job = "[s]\nioengine=null\nrw=randrw\nsize=1g\ntime_based\nruntime=1600ms\n\
               write_bw_log=s\nwrite_iops_log=s\nlog_avg_msec=500\n";
    for tool in [fio(), ferrio()] {
        let scratch = Scratch::new("samples");
        scratch.write("job.fio", job);
        let doc = Run::tool(tool)
            .args(["--output-format=json", "job.fio"])
            .in_dir(&scratch.0)
            .json();
        let read_log =
            |kind: &str| std::fs::read_to_string(scratch.0.join(format!("s_{kind}.1.log")));
        let mut compared = 0;
        for (kind, keys) in [
            (
                "bw",
                ["bw_min", "bw_max", "bw_mean", "bw_dev", "bw_samples"],
            ),
            (
                "iops",
                [
                    "iops_min",
                    "iops_max",
                    "iops_mean",
                    "iops_stddev",
                    "iops_samples",
                ],
            ),
        ] {
            let log = read_log(kind).unwrap_or_else(|e| panic!("{tool}: {kind} log: {e}"));
            for (ddir, dir) in ["read", "write"].iter().enumerate() {
                let samples: Vec<u64> = log
                    .lines()
                    .map(|l| {
                        l.split(", ")
                            .map(|v| v.trim().parse().unwrap())
                            .collect::<Vec<u64>>()
                    })
                    .filter(|f| f[2] == ddir as u64)
                    .map(|f| f[1])
                    .collect();
                let d = &doc["jobs"][0][dir];
                let at = format!("{tool} {dir} {kind}");
                assert!(samples.len() >= 2, "{at}: {} samples logged", samples.len());
                assert_eq!(
                    d[keys[4]].as_u64(),
                    Some(samples.len() as u64),
                    "{at} samples"
                );
                let (min, max, mean, dev) = moments(&samples);
                assert_eq!(d[keys[0]].as_u64(), Some(min), "{at} min");
                assert_eq!(d[keys[1]].as_u64(), Some(max), "{at} max");
                for (key, want) in [(keys[2], mean), (keys[3], dev)] {
                    let got = d[key].as_f64().unwrap();
                    let slack = 1e-6 + want * 1e-12;
                    assert!(
                        (got - want).abs() <= slack,
                        "{at} {key}: {got}, the samples give {want}"
                    );
                }
                compared += 1;
            }
        }
        assert_eq!(compared, 4, "{tool}");
    }
}

#[test]
fn num2str_gives_the_specifications_renderings() {
    let d = |n| num2str(n, 4, false, Unit::None);
    assert_eq!(
        [
            999, 1000, 9999, 10000, 12345, 99949, 99950, 123456, 999499, 999500, 1234567
        ]
        .map(d),
        [
            "999", "1000", "9999", "10.0k", "12.3k", "99.9k", "99.9k", "123k", "999k", "1000k",
            "1235k"
        ]
    );
    let b = |n| num2str(n, 4, true, Unit::Bytes);
    assert_eq!(
        [4096, 16384, 1048576, 10239, 10240, 102399, 1047552].map(b),
        [
            "4096B", "16.0KiB", "1024KiB", "10.00KiB", "10.0KiB", "100.0KiB", "1023KiB"
        ]
    );
    assert_eq!(num2str(38797312, 4, false, Unit::Bytes), "38.8MB");
    assert_eq!(num2str(19392512, 4, true, Unit::BytesPerSec), "18.5MiB/s");
    assert_eq!(
        num2str(16777216000, 4, true, Unit::BytesPerSec),
        "15.6GiB/s"
    );
    assert_eq!(num2str(0, 4, true, Unit::BytesPerSec), "0B/s");
    let six = |n| num2str(n, 6, false, Unit::None);
    assert_eq!(
        [99999, 1000000, 5550712, 123456789].map(six),
        ["99999", "1000.0k", "5550.7k", "123457k"]
    );
    // unified_rw_reporting=both's per-job mixed line: no room, no unit.
    assert_eq!(num2str(8388608, 0, true, Unit::Bytes), "0B");
}

#[test]
fn percentile_threshold_is_fios_extended_precision_product() {
    // p = 30 of 100: the 30th sample (a plain p/100*n would need the 31st).
    assert_eq!(rank_threshold(30.0, 100), 30);
    // p = 99.95 of 2000: above 1999, so the 2000th sample.
    assert_eq!(rank_threshold(99.95, 2000), 2000);
    assert_eq!(rank_threshold(50.0, 0), 0);
    for (ns, idx, value) in [
        (127, 127, 127),
        (128, 128, 129),
        (1000, 317, 1004),
        (47000, 667, 46848),
        (1_000_000, 954, 1003520),
        (100_000_000_000, 1855, 17112760320),
    ] {
        assert_eq!(bucket_of(ns), idx, "{ns}");
        assert_eq!(bucket_middle(idx), value, "{idx}");
    }
}
