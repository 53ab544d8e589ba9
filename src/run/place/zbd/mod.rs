//! `zonemode=zbd` on targets that are not zoned (fio's ZBD_NONE model):
//! the file is cut into zones of `zonesize` bytes, each with a write
//! pointer that starts at the zone's start when the run begins (whatever
//! the file holds). Writes go to a zone's write pointer and move it on;
//! a full zone is reset before it is written again; reads stay below the
//! write pointer (unless `read_beyond_wp`); a trim resets its zone and
//! never reaches the file. With `max_open_zones`, only that many zones
//! take writes at once. Jobs naming the same file share
//! its zones, as fio shares them by file name, so one job's writes are
//! there for a later job to read.
//!
//! Zoned hardware (host-managed or host-aware devices) is not handled:
//! ferrio refuses zonemode=zbd on anything but a regular file.

mod file;
mod setup;
pub mod spec;
mod writes;
pub mod zones;

pub use file::{Adjusted, ZbdFile, ZbdJob, ZoneIo};
pub use setup::set_up;
