//! The contracts that real consumers of fio's output rely on, checked on
//! ferrio's output beside fio 3.33's for the same command. Each test names
//! the consumer file it read; nothing of the consumers is copied here.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use common::{Run, Scratch, bin_value, ferrio, fio, summed_bins};
use serde_json::Value;

/// Runs a set-up step (an installer, a compiler) with room for a slow
/// download, failing the test with its output if it fails.
fn step(program: &str, args: &[&str], dir: &Path, env: &[(&str, &Path)]) {
    let run = env.iter().fold(Run::tool(program), |run, (k, v)| {
        run.env(*k, v.to_string_lossy())
    });
    let out = run
        .args(args)
        .in_dir(dir)
        .limit(Duration::from_secs(900))
        .out();
    assert_eq!(
        out.code, 0,
        "{program} {args:?}: {}{}",
        out.stdout, out.stderr
    );
}

/// A Python with the consumers' own code: fio-plot from PyPI (version
/// 1.1.21, the one read for these tests), and pandas, which fio's
/// fiologparser_hist.py needs. Made once (about 40 s) in a venv under
/// cargo's temp dir for tests and reused.
fn consumer_python() -> PathBuf {
    static MAKING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = MAKING.lock().unwrap_or_else(|e| e.into_inner());
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("consumers-venv");
    let python = venv.join("bin/python");
    let ready = |python: &Path| {
        Command::new(python)
            .args(["-c", "import fio_plot, pandas"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !ready(&python) {
        let _ = std::fs::remove_dir_all(&venv);
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        step(
            "python3",
            &["-m", "venv", &venv.to_string_lossy()],
            tmp,
            &[],
        );
        step(
            &venv.join("bin/pip").to_string_lossy(),
            &["install", "-q", "fio-plot==1.1.21", "pandas"],
            tmp,
            &[],
        );
    }
    assert!(ready(&python), "fio-plot and pandas in {}", venv.display());
    python
}

/// Runs `python` on `script` with `args` in `dir`; its stdout as JSON.
fn python_json(python: &Path, script: &str, args: &[&str], dir: &Path) -> Value {
    let out = Run::tool(python.to_string_lossy())
        .arg("-c")
        .arg(script)
        .args(args)
        .in_dir(dir)
        .out();
    let stdout = &out.stdout;
    assert_eq!(out.code, 0, "{stdout}{}", out.stderr);
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The JSON type of a value, as a consumer's `isinstance` checks see it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Ceph CBT builds its fio command from options alone (benchmark/
/// librbdfio.py, mkfiocmd: `--rw --output-format --rwmixread/--rwmixwrite
/// --runtime --time_based --numjobs --direct --bs=NB --iodepth --end_fsync
/// --write_iops_log/--write_bw_log/--write_lat_log=output.N --name=...`)
/// and its post-processing (post_processing/formatter/test_run_result.py)
/// reads `global options` iodepth, write_iops_log, bs, rw, numjobs,
/// runtime, rwmixread, rwmixwrite, then per job read/write io_bytes (int),
/// bw_bytes (int), iops (float), total_ios (int), clat_ns mean and stddev.
#[test]
fn cbt_librbdfio_reads_what_it_expects() {
    let args = [
        "--ioengine=null",
        "--rw=randrw",
        "--output-format=json",
        "--rwmixread=70",
        "--rwmixwrite=30",
        "--runtime=1",
        "--time_based",
        "--numjobs=2",
        "--direct=1",
        "--bs=4096B",
        "--iodepth=8",
        "--end_fsync=0",
        "--write_iops_log=output.0",
        "--write_bw_log=output.0",
        "--write_lat_log=output.0",
        "--log_avg_msec=100",
        "--size=64m",
        "--name=cbt-librbdfio-host-0",
    ];
    let mut seen = Vec::new();
    for bin in [fio(), ferrio()] {
        let dir = Scratch::new("cbt");
        let out = Run::tool(bin).args(args).in_dir(&dir.0).out();
        assert_eq!(out.code, 0, "{bin}: {}", out.stderr);
        let doc: Value = serde_json::from_str(&out.stdout).expect("stdout is one JSON document");
        let globals = doc["global options"].clone();
        let mut shapes = Vec::new();
        for job in doc["jobs"].as_array().unwrap() {
            for dir in ["read", "write"] {
                let d = &job[dir];
                for key in ["io_bytes", "bw_bytes", "iops", "total_ios"] {
                    shapes.push(format!("{dir}.{key}:{}", kind(&d[key])));
                }
                for key in ["mean", "stddev"] {
                    shapes.push(format!("{dir}.clat_ns.{key}:{}", kind(&d["clat_ns"][key])));
                }
            }
        }
        let mut logs: Vec<String> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("output.0"))
            .collect();
        logs.sort();
        seen.push((globals, shapes, logs));
    }
    let (fio_seen, ferrio_seen) = (&seen[0], &seen[1]);
    for key in [
        "iodepth",
        "write_iops_log",
        "bs",
        "rw",
        "numjobs",
        "runtime",
        "rwmixread",
        "rwmixwrite",
    ] {
        assert_eq!(
            ferrio_seen.0[key], fio_seen.0[key],
            "global options.{key}: ferrio {} against fio {}",
            ferrio_seen.0, fio_seen.0
        );
    }
    assert_eq!(ferrio_seen.0, fio_seen.0, "the whole global options object");
    assert_eq!(
        ferrio_seen.1, fio_seen.1,
        "per-job keys and their JSON types"
    );
    assert!(ferrio_seen.1.contains(&"read.iops:float".to_string()));
    assert_eq!(ferrio_seen.2, fio_seen.2, "log file names");
}

/// CBT runs `--output-format=json,normal > output.N` in its default
/// configuration (benchmark/librbdfio.py: `fio_out_format` defaults to
/// `json,normal`): fio's job header lines, then the JSON document, then
/// fio's normal report, which a reader splits at the document's braces.
#[test]
fn json_then_normal_framing_is_fio_s() {
    let args = [
        "--ioengine=null",
        "--rw=read",
        "--size=16m",
        "--output-format=json,normal",
        "--name=j",
    ];
    let mut frames = Vec::new();
    for bin in [fio(), ferrio()] {
        let dir = Scratch::new("cbt-frame");
        let out = Run::tool(bin).args(args).in_dir(&dir.0).out();
        assert_eq!(out.code, 0);
        let start = out.stdout.find("\n{\n").expect("a JSON document") + 1;
        let header: Vec<String> = out.stdout[..start].lines().map(str::to_string).collect();
        let mut stream =
            serde_json::Deserializer::from_str(&out.stdout[start..]).into_iter::<Value>();
        let doc = stream.next().expect("a JSON document").unwrap();
        let rest = &out.stdout[start + stream.byte_offset()..];
        let headings: Vec<String> = rest
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.is_empty())
            .map(|l| l.split([':', '(']).next().unwrap_or("").to_string())
            .collect();
        frames.push((header, doc["jobs"][0]["jobname"].clone(), headings));
    }
    assert_eq!(frames[1], frames[0]);
}

/// A job file in the shape of fio-plot's bench-fio templates
/// (bench_fio/templates/fio-job-template-ceph.fio: every setting an
/// environment variable, the three logs named
/// `${OUTPUT}/${MODE}-iodepth-${IODEPTH}-numjobs-${NUMJOBS}`), on the null
/// engine instead of rbd.
const FIO_PLOT_TEMPLATE: &str = "[iotest]
ioengine=null
rw=${MODE}
blocksize=${BLOCK_SIZE}
iodepth=${IODEPTH}
numjobs=${NUMJOBS}
direct=${DIRECT}
group_reporting=1
invalidate=${INVALIDATE}
loops=${LOOPS}
size=${SIZE}
time_based=1
runtime=1
write_bw_log=${OUTPUT}/${MODE}-iodepth-${IODEPTH}-numjobs-${NUMJOBS}
write_lat_log=${OUTPUT}/${MODE}-iodepth-${IODEPTH}-numjobs-${NUMJOBS}
write_iops_log=${OUTPUT}/${MODE}-iodepth-${IODEPTH}-numjobs-${NUMJOBS}
log_avg_msec=${LOGINTERVAL}
";

/// Calls fio-plot's own import path on a directory of results: the JSON
/// (fiolib/jsonimport.py list_json_files and import_json_dataset, then
/// fiolib/jsonparsing.py parse_json_data, which flattens each job with
/// jsonparsing_support.get_json_mapping) and the logs (fiolib/
/// dataimport.py list_fio_log_files, filterLogFiles, readLogDataFromFiles,
/// mergeDataSet, which int()s each value and direction column). Prints
/// what it got: each flat row's value types, the values the graphs use,
/// the log files it picked and the points it merged per log type.
const FIO_PLOT_DRIVER: &str = r#"
import json, os, sys
from fio_plot.fiolib import jsonimport, jsonparsing, dataimport
d = sys.argv[1]
settings = {"input_directory": [d], "rw": "randread", "iodepth": [1], "numjobs": [2],
            "filter": ["read", "write"], "include_hosts": None, "exclude_hosts": None,
            "compare_graph": False, "type": ["bw", "iops", "lat", "clat"],
            "xlabel_segment_size": 1000, "xlabel_parent": 1, "xlabel_depth": 0}
ds = jsonimport.import_json_dataset(settings, jsonimport.list_json_files(settings))
rows = jsonparsing.parse_json_data(settings, ds)[0]["data"]
picked = dataimport.filterLogFiles(settings, dataimport.list_fio_log_files(d))
merged = dataimport.mergeDataSet(settings, dataimport.readLogDataFromFiles(settings, picked))
print(json.dumps({
    "types": [{k: type(v).__name__ for k, v in r.items()} for r in rows],
    "values": [{k: r[k] for k in ("iops", "bw", "lat", "iodepth", "numjobs", "rw", "bs")} for r in rows],
    "logs": sorted(os.path.basename(p["filename"]["filename"]) for p in picked),
    "points": {m["type"]: len(m["data"][0]["read"]) for m in merged},
}))
"#;

/// fio-plot (PyPI `fio-plot`, louwrentius/fio-plot): bench-fio runs
/// `fio --output-format=json --output=FILE JOB` (bench_fio/benchlib/
/// runfio.py run_fio) on a templated job file, treats any stderr as a
/// failure (run_raw_command), and fio-plot then imports the JSON and the
/// bw/iops/lat logs. Its real parser, run on ferrio's results beside
/// fio's, gets the same rows with the same value types, the same log
/// files and, per log type, as many points as the tool's log of that type
/// has lines (how many that is follows the run's length, so the machine's
/// speed: it is not compared between the tools).
/// The line counts of the `<name>_<kind>.<n>.log` files in `dir`.
fn log_lines(dir: &Path, kind: &str) -> Vec<u64> {
    let suffix = format!("_{kind}.");
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(&suffix) && n.ends_with(".log"))
        .map(|n| {
            std::fs::read_to_string(dir.join(n))
                .unwrap()
                .lines()
                .count() as u64
        })
        .collect()
}

#[test]
fn fio_plot_imports_ferrio_results_with_its_own_parser() {
    let python = consumer_python();
    let mut seen = Vec::new();
    for bin in [fio(), ferrio()] {
        let dir = Scratch::new("fio-plot");
        let out_dir = dir.0.join("out");
        std::fs::create_dir(&out_dir).unwrap();
        dir.write("job.fio", FIO_PLOT_TEMPLATE);
        let env: HashMap<String, String> = [
            ("MODE", "randread"),
            ("BLOCK_SIZE", "4k"),
            ("IODEPTH", "1"),
            ("NUMJOBS", "2"),
            ("DIRECT", "0"),
            ("INVALIDATE", "1"),
            ("LOOPS", "1"),
            ("SIZE", "64m"),
            ("OUTPUT", &out_dir.to_string_lossy()),
            ("LOGINTERVAL", "100"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let output = format!("--output={}/randread-1-2.json", out_dir.display());
        let ran = Run::tool(bin)
            .args(["--output-format=json", &output, "job.fio"])
            .in_dir(&dir.0)
            .envs(&env)
            .out();
        assert_eq!(ran.code, 0, "{bin}: {}", ran.stderr);
        assert_eq!(ran.stderr, "", "{bin}: bench-fio fails a run with stderr");
        let got = python_json(
            &python,
            FIO_PLOT_DRIVER,
            &[&out_dir.to_string_lossy()],
            &dir.0,
        );
        let points = got["points"].as_object().unwrap();
        assert_eq!(points.len(), 4, "{bin}: {points:?}");
        for (kind, n) in points {
            let lines = log_lines(&out_dir, kind);
            assert!(
                n.as_u64().is_some_and(|n| n > 0 && lines.contains(&n)),
                "{bin}: {kind}: {n} points, the logs have {lines:?} lines"
            );
        }
        seen.push(got);
    }
    let (want, got) = (&seen[0], &seen[1]);
    println!("fio: {want}\nferrio: {got}");
    assert_eq!(got["types"], want["types"], "flat rows and value types");
    assert_eq!(got["logs"], want["logs"], "log files picked");
    for key in ["iodepth", "numjobs", "rw", "bs"] {
        assert_eq!(got["values"][0][key], want["values"][0][key], "{key}");
    }
    for key in ["iops", "bw", "lat"] {
        assert!(got["values"][0][key].as_f64().unwrap() > 0.0, "{key}");
    }
}

/// Runs a consumer's shell pipeline (grep, cut) on `text` as its stdin.
fn pipeline(script: &str, text: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("sh")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sh");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// dbench's fio.sh, as kubestr ships it (pkg/fio/fio.sh), runs fio with
/// options only and scrapes fio's normal output with grep and cut: IOPS
/// from the `read:`/`write:` line (`IOPS=[0-9k.]+`), bandwidth from the
/// same line (`BW=[0-9GMKiBs/.]+`), mean latency from the ` lat ... avg=`
/// line, sequential bandwidth from the group's `READ:`/`WRITE:` line
/// (`(aggrb|bw)=`). The same pipelines, run on ferrio's output and on
/// fio's for each of its job lines (scaled down), each find exactly one
/// value, with the number-and-unit form fio's has.
#[test]
fn dbench_scraping_finds_each_value_in_ferrio_output() {
    // (options after dbench's common ones, the pipeline applied).
    let common = "--randrepeat=0 --verify=0 --ioengine=libaio --direct=1 --filename=fiotest --size=16M --time_based --ramp_time=200ms --runtime=1s";
    let cases = [
        (
            "--gtod_reduce=1 --name=read_iops --bs=4K --iodepth=64 --readwrite=randread",
            "grep -E 'read ?:'|grep -Eoi 'IOPS=[0-9k.]+'|cut -d'=' -f2",
        ),
        (
            "--gtod_reduce=1 --name=write_iops --bs=4K --iodepth=64 --readwrite=randwrite",
            "grep -E 'write:'|grep -Eoi 'IOPS=[0-9k.]+'|cut -d'=' -f2",
        ),
        (
            "--gtod_reduce=1 --name=read_bw --bs=128K --iodepth=64 --readwrite=randread",
            "grep -E 'read ?:'|grep -Eoi 'BW=[0-9GMKiBs/.]+'|cut -d'=' -f2",
        ),
        (
            "--name=read_latency --bs=4K --iodepth=4 --readwrite=randread",
            "grep ' lat.*avg'|grep -Eoi 'avg=[0-9.]+'|cut -d'=' -f2",
        ),
        (
            "--gtod_reduce=1 --name=write_seq --bs=1M --iodepth=16 --readwrite=write --thread --numjobs=4 --offset_increment=4M",
            "grep -E 'WRITE:'|grep -Eoi '(aggrb|bw)=[0-9GMKiBs/.]+'|cut -d'=' -f2",
        ),
        (
            "--gtod_reduce=1 --name=rw_mix --bs=4k --iodepth=64 --readwrite=randrw --rwmixread=75",
            "grep -E 'write:'|grep -Eoi 'IOPS=[0-9k.]+'|cut -d'=' -f2",
        ),
    ];
    // A number, then at most a unit made of the pattern's letters.
    let form = |v: &str| {
        let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '/');
        let unit = &v[digits.len()..];
        (
            digits.parse::<f64>().is_ok(),
            unit.trim_end_matches(['k', 'K', 'M', 'G']).len(),
        )
    };
    for (options, scrape) in cases {
        let args: Vec<&str> = common.split(' ').chain(options.split(' ')).collect();
        let mut found = Vec::new();
        for bin in [fio(), ferrio()] {
            let dir = Scratch::new("dbench");
            let out = Run::tool(bin).args(&args).in_dir(&dir.0).out();
            assert_eq!(out.code, 0, "{bin} {options}: {}", out.stderr);
            let value = pipeline(scrape, &out.stdout);
            assert_eq!(
                value.lines().count(),
                1,
                "{bin} {options}: {value:?}\n{}",
                out.stdout
            );
            found.push(value);
        }
        println!("{options}: fio {} ferrio {}", found[0], found[1]);
        assert_eq!(form(&found[1]), form(&found[0]), "{options}: {found:?}");
        assert!(form(&found[1]).0, "{options}: {found:?}");
    }
}

/// The Phoronix Test Suite's fio profile (ob-cache/test-profiles/pts/
/// fio-2.1.0/results-definition.xml) takes the word after `bw=` on the
/// line holding `: bw=` (the group line), stripped of `KiB/s` or `MiB/s`,
/// and the word after `IOPS=` on the line holding `IOPS=`, stripped of
/// `,` or `k,`: each must then be a number. A rate-limited job keeps the
/// units fixed, so the same parser applies to both tools' output.
#[test]
fn phoronix_result_parser_reads_ferrio_output() {
    let args = [
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
        "--time_based",
        "--runtime=1",
        "--rate=2m",
        "--name=pts",
    ];
    let after = |text: &str, hint: &str, key: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(hint))
            .filter_map(|l| {
                let at = l.find(key)? + key.len();
                Some(l[at..].split_whitespace().next().unwrap_or("").to_string())
            })
            .collect()
    };
    let numeric = |word: &str, strips: &[&str]| {
        strips
            .iter()
            .find_map(|s| word.strip_suffix(s).and_then(|n| n.parse::<f64>().ok()))
    };
    let mut seen = Vec::new();
    for bin in [fio(), ferrio()] {
        let dir = Scratch::new("pts");
        let out = Run::tool(bin).args(args).in_dir(&dir.0).out();
        assert_eq!(out.code, 0, "{bin}: {}", out.stderr);
        let bw = after(&out.stdout, ": bw=", "bw=");
        let iops = after(&out.stdout, "IOPS=", "IOPS=");
        assert_eq!((bw.len(), iops.len()), (1, 1), "{bin}: {}", out.stdout);
        let bw_value = numeric(&bw[0], &["KiB/s", "MiB/s"]);
        // The profile's IOPS parsers strip "," or "k," from the word.
        let iops_value = numeric(&iops[0], &["k,", ","]);
        println!(
            "{bin}: bw {} -> {bw_value:?}, IOPS {} -> {iops_value:?}",
            bw[0], iops[0]
        );
        assert!(bw_value.is_some_and(|v| v > 0.0), "{bin}: {}", bw[0]);
        assert!(iops_value.is_some_and(|v| v > 0.0), "{bin}: {}", iops[0]);
        seen.push((
            bw[0]
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                .to_string(),
            iops[0]
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                .to_string(),
        ));
    }
    assert_eq!(seen[1], seen[0], "units after the numbers");
}

/// Go types with the field types of kubestr's pkg/fio/fio_types.go
/// (FioResult, FioJobs, FioStats, FioNS, FioDiskUtil; its depth and
/// latency-bucket structs are all float32 fields, written here as maps of
/// float32), decoding stdin with encoding/json as kubestr's fio.go does
/// (json.Unmarshal of fio's whole stdout). A number with a fraction or an
/// exponent in an integer field, or one out of an int32's range, fails
/// the decode, as it would fail kubestr.
const KUBESTR_DECODER: &str = r#"package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

type ns struct {
	Min    int64   `json:"min"`
	Max    int64   `json:"max"`
	Mean   float32 `json:"mean"`
	StdDev float32 `json:"stddev"`
	N      int64   `json:"N"`
}

type stats struct {
	IOBytes     int64   `json:"io_bytes"`
	IOKBytes    int64   `json:"io_kbytes"`
	BWBytes     int64   `json:"bw_bytes"`
	BW          int64   `json:"bw"`
	Iops        float32 `json:"iops"`
	Runtime     int64   `json:"runtime"`
	TotalIos    int64   `json:"total_ios"`
	ShortIos    int64   `json:"short_ios"`
	DropIos     int64   `json:"drop_ios"`
	SlatNs      ns      `json:"slat_ns"`
	ClatNs      ns      `json:"clat_ns"`
	LatNs       ns      `json:"lat_ns"`
	BwMin       int64   `json:"bw_min"`
	BwMax       int64   `json:"bw_max"`
	BwAgg       float32 `json:"bw_agg"`
	BwMean      float32 `json:"bw_mean"`
	BwDev       float32 `json:"bw_dev"`
	BwSamples   int32   `json:"bw_samples"`
	IopsMin     int32   `json:"iops_min"`
	IopsMax     int32   `json:"iops_max"`
	IopsMean    float32 `json:"iops_mean"`
	IopsStdDev  float32 `json:"iops_stddev"`
	IopsSamples int32   `json:"iops_samples"`
}

type job struct {
	JobName           string             `json:"jobname"`
	GroupID           int                `json:"groupid"`
	Error             int                `json:"error"`
	Eta               int                `json:"eta"`
	Elapsed           int                `json:"elapsed"`
	JobOptions        map[string]string  `json:"job options"`
	Read              stats              `json:"read"`
	Write             stats              `json:"write"`
	Trim              stats              `json:"trim"`
	Sync              stats              `json:"sync"`
	JobRuntime        int32              `json:"job_runtime"`
	UsrCpu            float32            `json:"usr_cpu"`
	SysCpu            float32            `json:"sys_cpu"`
	Ctx               int32              `json:"ctx"`
	MajF              int32              `json:"majf"`
	MinF              int32              `json:"minf"`
	IoDepthLevel      map[string]float32 `json:"iodepth_level"`
	IoDepthSubmit     map[string]float32 `json:"iodepth_submit"`
	IoDepthComplete   map[string]float32 `json:"iodepth_complete"`
	LatencyNs         map[string]float32 `json:"latency_ns"`
	LatencyUs         map[string]float32 `json:"latency_us"`
	LatencyMs         map[string]float32 `json:"latency_ms"`
	LatencyDepth      int32              `json:"latency_depth"`
	LatencyTarget     int32              `json:"latency_target"`
	LatencyPercentile float32            `json:"latency_percentile"`
	LatencyWindow     int32              `json:"latency_window"`
}

type diskUtil struct {
	Name        string  `json:"name"`
	ReadIos     int64   `json:"read_ios"`
	WriteIos    int64   `json:"write_ios"`
	ReadMerges  int64   `json:"read_merges"`
	WriteMerges int64   `json:"write_merges"`
	ReadTicks   int64   `json:"read_ticks"`
	WriteTicks  int64   `json:"write_ticks"`
	InQueue     int64   `json:"in_queue"`
	Util        float32 `json:"util"`
}

type result struct {
	FioVersion    string            `json:"fio version"`
	Timestamp     int64             `json:"timestamp"`
	TimestampMS   int64             `json:"timestamp_ms"`
	Time          string            `json:"time"`
	GlobalOptions map[string]string `json:"global options"`
	Jobs          []job             `json:"jobs"`
	DiskUtil      []diskUtil        `json:"disk_util"`
}

func main() {
	data, _ := io.ReadAll(os.Stdin)
	var r result
	if err := json.Unmarshal(data, &r); err != nil {
		fmt.Println("decode error:", err)
		os.Exit(1)
	}
	for _, j := range r.Jobs {
		fmt.Printf("%s read bw=%d iops_min=%d total_ios=%d write bw=%d bw_max=%d total_ios=%d\n",
			j.JobName, j.Read.BW, j.Read.IopsMin, j.Read.TotalIos, j.Write.BW, j.Write.BwMax, j.Write.TotalIos)
	}
}
"#;

/// kubestr (kastenhq/kubestr) runs `fio --directory DIR JOBFILE
/// --output-format=json` (pkg/fio/fio.go), fails on any stderr, and
/// decodes the whole stdout into the structs of pkg/fio/fio_types.go,
/// whose bandwidths, sample counts, iops_min/max and CPU context counts
/// are Go integers. A Go program with those field types (Go from Debian's
/// golang-go, which scripts/test installs) decodes ferrio's document for
/// kubestr's default job file (pkg/fio/fio_jobs.go testJob1, scaled
/// down), as it decodes fio's, and reads the same jobs with non-zero
/// figures.
#[test]
fn kubestr_go_structs_decode_ferrio_json() {
    let build = Scratch::new("kubestr-go");
    build.write("main.go", KUBESTR_DECODER);
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("go-cache");
    let home = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let go = ["/usr/bin/go", "/usr/lib/go/bin/go"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("Go is needed for this test: apt-get install golang-go (scripts/test does)");
    step(
        go,
        &["build", "-o", "decode", "main.go"],
        &build.0,
        &[
            ("GOCACHE", &cache),
            ("HOME", home),
            ("GO111MODULE", Path::new("off")),
        ],
    );
    // The decoder has teeth: a fractional bandwidth does not decode.
    let strict = pipeline(
        &build.0.join("decode").to_string_lossy(),
        r#"{"jobs": [{"jobname": "j", "read": {"bw": 1.5}}]}"#,
    );
    assert!(strict.starts_with("decode error"), "{strict}");
    let job = "[global]\nrandrepeat=0\nverify=0\nioengine=libaio\ndirect=1\ngtod_reduce=1\n\
               [job1]\nname=read_iops\nbs=4K\niodepth=64\nsize=16M\nreadwrite=randread\ntime_based\nramp_time=200ms\nruntime=1s\n\
               [job2]\nname=write_iops\nbs=4K\niodepth=64\nsize=16M\nreadwrite=randwrite\ntime_based\nramp_time=200ms\nruntime=1s\n";
    let mut seen = Vec::new();
    for bin in [fio(), ferrio()] {
        let dir = Scratch::new("kubestr");
        std::fs::create_dir(dir.0.join("volume")).unwrap();
        dir.write("job.fio", job);
        let out = Run::tool(bin)
            .args(["--directory", "volume", "job.fio", "--output-format=json"])
            .in_dir(&dir.0)
            .out();
        assert_eq!(out.code, 0, "{bin}: {}", out.stderr);
        assert_eq!(out.stderr, "", "{bin}: kubestr fails a run with stderr");
        let decoded = pipeline(&build.0.join("decode").to_string_lossy(), &out.stdout);
        println!("{bin}: {decoded}");
        let lines: Vec<Vec<String>> = decoded
            .lines()
            .map(|l| l.split(' ').map(str::to_string).collect())
            .collect();
        assert_eq!(lines.len(), 2, "{bin}: {decoded}");
        seen.push(lines);
    }
    // The same jobs, each with a read or write bandwidth and I/O count.
    for (want, got) in seen[0].iter().zip(&seen[1]) {
        assert_eq!(got[0], want[0]);
        let nonzero =
            |l: &[String]| -> Vec<bool> { l[2..].iter().map(|f| !f.ends_with("=0")).collect() };
        assert_eq!(nonzero(got), nonzero(want), "{got:?} against {want:?}");
    }
}

/// fio's fiologparser_hist.py (shipped by Debian's fio package as
/// /usr/share/doc/fio/fiologparser_hist.py.gz; it needs numpy and pandas,
/// from the consumers' venv) turns `write_hist_log` + `log_hist_msec`
/// histogram logs into latency statistics per interval. Each tool runs
/// the same job: 2048 reads at 1000 IOPS, a histogram every 100 ms, and a
/// pause before the last read so that its completion, over 100 ms after
/// the entry before, writes a last entry holding every read left (a
/// window still open at the end of a job is never written, by either
/// tool). What is compared does not depend on the latencies measured,
/// which follow the machine's load:
/// - the log's bins, summed over its entries, are the `json+` report's
///   bins, count for count, and hold every read;
/// - the parser, over one unweighted interval holding the whole run, finds
///   those 2048 samples, the first and last bins' latencies as min and
///   max, their mean as avg, and each percentile between the latencies of
///   the two occupied bins its rank falls between;
/// - fio's and ferrio's outputs have the same columns and one row each.
#[test]
fn fiologparser_hist_reads_ferrio_histogram_logs() {
    let python = consumer_python();
    let job = "[h]\nioengine=psync\nrw=randread\nbs=4k\nsize=8m\nfilename=data\nrate_iops=1000\n\
               thinktime=250ms\nthinktime_blocks=2047\nwrite_hist_log=h\nlog_hist_msec=100\n";
    let script = Run::tool("gzip")
        .args(["-dc", "/usr/share/doc/fio/fiologparser_hist.py.gz"])
        .ok()
        .stdout;
    let mut seen = Vec::new();
    for bin in [fio(), ferrio()] {
        let dir = Scratch::new("hist-parser");
        let doc = Run::tool(bin)
            .arg("--output-format=json+")
            .job(job)
            .in_dir(&dir.0)
            .json();
        let read = &doc["jobs"][0]["read"];
        assert_eq!(read["total_ios"], 2048, "{bin}");
        let bins = summed_bins(&std::fs::read_to_string(dir.0.join("h_clat_hist.1.log")).unwrap());
        let reported: BTreeMap<u64, u64> = read["clat_ns"]["bins"]
            .as_object()
            .expect("json+ bins")
            .iter()
            .map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap()))
            .collect();
        let logged: BTreeMap<u64, u64> = bins
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| (bin_value(i, 0.5) as u64, *n))
            .collect();
        assert_eq!(logged, reported, "{bin}: log bins against json+ bins");
        dir.write("fiologparser_hist.py", &script);
        let text = Run::tool(python.to_string_lossy())
            .args(["fiologparser_hist.py", "--noweight", "--interval", "60000"])
            .arg("h_clat_hist.1.log")
            .in_dir(&dir.0)
            .ok()
            .stdout;
        println!("{bin}:\n{text}");
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default().to_string();
        let rows: Vec<Vec<f64>> = lines
            .map(|l| l.split(',').map(|v| v.trim().parse().unwrap()).collect())
            .collect();
        assert_eq!(rows.len(), 1, "{bin}: one interval");
        parser_row_matches_bins(&rows[0], &bins, bin);
        seen.push(header);
    }
    assert_eq!(seen[1], seen[0], "columns");
}

