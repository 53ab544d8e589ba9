//! What each running job shows the live status line: its state and the
//! bytes and I/Os it has completed, published with relaxed atomic stores
//! every ~100 ms from the job's own thread and read by the main thread,
//! which never stops a job to look. Watched live, a job also publishes
//! its I/Os in flight and hands over its tally of the latest interval.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

use crate::result::JobResult;
use crate::run::pacing::clock::Nanos;
use crate::run::status::live::Tally;

/// A job's state, as fio's status line shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum State {
    /// Not started yet (its group has not begun): `P`.
    Pending = 0,
    /// Laying out files, opening them: `I`.
    SettingUp = 1,
    /// In ramp_time: `/`.
    Ramp = 2,
    /// Doing I/O: a letter for its pattern.
    Running = 3,
    /// Final syncs and logs: `f`.
    Finishing = 4,
    /// Ended well: `_`; with an error: `X`; stopped by a signal: `K`.
    Done = 5,
    Failed = 6,
    Killed = 7,
}

impl State {
    fn from_u8(v: u8) -> State {
        match v {
            1 => State::SettingUp,
            2 => State::Ramp,
            3 => State::Running,
            4 => State::Finishing,
            5 => State::Done,
            6 => State::Failed,
            7 => State::Killed,
            _ => State::Pending,
        }
    }
}

/// One job's published progress.
#[derive(Debug, Default)]
pub struct JobProgress {
    state: AtomicU8,
    /// Completed bytes and I/Os per direction, ramp included.
    bytes: [AtomicU64; 3],
    ios: [AtomicU64; 3],
    /// Set by the main thread to ask for a copy of the results so far
    /// (interim reports); the job answers at its next publication.
    wanted: AtomicBool,
    snapshot: Mutex<Option<JobResult>>,
    /// Set before the run when the job is watched live: it then keeps a
    /// tally of each interval and hands it over here.
    live: AtomicBool,
    tally: Mutex<Tally>,
    /// I/Os in flight at the last publication.
    depth: AtomicU64,
    /// When the job's statistics began (its start, then the end of
    /// ramp_time), on the run's clock: where steady-state sampling starts.
    epoch: AtomicU64,
    /// Set from outside to end the job as if its runtime were up (steady
    /// state was reached).
    pub terminate: AtomicBool,
    /// The trigger's request for the job's verify state.
    pub vstate: crate::run::verification::state_request::StateRequest,
    /// Lines the job's setup prints on fio's stdout whatever the output
    /// format (its random map's notes), for the main thread to print.
    lines: Mutex<Vec<String>>,
}

impl JobProgress {
    pub fn state(&self) -> State {
        State::from_u8(self.state.load(Ordering::Relaxed))
    }

    pub fn set_state(&self, s: State) {
        self.state.store(s as u8, Ordering::Relaxed);
    }

    /// Publishes the completed totals per direction.
    pub fn publish(&self, bytes: [u64; 3], ios: [u64; 3]) {
        for d in 0..3 {
            self.bytes[d].store(bytes[d], Ordering::Relaxed);
            self.ios[d].store(ios[d], Ordering::Relaxed);
        }
    }

    /// Records when the job's statistics (re)started.
    pub fn set_epoch(&self, at: u64) {
        self.epoch.store(at, Ordering::Relaxed);
    }

    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// Asks the job for a copy of its results so far.
    pub fn request_snapshot(&self) {
        self.wanted.store(true, Ordering::Relaxed);
    }

    /// Whether a copy was asked for and not given yet.
    pub fn snapshot_wanted(&self) -> bool {
        self.wanted.load(Ordering::Relaxed)
    }

    /// Hands over a copy of the results (also the final ones, which stay).
    pub fn give_snapshot(&self, result: JobResult) {
        if let Ok(mut slot) = self.snapshot.lock() {
            *slot = Some(result);
        }
        self.wanted.store(false, Ordering::Relaxed);
    }

    /// Gives the main thread a line to print on stdout (from the job's
    /// setup, never its I/O loop).
    pub fn say(&self, line: String) {
        if let Ok(mut lines) = self.lines.lock() {
            lines.push(line);
        }
    }

    /// The lines said since the last call.
    pub fn take_lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default()
    }

    /// The latest copy handed over.
    pub fn snapshot(&self) -> Option<JobResult> {
        self.snapshot.lock().ok().and_then(|s| s.clone())
    }

    /// Asks the job to keep live tallies (before it starts).
    pub fn watch_live(&self) {
        self.live.store(true, Ordering::Relaxed);
    }

    pub fn watched_live(&self) -> bool {
        self.live.load(Ordering::Relaxed)
    }

    /// Adds the job's tally up to `until` to the one waiting for the
    /// watcher, and starts the job's afresh from there.
    pub fn hand_over(&self, tally: &mut Tally, until: Nanos) {
        tally.until = until;
        if let Ok(mut shared) = self.tally.lock() {
            shared.absorb(tally);
        }
        tally.restart(until);
    }

    /// Swaps the tally waiting for the watcher with `empty` (which must be
    /// empty): the watcher gets everything handed over since it last
    /// looked, and the job's next hand-over fills `empty`'s memory.
    pub fn take_tally(&self, empty: &mut Tally) {
        if let Ok(mut shared) = self.tally.lock() {
            std::mem::swap(&mut *shared, empty);
        }
    }

    pub fn set_depth(&self, in_flight: usize) {
        self.depth.store(in_flight as u64, Ordering::Relaxed);
    }

    /// I/Os in flight at the last publication.
    pub fn depth(&self) -> u64 {
        self.depth.load(Ordering::Relaxed)
    }

    /// (bytes, I/Os) completed per direction so far.
    pub fn totals(&self) -> ([u64; 3], [u64; 3]) {
        let load = |a: &[AtomicU64; 3]| [0, 1, 2].map(|d| a[d].load(Ordering::Relaxed));
        (load(&self.bytes), load(&self.ios))
    }
}
