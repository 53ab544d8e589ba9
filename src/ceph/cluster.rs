//! A cluster connection (librados' `rados_t`): how to reach the
//! cluster, the timeouts it is given, and connections shared by a job's
//! clones.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use super::sys;
use super::{Apis, CephError, Pool, apis, c_text, check};

/// How to reach a cluster: fio's `clustername` and `clientname`, a config
/// file (librados' own search, which honours CEPH_CONF, when absent), and
/// settings applied before connecting (timeouts, for instance).
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions<'a> {
    pub cluster_name: Option<&'a str>,
    pub client_name: Option<&'a str>,
    pub conf_file: Option<&'a Path>,
    pub settings: &'a [(&'a str, &'a str)],
}

/// How long a client waits for the cluster before giving up, so that an
/// unreachable monitor or a dead OSD ends in an error rather than a hang
/// (librados waits 300 s to connect, and forever for an OSD, by default).
/// Set from ferrio's `ferrio_ceph_timeout` and `ferrio_ceph_op_timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Connecting and authenticating, and each monitor request, in
    /// seconds (`client_mount_timeout`, `rados_mon_op_timeout`); 0 keeps
    /// librados' defaults.
    pub connect_secs: u64,
    /// Each OSD operation, in seconds (`rados_osd_op_timeout`); 0 waits
    /// forever, as librados does by default.
    pub op_secs: u64,
}

impl Timeouts {
    /// ferrio's defaults, which the option table states too.
    pub const DEFAULT: Timeouts = Timeouts {
        connect_secs: 5,
        op_secs: 30,
    };

    /// The librados settings that apply them.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let mut settings = Vec::new();
        if self.connect_secs > 0 {
            let secs = self.connect_secs.to_string();
            settings.push(("client_mount_timeout", secs.clone()));
            settings.push(("rados_mon_op_timeout", secs));
        }
        if self.op_secs > 0 {
            settings.push(("rados_osd_op_timeout", self.op_secs.to_string()));
        }
        settings
    }
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts::DEFAULT
    }
}

/// A connected cluster handle (librados' `rados_t`).
pub struct Cluster {
    pub(super) api: &'static Apis,
    pub(super) handle: sys::Rados,
}

// SAFETY: librados' cluster handle may be used from any thread, and from
// several at once.
unsafe impl Send for Cluster {}
// SAFETY: as above.
unsafe impl Sync for Cluster {}

impl Cluster {
    /// Creates a handle as fio does: with a cluster name, through
    /// rados_create2 and a full `type.id` name (`client.` is prepended to
    /// a client name without a dot); without one, through rados_create,
    /// which takes a bare id. Then reads the config and connects.
    pub fn connect(options: &ConnectOptions<'_>) -> Result<Arc<Cluster>, CephError> {
        let api = apis()?;
        let mut handle: sys::Rados = std::ptr::null_mut();
        let created = match options.cluster_name {
            Some(cluster) => {
                let full_name = options.client_name.map(|name| {
                    if name.contains('.') {
                        name.to_string()
                    } else {
                        format!("client.{name}")
                    }
                });
                let cluster_c = c_text(cluster)?;
                let name_c = full_name.as_deref().map(c_text).transpose()?;
                // SAFETY: valid out pointer and NUL-terminated strings (or
                // null for the default name).
                unsafe {
                    (api.rados.rados_create2)(
                        &mut handle,
                        cluster_c.as_ptr(),
                        name_c.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                        0,
                    )
                }
            }
            None => {
                let id_c = options.client_name.map(c_text).transpose()?;
                // SAFETY: valid out pointer; the id is a C string or null.
                unsafe {
                    (api.rados.rados_create)(
                        &mut handle,
                        id_c.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                    )
                }
            }
        };
        check(
            created.into(),
            "rados_create",
            options.client_name.unwrap_or("admin"),
        )?;
        // From here the handle is shut down on every path, by Drop.
        let cluster = Cluster { api, handle };
        let conf = options.conf_file.map(|p| p.to_string_lossy().into_owned());
        let conf_c = conf.as_deref().map(c_text).transpose()?;
        // SAFETY: a created handle and a C string or null (the default
        // search: $CEPH_CONF, /etc/ceph/ceph.conf, ~/.ceph/config, ./ceph.conf).
        let read = unsafe {
            (api.rados.rados_conf_read_file)(
                handle,
                conf_c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
            )
        };
        check(
            read.into(),
            "rados_conf_read_file",
            conf.as_deref().unwrap_or("the default config search"),
        )?;
        for (option, value) in options.settings {
            cluster.set(option, value)?;
        }
        connect_or_stop(cluster).map(Arc::new)
    }

