//! The one table of engines: what each one is (fio's engine flags and
//! the few traits of ferrio's runner that differ by engine), how it is
//! made and who decodes its options. Everything that asks what an engine
//! can do asks here, so an engine is added with its file and one line.

use std::io;

use super::api::{Dir, Engine, OptionSource, SetupFailed};
#[cfg(test)]
use super::fio_names::FIO_ENGINES;
use super::{cpuio, e4defrag, exec, falloc, fileops, ftruncate, io_uring, libaio, mmap};
use super::{gfapi, net, posixaio, psync, rados, rbd, splice};
use super::{libpmem, nbd, net_options, null};

/// The options of the job's engine, each engine's of its own type, as
/// its decoder ([`Kind::options`]) read them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EngineOptions {
    /// The engines with no options of their own.
    #[default]
    None,
    Pvsync2(psync::Pvsync2Options),
    Libaio(libaio::LibaioOptions),
    IoUring(io_uring::UringOptions),
    Mmap(mmap::MmapOptions),
    /// rbd: which cluster, pool and image, as whom.
    Rbd(rbd::RbdTarget),
    /// rados: which cluster and pool, as whom, and how objects start.
    Rados(rados::RadosTarget),
    /// cpuio: the load, busy period and way of burning CPU.
    Cpu(cpuio::CpuOptions),
    /// filestat: which stat call is timed.
    Stat(fileops::StatCall),
    /// exec: the program to run, and how.
    Exec(exec::ExecOptions),
    /// net and netsplice: the link's settings.
    Net(net::NetOptions),
    /// gfapi and gfapi_async: which volume, from where.
    Gfapi(gfapi::GfapiOptions),
    /// e4defrag: the donor file and how its blocks are allocated.
    Defrag(e4defrag::DefragOptions),
    /// libpmem: how much of each file to map.
    Pmem(libpmem::PmemOptions),
    /// nbd: the export's URI.
    Nbd(nbd::NbdOptions),
}

