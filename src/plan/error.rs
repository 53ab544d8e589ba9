//! Planning errors: what fio would print, plus a precise message for people.

use std::fmt;

use super::apply::State;
use crate::jobfile::{Location, ReadError};
use crate::options::{self, Kind, OptDef};

/// A job file or command line that cannot be planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    /// The place of the first problem, when it is in a job file.
    pub location: Option<Location>,
    /// Lines fio 3.33 prints on stderr for the same input, in order.
    pub fio_stderr: Vec<String>,
    /// What fio prints on stdout, verbatim (notices, the list of valid
    /// words, `--showcmd` output so far).
    pub fio_stdout: String,
    /// The first problem: the offending text and what was expected.
    pub detail: String,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => write!(f, "{loc}: {}", self.detail),
            None => f.write_str(&self.detail),
        }
    }
}

impl std::error::Error for PlanError {}

impl PlanError {
    pub fn from_read(e: ReadError) -> Self {
        PlanError {
            location: e.location,
            fio_stderr: vec![e.fio_message],
            fio_stdout: String::new(),
            detail: e.detail,
        }
    }

    pub(super) fn collector(job: &str, in_job_file: bool) -> Collector {
        Collector {
            job: job.to_string(),
            in_job_file,
            error: None,
        }
    }

    pub(super) fn numjobs_zero(state: &State) -> Self {
        PlanError {
            location: state.location.clone(),
            fio_stderr: vec![
                "error: maximum number of jobs reached.".to_string(),
                "error: failed to setup shm segment".to_string(),
            ],
            fio_stdout: String::new(),
            detail: format!("job '{}' has numjobs=0; expected at least 1", state.name),
        }
    }

    pub(super) fn bad_wait_for(state: &State, waitee: &str, found: usize) -> Self {
        let name = state.job_name();
        let (fio, why) = if waitee == name {
            (
                format!("{name}: a job cannot wait for itself (wait_for={waitee})."),
                "a job cannot wait for itself".to_string(),
            )
        } else if found == 0 {
            (
                format!("{name}: waitee job {waitee} unknown."),
                format!("expected the name of a job defined before '{name}'"),
            )
        } else {
            (
                format!(
                    "{name}: multiple waitees {waitee} found,\nplease avoid duplicates when using wait_for option."
                ),
                format!("{found} jobs are named '{waitee}'; expected exactly one"),
            )
        };
        PlanError {
            location: state.location.clone(),
            fio_stderr: vec![fio],
            fio_stdout: String::new(),
            detail: format!("wait_for={waitee}: {why}"),
        }
    }

