//! fio's file-operation engines, which time one operation per file
//! rather than I/O: `filecreate` (open with O_CREAT), `filestat` (stat,
//! lstat or statx) and `filedelete` (unlink). fio does the operation when
//! it opens a file for the job's I/O, that is, the first time a pass over
//! the files reaches it; the I/Os themselves then complete at once and
//! count as I/O, but are no latency samples (fio's FIO_NOSTATS): the
//! operation's time is the job's one completion-latency sample per file.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Instant;

use super::api::{Engine, FileOpError, OpenMode, OptionSource, Queued, Request};

/// Which operation the engine times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Create,
    Stat(StatCall),
    Delete,
}

/// filestat's `stat_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatCall {
    #[default]
    Stat,
    Lstat,
    Statx,
}

impl StatCall {
    /// fio's number for the call, which its error message shows.
    fn number(self) -> u32 {
        match self {
            StatCall::Stat => 1,
            StatCall::Lstat => 2,
            StatCall::Statx => 3,
        }
    }
}

pub struct FileOps {
    op: Op,
    /// The job's files, as the system calls take their names.
    paths: Vec<CString>,
    /// Whether each file had its operation in the current pass.
    done: Vec<bool>,
}

impl FileOps {
    pub fn new(op: Op) -> Self {
        FileOps {
            op,
            paths: Vec::new(),
            done: Vec::new(),
        }
    }

    /// Runs the operation on one file.
    fn run(&self, path: &CString) -> io::Result<()> {
        let ok = match self.op {
            Op::Create => {
                // SAFETY: `path` is a NUL-terminated name; the descriptor
                // is closed right away (fio closes it once the file's
                // I/O is done, which for this engine is nothing).
                let fd = unsafe { libc::open(path.as_ptr(), libc::O_CREAT | libc::O_RDWR, 0o600) };
                if fd >= 0 {
                    // SAFETY: `fd` was just opened and is owned here.
                    unsafe { libc::close(fd) };
                }
                fd >= 0
            }
            Op::Stat(call) => stat(path, call),
            // SAFETY: unlink only reads the NUL-terminated name.
            Op::Delete => unsafe { libc::unlink(path.as_ptr()) == 0 },
        };
        if ok {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// fio's name for the failed call, as its error shows it.
    fn func(&self, path: &CString) -> String {
        let name = path.to_string_lossy();
        match self.op {
            Op::Create => format!("open({name})"),
            Op::Stat(call) => format!("stat({name}) type={}", call.number()),
            Op::Delete => format!("delete({name})"),
        }
    }
}

/// One stat-family call on `path`; false with errno set when it failed.
fn stat(path: &CString, call: StatCall) -> bool {
    // SAFETY: a zeroed stat/statx is a valid buffer for the kernel to
    // fill; the names are NUL-terminated.
    unsafe {
        match call {
            StatCall::Stat => {
                let mut buf: libc::stat = std::mem::zeroed();
                libc::stat(path.as_ptr(), &mut buf) == 0
            }
            StatCall::Lstat => {
                let mut buf: libc::stat = std::mem::zeroed();
                libc::lstat(path.as_ptr(), &mut buf) == 0
            }
            StatCall::Statx => {
                // fio resolves the name to an absolute one first, which
                // follows symbolic links along the way.
                let abs = libc::realpath(path.as_ptr(), std::ptr::null_mut());
                if abs.is_null() {
                    return false;
                }
                let mut buf: libc::statx = std::mem::zeroed();
                let r = libc::statx(-1, abs, 0, libc::STATX_ALL, &mut buf);
                libc::free(abs.cast());
                r == 0
            }
        }
    }
}

impl Engine for FileOps {
    fn name(&self) -> &'static str {
        match self.op {
            Op::Create => "filecreate",
            Op::Stat(_) => "filestat",
            Op::Delete => "filedelete",
        }
    }

    /// Only notes the file: the operation is done when the job first
    /// reaches it (see [`Engine::file_op`]).
    fn open(&mut self, path: &Path, _mode: OpenMode) -> io::Result<usize> {
        let name = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        self.paths.push(name);
        self.done.push(false);
        Ok(self.paths.len() - 1)
    }

    fn file_op(&mut self, file: usize) -> Option<Result<u64, FileOpError>> {
        if std::mem::replace(&mut self.done[file], true) {
            return None;
        }
        let began = Instant::now();
        let outcome = self.run(&self.paths[file]);
        let took = began.elapsed().as_nanos() as u64;
        Some(outcome.map(|()| took).map_err(|error| FileOpError {
            error,
            func: self.func(&self.paths[file]),
        }))
    }

    fn new_pass(&mut self) {
        self.done.fill(false);
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        Queued::Done(req.buf.len() as i64)
    }

    no_file_data!();
}

/// filestat's options: which stat call is timed (stat_type).
pub fn stat_options(src: &OptionSource) -> StatCall {
    use crate::options::Value;
    match src.job.value("stat_type") {
        Some(Value::Word { word: "lstat", .. }) => StatCall::Lstat,
        Some(Value::Word { word: "statx", .. }) => StatCall::Statx,
        _ => StatCall::Stat,
    }
}

/// The table's makers: filecreate, filestat and filedelete.
pub fn filecreate(_: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(FileOps::new(Op::Create)))
}

pub fn filestat(_: usize, call: &StatCall) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(FileOps::new(Op::Stat(*call))))
}

pub fn filedelete(_: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(FileOps::new(Op::Delete)))
}
