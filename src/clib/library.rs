//! Loading a C library at run time: [`library!`](crate::c_library)
//! declares a table of its functions, found with dlopen/dlsym when the
//! table is loaded, so nothing links against the library and only the
//! jobs that use it fail where it is missing.

/// Why a library could not be used.
#[derive(Debug, Clone)]
pub struct LoadError {
    pub library: &'static str,
    pub detail: String,
}

/// Declares one library's table of functions and its loader: a struct
/// with one function pointer per C function, named as in C. Each
/// signature is the C header's, declared by hand where the table is.
#[macro_export]
macro_rules! c_library {
    ($table:ident, $soname:literal, {
        $( fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?; )*
    }) => {
        pub struct $table {
            $( pub $name: unsafe extern "C" fn($($ty),*) $(-> $ret)?, )*
        }

        impl $table {
            pub fn load() -> Result<Self, $crate::clib::library::LoadError> {
                let library = $crate::clib::library::open($soname)?;
                let table = $table {
                    $( $name: {
                        // SAFETY: the symbol has the C signature declared
                        // here (copied from the library's headers); the
                        // pointer is used only while the library stays
                        // loaded, which is for the life of the process.
                        let found = unsafe {
                            library.get::<unsafe extern "C" fn($($ty),*) $(-> $ret)?>(
                                concat!(stringify!($name), "\0").as_bytes(),
                            )
                        };
                        *found.map_err(|e| $crate::clib::library::LoadError {
                            library: $soname,
                            detail: format!("no symbol {}: {e}", stringify!($name)),
                        })?
                    }, )*
                };
                // Never unloaded: the table's pointers point into it.
                std::mem::forget(library);
                Ok(table)
            }
        }
    };
}

/// Opens a shared library by soname, binding every symbol at once
/// (RTLD_NOW), as linking to it would, and keeping its symbols to itself
/// (RTLD_LOCAL).
pub fn open(name: &'static str) -> Result<libloading::os::unix::Library, LoadError> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: loading runs the library's constructors, which is what
    // linking to it would do too.
    unsafe { Library::open(Some(name), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| LoadError {
        library: name,
        detail: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_an_error_naming_it() {
        let err = open("libferrio-no-such-library.so.7").unwrap_err();
        assert_eq!(err.library, "libferrio-no-such-library.so.7");
        assert!(
            err.detail.contains("libferrio-no-such-library.so.7"),
            "{}",
            err.detail
        );
    }
}
