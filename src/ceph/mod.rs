//! Ceph's client libraries, librados and librbd, behind safe wrappers: a
//! cluster connection, a pool, an rbd image, and a queue that asynchronous
//! operations complete into. The libraries are loaded at run time (see
//! [`sys`]), so ferrio builds and runs on machines without them; the
//! first use there fails with [`CephError::Missing`], which says what to
//! install. Every unsafe call to Ceph is in this module.
//!
//! Asynchronous operations complete on librados' own threads, through a
//! callback that records the result in a [`CompletionQueue`] and wakes
//! the thread reaping it: nothing polls or sleeps.

pub mod grace;
mod sys;

use std::ffi::{CStr, CString, c_int, c_void};
use std::fmt;
use std::io;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Instant;

use sys::{LoadError, RadosApi, RbdApi};

/// The two libraries' function tables, loaded once per process.
struct Apis {
    rados: RadosApi,
    rbd: RbdApi,
}

static APIS: OnceLock<Result<Apis, LoadError>> = OnceLock::new();

fn apis() -> Result<&'static Apis, CephError> {
    let loaded = APIS.get_or_init(|| {
        Ok(Apis {
            rados: RadosApi::load()?,
            rbd: RbdApi::load()?,
        })
    });
    loaded.as_ref().map_err(|e| CephError::Missing(e.clone()))
}

/// librbd's version (major, minor, extra), which also proves the
/// libraries load.
pub fn rbd_version() -> Result<(i32, i32, i32), CephError> {
    let api = apis()?;
    let (mut major, mut minor, mut extra) = (0, 0, 0);
    // SAFETY: rbd_version writes three ints through valid pointers.
    unsafe { (api.rbd.rbd_version)(&mut major, &mut minor, &mut extra) };
    Ok((major, minor, extra))
}

/// What went wrong talking to Ceph.
#[derive(Debug, Clone)]
pub enum CephError {
    /// librados or librbd is not installed.
    Missing(LoadError),
    /// A library call returned a negative errno.
    Call {
        call: &'static str,
        /// What the call was about (a pool, an image, a setting).
        subject: String,
        errno: i32,
    },
    /// A name or setting holds a NUL byte, which C strings cannot carry.
    BadText(String),
}

impl CephError {
    /// The errno fio would report for it.
    pub fn errno(&self) -> i32 {
        match self {
            CephError::Missing(_) => libc::ENOENT,
            CephError::Call { errno, .. } => *errno,
            CephError::BadText(_) => libc::EINVAL,
        }
    }
}

impl fmt::Display for CephError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CephError::Missing(e) => write!(
                f,
                "Ceph's client libraries are not installed: cannot load {} ({}); \
                 install Debian's librbd1 and librados2 packages \
                 (apt-get install librbd1 librados2)",
                e.library, e.detail
            ),
            CephError::Call {
                call,
                subject,
                errno,
            } => {
                let text = crate::strerror(&io::Error::from_raw_os_error(*errno));
                write!(f, "{call} ({subject}) failed: {text} (errno {errno})")
            }
            CephError::BadText(text) => write!(f, "{text:?} holds a NUL byte"),
        }
    }
}

impl std::error::Error for CephError {}

impl From<CephError> for io::Error {
    fn from(e: CephError) -> io::Error {
        // The CephError stays inside, so its errno can be recovered.
        let kind = io::Error::from_raw_os_error(e.errno()).kind();
        io::Error::new(kind, e)
    }
}

fn c_text(text: &str) -> Result<CString, CephError> {
    CString::new(text).map_err(|_| CephError::BadText(text.to_string()))
}

/// Turns a C return code into a result.
fn check(code: i64, call: &'static str, subject: &str) -> Result<(), CephError> {
    if code < 0 {
        Err(CephError::Call {
            call,
            subject: subject.to_string(),
            errno: -code as i32,
        })
    } else {
        Ok(())
    }
}