    /// fio's checks of a job's options when it adds the job: caps in
    /// bytes and in I/Os exclude each other (and so do floors), a floor
    /// above its cap can never be met, and a dedupe working set needs a
    /// size, one file, and room beside the duplicates.
    pub(super) fn option_conflicts(state: &State, job: &super::JobSpec) -> Option<Self> {
        // fio checks this as it loads the engine, before anything else,
        // and gives up on the whole run (no `job dropped` line).
        let offload = matches!(
            job.value("io_submit_mode"),
            Some(options::Value::Word {
                word: "offload",
                ..
            })
        );
        if offload && crate::engine::fio_names::fio_refuses_offload(&job.engine) {
            return Some(PlanError {
                location: state.location.clone(),
                fio_stderr: vec![
                    format!(
                        "{}: can't be used with offloaded submit. Use a sync engine",
                        job.engine
                    ),
                    "fio: failed to load engine".to_string(),
                ],
                fio_stdout: String::new(),
                detail: format!(
                    "job '{}': ioengine={} cannot hand its I/O to helper threads \
                     (io_submit_mode=offload); use another engine or inline",
                    state.job_name(),
                    job.engine
                ),
            });
        }
        let per_dir = |name: &str| match job.value(name) {
            Some(options::Value::Nums(v)) => *v,
            _ => [0; 3],
        };
        let set = |v: [u64; 3]| v.iter().any(|&x| x > 0);
        let (rate, iops) = (per_dir("rate"), per_dir("rate_iops"));
        let (rate_min, iops_min) = (per_dir("rate_min"), per_dir("rate_iops_min"));
        let mut fio = Vec::new();
        if (set(rate) && set(iops)) || (set(rate_min) && set(iops_min)) {
            fio.push("fio: rate and rate_iops are mutually exclusive".to_string());
        }
        for d in 0..3 {
            if (rate[d] > 0 && rate[d] < rate_min[d]) || (iops[d] > 0 && iops[d] < iops_min[d]) {
                fio.push(format!("fio: minimum rate exceeds rate, ddir {d}"));
            }
        }
        let rate_problems = fio.len();
        fio.extend(dedupe_working_set_problems(job));
        let dedupe_problems = fio.len();
        fio.extend(block_error_hist_problem(job));
        let detail = if fio.len() > dedupe_problems {
            "expected a single file for block_error_percentiles"
        } else if fio.len() > rate_problems {
            "expected a size, one file, and dedupe_percentage plus dedupe_working_set_percentage at most 100 for dedupe_mode=working_set"
        } else {
            "expected rate or rate_iops (not both), each at least its rate_min or rate_iops_min"
        };
        (!fio.is_empty()).then(|| PlanError {
            location: state.location.clone(),
            fio_stderr: fio,
            fio_stdout: String::new(),
            detail: format!("job '{}': {detail}", state.job_name()),
        })
    }

    pub(super) fn too_many_jobs(max: usize) -> Self {
        PlanError {
            location: None,
            fio_stderr: vec!["error: maximum number of jobs reached.".to_string()],
            fio_stdout: String::new(),
            detail: format!("the plan has more than {max} jobs (--max-jobs)"),
        }
    }
}

/// What fio says of a job whose dedupe working set cannot be made.
fn dedupe_working_set_problems(job: &super::JobSpec) -> Option<String> {
    let dedupe = job.num("dedupe_percentage").unwrap_or(0);
    let working_set = matches!(
        job.value("dedupe_mode"),
        Some(options::Value::Word {
            word: "working_set",
            ..
        })
    );
    if dedupe == 0 || !working_set {
        return None;
    }
    let files = job.num("nrfiles").unwrap_or(1);
    let reserved = job.num("dedupe_working_set_percentage").unwrap_or(5);
    if job.setting("size").is_none() {
        Some("fio: pregenerated dedupe working set requires size to be set".to_string())
    } else if files != 1 {
        Some(format!(
            "fio: dedupe working set mode supported with single file per job, but {files} files provided"
        ))
    } else if reserved + dedupe > 100 {
        Some(format!(
            "fio: impossible to reach expected dedupe percentage {dedupe} since {reserved} percentage of size is reserved to dedupe working set (those are unique pages)"
        ))
    } else {
        None
    }
}

/// What fio says of block_error_percentiles on a job with several files:
/// its table of block states covers one file.
fn block_error_hist_problem(job: &super::JobSpec) -> Option<String> {
    if !job.flag("block_error_percentiles") {
        return None;
    }
    let named = job.filenames().len() as u64;
    let files = named.max(job.num("nrfiles").unwrap_or(1));
    (files != 1).then(|| {
        format!(
            "fio: block error histogram only available with a single file per job, but {files} files provided"
        )
    })
}

/// Gathers the problems of one section; fio reports every bad option of a
/// section and then drops the job.
pub(super) struct Collector {
    job: String,
    in_job_file: bool,
    error: Option<PlanError>,
}

impl Collector {
    /// Says, after the first problem when it lies at `location`, which
    /// `${VAR}` of its text the environment does not set: fio substitutes
    /// nothing for it, so the value it complains of is not the one the
    /// job file shows.
    pub(super) fn explain_unset(&mut self, location: Option<&Location>, unset: &[String]) {
        let Some(e) = self
            .error
            .as_mut()
            .filter(|e| e.location.as_ref() == location)
        else {
            return;
        };
        if unset.is_empty() || e.detail.contains("is not set in the environment") {
            return;
        }
        let names: Vec<String> = unset.iter().map(|n| format!("${{{n}}}")).collect();
        let verb = if names.len() == 1 { "is" } else { "are" };
        e.detail.push_str(&format!(
            " ({} {verb} not set in the environment)",
            names.join(", ")
        ));
    }

