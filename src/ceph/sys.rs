//! The librados and librbd calls ferrio makes, declared by hand from
//! Pacific's (16.2) `rados/librados.h` and `rbd/librbd.h`, and found at
//! run time with dlopen/dlsym. Nothing links against the Ceph libraries,
//! so ferrio builds and runs where they are absent; only an rbd or rados
//! job then fails, before any I/O, saying which packages to install.

use std::ffi::{CStr, c_char, c_int, c_void};

/// librados' cluster handle (`rados_t`).
pub type Rados = *mut c_void;
/// librados' pool I/O context (`rados_ioctx_t`).
pub type IoCtx = *mut c_void;
/// An asynchronous librados operation (`rados_completion_t`).
pub type RadosCompletion = *mut c_void;
/// A compound write operation (`rados_write_op_t`).
pub type WriteOp = *mut c_void;
/// An open rbd image (`rbd_image_t`).
pub type RbdImage = *mut c_void;
/// An asynchronous librbd operation (`rbd_completion_t`).
pub type RbdCompletion = *mut c_void;
/// What both libraries call when an asynchronous operation finishes:
/// `rados_callback_t` and `rbd_callback_t` have this shape.
pub type Callback = unsafe extern "C" fn(completion: *mut c_void, arg: *mut c_void);

/// librbd.h: `RBD_MAX_BLOCK_NAME_SIZE`, `RBD_MAX_IMAGE_NAME_SIZE`.
const RBD_MAX_BLOCK_NAME_SIZE: usize = 24;
const RBD_MAX_IMAGE_NAME_SIZE: usize = 96;

/// librbd.h's `rbd_image_info_t`, which `rbd_stat` fills.
#[repr(C)]
pub struct RbdImageInfo {
    pub size: u64,
    pub obj_size: u64,
    pub num_objs: u64,
    pub order: c_int,
    pub block_name_prefix: [c_char; RBD_MAX_BLOCK_NAME_SIZE],
    pub parent_pool: i64,
    pub parent_name: [c_char; RBD_MAX_IMAGE_NAME_SIZE],
}

/// Why a library could not be used.
#[derive(Debug, Clone)]
pub struct LoadError {
    pub library: &'static str,
    pub detail: String,
}

/// Declares one library's table of functions and its loader: a struct
/// with one function pointer per C function, named as in C.
macro_rules! library {
    ($table:ident, $soname:literal, {
        $( fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?; )*
    }) => {
        pub struct $table {
            $( pub $name: unsafe extern "C" fn($($ty),*) $(-> $ret)?, )*
        }

        impl $table {
            pub fn load() -> Result<Self, LoadError> {
                let handle = open(concat!($soname, "\0"))?;
                Ok($table {
                    $( $name: {
                        let address = symbol(handle, $soname, concat!(stringify!($name), "\0"))?;
                        // SAFETY: the symbol has the C signature declared
                        // here (copied from the Pacific headers), and a
                        // data pointer and a function pointer have the
                        // same size on the platforms Ceph supports.
                        unsafe {
                            std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($ty),*) $(-> $ret)?>(address)
                        }
                    }, )*
                })
            }
        }
    };
}

library!(RadosApi, "librados.so.2", {
    fn rados_create(cluster: *mut Rados, id: *const c_char) -> c_int;
    fn rados_create2(
        cluster: *mut Rados,
        cluster_name: *const c_char,
        name: *const c_char,
        flags: u64,
    ) -> c_int;
    fn rados_conf_read_file(cluster: Rados, path: *const c_char) -> c_int;
    fn rados_conf_set(cluster: Rados, option: *const c_char, value: *const c_char) -> c_int;
    fn rados_connect(cluster: Rados) -> c_int;
    fn rados_shutdown(cluster: Rados);
    fn rados_get_instance_id(cluster: Rados) -> u64;
    fn rados_ioctx_create(cluster: Rados, pool: *const c_char, ioctx: *mut IoCtx) -> c_int;
    fn rados_ioctx_destroy(ioctx: IoCtx);
    fn rados_aio_create_completion2(
        arg: *mut c_void,
        complete: Callback,
        completion: *mut RadosCompletion,
    ) -> c_int;
    fn rados_aio_get_return_value(completion: RadosCompletion) -> c_int;
    fn rados_aio_release(completion: RadosCompletion);
    fn rados_aio_write(
        ioctx: IoCtx,
        oid: *const c_char,
        completion: RadosCompletion,
        buf: *const c_char,
        len: usize,
        offset: u64,
    ) -> c_int;
    fn rados_aio_read(
        ioctx: IoCtx,
        oid: *const c_char,
        completion: RadosCompletion,
        buf: *mut c_char,
        len: usize,
        offset: u64,
    ) -> c_int;
    fn rados_aio_remove(ioctx: IoCtx, oid: *const c_char, completion: RadosCompletion) -> c_int;
    fn rados_write(
        ioctx: IoCtx,
        oid: *const c_char,
        buf: *const c_char,
        len: usize,
        offset: u64,
    ) -> c_int;
    fn rados_create_write_op() -> WriteOp;
    fn rados_release_write_op(op: WriteOp);
    fn rados_write_op_zero(op: WriteOp, offset: u64, len: u64);
    fn rados_aio_write_op_operate(
        op: WriteOp,
        ioctx: IoCtx,
        completion: RadosCompletion,
        oid: *const c_char,
        mtime: *mut libc::time_t,
        flags: c_int,
    ) -> c_int;
});

