//! fio's command line, read with clap.
//!
//! fio's own flags are declared once below; every job option of the option
//! table is also accepted as `--name=value`, in order, the way fio lets a
//! whole job be written on the command line. Clap gives us the values with
//! their positions, which restores that order.

use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::options::{Kind, OptDef, table::OPTIONS};
use crate::plan::CmdOption;

/// fio's flags (not job options), with whether they take a value.
const FLAGS: &[(&str, Takes, &str)] = &[
    ("output", Takes::Required, "Write output to this file"),
    (
        "latency-log",
        Takes::Required,
        "Deprecated: use write_lat_log per job",
    ),
    (
        "bandwidth-log",
        Takes::None,
        "Write a bandwidth log for every job",
    ),
    ("minimal", Takes::None, "Terse, semicolon-separated output"),
    (
        "output-format",
        Takes::Required,
        "normal, terse, json or json+ (comma list allowed)",
    ),
    (
        "append-terse",
        Takes::Optional,
        "Add terse output after the normal output",
    ),
    ("version", Takes::None, "Print the version and exit"),
    ("help", Takes::None, "Print this help and exit"),
    (
        "cmdhelp",
        Takes::Optional,
        "Describe a job option, or all of them",
    ),
    (
        "enghelp",
        Takes::Optional,
        "List the engines, or one engine's own options",
    ),
    (
        "showcmd",
        Takes::None,
        "Print each job file as a command line",
    ),
    ("readonly", Takes::None, "Refuse to run any job that writes"),
    (
        "eta",
        Takes::Required,
        "When to show the progress line: always, never or auto",
    ),
    (
        "eta-interval",
        Takes::Required,
        "How often to update the progress line",
    ),
    (
        "eta-newline",
        Takes::Required,
        "End the progress line with a newline this often",
    ),
    (
        "debug",
        Takes::Required,
        "help lists fio's debug areas; parse prints fio's trace of the options read; other areas are refused (see --explain)",
    ),
    (
        "parse-only",
        Takes::None,
        "Check the job files and options, run nothing",
    ),
    (
        "section",
        Takes::Required,
        "Run only this job section (may be repeated)",
    ),
    (
        "inflate-log",
        Takes::Required,
        "Decompress a compressed log file",
    ),
    (
        "alloc-size",
        Takes::Required,
        "fio's shared memory pool size (KiB): checked as fio reads it, otherwise no effect (ferrio has no such pool)",
    ),
    (
        "profile",
        Takes::Required,
        "Run a built-in workload profile",
    ),
    (
        "warnings-fatal",
        Takes::None,
        "Treat parser warnings as errors",
    ),
    (
        "max-jobs",
        Takes::Required,
        "Accepted and ignored, as by fio 3.33 (the limit is 4096 jobs)",
    ),
    (
        "terse-version",
        Takes::Required,
        "Terse output version: 2, 3, 4 or 5",
    ),
    (
        "server",
        Takes::Optional,
        "Run as a fio server (not supported)",
    ),
    (
        "server-internal",
        Takes::Required,
        "Internal to fio's server mode (not supported)",
    ),
    (
        "daemonize",
        Takes::Required,
        "Run the server in the background (not supported)",
    ),
    (
        "client",
        Takes::Required,
        "Send jobs to a fio server (not supported)",
    ),
    (
        "remote-config",
        Takes::Required,
        "Job file on the server side (not supported)",
    ),
    (
        "cpuclock-test",
        Takes::None,
        "fio's CPU clock self-test (not supported)",
    ),
    (
        "crctest",
        Takes::Optional,
        "Benchmark the checksums (ferrio's own; fio's murmur3 and fnv are not in ferrio)",
    ),
    (
        "memcpytest",
        Takes::Optional,
        "Benchmark memory copies: memcpy, memmove, simple, hybrid",
    ),
    (
        "idle-prof",
        Takes::Required,
        "CPU idleness profiling: system, percpu or calibrate (not supported)",
    ),
    (
        "status-interval",
        Takes::Required,
        "Print a full status report this often",
    ),
    (
        "trigger-file",
        Takes::Required,
        "Run the trigger when this file appears",
    ),
    (
        "trigger-timeout",
        Takes::Required,
        "Run the trigger after this time",
    ),
    ("trigger", Takes::Required, "Command to run as the trigger"),
    (
        "trigger-remote",
        Takes::Required,
        "Command fio servers run as the trigger: fio uses it only with --client, so without it fio and ferrio ignore it",
    ),
    (
        "aux-path",
        Takes::Required,
        "Where to write auxiliary files",
    ),
    (
        "merge-blktrace-only",
        Takes::None,
        "Do each job's merge_blktrace_file merge, then exit without running any job",
    ),
    (
        "explain",
        Takes::None,
        "ferrio: print the plan with each value's origin, what the job derives from it, and lint warnings",
    ),
    (
        "explain-defaults",
        Takes::None,
        "ferrio: with --explain, also every option the job leaves at its default, with that default",
    ),
    (
        "notes",
        Takes::None,
        "ferrio: print ferrio's notes (e.g. that the CPU, not the device, limited a result) on stderr even when it is not a terminal",
    ),
    (
        "demo",
        Takes::None,
        "ferrio: run the built-in default job against a temporary file",
    ),
    (
        "install-alias",
        Takes::Optional,
        "ferrio: link DIR/fio (default ~/.local/bin/fio) to ferrio, which then answers as fio",
    ),
    (
        "start-at",
        Takes::Required,
        "ferrio: start the jobs at this Unix time in seconds (fractions allowed), e.g. on every host of a distributed run",
    ),
    (
        "status-format",
        Takes::Required,
        "ferrio: ndjson: each --status-interval writes one JSON line of that interval's deltas (with --output-format=json); full: fio's whole report",
    ),
    (
        "metrics-listen",
        Takes::Required,
        "ferrio: serve OpenMetrics at http://ADDR/metrics while jobs run (e.g. 127.0.0.1:9101)",
    ),
    (
        "metrics-allow-remote",
        Takes::None,
        "ferrio: let --metrics-listen use an address beyond loopback (no authentication)",
    ),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    None,
    Optional,
    Required,
}

