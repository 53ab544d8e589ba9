//! fio 3.33's report rules, written in the tests from fio's documentation
//! and the output specification (`../shared/spec/fio-output.md`), never
//! from ferrio's code: how a `json+` document's numbers become the normal
//! report's and the terse line's text, how they hang together (bandwidth
//! from bytes and runtime, ...), and how percentiles are selected from the
//! `json+` bins. The rules are proven on fio's own output before they judge
//! ferrio's (compat-tests/report_values_vs_fio.rs).
//!
//! The checker takes one run's `--output-format=json+,terse,normal` stdout
//! (fio prints the terse lines, then the JSON document, then the normal
//! report), renders the text the JSON implies, and compares: every number
//! must be the one fio's formatting gives. Where the JSON only holds a
//! value to six decimals (`%f`) and the text rounds it again, every text
//! the true value could give is accepted, and nothing else.

pub mod fixed;
pub mod json;
pub mod normal;
pub mod percentile;
pub mod terse;
pub mod text;

use serde_json::Value;

use json::check_json;
use normal::expected_normal;
use percentile::percentile_map;
use terse::expected_terse;
use text::{Expect, Unit};

// ---------------------------------------------------------------------
// One run's output, split as fio prints it.

/// One run's stdout split into its parts: the lines before the report
/// (job lines, version, `Starting`), the terse lines, the JSON document
/// and the normal report's lines (after the JSON).
#[derive(Debug)]
pub struct Parts {
    pub headers: Vec<String>,
    pub terse: Vec<String>,
    pub json: Value,
    pub normal: Vec<String>,
}

pub fn split(stdout: &str) -> Result<Parts, String> {
    let lines: Vec<&str> = stdout.split('\n').collect();
    let terse_at = lines
        .iter()
        .position(|l| l.starts_with("3;fio-3.33;"))
        .ok_or("no terse line")?;
    let json_at = lines
        .iter()
        .position(|l| *l == "{")
        .ok_or("no JSON document")?;
    let json_end = json_at
        + lines[json_at..]
            .iter()
            .position(|l| *l == "}")
            .ok_or("JSON document not closed")?;
    let json = serde_json::from_str(&lines[json_at..=json_end].join("\n"))
        .map_err(|e| format!("JSON: {e}"))?;
    let owned = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    Ok(Parts {
        headers: owned(&lines[..terse_at]),
        terse: owned(&lines[terse_at..json_at]),
        json,
        normal: owned(&lines[json_end + 1..]),
    })
}

// ---------------------------------------------------------------------
// A job's settings that shape its report.

/// The settings that shape a report's text, read from the JSON option
/// maps (a job's own, then the global ones) with fio's defaults.
#[derive(Clone, Debug)]
pub struct Settings {
    pub sig_figs: usize,
    pub binary: bool,
    pub rate_unit: Unit,
    pub list: Vec<f64>,
    pub precision: usize,
    pub lat_percentiles: bool,
    pub clat_percentiles: bool,
    /// unified_rw_reporting: 0 none, 1 mixed, 2 both.
    pub unified: u8,
    pub continue_on_error: bool,
}

pub const DEFAULT_LIST: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

fn option<'a>(doc: &'a Value, job: &'a Value, name: &str) -> Option<&'a str> {
    job["job options"][name]
        .as_str()
        .or_else(|| doc["global options"][name].as_str())
}

impl Settings {
    pub fn of(doc: &Value, job: &Value) -> Settings {
        let opt = |name| option(doc, job, name);
        let on = |name| matches!(opt(name), Some("1" | "true" | "yes" | "on"));
        let bit_engine = matches!(opt("ioengine"), Some("net" | "netsplice"));
        let rate_unit = match opt("unit_base") {
            Some("1") => Unit::BitsPerSec,
            Some("8") => Unit::BytesPerSec,
            _ if bit_engine => Unit::BitsPerSec,
            _ => Unit::BytesPerSec,
        };
        let (list, precision) = match opt("percentile_list") {
            Some(text) => {
                let entries: Vec<&str> = text.split(':').take(20).collect();
                let mut list: Vec<f64> = entries.iter().map(|e| e.parse().unwrap()).collect();
                list.sort_by(|a, b| a.partial_cmp(b).unwrap());
                let precision = entries
                    .iter()
                    .map(|e| e.split_once('.').map_or(0, |(_, f)| f.len()))
                    .max()
                    .unwrap_or(0);
                (list, precision)
            }
            None => (DEFAULT_LIST.to_vec(), 2),
        };
        let unified = match opt("unified_rw_reporting") {
            Some("1" | "mixed") => 1,
            Some("2" | "both") => 2,
            _ => 0,
        };
        Settings {
            sig_figs: opt("significant_figures").map_or(4, |s| s.parse().unwrap()),
            binary: opt("kb_base") != Some("1000"),
            rate_unit,
            list,
            precision,
            lat_percentiles: on("lat_percentiles"),
            clat_percentiles: opt("clat_percentiles") != Some("0") && !on("gtod_reduce"),
            unified,
            continue_on_error: opt("continue_on_error").is_some_and(|v| v != "none" && v != "0"),
        }
    }
}

