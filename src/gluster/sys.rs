//! The libgfapi calls ferrio makes, declared by hand from GlusterFS 10's
//! `glusterfs/api/glfs.h` (the GFAPI_6.0 versions, which dlsym finds as
//! the library's defaults) and found at run time (crate::clib::library):
//! ferrio builds and runs without GlusterFS, and only a gfapi job fails
//! there, before any I/O, saying what to install.

use std::ffi::{c_char, c_int, c_void};

/// A virtual mount of a volume (`glfs_t`).
pub type Fs = *mut c_void;
/// An open file of a volume (`glfs_fd_t`).
pub type Fd = *mut c_void;
/// What libgfapi calls when an asynchronous operation finishes
/// (`glfs_io_cbk`): its fd, its return (bytes or -1), the file's stat
/// before and after (unused) and the argument it was given.
pub type IoCallback = unsafe extern "C" fn(
    fd: Fd,
    ret: isize,
    prestat: *mut c_void,
    poststat: *mut c_void,
    data: *mut c_void,
);

crate::c_library!(GfapiApi, "libgfapi.so.0", {
    fn glfs_new(volname: *const c_char) -> Fs;
    fn glfs_set_volfile_server(
        fs: Fs,
        transport: *const c_char,
        host: *const c_char,
        port: c_int,
    ) -> c_int;
    fn glfs_set_logging(fs: Fs, logfile: *const c_char, loglevel: c_int) -> c_int;
    fn glfs_init(fs: Fs) -> c_int;
    fn glfs_fini(fs: Fs) -> c_int;
    fn glfs_creat(fs: Fs, path: *const c_char, flags: c_int, mode: libc::mode_t) -> Fd;
    fn glfs_close(fd: Fd) -> c_int;
    fn glfs_lstat(fs: Fs, path: *const c_char, buf: *mut libc::stat) -> c_int;
    fn glfs_unlink(fs: Fs, path: *const c_char) -> c_int;
    fn glfs_pread(
        fd: Fd,
        buf: *mut c_void,
        count: usize,
        offset: libc::off_t,
        flags: c_int,
        poststat: *mut c_void,
    ) -> isize;
    fn glfs_pwrite(
        fd: Fd,
        buf: *const c_void,
        count: usize,
        offset: libc::off_t,
        flags: c_int,
        prestat: *mut c_void,
        poststat: *mut c_void,
    ) -> isize;
    fn glfs_fsync(fd: Fd, prestat: *mut c_void, poststat: *mut c_void) -> c_int;
    fn glfs_fdatasync(fd: Fd, prestat: *mut c_void, poststat: *mut c_void) -> c_int;
    fn glfs_ftruncate(
        fd: Fd,
        length: libc::off_t,
        prestat: *mut c_void,
        poststat: *mut c_void,
    ) -> c_int;
    fn glfs_discard(fd: Fd, offset: libc::off_t, len: usize) -> c_int;
    fn glfs_pread_async(
        fd: Fd,
        buf: *mut c_void,
        count: usize,
        offset: libc::off_t,
        flags: c_int,
        callback: IoCallback,
        data: *mut c_void,
    ) -> c_int;
    fn glfs_pwrite_async(
        fd: Fd,
        buf: *const c_void,
        count: c_int,
        offset: libc::off_t,
        flags: c_int,
        callback: IoCallback,
        data: *mut c_void,
    ) -> c_int;
    fn glfs_fsync_async(fd: Fd, callback: IoCallback, data: *mut c_void) -> c_int;
    fn glfs_fdatasync_async(fd: Fd, callback: IoCallback, data: *mut c_void) -> c_int;
    fn glfs_discard_async(
        fd: Fd,
        offset: libc::off_t,
        len: usize,
        callback: IoCallback,
        data: *mut c_void,
    ) -> c_int;
});