/// What the command line asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// fio flags with their values, by name (a flag given twice keeps both).
    pub flags: Vec<(String, Option<String>)>,
    /// Job options, in command-line order.
    pub job_options: Vec<CmdOption>,
    /// For each job option, how many of `flags` came before it: fio acts
    /// on some flags as it reads them, so a job added early sees only
    /// those (see [`Args::flags_before`]).
    pub flags_ahead: Vec<usize>,
    /// Job files.
    pub files: Vec<String>,
}

impl Args {
    /// The last value of a flag; `Some(None)` when given without a value.
    pub fn flag(&self, name: &str) -> Option<Option<&str>> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_deref())
    }

    pub fn has(&self, name: &str) -> bool {
        self.flag(name).is_some()
    }

    /// The flags given before job option `index`; all of them for an
    /// option past the command line's own (a profile's).
    pub fn flags_before(&self, index: usize) -> &[(String, Option<String>)] {
        let n = self
            .flags_ahead
            .get(index)
            .copied()
            .unwrap_or(self.flags.len());
        &self.flags[..n]
    }

    /// Every value of a repeatable flag.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.flags
            .iter()
            .filter(|(n, _)| n == name)
            .filter_map(|(_, v)| v.clone())
            .collect()
    }
}

/// A command line fio would refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError {
    /// What fio prints on stderr, line by line.
    pub fio_stderr: Vec<String>,
    /// What was wrong and what was expected.
    pub detail: String,
}

