//! Where each I/O goes: offsets (sequential, random map, random
//! distributions), zones (strided, zbd) and which of a job's files.

pub mod config;
pub mod distribution;
pub mod files;
pub mod offsets;
pub mod parts;
pub mod placement;
pub mod priority;
pub mod zbd;
pub mod zone_counts;
