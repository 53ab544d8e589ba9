//! read_iolog: replaying the I/O recorded in a version 2 or 3 iolog, as
//! fio 3.33 does.
//!
//! The log is parsed once, before the job starts, into a list of steps:
//! the replay then walks the list without allocating. The log names the
//! job's files (its `add` lines), its directions and its total size, so
//! all of those come from the log instead of the job's own options.
//!
//! Version 3 lines carry a time (microseconds); each step waits for the
//! gap since the previous line, scaled by replay_time_scale, unless
//! replay_no_stall. Version 2 has only the `wait` action, which holds
//! the job until that many milliseconds after the run began.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::Dir;
use crate::options::Value;
use crate::plan::JobSpec;
use crate::run::pacing::clock::{self, Nanos, nanos};
use crate::run::records::replay_log::{Action, ReplayLog, ReplayOptions, Step, gap_since, scaled};
use crate::run::refusal::Refusal;

const VERSION2: &str = "fio version 2 iolog";
const VERSION3: &str = "fio version 3 iolog";

/// Which of a `:`-separated list of logs a job's clone replays (fio's
/// get_name_by_idx).
pub fn log_for_clone(list: &str, subjob: u32) -> &str {
    let names: Vec<&str> = list.split(':').collect();
    names[subjob as usize % names.len()]
}

/// Reads and parses the log at `path`; an error is a sentence for the user.
pub fn load(path: &Path, job: &str, opts: &ReplayOptions) -> Result<ReplayLog, String> {
    let text =
        read_source(path).map_err(|e| format!("fio: cannot read iolog {}: {e}", path.display()))?;
    // fio takes a file as a blktrace when its first whole record starts
    // with the magic number.
    if text.len() >= 48 && crate::run::records::blktrace::byte_order(&text).is_some() {
        return crate::run::records::blktrace::parse(&text, job, opts)
            .map_err(|e| format!("blktrace {}: {e}", path.display()));
    }
    parse(&String::from_utf8_lossy(&text), job, opts)
        .map_err(|e| format!("iolog {}: {e}", path.display()))
}

/// The whole log: from standard input (`-`, which only one job may
/// read), a Unix socket (which fio connects to and reads until the
/// writer closes it) or a file.
fn read_source(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    static STDIN_TAKEN: AtomicBool = AtomicBool::new(false);
    if path == Path::new("-") {
        if STDIN_TAKEN.swap(true, Ordering::Relaxed) {
            return Err(std::io::Error::other(
                "standard input was already read by another job \
                 (fio: unable to read iolog)",
            ));
        }
        let mut data = Vec::new();
        std::io::stdin().read_to_end(&mut data)?;
        if data.is_empty() {
            return Err(std::io::Error::other(
                "standard input is empty (fio permits only one user of it: \
                 the job file or read_iolog)",
            ));
        }
        return Ok(data);
    }
    if std::fs::metadata(path)?.file_type().is_socket() {
        let mut data = Vec::new();
        std::os::unix::net::UnixStream::connect(path)?.read_to_end(&mut data)?;
        return Ok(data);
    }
    std::fs::read(path)
}

