//! `cgroup`, `cgroup_weight` and `cgroup_nodelete`: the job's thread runs
//! in a named block-I/O control group, as fio 3.33 places it.
//!
//! fio looks for the first cgroup mount in /proc/mounts that is either a
//! v1 hierarchy carrying the blkio controller or a v2 hierarchy, makes
//! the group under it (an existing one is reused and never removed),
//! writes the weight to `blkio.weight` (v1 only), and moves the job's
//! task in. When the job ends its task goes back to the hierarchy's root;
//! the groups the run made are removed once every job is done, unless
//! the job that made one asked to keep it.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::sys::SetupError;

/// The groups this run made and is to remove when it ends.
static MADE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A job's control group settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cgroup {
    /// The group's path below the hierarchy's root.
    pub name: String,
    /// blkio.weight to write (cgroup_weight; fio treats 0 as unset).
    pub weight: u32,
    /// cgroup_nodelete: the group outlives the run.
    pub keep: bool,
}

/// The hierarchy a job joined; dropping it moves the job's task back to
/// the root.
#[derive(Debug)]
pub struct Member {
    mount: Mount,
    task: u32,
}

impl Drop for Member {
    fn drop(&mut self) {
        // fio takes no notice of a failure here.
        let _ = write_number(&self.mount.path, self.mount.task_file(), self.task);
    }
}

#[derive(Debug, Clone)]
struct Mount {
    path: PathBuf,
    v2: bool,
}

impl Mount {
    /// The file a task id is written to, to move that task in.
    fn task_file(&self) -> &'static str {
        if self.v2 { "cgroup.procs" } else { "tasks" }
    }
}

impl Cgroup {
    /// Puts the calling thread, task `task`, in the group. A failure
    /// carries fio's error context; errno 0 marks the failures fio ends
    /// the job on without an error code, having said why on stderr.
    pub fn join(&self, task: u32) -> Result<Member, SetupError> {
        let fail = |func: &'static str, e: io::Error, message: String| SetupError {
            errno: e.raw_os_error().unwrap_or(libc::EIO),
            func,
            message,
        };
        let Some(mount) = find_mount() else {
            eprintln!("fio: cgroup blkio does not appear to be mounted");
            return Err(quiet());
        };
        let root = mount.path.join(&self.name);
        match fs::create_dir(&root) {
            Ok(()) => {
                if !self.keep {
                    MADE.lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(root.clone());
                }
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                let message = format!("fio: path {}", root.display());
                return Err(fail("cgroup mkdir", e, message));
            }
        }
        // From here on the job's task is moved back when this is dropped,
        // as fio does at the end of any job that set up a group.
        let member = Member {
            mount: mount.clone(),
            task,
        };
        if self.weight != 0 {
            if mount.v2 {
                eprintln!("fio: cgroup weit doesn't work with cgroup2");
                return Err(quiet());
            }
            write_number(&root, "blkio.weight", self.weight)
                .map_err(|e| fail("cgroup open weight", e, String::new()))?;
        }
        write_number(&root, mount.task_file(), task)
            .map_err(|e| fail("cgroup write pid", e, String::new()))?;
        Ok(member)
    }
}

/// Removes the groups the run made (those left non-empty by someone else
/// stay, as rmdir leaves them for fio).
pub fn remove_made() {
    let made = std::mem::take(&mut *MADE.lock().unwrap_or_else(|p| p.into_inner()));
    for dir in made {
        let _ = fs::remove_dir(dir);
    }
}

fn quiet() -> SetupError {
    SetupError {
        errno: 0,
        func: "cgroup",
        message: String::new(),
    }
}

/// Opens `dir/file` as fio's fopen(.., "w") does (creating it, so that a
/// control file the kernel does not offer fails as it does for fio) and
/// writes `value`; only the open's failure counts, as in fio.
fn write_number(dir: &Path, file: &str, value: u32) -> io::Result<()> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(dir.join(file))?;
    let _ = write!(f, "{value}");
    Ok(())
}

/// The first mount fio would take: a v1 cgroup hierarchy whose options
/// name blkio, or any cgroup2 one, whichever /proc/mounts lists first.
fn find_mount() -> Option<Mount> {
    let mounts = fs::read_to_string("/proc/mounts").ok()?;
    mounts.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(' ').collect();
        let (dir, kind, opts) = (fields.get(1)?, fields.get(2)?, fields.get(3)?);
        let v2 = *kind == "cgroup2";
        (v2 || (*kind == "cgroup" && opts.contains("blkio"))).then(|| Mount {
            path: PathBuf::from(unescape(dir)),
            v2,
        })
    })
}

/// Undoes the octal escapes (`\040` for a space) /proc/mounts puts in
/// paths.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let digits = bytes.get(i + 1..i + 4);
        match digits {
            Some(d) if bytes[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)) => {
                let v = d.iter().fold(0u32, |acc, c| acc * 8 + u32::from(c - b'0'));
                out.push(v as u8);
                i += 4;
            }
            _ => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_paths_lose_their_escapes() {
        assert_eq!(unescape("/a\\040b"), "/a b");
        assert_eq!(unescape("/plain"), "/plain");
        assert_eq!(unescape("/x\\04"), "/x\\04");
    }
}
