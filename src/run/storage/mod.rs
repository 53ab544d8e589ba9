//! The job's files and memory: layout before the run, opening and
//! closing (openfiles), locks, mounted-device guards, buffer memory and
//! buffer contents.

pub mod block_errors;
pub mod content;
pub mod file_lock;
pub mod fill_read;
pub mod iomem;
pub mod layout;
pub mod lazy_open;
pub mod mounts;
pub mod readonly;
pub mod sync_range;
