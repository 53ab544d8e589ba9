//! ferrio: a fio-compatible I/O benchmark engine.
//!
//! The pipeline: [`jobfile`] reads job files into sections, [`options`]
//! holds fio's option table and value rules, [`plan`] turns sections and
//! command-line options into a typed plan, and [`app`] drives it from the
//! command line ([`cli`]).

pub mod announce;
pub mod app;
pub mod ceph;
pub mod cli;
pub mod clib;
pub mod distributed;
pub mod engine;
pub mod execute;
pub mod explain;
pub mod files_command;
pub mod fio_flags;
pub mod gluster;
pub mod help;
pub mod jobfile;
pub mod live;
pub mod merge;
pub mod metrics;
pub mod nbd;
pub mod options;
pub mod parse_trace;
pub mod persona;
pub mod plan;
pub mod pmem;
pub mod preset;
pub mod profile;
pub mod rand;
pub mod raw_text;
pub mod report;
pub mod result;
pub mod run;
pub mod saved_report;
pub mod selftest;
pub mod stats;
pub mod sys;
pub mod verify;

/// The C library's wording for an I/O error, as fio prints it (Rust's
/// text without its `(os error N)`).
pub fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

/// The fio release whose behaviour ferrio reproduces.
pub const FIO_VERSION: &str = "fio-3.33";
