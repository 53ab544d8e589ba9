//! `--help`, `--cmdhelp` and `--enghelp`, laid out as fio lays them out
//! (scripts and people know where to look), with ferrio's own wording.

use std::fmt::Write;

use crate::engine::FIO_ENGINES;
use crate::options::{self, Kind, OptDef, def::Check, table::OPTIONS};

/// The usage text (`--help`, and after "No job(s) defined").
pub fn usage() -> String {
    let mut s = String::new();
    if crate::persona::as_fio() {
        let _ = writeln!(s, "{}", crate::FIO_VERSION);
    } else {
        let _ = writeln!(
            s,
            "{} (ferrio {})",
            crate::FIO_VERSION,
            env!("CARGO_PKG_VERSION")
        );
    }
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
  --client/--server\tNot supported by ferrio
",
    );
    if !crate::persona::as_fio() {
        s.push_str(
            "  --explain\t\tferrio: show the plan, where each value came from, what each job derives, and lint hints
  --explain-defaults\tferrio: with --explain, also every option left at its default
  --cmdhelp=unsupported\tferrio: list the options and engines ferrio does not run yet
  --demo\t\tferrio: run the built-in default job against a temporary file
  --install-alias=dir\tferrio: make dir/fio run ferrio as fio (default ~/.local/bin)
  --start-at=time\tferrio: start the jobs at this Unix time (seconds, fractions allowed)
  --output-format=html\tferrio: a self-contained HTML page of plots (alone in its stream)
  --notes\t\tferrio: print ferrio's notes and tool-limited warnings on stderr
  --status-format=f\tferrio: ndjson: one JSON line of deltas per status interval
  --metrics-listen=addr\tferrio: serve OpenMetrics at http://addr/metrics (loopback)
  --metrics-allow-remote\tferrio: let --metrics-listen serve beyond loopback
  merge a.json b.json [--output file]
\t\t\tferrio: merge instances' JSON results (first argument only; merge --help)
  preset name target [fio flags]
\t\t\tferrio: crystaldiskmark, hdtune or dd against target, then the tool's summary (preset --help)
  report a.json [b.json ...] [--output file]
\t\t\tferrio: the HTML page of saved json+ results, several compared (report --help)
",
        );
    }
    s
}