/// Parses a log's text, line by line as fio reads it.
pub fn parse(text: &str, job: &str, opts: &ReplayOptions) -> Result<ReplayLog, String> {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let version: u32 = if first.starts_with(VERSION2) {
        2
    } else if first.starts_with(VERSION3) {
        3
    } else {
        return Err("fio: iolog version 1 is no longer supported".to_string());
    };
    let mut log = ReplayLog::default();
    let mut last_time = 0u64;
    let mut dropped = Dropped::default();
    for (n, line) in lines.enumerate() {
        let mut words = line.split_whitespace();
        let mut delay_us = 0;
        if version == 3 {
            let Some(time) = words.next().and_then(|w| w.parse::<u64>().ok()) else {
                log.warnings.push(format!("bad iolog3: {line}"));
                continue;
            };
            delay_us = gap_since(last_time, time, opts);
            last_time = time;
        }
        let fields: Vec<&str> = words.collect();
        let (name, act) = match fields[..] {
            [name, act, ..] => (name, act),
            _ => {
                log.warnings.push(format!("bad iolog{version}: {line}"));
                continue;
            }
        };
        if version == 3 && act == "wait" {
            log.warnings.push(format!(
                "iolog: ignoring wait command with version 3 for file {name}"
            ));
            continue;
        }
        let name = opts.redirect.as_deref().unwrap_or(Path::new(name));
        let known = log.files.iter().position(|f| f == name);
        let file = |known: Option<usize>| {
            known.ok_or_else(|| {
                format!(
                    "line {}: {} is used before an add line names it",
                    n + 2,
                    name.display()
                )
            })
        };
        let action = match fields[2..] {
            [offset, len] => decode_sized(act, offset, len, version, line, &mut log.warnings)
                .and_then(|action| admit(action, opts, &mut log, &mut dropped)),
            [] => file_action(act, name, known.is_some(), opts, &mut log),
            _ => {
                log.warnings.push(format!("bad iolog{version}: {line}"));
                None
            }
        };
        let Some(action) = action else {
            continue;
        };
        let file = match action {
            // An add names the file it adds, even when it was added before.
            Action::File if act == "add" => log.files.len() - 1,
            _ => file(known)?,
        };
        log.steps.push(Step {
            file,
            delay_us,
            action,
        });
    }
    if dropped.writes > 0 {
        log.warnings.push(format!(
            "fio: <{job}> skips replay of {} writes due to read-only",
            dropped.writes
        ));
    }
    if !log.reads && !log.writes && !dropped.waits_kept {
        return Err(
            "fio: the log has no reads or writes to replay (failed initializing iolog)".to_string(),
        );
    }
    Ok(log)
}

/// What the reading of a log keeps count of beside the steps.
#[derive(Default)]
struct Dropped {
    /// Writes --readonly dropped from the replay.
    writes: u64,
    /// Whether a wait was kept (a log of waits alone still replays).
    waits_kept: bool,
}

/// An entry with an offset and a length (an I/O, a wait, a sync) as its
/// action, or `None` where fio skips it, with the warning fio gives.
fn decode_sized(
    act: &str,
    offset: &str,
    len: &str,
    version: u32,
    line: &str,
    warnings: &mut Vec<String>,
) -> Option<Action> {
    let (Ok(offset), Ok(len)) = (offset.parse::<u64>(), len.parse::<u32>()) else {
        warnings.push(format!("bad iolog{version}: {line}"));
        return None;
    };
    let len = u64::from(len);
    Some(match act {
        "wait" => Action::Wait { ms: offset },
        "read" => Action::Io {
            dir: Dir::Read,
            offset,
            len,
        },
        "write" => Action::Io {
            dir: Dir::Write,
            offset,
            len,
        },
        // fio 3.33 reads a trim but then skips it, as a direction it does
        // not replay (its DDIR_TRIM is 2).
        "trim" => {
            warnings.push("bad ddir: 2".to_string());
            return None;
        }
        "sync" => Action::Sync { data_only: false },
        "datasync" => Action::Sync { data_only: true },
        _ => {
            warnings.push(format!("fio: bad iolog file action: {act}"));
            return None;
        }
    })
}

/// A decoded action as the replay takes it: writes dropped under
/// --readonly and waits under replay_no_stall; an I/O's offset scaled
/// and counted in what the job does.
fn admit(
    action: Action,
    opts: &ReplayOptions,
    log: &mut ReplayLog,
    dropped: &mut Dropped,
) -> Option<Action> {
    Some(match action {
        Action::Io {
            dir: Dir::Write, ..
        } if opts.readonly => {
            dropped.writes += 1;
            return None;
        }
        Action::Wait { .. } if opts.no_stall => return None,
        Action::Io { dir, offset, len } => {
            let offset = scaled(offset, opts);
            match dir {
                Dir::Read => log.reads = true,
                Dir::Write => log.writes = true,
                Dir::Trim => log.trims = true,
            }
            log.max_len = log.max_len.max(len);
            log.bytes += len;
            Action::Io { dir, offset, len }
        }
        Action::Wait { ms } => {
            dropped.waits_kept = true;
            Action::Wait { ms }
        }
        other => other,
    })
}

