//! fio's `gfapi` and `gfapi_async` engines: I/O to files of a GlusterFS
//! volume through libgfapi, with no mount, and fio's options `volume`,
//! `brick` (the server whose management daemon hands out the volume) and
//! `single-instance` (one mount shared by the jobs of a run). gfapi does
//! each read and write synchronously; gfapi_async keeps the job's depth
//! in flight, each I/O completing through libgfapi's callback into a
//! queue the reaping thread waits on. As in fio, every file is opened
//! with glfs_creat (so a writer creates it), a reading job's file that is
//! missing or short is written out to the job's size first, trims are
//! discards (refused by the synchronous engine, as fio's refuses them)
//! and unlink removes the files from the volume.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use super::api::{Completion, Dir, Engine, FioFailure, OpenMode, OptionSource, Queued, Request};
use crate::clib::callbacks::{CallbackQueue, Finished};
use crate::gluster::{AsyncOp, GlusterError, GlusterFile, Volume};

/// fio's gfapi options, and what the job's setup says its files need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GfapiOptions {
    pub volume: Option<String>,
    pub brick: Option<String>,
    /// Share one mount of a volume among the jobs (single-instance).
    pub single_instance: bool,
    /// The job reads: a missing or short file is written out first.
    pub reads: bool,
    /// Bytes per file.
    pub size: u64,
}

/// gfapi's options, as the job sets them.
pub fn options(src: &OptionSource) -> GfapiOptions {
    GfapiOptions {
        volume: super::api::text(src.job, "volume"),
        brick: super::api::text(src.job, "brick"),
        single_instance: super::api::on(src.job, "single-instance"),
        reads: src.reads,
        size: src.size,
    }
}

/// What fio's engine prints when its mount fails (its words, by call),
/// then ferrio's line naming the call, the volume and the errno.
fn init_failure_text(e: &GlusterError) -> String {
    let fio = match e {
        GlusterError::Call { call, .. } => match *call {
            "glfs_new" => "glfs_new failed.",
            "glfs_set_volfile_server" => "glfs_set_volfile_server failed.",
            "glfs_init" => "glfs_init failed. Is glusterd running on brick?",
            "glfs_lstat" => "glfs_lstat failed.",
            _ => "",
        },
        _ => "",
    };
    let ours = (!crate::persona::as_fio()).then(|| format!("ferrio: {e}"));
    [Some(fio.to_string()).filter(|t| !t.is_empty()), ours]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n")
}

/// The mounts shared under single-instance, by volume and server; each
/// unmounted when its last job lets go.
type SharedMounts = Mutex<HashMap<(String, String), Weak<Volume>>>;

fn shared_mounts() -> &'static SharedMounts {
    static MOUNTS: std::sync::OnceLock<SharedMounts> = std::sync::OnceLock::new();
    MOUNTS.get_or_init(Mutex::default)
}

/// Mounts the job's volume, or shares the run's mount of it.
fn mount(options: &GfapiOptions) -> Result<Arc<Volume>, GlusterError> {
    let volume = options
        .volume
        .as_deref()
        .ok_or_else(|| GlusterError::Call {
            call: "glfs_new",
            subject: "no volume: the job sets no `volume`".to_string(),
            errno: libc::EINVAL,
        })?;
    let server = options.brick.as_deref().unwrap_or("localhost");
    if !options.single_instance {
        return Volume::connect(volume, server).map(Arc::new);
    }
    let key = (volume.to_string(), server.to_string());
    let mut mounts = shared_mounts()
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(mounted) = mounts.get(&key).and_then(Weak::upgrade) {
        return Ok(mounted);
    }
    let mounted = Arc::new(Volume::connect(volume, server)?);
    mounts.insert(key, Arc::downgrade(&mounted));
    Ok(mounted)
}

pub struct Gfapi {
    name: &'static str,
    options: GfapiOptions,
    /// gfapi_async's completions (none for gfapi). Declared before the
    /// files, so that dropping the engine first waits for the I/O in
    /// flight, then closes the files, then unmounts.
    queue: Option<CallbackQueue>,
    /// Reaped completions, reused so that reaping allocates nothing.
    finished: Vec<Finished>,
    files: Vec<Option<GlusterFile>>,
    volume: Arc<Volume>,
}

impl Gfapi {
    /// Mounts the job's volume (or shares the run's mount of it), as
    /// fio's engine init does: a failure fails the job's setup with EIO.
    fn new(name: &'static str, depth: Option<usize>, options: &GfapiOptions) -> io::Result<Self> {
        let volume = mount(options).map_err(|e| {
            let failed = FioFailure {
                code: -libc::EIO,
                detail: init_failure_text(&e),
                func: "",
            };
            io::Error::other(failed)
        })?;
        Ok(Gfapi {
            name,
            options: options.clone(),
            queue: depth.map(|d| CallbackQueue::new(d.max(1))),
            finished: Vec::with_capacity(depth.unwrap_or(0)),
            files: Vec::new(),
            volume,
        })
    }

    fn file(&self, file: usize) -> Result<&GlusterFile, i64> {
        match self.files.get(file) {
            Some(Some(f)) => Ok(f),
            _ => Err(-i64::from(libc::EBADF)),
        }
    }

