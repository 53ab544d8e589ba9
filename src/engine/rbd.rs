//! fio's `rbd` engine: I/O to a Ceph RBD image through librbd, with fio's
//! options `clustername`, `clientname`, `pool`, `rbdname` and
//! `busy_poll`. Reads, writes and trims (discards) are asynchronous; each
//! completes through librbd's callback into a queue the reaping thread
//! waits on (or spins on, with `busy_poll`), so the job's iodepth is held
//! without polling or sleeping. As in fio, `direct=1` turns librbd's cache
//! off, a buffered job flushes once after opening (so the cache enters
//! its write-back mode), and `invalidate` drops the cache. The job's
//! "file" is the image: its size is the image's when `size` is absent.

use std::io;
use std::path::Path;

use super::api::transfer;
use super::api::{Completion, Engine, OpenMode, OptionSource, Queued, Request};
use super::ceph_inflight::InFlight;
use super::ceph_options::CephClient;
use crate::ceph::{CephError, Image, ImageInfo, ImageIo};

/// Where an rbd job's image is: fio's rbd options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RbdTarget {
    pub client: CephClient,
    pub image: Option<String>,
    /// librbd sends write buffers as they are instead of copying each
    /// (ferrio_rbd_zero_copy). Safe because a slot's buffer stays as it
    /// is until its write completes, and librbd holds the completion back
    /// until it has let go of the buffer.
    pub zero_copy_writes: bool,
}

/// Connects and opens the image as fio does: the config from librados'
/// default search (CEPH_CONF first), librbd's cache off for direct I/O.
/// The calls are named in fio's words when they fail.
/// The image holds its pool and connection: dropping it closes the image,
/// then the pool, then the connection.
fn open_image(target: &RbdTarget, direct: bool) -> Result<Image, RbdError> {
    let pool = target
        .client
        .pool
        .as_deref()
        .ok_or(RbdError::Usage("rbd pool name must be provided"))?;
    let name = target
        .image
        .as_deref()
        .ok_or(RbdError::Usage("rbdname must be provided"))?;
    let zero_copy = ("rbd_disable_zero_copy_writes", "false".to_string());
    let extra = if target.zero_copy_writes {
        std::slice::from_ref(&zero_copy)
    } else {
        &[]
    };
    let cluster = target.client.connect(None, extra)?;
    let pool = cluster.pool(pool)?;
    if direct {
        cluster.set("rbd_cache", "false")?;
    }
    let image = pool.open_image(name)?;
    if !direct {
        // fio ignores a failure here too (it only logs it).
        let _ = image.flush();
    }
    Ok(image)
}

/// Why an rbd job could not start.
#[derive(Debug, Clone)]
pub enum RbdError {
    /// An option fio requires is missing.
    Usage(&'static str),
    Ceph(CephError),
}

impl From<CephError> for RbdError {
    fn from(e: CephError) -> Self {
        RbdError::Ceph(e)
    }
}

impl RbdError {
    pub fn errno(&self) -> i32 {
        match self {
            RbdError::Usage(_) => libc::EINVAL,
            RbdError::Ceph(e) => e.errno(),
        }
    }
}

impl std::fmt::Display for RbdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RbdError::Usage(text) => f.write_str(text),
            RbdError::Ceph(e) => e.fmt(f),
        }
    }
}

impl From<RbdError> for io::Error {
    fn from(e: RbdError) -> io::Error {
        match e {
            RbdError::Ceph(e) => e.into(),
            RbdError::Usage(text) => io::Error::new(io::ErrorKind::InvalidInput, text),
        }
    }
}

/// The image's size, which an rbd job without `size` works on (fio reads
/// it the same way, in its setup, before the job starts, and fails the
/// job there when it cannot).
pub fn image_size(job: &crate::plan::JobSpec) -> Result<u64, super::api::SetupFailed> {
    size_of_image(&target(job)).map_err(|e| super::api::SetupFailed {
        errno: e.errno(),
        func: "rbd setup",
        message: format!("fio_rbd_connect failed: {e}"),
    })
}

fn size_of_image(target: &RbdTarget) -> Result<u64, RbdError> {
    let size = open_image(target, true)?.info()?.size;
    if size == 0 {
        return Err(RbdError::Ceph(CephError::Call {
            call: "rbd_stat",
            subject: "image size should be larger than zero".to_string(),
            errno: libc::EINVAL,
        }));
    }
    Ok(size)
}

pub struct Rbd {
    target: RbdTarget,
    /// Declared before the image, so that dropping the engine first waits
    /// for the I/O in flight, then closes the image.
    inflight: InFlight,
    image: Option<Image>,
    /// The image's layout, to name the objects of stalled I/Os.
    info: Option<ImageInfo>,
}

impl Rbd {
    /// Loads librbd (failing with what to install when it is missing) and
    /// prepares a queue for `depth` I/Os; the image opens with the job's
    /// first file.
    pub fn new(depth: usize, target: RbdTarget) -> io::Result<Self> {
        Ok(Rbd {
            inflight: InFlight::new(depth, target.client.busy_poll, target.client.wait_limit)?,
            target,
            image: None,
            info: None,
        })
    }