    fn push(
        &mut self,
        location: Option<&Location>,
        stderr: Vec<String>,
        stdout: Vec<String>,
        detail: String,
    ) {
        let stdout: String = stdout.iter().map(|l| format!("{l}\n")).collect();
        match &mut self.error {
            Some(e) => {
                e.fio_stderr.extend(stderr);
                e.fio_stdout.push_str(&stdout);
            }
            None => {
                self.error = Some(PlanError {
                    location: location.cloned(),
                    fio_stderr: stderr,
                    fio_stdout: stdout,
                    detail,
                })
            }
        }
    }

    /// A known option whose value fio refuses.
    pub fn add_failed(
        &mut self,
        text: &str,
        location: Option<&Location>,
        messages: Vec<String>,
        words: Option<&OptDef>,
        notices: Vec<String>,
    ) {
        let (key, value) = text.split_once('=').unwrap_or((text, ""));
        // fio parses a job file's engine options a second time, on a copy
        // it has already cut at the `=`: its complaint names the option
        // alone (not so for those on the command line, which have no
        // location).
        let name = key.trim_end();
        let engine_option = location.is_some()
            && options::find(name).is_none()
            && options::table::OPTIONS
                .iter()
                .any(|d| !d.engines.is_empty() && d.matches(name));
        let named = if engine_option { key } else { text };
        let failed = format!("fio: failed parsing {named}");
        // fio names the option as the job file wrote it, before ${VAR}
        // was substituted (the value parse saw the substituted text), and
        // once.
        let mut stderr: Vec<String> = Vec::new();
        for m in &messages {
            let line = match m.strip_prefix("fio: failed parsing ") {
                Some(_) => failed.clone(),
                None => m.clone(),
            };
            if line != failed || !stderr.contains(&failed) {
                stderr.push(line);
            }
        }
        if !stderr.contains(&failed) {
            stderr.push(failed);
        }
        let def = options::find(key.trim_end());
        let expected = match def {
            // fio lists the values on stdout: ferrio names the nearest one
            // rather than listing them again.
            Some(def) if words.is_some() => match nearest_word(def, value) {
                Some(w) => format!("one of the values listed (did you mean {w}?)"),
                None => "one of the values listed".to_string(),
            },
            Some(def) => expectation(def),
            None => "a valid value".to_string(),
        };
        let reason = messages
            .iter()
            .find(|m| !m.starts_with("fio: failed parsing"))
            .map(|m| format!(" ({})", m.trim_start_matches("fio: ")))
            .unwrap_or_default();
        let mut stdout = notices;
        stdout.extend(words.map(value_list).unwrap_or_default());
        let detail = if value.is_empty() && !text.contains('=') {
            format!("option '{key}' needs a value; expected {expected}")
        } else {
            format!("bad value '{value}' in '{text}'{reason}; expected {expected}")
        };
        self.push(location, stderr, stdout, detail);
    }

    /// fio loads the engine to look up options it does not know.
    pub fn engine_not_loadable(&mut self, engine: &str, location: Option<&Location>) {
        // A dropped job (not the global defaults) prints its error record,
        // which holds the dynamic loader's complaint, on stdout.
        let record = if self.job.starts_with("global") {
            vec![]
        } else {
            vec![format!(
                "fio: file:ioengines.c:134, func=dlopen, error={engine}: cannot open shared object file: No such file or directory"
            )]
        };
        self.push(
            location,
            vec![format!("fio: engine {engine} not loadable"), "fio: failed to load engine".to_string()],
            record,
            format!("ioengine '{engine}' is not an engine fio 3.33 has built in, so its options cannot be checked"),
        );
    }

