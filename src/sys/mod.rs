//! Thin wrappers over the operating system's scheduling and placement
//! calls (CPU affinity, NUMA, cgroups, I/O priority, I/O schedulers,
//! signals): no job logic.

pub mod cgroup;
pub mod iosched;
pub mod numa;
pub mod sched;
pub mod signals;