/// What an engine is, as bits of [`Kind::caps`].
pub mod caps {
    /// Completes each I/O as it issues it (fio's FIO_SYNCIO).
    pub const SYNC_IO: u32 = 1;
    /// Synchronous at a depth of 1 (or none) only, where fio marks it so
    /// as it sets it up (null).
    pub const SYNC_AT_DEPTH_ONE: u32 = 1 << 1;
    /// Has no files on a disk to lay out or watch (FIO_DISKLESSIO).
    pub const DISKLESS: u32 = 1 << 2;
    /// Moves no data at all: its I/Os have no offset or length, and the
    /// job has no size (FIO_NOIO).
    pub const NO_IO: u32 = 1 << 3;
    /// Only pretends to move data (FIO_FAKEIO): fio passes every verify
    /// check of its, its buffers holding nothing read.
    pub const FAKE_IO: u32 = 1 << 4;
    /// Times no I/O, only its file operations (FIO_NOSTATS).
    pub const NO_STATS: u32 = 1 << 5;
    /// Counts in bits when unit_base leaves it to the engine
    /// (FIO_BIT_BASED).
    pub const BIT_BASED: u32 = 1 << 6;
    /// Reads and writes the job's files (or block devices) through the
    /// kernel's file calls.
    pub const FILE_IO: u32 = 1 << 7;
    /// One of fio's sync family proper (its sync.c): it reports an I/O's
    /// error as it queues it rather than when it is reaped.
    pub const SYNC_FAMILY: u32 = 1 << 8;
    /// Hands trims to the device (BLKDISCARD) in its queue call, and
    /// fio only flags their errors on the I/O (naming td_io_queue).
    pub const TRIMS_IN_QUEUE: u32 = 1 << 9;
    /// Writes a trim's buffer as it writes any other (vsync's writev).
    pub const TRIMS_AS_WRITES: u32 = 1 << 10;
    /// Does its I/O through a memory mapping of each file (mmap): whole
    /// pages, and its trims' errors named `trim`.
    pub const MAPS_FILES: u32 = 1 << 11;
    /// Flags every error on the I/O and returns it done, with no
    /// `io_u error` line (ftruncate, falloc).
    pub const FLAGS_ERRORS: u32 = 1 << 12;
    /// Queues to the kernel's own asynchronous interface (libaio,
    /// io_uring): several I/Os in flight from one thread, each with a
    /// priority of its own where cmdprio asks.
    pub const KERNEL_AIO: u32 = 1 << 13;
    /// Stamps each completion as it reaps it, when it queues.
    pub const STAMPS: u32 = 1 << 14;
    /// May decline new I/O until completions are reaped (FIO_Q_BUSY),
    /// when it queues.
    pub const MAY_BE_BUSY: u32 = 1 << 15;
    /// Its offloaded runs (io_submit_mode=offload) were compared with
    /// fio 3.33's.
    pub const OFFLOADABLE: u32 = 1 << 16;
    /// Makes sync_file_range calls between I/Os as fio does.
    pub const SYNCS_RANGES: u32 = 1 << 17;
    /// Thinks after each I/O by itself, whatever thinktime says (cpuio).
    pub const OWN_THINK_TIME: u32 = 1 << 18;
    /// Creates each file with one I/O of the smallest block size
    /// (filecreate).
    pub const CREATES_FILES: u32 = 1 << 19;
    /// Its one file is an image named after the engine and sized by it
    /// (rbd's image, nbd's export), which the job's setup asks for
    /// ([`Kind::image_size`](super::Kind::image_size)).
    pub const IMAGE: u32 = 1 << 20;
    /// Its files are objects, sized by `size` alone, on no local disk
    /// (rados).
    pub const OBJECTS: u32 = 1 << 21;
    /// Changes its files whatever the direction: creates, deletes or
    /// allocates them (filecreate, filedelete, falloc), so --readonly
    /// refuses it.
    pub const CHANGES_FILES: u32 = 1 << 22;
    /// Its files are files of a store of its own (a GlusterFS volume),
    /// which it opens, sizes and removes itself: no local file of the
    /// same name is laid out, read or removed.
    pub const OWN_STORE: u32 = 1 << 23;
    /// Names a failed read or write itself, as fio's gfapi does: `IO
    /// failed.` on stderr and the error raised in its queue call (its
    /// td_verror at glusterfs_sync.c:76, func xfer), no `io_u error` line.
    pub const NAMES_XFER_ERRORS: u32 = 1 << 24;
    /// Names a periodic sync it refuses in its queue call itself, as
    /// fio's rbd engine does (`xfer`, for fdatasync); elsewhere fio's
    /// queueing names it (td_io_queue).
    pub const NAMES_SYNC_REFUSAL: u32 = 1 << 25;
}

use caps::*;

/// An engine: its fio name, what it is, how it is made and how its
/// options are read from the job.
#[derive(Debug)]
pub struct Kind {
    pub name: &'static str,
    /// Bits of [`caps`].
    pub caps: u32,
    make: fn(usize, &EngineOptions) -> io::Result<Box<dyn Engine>>,
    decode: fn(&OptionSource) -> EngineOptions,
    /// How an IMAGE engine's setup learns the image's size.
    sizer: Option<Sizer>,
}

/// Asks an engine's server for the size of the job's image.
type Sizer = fn(&crate::plan::JobSpec) -> Result<u64, SetupFailed>;

/// The sync family: psync, sync, vsync, pvsync and pvsync2.
const SYNC: u32 = SYNC_IO | FILE_IO | SYNC_FAMILY | OFFLOADABLE | SYNCS_RANGES;
/// The file engines that do one operation per file.
const FILE_OPS: u32 = SYNC_IO | NO_STATS;

/// A table line: an engine with no options of its own (its maker takes
/// only the depth), or one whose decoder's options its maker takes, as
/// the variant of [`EngineOptions`] named.
macro_rules! engine {
    ($name:literal, $caps:expr, $make:path) => {
        Kind {
            name: $name,
            caps: $caps,
            make: |depth, _| $make(depth),
            decode: |_| EngineOptions::None,
            sizer: None,
        }
    };
    ($name:literal, $caps:expr, $make:path, $variant:ident($decode:path)) => {
        Kind {
            name: $name,
            caps: $caps,
            make: |depth, options| match options {
                EngineOptions::$variant(options) => $make(depth, options),
                _ => Err(foreign_options()),
            },
            decode: |source| EngineOptions::$variant($decode(source)),
            sizer: None,
        }
    };
    ($name:literal, $caps:expr, $make:path, $variant:ident($decode:path), sized by $sizer:path) => {
        Kind {
            sizer: Some($sizer),
            ..engine!($name, $caps, $make, $variant($decode))
        }
    };
}

