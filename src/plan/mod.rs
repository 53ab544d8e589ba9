//! From job-file sections and command-line options to a typed [`Plan`].
//!
//! Planning is a pure function of its [`Input`]: no I/O beyond the job-file
//! [`Loader`](crate::jobfile::Loader), no global state. It follows fio's
//! rules: `[global]` sections set defaults for the jobs after them, options
//! inside a section are applied by priority, unknown options are looked up
//! among the engine's own options, `numjobs` makes same-named clones, and
//! `stonewall`/`new_group` start new groups.

mod apply;
mod error;
mod job;

use std::collections::HashMap;

pub use apply::Origin;
pub use error::{PlanError, value_list};
pub use job::{JobSpec, Setting, default_value};

pub use crate::jobfile::Notes;
use crate::jobfile::{self, Loader, expand::Environment};
use apply::State;

/// One option given on the command line, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CmdOption {
    pub name: String,
    pub value: Option<String>,
}

/// Everything planning depends on.
pub struct Input<'a> {
    /// Job options from the command line (`--name=a --rw=read ...`).
    pub cmdline: Vec<CmdOption>,
    /// Job files, in command-line order.
    pub files: Vec<String>,
    /// `--section` names; empty means all sections.
    pub sections: Vec<String>,
    pub env: Environment,
    pub loader: &'a dyn Loader,
    /// `--parse-only`: fio skips some value checks then, and so do we.
    pub dry_run: bool,
    /// `--showcmd`: the command lines go into the plan's stdout transcript.
    pub showcmd: bool,
    /// `--max-jobs` (fio's limit is 4096 by default).
    pub max_jobs: usize,
}

/// The planned run: groups of jobs that run one group after another.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub groups: Vec<Group>,
    /// What fio prints while reading input it still accepts, in order
    /// (with `--showcmd`, the command lines too).
    pub notes: Notes,
}

/// Jobs that run together; the next group starts when all have finished.
#[derive(Debug, Clone)]
pub struct Group {
    pub id: u32,
    pub jobs: Vec<JobSpec>,
}

impl Plan {
    /// Every job in run order.
    pub fn jobs(&self) -> impl Iterator<Item = &JobSpec> {
        self.groups.iter().flat_map(|g| g.jobs.iter())
    }
}

/// Builds the plan.
pub fn plan(input: &Input<'_>) -> Result<Plan, PlanError> {
    let mut builder = Builder {
        input,
        global: State::new("global", input),
        jobs: Vec::new(),
        notes: Notes::default(),
    };
    builder.command_line()?;
    for (index, file) in input.files.iter().enumerate() {
        if index > 0 {
            // fio resets its defaults (even those from the command line)
            // before each job file after the first.
            builder.global = State::new("global", input);
        }
        builder.job_file(file, index > 0)?;
    }
    builder.finish()
}

struct Builder<'a> {
    input: &'a Input<'a>,
    /// The options every later job starts from (fio's default thread).
    global: State,
    /// Jobs in definition order, before clones and groups.
    jobs: Vec<State>,
    notes: Notes,
}

