//! `--debug=parse`: fio's trace of reading its job files and options,
//! which fio's own tests and scripts read (every value fio took, as a
//! number). The trace is made apart from the planner, from the files'
//! bytes, in fio's order: each line as read (fio echoes a section's
//! header twice, trimmed and as read), `Parsing section [name]`, `dup
//! options` for each job, then when the section ends each option fio
//! handles, the comma pieces of a per-direction option one by one, with
//! the number read (`ret=0, out=N`) for the numeric types, and under
//! `--parse-only` `free options` for each job and twice at the end.
//!
//! Lines go to stdout with fio's prefix (area, pid). What is not traced
//! (said in the README): the options of an engine (fio traces them when
//! it loads the engine), included files, and under a run, fio's
//! interleaving of the trace with each job's description line.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::jobfile::expand::{Environment, replace_keywords, substitute_env};
use crate::jobfile::line::trim;
use crate::options::def::{Kind, OptDef};
use crate::options::number::{self, SizeValue};
use crate::options::value::parse;
use crate::options::{ParseContext, Value};
use crate::plan::CmdOption;

static ON: AtomicBool = AtomicBool::new(false);

/// Turns the trace on (`--debug=parse`).
pub fn enable() {
    ON.store(true, Ordering::Relaxed);
}

pub fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The trace of reading `files` (unreadable ones are left to the
/// planner's error) and the command line's job options.
pub fn trace(
    files: &[String],
    cmdline: &[CmdOption],
    env: &Environment,
    parse_only: bool,
) -> String {
    let mut t = Trace {
        env,
        out: String::new(),
        prefix: format!("{:<8} {:<5} ", "parse", std::process::id()),
        parse_only,
        kb_base: 1024,
        global_kb_base: 1024,
    };
    for file in files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        t.file(file, &String::from_utf8_lossy(&bytes));
    }
    if !cmdline.is_empty() {
        t.say("dup options\n");
        let opts: Vec<(String, Option<String>)> = cmdline
            .iter()
            .map(|o| (o.name.clone(), o.value.clone()))
            .collect();
        t.options(&opts);
        t.job_done();
    }
    if parse_only {
        t.say("free options\n");
        t.say("free options\n");
    }
    t.out
}

struct Trace<'e> {
    env: &'e Environment,
    out: String,
    prefix: String,
    parse_only: bool,
    /// kb_base as the job being read has it (its global section's,
    /// until it sets its own), which sizes read after it follow.
    kb_base: u64,
    global_kb_base: u64,
}

