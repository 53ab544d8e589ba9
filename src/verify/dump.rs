//! verify_dump: on a verify failure fio saves the interval it read, and the
//! interval as it should have been, to files named after the data file
//! (`<basename>.<offset>.received` / `.expected`, or `.hdr_fail` when the
//! header itself is bad), in `--aux-path` when given, else the working
//! directory. Only a failing check calls in here, never the I/O path.

use std::path::{Path, PathBuf};

/// Writes `bytes` as the `kind` dump of the interval at `offset` of
/// `file_name`, and returns the line fio prints to stderr about it (the
/// file's name, or the reason it could not be written).
pub fn save(dir: Option<&Path>, file_name: &str, offset: u64, kind: &str, bytes: &[u8]) -> String {
    let base = Path::new(file_name).file_name().map_or_else(
        || file_name.to_string(),
        |b| b.to_string_lossy().into_owned(),
    );
    let name = format!("{base}.{offset}.{kind}");
    let path = match dir {
        Some(d) => d.join(&name),
        None => PathBuf::from(&name),
    };
    match std::fs::write(&path, bytes) {
        Ok(()) => format!("       {kind} data dumped as {}", path.display()),
        // fio reports this with perror().
        Err(e) => format!("open verify buf file: {}", strerror(&e)),
    }
}

/// The C library's wording of an error, without Rust's "(os error N)".
fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}
