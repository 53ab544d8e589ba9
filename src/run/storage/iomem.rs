//! Where a job's I/O buffers live (fio's `mem`/`iomem`): the heap, a
//! System V shared memory segment, or a mapping (anonymous or of a
//! file, optionally shared or on huge pages). One region holds every
//! buffer of the job, as in fio; the heap's is an anonymous mapping, as
//! malloc makes one of that size, whose pages the kernel gives (zeroed)
//! only as they are first touched.

use std::io;
use std::path::PathBuf;

use crate::options::Value;
use crate::plan::JobSpec;
use crate::result::JobError;

/// How the buffer memory is obtained.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MemKind {
    #[default]
    Malloc,
    Shm {
        huge: bool,
    },
    /// `file`: mmap:path maps that file (created if needed, removed
    /// after unless it existed).
    Mmap {
        huge: bool,
        shared: bool,
        file: Option<PathBuf>,
    },
}

impl MemKind {
    pub fn from_job(job: &JobSpec) -> MemKind {
        let Some(Value::Word { word, tail }) = job.value("mem") else {
            return MemKind::Malloc;
        };
        let file = tail.as_ref().filter(|t| !t.is_empty()).map(PathBuf::from);
        match *word {
            "shm" => MemKind::Shm { huge: false },
            "shmhuge" => MemKind::Shm { huge: true },
            "mmap" => MemKind::Mmap {
                huge: false,
                shared: false,
                file,
            },
            "mmapshared" => MemKind::Mmap {
                huge: false,
                shared: true,
                file,
            },
            "mmaphuge" => MemKind::Mmap {
                huge: true,
                shared: false,
                file,
            },
            _ => MemKind::Malloc,
        }
    }
}

/// One region of buffer memory, released on drop.
#[derive(Debug)]
pub struct Region {
    pub ptr: *mut u8,
    pub len: usize,
    shm_id: Option<libc::c_int>,
    /// The mapped file to remove afterwards (one the job created).
    unlink: Option<PathBuf>,
}

fn error(func: &str, e: io::Error, note: Option<&str>) -> JobError {
    if let Some(note) = note {
        eprintln!("{note}");
    }
    JobError {
        errno: e.raw_os_error().unwrap_or(libc::ENOMEM),
        func: func.to_string(),
        message: String::new(),
    }
}