/// The latency the parser gives bin `idx`: halfway between the bin's
/// lower end and the next bin's upper end (its reading of fio's bins),
/// which is one bin above the bin's own middle.
fn parser_value(idx: usize) -> f64 {
    (bin_value(idx, 0.0) + bin_value(idx + 1, 1.0)) / 2.0
}

/// One row of the parser's unweighted output (`end-time, samples, min,
/// avg, median, 90%, 95%, 99%, max`) checked against the bins it read.
fn parser_row_matches_bins(row: &[f64], bins: &[u64], bin: &str) {
    let total: u64 = bins.iter().sum();
    let occupied: Vec<usize> = (0..bins.len()).filter(|&i| bins[i] > 0).collect();
    let (first, last) = (occupied[0], *occupied.last().unwrap());
    assert_eq!(row[1], total as f64, "{bin}: samples");
    assert_eq!(row[2], parser_value(first).trunc(), "{bin}: min");
    assert_eq!(row[8], parser_value(last).trunc(), "{bin}: max");
    let mean = occupied
        .iter()
        .map(|&i| parser_value(i) * bins[i] as f64)
        .sum::<f64>()
        / total as f64;
    assert!(
        (row[3] - mean).abs() <= 0.01 + mean * 1e-9,
        "{bin}: avg {} against {mean}",
        row[3]
    );
    // Each occupied bin stands at the rank of its middle sample, in
    // percent; a percentile falls between two such ranks, so its value
    // lies between the latencies of those two bins.
    let mut below = 0;
    let ranks: Vec<(f64, f64)> = occupied
        .iter()
        .map(|&i| {
            let rank = 100.0 * (below as f64 + bins[i] as f64 / 2.0) / total as f64;
            below += bins[i];
            (rank, parser_value(i))
        })
        .collect();
    for (p, got) in [
        (50.0, row[4]),
        (90.0, row[5]),
        (95.0, row[6]),
        (99.0, row[7]),
    ] {
        let low = ranks
            .iter()
            .rev()
            .find(|r| r.0 <= p)
            .map_or(ranks[0].1, |r| r.1);
        let high = ranks
            .iter()
            .find(|r| r.0 >= p)
            .map_or(ranks[ranks.len() - 1].1, |r| r.1);
        assert!(
            (low - 0.01..=high + 0.01).contains(&got),
            "{bin}: {p}% at {got} ns, outside the bins at {low} and {high} ns"
        );
    }
}