/// How to reach a cluster: fio's `clustername` and `clientname`, a config
/// file (librados' own search, which honours CEPH_CONF, when absent), and
/// settings applied before connecting (timeouts, for instance).
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions<'a> {
    pub cluster_name: Option<&'a str>,
    pub client_name: Option<&'a str>,
    pub conf_file: Option<&'a Path>,
    pub settings: &'a [(&'a str, &'a str)],
}

/// How long a client waits for the cluster before giving up, so that an
/// unreachable monitor or a dead OSD ends in an error rather than a hang
/// (librados waits 300 s to connect, and forever for an OSD, by default).
/// Set from ferrio's `ferrio_ceph_timeout` and `ferrio_ceph_op_timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Connecting and authenticating, and each monitor request, in
    /// seconds (`client_mount_timeout`, `rados_mon_op_timeout`); 0 keeps
    /// librados' defaults.
    pub connect_secs: u64,
    /// Each OSD operation, in seconds (`rados_osd_op_timeout`); 0 waits
    /// forever, as librados does by default.
    pub op_secs: u64,
}

impl Timeouts {
    /// ferrio's defaults, which the option table states too.
    pub const DEFAULT: Timeouts = Timeouts {
        connect_secs: 5,
        op_secs: 30,
    };

    /// The librados settings that apply them.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let mut settings = Vec::new();
        if self.connect_secs > 0 {
            let secs = self.connect_secs.to_string();
            settings.push(("client_mount_timeout", secs.clone()));
            settings.push(("rados_mon_op_timeout", secs));
        }
        if self.op_secs > 0 {
            settings.push(("rados_osd_op_timeout", self.op_secs.to_string()));
        }
        settings
    }
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts::DEFAULT
    }
}

/// A connected cluster handle (librados' `rados_t`).
pub struct Cluster {
    api: &'static Apis,
    handle: sys::Rados,
}

// SAFETY: librados' cluster handle may be used from any thread, and from
// several at once.
unsafe impl Send for Cluster {}
// SAFETY: as above.
unsafe impl Sync for Cluster {}

impl Cluster {
    /// Creates a handle as fio does: with a cluster name, through
    /// rados_create2 and a full `type.id` name (`client.` is prepended to
    /// a client name without a dot); without one, through rados_create,
    /// which takes a bare id. Then reads the config and connects.
    pub fn connect(options: &ConnectOptions<'_>) -> Result<Arc<Cluster>, CephError> {
        let api = apis()?;
        let mut handle: sys::Rados = std::ptr::null_mut();
        let created = match options.cluster_name {
            Some(cluster) => {
                let full_name = options.client_name.map(|name| {
                    if name.contains('.') {
                        name.to_string()
                    } else {
                        format!("client.{name}")
                    }
                });
                let cluster_c = c_text(cluster)?;
                let name_c = full_name.as_deref().map(c_text).transpose()?;
                // SAFETY: valid out pointer and NUL-terminated strings (or
                // null for the default name).
                unsafe {
                    (api.rados.rados_create2)(
                        &mut handle,
                        cluster_c.as_ptr(),
                        name_c.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                        0,
                    )
                }
            }
            None => {
                let id_c = options.client_name.map(c_text).transpose()?;
                // SAFETY: valid out pointer; the id is a C string or null.
                unsafe {
                    (api.rados.rados_create)(
                        &mut handle,
                        id_c.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                    )
                }
            }
        };
        check(
            created.into(),
            "rados_create",
            options.client_name.unwrap_or("admin"),
        )?;
        // From here the handle is shut down on every path, by Drop.
        let cluster = Cluster { api, handle };
        let conf = options.conf_file.map(|p| p.to_string_lossy().into_owned());
        let conf_c = conf.as_deref().map(c_text).transpose()?;
        // SAFETY: a created handle and a C string or null (the default
        // search: $CEPH_CONF, /etc/ceph/ceph.conf, ~/.ceph/config, ./ceph.conf).
        let read = unsafe {
            (api.rados.rados_conf_read_file)(
                handle,
                conf_c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
            )
        };
        check(
            read.into(),
            "rados_conf_read_file",
            conf.as_deref().unwrap_or("the default config search"),
        )?;
        for (option, value) in options.settings {
            cluster.set(option, value)?;
        }
        // SAFETY: a created, configured handle.
        let connected = unsafe { (api.rados.rados_connect)(handle) };
        check(connected.into(), "rados_connect", "the cluster's monitors")?;
        Ok(Arc::new(cluster))
    }

