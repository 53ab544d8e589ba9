//! What a run writes beside its report and what it replays: per-I/O
//! logs (lat/bw/iops/hist, compressed), fio's iolog and blktrace, replay.

pub mod blktrace;
pub mod config;
pub mod iolog;
pub mod log_codec;
pub mod log_gz;
pub mod logs;
pub mod merge_blktrace;
pub mod replay;
pub mod replay_log;