    /// A connection for `key` that every caller with the same key shares
    /// while any of them holds it (ferrio_shared_connection: a job's
    /// clones on one client), or a new one when `key` is `None`.
    pub fn connect_shared(
        key: Option<String>,
        options: &ConnectOptions<'_>,
    ) -> Result<Arc<Cluster>, CephError> {
        static SHARED: Mutex<Vec<(String, std::sync::Weak<Cluster>)>> = Mutex::new(Vec::new());
        let Some(key) = key else {
            return Cluster::connect(options);
        };
        // Held while connecting, so that clones starting together make one.
        let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
        shared.retain(|(_, c)| c.strong_count() > 0);
        if let Some(cluster) = shared
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, c)| c.upgrade())
        {
            return Ok(cluster);
        }
        let cluster = Cluster::connect(options)?;
        shared.push((key, Arc::downgrade(&cluster)));
        Ok(cluster)
    }

    /// The client's id in the cluster (`client.N`): one per connection.
    pub fn client(&self) -> String {
        // SAFETY: a connected handle.
        let id = unsafe { (self.api.rados.rados_get_instance_id)(self.handle) };
        format!("client.{id}")
    }

    /// Sets a config option on the handle (some, such as `rbd_cache`,
    /// are read later, when an image opens).
    pub fn set(&self, option: &str, value: &str) -> Result<(), CephError> {
        let (option_c, value_c) = (c_text(option)?, c_text(value)?);
        // SAFETY: a live handle and two C strings.
        let r = unsafe {
            (self.api.rados.rados_conf_set)(self.handle, option_c.as_ptr(), value_c.as_ptr())
        };
        check(r.into(), "rados_conf_set", &format!("{option}={value}"))
    }

    /// Opens an I/O context on a pool.
    pub fn pool(self: &Arc<Self>, name: &str) -> Result<Arc<Pool>, CephError> {
        let name_c = c_text(name)?;
        let mut ioctx: sys::IoCtx = std::ptr::null_mut();
        // SAFETY: a connected handle, a C string and a valid out pointer.
        let r = unsafe {
            (self.api.rados.rados_ioctx_create)(self.handle, name_c.as_ptr(), &mut ioctx)
        };
        check(r.into(), "rados_ioctx_create", &format!("pool {name}"))?;
        Ok(Arc::new(Pool {
            cluster: Arc::clone(self),
            ioctx,
        }))
    }
}

/// rados_connect on a thread of its own, waited for in short slices
/// ([`crate::clib::unless_stopped`]): an unreachable monitor holds
/// librados for `client_mount_timeout`, and a stop signal must end the
/// run long before that. A stopped wait leaves the thread to finish (it
/// then shuts the handle down itself) and fails with EINTR.
fn connect_or_stop(cluster: Cluster) -> Result<Cluster, CephError> {
    let connected = crate::clib::unless_stopped("rados-connect", move || {
        // SAFETY: a created, configured handle, used by this thread alone
        // until it is sent back.
        let code = unsafe { (cluster.api.rados.rados_connect)(cluster.handle) };
        (cluster, code)
    });
    match connected {
        Ok((cluster, code)) => {
            check(code.into(), "rados_connect", "the cluster's monitors")?;
            Ok(cluster)
        }
        Err(why) => Err(CephError::Call {
            call: "rados_connect",
            subject: "the cluster's monitors".to_string(),
            errno: why.errno(),
        }),
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // SAFETY: the handle was created and nothing uses it any more:
        // pools and images hold an Arc to it.
        unsafe { (self.api.rados.rados_shutdown)(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_become_librados_settings_and_zero_keeps_its_defaults() {
        let settings = |connect_secs, op_secs| {
            Timeouts {
                connect_secs,
                op_secs,
            }
            .settings()
        };
        let owned = |pairs: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
            pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
        };
        assert_eq!(
            settings(5, 30),
            owned(&[
                ("client_mount_timeout", "5"),
                ("rados_mon_op_timeout", "5"),
                ("rados_osd_op_timeout", "30"),
            ])
        );
        assert_eq!(settings(0, 3), owned(&[("rados_osd_op_timeout", "3")]));
        assert!(settings(0, 0).is_empty());
        assert_eq!(Timeouts::default(), Timeouts::DEFAULT);
    }
}