    /// A connection for `key` that every caller with the same key shares
    /// while any of them holds it (ferrio_shared_connection: a job's
    /// clones on one client), or a new one when `key` is `None`.
    pub fn connect_shared(
        key: Option<String>,
        options: &ConnectOptions<'_>,
    ) -> Result<Arc<Cluster>, CephError> {
        static SHARED: Mutex<Vec<(String, std::sync::Weak<Cluster>)>> = Mutex::new(Vec::new());
        let Some(key) = key else {
            return Cluster::connect(options);
        };
        // Held while connecting, so that clones starting together make one.
        let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
        shared.retain(|(_, c)| c.strong_count() > 0);
        if let Some(cluster) = shared
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, c)| c.upgrade())
        {
            return Ok(cluster);
        }
        let cluster = Cluster::connect(options)?;
        shared.push((key, Arc::downgrade(&cluster)));
        Ok(cluster)
    }

    /// The client's id in the cluster (`client.N`): one per connection.
    pub fn client(&self) -> String {
        // SAFETY: a connected handle.
        let id = unsafe { (self.api.rados.rados_get_instance_id)(self.handle) };
        format!("client.{id}")
    }

    /// Sets a config option on the handle (some, such as `rbd_cache`,
    /// are read later, when an image opens).
    pub fn set(&self, option: &str, value: &str) -> Result<(), CephError> {
        let (option_c, value_c) = (c_text(option)?, c_text(value)?);
        // SAFETY: a live handle and two C strings.
        let r = unsafe {
            (self.api.rados.rados_conf_set)(self.handle, option_c.as_ptr(), value_c.as_ptr())
        };
        check(r.into(), "rados_conf_set", &format!("{option}={value}"))
    }

    /// Opens an I/O context on a pool.
    pub fn pool(self: &Arc<Self>, name: &str) -> Result<Arc<Pool>, CephError> {
        let name_c = c_text(name)?;
        let mut ioctx: sys::IoCtx = std::ptr::null_mut();
        // SAFETY: a connected handle, a C string and a valid out pointer.
        let r = unsafe {
            (self.api.rados.rados_ioctx_create)(self.handle, name_c.as_ptr(), &mut ioctx)
        };
        check(r.into(), "rados_ioctx_create", &format!("pool {name}"))?;
        Ok(Arc::new(Pool {
            cluster: Arc::clone(self),
            ioctx,
        }))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // SAFETY: the handle was created and nothing uses it any more:
        // pools and images hold an Arc to it.
        unsafe { (self.api.rados.rados_shutdown)(self.handle) };
    }
}

/// A pool's I/O context (librados' `rados_ioctx_t`).
pub struct Pool {
    cluster: Arc<Cluster>,
    ioctx: sys::IoCtx,
}

// SAFETY: an I/O context may be used from any thread, and librados
// serialises what needs it.
unsafe impl Send for Pool {}
// SAFETY: as above.
unsafe impl Sync for Pool {}

/// One asynchronous operation on a RADOS object.
#[derive(Debug, Clone, Copy)]
pub enum ObjectIo<'a> {
    Read {
        offset: u64,
        buf: *mut u8,
        len: usize,
    },
    Write {
        offset: u64,
        buf: *const u8,
        len: usize,
    },
    Remove,
    /// A compound write (fio trims a RADOS object by zeroing a range).
    Operate(&'a WriteOp),
}