/// Every engine ferrio runs, in the order it lists them.
#[rustfmt::skip]
pub static KINDS: &[Kind] = &[
    engine!("null", DISKLESS | FAKE_IO | SYNC_AT_DEPTH_ONE | STAMPS | MAY_BE_BUSY | OFFLOADABLE, null::make),
    engine!("psync", SYNC | TRIMS_IN_QUEUE, psync::psync),
    engine!("sync", SYNC | TRIMS_IN_QUEUE, psync::sync),
    engine!("vsync", SYNC | TRIMS_AS_WRITES, psync::vsync),
    engine!("pvsync", SYNC | TRIMS_IN_QUEUE, psync::pvsync),
    engine!("pvsync2", SYNC | TRIMS_IN_QUEUE, psync::pvsync2, Pvsync2(psync::pvsync2_options)),
    engine!("libaio", FILE_IO | TRIMS_IN_QUEUE | KERNEL_AIO | STAMPS | OFFLOADABLE | SYNCS_RANGES, libaio::make, Libaio(libaio::options)),
    engine!("io_uring", FILE_IO | TRIMS_IN_QUEUE | KERNEL_AIO | STAMPS, io_uring::make, IoUring(io_uring::options)),
    engine!("mmap", SYNC_IO | FILE_IO | MAPS_FILES | OFFLOADABLE | SYNCS_RANGES, mmap::make, Mmap(mmap::options)),
    engine!("posixaio", FILE_IO | TRIMS_IN_QUEUE | OFFLOADABLE | SYNCS_RANGES, posixaio::make),
    engine!("rbd", IMAGE | NAMES_SYNC_REFUSAL, rbd::make, Rbd(rbd::options), sized by rbd::image_size),
    engine!("rados", OBJECTS, rados::make, Rados(rados::options)),
    engine!("ftruncate", SYNC_IO | FLAGS_ERRORS, ftruncate::make),
    engine!("falloc", SYNC_IO | FLAGS_ERRORS | CHANGES_FILES, falloc::make),
    engine!("filecreate", FILE_OPS | DISKLESS | CREATES_FILES | CHANGES_FILES, fileops::filecreate),
    engine!("filestat", FILE_OPS, fileops::filestat, Stat(fileops::stat_options)),
    engine!("filedelete", FILE_OPS | CHANGES_FILES, fileops::filedelete),
    engine!("cpuio", SYNC_IO | DISKLESS | NO_IO | OWN_THINK_TIME, cpuio::make, Cpu(cpuio::options)),
    engine!("exec", SYNC_IO | DISKLESS | NO_IO, exec::make, Exec(exec::options)),
    engine!("net", SYNC_IO | DISKLESS | BIT_BASED, net_options::make, Net(net_options::net)),
    engine!("netsplice", SYNC_IO | DISKLESS, net_options::make, Net(net_options::netsplice)),
    engine!("splice", SYNC_IO | FILE_IO | SYNCS_RANGES, splice::make),
    engine!("gfapi", SYNC_IO | DISKLESS | OWN_STORE | NAMES_XFER_ERRORS, gfapi::make_sync, Gfapi(gfapi::options)),
    engine!("gfapi_async", DISKLESS | OWN_STORE, gfapi::make_async, Gfapi(gfapi::options)),
    engine!("e4defrag", SYNC_IO | FLAGS_ERRORS, e4defrag::make, Defrag(e4defrag::options)),
    engine!("libpmem", SYNC_IO | DISKLESS, libpmem::make, Pmem(libpmem::options)),
    engine!("nbd", DISKLESS | IMAGE, nbd::make, Nbd(nbd::options), sized by nbd::export_size),
];

