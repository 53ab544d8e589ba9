//! A pool's I/O context and the asynchronous operations on its RADOS
//! objects.

use std::ffi::CStr;
use std::fmt;
use std::sync::Arc;

use super::completion::launch;
use super::sys;
use super::{Apis, CallbackQueue, CephError, Cluster, Image, Transfer, apis, c_text, check};

/// A pool's I/O context (librados' `rados_ioctx_t`).
pub struct Pool {
    pub(super) cluster: Arc<Cluster>,
    pub(super) ioctx: sys::IoCtx,
}

// SAFETY: an I/O context may be used from any thread, and librados
// serialises what needs it.
unsafe impl Send for Pool {}
// SAFETY: as above.
unsafe impl Sync for Pool {}

/// One asynchronous operation on a RADOS object.
#[derive(Debug, Clone, Copy)]
pub enum ObjectIo<'a> {
    Data(Transfer),
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
        queue: &CallbackQueue,
        token: usize,
        oid: &CStr,
        io: ObjectIo<'_>,
    ) -> Result<(), CephError> {
        let api = &self.cluster.api.rados;
        let (ctx, name) = (self.ioctx, oid.as_ptr());
        launch(queue, api, token, &oid.to_string_lossy(), |completion| {
            // SAFETY: a live context and completion, a C string, and a
            // buffer the caller keeps valid until completion (the contract
            // above).
            unsafe {
                match io {
                    ObjectIo::Data(Transfer::Read { offset, buf, len }) => (
                        (api.rados_aio_read)(ctx, name, completion, buf.cast(), len, offset),
                        "rados_aio_read",
                    ),
                    ObjectIo::Data(Transfer::Write { offset, buf, len }) => (
                        (api.rados_aio_write)(ctx, name, completion, buf.cast(), len, offset),
                        "rados_aio_write",
                    ),
                    ObjectIo::Remove => (
                        (api.rados_aio_remove)(ctx, name, completion),
                        "rados_aio_remove",
                    ),
                    ObjectIo::Operate(op) => (
                        (api.rados_aio_write_op_operate)(
                            op.handle,
                            ctx,
                            completion,
                            name,
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