/// A compound write operation (librados' `rados_write_op_t`), kept until
/// the operation it describes has completed.
pub struct WriteOp {
    api: &'static Apis,
    handle: sys::WriteOp,
}

// SAFETY: a write operation is plain data until submitted; librados reads
// it from whichever thread submits it.
unsafe impl Send for WriteOp {}
// SAFETY: nothing mutates it through a shared reference.
unsafe impl Sync for WriteOp {}

impl fmt::Debug for WriteOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WriteOp({:p})", self.handle)
    }
}

impl WriteOp {
    /// An operation that zeroes `len` bytes of an object from `offset`.
    pub fn zero(offset: u64, len: u64) -> Result<WriteOp, CephError> {
        let api = apis()?;
        // SAFETY: no arguments; null means out of memory.
        let handle = unsafe { (api.rados.rados_create_write_op)() };
        if handle.is_null() {
            return Err(CephError::Call {
                call: "rados_create_write_op",
                subject: "a zeroing write".to_string(),
                errno: libc::ENOMEM,
            });
        }
        // SAFETY: a live write operation.
        unsafe { (api.rados.rados_write_op_zero)(handle, offset, len) };
        Ok(WriteOp { api, handle })
    }
}

impl Drop for WriteOp {
    fn drop(&mut self) {
        // SAFETY: created by rados_create_write_op, released once; the
        // owner keeps it until its operation has completed.
        unsafe { (self.api.rados.rados_release_write_op)(self.handle) };
    }
}

impl Pool {
    /// The connection the pool was opened on.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Writes `data` at the start of object `oid`, waiting for it (fio's
    /// rados engine touches each object this way, with no data).
    pub fn write(&self, oid: &CStr, data: &[u8]) -> Result<(), CephError> {
        let api = &self.cluster.api.rados;
        // SAFETY: a live context, a C string and a buffer of `len` bytes.
        let r = unsafe {
            (api.rados_write)(
                self.ioctx,
                oid.as_ptr(),
                data.as_ptr().cast(),
                data.len(),
                0,
            )
        };
        check(r.into(), "rados_write", &oid.to_string_lossy())
    }

    /// Opens an rbd image of this pool (its head, no snapshot).
    pub fn open_image(self: &Arc<Self>, name: &str) -> Result<Image, CephError> {
        let api = self.cluster.api;
        let name_c = c_text(name)?;
        let mut handle: sys::RbdImage = std::ptr::null_mut();
        // SAFETY: a live I/O context, a C string, a valid out pointer and
        // a null snapshot name.
        let r = unsafe {
            (api.rbd.rbd_open)(self.ioctx, name_c.as_ptr(), &mut handle, std::ptr::null())
        };
        check(r.into(), "rbd_open", &format!("image {name}"))?;
        Ok(Image {
            pool: Arc::clone(self),
            handle,
        })
    }