/// The engine of this fio name, if ferrio has it.
pub fn kind(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

impl Kind {
    /// Whether it has every one of these [`caps`] bits.
    pub fn has(&self, bits: u32) -> bool {
        self.caps & bits == bits
    }

    /// Whether it completes each I/O as it issues it at this depth
    /// (fio's FIO_SYNCIO as the job's setup leaves it).
    pub fn synchronous(&self, depth: usize) -> bool {
        self.has(SYNC_IO) || (self.has(SYNC_AT_DEPTH_ONE) && depth <= 1)
    }

    /// Whether it stamps its completions as it reaps them at this depth.
    pub fn stamps_completions(&self, depth: usize) -> bool {
        self.has(STAMPS) && !self.synchronous(depth)
    }

    /// Whether it may decline new I/O at this depth (FIO_Q_BUSY).
    pub fn may_be_busy(&self, depth: usize) -> bool {
        self.has(MAY_BE_BUSY) && !self.synchronous(depth)
    }

    /// Whether the job's files are on a local disk: not for diskless
    /// engines, nor rados's objects (an rbd image counts, as in fio).
    pub fn on_disk(&self) -> bool {
        self.caps & (DISKLESS | OBJECTS) == 0
    }

    /// Whether the job lays out files of its own before its I/O (not
    /// diskless engines, nor an rbd image or rados objects).
    pub fn lays_out(&self) -> bool {
        self.caps & (DISKLESS | IMAGE | OBJECTS) == 0
    }

    /// Where fio puts a failed I/O's error when the engine only flags it
    /// on the I/O and returns it as done, with no `io_u error on file`
    /// line: every error of ftruncate, falloc and e4defrag, and the trims
    /// that the sync family, libaio, io_uring and posixaio hand to the
    /// device in their queue call (fio names its queueing, td_io_queue,
    /// with its place in ioengines.c; mmap names the trim). `None` where
    /// fio logs the I/O's error line.
    pub fn unlogged_error_func(&self, dir: Dir) -> Option<&'static str> {
        let trim = dir == Dir::Trim;
        if self.has(FLAGS_ERRORS) || (trim && self.has(TRIMS_IN_QUEUE)) {
            Some(TD_IO_QUEUE)
        } else if trim && self.has(MAPS_FILES) {
            Some("trim")
        } else {
            None
        }
    }

    /// How fio reports a failed read or write where the engine names it
    /// itself: the error's context and the line on stderr (gfapi's).
    pub fn own_error_report(&self, dir: Dir) -> Option<(&'static str, &'static str)> {
        (self.has(NAMES_XFER_ERRORS) && dir != Dir::Trim)
            .then_some(("file:engines/glusterfs_sync.c:76, func=xfer", "IO failed."))
    }

    /// The size of the job's image, as the engine's setup learns it from
    /// its server; `None` for engines without one.
    pub fn image_size(&self, job: &crate::plan::JobSpec) -> Option<Result<u64, SetupFailed>> {
        self.sizer.map(|size| size(job))
    }

    /// The context fio gives a periodic sync the engine refused as it
    /// queued it (fdatasync on rbd or nbd).
    pub fn refused_sync_func(&self) -> &'static str {
        if self.has(NAMES_SYNC_REFUSAL) {
            "xfer"
        } else {
            TD_IO_QUEUE
        }
    }

    /// Makes the engine for a job that keeps up to `depth` I/Os in
    /// flight, with the options its decoder read; an error when the
    /// kernel refuses it (no io_uring, AIO limits).
    pub fn make(&self, depth: usize, options: &EngineOptions) -> io::Result<Box<dyn Engine>> {
        (self.make)(depth, options)
    }

    /// Its options, as the job sets them.
    pub fn options(&self, source: &OptionSource) -> EngineOptions {
        (self.decode)(source)
    }
}

/// fio's context for an error raised in its queueing of an I/O.
pub const TD_IO_QUEUE: &str = "file:ioengines.c:399, func=td_io_queue";