/// The type as fio's help names it.
fn type_text(def: &OptDef) -> &'static str {
    match def.kind {
        Kind::Choice(_) if def.name == "sync_file_range" => {
            "string with possible k/m/g postfix (opt=4k)"
        }
        Kind::Choice(_) | Kind::Text(_) => "string (opt=bla)",
        // fio's help has no name for its zone-suffixed sizes.
        Kind::Size if def.check == Check::Zone => "(null)",
        Kind::Size if def.str_val => "string (opt=bla)",
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

/// The `range:` line, printed as fio prints it (C `int` formatting, so a
/// limit of `u32::MAX` or `u64::MAX` reads -1).
fn range_line(def: &OptDef) -> Option<String> {
    if let Kind::FloatList { min, max, .. } = def.kind {
        return (min != 0.0 || max != 0.0)
            .then(|| format!("{:>20}: min={min:.6}, max={max:.6}", "range"));
    }
    if let Kind::Choice(words) | Kind::Text(words) = def.kind
        && !words.is_empty()
    {
        return None;
    }
    let (min, max) = def.limits();
    let (min, max) = (min.unwrap_or(0), max.unwrap_or(0));
    if min == 0 && max == 0 {
        return None;
    }
    let mut line = format!("{:>20}: min={}", "range", min as i32);
    if max != 0 {
        line.push_str(&format!(", max={}", max as i32));
    }
    Some(line)
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
    if let Some(line) = range_line(def) {
        let _ = writeln!(s, "{line}");
    }
    if let Kind::Choice(words) | Kind::Text(words) = def.kind
        && !words.is_empty()
    {
        for line in crate::plan::value_list(def) {
            let _ = writeln!(s, "{line}");
        }
    } else {
        s.push('\n');
    }
    s
}

/// Options that fio's help lists: not deprecated, not a profile's.
fn listed(def: &OptDef) -> bool {
    !matches!(def.kind, Kind::Deprecated | Kind::SoftDeprecated) && def.profile.is_none()
}

/// `--cmdhelp` over one option table (the generic options or an engine's):
/// all of them as a tree of parents and children, or one described in
/// full. Returns (stdout, stderr).
fn show_help(table: &[&'static OptDef], name: Option<&str>) -> (String, String) {
    let mut out = String::new();
    let name = name.filter(|n| !n.is_empty() && *n != "all");
    let Some(name) = name else {
        for (i, def) in table.iter().enumerate() {
            if listed(def) && def.parent.is_none() {
                print_tree(&mut out, table, i);
            }
        }
        return (out, String::new());
    };
    let mut closest: Option<(&OptDef, usize)> = None;
    let mut found = false;
    for def in table.iter().filter(|d| listed(d)) {
        if def.name == name || def.aliases.contains(&name) {
            found = true;
            out.push_str(&describe(def));
        } else {
            let d = options::distance(name, def.name);
            if closest.is_none_or(|(_, best)| d < best) {
                closest = Some((def, d));
            }
        }
    }
    if found {
        return (out, String::new());
    }
    match closest {
        Some((def, d)) if d < 3 => {
            out.push_str(&format!(" - showing closest match\n{}", describe(def)))
        }
        _ => out.push('\n'),
    }
    (out, format!("No such command: {name}"))
}

/// An option and, below it, the chain of options that name it (and then
/// each other) as parent, indented by depth as fio prints them.
fn print_tree(out: &mut String, table: &[&'static OptDef], start: usize) {
    let line = |out: &mut String, def: &OptDef, depth: usize| {
        let label = format!("{}{}", "  ".repeat(depth), def.name);
        let _ = writeln!(out, "{label:<24}: {}", def.help);
    };
    line(out, table[start], 0);
    let (mut at, mut parent, mut depth) = (start, start, 0);
    loop {
        depth += 1;
        let mut printed = 0;
        while let Some(child) =
            (at + 1..table.len()).find(|&i| table[i].parent == Some(table[parent].name))
        {
            line(out, table[child], depth);
            at = child;
            printed += 1;
        }
        parent = at;
        if printed == 0 {
            break;
        }
    }
}

/// `--cmdhelp[=NAME]`: (stdout, stderr, exit status). fio exits 0 even
/// when it knows no such option.
pub fn cmdhelp(name: Option<&str>) -> (String, String, i32) {
    if name == Some("unsupported") && !crate::persona::as_fio() {
        return (unsupported(), String::new(), 0);
    }
    let generic: Vec<&'static OptDef> = OPTIONS.iter().filter(|o| o.engines.is_empty()).collect();
    let (out, err) = show_help(&generic, name);
    (out, err, 0)
}

/// `--cmdhelp=unsupported` (ferrio only): what ferrio parses but does not
/// run yet, so that a user can see before a run which job files it would
/// refuse. The options come from the table's own support marks, so this
/// list cannot drift from what the runner refuses.
fn unsupported() -> String {
    let mut s = String::new();
    let pending = OPTIONS
        .iter()
        .filter(|d| d.support == options::Support::ParseOnly && d.profile.is_none());
    let pending = pending.filter(|d| !matches!(d.kind, Kind::Deprecated | Kind::SoftDeprecated));
    for def in pending {
        let _ = write!(s, "{:<24}: {}", def.name, def.help);
        if !def.engines.is_empty() {
            let _ = write!(s, " [{}]", def.engines.join(", "));
        }
        s.push('\n');
    }
    for engine in FIO_ENGINES
        .iter()
        .filter(|e| crate::engine::kind(e).is_none())
    {
        let why = crate::engine::fio_names::not_run_because(engine);
        let _ = writeln!(s, "{:<24}: ioengine={engine}: {why}", "engine");
    }
    s
}

/// `--enghelp[=ENGINE[,OPTION]]`: (stdout, stderr, exit status).
pub fn enghelp(arg: Option<&str>) -> (String, String, i32) {
    let Some(arg) = arg.filter(|a| !a.is_empty()) else {
        let mut s = String::from("Available IO engines:\n");
        for e in FIO_ENGINES {
            let _ = writeln!(s, "\t{e}");
        }
        return (s, String::new(), 0);
    };
    let (engine, option) = match arg.split_once(',') {
        Some((e, o)) => (e, Some(o)),
        None => (arg, None),
    };
    let engine = crate::engine::fio_name(engine);
    if !FIO_ENGINES.contains(&engine) {
        return (
            format!("IO engine {engine} not found\n"),
            format!("fio: engine {engine} not loadable\n"),
            1,
        );
    }
    // ferrio's own engine options are not fio's: fio's help lacks them.
    let opts: Vec<&'static OptDef> = options::engine_options(engine)
        .filter(|o| !o.name.starts_with("ferrio_"))
        .collect();
    if opts.is_empty() {
        return (
            format!("IO engine {engine} has no options\n"),
            String::new(),
            1,
        );
    }
    let (out, err) = show_help(&opts, option);
    let code = i32::from(!err.is_empty());
    (out, err, code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_lists_exactly_what_the_runner_refuses() {
        let (out, err, code) = cmdhelp(Some("unsupported"));
        assert_eq!((err.as_str(), code), ("", 0));
        let names: Vec<&str> = out
            .lines()
            .map(|l| l.split(':').next().unwrap().trim())
            .collect();
        for def in OPTIONS.iter().filter(|d| d.profile.is_none() && listed(d)) {
            let refused = def.support == options::Support::ParseOnly;
            assert_eq!(names.contains(&def.name), refused, "{}", def.name);
        }
        for engine in crate::engine::KINDS.iter().map(|k| k.name) {
            assert!(!out.contains(&format!("ioengine={engine}:")), "{engine}");
        }
        // Each engine fio has and ferrio does not run is listed with why.
        let engines: Vec<&str> = out.lines().filter(|l| l.starts_with("engine ")).collect();
        let names: Vec<&str> = engines
            .iter()
            .map(|l| {
                l.split("ioengine=")
                    .nth(1)
                    .unwrap()
                    .split(':')
                    .next()
                    .unwrap()
            })
            .collect();
        // Only the engines that need hardware these machines lack, and
        // the one fio removed after 3.33.
        assert_eq!(
            names,
            ["mtd", "sg", "io_uring_cmd", "rdma", "pmemblk", "dev-dax"],
            "{engines:?}"
        );
        assert!(
            engines.iter().all(|l| !l.ends_with(": not run by ferrio")),
            "{engines:?}"
        );
    }
}
