//! fio's `rados` engine: I/O straight to RADOS objects through librados,
//! with fio's options `clustername`, `clientname`, `pool`, `conf`,
//! `busy_poll` and `touch_objects`. Each of the job's files is one object,
//! named as fio names the file (`jobname.clone.file` by default), so
//! `nrfiles` spreads the job over that many objects. As in fio, the
//! objects are created empty when the job starts (`touch_objects`, on by
//! default) and left in the pool when it ends (fio 3.33's cleanup means
//! to remove them but finds the job's file list already emptied), so a
//! later job naming the same objects finds their data; reads and writes
//! are asynchronous, and a trim zeroes the range with a compound write.
//!
//! Unlike fio 3.33, which never reads an operation's result (and so
//! reports success for writes the OSD refused, past
//! `osd_max_object_size` for instance), every result is checked: a failed
//! operation fails the job with its errno.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::api::transfer;
use super::api::{Completion, Engine, OpenMode, OptionSource, Queued, Request};
use super::ceph_inflight::InFlight;
use super::ceph_options::CephClient;
use crate::ceph::{CephError, ObjectIo, Pool, WriteOp};

/// fio's default for `conf`: its rados engine reads this file, not
/// librados' default search (so CEPH_CONF does not apply).
pub const DEFAULT_CONF: &str = "/etc/ceph/ceph.conf";

/// Where a rados job's objects are: fio's rados options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RadosTarget {
    pub client: CephClient,
    pub conf: PathBuf,
    /// Create each object, empty, when the job starts.
    pub touch_objects: bool,
}

impl Default for RadosTarget {
    fn default() -> Self {
        RadosTarget {
            client: CephClient::default(),
            conf: PathBuf::from(DEFAULT_CONF),
            touch_objects: true,
        }
    }
}

/// Connects and opens the pool, saying which step failed.
fn open_pool(target: &RadosTarget) -> io::Result<Arc<Pool>> {
    let pool = target.client.pool.as_deref().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "rados pool name must be provided (pool=)",
        )
    })?;
    let cluster = target.client.connect(Some(&target.conf), &[])?;
    Ok(cluster.pool(pool)?)
}

pub struct Rados {
    target: RadosTarget,
    /// Declared first, so that it waits for the operations in flight
    /// before anything they use goes.
    inflight: InFlight,
    pool: Option<Arc<Pool>>,
    /// Object names, by engine file handle.
    objects: Vec<CString>,
    /// A trim's compound write, kept until its slot completes.
    zeroing: Vec<Option<WriteOp>>,
}

impl Rados {
    /// Loads librados (failing with what to install when it is missing)
    /// and prepares a queue for `depth` I/Os; the connection opens with
    /// the job's first file.
    pub fn new(depth: usize, target: RadosTarget) -> io::Result<Self> {
        let depth = depth.max(1);
        Ok(Rados {
            inflight: InFlight::new(depth, target.client.busy_poll, target.client.wait_limit)?,
            pool: None,
            objects: Vec::new(),
            zeroing: (0..depth).map(|_| None).collect(),
            target,
        })
    }

    /// Starts the request's operation on its object.
    ///
    /// # Safety
    ///
    /// As [`Engine::queue`]'s.
    unsafe fn submit(&mut self, mut req: Request<'_>) -> Result<(), CephError> {
        let (Some(pool), Some(oid)) = (&self.pool, self.objects.get(req.file)) else {
            return Err(CephError::Call {
                call: "rados queue",
                subject: format!("file {}", req.file),
                errno: libc::EBADF,
            });
        };
        let len = req.buf.len();
        let io = match transfer(&mut req) {
            Some(data) => ObjectIo::Data(data),
            None => {
                let op = self.zeroing[req.slot].insert(WriteOp::zero(req.offset, len as u64)?);
                ObjectIo::Operate(op)
            }
        };
        self.inflight.set_len(req.slot, len as i64);
        // SAFETY: the buffer is under our caller's rule, and this engine
        // keeps the slot's compound write until the slot is reaped too.
        unsafe { pool.submit(self.inflight.queue(), req.slot, oid, io) }
    }
}

