//! fio's trigger (`--trigger-file`, `--trigger-timeout`, `--trigger`): an
//! outside event that ends a local run early. While the jobs run, the
//! main thread looks for the trigger file (and removes it once seen) and
//! at the trigger time (whole seconds from the jobs' start); either one
//! saves every job's verify state as it is at that moment (see
//! [`crate::run::verification::trigger_save`]), stops every job at its next I/O (the later
//! groups never start) and then runs the trigger command through the
//! shell, waiting for it. Nothing is printed of it and the exit status
//! stays that of the jobs: the run ends as if its time were up.
//!
//! `--trigger-remote` is the command a fio server runs when its client
//! triggers; fio reads it only with `--client`, which ferrio refuses, so
//! in a local run it changes nothing, as in fio.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::cli::Args;
use crate::run::status::progress::JobProgress;
use crate::run::verification::verify_trail::StateParts;

/// What the command line asked of the trigger.
#[derive(Debug, Default)]
pub struct Trigger {
    file: Option<PathBuf>,
    /// Whole seconds from the jobs' start; fio drops fractions (and so a
    /// time under a second never fires).
    timeout: Option<Duration>,
    command: Option<String>,
    start: Option<Instant>,
}

impl Trigger {
    /// Reads the trigger flags; a trigger time fio cannot read fails the
    /// run with its message (exit status 1).
    pub fn from_args(args: &Args) -> Result<Trigger, i32> {
        let timeout = match args.flag("trigger-timeout").flatten() {
            None => None,
            Some(text) => match crate::options::number::time_us(text, true) {
                Some(us) => Some(Duration::from_secs(us / 1_000_000)).filter(|d| !d.is_zero()),
                None => {
                    eprintln!("fio: failed parsing time {text}");
                    crate::persona::explain(&format!(
                        "--trigger-timeout={text}: expected a time such as 10 or 2m"
                    ));
                    return Err(1);
                }
            },
        };
        crate::run::verification::state_request::set_aux_path(
            args.flag("aux-path").flatten().map(PathBuf::from),
        );
        Ok(Trigger {
            file: args.flag("trigger-file").flatten().map(PathBuf::from),
            timeout,
            command: args
                .flag("trigger")
                .flatten()
                .filter(|c| !c.is_empty())
                .map(str::to_string),
            start: None,
        })
    }

    /// The jobs start now: the trigger time counts from here.
    pub fn started(&mut self) {
        self.start = Some(Instant::now());
    }

    /// Looks for the trigger file and the trigger time: whether either is
    /// there, and the trigger is to [`Trigger::fire`].
    pub fn due(&mut self) -> bool {
        self.file_appeared() || self.timed_out()
    }

    /// Saves every job's verify state, stops every job (setting `stop`),
    /// then runs the command. `running`: whether the first group's jobs
    /// have been let go.
    pub fn fire(
        &self,
        jobs: &[StateParts<'_>],
        progress: &[JobProgress],
        stop: &AtomicBool,
        running: bool,
    ) {
        crate::run::verification::trigger_save::save_all(jobs, progress, stop, running);
        self.run_command();
    }

    /// The trigger file exists; it is removed (a failure is reported and
    /// the trigger fires all the same).
    fn file_appeared(&self) -> bool {
        let Some(path) = &self.file else {
            return false;
        };
        if std::fs::metadata(path).is_err() {
            return false;
        }
        if let Err(e) = std::fs::remove_file(path) {
            eprintln!(
                "fio: failed to unlink {}: {}",
                path.display(),
                crate::strerror(&e)
            );
        }
        true
    }

    /// The trigger time has come; it fires once.
    fn timed_out(&mut self) -> bool {
        let (Some(after), Some(start)) = (self.timeout, self.start) else {
            return false;
        };
        if start.elapsed() < after {
            return false;
        }
        self.timeout = None;
        true
    }

    /// Runs the command as system(3) does (`/bin/sh -c`), with ferrio's
    /// streams, and waits for it; its exit status is not looked at.
    fn run_command(&self) {
        let Some(command) = &self.command else {
            return;
        };
        let ran = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(command)
            .status();
        if ran.is_err() {
            eprintln!("fio: failed executing {command} trigger");
        }
    }
}
