//! fio's `e4defrag` engine: each write is an EXT4_IOC_MOVE_EXT ioctl
//! that moves the write's blocks of the job's file into place from a
//! donor file, as ext4's online defragmenter does; it moves no data of
//! the job's own. fio's options: `donorname` (the donor file, in the
//! job's directory, created if missing) and `inplace` (allocate and free
//! the donor's blocks at each I/O instead of once for the whole file).
//! Reads and trims fail with EINVAL, as in fio (defragmenting changes
//! only where data lies).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::PathBuf;

use super::api::{Dir, Engine, FioFailure, OptionSource, Queued, Request};
use super::file_table::FileTable;

/// fio's e4defrag options, and what the job says of the donor's size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DefragOptions {
    /// The donor file: `donorname` under the job's `directory`.
    pub donor: Option<PathBuf>,
    pub inplace: bool,
    /// Where the donor's blocks start (the job's `offset`) and how many
    /// bytes fio allocates at init without `inplace`: the high end of
    /// `filesize` less that offset (0 without `filesize`, which fio's
    /// fallocate then refuses).
    pub start: u64,
    pub span: i64,
}

/// e4defrag's options, as the job sets them.
pub fn options(src: &OptionSource) -> DefragOptions {
    let job = src.job;
    let donor =
        super::api::text(job, "donorname").map(|name| match super::api::text(job, "directory") {
            Some(dir) => PathBuf::from(format!("{dir}/{name}")),
            None => PathBuf::from(name),
        });
    let high = match job.setting("filesize").map(|s| &s.value) {
        Some(crate::options::Value::Nums([lo, hi, _])) => *lo.max(hi),
        Some(crate::options::Value::Ranges([(_, hi), ..])) => *hi,
        _ => 0,
    };
    let start = super::api::set(job, "offset").unwrap_or(0);
    DefragOptions {
        donor,
        inplace: super::api::on(job, "inplace"),
        start,
        span: high as i64 - start as i64,
    }
}

/// EXT4_IOC_MOVE_EXT's argument (linux/ext4.h's `struct move_extent`).
#[repr(C)]
#[derive(Default)]
struct MoveExtent {
    reserved: u32,
    donor_fd: u32,
    orig_start: u64,
    donor_start: u64,
    len: u64,
    moved_len: u64,
}

/// `_IOWR('f', 15, struct move_extent)`.
const EXT4_IOC_MOVE_EXT: libc::c_ulong = 0xc028_660f;

pub struct E4defrag {
    files: FileTable,
    donor: File,
    /// The donor's block size (st_blksize), the ioctl's unit.
    block: u64,
    inplace: bool,
}

/// An init failure as fio reports it: the errno, at e4defrag.c:113 in
/// io_queue_init.
fn init_failed(e: io::Error) -> io::Error {
    let code = e.raw_os_error().unwrap_or(libc::EIO);
    io::Error::other(FioFailure {
        code,
        detail: String::new(),
        func: "file:engines/e4defrag.c:113, func=io_queue_init",
    })
}

impl E4defrag {
    fn new(options: &DefragOptions) -> io::Result<Self> {
        let Some(path) = &options.donor else {
            return Err(io::Error::other(FioFailure {
                code: 1,
                detail: "'donorname' options required".to_string(),
                func: "",
            }));
        };
        let donor = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o644)
            .open(path)
            .map_err(|e| {
                let code = e.raw_os_error().unwrap_or(libc::EIO);
                io::Error::other(FioFailure {
                    code,
                    detail: format!("Can't open donor file {} err:-1", path.display()),
                    func: "file:engines/e4defrag.c:93, func=io_queue_init",
                })
            })?;
        if !options.inplace {
            // SAFETY: fallocate on the descriptor just opened.
            let r = unsafe {
                libc::fallocate(donor.as_raw_fd(), 0, options.start as i64, options.span)
            };
            if r != 0 {
                return Err(init_failed(io::Error::last_os_error()));
            }
        }
        let block = donor.metadata().map_err(init_failed)?.blksize().max(1);
        Ok(E4defrag {
            files: FileTable::default(),
            donor,
            block,
            inplace: options.inplace,
        })
    }

    /// Moves the blocks under one write's range from the donor: the bytes
    /// moved, or the negative errno.
    fn defragment(&self, file: &File, offset: u64, len: u64) -> i64 {
        let donor = self.donor.as_raw_fd();
        if self.inplace {
            // SAFETY: fallocate on the donor's descriptor.
            if unsafe { libc::fallocate(donor, 0, offset as i64, len as i64) } != 0 {
                return super::api::neg_errno();
            }
        }
        let first = offset / self.block;
        let mut me = MoveExtent {
            donor_fd: donor as u32,
            orig_start: first,
            donor_start: first,
            len: (offset + len).div_ceil(self.block) - first,
            ..MoveExtent::default()
        };
        // SAFETY: the ioctl reads and writes one `struct move_extent`,
        // which `me` is, on the job's file's descriptor.
        let r = unsafe { libc::ioctl(file.as_raw_fd(), EXT4_IOC_MOVE_EXT, &mut me) };
        let errno = (r != 0).then(super::api::neg_errno);
        let moved = (me.moved_len * self.block).min(len);
        if self.inplace {
            // fio frees the donor's blocks again; its error counts only
            // where the move did not fail.
            let _ = self.donor.set_len(0);
        }
        match errno {
            Some(e) => e,
            // Nothing moved: past the file's end.
            None if moved == 0 => -i64::from(libc::EINVAL),
            None => moved as i64,
        }
    }
}

impl Engine for E4defrag {
    fn name(&self) -> &'static str {
        "e4defrag"
    }

    file_table_open_close!();
    sync_each_file!();

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        if req.dir != Dir::Write {
            return Queued::Done(-i64::from(libc::EINVAL));
        }
        let Some(file) = self.files.get(req.file) else {
            return Queued::Done(-i64::from(libc::EBADF));
        };
        Queued::Done(self.defragment(file, req.offset, req.buf.len() as u64))
    }

    fn commits(&self) -> bool {
        false
    }
}

/// The table's maker.
pub fn make(_depth: usize, options: &DefragOptions) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(E4defrag::new(options)?))
}