// ---------------------------------------------------------------------
// Group aggregates (the Run status lines), computed from the jobs.

/// One direction of a `Run status group`: what fio aggregates over the
/// group's reported jobs that ran in that direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct Aggregate {
    pub min_run: u64,
    pub max_run: u64,
    pub min_bw: u64,
    pub max_bw: u64,
    pub io: u64,
    /// Σ io × 1000 / the longest runtime (B/s).
    pub agg: u64,
}

/// The directions a job object reports: read, write, trim, or the one
/// mixed direction under unified_rw_reporting=mixed.
pub fn directions(job: &Value) -> Vec<&'static str> {
    if job.get("read").is_none() && job.get("mixed").is_some() {
        vec!["mixed"]
    } else {
        vec!["read", "write", "trim"]
    }
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned integer: {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The aggregates of group `g`, per direction index (0 read or mixed, 1
/// write, 2 trim).
pub fn group_aggregates(doc: &Value, g: u64) -> [Aggregate; 3] {
    let mut out = [Aggregate::default(); 3];
    for job in doc["jobs"].as_array().unwrap() {
        if u(&job["groupid"]) != g {
            continue;
        }
        for (i, dir) in directions(job).iter().enumerate() {
            let (runtime, io) = (u(&job[dir]["runtime"]), u(&job[dir]["io_bytes"]));
            if runtime == 0 {
                continue;
            }
            let a = &mut out[i];
            let bw = io * 1000 / runtime;
            if a.max_run == 0 {
                a.min_run = runtime;
                a.min_bw = bw;
            }
            a.min_run = a.min_run.min(runtime);
            a.max_run = a.max_run.max(runtime);
            a.min_bw = a.min_bw.min(bw);
            a.max_bw = a.max_bw.max(bw);
            a.io += io;
        }
    }
    for a in &mut out {
        a.agg = (a.io * 1000).checked_div(a.max_run).unwrap_or(0);
    }
    out
}

// ---------------------------------------------------------------------
// The checks.

/// What checking one run's output found.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Numbers compared: in the normal text, the terse lines, and values
    /// of the JSON checked against other values of it.
    pub normal_numbers: usize,
    pub terse_numbers: usize,
    pub json_numbers: usize,
    /// Percentiles recomputed from bins.
    pub percentiles: usize,
    pub problems: Vec<String>,
}

impl Verdict {
    fn expect_eq<T: PartialEq + std::fmt::Debug>(&mut self, what: &str, got: T, want: T) {
        self.json_numbers += 1;
        if got != want {
            self.problems
                .push(format!("JSON {what}: {got:?}, the rule gives {want:?}"));
        }
    }
}

/// Checks one run's `json+,terse,normal` output: the JSON against itself
/// and fio's percentile rule, the normal report and the terse lines
/// against the JSON. `own_lines` are left out of the normal report first
/// (ferrio's `ferrio ...` lines, which fio does not print).
pub fn check(parts: &Parts, own_lines: fn(&str) -> bool) -> Verdict {
    let mut v = Verdict::default();
    check_json(&parts.json, &mut v);
    let mut normal: Vec<&String> = parts.normal.iter().filter(|l| !own_lines(l)).collect();
    // The report ends with a newline.
    if normal.last().is_some_and(|l| l.is_empty()) {
        normal.pop();
    }
    let want = expected_normal(&parts.json);
    compare_lines("normal", &want, &normal, &mut v, true);
    let want = expected_terse(&parts.json);
    if want.len() != parts.terse.len() {
        v.problems.push(format!(
            "terse: {} lines, the JSON has {} jobs",
            parts.terse.len(),
            want.len()
        ));
    }
    for (i, (fields, line)) in want.iter().zip(&parts.terse).enumerate() {
        let got: Vec<&str> = line.split(';').collect();
        if got.len() != fields.len() {
            v.problems.push(format!(
                "terse line {i}: {} fields, expected {}",
                got.len(),
                fields.len()
            ));
            continue;
        }
        for (n, (e, g)) in fields.iter().zip(&got).enumerate() {
            v.terse_numbers += e.numbers();
            if !e.matches(g) {
                v.problems.push(format!(
                    "terse line {i} field {}: {g:?}, expected {e}",
                    n + 1
                ));
            }
        }
    }
    v
}

fn compare_lines(what: &str, want: &[Expect], got: &[&String], v: &mut Verdict, normal: bool) {
    for (i, e) in want.iter().enumerate() {
        let Some(g) = got.get(i) else {
            v.problems
                .push(format!("{what} line {i}: missing, expected {e}"));
            return;
        };
        if normal {
            v.normal_numbers += e.numbers();
        }
        if !e.matches(g) {
            v.problems.push(format!(
                "{what} line {i}: {g:?}\n   expected {e:?}\n   i.e. {e}"
            ));
            return;
        }
    }
    if got.len() > want.len() {
        v.problems.push(format!(
            "{what}: {} lines more than expected, from {:?}",
            got.len() - want.len(),
            got[want.len()]
        ));
    }
}
