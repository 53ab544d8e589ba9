//! `--help`, `--cmdhelp` and `--enghelp`, laid out as fio lays them out
//! (scripts and people know where to look), with ferrio's own wording.

use std::fmt::Write;

use crate::options::{self, FIO_ENGINES, Kind, OptDef, table::OPTIONS};

/// The usage text (`--help`, and after "No job(s) defined").
pub fn usage() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} (ferrio {})",
        crate::FIO_VERSION,
        env!("CARGO_PKG_VERSION")
    );
    s.push_str(
        "fio [options] [job options] <job file(s)>
  --parse-only\t\tRead and check the job files; start no I/O
  --output\t\tWrite the report to this file instead of stdout
  --output-format=type\tReport format: normal, terse, json, json+ (comma list)
  --minimal\t\tTerse report (same as --output-format=terse)
  --terse-version=type\tTerse report version: 2, 3 (default), 4 or 5
  --append-terse\tAdd the terse report after the normal one
  --bandwidth-log\tWrite an aggregate bandwidth log
  --version\t\tPrint the version and exit
  --help\t\tPrint this text
  --cmdhelp=cmd\t\tDescribe a job option; \"all\" lists every option
  --enghelp=engine\tList engines, or describe one engine's own options
  --showcmd\t\tPrint each job file as an equivalent command line
  --eta=when\t\tProgress line: \"always\", \"never\" or \"auto\"
  --eta-newline=t\tStart a new progress line every t
  --eta-interval=t\tUpdate the progress line every t
  --status-interval=t\tPrint a full report every t
  --readonly\t\tRefuse jobs that would write
  --section=name\tRun only this section (repeatable)
  --warnings-fatal\tTreat option warnings as errors
  --max-jobs=nr\t\tLargest number of jobs allowed
  --explain\t\tferrio: show the plan, where each value came from, and lint hints
  --client/--server\tNot supported by ferrio
",
    );
    s
}

fn type_text(def: &OptDef) -> &'static str {
    match def.kind {
        Kind::Choice(_) | Kind::Text(_) => "string (opt=bla)",
        Kind::Int | Kind::Size => "integer value (opt=100)",
        Kind::Time => "string with time postfix (opt=10s)",
        Kind::Bool => "boolean value (opt=1)",
        Kind::Flag => "empty or boolean value ([0|1])",
        Kind::Range => "one to three ranges (opt=1k-4k[,4k-8k[,1k-8k]])",
        Kind::FloatList { .. } => "list of floating point values separated by ':' (opt=5.9:7.8)",
        Kind::Deprecated | Kind::SoftDeprecated => "deprecated",
        Kind::Unsupported => "unsupported",
    }
}

/// One option described in full, as `--cmdhelp=NAME` shows it.
pub fn describe(def: &OptDef) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:>20}: {}", def.name, def.help);
    for alias in def.aliases {
        let _ = writeln!(s, "{:>20}: {}", "alias", alias);
    }
    let _ = writeln!(s, "{:>20}: {}", "type", type_text(def));
    let _ = writeln!(
        s,
        "{:>20}: {}",
        "default",
        def.default.unwrap_or("no default")
    );
    if def.min.is_some() || def.max.is_some() {
        let max = def.max.map_or("-1".to_string(), |m| m.to_string());
        let _ = writeln!(
            s,
            "{:>20}: min={}, max={}",
            "range",
            def.min.unwrap_or(0),
            max
        );
    }
    if let Kind::Choice(words) | Kind::Text(words) = def.kind
        && !words.is_empty()
    {
        for line in crate::plan::error::value_list(def) {
            let _ = writeln!(s, "{line}");
        }
    }
    if !def.engines.is_empty() {
        let _ = writeln!(s, "{:>20}: {}", "ioengines", def.engines.join(", "));
    }
    s
}

/// `--cmdhelp[=NAME]`: returns the text and the exit status.
pub fn cmdhelp(name: Option<&str>) -> (String, i32) {
    match name {
        None | Some("all") | Some("") => {
            let mut s = String::new();
            for def in OPTIONS
                .iter()
                .filter(|o| o.engines.is_empty() && o.kind != Kind::Unsupported)
            {
                let label = match def.parent {
                    Some(_) => format!("  {}", def.name),
                    None => def.name.to_string(),
                };
                let _ = writeln!(s, "{label:<24}: {}", def.help);
            }
            (s, 0)
        }
        Some(name) => {
            if let Some(def) = options::find(name) {
                return (describe(def), 0);
            }
            match options::suggest(name).and_then(options::find) {
                Some(def) => (format!(" - showing closest match\n{}", describe(def)), 0),
                None => (format!("No such command: {name}\n"), 0),
            }
        }
    }
}

/// `--enghelp[=ENGINE[,OPTION]]`: returns the text and the exit status.
pub fn enghelp(arg: Option<&str>) -> (String, i32) {
    let Some(arg) = arg.filter(|a| !a.is_empty()) else {
        let mut s = String::from("Available IO engines:\n");
        for e in FIO_ENGINES {
            let _ = writeln!(s, "\t{e}");
        }
        return (s, 0);
    };
    let (engine, option) = match arg.split_once(',') {
        Some((e, o)) => (e, Some(o)),
        None => (arg, None),
    };
    if !FIO_ENGINES.contains(&engine) {
        return (format!("IO engine {engine} not found\n"), 1);
    }
    let opts: Vec<&OptDef> = options::engine_options(engine).collect();
    if opts.is_empty() {
        return (format!("IO engine {engine} has no options\n"), 1);
    }
    let mut s = String::new();
    match option {
        Some(o) => match opts.iter().find(|d| d.matches(o)) {
            Some(d) => s.push_str(&describe(d)),
            None => {
                let _ = writeln!(s, "No such command: {o}");
            }
        },
        None => {
            for d in opts {
                let _ = writeln!(s, "{:<24}: {}", d.name, d.help);
            }
        }
    }
    (s, 0)
}