    /// Starts an operation on object `oid`; its result arrives in `queue`
    /// under `token`: the byte count read, 0 for a write or a removal, or
    /// a negative errno.
    ///
    /// # Safety
    /// A read's or write's buffer, and a compound write, must stay valid,
    /// and untouched by anything else, until `queue` has handed back this
    /// token's result; `token` must not have another operation in flight.
    pub unsafe fn submit(
        &self,
        queue: &CompletionQueue,
        token: usize,
        oid: &CStr,
        io: ObjectIo<'_>,
    ) -> Result<(), CephError> {
        let api = &self.cluster.api.rados;
        queue.launch(api, token, &oid.to_string_lossy(), |completion| {
            // SAFETY: a live context and completion, a C string, and a
            // buffer the caller keeps valid until completion (the contract
            // above).
            unsafe {
                match io {
                    ObjectIo::Read { offset, buf, len } => (
                        (api.rados_aio_read)(
                            self.ioctx,
                            oid.as_ptr(),
                            completion,
                            buf.cast(),
                            len,
                            offset,
                        ),
                        "rados_aio_read",
                    ),
                    ObjectIo::Write { offset, buf, len } => (
                        (api.rados_aio_write)(
                            self.ioctx,
                            oid.as_ptr(),
                            completion,
                            buf.cast(),
                            len,
                            offset,
                        ),
                        "rados_aio_write",
                    ),
                    ObjectIo::Remove => (
                        (api.rados_aio_remove)(self.ioctx, oid.as_ptr(), completion),
                        "rados_aio_remove",
                    ),
                    ObjectIo::Operate(op) => (
                        (api.rados_aio_write_op_operate)(
                            op.handle,
                            self.ioctx,
                            completion,
                            oid.as_ptr(),
                            std::ptr::null_mut(),
                            0,
                        ),
                        "rados_aio_write_op_operate",
                    ),
                }
            }
        })
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: no image or operation uses the context any more (images
        // hold an Arc to the pool; queues wait for their operations).
        unsafe { (self.cluster.api.rados.rados_ioctx_destroy)(self.ioctx) };
    }
}

/// What `rbd_stat` says of an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageInfo {
    pub size: u64,
    pub object_size: u64,
    /// Data objects are named `<prefix>.<object number, 16 hex digits>`.
    pub block_name_prefix: String,
}

/// An open rbd image (librbd's `rbd_image_t`).
pub struct Image {
    pool: Arc<Pool>,
    handle: sys::RbdImage,
}

// SAFETY: an image handle may move between threads; librbd serialises
// concurrent use of one image internally.
unsafe impl Send for Image {}

/// One asynchronous operation on an rbd image.
#[derive(Debug, Clone, Copy)]
pub enum ImageIo {
    Read {
        offset: u64,
        buf: *mut u8,
        len: usize,
    },
    Write {
        offset: u64,
        buf: *const u8,
        len: usize,
    },
    Discard {
        offset: u64,
        len: u64,
    },
    Flush,
}

impl Image {
    fn api(&self) -> &'static RbdApi {
        &self.pool.cluster.api.rbd
    }

    /// The connection the image was opened on.
    pub fn cluster(&self) -> &Cluster {
        &self.pool.cluster
    }

    pub fn info(&self) -> Result<ImageInfo, CephError> {
        let mut info = std::mem::MaybeUninit::<sys::RbdImageInfo>::zeroed();
        // SAFETY: rbd_stat fills a struct of the size passed.
        let r = unsafe {
            (self.api().rbd_stat)(
                self.handle,
                info.as_mut_ptr(),
                std::mem::size_of::<sys::RbdImageInfo>(),
            )
        };
        check(r.into(), "rbd_stat", "the image")?;
        // SAFETY: zeroed, then filled by a successful rbd_stat.
        let info = unsafe { info.assume_init() };
        let prefix: Vec<u8> = info
            .block_name_prefix
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        Ok(ImageInfo {
            size: info.size,
            object_size: info.obj_size,
            block_name_prefix: String::from_utf8_lossy(&prefix).into_owned(),
        })
    }

    /// Writes back what librbd's cache holds, waiting for it.
    pub fn flush(&self) -> Result<(), CephError> {
        // SAFETY: a live image.
        let r = unsafe { (self.api().rbd_flush)(self.handle) };
        check(r.into(), "rbd_flush", "the image")
    }

    /// Drops what librbd's cache holds (fio's `invalidate`).
    pub fn invalidate_cache(&self) -> Result<(), CephError> {
        // SAFETY: a live image.
        let r = unsafe { (self.api().rbd_invalidate_cache)(self.handle) };
        check(r.into(), "rbd_invalidate_cache", "the image")
    }

    /// Starts an operation; its result arrives in `queue` under `token`:
    /// for a read the byte count, else 0, or a negative errno.
    ///
    /// # Safety
    /// A read's or write's buffer must stay valid, and untouched by
    /// anything else, until `queue` has handed back this token's result;
    /// `token` must not have another operation in flight.
    pub unsafe fn submit(
        &self,
        queue: &CompletionQueue,
        token: usize,
        io: ImageIo,
    ) -> Result<(), CephError> {
        let api = self.api();
        queue.launch(api, token, "the image", |completion| {
            // SAFETY: a live image and completion, and a buffer the caller
            // keeps valid until completion (the contract above).
            unsafe {
                match io {
                    ImageIo::Read { offset, buf, len } => (
                        (api.rbd_aio_read)(self.handle, offset, len, buf.cast(), completion),
                        "rbd_aio_read",
                    ),
                    ImageIo::Write { offset, buf, len } => (
                        (api.rbd_aio_write)(self.handle, offset, len, buf.cast(), completion),
                        "rbd_aio_write",
                    ),
                    ImageIo::Discard { offset, len } => (
                        (api.rbd_aio_discard)(self.handle, offset, len, completion),
                        "rbd_aio_discard",
                    ),
                    ImageIo::Flush => (
                        (api.rbd_aio_flush)(self.handle, completion),
                        "rbd_aio_flush",
                    ),
                }
            }
        })
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: a live image; rbd_close waits for its operations.
        unsafe { (self.api().rbd_close)(self.handle) };
    }
}