    /// Starts one operation for `slot`, which reports `len` when it
    /// succeeds.
    ///
    /// # Safety
    ///
    /// The operation's buffer, if it has one, is under the rule of
    /// [`Engine::queue`]'s Safety section.
    unsafe fn launch(&mut self, slot: usize, offset: u64, len: i64, io: ImageIo) -> Queued {
        let Some(image) = &self.image else {
            return Queued::Done(-i64::from(libc::EBADF));
        };
        if !self.inflight.set_len(slot, len) {
            return Queued::Done(-i64::from(libc::EINVAL));
        }
        // SAFETY: passed on from the caller.
        match unsafe { image.submit(self.inflight.queue(), slot, io) } {
            Ok(()) => {
                self.inflight.started(slot, 0, offset);
                Queued::Pending
            }
            Err(e) => Queued::Done(-i64::from(e.errno())),
        }
    }

    fn image(&self) -> io::Result<&Image> {
        match &self.image {
            Some(image) => Ok(image),
            None => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "rbd image not open",
            )),
        }
    }
}

impl Engine for Rbd {
    fn name(&self) -> &'static str {
        "rbd"
    }

    /// Every file of an rbd job is the image: it is opened once.
    fn open(&mut self, _path: &Path, mode: OpenMode) -> io::Result<usize> {
        if self.image.is_none() {
            let image = open_image(&self.target, mode.direct)?;
            if mode.invalidate {
                image.invalidate_cache()?;
            }
            self.info = image.info().ok();
            self.image = Some(image);
        }
        Ok(0)
    }

    unsafe fn queue(&mut self, mut req: Request<'_>) -> Queued {
        let len = req.buf.len();
        let io = match transfer(&mut req) {
            Some(data) => ImageIo::Data(data),
            None => ImageIo::Discard {
                offset: req.offset,
                len: len as u64,
            },
        };
        // SAFETY: passed on from the caller.
        unsafe { self.launch(req.slot, req.offset, len as i64, io) }
    }

    fn syncs_in_queue(&self) -> bool {
        true
    }

    /// A flush through rbd_aio_flush. librbd has no data-only flush, and
    /// fio's engine fails an fdatasync with EINVAL; so does this.
    fn queue_sync(&mut self, slot: usize, _file: usize, data_only: bool) -> Queued {
        if data_only {
            return Queued::Done(-i64::from(libc::EINVAL));
        }
        // SAFETY: a flush touches no buffer of the runner's.
        unsafe { self.launch(slot, 0, 0, ImageIo::Flush) }
    }

    fn sync(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Ok(self.image()?.flush()?)
    }

    /// Drops librbd's cache, as fio's rbd engine does.
    fn invalidate(&mut self, _path: &Path) -> io::Result<()> {
        Ok(self.image()?.invalidate_cache()?)
    }

    fn reap(&mut self, min: usize, max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        if !self.inflight.reap(min, max, done, |_| {}) {
            return Err(self.abandon());
        }
        Ok(())
    }

    fn abandoned(&self) -> bool {
        self.inflight.abandoned()
    }

    fn object_of(&self, _file: usize, offset: u64) -> Option<String> {
        self.info.as_ref().map(|i| object_name(i, offset))
    }

    fn connection(&self) -> Option<String> {
        self.image.as_ref().map(|i| i.cluster().client())
    }
}

/// The RADOS object holding an image offset.
fn object_name(info: &ImageInfo, offset: u64) -> String {
    format!(
        "{}.{:016x}",
        info.block_name_prefix,
        offset / info.object_size.max(1)
    )
}

impl Rbd {
    /// Gives up on the I/O in flight: the image stays open and the queue
    /// in place for the rest of the process (closing the image would wait
    /// for that I/O), and says which objects it went to.
    fn abandon(&mut self) -> io::Error {
        std::mem::forget(self.image.take());
        let what = format!(
            "rbd image {}/{}",
            self.target.client.pool.as_deref().unwrap_or(""),
            self.target.image.as_deref().unwrap_or("")
        );
        let info = self.info.clone();
        self.inflight.abandon(&what, |_, offset| match &info {
            Some(i) => object_name(i, offset),
            None => format!("offset {offset}"),
        })
    }
}

/// fio's rbd options: which cluster, pool and image, as whom.
pub fn target(job: &crate::plan::JobSpec) -> RbdTarget {
    RbdTarget {
        client: CephClient::from_spec(job),
        image: super::api::text(job, "rbdname"),
        zero_copy_writes: job
            .setting("ferrio_rbd_zero_copy")
            .is_none_or(|s| s.value.number() != Some(0)),
    }
}

/// rbd's options, as the job sets them.
pub fn options(src: &OptionSource) -> RbdTarget {
    target(src.job)
}

/// The table's maker.
pub fn make(depth: usize, target: &RbdTarget) -> io::Result<Box<dyn Engine>> {
    Rbd::new(depth, target.clone()).map(|e| Box::new(e) as Box<dyn Engine>)
}