library!(RbdApi, "librbd.so.1", {
    fn rbd_version(major: *mut c_int, minor: *mut c_int, extra: *mut c_int);
    fn rbd_open(
        ioctx: IoCtx,
        name: *const c_char,
        image: *mut RbdImage,
        snapshot: *const c_char,
    ) -> c_int;
    fn rbd_close(image: RbdImage) -> c_int;
    fn rbd_stat(image: RbdImage, info: *mut RbdImageInfo, info_size: usize) -> c_int;
    fn rbd_flush(image: RbdImage) -> c_int;
    fn rbd_invalidate_cache(image: RbdImage) -> c_int;
    fn rbd_aio_create_completion(
        arg: *mut c_void,
        complete: Callback,
        completion: *mut RbdCompletion,
    ) -> c_int;
    fn rbd_aio_write(
        image: RbdImage,
        offset: u64,
        len: usize,
        buf: *const c_char,
        completion: RbdCompletion,
    ) -> c_int;
    fn rbd_aio_read(
        image: RbdImage,
        offset: u64,
        len: usize,
        buf: *mut c_char,
        completion: RbdCompletion,
    ) -> c_int;
    fn rbd_aio_discard(image: RbdImage, offset: u64, len: u64, completion: RbdCompletion) -> c_int;
    fn rbd_aio_flush(image: RbdImage, completion: RbdCompletion) -> c_int;
    fn rbd_aio_get_return_value(completion: RbdCompletion) -> isize;
    fn rbd_aio_release(completion: RbdCompletion);
});

/// The text of the dynamic loader's last error.
fn dl_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated string that stays
    // valid until the next dl* call on this thread; it is copied at once.
    let text = unsafe { libc::dlerror() };
    if text.is_null() {
        "unknown dynamic loader error".to_string()
    } else {
        // SAFETY: non-null, NUL-terminated (above).
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Opens a shared library by soname (`name` ends in NUL). The handle is
/// never closed: the library stays for the life of the process.
fn open(name: &'static str) -> Result<*mut c_void, LoadError> {
    // SAFETY: `name` is NUL-terminated; loading runs the library's
    // constructors, which is what linking to it would do too.
    let handle = unsafe { libc::dlopen(name.as_ptr().cast(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(LoadError {
            library: name.trim_end_matches('\0'),
            detail: dl_error(),
        });
    }
    Ok(handle)
}

/// Finds a function in an open library (`name` ends in NUL).
fn symbol(
    handle: *mut c_void,
    library: &'static str,
    name: &str,
) -> Result<*mut c_void, LoadError> {
    // SAFETY: `handle` came from dlopen and `name` is NUL-terminated.
    let address = unsafe { libc::dlsym(handle, name.as_ptr().cast()) };
    if address.is_null() {
        return Err(LoadError {
            library,
            detail: format!("no symbol {}: {}", name.trim_end_matches('\0'), dl_error()),
        });
    }
    Ok(address)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error_naming_it() {
        let err = open("libferrio-no-such-library.so.7\0").unwrap_err();
        assert_eq!(err.library, "libferrio-no-such-library.so.7");
        assert!(
            err.detail.contains("libferrio-no-such-library.so.7"),
            "{}",
            err.detail
        );
    }
}