impl Engine for Rados {
    fn name(&self) -> &'static str {
        "rados"
    }

    /// Connects on the first file; each file is an object, touched (made,
    /// empty) when `touch_objects` is set.
    fn open(&mut self, path: &Path, _mode: OpenMode) -> io::Result<usize> {
        let pool = match &self.pool {
            Some(pool) => Arc::clone(pool),
            None => Arc::clone(self.pool.insert(open_pool(&self.target)?)),
        };
        let oid = CString::new(path.as_os_str().as_bytes()).map_err(|_| {
            io::Error::new(io::ErrorKind::InvalidInput, "object name holds a NUL byte")
        })?;
        if self.target.touch_objects {
            pool.write(&oid, &[])?;
        }
        self.objects.push(oid);
        Ok(self.objects.len() - 1)
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        if req.slot >= self.inflight.depth() {
            return Queued::Done(-i64::from(libc::EINVAL));
        }
        let (slot, file, offset) = (req.slot, req.file, req.offset);
        // SAFETY: passed on from the caller.
        match unsafe { self.submit(req) } {
            Ok(()) => {
                self.inflight.started(slot, file, offset);
                Queued::Pending
            }
            Err(e) => {
                if let Some(op) = self.zeroing.get_mut(slot) {
                    *op = None;
                }
                Queued::Done(-i64::from(e.errno()))
            }
        }
    }

    /// librados has no flush: fio's rados engine refuses syncs too.
    fn sync(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the rados engine has no sync",
        ))
    }

    /// Objects have no cache to drop.
    fn invalidate(&mut self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn reap(&mut self, min: usize, max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        // A trim's compound write is freed once its slot completes.
        let zeroing = &mut self.zeroing;
        let released = |slot: usize| {
            if let Some(op) = zeroing.get_mut(slot) {
                *op = None;
            }
        };
        if !self.inflight.reap(min, max, done, released) {
            return Err(self.abandon());
        }
        Ok(())
    }

    fn abandoned(&self) -> bool {
        self.inflight.abandoned()
    }

    fn object_of(&self, file: usize, _offset: u64) -> Option<String> {
        let object = self.objects.get(file)?;
        Some(object.to_string_lossy().into_owned())
    }

    fn connection(&self) -> Option<String> {
        self.pool.as_ref().map(|p| p.cluster().client())
    }
}

impl Rados {
    /// Gives up on the I/O in flight: the pool, the queue and the trims'
    /// compound writes stay for the rest of the process (librados still
    /// uses them), and says which objects that I/O went to.
    fn abandon(&mut self) -> io::Error {
        std::mem::forget(self.pool.take());
        std::mem::forget(std::mem::take(&mut self.zeroing));
        let what = format!("pool {}", self.target.client.pool.as_deref().unwrap_or(""));
        let objects = &self.objects;
        self.inflight.abandon(&what, |file, _| {
            objects
                .get(file)
                .map_or_else(String::new, |o| o.to_string_lossy().into_owned())
        })
    }
}

/// fio's rados options: which cluster and pool, as whom, from which
/// config file, and whether objects are made at the start.
pub fn options(src: &OptionSource) -> RadosTarget {
    let job = src.job;
    RadosTarget {
        client: CephClient::from_spec(job),
        conf: PathBuf::from(
            super::api::text(job, "conf").unwrap_or_else(|| DEFAULT_CONF.to_string()),
        ),
        touch_objects: job
            .setting("touch_objects")
            .is_none_or(|s| s.value.number() != Some(0)),
    }
}

/// The table's maker.
pub fn make(depth: usize, target: &RadosTarget) -> io::Result<Box<dyn Engine>> {
    Rados::new(depth, target.clone()).map(|e| Box::new(e) as Box<dyn Engine>)
}