impl Trace<'_> {
    /// One message as fio prints it: the prefix, then the text as is (a
    /// line read without its newline, at the end of a file, runs on into
    /// the next message, as in fio).
    fn say(&mut self, text: &str) {
        self.out.push_str(&self.prefix);
        self.out.push_str(text);
    }

    /// A job's options are handled: fio frees a job it only parsed.
    fn job_done(&mut self) {
        if self.parse_only {
            self.say("free options\n");
        }
    }

    /// One job file, read as fio's ini reader reads it.
    fn file(&mut self, name: &str, text: &str) {
        self.say(&format!("Parsing ini file {name}\n"));
        let mut lines = text.split_inclusive('\n');
        let mut pending: Option<String> = None;
        loop {
            let raw = match pending.take() {
                Some(p) => p,
                None => match lines.next() {
                    Some(l) => l.to_string(),
                    None => break,
                },
            };
            let trimmed = trim(&raw).map_or("", |t| t.text).to_string();
            self.say(&format!("{trimmed}\n"));
            if trimmed.is_empty() {
                continue;
            }
            // Text outside a section: fio stops there (the planner says
            // why).
            let Some(section) = trimmed
                .strip_prefix('[')
                .filter(|s| !s.is_empty())
                .map(|s| s.strip_suffix(']').unwrap_or(&s[..s.len() - 1]))
            else {
                return;
            };
            let global = section.starts_with("global");
            self.say(&format!("Parsing section [{section}]\n"));
            if !global {
                self.say("dup options\n");
            }
            self.kb_base = self.global_kb_base;
            let mut opts = Vec::new();
            for raw in lines.by_ref() {
                self.say(raw);
                let Some(t) = trim(raw) else { continue };
                if t.text.starts_with('[') {
                    pending = Some(raw.to_string());
                    break;
                }
                if t.text.starts_with("include") {
                    continue;
                }
                // fio handles the text with its variables and keywords
                // put in (the planner says what fails there).
                let text = substitute_env(t.text, self.env);
                let text = replace_keywords(&text, self.env).unwrap_or(text);
                opts.push(split(&text));
            }
            self.options(&opts);
            if global {
                self.global_kb_base = self.kb_base;
            } else {
                self.job_done();
            }
        }
    }

    /// A section's options, in the order fio handles them (higher
    /// priority first, else as written).
    fn options(&mut self, opts: &[(String, Option<String>)]) {
        let mut known: Vec<(&'static OptDef, Option<&str>)> = opts
            .iter()
            .filter_map(|(key, value)| {
                crate::options::find(key.trim_end()).map(|d| (d, value.as_deref()))
            })
            .collect();
        known.sort_by_key(|(d, _)| std::cmp::Reverse(d.prio));
        for (def, value) in known {
            self.option(def, value);
        }
    }

    /// fio's handle_option: the option, then each of its comma pieces
    /// with what was read from it.
    fn option(&mut self, def: &OptDef, value: Option<&str>) {
        let shown = value.unwrap_or("(null)");
        self.say(&format!("handle_option={}, ptr={shown}\n", def.name));
        let list = matches!(def.kind, Kind::FloatList { .. });
        let pieces: Vec<&str> = match value {
            Some(v) if def.per_dir > 1 || list => {
                let sep = if list { ':' } else { ',' };
                let mut p = vec![v];
                p.extend(v.match_indices(sep).map(|(i, _)| &v[i + 1..]));
                if !list {
                    p.truncate(usize::from(def.per_dir));
                }
                p
            }
            Some(v) => vec![v],
            None => vec!["(null)"],
        };
        let ctx = ParseContext {
            kb_base: self.kb_base,
            ncpus: 1,
            dry_run: true,
            previous: [0; 3],
        };
        let read = parse(def, value, &ctx).value;
        if def.name == "kb_base"
            && let Some(b) = read.as_ref().and_then(Value::number).filter(|&b| b != 0)
        {
            self.kb_base = b;
        }
        for (i, piece) in pieces.iter().enumerate() {
            let kind = fio_type(def);
            self.say(&format!(
                "__handle_option={}, type={kind}, ptr={piece}\n",
                def.name
            ));
            for line in read
                .as_ref()
                .map(|v| out_lines(def, v, i))
                .unwrap_or_default()
            {
                self.say(&line);
            }
        }
        if let Some(
            Value::Word {
                word,
                tail: Some(tail),
            }
            | Value::Distribution {
                word,
                tail: Some(tail),
                ..
            },
        ) = &read
        {
            for line in callback_lines(def.name, word, tail, self.kb_base) {
                self.say(&line);
            }
        }
    }
}

/// `key=value` as fio splits it: the key up to the first `=` (its
/// trailing blanks are not part of the name), the value as written after
/// it.
fn split(text: &str) -> (String, Option<String>) {
    match text.split_once('=') {
        Some((k, v)) => (k.trim_end().to_string(), Some(v.to_string())),
        None => (text.to_string(), None),
    }
}

/// The name of fio's type for the option (its FIO_OPT_ kinds).
fn fio_type(def: &OptDef) -> &'static str {
    if def.name == "bssplit" {
        return "OPT_STR_ULL";
    }
    match def.kind {
        Kind::Choice(_) => "OPT_STR",
        Kind::Text(_) => "OPT_STR_STORE",
        Kind::Int => "OPT_INT",
        Kind::Size if def.str_val && ZONED.contains(&def.name) => "OPT_STR_VAL_ZONE",
        Kind::Size if def.str_val => "OPT_STR_VAL",
        Kind::Size => "OPT_ULL",
        Kind::Time => "OPT_STR_VAL_TIME",
        Kind::Bool => "OPT_BOOL",
        Kind::Flag => "OPT_STR_SET",
        Kind::Range => "OPT_RANGE",
        Kind::FloatList { .. } => "OPT_FLOAT_LIST",
        Kind::Deprecated => "OPT_DEPRECATED",
        Kind::SoftDeprecated => "OPT_SOFT_DEPRECATED",
        Kind::Unsupported => "OPT_UNSUPPORTED",
    }
}

