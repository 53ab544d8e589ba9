//! fio's `nbd` engine: I/O to an NBD export through libnbd, with fio's
//! option `uri` (`nbd://127.0.0.1:10809/`, `nbd+unix:///?socket=PATH`).
//! As in fio, the job's setup connects once to learn the export's size
//! (the job's one file, named `nbd`, is the export), then the job
//! connects again for its I/O and says so on stdout. Reads, writes, trims
//! and flushes are sent without waiting; the job's depth stays in flight
//! and replies are read as the runner reaps. fdatasync has no NBD
//! command: fio's engine refuses it (EINVAL), and so does this one.
//!
//! Past fio: a reap waits in slices, so a stop signal or a server that
//! stopped answering ends the wait (after the runtime and a grace) with
//! the commands still out named, instead of blocking for good.

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use super::api::{Completion, Dir, Engine, FioFailure, OpenMode, OptionSource, Queued, Request};
use crate::nbd::{Connection, NbdError};

/// fio's nbd options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NbdOptions {
    pub uri: Option<String>,
    /// How long a reap waits for the server past the job's runtime (ramp
    /// time, runtime and a grace); `None` without a runtime.
    pub wait_limit: Option<Duration>,
}

/// How long the engine waits, once a stop is asked for, for replies to
/// the commands still out before it closes the connection on them.
const STOP_GRACE: Duration = Duration::from_millis(50);
/// Past the runtime, how long a server may leave commands unanswered.
const RUNTIME_GRACE_US: u64 = 10_000_000;
/// How long one poll of the socket lasts, so that a wait notices a stop.
const POLL_MS: i32 = 20;

/// nbd's options, as the job sets them.
pub fn options(src: &OptionSource) -> NbdOptions {
    let micros = |name| src.job.num(name).unwrap_or(0);
    let runtime = micros("runtime");
    NbdOptions {
        uri: super::api::text(src.job, "uri"),
        wait_limit: (runtime > 0)
            .then(|| Duration::from_micros(micros("ramp_time") + runtime + RUNTIME_GRACE_US)),
    }
}

/// fio's context for a failed getevents call.
const GET_EVENTS: &str = "file:ioengines.c:320, func=get_events";

/// fio's words when the job names no export.
const NO_URI: &str = "fio: nbd: uri parameter was not specified";

/// What fio prints when a libnbd call fails, then ferrio's line naming
/// the export and the errno.
fn failure_text(e: &NbdError, uri: &str) -> String {
    let fio = format!("fio: {}: {}", e.call, e.message);
    if crate::persona::as_fio() {
        return fio;
    }
    let text = crate::strerror(&io::Error::from_raw_os_error(e.errno));
    format!(
        "{fio}\nferrio: nbd export {uri}: {text} (errno {})",
        e.errno
    )
}

/// The export's size, which the job works on (fio's setup connects to
/// learn it, before the job starts, and fails the job's setup when it
/// cannot: with no error code, only its message).
pub fn export_size(job: &crate::plan::JobSpec) -> Result<u64, super::api::SetupFailed> {
    let failed = |message: String| super::api::SetupFailed {
        errno: 0,
        func: "",
        message,
    };
    let uri = super::api::text(job, "uri").ok_or_else(|| failed(NO_URI.to_string()))?;
    let size = Connection::open(&uri).and_then(|c| c.size());
    size.map_err(|e| failed(failure_text(&e, &uri)))
}

/// A command in flight: its cookie, the runner's slot, and what it
/// reports on success.
#[derive(Debug, Clone, Copy)]
struct Flying {
    cookie: u64,
    slot: usize,
    len: i64,
}

pub struct Nbd {
    uri: String,
    /// `None` once given up on (a stop, or a server that went quiet):
    /// closing the connection ends the commands still out.
    conn: Option<Connection>,
    flying: Vec<Flying>,
    wait_limit: Option<Duration>,
    first_io: Option<Instant>,
    /// A poll failed: the connection is gone.
    lost: bool,
}

impl Nbd {
    /// Connects for the job's I/O, as fio's engine init does.
    fn new(depth: usize, options: &NbdOptions) -> io::Result<Nbd> {
        crate::nbd::load()?;
        let init_failed = |detail: String| {
            io::Error::other(FioFailure {
                code: 1,
                detail,
                func: "",
            })
        };
        let uri = options
            .uri
            .clone()
            .ok_or_else(|| init_failed(NO_URI.to_string()))?;
        let conn = Connection::open(&uri).map_err(|e| init_failed(failure_text(&e, &uri)))?;
        Ok(Nbd {
            uri,
            conn: Some(conn),
            flying: Vec::with_capacity(depth.max(1)),
            wait_limit: options.wait_limit,
            first_io: None,
            lost: false,
        })
    }

    /// Records a started command, or turns a refusal into the I/O's
    /// result.
    fn started(&mut self, started: Result<u64, i32>, slot: usize, len: i64) -> Queued {
        match started {
            Ok(cookie) => {
                self.first_io.get_or_insert_with(Instant::now);
                self.flying.push(Flying { cookie, slot, len });
                Queued::Pending
            }
            Err(errno) => Queued::Done(-i64::from(errno)),
        }
    }

