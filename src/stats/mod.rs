//! Statistics collected while jobs run, in the forms fio reports them.

pub mod counters;
pub mod cpu;
pub mod disk;
pub mod fine;
pub mod histogram;
pub mod latency_moments;
pub mod moments;
pub mod percentile;

pub use cpu::CpuUsage;
pub use histogram::Histogram;
pub use latency_moments::LatencyMoments;
pub use moments::Moments;