impl Builder<'_> {
    fn keep_section(&self, name: &str) -> bool {
        self.input.sections.is_empty()
            || name.starts_with("global")
            || self.input.sections.iter().any(|s| s == name)
    }

    /// Command-line job options: those before the first `--name` are
    /// defaults for everything; each `--name` starts a job (or, named
    /// `global...`, a global block) that later options refine.
    fn command_line(&mut self) -> Result<(), PlanError> {
        let mut current: Option<State> = None;
        let mut skipping = false;
        for (index, opt) in self.input.cmdline.iter().enumerate() {
            if opt.name == "name" {
                if let Some(job) = current.take() {
                    self.jobs.push(job);
                }
                let name = opt.value.clone().unwrap_or_default();
                skipping = !self.keep_section(&name);
                if !name.starts_with("global") && !skipping {
                    current = Some(self.global.child(&name));
                }
            }
            if skipping {
                continue;
            }
            let origin = Origin::CommandLine {
                index,
                global: current.is_none(),
            };
            let target = current.as_mut().unwrap_or(&mut self.global);
            target.apply_one(
                &opt.name,
                opt.value.as_deref(),
                origin,
                self.input,
                &mut self.notes,
            )?;
        }
        if let Some(job) = current {
            self.jobs.push(job);
        }
        Ok(())
    }

    /// Reads one job file. `self.notes` is the transcript of what fio
    /// prints, kept in fio's order: on an error it is prepended to the
    /// error's own output, as fio would have printed it before failing.
    fn job_file(&mut self, path: &str, stonewall_first: bool) -> Result<(), PlanError> {
        let result = self.job_file_sections(path, stonewall_first);
        // fio ends each file's command line, even an empty one, and even
        // when it stops on an error (then after the error's own output).
        if self.input.showcmd && result.is_ok() {
            self.notes.stdout.push('\n');
        }
        result.map_err(|mut e| {
            let mut stdout = std::mem::take(&mut self.notes.stdout);
            stdout.push_str(&e.fio_stdout);
            if self.input.showcmd {
                stdout.push('\n');
            }
            e.fio_stdout = stdout;
            let mut stderr = std::mem::take(&mut self.notes.stderr);
            stderr.append(&mut e.fio_stderr);
            e.fio_stderr = stderr;
            e
        })
    }

    fn job_file_sections(&mut self, path: &str, stonewall_first: bool) -> Result<(), PlanError> {
        let outcome = jobfile::read(self.input.loader, path, &|name| self.keep_section(name));
        let showcmd = self.input.showcmd;
        let mut stonewall_pending = stonewall_first;
        for (index, section) in outcome.sections.iter().enumerate() {
            if showcmd && index == 0 {
                self.notes.stdout.push_str("fio ");
            }
            self.notes
                .stderr
                .extend(section.include_errors.stderr.iter().cloned());
            if section.is_global() {
                self.global
                    .apply_section(section, self.input, &mut self.notes)?;
                if showcmd {
                    self.notes
                        .stdout
                        .push_str(&showcmd_options(&self.global.settings, true));
                }
                continue;
            }
            let mut job = self.global.child(&section.name);
            job.location = Some(section.location.clone());
            if stonewall_pending {
                job.force_stonewall = true;
                stonewall_pending = false;
            }
            if showcmd {
                self.notes
                    .stdout
                    .push_str(&format!("--name={} ", section.name));
            }
            job.apply_section(section, self.input, &mut self.notes)?;
            if showcmd {
                self.notes
                    .stdout
                    .push_str(&showcmd_options(&job.settings, false));
            }
            // The job's error record from a failed include comes when fio
            // sets the job up, after its options, in a plan that is not
            // run; a run reports it as the job's error instead.
            if self.input.dry_run {
                self.notes.stdout.push_str(&section.include_errors.stdout);
            }
            job.include_errno = section.include_errno;
            self.jobs.push(job);
        }
        match outcome.error {
            Some(e) => Err(PlanError::from_read(e)),
            None => Ok(()),
        }
    }

    /// Expands clones and assigns groups and job numbers, as fio's
    /// `add_job` does.
    fn finish(self) -> Result<Plan, PlanError> {
        let mut groups: Vec<Group> = Vec::new();
        let mut group_id = 0u32;
        let mut jobs_in_group = 0usize;
        let mut number = 0u32;
        let mut names: HashMap<String, usize> = HashMap::new();
        for state in self.jobs {
            let numjobs = state.numjobs();
            if numjobs == 0 && !self.input.dry_run {
                return Err(PlanError::numjobs_zero(&state));
            }
            if (state.stonewall() || state.new_group()) && jobs_in_group > 0 {
                group_id += 1;
                jobs_in_group = 0;
            }
            if let Some(waitee) = state.wait_for() {
                let found = names.get(&waitee).copied().unwrap_or(0);
                if !self.input.dry_run && (waitee == state.name || found != 1) {
                    return Err(PlanError::bad_wait_for(&state, &waitee, found));
                }
            }
            for clone in 0..numjobs.max(1) {
                number += 1;
                if number as usize > self.input.max_jobs && !self.input.dry_run {
                    return Err(PlanError::too_many_jobs(self.input.max_jobs));
                }
                // fio numbers the first job 0 and its clones from
                // numjobs-1 down to 1.
                let subjob = if clone == 0 { 0 } else { numjobs - clone };
                let spec = state.to_spec(group_id, number, subjob);
                if clone == 0
                    && !self.input.dry_run
                    && let Some(e) = PlanError::option_conflicts(&state, &spec)
                {
                    return Err(e);
                }
                jobs_in_group += 1;
                match groups.last_mut() {
                    Some(g) if g.id == group_id => g.jobs.push(spec),
                    _ => groups.push(Group {
                        id: group_id,
                        jobs: vec![spec],
                    }),
                }
            }
            *names.entry(state.job_name()).or_default() += 1;
        }
        Ok(Plan {
            groups,
            notes: self.notes,
        })
    }
}

/// A section's options as `--showcmd` prints them: the global defaults so
/// far for a global section, the job's own options for a job.
fn showcmd_options(settings: &[Setting], global: bool) -> String {
    let mut out = String::new();
    for s in settings {
        let from_section = match s.origin {
            Origin::Global { .. } => global,
            Origin::Job { .. } => !global,
            Origin::CommandLine { .. } => false,
        };
        if !from_section {
            continue;
        }
        match &s.text {
            Some(v) if s.def.name == "description" => {
                out.push_str(&format!("--{}=\"{v}\" ", s.def.name))
            }
            Some(v) => out.push_str(&format!("--{}={v} ", s.def.name)),
            None => out.push_str(&format!("--{} ", s.def.name)),
        }
    }
    out
}

/// Plans one job file held in memory at `/t/job.fio`, with command-line
/// options and environment variables, on a fixed machine (4 KiB pages,
/// 1 GiB, 2 CPUs): what tests across the crate start from.
#[cfg(test)]
pub(crate) fn plan_for_test(
    text: &str,
    cmdline: &[(&str, Option<&str>)],
    vars: &[(&str, &str)],
    dry_run: bool,
) -> Result<Plan, PlanError> {
    let mut loader = crate::jobfile::MemLoader::default();
    loader
        .0
        .insert("/t/job.fio".into(), text.as_bytes().to_vec());
    let input = Input {
        cmdline: cmdline
            .iter()
            .map(|(n, v)| CmdOption {
                name: n.to_string(),
                value: v.map(str::to_string),
            })
            .collect(),
        files: vec!["/t/job.fio".to_string()],
        sections: vec![],
        env: Environment {
            vars: vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            page_size: 4096,
            mb_memory: 1024,
            ncpus: 2,
        },
        loader: &loader,
        dry_run,
        showcmd: false,
        max_jobs: 4096,
    };
    plan(&input)
}

#[cfg(test)]
mod tests;