/// What an engine's maker answers when handed another engine's options,
/// which the table's pairing of makers and decoders rules out.
fn foreign_options() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "options of another engine")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the engines `keep` answers yes for, in table order.
    fn named_where(keep: impl Fn(&Kind) -> bool) -> Vec<&'static str> {
        KINDS.iter().filter(|k| keep(k)).map(|k| k.name).collect()
    }

    /// The names of the engines with all of these bits.
    fn with(bits: u32) -> Vec<&'static str> {
        sorted(&named_where(|k| k.has(bits)))
    }

    fn sorted<'a>(names: &[&'a str]) -> Vec<&'a str> {
        let mut names = names.to_vec();
        names.sort_unstable();
        names
    }

    /// The lists the table replaced, as they stood, each against the
    /// query that now answers it.
    #[test]
    fn table_answers_as_the_lists_it_replaced() {
        let sync_family = ["psync", "sync", "vsync", "pvsync", "pvsync2"];
        // fio's FIO_SYNCIO set (null only at a depth of 1).
        let fio_syncio = [
            "psync",
            "sync",
            "vsync",
            "pvsync",
            "pvsync2",
            "mmap",
            "splice",
            "net",
            "netsplice",
            "cpuio",
            "exec",
            "ftruncate",
            "falloc",
            "filecreate",
            "filestat",
            "filedelete",
            "gfapi",
            "e4defrag",
            "libpmem",
        ];
        let at = |depth| -> Vec<&str> {
            let mut v: Vec<_> = KINDS
                .iter()
                .filter(|k| k.synchronous(depth))
                .map(|k| k.name)
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(at(2), sorted(&fio_syncio));
        let mut with_null = fio_syncio.to_vec();
        with_null.push("null");
        assert_eq!(at(1), sorted(&with_null));
        // fio's FIO_DISKLESSIO engines.
        let diskless = [
            "null",
            "cpuio",
            "exec",
            "filecreate",
            "net",
            "netsplice",
            "gfapi",
            "gfapi_async",
            "libpmem",
            "nbd",
        ];
        assert_eq!(with(DISKLESS), sorted(&diskless));
        assert_eq!(with(FAKE_IO), ["null"]);
        assert_eq!(with(NO_IO), sorted(&["cpuio", "exec"]));
        assert_eq!(
            with(NO_STATS),
            sorted(&["filecreate", "filestat", "filedelete"])
        );
        assert_eq!(with(SYNC_FAMILY), sorted(&sync_family));
        // block_errors' engines whose trims go to BLKDISCARD.
        let discard: Vec<_> = with(TRIMS_IN_QUEUE)
            .into_iter()
            .chain(with(TRIMS_AS_WRITES))
            .collect();
        assert_eq!(
            sorted(&discard),
            sorted(&[
                "psync", "sync", "pvsync", "pvsync2", "vsync", "libaio", "io_uring", "posixaio"
            ])
        );
        // zbd's engines on files, and its synchronous ones.
        let on_files: Vec<_> = with(FILE_IO).into_iter().chain(with(FAKE_IO)).collect();
        assert_eq!(
            sorted(&on_files),
            sorted(&[
                "null", "psync", "sync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring",
                "mmap", "posixaio", "splice",
            ])
        );
        let file_sync = [
            "psync", "sync", "vsync", "pvsync", "pvsync2", "mmap", "splice",
        ];
        assert_eq!(with(FILE_IO | SYNC_IO), sorted(&file_sync));
        assert_eq!(
            with(SYNCS_RANGES),
            sorted(&[
                "sync", "psync", "vsync", "pvsync", "pvsync2", "splice", "libaio", "mmap",
                "posixaio",
            ])
        );
        let offloadable = named_where(|k| k.has(OFFLOADABLE));
        assert_eq!(
            offloadable,
            [
                "null", "psync", "sync", "vsync", "pvsync", "pvsync2", "libaio", "mmap", "posixaio"
            ]
        );
        assert_eq!(with(KERNEL_AIO), sorted(&["libaio", "io_uring"]));
        assert_eq!(with(BIT_BASED), ["net"]);
        assert_eq!(with(OWN_THINK_TIME), ["cpuio"]);
        assert_eq!(with(CREATES_FILES), ["filecreate"]);
        assert_eq!(with(TRIMS_AS_WRITES), ["vsync"]);
        assert_eq!(with(MAPS_FILES), ["mmap"]);
        assert_eq!(with(IMAGE), ["nbd", "rbd"]);
        assert_eq!(with(NAMES_SYNC_REFUSAL), ["rbd"]);
        let sized = named_where(|k| k.sizer.is_some());
        assert_eq!(sorted(&sized), with(IMAGE));
        assert_eq!(with(OBJECTS), ["rados"]);
        assert_eq!(with(OWN_STORE), ["gfapi", "gfapi_async"]);
        // The diskless engines, an rbd image and rados objects.
        let lays_out_nothing = sorted(&[&diskless[..], &["rbd", "rados"]].concat());
        assert_eq!(sorted(&named_where(|k| !k.lays_out())), lays_out_nothing);
        // The engines off disk are those that lay out nothing, but rbd.
        let off_disk: Vec<_> = lays_out_nothing
            .into_iter()
            .filter(|&n| n != "rbd")
            .collect();
        assert_eq!(sorted(&named_where(|k| !k.on_disk())), off_disk);
        let busy = |depth| -> Vec<&str> {
            let names = KINDS.iter().filter(|k| k.may_be_busy(depth));
            names.map(|k| k.name).collect()
        };
        assert_eq!((busy(1), busy(2)), (vec![], vec!["null"]));
        let stamps = |depth| {
            with(0)
                .into_iter()
                .filter(move |n| kind(n).unwrap().stamps_completions(depth))
        };
        assert_eq!(
            stamps(1).collect::<Vec<_>>(),
            sorted(&["libaio", "io_uring"])
        );
        assert_eq!(
            stamps(2).collect::<Vec<_>>(),
            sorted(&["libaio", "io_uring", "null"])
        );
    }

    #[test]
    fn unlogged_errors_are_named_as_before() {
        let func = |name, dir| kind(name).unwrap().unlogged_error_func(dir);
        for name in ["ftruncate", "falloc", "e4defrag"] {
            for dir in [Dir::Read, Dir::Write, Dir::Trim] {
                assert_eq!(func(name, dir), Some(TD_IO_QUEUE), "{name}");
            }
        }
        for name in [
            "sync", "psync", "pvsync", "pvsync2", "libaio", "io_uring", "posixaio",
        ] {
            assert_eq!(func(name, Dir::Trim), Some(TD_IO_QUEUE), "{name}");
            assert_eq!(func(name, Dir::Write), None, "{name}");
        }
        assert_eq!(func("mmap", Dir::Trim), Some("trim"));
        assert_eq!(func("mmap", Dir::Read), None);
        for k in KINDS
            .iter()
            .filter(|k| k.caps & (FLAGS_ERRORS | TRIMS_IN_QUEUE | MAPS_FILES) == 0)
        {
            assert_eq!(k.unlogged_error_func(Dir::Trim), None, "{}", k.name);
        }
    }

    /// Each maker takes the options its decoder reads (the Ceph engines,
    /// which would reach for a cluster, aside).
    #[test]
    fn makers_take_their_decoders_options() {
        for k in KINDS.iter().filter(|k| k.caps & (IMAGE | OBJECTS) == 0) {
            let text = format!("[a]\nioengine={}\nfilename=/dev/null\n", k.name);
            let plan = crate::plan::plan_for_test(&text, &[], &[], false).unwrap();
            let job = plan.jobs().next().unwrap();
            let options = k.options(&OptionSource {
                job,
                reads: true,
                writes: false,
                random: false,
                size: 4096,
                direct: false,
                default_ioprio: 0,
            });
            if let Err(e) = k.make(1, &options) {
                assert_ne!(e.to_string(), foreign_options().to_string(), "{}", k.name);
            }
        }
    }

    /// Every engine is one of fio 3.33's built-in ones, and named once.
    #[test]
    fn every_engine_is_fios_and_named_once() {
        for (i, k) in KINDS.iter().enumerate() {
            assert!(FIO_ENGINES.contains(&k.name), "{}", k.name);
            assert!(KINDS[..i].iter().all(|o| o.name != k.name), "{}", k.name);
        }
    }
}
