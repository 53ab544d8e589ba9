//! The job's files and memory: layout before the run, opening and
//! closing (openfiles), locks, mounted-device guards, buffer memory and
//! buffer contents, and the fallible allocation of what a job sizes from
//! its options.

pub mod alloc;
pub mod block_errors;
pub mod config;
pub mod content;
pub mod file_lock;
pub mod fill_read;
pub mod iomem;
pub mod layout;
pub mod lazy_open;
pub mod mounts;
pub mod parts;
pub mod readonly;
pub mod sync_range;
