//! The contracts that real consumers of fio's output rely on, checked on
//! ferrio's output beside fio 3.33's for the same command. Each test names
//! the consumer file it read; nothing of the consumers is copied here.

mod common;

use std::collections::HashMap;

use common::{Scratch, ferrio, fio, run};
use serde_json::Value;

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
        let out = run(bin, &args, &dir.0, &HashMap::new());
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
        let out = run(bin, &args, &dir.0, &HashMap::new());
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
