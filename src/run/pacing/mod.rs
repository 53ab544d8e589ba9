//! When I/O goes: the job's clock, rate caps and their pacing, flows,
//! latency_target's depth search and steady state.

pub mod clock;
pub mod config;
pub mod flow;
pub mod latency_target;
pub mod rate;
pub mod steady;
