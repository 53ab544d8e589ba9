//! Applying option text to a job's state, the way fio's option parser does.

use std::fmt;

use super::error::PlanError;
use super::job::{JobSpec, Setting};
use super::{Input, Notes};
use crate::engine::fio_names::FIO_ENGINES;
use crate::jobfile::expand::{replace_keywords, substitute_env};
use crate::jobfile::{Location, Section};
use crate::options::{self, OptDef, ParseContext, Value};

/// Where an option's value was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The n-th job option on the command line; `global` when it came
    /// before the first `--name` (or after a `--name=global...`), where
    /// fio takes it as a global option.
    CommandLine { index: usize, global: bool },
    /// A `[global]` section.
    Global {
        at: Location,
        included_from: Option<Location>,
    },
    /// The job's own section.
    Job {
        at: Location,
        included_from: Option<Location>,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, at, inc) = match self {
            Origin::CommandLine { index, .. } => {
                return write!(f, "command line (option {})", index + 1);
            }
            Origin::Global { at, included_from } => ("global section", at, included_from),
            Origin::Job { at, included_from } => ("job section", at, included_from),
        };
        write!(f, "{what} at {at}")?;
        if let Some(inc) = inc {
            write!(f, ", included from {inc}")?;
        }
        Ok(())
    }
}

/// The options of one job (or of the global defaults) while planning.
#[derive(Debug, Clone)]
pub struct State {
    /// Section name (or `--name`).
    pub name: String,
    pub location: Option<Location>,
    pub settings: Vec<Setting>,
    /// Set on the first job of the second and later job files: fio puts a
    /// stonewall between job files.
    pub force_stonewall: bool,
    /// See [`JobSpec::include_errno`].
    pub include_errno: Option<i32>,
    ncpus: u64,
}

/// One option line waiting to be applied.
struct Pending<'a> {
    text: String,
    origin: Origin,
    location: Option<&'a Location>,
}

impl State {
    pub fn new(name: &str, input: &Input<'_>) -> Self {
        State {
            name: name.to_string(),
            location: None,
            settings: Vec::new(),
            force_stonewall: false,
            include_errno: None,
            ncpus: input.env.ncpus,
        }
    }

    /// A job that starts from these options. A `name=` from a global
    /// section does not carry over: the section name replaces it, as in fio.
    pub fn child(&self, name: &str) -> Self {
        State {
            name: name.to_string(),
            location: None,
            settings: self
                .settings
                .iter()
                .filter(|s| s.def.name != "name")
                .cloned()
                .collect(),
            force_stonewall: false,
            include_errno: None,
            ncpus: self.ncpus,
        }
    }

    fn last(&self, name: &str) -> Option<&Value> {
        debug_assert!(
            options::find(name).is_some_and(|o| o.name == name),
            "no generic option has the canonical name {name:?}"
        );
        self.settings
            .iter()
            .rev()
            .find(|s| s.def.engines.is_empty() && s.def.name == name)
            .map(|s| &s.value)
    }

    fn last_num(&self, name: &str) -> Option<u64> {
        self.last(name)?.number()
    }

    /// The engine name as set (`psync` by default).
    /// Aliases read as fio reads them ([`crate::engine::fio_name`]).
    pub fn engine(&self) -> String {
        let name = match self.last("ioengine") {
            Some(Value::Text(t)) => t.strip_prefix("external:").unwrap_or(t),
            _ => "psync",
        };
        crate::engine::fio_names::fio_name(name).to_string()
    }

    pub fn numjobs(&self) -> u32 {
        self.last_num("numjobs").map_or(1, |n| n as u32)
    }

    pub fn stonewall(&self) -> bool {
        self.force_stonewall || self.last_num("stonewall").is_some_and(|v| v != 0)
    }

    pub fn new_group(&self) -> bool {
        self.last_num("new_group").is_some_and(|v| v != 0)
    }

    pub fn wait_for(&self) -> Option<String> {
        match self.last("wait_for") {
            Some(Value::Text(t)) => Some(t.clone()),
            _ => None,
        }
    }

    /// The reported name: `name=` when set, else the section name.
    pub fn job_name(&self) -> String {
        match self.last("name") {
            Some(Value::Text(t)) => t.clone(),
            _ => self.name.clone(),
        }
    }

    fn context(&self, input: &Input<'_>, def: &'static OptDef) -> ParseContext {
        let earlier = self
            .settings
            .iter()
            .rev()
            .find(|s| std::ptr::eq(s.def, def))
            .map(|s| &s.value);
        let previous = match earlier.or_else(|| super::job::default_value(def)) {
            Some(Value::Nums(v)) => *v,
            _ => [0; 3],
        };
        ParseContext {
            kb_base: self.last_num("kb_base").filter(|&b| b != 0).unwrap_or(1024),
            ncpus: self.ncpus,
            dry_run: input.dry_run,
            previous,
        }
    }

    pub fn to_spec(&self, group: u32, number: u32, subjob: u32) -> JobSpec {
        JobSpec {
            name: self.job_name(),
            group,
            number,
            subjob,
            engine: self.engine(),
            settings: self.settings.clone(),
            include_errno: self.include_errno,
        }
    }

