//! Ceph's client libraries, librados and librbd, behind safe wrappers: a
//! cluster connection, a pool, an rbd image, and a queue that asynchronous
//! operations complete into. The libraries are loaded at run time (see
//! [`sys`]), so ferrio builds and runs on machines without them; the
//! first use there fails with [`CephError::Missing`], which says what to
//! install. Every unsafe call to Ceph is in this module.
//!
//! Asynchronous operations complete on librados' own threads, through a
//! callback that records the result in a [`CallbackQueue`] and wakes
//! the thread reaping it: nothing polls or sleeps.

mod cluster;
mod completion;
pub mod grace;
mod image;
mod pool;
mod sys;

use std::sync::OnceLock;

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

/// Loads both libraries (once per process), or says what to install.
pub fn load() -> Result<(), CephError> {
    apis().map(|_| ())
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
pub type CephError = crate::clib::error::LibError;

use crate::clib::error::{c_text, check};

pub use crate::clib::Transfer;
pub use crate::clib::callbacks::{CallbackQueue, Finished};
pub use cluster::{Cluster, ConnectOptions, Timeouts};
pub use image::{Image, ImageInfo, ImageIo};
pub use pool::{ObjectIo, Pool, WriteOp};

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

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
