//! fio's guard against writing to a device that holds a mounted file
//! system: a run with such a job is aborted before anything starts,
//! unless the job sets `allow_mounted_write`.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use crate::run::storage::parts::StorageParts;

/// Where fio looks for mounted file systems.
const MTAB: &str = "/etc/mtab";

/// fio's message for the first writing job with a mounted block device
/// among its files, if any.
pub fn mounted_write<'a>(jobs: impl Iterator<Item = StorageParts<'a>> + Clone) -> Option<String> {
    let writers = || {
        jobs.clone()
            .filter(|j| j.pattern.write && !j.files.allow_mounted_write)
    };
    writers().next()?;
    let mounted = mounted_devices();
    writers()
        .flat_map(|j| &j.files.paths)
        .find(|p| device_number(p).is_some_and(|dev| mounted.contains(&dev)))
        .map(|p| {
            format!(
                "fio: {} appears mounted, and 'allow_mounted_write' isn't set. Aborting.",
                p.display()
            )
        })
}

/// The device numbers of the block devices the mount table names. fio
/// compares the names as written, so `/dev/disk/by-id/...` or
/// `/dev/../dev/loop0` for a mounted `/dev/loop0` passes its guard;
/// comparing the devices themselves catches every name of one.
fn mounted_devices() -> Vec<u64> {
    let table = std::fs::read_to_string(MTAB).unwrap_or_default();
    table
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|fsname| device_number(Path::new(&unescape(fsname))))
        .collect()
}

/// The device number of the block device at `path` (after symbolic
/// links), if it is one.
fn device_number(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    meta.file_type().is_block_device().then(|| meta.rdev())
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
