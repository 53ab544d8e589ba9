//! What a running job shows while it runs: progress published to the
//! status line and metrics, bw/iops samplers, queue depth.

pub mod config;
pub mod depth;
pub mod live;
pub mod progress;
pub mod sampler;