/// A finished asynchronous operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    pub token: usize,
    /// What the library returned: a byte count, 0, or a negative errno.
    pub result: i64,
}

impl Finished {
    /// The result fio reports for this I/O: an error as returned, any
    /// other return as the whole transfer of `lens[token]` bytes (librbd
    /// returns 0 for writes, librados a short count past an object's end).
    pub fn transferred(&self, lens: &[i64]) -> i64 {
        if self.result < 0 {
            self.result
        } else {
            lens.get(self.token).copied().unwrap_or(0)
        }
    }
}

/// What completion callbacks and the reaping thread share.
struct Shared {
    state: Mutex<QueueState>,
    /// Signalled whenever an operation finishes.
    finished: Condvar,
}

struct QueueState {
    /// Results not yet reaped; room for one per token is reserved, so
    /// callbacks never allocate.
    done: Vec<Finished>,
    /// Operations started whose callback has not run yet.
    outstanding: usize,
}

/// What a completion callback gets as its argument: which token it
/// finishes, and where to put the result.
struct Ticket {
    token: usize,
    shared: Arc<Shared>,
    api: &'static Apis,
}

/// Where asynchronous operations complete: up to `capacity` tokens in
/// flight at once (a job's queue depth), each reaped once.
pub struct CompletionQueue {
    shared: Arc<Shared>,
    /// One per token, at fixed addresses for the queue's life.
    tickets: Box<[Ticket]>,
    /// Set when the caller stopped waiting for operations in flight.
    abandoned: bool,
}

