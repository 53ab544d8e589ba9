//! What fio 3.33 itself knows of engines, whether ferrio runs them or
//! not: the names it has built in, the aliases it reads, and which refuse
//! offloading. The planner reads these before any engine is chosen, so
//! they name no engine module.

/// Engines that fio 3.33 from Debian has built in; any other `ioengine`
/// value would make fio try to load a plugin, which fails.
pub const FIO_ENGINES: &[&str] = &[
    "cpuio",
    "mmap",
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "null",
    "net",
    "netsplice",
    "ftruncate",
    "filecreate",
    "filestat",
    "filedelete",
    "exec",
    "posixaio",
    "falloc",
    "e4defrag",
    "splice",
    "gfapi",
    "gfapi_async",
    "mtd",
    "sg",
    "io_uring",
    "io_uring_cmd",
    "nbd",
    "libaio",
    "rdma",
    "rados",
    "rbd",
    "pmemblk",
    "dev-dax",
    "libpmem",
];

/// Why ferrio does not run one of fio 3.33's engines (those the engine
/// table lacks), for `--cmdhelp=unsupported`.
pub fn not_run_because(name: &str) -> &'static str {
    match name {
        "sg" => "needs a SCSI generic device (/dev/sg*), absent here",
        "mtd" => "needs an MTD flash device (/dev/mtd*), absent here",
        "rdma" => "needs RDMA hardware (InfiniBand, RoCE) or a soft-RoCE link, absent here",
        "io_uring_cmd" => "needs an NVMe generic character device (/dev/ng*), absent here",
        "dev-dax" => "needs a device-DAX character device (/dev/dax*), absent here",
        "pmemblk" => "removed from fio after 3.33 with the deprecated libpmemblk",
        _ => "not run by ferrio",
    }
}

/// fio's engines that refuse io_submit_mode=offload as they load
/// (FIO_NO_OFFLOAD), before anything else of the job is read.
const FIO_NO_OFFLOAD: &[&str] = &["io_uring", "io_uring_cmd"];

/// Whether fio 3.33 gives up on a run that offloads to this engine.
pub fn fio_refuses_offload(name: &str) -> bool {
    FIO_NO_OFFLOAD.contains(&name)
}

/// The engine an `ioengine` value names: fio reads any name starting
/// with `aio` or `linuxaio` as libaio.
pub fn fio_name(set: &str) -> &str {
    if set.starts_with("aio") || set.starts_with("linuxaio") {
        "libaio"
    } else {
        set
    }
}
