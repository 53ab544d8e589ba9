//! ioscheduler: switching the block I/O scheduler of the disks under a
//! job's files, as fio 3.33 does when the job thread starts (after the
//! engine is set up, before the I/O).
//!
//! For each file that sits on a disk (fio's disk-util lookup, so nothing
//! for diskless engines, disk_util=0, or files on tmpfs and the like),
//! fio opens the whole disk's `queue/scheduler` in sysfs, writes the
//! name, reads the file back and looks for `[name]`. Its write goes
//! through stdio and is flushed by the rewind that also clears the error,
//! so a name the kernel refuses (EINVAL) is only noticed by the read-back:
//! `unable to set io scheduler`, and the job fails with EINVAL in
//! `iosched_switch`. A missing sysfs file and a disk whose only choice is
//! `none` earn a message and no failure. ferrio does the same, in the
//! same order; it writes to the scheduler file only what the job named.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Why switching failed: (errno, fio's function name, the message for
/// stderr, if any).
pub type Failure = (i32, &'static str, String);

/// Switches the scheduler of the disk of every path to `name`.
pub fn switch(paths: &[std::path::PathBuf], name: &str) -> Result<(), Failure> {
    for path in paths {
        let Some(disk) = crate::stats::disk::disk_of(path) else {
            continue;
        };
        let sysfs = format!("/sys/block/{disk}/queue/scheduler");
        switch_one(Path::new(&sysfs), name)?;
    }
    Ok(())
}

fn switch_one(sysfs: &Path, name: &str) -> Result<(), Failure> {
    let errno = |e: &std::io::Error| e.raw_os_error().unwrap_or(libc::EIO);
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(sysfs)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("fio: os or kernel doesn't support IO scheduler switching");
            return Ok(());
        }
        Err(e) => return Err((errno(&e), "fopen iosched", String::new())),
    };
    // A refused name shows in the read-back, not here (see above).
    let _ = file.write_all(name.as_bytes());
    let mut text = String::new();
    if let Err(e) = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_string(&mut text))
    {
        return Err((errno(&e), "fread", String::new()));
    }
    let first = text.split('\n').next().unwrap_or("");
    if first == "none" {
        eprintln!("fio: io scheduler is not tunable");
        return Ok(());
    }
    if !first.contains(&format!("[{name}]")) {
        return Err((
            libc::EINVAL,
            "iosched_switch",
            format!("fio: unable to set io scheduler to {name}"),
        ));
    }
    Ok(())
}
