//! Tests against a real single-node Ceph cluster made by
//! `scripts/ceph-local`: the cluster itself, then fio 3.33's own rbd
//! engine on it (and ferrio's, beside it, once it runs).
//!
//! One test function owns one cluster and runs its checks in order, so
//! the suite pays the start (about 10 s) once. The cluster is stopped
//! when the test ends, even when a check fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A running cluster, stopped on drop.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/ceph-local")
}

/// Runs a command with stdin closed and a time limit, so nothing here can
/// hang the suite.
fn bounded(seconds: u32, program: &str, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new("timeout");
    command
        .args(["-k", "5", &seconds.to_string(), program])
        .args(args)
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Cluster {
    fn start() -> Cluster {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ceph-local");
        let out = bounded(
            180,
            script().to_str().unwrap(),
            &["start", dir.to_str().unwrap()],
            &[],
        );
        let stdout = text(&out.stdout);
        assert!(
            out.status.success(),
            "scripts/ceph-local start failed:\n{stdout}{}",
            text(&out.stderr)
        );
        let conf = dir.join("ceph.conf");
        assert_eq!(
            stdout.trim(),
            format!("export CEPH_CONF={}", conf.display())
        );
        Cluster { dir, conf }
    }

    /// Runs a Ceph command-line tool against this cluster.
    fn tool(&self, program: &str, args: &[&str]) -> String {
        let out = bounded(60, program, args, &[("CEPH_CONF", &self.conf)]);
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    /// The pids the cluster's pid files name.
    fn pids(&self) -> Vec<i32> {
        ["osd.0", "mgr.x", "mon.a"]
            .iter()
            .filter_map(|name| {
                std::fs::read_to_string(self.dir.join(format!("run/{name}.pid"))).ok()
            })
            .filter_map(|pid| pid.trim().parse().ok())
            .collect()
    }

    fn stop(&self) -> Output {
        bounded(
            60,
            script().to_str().unwrap(),
            &["stop", self.dir.to_str().unwrap()],
            &[],
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

fn alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether this machine can run the cluster: the packages are there, or
/// the script may install them (as root).
fn cluster_possible() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    root || Path::new("/usr/bin/ceph-osd").exists()
}

/// A job file for an rbd engine against the cluster's image.
fn rbd_job(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    let text = format!(
        "[global]\nioengine=rbd\nclientname=admin\npool=rbd\nrbdname=block-device1\n{body}"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn fio_json(cluster: &Cluster, binary: &str, job: &Path) -> Value {
    let out = bounded(
        60,
        binary,
        &["--output-format=json", job.to_str().unwrap()],
        &[("CEPH_CONF", &cluster.conf)],
    );
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "{binary} on {} failed: {stdout}{}",
        job.display(),
        text(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{binary} JSON: {e}\n{stdout}"))
}

#[test]
fn local_cluster_serves_fio_rbd_and_stops_cleanly() {
    if !cluster_possible() {
        eprintln!("skipped: no Ceph packages and not root to install them");
        return;
    }
    let fio = common::fio();
    let cluster = Cluster::start();

    let status = cluster.tool("ceph", &["-s"]);
    assert!(status.contains("HEALTH_OK"), "{status}");
    assert!(status.contains("1 osds: 1 up"), "{status}");
    let info = cluster.tool("rbd", &["info", "rbd/block-device1"]);
    assert!(info.contains("size 1 GiB"), "{info}");

    // Every daemon listens on loopback only.
    let listeners = bounded(10, "ss", &["-Hltnp"], &[]);
    for line in text(&listeners.stdout).lines() {
        if cluster
            .pids()
            .iter()
            .any(|pid| line.contains(&format!("pid={pid},")))
        {
            assert!(
                line.contains("127.0.0.1:"),
                "listens beyond loopback: {line}"
            );
        }
    }

    let job = rbd_job(
        &cluster.dir,
        "rbd-randwrite.fio",
        "rw=randwrite\nbs=4k\niodepth=32\ntime_based=1\nruntime=2\n[rbd_iodepth32]\n",
    );
    let doc = fio_json(&cluster, fio, &job);
    let write = &doc["jobs"][0]["write"];
    assert_eq!(doc["jobs"][0]["error"], 0);
    assert!(write["total_ios"].as_u64().unwrap() > 100, "{write}");

    let pids = cluster.pids();
    assert_eq!(pids.len(), 3, "one pid file per daemon");
    let stopped = cluster.stop();
    assert!(stopped.status.success(), "{}", text(&stopped.stderr));
    let left: Vec<_> = pids.into_iter().filter(|&pid| alive(pid)).collect();
    assert!(left.is_empty(), "daemons left running: {left:?}");
}