impl Region {
    /// `len` bytes of `kind` memory. The heap's failure is fio's
    /// (ENOMEM from "iomem allocation").
    /// Huge page memory is rounded up to `hugepage` bytes with fio's mask
    /// arithmetic (so a size of 0 asks for nothing, which the kernel
    /// refuses, as under fio).
    pub fn new(kind: &MemKind, len: usize, hugepage: usize) -> Result<Region, JobError> {
        let mask = hugepage.wrapping_sub(1);
        let round_huge = |n: usize| n.wrapping_add(mask) & !mask;
        match kind {
            MemKind::Malloc => {
                // SAFETY: a new private anonymous mapping of `len` bytes,
                // owned by the region.
                let ptr = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len.max(1),
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_ANONYMOUS | libc::MAP_PRIVATE,
                        -1,
                        0,
                    )
                };
                if ptr == libc::MAP_FAILED {
                    let e = io::Error::from_raw_os_error(libc::ENOMEM);
                    return Err(error("iomem allocation", e, None));
                }
                Ok(Region {
                    ptr: ptr.cast(),
                    len: len.max(1),
                    shm_id: None,
                    unlink: None,
                })
            }
            MemKind::Shm { huge } => {
                let len = if *huge { round_huge(len) } else { len };
                let mut flags = libc::IPC_CREAT | 0o600;
                if *huge {
                    flags |= libc::SHM_HUGETLB;
                }
                // SAFETY: a new private segment; no pointers involved.
                let id = unsafe { libc::shmget(libc::IPC_PRIVATE, len, flags) };
                if id < 0 {
                    let e = io::Error::last_os_error();
                    let note = match (huge, e.raw_os_error()) {
                        (true, Some(libc::EINVAL)) => Some(
                            "fio: check that you have free huge pages and that hugepage-size is correct.",
                        ),
                        (true, Some(libc::ENOSYS)) => {
                            Some("fio: your system does not appear to support huge pages.")
                        }
                        (true, Some(libc::ENOMEM)) => Some(
                            "fio: no huge pages available, do you need to allocate some? See HOWTO.",
                        ),
                        _ => None,
                    };
                    return Err(error("shmget", e, note));
                }
                // SAFETY: attaching the segment just made, anywhere.
                let ptr = unsafe { libc::shmat(id, std::ptr::null(), 0) };
                if ptr as isize == -1 {
                    let e = io::Error::last_os_error();
                    // SAFETY: removing the segment nobody attached.
                    unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
                    return Err(error("shmat", e, None));
                }
                Ok(Region {
                    ptr: ptr.cast(),
                    len,
                    shm_id: Some(id),
                    unlink: None,
                })
            }
            MemKind::Mmap { huge, shared, file } => {
                let len = if *huge { round_huge(len) } else { len };
                let mut flags = 0;
                let mut unlink = None;
                let fd = match file {
                    Some(path) => {
                        let existed = path.exists();
                        let f = std::fs::OpenOptions::new()
                            .read(true)
                            .write(true)
                            .create(true)
                            .truncate(false)
                            .open(path)
                            .map_err(|e| error("open mmap file", e, None))?;
                        if !existed {
                            unlink = Some(path.clone());
                        }
                        if !*huge && !*shared {
                            f.set_len(len as u64)
                                .map_err(|e| error("truncate mmap file", e, None))?;
                        } else if f.metadata().map_or(0, |m| m.len()) < len as u64 {
                            // fio maps such a file as it is, and its job
                            // dies of SIGBUS at the first buffer past the
                            // end; ferrio fails the job instead.
                            if let Some(path) = &unlink {
                                let _ = std::fs::remove_file(path);
                            }
                            eprintln!(
                                "fio: mmap file {} is shorter than the job's {len} bytes of buffers",
                                path.display()
                            );
                            return Err(error(
                                "mmap",
                                io::Error::from_raw_os_error(libc::EINVAL),
                                None,
                            ));
                        }
                        flags |= if *huge || *shared {
                            libc::MAP_SHARED
                        } else {
                            libc::MAP_PRIVATE
                        };
                        Some(f)
                    }
                    None => {
                        flags |= libc::MAP_ANONYMOUS | libc::MAP_PRIVATE;
                        if *huge {
                            flags |= libc::MAP_HUGETLB;
                        }
                        None
                    }
                };
                let raw_fd = fd
                    .as_ref()
                    .map_or(-1, std::os::unix::io::AsRawFd::as_raw_fd);
                // SAFETY: a new mapping of `len` bytes, owned by the region.
                let ptr = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len,
                        libc::PROT_READ | libc::PROT_WRITE,
                        flags,
                        raw_fd,
                        0,
                    )
                };
                if ptr == libc::MAP_FAILED {
                    let e = io::Error::last_os_error();
                    if let Some(path) = &unlink {
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(error("mmap", e, None));
                }
                Ok(Region {
                    ptr: ptr.cast(),
                    len,
                    shm_id: None,
                    unlink,
                })
            }
        }
    }

    /// Releases the region's names (the segment's id, a file the job
    /// created) as a drop does, but leaves the memory mapped for the rest
    /// of the process: an abandoned engine's I/O may still land in it.
    pub fn keep_mapped(self) {
        let mut region = std::mem::ManuallyDrop::new(self);
        if let Some(id) = region.shm_id {
            // SAFETY: marks the segment for removal once the process
            // detaches; the attachment stays.
            unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
        }
        if let Some(path) = region.unlink.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: the region owns this attachment or mapping, and the
        // engine that may have used it is gone (it is dropped first; an
        // abandoned one's region is kept with `keep_mapped` instead).
        unsafe {
            match self.shm_id {
                Some(id) => {
                    libc::shmdt(self.ptr.cast());
                    libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
                }
                None => {
                    libc::munmap(self.ptr.cast(), self.len);
                }
            }
        }
        if let Some(path) = &self.unlink {
            let _ = std::fs::remove_file(path);
        }
    }
}
