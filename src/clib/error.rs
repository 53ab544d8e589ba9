//! What can go wrong calling a C library that ferrio loads at run time,
//! one type for all of them (Ceph's, GlusterFS's, PMDK's): the library
//! is missing (said with what to install), a call failed with an errno
//! (said with the call and what it was about), or a name cannot be
//! passed as a C string.

use std::ffi::CString;
use std::fmt;
use std::io;

use super::library::LoadError;

#[derive(Debug, Clone)]
pub enum LibError {
    /// The library is not installed.
    Missing(LoadError),
    /// A library call failed with this errno.
    Call {
        call: &'static str,
        /// What the call was about (a pool, an image, a volume, a file).
        subject: String,
        errno: i32,
    },
    /// A name or setting holds a NUL byte, which C strings cannot carry.
    BadText(String),
}

impl LibError {
    /// The errno fio would report for it.
    pub fn errno(&self) -> i32 {
        match self {
            LibError::Missing(_) => libc::ENOENT,
            LibError::Call { errno, .. } => *errno,
            LibError::BadText(_) => libc::EINVAL,
        }
    }
}

/// What a missing library is, and which of Debian's packages hold it.
fn what_to_install(library: &str) -> (&'static str, &'static str, &'static str) {
    match library {
        "librados.so.2" | "librbd.so.1" => (
            "Ceph's client libraries are",
            "librbd1 and librados2 packages",
            "librbd1 librados2",
        ),
        "libgfapi.so.0" => (
            "GlusterFS's client library is",
            "libgfapi0 package",
            "libgfapi0",
        ),
        "libpmem.so.1" => ("PMDK's libpmem is", "libpmem1 package", "libpmem1"),
        "libnbd.so.0" => ("libnbd is", "libnbd0 package", "libnbd0"),
        _ => (
            "a library ferrio needs is",
            "package that holds it",
            "<that package>",
        ),
    }
}

impl fmt::Display for LibError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LibError::Missing(e) => {
                let (what, packages, names) = what_to_install(e.library);
                write!(
                    f,
                    "{what} not installed: cannot load {} ({}); install Debian's {packages} \
                     (apt-get install {names})",
                    e.library, e.detail
                )
            }
            LibError::Call {
                call,
                subject,
                errno,
            } => {
                let text = crate::strerror(&io::Error::from_raw_os_error(*errno));
                write!(f, "{call} ({subject}) failed: {text} (errno {errno})")
            }
            LibError::BadText(text) => write!(f, "{text:?} holds a NUL byte"),
        }
    }
}

impl std::error::Error for LibError {}

impl From<LibError> for io::Error {
    fn from(e: LibError) -> io::Error {
        // The LibError stays inside, so its errno can be recovered.
        let kind = io::Error::from_raw_os_error(e.errno()).kind();
        io::Error::new(kind, e)
    }
}

/// A name as a C string.
pub fn c_text(text: &str) -> Result<CString, LibError> {
    CString::new(text).map_err(|_| LibError::BadText(text.to_string()))
}

/// Turns a C return code (a negative errno on failure) into a result.
pub fn check(code: i64, call: &'static str, subject: &str) -> Result<(), LibError> {
    if code < 0 {
        Err(LibError::Call {
            call,
            subject: subject.to_string(),
            errno: -code as i32,
        })
    } else {
        Ok(())
    }
}
