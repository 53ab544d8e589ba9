//! fio's `exec` engine: runs a program beside the job instead of doing
//! I/O. The first "I/O" starts it; each later one waits 50 ms and, once
//! the job's runtime is over, asks the program to stop (SIGTERM) and
//! gives it `grace_time` seconds. When the job ends the program is
//! killed if it still runs. Like fio, the job thinks 50 ms after every
//! I/O, and it ends by its runtime, not when the program exits.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::api::{Engine, OpenMode, OptionSource, Queued, Request};
use crate::sys::signals::sleep_or_stop;

/// How long the engine waits in each I/O, and thinks after it.
const POLL: Duration = Duration::from_millis(50);

/// The engine's options, with what it needs of the job.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExecOptions {
    pub program: Option<String>,
    pub arguments: Option<String>,
    /// Seconds between SIGTERM and the next check.
    pub grace_secs: u64,
    /// Send the program's stdout and stderr to `<job>.stdout` and
    /// `<job>.stderr` in the working directory.
    pub std_redirect: bool,
    pub job: String,
    /// The job's runtime in µs (0: none, and the program is stopped at
    /// the first check).
    pub runtime_us: u64,
}

impl ExecOptions {
    /// The arguments with `%r` (the runtime in whole seconds) and `%n`
    /// (the job's name) filled in, or fio's `(null)` without any.
    fn expanded(&self) -> String {
        match &self.arguments {
            Some(a) => a
                .replace("%r", &(self.runtime_us / 1_000_000).to_string())
                .replace("%n", &self.job),
            None => "(null)".to_string(),
        }
    }

    /// The lines fio prints as the engine starts and as it starts the
    /// program.
    pub fn banner(&self) -> String {
        let program = self.program.as_deref().unwrap_or("(null)");
        let arguments = self.arguments.as_deref().unwrap_or("(null)");
        let job = &self.job;
        let first = format!("{job} : program={program}, arguments={arguments}");
        let second = if self.std_redirect {
            format!(
                "{job} : Saving output of {program} {} : stdout={job}.stdout stderr={job}.stderr",
                self.expanded()
            )
        } else {
            format!("{job} : Running {program} {}", self.expanded())
        };
        format!("{first}\n{second}")
    }

    /// The command line split at spaces, as fio splits it.
    fn words(&self) -> Vec<String> {
        let program = self.program.as_deref().unwrap_or_default();
        let line = match &self.arguments {
            Some(_) => format!("{program} {}", self.expanded()),
            None => program.to_string(),
        };
        line.split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    }
}

pub struct Exec {
    options: ExecOptions,
    child: Option<Child>,
    /// When the program was started: the first I/O.
    started: Option<Instant>,
}

/// One of the files the program's output goes to.
fn output_file(name: &str) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(name)
}

impl Exec {
    /// The engine for a job; EINVAL without a program, as fio's init.
    pub fn new(options: ExecOptions) -> io::Result<Self> {
        if options.program.as_deref().is_none_or(str::is_empty) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no program is defined, it is mandatory to define one",
            ));
        }
        Ok(Exec {
            options,
            child: None,
            started: None,
        })
    }

    /// Starts the program; a failure is reported and the job goes on, as
    /// fio's does.
    fn start(&mut self) {
        let words = self.options.words();
        let mut command = Command::new(&words[0]);
        command.args(&words[1..]);
        if self.options.std_redirect {
            let job = &self.options.job;
            for (name, to_stdout) in [
                (format!("{job}.stdout"), true),
                (format!("{job}.stderr"), false),
            ] {
                match output_file(&name) {
                    Ok(f) if to_stdout => {
                        command.stdout(Stdio::from(f));
                    }
                    Ok(f) => {
                        command.stderr(Stdio::from(f));
                    }
                    Err(e) => {
                        eprintln!("fio: cannot open output file {name} : {e}");
                        return;
                    }
                }
            }
        }
        match command.spawn() {
            Ok(child) => self.child = Some(child),
            Err(e) => eprintln!("fio: running {} failed: {e}", words[0]),
        }
    }
}

impl Engine for Exec {
    fn name(&self) -> &'static str {
        "exec"
    }

    fn open(&mut self, _path: &Path, _mode: OpenMode) -> io::Result<usize> {
        Ok(0)
    }

    unsafe fn queue(&mut self, _req: Request<'_>) -> Queued {
        let Some(started) = self.started else {
            self.started = Some(Instant::now());
            self.start();
            return Queued::Done(0);
        };
        sleep_or_stop(POLL, || false);
        if started.elapsed() > Duration::from_micros(self.options.runtime_us)
            && let Some(child) = &self.child
        {
            // SAFETY: kill only sends a signal to the program's process.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
            // A stop signal cuts the grace short: the job ends, and the
            // program is killed with it (Drop).
            sleep_or_stop(Duration::from_secs(self.options.grace_secs), || false);
        }
        Queued::Done(0)
    }

    fn think_time(&self) -> Option<Duration> {
        Some(POLL)
    }

    no_file_data!();
}

impl Drop for Exec {
    /// The program does not outlive its job.
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// exec's options, as the job sets them.
pub fn options(src: &OptionSource) -> ExecOptions {
    let job = src.job;
    ExecOptions {
        program: super::api::text(job, "program"),
        arguments: super::api::text(job, "arguments"),
        grace_secs: job.num("grace_time").unwrap_or(1),
        // Engine options have no table defaults here: fio's is on.
        std_redirect: job
            .setting("std_redirect")
            .is_none_or(|s| s.value.number().is_some_and(|v| v != 0)),
        job: job.name.clone(),
        runtime_us: job.num("runtime").unwrap_or(0),
    }
}

/// The table's maker.
pub fn make(_: usize, options: &ExecOptions) -> io::Result<Box<dyn Engine>> {
    Exec::new(options.clone()).map(|e| Box::new(e) as Box<dyn Engine>)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(arguments: Option<&str>) -> ExecOptions {
        ExecOptions {
            program: Some("echo".into()),
            arguments: arguments.map(str::to_string),
            grace_secs: 1,
            std_redirect: true,
            job: "j".into(),
            runtime_us: 3_500_000,
        }
    }

    #[test]
    fn arguments_get_the_runtime_and_name() {
        let o = options(Some("a  %r %n"));
        assert_eq!(o.words(), ["echo", "a", "3", "j"]);
        assert_eq!(options(None).words(), ["echo"]);
    }

    #[test]
    fn no_program_is_refused() {
        let o = ExecOptions {
            program: None,
            ..options(None)
        };
        assert!(Exec::new(o).is_err());
    }
}