/// The sizes fio reads as a share of a zone or file when given in `%`.
const ZONED: [&str; 5] = ["size", "io_size", "offset", "offset_increment", "zoneskip"];

/// The number fio prints for piece `i` of a numeric option, and the line
/// its callback adds for a percentage.
fn out_lines(def: &OptDef, value: &Value, i: usize) -> Vec<String> {
    match (def.kind, value) {
        (Kind::FloatList { .. }, Value::Floats { values, .. }) => values
            .get(i)
            .map(|v| vec![format!("  out={v:.6}\n")])
            .unwrap_or_default(),
        (Kind::Int | Kind::Bool | Kind::Flag, v) => {
            let n = match v {
                Value::Nums(n) => n[i.min(2)],
                other => other.number().unwrap_or(0),
            };
            vec![format!("  ret=0, out={}\n", n as i32)]
        }
        (Kind::Size | Kind::Time, Value::Nums(n)) => {
            vec![format!("  ret=0, out={}\n", n[i.min(2)])]
        }
        (Kind::Size, Value::Percent(p)) => {
            // fio keeps a share as its negative, less one, and its
            // callback says what it set.
            let mut lines = vec![format!("  ret=0, out={}\n", u64::MAX - p)];
            if let Some(what) = percent_name(def.name) {
                lines.push(format!("SET {what} {p}\n"));
            }
            lines
        }
        _ => Vec::new(),
    }
}

/// The name fio's callback gives the share it sets.
fn percent_name(option: &str) -> Option<&'static str> {
    Some(match option {
        "size" => "size_percent",
        "io_size" => "io_size_percent",
        "offset" => "start_offset_percent",
        "offset_increment" => "offset_increment_percent",
        _ => return None,
    })
}

/// What the callbacks of fio's worded options trace: the zones of a
/// zoned random distribution (for each direction), and a steady state's
/// threshold.
fn callback_lines(option: &str, word: &str, tail: &str, kb_base: u64) -> Vec<String> {
    match (option, word) {
        ("random_distribution", "zoned" | "zoned_abs") => {
            zone_lines(word == "zoned", tail, kb_base)
        }
        ("steadystate", _) => {
            let line = if let Some((pct, _)) = tail.split_once('%') {
                number::c_float(pct.trim_end())
                    .map(|v| format!("set steady state threshold to {v:.6}%\n"))
            } else if word.starts_with("iops") {
                number::c_float(tail)
                    .map(|v| format!("set steady state IOPS threshold to {v:.6}\n"))
            } else {
                match number::size(tail, kb_base) {
                    Some(SizeValue::Bytes(b)) => {
                        Some(format!("set steady state BW threshold to {}\n", b as i64))
                    }
                    _ => None,
                }
            };
            line.into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// The zones of a zoned distribution as fio lists them, the same for
/// each direction: each one's share of the accesses and of the range (a
/// percentage, or bytes for zoned_abs).
fn zone_lines(percent: bool, tail: &str, kb_base: u64) -> Vec<String> {
    let zones: Option<Vec<(i32, u64)>> = tail
        .split(':')
        .map(|z| {
            let (share, of) = z.split_once('/')?;
            let of = if percent {
                u64::from(number::c_int(of)? as u32)
            } else {
                match number::size(of, kb_base)? {
                    SizeValue::Bytes(b) => b,
                    SizeValue::Percent(_) => return None,
                }
            };
            Some((number::c_int(share)?, of))
        })
        .collect();
    let Some(zones) = zones else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for dir in 0..3 {
        lines.push(format!("zone ddir {dir} (nr={}): \n", zones.len()));
        for (i, (share, of)) in zones.iter().enumerate() {
            lines.push(format!("\t{i}: {}/{of}\n", *share as u32));
        }
    }
    lines
}