    /// Applies one command-line job option (no prio sorting, no `${}`
    /// expansion: the shell has done that).
    pub fn apply_one(
        &mut self,
        name: &str,
        value: Option<&str>,
        origin: Origin,
        input: &Input<'_>,
        notes: &mut Notes,
    ) -> Result<(), PlanError> {
        let text = match value {
            Some(v) => format!("{name}={v}"),
            None => name.to_string(),
        };
        let pending = [Pending {
            text,
            origin,
            location: None,
        }];
        self.apply(&pending, false, input, notes)
    }

    /// Applies a section's options as fio does: sorted by option priority
    /// (stable), then expanded, then parsed.
    pub fn apply_section(
        &mut self,
        section: &Section,
        input: &Input<'_>,
        notes: &mut Notes,
    ) -> Result<(), PlanError> {
        let global = section.is_global();
        let mut pending: Vec<Pending<'_>> = section
            .entries
            .iter()
            .map(|e| {
                let at = e.location.clone();
                let included_from = e.included_from.clone();
                Pending {
                    text: e.text(),
                    origin: if global {
                        Origin::Global { at, included_from }
                    } else {
                        Origin::Job { at, included_from }
                    },
                    location: Some(&e.location),
                }
            })
            .collect();
        pending.sort_by_key(|p| std::cmp::Reverse(prio_of(&p.text)));
        if self.location.is_none() {
            self.location = Some(section.location.clone());
        }
        self.apply(&pending, true, input, notes)
    }

    fn apply(
        &mut self,
        pending: &[Pending<'_>],
        expand: bool,
        input: &Input<'_>,
        notes: &mut Notes,
    ) -> Result<(), PlanError> {
        let mut errors = PlanError::collector(&self.name, expand);
        let mut unknown: Vec<(usize, String, String, Option<String>)> = Vec::new();
        for (i, p) in pending.iter().enumerate() {
            let unset = if expand {
                unset_vars(&p.text, &input.env)
            } else {
                Vec::new()
            };
            let text = if expand {
                match replace_keywords(&substitute_env(&p.text, &input.env), &input.env) {
                    Ok(t) => t,
                    Err(e) => {
                        // bc says why it could not compute, but not of a
                        // value it computed that is only too large.
                        let said = if e.is_too_large() { vec![] } else { vec![e.0] };
                        errors.add_failed(&p.text, p.location, said, None, vec![]);
                        errors.explain_unset(p.location, &unset);
                        continue;
                    }
                }
            } else {
                p.text.clone()
            };
            let (key, value) = split(&text);
            let Some(def) = options::find(&key) else {
                unknown.push((i, text.clone(), key, value));
                continue;
            };
            self.parse_into(def, p, value, input, &mut errors, notes);
            errors.explain_unset(p.location, &unset);
        }
        if !unknown.is_empty() {
            let engine = self.engine();
            let loadable = FIO_ENGINES.contains(&engine.as_str());
            if !loadable {
                errors.engine_not_loadable(&engine, pending[unknown[0].0].location);
            }
            for (i, _text, key, value) in unknown {
                let p = &pending[i];
                match options::find_engine_option(&engine, &key).filter(|_| loadable) {
                    Some(def) => self.parse_into(def, p, value, input, &mut errors, notes),
                    None => errors.add_unknown(&p.text, &key, &engine, p.location),
                }
            }
        }
        errors.finish()
    }

    /// Reads one option line's value (`value`, after expansion) and keeps
    /// it, or records why fio would refuse it.
    fn parse_into(
        &mut self,
        def: &'static OptDef,
        line: &Pending<'_>,
        value: Option<String>,
        input: &Input<'_>,
        errors: &mut super::error::Collector,
        notes: &mut Notes,
    ) {
        let raw_text = line.text.as_str();
        let parsed = options::value::parse(def, value.as_deref(), &self.context(input, def));
        match parsed.value {
            Some(v) => {
                notes.stderr.extend(parsed.messages);
                for notice in &parsed.notices {
                    notes.say(notice);
                }
                let raw = split(raw_text).1;
                self.settings.push(Setting {
                    def,
                    raw,
                    text: value,
                    value: v,
                    origin: line.origin.clone(),
                });
            }
            None => errors.add_failed(
                raw_text,
                line.location,
                parsed.messages,
                parsed.show_words.then_some(def),
                parsed.notices,
            ),
        }
    }
}

/// Splits `key=value` at the first `=`; the key loses trailing blanks.
fn split(text: &str) -> (String, Option<String>) {
    match text.split_once('=') {
        Some((k, v)) => (k.trim_end().to_string(), Some(v.to_string())),
        None => (text.trim_end().to_string(), None),
    }
}

/// An option line's priority, looked up from its unexpanded key.
fn prio_of(text: &str) -> i8 {
    options::find(&split(text).0).map_or(0, |o| o.prio)
}

/// The `${NAME}`s of `text` that the environment does not set.
fn unset_vars(text: &str, env: &crate::jobfile::expand::Environment) -> Vec<String> {
    let mut unset = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        if !env.vars.contains_key(name) && !unset.iter().any(|n| n == name) {
            unset.push(name.to_string());
        }
        rest = &after[end + 1..];
    }
    unset
}
