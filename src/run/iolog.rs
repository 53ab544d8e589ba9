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

use super::clock::{self, Nanos};
use crate::engine::Dir;

/// fio buffers its iolog in 8 KiB.
const BUFFER: usize = 8192;

pub struct IoLogWriter {
    out: BufWriter<File>,
    start: Nanos,
    names: Vec<String>,
    opened: Vec<bool>,
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
        };
        writeln!(log.out, "fio version 3 iolog")?;
        for i in 0..files.len() {
            log.file_line(i, "add")?;
        }
        Ok(log)
    }

    fn stamp(&self) -> u64 {
        clock::now().saturating_sub(self.start) / 1000
    }

    fn file_line(&mut self, file: usize, what: &str) -> io::Result<()> {
        let at = self.stamp();
        writeln!(self.out, "{at} {} {what}", self.names[file])
    }

    /// fio opens a file when it first does I/O to it.
    fn first_use(&mut self, file: usize) -> io::Result<()> {
        if !self.opened[file] {
            self.opened[file] = true;
            self.file_line(file, "open")?;
        }
        Ok(())
    }

    /// One read, write or trim, as it is issued.
    pub fn io(&mut self, file: usize, dir: Dir, offset: u64, len: u64) -> io::Result<()> {
        self.first_use(file)?;
        let name = match dir {
            Dir::Read => "read",
            Dir::Write => "write",
            Dir::Trim => "trim",
        };
        let at = self.stamp();
        writeln!(self.out, "{at} {} {name} {offset} {len}", self.names[file])
    }

    /// A sync (fio logs it with a zero offset and length).
    pub fn sync(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        self.first_use(file)?;
        let name = if data_only { "datasync" } else { "sync" };
        let at = self.stamp();
        writeln!(self.out, "{at} {} {name} 0 0", self.names[file])
    }

    /// Whether the job used this file (only those get a final sync and
    /// a `close` line).
    pub fn used(&self, file: usize) -> bool {
        self.opened[file]
    }

    /// The `close` lines for the files used, then the flush.
    pub fn finish(mut self) -> io::Result<()> {
        for file in 0..self.names.len() {
            if self.opened[file] {
                self.file_line(file, "close")?;
            }
        }
        self.out.flush()
    }
}
