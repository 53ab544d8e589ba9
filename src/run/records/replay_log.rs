//! The replayed log as the job holds it: its steps and the options that
//! change how it is read, apart from the reading (replay.rs, blktrace.rs)
//! so that every reader and the replayer share them without importing
//! one another.

use std::path::PathBuf;

use crate::engine::Dir;

/// What one line of the log asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Io {
        dir: Dir,
        offset: u64,
        len: u64,
    },
    /// fsync (`sync`) or fdatasync (`datasync`).
    Sync {
        data_only: bool,
    },
    /// Version 2 only: hold until this many milliseconds after the start.
    Wait {
        ms: u64,
    },
    /// `open`: the file is opened here (fio opens a replay's files only
    /// as its log says).
    Open,
    /// `add`, `close`: the job keeps an opened file open to its end, so
    /// these only pace the replay.
    File,
}

/// One step of the replay: an action on one of the log's files, after a
/// delay in microseconds since the previous I/O (version 3 only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub file: usize,
    pub delay_us: u64,
    pub action: Action,
}

/// A parsed log, and what the job takes from it.
#[derive(Debug, Clone, Default)]
pub struct ReplayLog {
    pub files: Vec<PathBuf>,
    pub steps: Vec<Step>,
    pub reads: bool,
    pub writes: bool,
    pub trims: bool,
    /// The largest I/O, which sizes the job's buffers.
    pub max_len: u64,
    /// Bytes of all I/O in the log (fio's size for the job).
    pub bytes: u64,
    /// Lines fio would complain about and skip, with its message.
    pub warnings: Vec<String>,
    /// A blktrace's deepest queue: the job's iodepth unless it sets one.
    pub depth: Option<usize>,
}

impl ReplayLog {
    /// How many steps lead up to the last I/O or sync (what follows are
    /// file actions only).
    pub(super) fn io_steps(&self) -> usize {
        self.steps
            .iter()
            .rposition(|s| matches!(s.action, Action::Io { .. } | Action::Sync { .. }))
            .map_or(0, |i| i + 1)
    }
}

/// The replay options that change how the log is read.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    pub redirect: Option<PathBuf>,
    /// Offsets are divided by this (0 leaves them alone).
    pub scale: u64,
    /// Offsets are rounded down to this power of two (0 leaves them alone).
    pub align: u64,
    pub no_stall: bool,
    /// Percent: 200 replays the gaps at half their recorded length.
    pub time_scale: u64,
    /// --readonly: writes are dropped from the replay.
    pub readonly: bool,
    /// replay_skip, per direction and for syncs (fio applies it to
    /// blktrace input only).
    pub skip: [bool; 3],
    pub skip_sync: bool,
}

/// The wait before a timed entry: the time since the previous one, in
/// the log's unit, scaled (fio's delay_since_ttime).
pub fn gap_since(last: u64, time: u64, opts: &ReplayOptions) -> u64 {
    if last == 0 || opts.no_stall || time < last {
        0
    } else if opts.time_scale == 100 {
        time - last
    } else {
        ((time - last) as f64 * (100.0 / opts.time_scale as f64)) as u64
    }
}

/// replay_scale, then replay_align.
pub fn scaled(offset: u64, opts: &ReplayOptions) -> u64 {
    let offset = offset.checked_div(opts.scale).unwrap_or(offset);
    if opts.align > 0 {
        offset & !(opts.align - 1)
    } else {
        offset
    }
}
