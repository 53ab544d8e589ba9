//! fio's guard against writing to a device that holds a mounted file
//! system: a run with such a job is aborted before anything starts,
//! unless the job sets `allow_mounted_write`.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use crate::run::config::JobConfig;

/// Where fio looks for mounted file systems.
const MTAB: &str = "/etc/mtab";

/// fio's message for the first writing job with a mounted block device
/// among its files, if any.
pub fn mounted_write(jobs: &[JobConfig]) -> Option<String> {
    let writers = || {
        jobs.iter()
            .filter(|j| j.pattern.write && !j.allow_mounted_write)
    };
    writers().next()?;
    let table = std::fs::read_to_string(MTAB).unwrap_or_default();
    let mounted = |path: &Path| {
        let name = path.to_string_lossy();
        table
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .any(|fsname| unescape(fsname) == name)
    };
    writers()
        .flat_map(|j| &j.paths)
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device()) && mounted(p))
        .map(|p| {
            format!(
                "fio: {} appears mounted, and 'allow_mounted_write' isn't set. Aborting.",
                p.display()
            )
        })
}

/// The mount table writes blanks and backslashes in names as octal
/// escapes (`\040`).
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let code = rest.get(i + 1..i + 4);
        match code.and_then(|c| u8::from_str_radix(c, 8).ok()) {
            Some(b) => {
                out.push(b as char);
                rest = &rest[i + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn octal_escapes_are_read() {
        assert_eq!(super::unescape("/dev/my\\040disk"), "/dev/my disk");
        assert_eq!(super::unescape("/dev/vda"), "/dev/vda");
    }
}