impl CompletionQueue {
    pub fn new(capacity: usize) -> Result<CompletionQueue, CephError> {
        let api = apis()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(QueueState {
                done: Vec::with_capacity(capacity),
                outstanding: 0,
            }),
            finished: Condvar::new(),
        });
        let tickets = (0..capacity)
            .map(|token| Ticket {
                token,
                shared: Arc::clone(&shared),
                api,
            })
            .collect();
        Ok(CompletionQueue {
            shared,
            tickets,
            abandoned: false,
        })
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The callback argument for a token.
    fn ticket(&self, token: usize) -> Result<*mut c_void, CephError> {
        match self.tickets.get(token) {
            Some(ticket) => Ok(std::ptr::from_ref(ticket).cast_mut().cast()),
            None => Err(CephError::Call {
                call: "submit",
                subject: format!("token {token} of a queue of {}", self.tickets.len()),
                errno: libc::EINVAL,
            }),
        }
    }

    /// Waits until every started operation has finished (its result
    /// stays to be reaped).
    pub fn wait_idle(&self) {
        let mut state = self.lock();
        while state.outstanding > 0 {
            state = self
                .shared
                .finished
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Operations started and not reaped yet.
    pub fn in_flight(&self) -> usize {
        let state = self.lock();
        state.outstanding + state.done.len()
    }

    /// Waits until at least `min` operations have finished (spinning
    /// rather than sleeping when `busy_poll`), then moves up to `max`
    /// finished ones into `out`. With a `deadline`, it stops waiting
    /// there: `Err` holds how many operations were still in flight (what
    /// had finished is moved into `out` all the same).
    pub fn reap(
        &self,
        min: usize,
        max: usize,
        busy_poll: bool,
        deadline: Option<Instant>,
        out: &mut Vec<Finished>,
    ) -> Result<(), usize> {
        let mut state = self.lock();
        let mut late = false;
        while state.done.len() < min {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                late = true;
                break;
            }
            if busy_poll {
                drop(state);
                std::hint::spin_loop();
                state = self.lock();
            } else if let Some(d) = deadline {
                let wait = d.saturating_duration_since(Instant::now());
                state = self
                    .shared
                    .finished
                    .wait_timeout(state, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            } else {
                state = self
                    .shared
                    .finished
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
        let take = state.done.len().min(max);
        out.extend(state.done.drain(..take));
        if late {
            return Err(state.outstanding);
        }
        Ok(())
    }

    /// Gives up on the operations in flight: the queue no longer waits
    /// for them when dropped, and its tickets (which their callbacks will
    /// still read) stay allocated for the rest of the process.
    pub fn abandon(&mut self) {
        self.abandoned = true;
    }

    /// Whether [`abandon`](Self::abandon) was called.
    pub fn abandoned(&self) -> bool {
        self.abandoned
    }
}

/// How one library makes, reads and frees the completions of its
/// asynchronous operations.
trait CompletionCalls: Sized + 'static {
    const CREATE: &'static str;
    fn of(apis: &'static Apis) -> &'static Self;
    /// Makes a completion that calls [`finished`] with `arg`.
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int;
    /// A finished operation's result: a byte count, 0, or a negative errno.
    fn result(&self, completion: *mut c_void) -> i64;
    /// Frees a completion that is finished, or whose operation never
    /// started.
    fn release(&self, completion: *mut c_void);
}

impl CompletionCalls for RbdApi {
    const CREATE: &'static str = "rbd_aio_create_completion";
    fn of(apis: &'static Apis) -> &'static Self {
        &apis.rbd
    }
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int {
        // SAFETY: a valid out pointer; `arg` is a ticket, which outlives
        // the operation (the queue waits for every operation it started).
        unsafe { (self.rbd_aio_create_completion)(arg, finished::<Self>, completion) }
    }
    fn result(&self, completion: *mut c_void) -> i64 {
        // SAFETY: a live completion.
        unsafe { (self.rbd_aio_get_return_value)(completion) as i64 }
    }
    fn release(&self, completion: *mut c_void) {
        // SAFETY: a live completion, released once.
        unsafe { (self.rbd_aio_release)(completion) }
    }
}

impl CompletionCalls for RadosApi {
    const CREATE: &'static str = "rados_aio_create_completion2";
    fn of(apis: &'static Apis) -> &'static Self {
        &apis.rados
    }
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int {
        // SAFETY: as for librbd's.
        unsafe { (self.rados_aio_create_completion2)(arg, finished::<Self>, completion) }
    }
    fn result(&self, completion: *mut c_void) -> i64 {
        // SAFETY: a live completion.
        i64::from(unsafe { (self.rados_aio_get_return_value)(completion) })
    }
    fn release(&self, completion: *mut c_void) {
        // SAFETY: a live completion, released once.
        unsafe { (self.rados_aio_release)(completion) }
    }
}

impl CompletionQueue {
    /// Starts one operation for `token`: makes its completion, counts it
    /// in flight, and lets `start` hand it to the library, which returns
    /// its code and the call's name; a refused operation is uncounted and
    /// its completion freed.
    fn launch<L: CompletionCalls>(
        &self,
        library: &L,
        token: usize,
        subject: &str,
        start: impl FnOnce(*mut c_void) -> (c_int, &'static str),
    ) -> Result<(), CephError> {
        let ticket = self.ticket(token)?;
        let mut completion: *mut c_void = std::ptr::null_mut();
        let made = library.create(ticket, &mut completion);
        check(made.into(), L::CREATE, subject)?;
        self.lock().outstanding += 1;
        let (r, call) = start(completion);
        if r < 0 {
            self.lock().outstanding -= 1;
            library.release(completion);
        }
        check(r.into(), call, subject)
    }
}

impl Drop for CompletionQueue {
    /// Waits for every started operation's callback, which reads its
    /// ticket, before the tickets go.
    /// An abandoned queue leaks its tickets instead: a late callback
    /// must still find its ticket.
    fn drop(&mut self) {
        if self.abandoned {
            std::mem::forget(std::mem::take(&mut self.tickets));
            return;
        }
        self.wait_idle();
    }
}

impl Ticket {
    /// Records a result and wakes the reaper. The ticket is read before
    /// the operation counts as finished, never after: once it does, the
    /// queue may go.
    fn finish(&self, result: i64) {
        let shared = Arc::clone(&self.shared);
        let token = self.token;
        let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.done.push(Finished { token, result });
        state.outstanding -= 1;
        shared.finished.notify_all();
    }
}

/// The completion callback of both libraries: records the operation's
/// result and frees its completion.
unsafe extern "C" fn finished<L: CompletionCalls>(completion: *mut c_void, arg: *mut c_void) {
    // SAFETY: `arg` is the ticket given when the completion was made,
    // alive until `finish` counts this operation as done.
    let ticket = unsafe { &*arg.cast::<Ticket>() };
    let library = L::of(ticket.api);
    let result = library.result(completion);
    // The completion is finished and released once, here: each library
    // holds a reference of its own while the callback runs.
    library.release(completion);
    ticket.finish(result);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_libraries_say_what_to_install() {
        let e = CephError::Missing(LoadError {
            library: "librbd.so.1",
            detail: "librbd.so.1: cannot open shared object file".to_string(),
        });
        let text = e.to_string();
        assert!(text.contains("cannot load librbd.so.1"), "{text}");
        assert!(text.contains("apt-get install librbd1 librados2"), "{text}");
        assert_eq!(io::Error::from(e).kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn timeouts_become_librados_settings_and_zero_keeps_its_defaults() {
        let settings = |connect_secs, op_secs| {
            Timeouts {
                connect_secs,
                op_secs,
            }
            .settings()
        };
        let owned = |pairs: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
            pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
        };
        assert_eq!(
            settings(5, 30),
            owned(&[
                ("client_mount_timeout", "5"),
                ("rados_mon_op_timeout", "5"),
                ("rados_osd_op_timeout", "30"),
            ])
        );
        assert_eq!(settings(0, 3), owned(&[("rados_osd_op_timeout", "3")]));
        assert!(settings(0, 0).is_empty());
        assert_eq!(Timeouts::default(), Timeouts::DEFAULT);
    }

    #[test]
    fn ceph_errors_keep_their_errno_through_io_error() {
        let e = io::Error::from(check(-110, "rados_connect", "mons").unwrap_err());
        let inner = e.get_ref().and_then(|i| i.downcast_ref::<CephError>());
        assert_eq!(inner.map(CephError::errno), Some(110));
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    }

    #[test]
    fn call_errors_name_the_call_the_subject_and_the_errno() {
        let e = check(-2, "rbd_open", "image x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "rbd_open (image x) failed: No such file or directory (errno 2)"
        );
        assert!(check(0, "rbd_open", "image x").is_ok());
    }
}