/// A file entry (`add`, `open`, `close`) as its action; an add names a
/// new file of the log unless a redirect sends every name to one file
/// already added. `None` for an action fio does not know.
fn file_action(
    act: &str,
    name: &Path,
    known: bool,
    opts: &ReplayOptions,
    log: &mut ReplayLog,
) -> Option<Action> {
    match act {
        "add" => {
            if !known || opts.redirect.is_none() {
                log.files.push(name.to_path_buf());
            }
            Some(Action::File)
        }
        "open" => Some(Action::Open),
        "close" => Some(Action::File),
        _ => {
            log.warnings
                .push(format!("fio: bad iolog file action: {act}"));
            None
        }
    }
}

/// Where a running replay is, and the pacing state fio keeps for it.
pub struct Replayer<'a> {
    steps: &'a [Step],
    next: usize,
    /// Steps up to and including the last I/O or sync.
    io_steps: usize,
    /// When the last I/O was issued: a delay counts from there.
    last_issue: Nanos,
    /// fio leaves the issue time to engines that stamp their own (libaio,
    /// io_uring, null at a depth above 1), and then only a file action
    /// moves it: every delay counts from the last one.
    engine_stamps: bool,
    /// How far the last sleep overshot, taken off the next delay.
    overshoot_us: u64,
}

impl<'a> Replayer<'a> {
    pub fn new(log: &'a ReplayLog, start: Nanos, engine_stamps: bool) -> Self {
        Replayer {
            steps: &log.steps,
            next: 0,
            io_steps: log.io_steps(),
            last_issue: start,
            engine_stamps,
            overshoot_us: 0,
        }
    }

    /// Whether an I/O or sync is still to come.
    pub fn io_left(&self) -> bool {
        self.next < self.io_steps
    }

    /// Takes the steps left after the last I/O (file actions, with their
    /// delays), as fio does when it looks for an I/O and finds none.
    pub fn finish(&mut self, stopped: &dyn Fn() -> bool) {
        while self.peek().is_some() {
            if !self.take(stopped) {
                return;
            }
        }
    }

    /// The next step, without taking it.
    pub fn peek(&self) -> Option<Step> {
        self.steps.get(self.next).copied()
    }

    /// Takes the next step, after waiting as its delay asks; `false` if
    /// `stopped` said to stop while waiting.
    pub fn take(&mut self, stopped: &dyn Fn() -> bool) -> bool {
        let Some(step) = self.peek() else {
            return true;
        };
        self.next += 1;
        if let Action::Wait { ms } = step.action {
            let until = clock::genesis().saturating_add(nanos(Duration::from_millis(ms)));
            return sleep_until(until, stopped);
        }
        let ok = step.delay_us == 0 || self.delay(step.delay_us, stopped);
        if matches!(step.action, Action::File | Action::Open) {
            self.last_issue = clock::now();
        }
        ok
    }

    /// Notes that an I/O (or sync) was issued now.
    pub fn issued(&mut self, at: Nanos) {
        if !self.engine_stamps {
            self.last_issue = at;
        }
    }

    /// fio's iolog_delay: the time since the last issue counts toward the
    /// delay, and an earlier oversleep is taken off it.
    fn delay(&mut self, wanted: u64, stopped: &dyn Fn() -> bool) -> bool {
        let now = clock::now();
        let since_us = now.saturating_sub(self.last_issue) / 1000;
        if wanted < self.overshoot_us {
            self.overshoot_us = 0;
            return true;
        }
        let delay = wanted - self.overshoot_us;
        if delay < since_us {
            return true;
        }
        let ok = sleep_until(
            now.saturating_add((delay - since_us).saturating_mul(1000)),
            stopped,
        );
        let slept_us = clock::now().saturating_sub(now) / 1000;
        self.overshoot_us = slept_us.saturating_sub(wanted);
        ok
    }
}

/// Sleeps until `until`, in slices short enough to notice a stop.
fn sleep_until(until: Nanos, stopped: &dyn Fn() -> bool) -> bool {
    loop {
        if stopped() {
            return false;
        }
        let now = clock::now();
        if now >= until {
            return true;
        }
        if !crate::sys::signals::sleep_or_stop(Duration::from_nanos(until - now), stopped) {
            return false;
        }
    }
}

