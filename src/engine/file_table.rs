//! The open files of an engine that works on descriptors, by handle. A
//! closed file keeps its handle (so handles stay stable) but no
//! descriptor: a job with `openfiles` below its file count closes each
//! file it is done with, as fio does, and opens it again under a new
//! handle when it comes back to it.

use std::fs::File;
use std::ops::{Index, IndexMut};

#[derive(Default)]
pub struct FileTable {
    files: Vec<Option<File>>,
}

impl FileTable {
    /// Takes an opened file; returns its handle.
    pub fn push(&mut self, file: File) -> usize {
        self.files.push(Some(file));
        self.files.len() - 1
    }

    /// Closes the file behind `handle` (its descriptor is released now).
    pub fn close(&mut self, handle: usize) {
        if let Some(slot) = self.files.get_mut(handle) {
            *slot = None;
        }
    }

    /// The file behind `handle`, if it is open.
    pub fn get(&self, handle: usize) -> Option<&File> {
        self.files.get(handle)?.as_ref()
    }

    /// The files still open, in handle order.
    pub fn open(&self) -> impl Iterator<Item = &File> {
        self.files.iter().flatten()
    }
}

/// The job loop only hands an engine the handles of files it has open.
impl Index<usize> for FileTable {
    type Output = File;
    fn index(&self, handle: usize) -> &File {
        self.files[handle]
            .as_ref()
            .expect("an I/O on a file the job closed")
    }
}

impl IndexMut<usize> for FileTable {
    fn index_mut(&mut self, handle: usize) -> &mut File {
        self.files[handle]
            .as_mut()
            .expect("an I/O on a file the job closed")
    }
}
