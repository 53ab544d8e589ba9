//! Thin wrappers over the operating system's scheduling and placement
//! calls (CPU affinity, NUMA, cgroups, I/O priority, I/O schedulers,
//! signals): no job logic.

pub mod cgroup;
pub mod iosched;
pub mod numa;
pub mod sched;
pub mod signals;

/// Why a job's thread could not be set up as asked: its errno (0 for the
/// failures fio ends a job on without an error code, having said why on
/// stderr), what failed as fio names it in its error context, and any
/// text for stderr. The run records it as the job's error; sys knows
/// nothing of jobs' results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError {
    pub errno: i32,
    pub func: &'static str,
    pub message: String,
}