/// read_iolog: the log this job (or clone) replays, parsed with the
/// replay options.
pub fn replay_log(job: &JobSpec, readonly: bool) -> Result<Option<Arc<ReplayLog>>, Refusal> {
    crate::run::records::merge_blktrace::merge_traces(job)?;
    let Some(Value::Text(list)) = job.value("read_iolog") else {
        return Ok(None);
    };
    let opts = ReplayOptions {
        redirect: match job.value("replay_redirect") {
            Some(Value::Text(t)) => Some(PathBuf::from(t)),
            _ => None,
        },
        scale: job.num("replay_scale").unwrap_or(1),
        align: job.num("replay_align").unwrap_or(0),
        no_stall: job.flag("replay_no_stall"),
        time_scale: job.num("replay_time_scale").unwrap_or(100).max(1),
        readonly,
        skip: [false; 3],
        skip_sync: false,
    };
    let mut opts = opts;
    if let Some(Value::Text(list)) = job.value("replay_skip") {
        for word in list.split(',').map(str::trim) {
            match word {
                "read" => opts.skip[Dir::Read as usize] = true,
                "write" => opts.skip[Dir::Write as usize] = true,
                "trim" => opts.skip[Dir::Trim as usize] = true,
                "sync" => opts.skip_sync = true,
                _ => {
                    return Err(Refusal(format!(
                        "job '{}': replay_skip: Unknown skip type: {word} \
                         (expected read, write, trim or sync)",
                        job.name
                    )));
                }
            }
        }
    }
    let path = log_for_clone(list, job.subjob);
    load(std::path::Path::new(path), &job.name, &opts)
        .map(|log| Some(Arc::new(log)))
        .map_err(|e| Refusal(format!("job '{}': {e}", job.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> ReplayOptions {
        ReplayOptions {
            time_scale: 100,
            ..ReplayOptions::default()
        }
    }

    #[test]
    fn version3_lines_become_timed_steps() {
        let text = "fio version 3 iolog\n10 /f add\n20 /f open\n30 /f write 8192 4096\n\
                    530 /f read 4096 512\n600 /f close\n";
        let log = parse(text, "j", &opts()).unwrap();
        assert_eq!(log.files, vec![PathBuf::from("/f")]);
        assert_eq!(log.steps.len(), 5);
        assert_eq!(log.steps[0].delay_us, 0);
        assert_eq!(log.steps[3].delay_us, 500);
        assert_eq!(
            log.steps[3].action,
            Action::Io {
                dir: Dir::Read,
                offset: 4096,
                len: 512
            }
        );
        assert_eq!(
            (log.reads, log.writes, log.max_len, log.bytes),
            (true, true, 4096, 4608)
        );
    }

    #[test]
    fn scale_then_align_and_redirect() {
        let o = ReplayOptions {
            scale: 3,
            align: 4096,
            redirect: Some(PathBuf::from("/dev/x")),
            ..opts()
        };
        let text = "fio version 2 iolog\n/a add\n/b add\n/a open\n/b write 30000 4096\n";
        let log = parse(text, "j", &o).unwrap();
        assert_eq!(log.files, vec![PathBuf::from("/dev/x")]);
        assert!(matches!(
            log.steps[3].action,
            Action::Io { offset: 8192, .. }
        ));
    }

    #[test]
    fn version1_and_empty_logs_are_refused() {
        assert!(parse("/a read 0 4096\n", "j", &opts()).is_err());
        assert!(parse("fio version 2 iolog\n/a add\n", "j", &opts()).is_err());
        assert!(parse("fio version 2 iolog\n/a read 0 4096\n", "j", &opts()).is_err());
    }

    #[test]
    fn time_scale_shortens_gaps() {
        let o = ReplayOptions {
            time_scale: 200,
            ..opts()
        };
        let text = "fio version 3 iolog\n1 /f add\n1001 /f read 0 4096\n";
        assert_eq!(parse(text, "j", &o).unwrap().steps[1].delay_us, 500);
    }
}