fn command() -> Command {
    let mut cmd = Command::new("fio")
        .no_binary_name(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .infer_long_args(true)
        .arg(Arg::new("files").action(ArgAction::Append).num_args(0..));
    // Answering as fio, ferrio's own flags are unknown, as they are to fio.
    let flags = FLAGS
        .iter()
        .filter(|(_, _, help)| !(crate::persona::as_fio() && help.starts_with("ferrio:")));
    for (name, takes, help) in flags {
        cmd = cmd.arg(with_takes(
            Arg::new(format!("flag:{name}")).long(*name).help(*help),
            *takes,
        ));
    }
    // fio's own flags come first in its getopt table, so a job option of
    // the same name (`profile`) is only reachable from job files.
    let mut seen: std::collections::HashSet<&str> = FLAGS.iter().map(|(n, _, _)| *n).collect();
    for def in OPTIONS {
        if !seen.insert(def.name) {
            continue;
        }
        let takes = match def.kind {
            Kind::Flag | Kind::Choice(_) => Takes::Optional,
            _ => Takes::Required,
        };
        let mut arg = Arg::new(format!("opt:{}", def.name))
            .long(def.name)
            .help(def.help);
        for alias in def.aliases {
            if seen.insert(alias) {
                arg = arg.alias(*alias);
            }
        }
        cmd = cmd.arg(with_takes(arg, takes));
    }
    cmd
}

fn with_takes(arg: Arg, takes: Takes) -> Arg {
    match takes {
        Takes::None => arg.action(ArgAction::Count),
        Takes::Optional => arg
            .action(ArgAction::Append)
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("\u{0}"),
        Takes::Required => arg
            .action(ArgAction::Append)
            .num_args(1)
            .allow_hyphen_values(true),
    }
}

/// Reads fio's command line (without the program name).
pub fn parse(argv: &[String]) -> Result<Args, UsageError> {
    // fio also accepts a single dash before long options (getopt_long_only).
    let argv: Vec<String> = argv
        .iter()
        .map(|a| {
            if a.len() > 2 && a.starts_with('-') && !a.starts_with("--") {
                format!("-{a}")
            } else {
                a.clone()
            }
        })
        .collect();
    let argv: Vec<String> = argv.iter().map(|a| fio_abbreviation(a)).collect();
    let matches = command()
        .try_get_matches_from(&argv)
        .map_err(|e| usage_error(&argv, &e))?;
    Ok(collect(&matches))
}

/// fio accepts any unambiguous prefix of a long option (`--status=1`
/// for `--status-interval`). Where ferrio's own flags would make such a
/// prefix ambiguous, fio's one option it names wins, so that ferrio reads
/// fio's command lines as fio does under either name.
fn fio_abbreviation(arg: &str) -> String {
    let Some(body) = arg.strip_prefix("--") else {
        return arg.to_string();
    };
    let (name, value) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    if name.is_empty() {
        return arg.to_string();
    }
    let options = OPTIONS.iter().flat_map(OptDef::names);
    let names: std::collections::HashSet<&str> = fio_flags().chain(options).collect();
    if names.contains(name) || !FERRIO_ONLY.iter().any(|f| f.starts_with(name)) {
        return arg.to_string();
    }
    let mut fio_matches = names.into_iter().filter(|n| n.starts_with(name));
    match (fio_matches.next(), fio_matches.next()) {
        (Some(full), None) => match value {
            Some(v) => format!("--{full}={v}"),
            None => format!("--{full}"),
        },
        _ => arg.to_string(),
    }
}

fn usage_error(argv: &[String], e: &clap::Error) -> UsageError {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let offending = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => argv.first().cloned().unwrap_or_default(),
    };
    let name = offending
        .split('=')
        .next()
        .unwrap_or("")
        .trim_start_matches('-')
        .to_string();
    let original = argv
        .iter()
        .find(|a| a.starts_with(&offending))
        .cloned()
        .unwrap_or(offending.clone());
    match e.kind() {
        ErrorKind::UnknownArgument => {
            let closest = closest_long_option(&original);
            // getopt reports the option, then fio reports it again and
            // suggests the nearest long option.
            let unknown = format!(
                "{}: unrecognized option '{original}'",
                crate::persona::program()
            );
            let mut fio_stderr = vec![unknown.clone(), unknown];
            fio_stderr.extend(closest.map(|s| format!("Did you mean {s}?")));
            UsageError {
                fio_stderr,
                detail: format!("on the command line: '{original}'"),
            }
        }
        _ => UsageError {
            fio_stderr: vec![format!("fio: option {name} requires an argument")],
            detail: format!("'{original}': {}", e.kind()),
        },
    }
}

fn is_counted(id: &str) -> bool {
    FLAGS
        .iter()
        .any(|(n, t, _)| *t == Takes::None && id.strip_prefix("flag:") == Some(n))
}

/// fio's guess for an unknown command-line option: the closest of its
/// long options (its own flags, then every job option and alias, in table
/// order), measured on the whole argument without its dashes.
fn closest_long_option(arg: &str) -> Option<&'static str> {
    let name = arg.trim_start_matches('-');
    let jobs = OPTIONS
        .iter()
        .filter(|o| o.engines.is_empty())
        .flat_map(OptDef::names);
    let mut best: Option<(&'static str, usize)> = None;
    for candidate in fio_flags().chain(jobs) {
        let d = crate::options::distance(name, candidate);
        if best.is_none_or(|(_, b)| d < b) {
            best = Some((candidate, d));
        }
    }
    best.filter(|(_, d)| *d <= name.len().div_ceil(2))
        .map(|(n, _)| n)
}

