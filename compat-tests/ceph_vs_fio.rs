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
        Cluster::start_in("ceph-local", &[])
    }

    /// A cluster in its own folder under the test's scratch space, with
    /// scripts/ceph-local's extra `options` (such as --bluestore).
    fn start_in(name: &str, options: &[&str]) -> Cluster {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        // Daemons left by a run that was killed before it could stop them.
        bounded(
            60,
            script().to_str().unwrap(),
            &["stop", dir.to_str().unwrap()],
            &[],
        );
        let mut args = vec!["start", dir.to_str().unwrap()];
        args.extend_from_slice(options);
        let out = bounded(180, script().to_str().unwrap(), &args, &[]);
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
    common::need::root() || common::need::program("ceph-osd")
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

/// ferrio's own librbd/librados bindings against the cluster: image
/// facts, asynchronous writes read back intact, an object-sized discard
/// that reads back as zeros, and a RADOS object written, read and removed.
fn bindings_read_back_what_they_wrote(cluster: &Cluster) {
    use ferrio::ceph::{self, CallbackQueue, ConnectOptions, ImageIo, ObjectIo, Transfer};

    let (major, minor, _) = ceph::rbd_version().expect("librbd loads");
    assert_eq!((major, minor), (1, 16), "Pacific's librbd");
    let connection = ceph::Cluster::connect(&ConnectOptions {
        client_name: Some("admin"),
        conf_file: Some(&cluster.conf),
        ..Default::default()
    })
    .expect("connect");
    let pool = connection.pool("rbd").expect("pool rbd");
    let image = pool.open_image("block-device1").expect("open image");
    let info = image.info().expect("rbd_stat");
    assert_eq!((info.size, info.object_size), (1 << 30, 4 << 20));
    assert!(info.block_name_prefix.starts_with("rbd_data."), "{info:?}");

    const DEPTH: usize = 16;
    const BLOCK: usize = 4096;
    let queue = CallbackQueue::new(DEPTH);
    let mut written = vec![0u8; DEPTH * BLOCK];
    for (i, byte) in written.iter_mut().enumerate() {
        *byte = (i * 7 + i / BLOCK) as u8;
    }
    let mut read = vec![0u8; DEPTH * BLOCK];
    let mut finished = Vec::with_capacity(DEPTH);
    // Every I/O lands 1 MiB apart, so they span several objects, in the
    // image's second half, which the fio job above leaves alone.
    let base = info.size / 2;
    let offset = |token: usize| base + ((token as u64) << 20);
    for (token, chunk) in written.chunks(BLOCK).enumerate() {
        let io = ImageIo::Data(Transfer::Write {
            offset: offset(token),
            buf: chunk.as_ptr(),
            len: BLOCK,
        });
        // SAFETY: `written` outlives the reap below, which takes every token.
        unsafe { image.submit(&queue, token, io) }.expect("rbd_aio_write");
    }
    queue
        .reap(DEPTH, DEPTH, false, None, &mut finished)
        .unwrap();
    assert!(finished.iter().all(|f| f.result == 0), "{finished:?}");
    finished.clear();
    // SAFETY: nothing else is in flight for token 0.
    unsafe { image.submit(&queue, 0, ImageIo::Flush) }.expect("rbd_aio_flush");
    queue.reap(1, 1, true, None, &mut finished).unwrap();
    assert_eq!(finished[0].result, 0);
    finished.clear();
    // A deadline gives up when nothing is left to finish.
    let past = std::time::Instant::now();
    assert_eq!(queue.reap(1, 1, false, Some(past), &mut finished), Err(0));
    for (token, chunk) in read.chunks_mut(BLOCK).enumerate() {
        let io = ImageIo::Data(Transfer::Read {
            offset: offset(token),
            buf: chunk.as_mut_ptr(),
            len: BLOCK,
        });
        // SAFETY: as for the writes.
        unsafe { image.submit(&queue, token, io) }.expect("rbd_aio_read");
    }
    queue
        .reap(DEPTH, DEPTH, false, None, &mut finished)
        .unwrap();
    assert!(
        finished.iter().all(|f| f.result == BLOCK as i64),
        "{finished:?}"
    );
    assert!(
        read == written,
        "rbd read back something else than it wrote"
    );
    finished.clear();

    // librbd skips discards smaller than its granularity (64 KiB): discard
    // a whole object.
    let discard = ImageIo::Discard {
        offset: base,
        len: info.object_size,
    };
    // SAFETY: no buffer, no other I/O in flight.
    unsafe { image.submit(&queue, 0, discard) }.expect("rbd_aio_discard");
    queue.reap(1, 1, false, None, &mut finished).unwrap();
    assert_eq!(finished[0].result, 0);
    finished.clear();
    let io = ImageIo::Data(Transfer::Read {
        offset: base,
        buf: read.as_mut_ptr(),
        len: BLOCK,
    });
    // SAFETY: as for the writes.
    unsafe { image.submit(&queue, 0, io) }.unwrap();
    queue.reap(1, 1, false, None, &mut finished).unwrap();
    assert!(
        read[..BLOCK].iter().all(|&b| b == 0),
        "a discarded block reads as zeros"
    );
    finished.clear();

    let oid = c"ferrio-bindings-test";
    let steps = [
        ObjectIo::Data(Transfer::Write {
            offset: 0,
            buf: written.as_ptr(),
            len: BLOCK,
        }),
        ObjectIo::Data(Transfer::Read {
            offset: 0,
            buf: read.as_mut_ptr(),
            len: BLOCK,
        }),
        ObjectIo::Remove,
    ];
    let mut results = Vec::new();
    for io in steps {
        // SAFETY: each operation is reaped before the next starts, and the
        // buffers outlive them.
        unsafe { pool.submit(&queue, 3, oid, io) }.expect("rados_aio");
        queue.reap(1, 1, false, None, &mut finished).unwrap();
        results.push((finished[0].token, finished[0].result));
        finished.clear();
    }
    assert_eq!(results, [(3, 0), (3, BLOCK as i64), (3, 0)]);
    assert_eq!(read[..BLOCK], written[..BLOCK]);
    assert_eq!(queue.in_flight(), 0);

    let missing = connection
        .pool("no-such-pool")
        .err()
        .expect("a missing pool fails");
    assert_eq!(missing.errno(), libc::ENOENT, "{missing}");
    assert!(
        missing.to_string().contains("pool no-such-pool"),
        "{missing}"
    );
    let missing = pool
        .open_image("no-such-image")
        .err()
        .expect("a missing image fails");
    assert_eq!(missing.errno(), libc::ENOENT, "{missing}");
}

/// What one job of a JSON report did: name, error, I/Os per direction,
/// syncs.
fn issued(doc: &Value) -> Vec<(String, u64, [u64; 3], u64)> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let ios = ["read", "write", "trim"].map(|d| j[d]["total_ios"].as_u64().unwrap());
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["error"].as_u64().unwrap(),
                ios,
                j["sync"]["total_ios"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The share of I/Os issued at the job's full depth.
fn at_depth(doc: &Value, job: usize, depth: &str) -> f64 {
    doc["jobs"][job]["iodepth_level"][depth].as_f64().unwrap()
}

/// ferrio's rbd engine beside fio's on the same job file: the same I/Os
/// issued per direction, the size of an image taken when `size` is absent,
/// the queue depth held, and the same disks in the report. The last job
/// names its cluster, which takes fio's other way to connect (a full
/// `client.admin` name through rados_create2).
fn rbd_engine_issues_what_fio_issues(cluster: &Cluster) {
    cluster.tool("rbd", &["create", "--size", "64M", "rbd/small"]);
    let job = rbd_job(
        &cluster.dir,
        "rbd-mix.fio",
        "[image-sized]\nrbdname=small\nrw=write\nbs=1m\niodepth=8\n\
         [randread]\nstonewall\nrw=randread\nbs=4k\nsize=16m\niodepth=32\n\
         [randtrim]\nstonewall\nrw=randtrim\nbs=64k\nsize=16m\niodepth=4\nbusy_poll=1\n\
         [randrw]\nstonewall\nrw=randrw\nbs=16k\nsize=32m\niodepth=16\nend_fsync=1\n\
         [direct]\nstonewall\nclustername=ceph\nclientname=client.admin\nrw=randwrite\nbs=4k\nsize=4m\niodepth=8\ndirect=1\n",
    );
    let want = fio_json(cluster, common::fio(), &job);
    let got = fio_json(cluster, common::ferrio(), &job);
    let (want_ios, got_ios) = (issued(&want), issued(&got));
    assert_eq!(want_ios.len(), 5, "{want_ios:?}");
    for (w, g) in want_ios.iter().zip(&got_ios) {
        // The randrw split too: ferrio draws fio's random sequence.
        assert_eq!(
            (&w.0, w.1, w.2, w.3),
            (&g.0, g.1, g.2, g.3),
            "{w:?} vs {g:?}"
        );
    }
    assert_eq!(got_ios[0].2, [0, 64, 0], "64 MiB image in 1 MiB writes");
    for (job, depth) in [(1, "32"), (4, "8")] {
        let (w, g) = (at_depth(&want, job, depth), at_depth(&got, job, depth));
        assert!(
            w > 90.0 && g > 90.0,
            "job {job} at depth {depth}: fio {w}%, ferrio {g}%"
        );
    }
    let disks = |doc: &Value| doc["disk_util"].as_array().map(|a| a.len());
    assert_eq!(disks(&want), disks(&got));
}

/// Data written through ferrio's rbd engine with verify=crc32c reads back
/// intact through it, and either tool checks (verify_only) what the other
/// wrote on the image, as fio's verify header lets them.
fn rbd_reads_return_what_rbd_writes_wrote(cluster: &Cluster) {
    let body = |extra: &str| {
        format!("[v]\nrw=randwrite\nbs=64k\nsize=32m\niodepth=16\nverify=crc32c\n{extra}\n")
    };
    let job = rbd_job(&cluster.dir, "rbd-verify.fio", &body(""));
    let doc = fio_json(cluster, common::ferrio(), &job);
    let j = &doc["jobs"][0];
    assert_eq!(j["error"], 0, "{j}");
    assert_eq!(j["write"]["total_ios"], 512);
    assert_eq!(
        j["read"]["total_ios"], 512,
        "every block read back and checked"
    );
    // ferrio's writes go out without librbd's copy unless told otherwise
    // (ferrio_rbd_zero_copy), and refill_buffers rewrites a slot's buffer
    // before each write: the data must still land as written.
    for (writer, options, checker) in [
        (common::fio(), "", common::ferrio()),
        (common::ferrio(), "", common::fio()),
        (common::ferrio(), "refill_buffers=1", common::fio()),
        (common::ferrio(), "ferrio_rbd_zero_copy=0", common::fio()),
    ] {
        let write = rbd_job(
            &cluster.dir,
            "rbd-verify-write.fio",
            &body(&format!("do_verify=0\n{options}")),
        );
        fio_json(cluster, writer, &write);
        let check = rbd_job(&cluster.dir, "rbd-verify-check.fio", &body("verify_only=1"));
        let doc = fio_json(cluster, checker, &check);
        assert_eq!(
            doc["jobs"][0]["error"], 0,
            "{checker} checking {writer}'s data ({options})"
        );
        assert_eq!(doc["jobs"][0]["read"]["total_ios"], 512);
    }
}

/// A pool that does not exist fails the job before any I/O, in both, and
/// ferrio says which call failed on what; so does a machine without
/// librbd, saying what to install.
fn rbd_engine_failures_are_clear(cluster: &Cluster) {
    let job = cluster.dir.join("rbd-no-pool.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=rbd\nclientname=admin\npool=no-such-pool\nrbdname=x\n\
         [w]\nrw=write\nsize=1m\n",
    )
    .unwrap();
    let env = [("CEPH_CONF", cluster.conf.as_path())];
    let fio = bounded(60, common::fio(), &[job.to_str().unwrap()], &env);
    let ferrio = bounded(60, common::ferrio(), &[job.to_str().unwrap()], &env);
    assert_eq!(fio.status.code(), Some(1));
    assert_eq!(ferrio.status.code(), Some(1));
    let said = text(&ferrio.stderr);
    assert!(
        said.contains("rados_ioctx_create (pool no-such-pool) failed: No such file or directory"),
        "{said}"
    );
    assert!(
        !text(&ferrio.stdout).contains("issued rwts"),
        "no I/O report for a job that never ran"
    );

    // Without librbd (hidden here, as root, by an empty file mounted over
    // it in a private mount namespace) the job fails before any I/O, saying what
    // to install.
    let library = std::fs::canonicalize("/usr/lib/x86_64-linux-gnu/librbd.so.1").unwrap();
    let script = format!(
        "mount --bind /dev/null {} && exec {} {}",
        library.display(),
        common::ferrio(),
        job.display()
    );
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let hidden = bounded(60, "unshare", &["--mount", "sh", "-c", &script], &env);
        assert_eq!(hidden.status.code(), Some(1));
        let said = text(&hidden.stderr);
        assert!(said.contains("cannot load librbd.so.1"), "{said}");
        assert!(said.contains("apt-get install librbd1 librados2"), "{said}");
        assert!(!text(&hidden.stdout).contains("issued rwts"));
    }
}

/// Periodic syncs on rbd: fio queues each as an rbd_aio_flush beside the
/// writes. A sync is due whenever the writes issued are a multiple of
/// `fsync` and the last I/O to complete was not a sync (fio's
/// last_was_sync: set as a flush completes, cleared as any write
/// completes), so at depth 16 one is queued at each turn of the loop
/// until a flush completes, and again when a write is reaped after that
/// flush before the next write goes out: more flushes than one per
/// `fsync` writes, as many more as the completions each reap brings,
/// which is the scheduler's timing and the OSD's. ferrio keeps the same
/// rule. An fdatasync, which librbd cannot do, fails the job with EINVAL
/// in both.
fn rbd_periodic_syncs_are_queued_as_fio_queues_them(cluster: &Cluster) {
    let job = rbd_job(
        &cluster.dir,
        "rbd-fsync.fio",
        "thread\n[w]\nrw=randwrite\nbs=4k\nsize=16m\niodepth=16\nfsync=4\n",
    );
    let flushes_of = |tool: &str| {
        let doc = fio_json(cluster, tool, &job);
        let one = &doc["jobs"][0];
        assert_eq!(one["write"]["total_ios"], 4096, "{tool}");
        let flushes = one["sync"]["total_ios"].as_u64().unwrap();
        assert_eq!(one["sync"]["lat_ns"]["N"], flushes, "{tool}");
        // At least one per 4 writes, by the rule's construction; and
        // more: at depth 16 a flush is queued again until one completes,
        // so fio has issued more than 1024 in every run seen (at least
        // 1527, idle and beside `stress-ng --cpu 2`), which one flush per
        // 4 writes, the rule as one would write it from memory, never is.
        assert!(flushes > 1024, "{tool}: {flushes} flushes for 4096 writes");
        flushes
    };
    // How many more than 1024: the median of three ferrio runs lies in
    // the range of three fio runs (as threads, as ferrio runs:
    // common::spread says why; taken in turn, so that both see the same
    // load) widened by their spread and by at least 60 % of fio's lowest
    // count. The count is the reaps' timing, and it wanders between
    // sessions more than within one: fio 3112-4094 and ferrio 3774-3978
    // beside stress-ng in one session, fio 2739-2989 and ferrio 2314 (one
    // run, 16 % under fio's lowest) on a quiet machine in another, and in
    // two whole-suite runs fio 1382-2111 with ferrio 1708-2943, and fio
    // 1512-1723 with ferrio 1471-2798 (median 2547, 48 % over fio's
    // lowest). A ferrio that flushed once per 4 writes (1024) still fails
    // every run's own check above, and one that flushed after every write
    // (4096) fails here whenever fio's own count is under 2,500.
    let (fio_flushes, ferrio_flushes): (Vec<u64>, Vec<u64>) = (0..3)
        .map(|_| (flushes_of(common::fio()), flushes_of(common::ferrio())))
        .unzip();
    let floor = fio_flushes.iter().min().unwrap() * 6 / 10;
    common::spread::assert_median_within(
        "rbd flushes for 4096 writes",
        &fio_flushes,
        floor,
        &ferrio_flushes,
    );
    let job = rbd_job(
        &cluster.dir,
        "rbd-fdatasync.fio",
        "[w]\nrw=write\nsize=1m\nfdatasync=4\n",
    );
    let env = [("CEPH_CONF", cluster.conf.as_path())];
    for tool in [common::fio(), common::ferrio()] {
        let out = bounded(60, tool, &[job.to_str().unwrap()], &env);
        assert_eq!(out.status.code(), Some(1), "{tool}");
        let said = text(&out.stdout);
        assert!(
            said.contains("err=22") && said.contains("func=xfer, error=Invalid argument"),
            "{tool}: {said}"
        );
    }
}

/// A job file for a rados engine in the cluster's pool, with its config
/// named (fio's rados engine reads `conf`, not CEPH_CONF).
fn rados_job(cluster: &Cluster, name: &str, body: &str) -> PathBuf {
    let path = cluster.dir.join(name);
    let text = format!(
        "[global]\nioengine=rados\nclientname=admin\npool=rbd\nconf={}\n{body}",
        cluster.conf.display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// The objects in pool rbd other than rbd's own, sorted.
fn objects(cluster: &Cluster) -> Vec<String> {
    let mut names: Vec<String> = cluster
        .tool("rados", &["-p", "rbd", "ls"])
        .lines()
        .filter(|name| !name.starts_with("rbd_"))
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

fn remove_objects(cluster: &Cluster) {
    for name in objects(cluster) {
        cluster.tool("rados", &["-p", "rbd", "rm", &name]);
    }
}

/// ferrio's rados engine beside fio's on the same job files: the same I/Os
/// issued per direction (writes over nrfiles objects, reads, trims, a
/// random mix), no disk in the report, and the same objects in the pool,
/// named as fio names the files, and left there after the run as fio
/// leaves them. Then what fio hides: a write past the OSD's largest
/// object fails ferrio's job with EFBIG, where fio reports success.
fn rados_engine_issues_what_fio_issues(cluster: &Cluster) {
    remove_objects(cluster);
    let job = rados_job(
        cluster,
        "rados-mix.fio",
        "size=32m\nbs=1m\niodepth=16\n\
         [w]\nrw=write\nnrfiles=3\n\
         [r]\nstonewall\nrw=randread\nbs=4k\nsize=4m\n\
         [t]\nstonewall\nrw=randtrim\nbs=64k\nsize=8m\nbusy_poll=1\n\
         [rw]\nstonewall\nrw=randrw\nbs=16k\nsize=8m\ntouch_objects=0\n\
         [two]\nstonewall\nrw=read\nnumjobs=2\nsize=2m\nclustername=ceph\nclientname=client.admin\n",
    );
    let want = fio_json(cluster, common::fio(), &job);
    let fio_objects = objects(cluster);
    remove_objects(cluster);
    let got = fio_json(cluster, common::ferrio(), &job);
    assert_eq!(objects(cluster), fio_objects);
    assert_eq!(
        fio_objects,
        [
            "r.0.0", "rw.0.0", "t.0.0", "two.0.0", "two.1.0", "w.0.0", "w.0.1", "w.0.2"
        ]
    );
    remove_objects(cluster);
    assert_eq!(issued(&want), issued(&got));
    assert_eq!(
        issued(&got)[0].2,
        [0, 30, 0],
        "3 objects of 10 MiB in 1 MiB"
    );
    assert_eq!(want.get("disk_util"), got.get("disk_util"));
    let (w, g) = (at_depth(&want, 1, "16"), at_depth(&got, 1, "16"));
    assert!(
        w > 90.0 && g > 90.0,
        "randread at depth 16: fio {w}%, ferrio {g}%"
    );

    // osd_max_object_size is 128 MiB: the 33rd 4 MiB write is refused.
    let job = rados_job(
        cluster,
        "rados-too-big.fio",
        "[big]\nrw=write\nsize=200m\nbs=4m\niodepth=8\n",
    );
    let env = [("CEPH_CONF", cluster.conf.as_path())];
    let fio = bounded(60, common::fio(), &[job.to_str().unwrap()], &env);
    assert_eq!(fio.status.code(), Some(0));
    assert!(text(&fio.stdout).contains("err= 0"));
    let ferrio = bounded(60, common::ferrio(), &[job.to_str().unwrap()], &env);
    assert_eq!(ferrio.status.code(), Some(1));
    let said = text(&ferrio.stdout) + &text(&ferrio.stderr);
    assert!(said.contains("err=27"), "{said}");
    assert!(said.contains("File too large"), "{said}");
    remove_objects(cluster);
}

/// A copy of the cluster's config with one line changed.
fn changed_conf(cluster: &Cluster, name: &str, from: &str, to: &str) -> PathBuf {
    let conf = std::fs::read_to_string(&cluster.conf).unwrap();
    let line = conf
        .lines()
        .find(|l| l.starts_with(from))
        .unwrap_or_else(|| panic!("no '{from}' line in {conf}"));
    let path = cluster.dir.join(name);
    std::fs::write(&path, conf.replace(line, to)).unwrap();
    path
}

/// Runs ferrio on a job file with CEPH_CONF set; returns its exit code,
/// what it said, and how long it took.
fn ferrio_timed(job: &Path, conf: &Path) -> (Option<i32>, String, f64) {
    let start = std::time::Instant::now();
    let out = bounded(
        120,
        common::ferrio(),
        &[job.to_str().unwrap()],
        &[("CEPH_CONF", conf)],
    );
    let said = text(&out.stdout) + &text(&out.stderr);
    (out.status.code(), said, start.elapsed().as_secs_f64())
}

/// Faults at the start end in a clear error, a non-zero exit and no I/O
/// report, within a bounded time, for both engines: no monitor on the
/// configured port (fio waits librados' 300 s there; ferrio gives up
/// after ferrio_ceph_timeout), a key the cluster does not know, a missing
/// pool, a missing image.
fn faults_at_start_are_clear_and_bounded(cluster: &Cluster) {
    let closed = changed_conf(
        cluster,
        "closed.conf",
        "mon host =",
        "mon host = [v2:127.0.0.1:1]",
    );
    let keyring = cluster.dir.join("wrong.keyring");
    let _ = std::fs::remove_file(&keyring);
    cluster.tool(
        "ceph-authtool",
        &[
            "--create-keyring",
            keyring.to_str().unwrap(),
            "--gen-key",
            "-n",
            "client.admin",
        ],
    );
    let wrong_key = changed_conf(
        cluster,
        "wrong-key.conf",
        &format!("keyring = {}", cluster.dir.join("keyring").display()),
        &format!("keyring = {}", keyring.display()),
    );
    let rbd_body = "pool=rbd\nrbdname=block-device1\n";
    // (engine, conf, job options, what ferrio must say, seconds allowed)
    let cases: [(&str, &Path, &str, &str, f64); 8] = [
        (
            "rados",
            &closed,
            "pool=rbd\nferrio_ceph_timeout=2\n",
            "rados_connect (the cluster's monitors) failed: Connection timed out (errno 110)",
            5.0,
        ),
        (
            "rbd",
            &closed,
            rbd_body,
            "rados_connect (the cluster's monitors) failed: Connection timed out (errno 110)",
            9.0,
        ),
        (
            "rados",
            &wrong_key,
            "pool=rbd\n",
            "rados_connect (the cluster's monitors) failed: Permission denied (errno 13)",
            5.0,
        ),
        (
            "rbd",
            &wrong_key,
            rbd_body,
            "rados_connect (the cluster's monitors) failed: Permission denied (errno 13)",
            5.0,
        ),
        (
            "rados",
            &cluster.conf,
            "pool=no-such-pool\n",
            "rados_ioctx_create (pool no-such-pool) failed: No such file or directory",
            5.0,
        ),
        (
            "rbd",
            &cluster.conf,
            "pool=no-such-pool\nrbdname=block-device1\n",
            "rados_ioctx_create (pool no-such-pool) failed: No such file or directory",
            5.0,
        ),
        (
            "rbd",
            &cluster.conf,
            "pool=rbd\nrbdname=no-such-image\n",
            "rbd_open (image no-such-image) failed: No such file or directory",
            5.0,
        ),
        (
            "rados",
            &cluster.conf,
            "",
            "rados pool name must be provided",
            5.0,
        ),
    ];
    for (i, (engine, conf, options, message, limit)) in cases.into_iter().enumerate() {
        // fio's rados engine reads `conf`; its rbd engine, CEPH_CONF.
        let conf_line = match engine {
            "rados" => format!("conf={}\n", conf.display()),
            _ => String::new(),
        };
        let job = cluster.dir.join(format!("fault-{i}.fio"));
        std::fs::write(
            &job,
            format!("[fault]\nioengine={engine}\nclientname=admin\n{conf_line}{options}rw=write\nsize=1m\n"),
        )
        .unwrap();
        let (code, said, took) = ferrio_timed(&job, conf);
        assert!(
            code.is_some_and(|c| c != 0),
            "case {i}: exit {code:?}\n{said}"
        );
        assert!(said.contains(message), "case {i}: {said}");
        assert!(
            !said.contains("issued rwts"),
            "case {i}: no I/O report\n{said}"
        );
        assert!(took < limit, "case {i}: took {took:.1} s (limit {limit} s)");
    }
}

/// Every job file of jobs/ceph runs on the cluster, shortened: a
/// time-based one for 1 s (`runtime=` rewritten), an amount-based one on
/// 16 MiB (`io_size=` rewritten); each ends with exit status 0, a JSON
/// report that parses, no job error and I/O in every job. The size-based
/// ones run beside fio too and issue what fio issues. Files run in name
/// order, so rados-bench-1-write.fio makes the objects the others read.
fn every_ceph_job_file_runs(cluster: &Cluster) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs/ceph");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fio"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    let short = cluster.dir.join("short");
    std::fs::create_dir_all(&short).unwrap();
    for file in &files {
        let original = std::fs::read_to_string(file).unwrap();
        assert!(
            original.starts_with("; "),
            "{}: a comment first",
            file.display()
        );
        let time_based = original.lines().any(|l| l.trim() == "time_based");
        let shortened: String = original
            .lines()
            .map(|line| match line.split_once('=') {
                Some(("runtime", _)) => "runtime=1".to_string(),
                Some(("io_size", _)) => "io_size=16M".to_string(),
                _ => line.to_string(),
            })
            .map(|line| line + "\n")
            .collect();
        let job = short.join(file.file_name().unwrap());
        std::fs::write(&job, shortened).unwrap();
        let got = fio_json(cluster, common::ferrio(), &job);
        let jobs = issued(&got);
        assert!(!jobs.is_empty(), "{}", file.display());
        for (name, error, ios, _) in &jobs {
            assert_eq!(*error, 0, "{}: {name}", file.display());
            assert!(
                ios.iter().sum::<u64>() > 0,
                "{}: {name} did no I/O",
                file.display()
            );
        }
        if !time_based {
            let want = fio_json(cluster, common::fio(), &job);
            assert_eq!(issued(&want), jobs, "{}", file.display());
        }
    }
    remove_objects(cluster);
}

/// ferrio's own report on rbd and rados jobs: the slowest I/Os name the
/// RADOS object each went to (for rbd, the image's data object holding
/// the offset: 4 MiB objects here), and a job's clones use one cluster
/// connection each, as fio's do, or share one with
/// ferrio_shared_connection=1 (told apart by the librados client id).
fn slowest_ios_and_shared_connections(cluster: &Cluster) {
    let connections = |doc: &Value| -> Vec<String> {
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["ferrio"]["connection"].as_str().unwrap().to_string())
            .collect()
    };
    let distinct = |c: &[String]| {
        let mut c = c.to_vec();
        c.sort();
        c.dedup();
        c.len()
    };
    for shared in [0, 1] {
        let job = rbd_job(
            &cluster.dir,
            "rbd-clones.fio",
            &format!(
                "rw=randwrite\nbs=4k\niodepth=4\nsize=64m\nnumjobs=3\ntime_based\nruntime=1\n\
                 ferrio_shared_connection={shared}\n[clones]\n"
            ),
        );
        let doc = fio_json(cluster, common::ferrio(), &job);
        let c = connections(&doc);
        assert!(c.iter().all(|c| c.starts_with("client.")), "{c:?}");
        assert_eq!(distinct(&c), if shared == 1 { 1 } else { 3 }, "{c:?}");
        for j in doc["jobs"].as_array().unwrap() {
            let slow = j["ferrio"]["slowest_ios"].as_array().unwrap();
            // Up to 8 (a loaded machine may stall a clone's first writes
            // for most of its second).
            let ios = j["write"]["total_ios"].as_u64().unwrap() as usize;
            assert!(ios > 0, "{j}");
            assert_eq!(slow.len(), ios.min(8), "{j}");
            let lats: Vec<u64> = slow.iter().map(|s| s["lat_ns"].as_u64().unwrap()).collect();
            assert!(lats.windows(2).all(|w| w[0] >= w[1]), "{lats:?}");
            let max = j["write"]["lat_ns"]["max"].as_u64().unwrap();
            assert_eq!(lats[0], max, "the slowest is the job's maximum");
            for s in slow {
                let object = s["object"].as_str().unwrap();
                let number = object.rsplit('.').next().unwrap();
                let offset = s["offset"].as_u64().unwrap();
                assert!(object.starts_with("rbd_data."), "{object}");
                assert_eq!(
                    u64::from_str_radix(number, 16).unwrap(),
                    offset >> 22,
                    "{s}"
                );
            }
        }
    }
    let job = rados_job(
        cluster,
        "rados-clones.fio",
        "rw=write\nbs=4k\nsize=64k\nnumjobs=2\nferrio_shared_connection=1\n[rclones]\n",
    );
    let doc = fio_json(cluster, common::ferrio(), &job);
    assert_eq!(distinct(&connections(&doc)), 1);
    let slow = &doc["jobs"][1]["ferrio"]["slowest_ios"][0];
    assert_eq!(slow["object"], "rclones.1.0", "{slow}");
    remove_objects(cluster);
}

/// The cluster's OSD process.
fn osd_pid(cluster: &Cluster) -> i32 {
    std::fs::read_to_string(cluster.dir.join("run/osd.0.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Sends `signal` to the cluster's OSD.
fn signal_osd(cluster: &Cluster, signal: i32) {
    // SAFETY: kill has no memory preconditions; the pid is the cluster's OSD.
    assert_eq!(unsafe { libc::kill(osd_pid(cluster), signal) }, 0);
}

/// `binary` started on `job` against the cluster, bounded at 120 s.
fn spawn_in(cluster: &Cluster, binary: &str, job: &Path) -> std::process::Child {
    Command::new("timeout")
        .args(["-k", "5", "120", binary, job.to_str().unwrap()])
        .env("CEPH_CONF", &cluster.conf)
        .current_dir(&cluster.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// An OSD stopped (SIGSTOP) for 3 s and resumed mid-run, under fio and
/// then under ferrio: the I/O waits, then resumes, the job ends cleanly
/// at its runtime, and the pause shows in both tools' bandwidth logs the
/// same way: no samples while nothing completes (fio logs none for an
/// empty interval), so consecutive samples are 2.5 s or more apart, with
/// samples on both sides.
fn osd_paused_and_resumed_shows_in_the_bw_log(cluster: &Cluster) {
    for (tool, binary) in [("fio", common::fio()), ("ferrio", common::ferrio())] {
        let log = cluster.dir.join(format!("paused-{tool}"));
        let job = rbd_job(
            &cluster.dir,
            "rbd-osd-paused.fio",
            &format!(
                "direct=1\nrw=randwrite\nbs=4k\niodepth=8\ntime_based\nruntime=9\n\
                 write_bw_log={}\nlog_avg_msec=500\n[osd-paused]\n",
                log.display()
            ),
        );
        let run = spawn_in(cluster, binary, &job);
        std::thread::sleep(std::time::Duration::from_millis(3500));
        signal_osd(cluster, libc::SIGSTOP);
        std::thread::sleep(std::time::Duration::from_secs(3));
        signal_osd(cluster, libc::SIGCONT);
        let out = run.wait_with_output().unwrap();
        let said = text(&out.stdout) + &text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{tool}: {said}");
        assert!(said.contains("err= 0"), "{tool}: {said}");
        let log = cluster.dir.join(format!("paused-{tool}_bw.1.log"));
        let samples: Vec<(u64, u64)> = std::fs::read_to_string(log)
            .unwrap()
            .lines()
            .map(|l| {
                let mut fields = l.split(',').map(|f| f.trim().parse().unwrap());
                (fields.next().unwrap(), fields.next().unwrap())
            })
            .collect();
        let gap = samples
            .windows(2)
            .position(|w| w[1].0 - w[0].0 >= 2500)
            .unwrap_or_else(|| panic!("{tool}: no pause in the bw log: {samples:?}"));
        let (before, after) = samples.split_at(gap + 1);
        assert!(before.iter().any(|s| s.1 > 0), "{tool}: {samples:?}");
        assert!(
            after.iter().filter(|s| s.1 > 0).count() >= 2,
            "{tool}: no I/O after the pause: {samples:?}"
        );
    }
}

/// An OSD killed mid-run (SIGKILL, not restarted): fio 3.33 hangs there
/// for good. ferrio waits ferrio_ceph_grace past the runtime for the I/O
/// in flight (the OSD operation timeout is off here, as in fio), then
/// names the objects it went to and ends the job with err=110 and a
/// non-zero exit: runtime 5 s and grace 3 s end it about 9 s after the
/// start (allowed 30 s). The memstore OSD loses its data, so this comes
/// last.
fn osd_killed_mid_run_ends_the_job_with_the_error(cluster: &Cluster) {
    let job = rbd_job(
        &cluster.dir,
        "rbd-osd-killed.fio",
        "direct=1\nrw=randwrite\nbs=4k\niodepth=32\ntime_based\nruntime=5\n\
         ferrio_ceph_op_timeout=0\nferrio_ceph_grace=3\n[osd-killed]\n",
    );
    let start = std::time::Instant::now();
    let run = spawn_in(cluster, common::ferrio(), &job);
    std::thread::sleep(std::time::Duration::from_secs(2));
    signal_osd(cluster, libc::SIGKILL);
    let out = run.wait_with_output().unwrap();
    let took = start.elapsed().as_secs_f64();
    let said = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("err=110"), "{said}");
    assert!(said.contains("Connection timed out"), "{said}");
    assert!(
        said.contains("did not complete within ferrio_ceph_grace")
            && said.contains("(objects: rbd_data."),
        "the stalled I/O is named\n{said}"
    );
    assert!(
        said.contains("issued rwts"),
        "the I/O done is reported\n{said}"
    );
    assert!(took < 30.0, "took {took:.1} s");
}

#[test]
fn local_cluster_serves_fio_rbd_and_stops_cleanly() {
    if !common::need::require("ceph", cluster_possible())
        || !common::need::require("ss", common::need::program("ss"))
    {
        return;
    }
    let fio = common::fio();
    let cluster = Cluster::start();

    let status = cluster.tool("ceph", &["-s"]);
    assert!(status.contains("HEALTH_OK"), "{status}");
    assert!(status.contains("1 osds: 1 up"), "{status}");
    let info = cluster.tool("rbd", &["info", "rbd/block-device1"]);
    assert!(info.contains("size 1 GiB"), "{info}");

    // Every daemon listens on loopback only. Each of the three (mon.a,
    // mgr.x, osd.0) listens on some TCP port, so each must own at least
    // one line of ss's list: a missing ss, or a list without a daemon's
    // sockets, would otherwise check nothing.
    let listeners = bounded(10, "ss", &["-Hltnp"], &[]);
    assert!(
        listeners.status.success(),
        "ss: {}",
        text(&listeners.stderr)
    );
    let pids = cluster.pids();
    assert_eq!(pids.len(), 3, "the cluster's pid files: {pids:?}");
    let listing = text(&listeners.stdout);
    for pid in &pids {
        let owned: Vec<&str> = listing
            .lines()
            .filter(|line| line.contains(&format!("pid={pid},")))
            .collect();
        assert!(!owned.is_empty(), "pid {pid} listens nowhere:\n{listing}");
        for line in owned {
            assert!(
                line.contains("127.0.0.1:"),
                "listens beyond loopback: {line}"
            );
        }
    }

    let job = rbd_job(
        &cluster.dir,
        "rbd-randwrite.fio",
        "thread\nrw=randwrite\nbs=4k\niodepth=32\nsize=256m\ntime_based=1\nruntime=2\n[rbd_iodepth32]\n",
    );
    // Both tools stop issuing at 2 s (fio never before: job_runtime of
    // at least 2000 ms by construction) and wait for the I/O in flight,
    // which librbd can take some hundreds of milliseconds to finish:
    // the median of three ferrio runs lies in the range of three fio
    // runs (as threads: common::spread says why, taken in turn with
    // ferrio's so that both see the same load) widened by their spread
    // and by at least 400 ms. On a loaded machine ferrio's wait has run
    // longer than fio's: beside stress-ng --cpu 2 and three other builds
    // one ferrio run ended at 2355 ms where fio's three ended at
    // 2018-2164, and in a whole-suite run beside a build ferrio's median
    // was 2396 ms against fio's 2039-2136; a gap of up to ~260 ms that is
    // ferrio's to explain, which the floor admits and no more.
    let runtime_of = |tool: &str| {
        let doc = fio_json(&cluster, tool, &job);
        let write = &doc["jobs"][0]["write"];
        assert_eq!(doc["jobs"][0]["error"], 0, "{tool}");
        assert!(
            write["total_ios"].as_u64().unwrap() > 100,
            "{tool}: {write}"
        );
        let ms = doc["jobs"][0]["job_runtime"].as_u64().unwrap();
        assert!(ms >= 2000, "{tool} ran {ms} ms of 2 s");
        ms
    };
    let (fio_runtimes, ferrio_runtimes): (Vec<u64>, Vec<u64>) = (0..3)
        .map(|_| (runtime_of(fio), runtime_of(common::ferrio())))
        .unzip();
    common::spread::assert_median_within(
        "rbd time_based job_runtime (ms)",
        &fio_runtimes,
        400,
        &ferrio_runtimes,
    );

    bindings_read_back_what_they_wrote(&cluster);
    rbd_engine_issues_what_fio_issues(&cluster);
    rbd_engine_failures_are_clear(&cluster);
    rbd_periodic_syncs_are_queued_as_fio_queues_them(&cluster);
    rados_engine_issues_what_fio_issues(&cluster);
    faults_at_start_are_clear_and_bounded(&cluster);
    rbd_reads_return_what_rbd_writes_wrote(&cluster);
    every_ceph_job_file_runs(&cluster);
    slowest_ios_and_shared_connections(&cluster);
    osd_paused_and_resumed_shows_in_the_bw_log(&cluster);
    osd_killed_mid_run_ends_the_job_with_the_error(&cluster);

    let pids = cluster.pids();
    assert_eq!(pids.len(), 3, "one pid file per daemon");
    let stopped = cluster.stop();
    assert!(stopped.status.success(), "{}", text(&stopped.stderr));
    let left: Vec<_> = pids.into_iter().filter(|&pid| alive(pid)).collect();
    assert!(left.is_empty(), "daemons left running: {left:?}");

    rbd_data_survives_a_bluestore_osd_restart();
}

/// On a bluestore OSD (a sparse file in the cluster's folder), what ferrio
/// wrote to an image is still there after the OSD is stopped and started
/// again: ferrio and fio both read it back and find every block's
/// checksum good.
fn rbd_data_survives_a_bluestore_osd_restart() {
    let cluster = Cluster::start_in("ceph-bluestore", &["--bluestore"]);
    let body = |extra: &str| {
        format!("[v]\nrw=write\nbs=64k\nsize=32m\niodepth=16\nverify=crc32c\n{extra}\n")
    };
    let write = rbd_job(&cluster.dir, "rbd-keep.fio", &body("do_verify=0"));
    let doc = fio_json(&cluster, common::ferrio(), &write);
    assert_eq!(doc["jobs"][0]["write"]["total_ios"], 512);

    let before = osd_pid(&cluster);
    signal_osd(&cluster, libc::SIGTERM);
    let stopping = std::time::Instant::now();
    while alive(before) {
        assert!(stopping.elapsed().as_secs() < 60, "the OSD would not stop");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let conf = cluster.conf.to_str().unwrap();
    let started = bounded(60, "ceph-osd", &["--conf", conf, "-i", "0"], &[]);
    assert!(started.status.success(), "{}", text(&started.stderr));
    let after = osd_pid(&cluster);
    assert_ne!(after, before, "a new OSD process");

    let check = rbd_job(&cluster.dir, "rbd-keep-check.fio", &body("verify_only=1"));
    for tool in [common::ferrio(), common::fio()] {
        let doc = fio_json(&cluster, tool, &check);
        let j = &doc["jobs"][0];
        assert_eq!(j["error"], 0, "{tool}: {j}");
        assert_eq!(j["read"]["total_ios"], 512, "{tool}: every block checked");
    }
    assert!(alive(after));
}

/// The writes the cluster's OSD has taken (its `osd.op_w` counter, read
/// through its admin socket).
fn osd_writes(cluster: &Cluster) -> u64 {
    let socket = cluster.dir.join("run/ceph-osd.0.asok");
    let dump = cluster.tool(
        "ceph",
        &["--admin-daemon", socket.to_str().unwrap(), "perf", "dump"],
    );
    let doc: Value = serde_json::from_str(&dump).expect("perf dump is JSON");
    doc["osd"]["op_w"].as_u64().expect("osd.op_w")
}

/// Resumes the cluster's OSD (SIGCONT) when dropped, so that a failed
/// check cannot leave it stopped.
struct OsdPaused<'a>(&'a Cluster);

impl<'a> OsdPaused<'a> {
    fn new(cluster: &'a Cluster) -> Self {
        signal_osd(cluster, libc::SIGSTOP);
        OsdPaused(cluster)
    }
}

impl Drop for OsdPaused<'_> {
    fn drop(&mut self) {
        signal_osd(self.0, libc::SIGCONT);
    }
}

/// The OSD operation time-out firing: the OSD stopped (SIGSTOP) once 64
/// of a 20 s direct randwrite's writes reached it, and resumed 8 s later. fio 3.33 has no option
/// for it, so fio runs with `rados osd op timeout = 2` in its ceph.conf,
/// ferrio with `ferrio_ceph_op_timeout=2` (which sets the same librados
/// setting). On rbd each tool's I/O in flight fails with ETIMEDOUT: the
/// job ends with err=110 (Connection timed out) and exit status 1, long
/// before its 20 s runtime, with the I/O done before the pause reported.
/// On rados the time-out fires in both tools too, but fio's rados engine
/// never reads an operation's result: its timed-out writes count as done
/// and the job runs out its runtime with err=0, where ferrio's ends as on
/// rbd (the same difference as the EFBIG write in
/// rados_engine_issues_what_fio_issues).
#[test]
fn osd_op_timeout_fails_the_io_of_a_paused_osd_as_in_fio() {
    if !common::need::require("ceph", cluster_possible()) {
        return;
    }
    let cluster = Cluster::start_in("ceph-op-timeout", &[]);
    let fio_conf = changed_conf(
        &cluster,
        "op-timeout.conf",
        "[global]",
        "[global]\nrados osd op timeout = 2",
    );
    let body = "direct=1\nrw=randwrite\nbs=4k\niodepth=8\ntime_based\nruntime=20\n";
    // An image for each tool: a client whose I/O timed out may leave the
    // image's exclusive lock held (its release times out too) until its
    // watch expires, which would stall the next tool's writes for that
    // long.
    for image in ["rbd/op-timeout-fio", "rbd/op-timeout-ferrio"] {
        cluster.tool("rbd", &["create", "--size", "64M", image]);
    }
    let fio_job = rbd_job(
        &cluster.dir,
        "rbd-op-timeout-fio.fio",
        &format!("{body}[op-timeout]\nrbdname=op-timeout-fio\n"),
    );
    let ferrio_job = rbd_job(
        &cluster.dir,
        "rbd-op-timeout.fio",
        &format!("{body}ferrio_ceph_op_timeout=2\n[op-timeout]\nrbdname=op-timeout-ferrio\n"),
    );
    for (tool, binary, job, conf) in [
        ("fio", common::fio(), &fio_job, &fio_conf),
        ("ferrio", common::ferrio(), &ferrio_job, &cluster.conf),
    ] {
        let (code, said, job) = run_with_osd_paused(&cluster, tool, binary, job, conf);
        timed_out(tool, code, &said, &job);
    }

    let rados = |name: &str, conf: &Path, extra: &str| {
        let path = cluster.dir.join(name);
        let text = format!(
            "[global]\nioengine=rados\nclientname=admin\npool=rbd\nconf={}\nsize=16m\n\
             {body}{extra}[op-timeout]\n",
            conf.display()
        );
        std::fs::write(&path, text).unwrap();
        path
    };
    let fio_job = rados("rados-op-timeout-fio.fio", &fio_conf, "");
    let ferrio_job = rados(
        "rados-op-timeout.fio",
        &cluster.conf,
        "ferrio_ceph_op_timeout=2\n",
    );
    let (code, said, job) =
        run_with_osd_paused(&cluster, "fio", common::fio(), &fio_job, &fio_conf);
    assert_eq!(code, Some(0), "fio rados: {said}");
    assert_eq!(job["error"], 0, "fio rados: {job}");
    let ran = job["job_runtime"].as_u64().unwrap();
    assert!(ran >= 20_000, "fio rados ran {ran} ms of 20 s");
    let (code, said, job) = run_with_osd_paused(
        &cluster,
        "ferrio",
        common::ferrio(),
        &ferrio_job,
        &cluster.conf,
    );
    timed_out("ferrio rados", code, &said, &job);
}

/// Runs `binary` on `job` (bounded at 120 s) with CEPH_CONF=`conf`, the
/// cluster's OSD paused from 2 s to 10 s into the run; returns the exit
/// status, what it said and its one job's JSON.
fn run_with_osd_paused(
    cluster: &Cluster,
    tool: &str,
    binary: &str,
    job: &Path,
    conf: &Path,
) -> (Option<i32>, String, Value) {
    let start = std::time::Instant::now();
    let run = Command::new("timeout")
        .args([
            "-k",
            "5",
            "120",
            binary,
            "--output-format=json",
            job.to_str().unwrap(),
        ])
        .env("CEPH_CONF", conf)
        .current_dir(&cluster.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The pause comes once the run's writes reach the OSD, not after a
    // fixed time: on a busy machine a tool may take longer than any fixed
    // wait to connect and open the image, and an OSD paused before the
    // first write lands tests something else.
    let base = osd_writes(cluster);
    let flowing = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while osd_writes(cluster) < base + 64 {
        assert!(
            std::time::Instant::now() < flowing,
            "{tool}: no 64 writes reached the OSD within 60 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    {
        let _paused = OsdPaused::new(cluster);
        std::thread::sleep(std::time::Duration::from_secs(8));
    }
    let out = run.wait_with_output().unwrap();
    let took = start.elapsed().as_secs_f64();
    let stdout = text(&out.stdout);
    let said = format!("{stdout}{}", text(&out.stderr));
    let doc: Value = serde_json::from_str(&stdout[stdout.find('{').unwrap_or(0)..])
        .unwrap_or_else(|e| panic!("{tool} JSON: {e}\n{said}"));
    let job = doc["jobs"][0].clone();
    eprintln!(
        "{tool}: exit {:?} after {took:.1} s, job_runtime {} ms, {} writes, err {}",
        out.status.code(),
        job["job_runtime"],
        job["write"]["total_ios"],
        job["error"]
    );
    (out.status.code(), said, job)
}

/// The job ended on the time-out: err=110, exit status 1, the I/O done
/// before the pause reported, well before its 20 s runtime.
fn timed_out(tool: &str, code: Option<i32>, said: &str, job: &Value) {
    assert_eq!(code, Some(1), "{tool}: {said}");
    assert!(said.contains("Connection timed out"), "{tool}: {said}");
    assert_eq!(job["error"], 110, "{tool}: {job}");
    assert!(
        job["write"]["total_ios"].as_u64().unwrap() > 0,
        "{tool}: {job}"
    );
    let ran = job["job_runtime"].as_u64().unwrap();
    assert!(ran < 15_000, "{tool}: ran {ran} ms of 20 s");
}
