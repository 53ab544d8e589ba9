//! write_iolog: recording the job's I/O the way fio 3.33 does, in its
//! version 3 iolog format (each line starts with the microseconds since
//! the log was opened), so that fio or ferrio can replay it.
//!
//! fio appends to the file, names every file with `add` when the log
//! opens, writes `open` when a file is first used, one line per I/O or
//! sync as it is issued, and `close` for each used file at the end.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::engine::Dir;
use crate::run::pacing::clock::{self, Nanos};

/// fio buffers its iolog in 8 KiB.
const BUFFER: usize = 8192;

pub struct IoLogWriter {
    out: BufWriter<File>,
    start: Nanos,
    names: Vec<String>,
    opened: Vec<bool>,
    /// The first write that failed: reported when the log is finished,
    /// so that the I/O loop need not check each line.
    failed: Option<io::Error>,
}

impl IoLogWriter {
    /// Opens (appends to) `path` and writes the header and the `add` lines.
    pub fn create(path: &Path, files: &[PathBuf]) -> io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)?;
        let mut log = IoLogWriter {
            out: BufWriter::with_capacity(BUFFER, file),
            start: clock::now(),
            names: files.iter().map(|p| p.display().to_string()).collect(),
            opened: vec![false; files.len()],
            failed: None,
        };
        writeln!(log.out, "fio version 3 iolog")?;
        for i in 0..files.len() {
            log.file_line(i, "add");
        }
        Ok(log)
    }

    fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r
            && self.failed.is_none()
        {
            self.failed = Some(e);
        }
    }

    fn stamp(&self) -> u64 {
        clock::now().saturating_sub(self.start) / 1000
    }

    fn file_line(&mut self, file: usize, what: &str) {
        let at = self.stamp();
        let r = writeln!(self.out, "{at} {} {what}", self.names[file]);
        self.keep(r);
    }

    /// fio opens a file when it first does I/O to it (and again after it
    /// closed it).
    fn first_use(&mut self, file: usize) {
        if !self.opened[file] {
            self.opened[file] = true;
            self.file_line(file, "open");
        }
    }

    /// One read, write or trim, as it is issued.
    pub fn io(&mut self, file: usize, dir: Dir, offset: u64, len: u64) {
        self.first_use(file);
        let name = match dir {
            Dir::Read => "read",
            Dir::Write => "write",
            Dir::Trim => "trim",
        };
        let at = self.stamp();
        let r = writeln!(self.out, "{at} {} {name} {offset} {len}", self.names[file]);
        self.keep(r);
    }

    /// A sync. fio logs it with a zero length and whatever offset the
    /// I/O unit carrying it last had: `offset` is that.
    pub fn sync(&mut self, file: usize, data_only: bool, offset: u64) {
        self.first_use(file);
        let name = if data_only { "datasync" } else { "sync" };
        let at = self.stamp();
        let r = writeln!(self.out, "{at} {} {name} {offset} 0", self.names[file]);
        self.keep(r);
    }

    /// end_fsync's sync of a file: one the job no longer has open is
    /// opened for it and closed again at once.
    pub fn final_sync(&mut self, file: usize, offset: u64) {
        let was_open = self.opened[file];
        self.sync(file, false, offset);
        if !was_open {
            self.close(file);
        }
    }

    /// fio closes a file as soon as it has no offset left for it.
    pub fn close(&mut self, file: usize) {
        if self.opened[file] {
            self.opened[file] = false;
            self.file_line(file, "close");
        }
    }

    /// The `close` lines for the files still open, then the flush.
    pub fn finish(mut self) -> io::Result<()> {
        for file in 0..self.names.len() {
            self.close(file);
        }
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.out.flush()
    }
}
