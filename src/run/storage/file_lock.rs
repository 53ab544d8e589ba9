//! lockfile: fio takes a lock on the file around handing each I/O to the
//! engine (from its preparation until the engine's queue call returns), so
//! that the clones of a job (numjobs) sharing a file do not hand it I/O at
//! the same moment. The lock is shared by the clones of one job only: fio
//! gives each job's file a lock of its own and its clones a copy of it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::engine::Dir;

/// Locks by (number of the job the clones come from, file).
type Registry = Mutex<HashMap<(u32, PathBuf), Arc<RwLock<()>>>>;

fn registry() -> &'static Registry {
    static LOCKS: OnceLock<Registry> = OnceLock::new();
    LOCKS.get_or_init(Default::default)
}

/// A job's locks, one per file.
pub struct FileLocks {
    /// readwrite: reads share the lock; otherwise every I/O holds it alone.
    shared_reads: bool,
    locks: Vec<Arc<RwLock<()>>>,
}

/// A lock held while one I/O is handed to the engine.
pub enum Held<'a> {
    Shared(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Alone(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

impl FileLocks {
    /// The locks of the job numbered `origin` (the one its clones were
    /// made from) for its `paths`, made on first use.
    pub fn new(shared_reads: bool, origin: u32, paths: &[PathBuf]) -> Self {
        let mut all = registry().lock().unwrap_or_else(|e| e.into_inner());
        let locks = paths
            .iter()
            .map(|p| all.entry((origin, p.clone())).or_default().clone())
            .collect();
        FileLocks {
            shared_reads,
            locks,
        }
    }

    /// Waits for file `file`'s lock, as an I/O of direction `dir` needs it.
    pub fn hold(&self, file: usize, dir: Dir) -> Held<'_> {
        let lock = &self.locks[file];
        if self.shared_reads && dir == Dir::Read {
            Held::Shared(lock.read().unwrap_or_else(|e| e.into_inner()))
        } else {
            Held::Alone(lock.write().unwrap_or_else(|e| e.into_inner()))
        }
    }
}
