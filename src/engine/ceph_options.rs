//! What rbd and rados jobs share: which cluster, as whom, which pool,
//! ferrio's bounds on waiting for the cluster, and whether clones share
//! one connection. Each engine's target adds only its own options.

use std::path::Path;
use std::sync::Arc;

use crate::ceph::{self, CephError, Cluster, ConnectOptions};
use crate::plan::JobSpec;

/// fio's options naming a Ceph client and its pool, and ferrio's bounds
/// on waiting for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CephClient {
    pub cluster_name: Option<String>,
    pub client_name: Option<String>,
    pub pool: Option<String>,
    /// Spin for completions instead of sleeping (fio's busy_poll).
    pub busy_poll: bool,
    /// Bounds on waiting for the cluster (ferrio's own options).
    pub timeouts: ceph::Timeouts,
    /// How long after the first I/O to stop waiting for I/O in flight.
    pub wait_limit: Option<std::time::Duration>,
    /// Share the connection with the job's clones under this key
    /// (ferrio_shared_connection).
    pub share_as: Option<String>,
}

impl CephClient {
    pub fn from_spec(job: &JobSpec) -> CephClient {
        let text = |name| super::api::text(job, name);
        CephClient {
            cluster_name: text("clustername"),
            client_name: text("clientname"),
            pool: text("pool"),
            busy_poll: job.flag("busy_poll"),
            timeouts: timeouts(job),
            wait_limit: wait_limit(job),
            share_as: share_key(job),
        }
    }

    /// Connects (or joins the clones' shared connection) with ferrio's
    /// time-outs and the engine's `extra` settings, reading `conf` or,
    /// without one, librados' default search.
    pub fn connect(
        &self,
        conf: Option<&Path>,
        extra: &[(&str, String)],
    ) -> Result<Arc<Cluster>, CephError> {
        let mut settings = self.timeouts.settings();
        settings.extend(extra.iter().map(|(k, v)| (*k, v.clone())));
        let settings: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
        Cluster::connect_shared(
            self.share_as.clone(),
            &ConnectOptions {
                cluster_name: self.cluster_name.as_deref(),
                client_name: self.client_name.as_deref(),
                conf_file: conf,
                settings: &settings,
            },
        )
    }
}

/// ferrio's bounds on waiting for a Ceph cluster, in whole seconds.
fn timeouts(job: &JobSpec) -> ceph::Timeouts {
    let secs = |name, default: u64| {
        job.num(name)
            .map_or(default, |micros| micros.div_ceil(1_000_000))
    };
    let default = ceph::Timeouts::DEFAULT;
    ceph::Timeouts {
        connect_secs: secs("ferrio_ceph_timeout", default.connect_secs),
        op_secs: secs("ferrio_ceph_op_timeout", default.op_secs),
    }
}

/// How long after its first I/O an rbd or rados job stops waiting for
/// I/O in flight: its ramp time, runtime and ferrio_ceph_grace. None
/// without a runtime or a grace.
fn wait_limit(job: &JobSpec) -> Option<std::time::Duration> {
    let micros = |name| job.num(name).unwrap_or(0);
    let grace = job.num("ferrio_ceph_grace").unwrap_or(10_000_000);
    let runtime = micros("runtime");
    (runtime > 0 && grace > 0)
        .then(|| std::time::Duration::from_micros(micros("ramp_time") + runtime + grace))
}

/// The key under which a job's clones share one cluster connection
/// (ferrio_shared_connection), or `None` for a connection each.
fn share_key(job: &JobSpec) -> Option<String> {
    job.flag("ferrio_shared_connection")
        .then(|| format!("{}#{}", job.name, job.group))
}