    /// An option that is neither generic nor the engine's own.
    pub fn add_unknown(
        &mut self,
        text: &str,
        key: &str,
        engine: &str,
        location: Option<&Location>,
    ) {
        let mut stderr = vec![format!("Bad option <{text}>")];
        let hint = options::suggest(key);
        if let Some(s) = hint {
            stderr.push(format!("Did you mean {s}?"));
        }
        let owners: Vec<&str> = options::table::OPTIONS
            .iter()
            .filter(|o| o.matches(key) && !o.engines.is_empty())
            .flat_map(|o| o.engines.iter().copied())
            .collect();
        // fio's lines already name the option and the nearest one: ferrio's
        // line adds only where it stands and, for another engine's option,
        // whose it is.
        let detail = if owners.is_empty() {
            format!("in '{text}'")
        } else {
            format!(
                "in '{text}': option '{key}' belongs to ioengine {} but this job uses ioengine {engine}",
                owners.join("/")
            )
        };
        self.push(location, stderr, vec![], detail);
    }

    pub fn finish(self) -> Result<(), PlanError> {
        match self.error {
            None => Ok(()),
            Some(mut e) => {
                if self.in_job_file {
                    e.fio_stderr.push(format!("fio: job {} dropped", self.job));
                }
                Err(e)
            }
        }
    }
}

/// The value word of a choice option closest to a misspelt `value`, when
/// close enough to be worth suggesting (the rule options' names follow).
fn nearest_word(def: &OptDef, value: &str) -> Option<&'static str> {
    let Kind::Choice(words) = def.kind else {
        return None;
    };
    let value = value.trim();
    let (best, d) = words
        .iter()
        .map(|w| (w.word, options::distance(value, w.word)))
        .min_by_key(|(_, d)| *d)?;
    (!value.is_empty() && d > 0 && options::close_enough(value, d)).then_some(best)
}

/// What a value of this option should look like, for error messages.
fn expectation(def: &OptDef) -> String {
    let range = match (def.min, def.max) {
        (Some(lo), Some(hi)) => format!(" from {lo} to {hi}"),
        (Some(lo), None) => format!(" of at least {lo}"),
        (None, Some(hi)) => format!(" of at most {hi}"),
        (None, None) => String::new(),
    };
    match def.kind {
        Kind::Choice(words) if !words.is_empty() => {
            let list: Vec<&str> = words.iter().map(|w| w.word).collect();
            format!("one of {}", list.join(", "))
        }
        Kind::Choice(_) if def.check == crate::options::def::Check::Pattern => {
            "a pattern: hex (0x...), decimal, \"text\", 'file'".to_string()
                + if def.name == "verify_pattern" {
                    " or %o"
                } else {
                    ""
                }
        }
        Kind::Choice(_) | Kind::Text(_) => "a non-empty value".to_string(),
        Kind::Int | Kind::Size => format!("a number with an optional k/m/g/t/p suffix{range}"),
        Kind::Time => "a time such as 10, 500ms, 2m, 1h".to_string(),
        Kind::Bool => "0 or 1".to_string(),
        Kind::Flag => "no value, 0 or 1".to_string(),
        Kind::Range => "a size range such as 4k-64k".to_string(),
        Kind::FloatList { max_len, .. } => format!("up to {max_len} numbers separated by ':'"),
        Kind::Deprecated | Kind::SoftDeprecated => "nothing: the option is deprecated".to_string(),
        Kind::Unsupported => "nothing: fio 3.33 does not support this option here".to_string(),
    }
}

/// fio's list of valid words, printed on stdout after a bad word.
pub fn value_list(def: &OptDef) -> Vec<String> {
    let (Kind::Choice(words) | Kind::Text(words)) = def.kind else {
        return vec![];
    };
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let label = if i == 0 { "valid values" } else { "" };
        out.push(format!("{label:>20}: {:<10} {}", w.word, w.help));
    }
    out.push(String::new());
    out
}
