//! libpmem (PMDK's persistent-memory library) behind a safe wrapper: a
//! file mapped with pmem_map_file, read and written at offsets, made
//! durable with pmem_drain. Loaded at run time (crate::clib), so ferrio
//! builds and runs without it; only a libpmem job fails there, before any
//! I/O, saying what to install. Every unsafe call to libpmem is here.

use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::io;
use std::path::Path;
use std::sync::OnceLock;

use crate::clib::library::LoadError;

crate::c_library!(PmemApi, "libpmem.so.1", {
    fn pmem_map_file(
        path: *const c_char,
        len: usize,
        flags: c_int,
        mode: libc::mode_t,
        mapped_len: *mut usize,
        is_pmem: *mut c_int,
    ) -> *mut c_void;
    fn pmem_unmap(addr: *mut c_void, len: usize) -> c_int;
    fn pmem_memcpy(dest: *mut c_void, src: *const c_void, len: usize, flags: c_uint)
    -> *mut c_void;
    fn pmem_drain();
    fn pmem_errormsg() -> *const c_char;
});

/// libpmem.h: pmem_map_file's flag to create the file if missing.
const PMEM_FILE_CREATE: c_int = 1;
/// libpmem.h: pmem_memcpy's flags.
pub const PMEM_F_MEM_NODRAIN: u32 = 1;
pub const PMEM_F_MEM_NONTEMPORAL: u32 = 1 << 1;
pub const PMEM_F_MEM_TEMPORAL: u32 = 1 << 2;

static API: OnceLock<Result<PmemApi, LoadError>> = OnceLock::new();

fn api() -> io::Result<&'static PmemApi> {
    let loaded = API.get_or_init(PmemApi::load);
    let missing = |e: &LoadError| crate::clib::error::LibError::Missing(e.clone()).into();
    loaded.as_ref().map_err(missing)
}

/// Loads libpmem (once per process), or says what to install.
pub fn load() -> io::Result<()> {
    api().map(|_| ())
}

/// Why a file could not be mapped: the errno and libpmem's own message.
#[derive(Debug)]
pub struct MapFailed {
    pub errno: i32,
    pub message: String,
}

/// A file mapped by libpmem, unmapped when dropped.
pub struct PmemFile {
    api: &'static PmemApi,
    addr: *mut u8,
    len: usize,
    /// Whether the mapping is persistent memory (a DAX file system, or
    /// PMEM_IS_PMEM_FORCE=1 in the environment).
    pub is_pmem: bool,
}

// SAFETY: the mapping is owned by one job's engine, used by one thread
// at a time.
unsafe impl Send for PmemFile {}

impl PmemFile {
    /// Maps `len` bytes of `path`, creating it (mode 0600) as fio's
    /// libpmem engine does.
    pub fn map(path: &Path, len: usize) -> Result<PmemFile, MapFailed> {
        let api = api().map_err(|e| MapFailed {
            errno: libc::ENOENT,
            message: e.to_string(),
        })?;
        let c_path = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| MapFailed {
            errno: libc::EINVAL,
            message: format!("{} holds a NUL byte", path.display()),
        })?;
        let (mut mapped, mut is_pmem) = (0usize, 0 as c_int);
        // SAFETY: a C string and two valid out pointers; NULL is checked.
        let addr = unsafe {
            (api.pmem_map_file)(
                c_path.as_ptr(),
                len,
                PMEM_FILE_CREATE,
                0o600,
                &mut mapped,
                &mut is_pmem,
            )
        };
        if addr.is_null() {
            let errno = io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            // SAFETY: libpmem's message is a NUL-terminated string of its
            // own, valid until its next call on this thread.
            let message = unsafe { CStr::from_ptr((api.pmem_errormsg)()) };
            return Err(MapFailed {
                errno,
                message: message.to_string_lossy().into_owned(),
            });
        }
        Ok(PmemFile {
            api,
            addr: addr.cast(),
            len: mapped,
            is_pmem: is_pmem != 0,
        })
    }

    /// The mapped length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `len` bytes at `offset` lie inside the mapping.
    fn holds(&self, offset: u64, len: usize) -> bool {
        offset
            .checked_add(len as u64)
            .is_some_and(|end| end <= self.len as u64)
    }

    /// Copies the mapping's bytes at `offset` into `buf`; false (nothing
    /// copied) past the mapping's end.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> bool {
        if !self.holds(offset, buf.len()) {
            return false;
        }
        // SAFETY: the range lies inside the live mapping, and `buf` is a
        // separate buffer of the caller's.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.addr.add(offset as usize),
                buf.as_mut_ptr(),
                buf.len(),
            )
        };
        true
    }

    /// Writes `data` at `offset` with pmem_memcpy and its `flags`; false
    /// (nothing written) past the mapping's end.
    pub fn write_at(&self, data: &[u8], offset: u64, flags: u32) -> bool {
        if !self.holds(offset, data.len()) {
            return false;
        }
        // SAFETY: the range lies inside the live mapping; `data` is a
        // separate buffer of the caller's.
        unsafe {
            (self.api.pmem_memcpy)(
                self.addr.add(offset as usize).cast(),
                data.as_ptr().cast(),
                data.len(),
                flags,
            )
        };
        true
    }

    /// Waits for the stores to persistent memory to drain (fio's sync).
    pub fn drain(&self) {
        // SAFETY: no arguments; libpmem's fence.
        unsafe { (self.api.pmem_drain)() };
    }
}

impl Drop for PmemFile {
    fn drop(&mut self) {
        // SAFETY: the mapping pmem_map_file made, unmapped once.
        unsafe { (self.api.pmem_unmap)(self.addr.cast(), self.len) };
    }
}