    /// A reading job's file that is missing or shorter than the job's
    /// size is written out to it first, as fio's gfapi engines do (they
    /// lay out no files otherwise).
    fn fill_if_short(&self, file: &GlusterFile, volume: &Volume) -> io::Result<()> {
        let size = self.options.size;
        // A writing job's files are not looked at (no lstat per open).
        if !self.options.reads || volume.size_of(file.path())?.unwrap_or(0) >= size {
            return Ok(());
        }
        file.truncate(size)?;
        let chunk = vec![0x5a_u8; (1 << 20).min(size as usize).max(1)];
        let mut at = 0;
        while at < size {
            if crate::sys::signals::stop_requested() {
                return Err(io::Error::from_raw_os_error(libc::EINTR));
            }
            let len = chunk.len().min((size - at) as usize);
            let wrote = file.write_at(&chunk[..len], at);
            if wrote <= 0 {
                return Err(io::Error::from_raw_os_error(if wrote < 0 {
                    -wrote as i32
                } else {
                    libc::EIO
                }));
            }
            at += wrote as u64;
        }
        file.sync(false)
    }
}

impl Engine for Gfapi {
    fn name(&self) -> &'static str {
        self.name
    }

    /// Opens the file of that path in the volume, creating it if it is
    /// missing.
    fn open(&mut self, path: &Path, mode: OpenMode) -> io::Result<usize> {
        let name = path
            .to_str()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "file name is not UTF-8"))?;
        let mut flags = libc::O_RDWR | mode.sync_flags;
        if mode.direct {
            flags |= libc::O_DIRECT;
        }
        let file = self.volume.create(name, flags, 0o644)?;
        self.fill_if_short(&file, &self.volume)?;
        self.files.push(Some(file));
        Ok(self.files.len() - 1)
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
        let file = match self.file(req.file) {
            Ok(f) => f,
            Err(e) => return Queued::Done(e),
        };
        let Some(queue) = &self.queue else {
            return Queued::Done(match req.dir {
                Dir::Read => file.read_at(req.buf, req.offset),
                Dir::Write => file.write_at(req.buf, req.offset),
                // fio's gfapi refuses trims ("unsupported operation").
                Dir::Trim => -i64::from(libc::EINVAL),
            });
        };
        let mut req = req;
        let op = match super::api::transfer(&mut req) {
            Some(data) => AsyncOp::Data(data),
            None => AsyncOp::Trim {
                offset: req.offset,
                len: req.buf.len(),
            },
        };
        // SAFETY: the buffer is under the rule of Engine::queue's Safety
        // section; the queue outlives the files (declared before them).
        match unsafe { file.start(queue, req.slot, op) } {
            Ok(()) => Queued::Pending,
            Err(errno) => Queued::Done(-i64::from(errno)),
        }
    }

    fn commits(&self) -> bool {
        self.queue.is_some()
    }

    fn syncs_in_queue(&self) -> bool {
        self.queue.is_some()
    }

    fn queue_sync(&mut self, slot: usize, file: usize, data_only: bool) -> Queued {
        let (Some(queue), Ok(f)) = (&self.queue, self.file(file)) else {
            return Queued::Done(-i64::from(libc::EBADF));
        };
        // SAFETY: a flush touches no buffer of the runner's.
        match unsafe { f.start(queue, slot, AsyncOp::Sync { data_only }) } {
            Ok(()) => Queued::Pending,
            Err(errno) => Queued::Done(-i64::from(errno)),
        }
    }

    fn sync(&mut self, file: usize, data_only: bool) -> io::Result<()> {
        match self.file(file) {
            Ok(f) => f.sync(data_only),
            Err(_) => Err(io::Error::from_raw_os_error(libc::EBADF)),
        }
    }

    /// Nothing of the volume's is cached here to drop (libgfapi's own
    /// caches are the volume's settings).
    fn invalidate(&mut self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn reap(&mut self, min: usize, max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        let Some(queue) = &self.queue else {
            return Ok(());
        };
        // Waits on the queue's condition variable; a stuck brick is for
        // the job's own limits (runtime) to end.
        let _ = queue.reap(min, max, false, None, &mut self.finished);
        done.extend(self.finished.drain(..).map(|f| Completion {
            slot: f.token,
            result: f.result,
        }));
        Ok(())
    }

    fn close(&mut self, file: usize) {
        if let Some(f) = self.files.get_mut(file) {
            *f = None;
        }
    }

    /// Removes a file from the volume (unlink=1), closing it first.
    fn unlink(&mut self, path: &Path) -> Option<io::Result<()>> {
        let name = path.to_str()?;
        for f in &mut self.files {
            if f.as_ref().is_some_and(|g| g.path() == name) {
                *f = None;
            }
        }
        Some(self.volume.unlink(name).map_err(io::Error::from))
    }
}

/// The table's maker for gfapi: synchronous I/O.
pub fn make_sync(_depth: usize, options: &GfapiOptions) -> io::Result<Box<dyn Engine>> {
    crate::gluster::load()?;
    Ok(Box::new(Gfapi::new("gfapi", None, options)?))
}

/// The table's maker for gfapi_async: `depth` I/Os in flight.
pub fn make_async(depth: usize, options: &GfapiOptions) -> io::Result<Box<dyn Engine>> {
    crate::gluster::load()?;
    // fio's word on its engine, on stderr as it sets the job up.
    eprintln!("the async interface is still very experimental...");
    Ok(Box::new(Gfapi::new("gfapi_async", Some(depth), options)?))
}