/// The long flags fio has too: ferrio's, in table order, without
/// [`FERRIO_ONLY`]'s. Both fio's abbreviations and its guesses for an
/// unknown option weigh these.
fn fio_flags() -> impl Iterator<Item = &'static str> {
    FLAGS
        .iter()
        .map(|(n, _, _)| *n)
        .filter(|n| !FERRIO_ONLY.contains(n))
}

/// Flags that fio does not have.
const FERRIO_ONLY: &[&str] = &[
    "explain",
    "explain-defaults",
    "notes",
    "demo",
    "install-alias",
    "start-at",
    "status-format",
    "metrics-listen",
    "metrics-allow-remote",
];

/// Puts clap's matches back in command-line order.
fn collect(m: &ArgMatches) -> Args {
    let mut flags: Vec<(usize, String, Option<String>)> = Vec::new();
    let mut jobs: Vec<(usize, CmdOption)> = Vec::new();
    for id in m.ids() {
        let id = id.as_str();
        if id == "files" {
            continue;
        }
        if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        let Some(indices) = m.indices_of(id) else {
            continue;
        };
        // Counted flags have positions but no text values.
        let mut values = m
            .try_get_raw_occurrences(id)
            .ok()
            .flatten()
            .filter(|_| !is_counted(id));
        for index in indices {
            let value = values
                .as_mut()
                .and_then(Iterator::next)
                .and_then(|mut occurrence| occurrence.next())
                .map(|v| v.to_string_lossy().into_owned())
                .filter(|v| v != "\u{0}");
            if let Some(flag) = id.strip_prefix("flag:") {
                flags.push((index, flag.to_string(), value));
            } else if let Some(opt) = id.strip_prefix("opt:") {
                jobs.push((
                    index,
                    CmdOption {
                        name: opt.to_string(),
                        value,
                    },
                ));
            }
        }
    }
    flags.sort_by_key(|(i, _, _)| *i);
    jobs.sort_by_key(|(i, _)| *i);
    let flags_ahead = jobs
        .iter()
        .map(|(at, _)| flags.partition_point(|(i, _, _)| i < at))
        .collect();
    let files = m
        .get_many::<String>("files")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    Args {
        flags: flags.into_iter().map(|(_, n, v)| (n, v)).collect(),
        job_options: jobs.into_iter().map(|(_, o)| o).collect(),
        flags_ahead,
        files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Args {
        parse(&s.iter().map(|x| x.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn job_options_keep_their_order() {
        let a = args(&[
            "--name=a",
            "--rw=read",
            "--bs",
            "4k",
            "--name=b",
            "--time_based",
        ]);
        let names: Vec<_> = a
            .job_options
            .iter()
            .map(|o| (o.name.as_str(), o.value.as_deref()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("name", Some("a")),
                ("rw", Some("read")),
                ("bs", Some("4k")),
                ("name", Some("b")),
                ("time_based", None)
            ]
        );
    }

    #[test]
    fn flags_files_and_aliases() {
        let a = args(&[
            "--output-format=json",
            "job.fio",
            "--blocksize=8k",
            "-parse-only",
        ]);
        assert_eq!(a.flag("output-format"), Some(Some("json")));
        assert!(a.has("parse-only"));
        assert_eq!(a.files, vec!["job.fio"]);
        assert_eq!(a.job_options[0].name, "bs");
    }

    #[test]
    fn flags_before_a_job_option() {
        let a = args(&[
            "--name=a",
            "--output=x",
            "--name=b",
            "--output-format=json",
            "--name=c",
        ]);
        assert!(a.flags_before(0).is_empty());
        assert_eq!(
            a.flags_before(1),
            &[("output".to_string(), Some("x".to_string()))]
        );
        assert_eq!(a.flags_before(2).len(), 2);
        assert_eq!(a.flags_before(3).len(), 2);
    }

    #[test]
    fn fio_abbreviations_win_over_ferrio_flags() {
        let a = args(&["--status=2", "--status-f=ndjson", "--metrics-l=x"]);
        assert_eq!(a.flag("status-interval"), Some(Some("2")));
        assert_eq!(a.flag("status-format"), Some(Some("ndjson")));
        assert_eq!(a.flag("metrics-listen"), Some(Some("x")));
    }

    #[test]
    fn unknown_options_are_refused_like_fio() {
        let e = parse(&["--foo=bar".to_string()]).unwrap_err();
        assert_eq!(
            e.fio_stderr,
            vec!["fio: unrecognized option '--foo=bar'"; 2]
        );
        let e = parse(&["--foo".to_string()]).unwrap_err();
        assert_eq!(e.fio_stderr[2], "Did you mean flow?");
    }
}
