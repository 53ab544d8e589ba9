//! The librados and librbd calls ferrio makes, declared by hand from
//! Pacific's (16.2) `rados/librados.h` and `rbd/librbd.h`, and found at
//! run time with dlopen/dlsym (crate::clib::library). Nothing links against the Ceph libraries,
//! so ferrio builds and runs where they are absent; only an rbd or rados
//! job then fails, before any I/O, saying which packages to install.

use std::ffi::{c_char, c_int, c_void};

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

pub use crate::clib::library::LoadError;

crate::c_library!(RadosApi, "librados.so.2", {
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

crate::c_library!(RbdApi, "librbd.so.1", {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `RbdImageInfo` against the installed librbd.h: the C compiler's
    /// sizeof and offsetof of `rbd_image_info_t`, which `rbd_stat`
    /// fills, against Rust's. A machine without the header (Debian's
    /// librbd-dev, which scripts/test installs) fails this test unless
    /// FERRIO_TEST_SKIP lists `ceph-headers`.
    #[test]
    fn image_info_has_the_installed_headers_layout() {
        let header = std::path::Path::new("/usr/include/rbd/librbd.h");
        if !header.exists() {
            let skips = std::env::var("FERRIO_TEST_SKIP").unwrap_or_default();
            assert!(
                skips.split(',').any(|s| s.trim() == "ceph-headers"),
                "{} is missing (install Debian's librbd-dev, or name the skip \
                 `ceph-headers` in FERRIO_TEST_SKIP)",
                header.display()
            );
            return;
        }
        let dir = std::env::temp_dir().join(format!("ferrio-layout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let source = dir.join("layout.c");
        let program = dir.join("layout");
        let fields = [
            "size",
            "obj_size",
            "num_objs",
            "order",
            "block_name_prefix",
            "parent_pool",
            "parent_name",
        ];
        let mut c = String::from(
            "#include <stdio.h>\n#include <stddef.h>\n#include <rbd/librbd.h>\nint main(void) {\n\
             printf(\"sizeof %zu\\n\", sizeof(rbd_image_info_t));\n",
        );
        for f in fields {
            c.push_str(&format!(
                "printf(\"{f} %zu\\n\", offsetof(rbd_image_info_t, {f}));\n"
            ));
        }
        c.push_str("return 0;\n}\n");
        std::fs::write(&source, c).unwrap();
        let built = std::process::Command::new("cc")
            .arg(&source)
            .arg("-o")
            .arg(&program)
            .output()
            .expect("cc runs");
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let out = std::process::Command::new(&program).output().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let c_layout = String::from_utf8(out.stdout).unwrap();
        let rust_layout = [
            ("sizeof", std::mem::size_of::<RbdImageInfo>()),
            ("size", std::mem::offset_of!(RbdImageInfo, size)),
            ("obj_size", std::mem::offset_of!(RbdImageInfo, obj_size)),
            ("num_objs", std::mem::offset_of!(RbdImageInfo, num_objs)),
            ("order", std::mem::offset_of!(RbdImageInfo, order)),
            (
                "block_name_prefix",
                std::mem::offset_of!(RbdImageInfo, block_name_prefix),
            ),
            (
                "parent_pool",
                std::mem::offset_of!(RbdImageInfo, parent_pool),
            ),
            (
                "parent_name",
                std::mem::offset_of!(RbdImageInfo, parent_name),
            ),
        ]
        .iter()
        .map(|(name, at)| format!("{name} {at}\n"))
        .collect::<String>();
        assert_eq!(c_layout, rust_layout);
    }
}
