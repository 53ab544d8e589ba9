//! openfiles below the job's file count: fio opens none of the files
//! when the job (or a loop) starts, opens each when the job comes to it,
//! and closes a file it is done with once the last I/O on it has ended. `FileChooser` keeps the count in use within the limit; this
//! opens and closes the engine's files to match.

use std::io;
use std::path::Path;

use crate::engine::{Engine, OpenMode};
use crate::run::place::files::FileChooser;
use crate::run::storage::config::FilesConfig;

/// The engine handle of a file that is not open.
pub const UNOPENED: usize = usize::MAX;

pub struct LazyOpen {
    /// I/Os in flight on each file.
    refs: Vec<u32>,
    /// Files done with but not closed yet (I/O still in flight on them, or
    /// not looked at since).
    retired: Vec<bool>,
    /// Files retired since the loop last closed any (at most one entry
    /// per file, so it never grows past its first capacity).
    pending: Vec<usize>,
}

impl LazyOpen {
    /// The job's lazy opening, when openfiles is below its file count
    /// and the job does not replay a log (a replay opens files as the
    /// log says).
    pub fn new(files: &FilesConfig, replays: bool) -> Option<Self> {
        let limit = files.open_files;
        let files = files.paths.len();
        (limit > 0 && limit < files && !replays).then(|| LazyOpen {
            refs: vec![0; files],
            retired: vec![false; files],
            pending: Vec::with_capacity(files),
        })
    }

    /// How many of the job's files are opened when a loop starts.
    pub fn at_start(lazy: &Option<Self>, files: usize) -> usize {
        if lazy.is_some() { 0 } else { files }
    }

    /// Opens `file` (at `path`) unless it is open. A file `in_use` is
    /// the file choice's again. One it does not hold (done with, or
    /// closed already), opened for an I/O the choice did not pick (a
    /// verify_backlog read of a block written earlier), is left as done
    /// with, so that it closes again once its last I/O has ended:
    /// reopening it as in use would keep it open past the choice's count,
    /// and the choice would wait for its room for ever.
    pub fn ensure(
        &mut self,
        eng: &mut dyn Engine,
        files: &mut [usize],
        file: usize,
        (path, mode): (&Path, OpenMode),
        in_use: bool,
    ) -> io::Result<()> {
        if files[file] == UNOPENED {
            files[file] = eng.open(path, mode)?;
        }
        if in_use {
            self.retired[file] = false;
        } else {
            self.retire(file);
        }
        Ok(())
    }

    /// Opens every file that is closed, for a verify pass that may read
    /// any of them; on a failure, the error and the file's path.
    pub fn ensure_all<'p>(
        &mut self,
        eng: &mut dyn Engine,
        files: &mut [usize],
        paths: &'p [std::path::PathBuf],
        mode: OpenMode,
    ) -> Result<(), (io::Error, &'p Path)> {
        for (file, path) in paths.iter().enumerate() {
            self.ensure(eng, files, file, (path, mode), true)
                .map_err(|e| (e, path.as_path()))?;
        }
        Ok(())
    }

    /// An I/O on `file` went to the engine.
    #[inline]
    pub fn issued(&mut self, file: usize) {
        self.refs[file] += 1;
    }

    /// Whether I/O on `file` is queued or in flight.
    #[inline]
    pub fn in_flight(&self, file: usize) -> bool {
        self.refs[file] > 0
    }

    /// An I/O on `file` ended: the file closes if it was done with, and
    /// its room goes back to `chooser`.
    #[inline]
    pub fn ended(
        &mut self,
        eng: &mut dyn Engine,
        files: &mut [usize],
        file: usize,
        chooser: &mut FileChooser,
    ) {
        self.refs[file] = self.refs[file].saturating_sub(1);
        if self.refs[file] == 0 && self.retired[file] {
            self.close(eng, files, file);
            chooser.closed(file);
        }
    }

    /// The job has no offset left in `file`.
    pub fn retire(&mut self, file: usize) {
        if !self.retired[file] {
            self.retired[file] = true;
            self.pending.push(file);
        }
    }

    /// Closes the files retired with no I/O in flight.
    pub fn flush(&mut self, eng: &mut dyn Engine, files: &mut [usize], chooser: &mut FileChooser) {
        while let Some(file) = self.pending.pop() {
            if self.retired[file] && self.refs[file] == 0 {
                self.close(eng, files, file);
                chooser.closed(file);
            }
        }
    }

    /// Closes every open file (between loops, with nothing in flight).
    pub fn close_all(&mut self, eng: &mut dyn Engine, files: &mut [usize]) {
        self.pending.clear();
        for file in 0..files.len() {
            self.close(eng, files, file);
            self.refs[file] = 0;
        }
    }

    fn close(&mut self, eng: &mut dyn Engine, files: &mut [usize], file: usize) {
        self.retired[file] = false;
        if files[file] != UNOPENED {
            eng.close(files[file]);
            files[file] = UNOPENED;
        }
    }
}
