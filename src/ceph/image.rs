//! An open rbd image and the asynchronous operations on it.

use std::sync::Arc;

use super::completion::launch;
use super::sys::{self, RbdApi};
use super::{CallbackQueue, CephError, Cluster, Pool, Transfer, check};

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
    pub(super) pool: Arc<Pool>,
    pub(super) handle: sys::RbdImage,
}

// SAFETY: an image handle may move between threads; librbd serialises
// concurrent use of one image internally.
unsafe impl Send for Image {}

/// One asynchronous operation on an rbd image.
#[derive(Debug, Clone, Copy)]
pub enum ImageIo {
    Data(Transfer),
    Discard { offset: u64, len: u64 },
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
        queue: &CallbackQueue,
        token: usize,
        io: ImageIo,
    ) -> Result<(), CephError> {
        let api = self.api();
        launch(queue, api, token, "the image", |completion| {
            // SAFETY: a live image and completion, and a buffer the caller
            // keeps valid until completion (the contract above).
            unsafe {
                match io {
                    ImageIo::Data(Transfer::Read { offset, buf, len }) => (
                        (api.rbd_aio_read)(self.handle, offset, len, buf.cast(), completion),
                        "rbd_aio_read",
                    ),
                    ImageIo::Data(Transfer::Write { offset, buf, len }) => (
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
