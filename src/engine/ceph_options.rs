//! The options rbd and rados share: ferrio's bounds on waiting for a
//! Ceph cluster, and whether clones share one connection.

use crate::plan::JobSpec;

/// ferrio's bounds on waiting for a Ceph cluster, in whole seconds.
pub(super) fn timeouts(job: &JobSpec) -> crate::ceph::Timeouts {
    let secs = |name, default: u64| {
        job.num(name)
            .map_or(default, |micros| micros.div_ceil(1_000_000))
    };
    let default = crate::ceph::Timeouts::DEFAULT;
    crate::ceph::Timeouts {
        connect_secs: secs("ferrio_ceph_timeout", default.connect_secs),
        op_secs: secs("ferrio_ceph_op_timeout", default.op_secs),
    }
}

/// How long after its first I/O an rbd or rados job stops waiting for
/// I/O in flight: its ramp time, runtime and ferrio_ceph_grace. None
/// without a runtime or a grace.
pub(super) fn wait_limit(job: &JobSpec) -> Option<std::time::Duration> {
    let micros = |name| job.num(name).unwrap_or(0);
    let grace = job.num("ferrio_ceph_grace").unwrap_or(10_000_000);
    let runtime = micros("runtime");
    (runtime > 0 && grace > 0)
        .then(|| std::time::Duration::from_micros(micros("ramp_time") + runtime + grace))
}

/// The key under which a job's clones share one cluster connection
/// (ferrio_shared_connection), or `None` for a connection each.
pub(super) fn share_key(job: &JobSpec) -> Option<String> {
    job.flag("ferrio_shared_connection")
        .then(|| format!("{}#{}", job.name, job.group))
}