    /// Moves finished commands into `done`, up to `max` in all.
    fn retire(&mut self, max: usize, done: &mut Vec<Completion>, got: &mut usize) {
        let Some(conn) = &self.conn else { return };
        while *got < max {
            let Some((cookie, errno)) = conn.next_done() else {
                return;
            };
            let Some(at) = self.flying.iter().position(|f| f.cookie == cookie) else {
                continue;
            };
            let f = self.flying.swap_remove(at);
            done.push(Completion {
                slot: f.slot,
                result: if errno == 0 { f.len } else { -i64::from(errno) },
            });
            *got += 1;
        }
    }

    /// Whether the wait for replies is over: a stop asked for a while
    /// ago, or the runtime and its grace are past.
    fn past_waiting(&self, stop_seen: &mut Option<Instant>) -> bool {
        if crate::sys::signals::stop_requested() {
            let since = *stop_seen.get_or_insert_with(Instant::now);
            if since.elapsed() >= STOP_GRACE {
                return true;
            }
        }
        match (self.wait_limit, self.first_io) {
            (Some(limit), Some(first)) => first.elapsed() >= limit,
            _ => false,
        }
    }

    /// Closes the connection on the commands still out, naming them.
    fn give_up(&mut self) -> io::Error {
        self.conn = None;
        let out = self.flying.len();
        self.flying.clear();
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "{out} commands to nbd export {} got no reply; ferrio closed the connection",
                self.uri
            ),
        )
    }
}

impl Engine for Nbd {
    fn name(&self) -> &'static str {
        "nbd"
    }

    fn set_up_line(&self) -> Option<&'static str> {
        Some("fio: connected to NBD server")
    }

    /// Every file of an nbd job is the export, connected already.
    fn open(&mut self, _path: &Path, _mode: OpenMode) -> io::Result<usize> {
        Ok(0)
    }

    unsafe fn queue(&mut self, mut req: Request<'_>) -> Queued {
        let Some(conn) = &self.conn else {
            return Queued::Done(-i64::from(libc::ENOTCONN));
        };
        let len = req.buf.len();
        let started = match super::api::transfer(&mut req) {
            // SAFETY: the buffer is under the rule of Engine::queue's
            // Safety section; dropping the connection ends the command.
            Some(data) => unsafe { conn.start(data) },
            None => conn.start_trim(req.offset, len as u64),
        };
        debug_assert!(matches!(req.dir, Dir::Read | Dir::Write | Dir::Trim));
        self.started(started, req.slot, len as i64)
    }

    /// Each command is sent inside `queue`: fio's engine has no commit.
    fn commit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn submits_in_queue(&self) -> bool {
        true
    }

    fn counts_submits(&self) -> bool {
        false
    }

    fn syncs_in_queue(&self) -> bool {
        true
    }

    /// A flush (NBD_CMD_FLUSH); fdatasync is refused, as fio's engine
    /// refuses it.
    fn queue_sync(&mut self, slot: usize, _file: usize, data_only: bool) -> Queued {
        let Some(conn) = &self.conn else {
            return Queued::Done(-i64::from(libc::ENOTCONN));
        };
        if data_only {
            return Queued::Done(-i64::from(libc::EINVAL));
        }
        let started = conn.start_flush();
        self.started(started, slot, 0)
    }

    /// A flush, waited for (end_fsync, and fsync with nothing in flight).
    fn sync(&mut self, _file: usize, data_only: bool) -> io::Result<()> {
        if data_only {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let conn = self
            .conn
            .as_ref()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOTCONN))?;
        let cookie = conn.start_flush().map_err(io::Error::from_raw_os_error)?;
        let mut stop_seen = None;
        loop {
            let conn = self.conn.as_ref().expect("connected above");
            while let Some((done, errno)) = conn.next_done() {
                if done == cookie {
                    return match errno {
                        0 => Ok(()),
                        e => Err(io::Error::from_raw_os_error(e)),
                    };
                }
            }
            if self.past_waiting(&mut stop_seen) {
                return Err(self.give_up());
            }
            conn.poll(POLL_MS)
                .map_err(|e| io::Error::other(e.message))?;
        }
    }

    /// The server's cache is the server's: nothing to drop here.
    fn invalidate(&mut self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    /// As fio's engine does, a reap for no minimum returns at once, and
    /// a lost connection fails the reap (fio's getevents: -1), leaving
    /// the commands it ended unreaped.
    fn reap(&mut self, min: usize, max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        if min == 0 {
            return Ok(());
        }
        // Given up on: the commands that were out will never come back.
        if self.conn.is_none() {
            return Err(io::Error::from_raw_os_error(libc::ENOTCONN));
        }
        let mut got = 0;
        let mut stop_seen = None;
        loop {
            // Once lost, the connection's ended commands are not reaped:
            // fio's engine polls first, and fails again.
            if !self.lost {
                self.retire(max, done, &mut got);
            }
            if got >= min || self.flying.is_empty() {
                return Ok(());
            }
            if self.past_waiting(&mut stop_seen) {
                return Err(self.give_up());
            }
            let Some(conn) = &self.conn else {
                return Err(io::Error::from_raw_os_error(libc::ENOTCONN));
            };
            if let Err(e) = conn.poll(POLL_MS) {
                // fio's engine says it as it happens, on stderr.
                eprintln!("fio: nbd_poll: {}", e.message);
                self.lost = true;
                return Err(io::Error::other(FioFailure {
                    code: -1,
                    detail: String::new(),
                    func: GET_EVENTS,
                }));
            }
        }
    }
}

/// The table's maker.
pub fn make(depth: usize, options: &NbdOptions) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(Nbd::new(depth, options)?))
}
