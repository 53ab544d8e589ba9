//! The option table: one entry for every job option fio 3.33 accepts on
//! Linux, followed by the private options of the I/O engines ferrio knows.
//!
//! Names, aliases, defaults, ranges and value words match fio exactly so
//! that fio job files mean the same thing here; the help texts are our own.
//! Generic options keep the order of fio's own table. Engine options
//! come last, each naming every engine that accepts it; a name shared by
//! several engines with the same meaning is listed once.

use super::def::{Category::*, Check, Kind::*, OptDef, w};

pub static OPTIONS: &[OptDef] = &[
    OptDef::new(
        "description",
        Text(&[]),
        Description,
        "Free-form text describing the job, printed in the output",
    )
    .runs(),
    OptDef::new(
        "name",
        Text(&[]),
        Description,
        "Job name used in the output; on the command line it also starts a new job",
    )
    .runs(),
    OptDef::new(
        "wait_for",
        Text(&[]),
        Process,
        "Hold this job back until the named job has finished",
    )
    .runs(),
    OptDef::new(
        "filename",
        Text(&[]),
        Files,
        "File or device to do I/O on; separate several with ':'",
    )
    .runs()
    .prio(-1)
    .check(Check::FileNames),
    OptDef::new(
        "directory",
        Text(&[]),
        Files,
        "Directory in which the job's files are created (':' separates several)",
    )
    .runs(),
    OptDef::new(
        "filename_format",
        Text(&[]),
        Files,
        "Template for generated file names ($jobname, $jobnum, $filenum, $clientuid)",
    )
    .def("$jobname.$jobnum.$filenum")
    .runs()
    .prio(-1),
    OptDef::new(
        "unique_filename",
        Bool,
        Files,
        "As a network client, prefix file names with the client's address",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "lockfile",
        Choice(&[
            w("none", "Do not lock"),
            w("exclusive", "Only one I/O at a time may hold the file"),
            w("readwrite", "Reads share the lock, writes hold it alone"),
        ]),
        Files,
        "Lock each file around every I/O, and how",
    )
    .def("none")
    .runs()
    .prio(1)
    .parent("filename"),
    OptDef::new(
        "opendir",
        Text(&[]),
        Files,
        "Add every file found below this directory, recursively, to the job",
    )
    .runs(),
    OptDef::new(
        "rw",
        Choice(&[
            w("read", "Read front to back"),
            w("write", "Write front to back"),
            w("trim", "Discard front to back"),
            w("randread", "Read at random offsets"),
            w("randwrite", "Write at random offsets"),
            w("randtrim", "Discard at random offsets"),
            w(
                "rw",
                "Reads and writes interleaved, front to back (ratio: rwmixread)",
            ),
            w("readwrite", "Same as rw"),
            w(
                "randrw",
                "Reads and writes interleaved at random offsets (ratio: rwmixread)",
            ),
            w("trimwrite", "Sequentially trim each block, then write it"),
            w(
                "randtrimwrite",
                "At random offsets, trim each block, then write it",
            ),
        ]),
        IoType,
        "Direction and pattern of the I/O: sequential or random reads, writes, trims or a mix",
    )
    .runs()
    .alias(&["readwrite"])
    .def("read")
    .check(Check::RwMode),
    OptDef::new(
        "rw_sequencer",
        Choice(&[
            w(
                "sequential",
                "Advance sequentially from the last new offset",
            ),
            w("identical", "Reuse the last new offset"),
        ]),
        IoType,
        "How offsets are produced between the new ones requested by an rw ':N' suffix",
    )
    .runs()
    .def("sequential"),
    OptDef::new(
        "ioengine",
        Text(&[
            w("sync", "read(2)/write(2) after lseek(2)"),
            w("psync", "pread(2)/pwrite(2) at explicit offsets"),
            w("vsync", "readv(2)/writev(2), merging adjacent I/Os"),
            w("pvsync", "Vectored positional calls preadv(2)/pwritev(2)"),
            w("pvsync2", "preadv2(2)/pwritev2(2) with per-I/O flags"),
            w("libaio", "Linux kernel AIO (io_submit)"),
            w("io_uring", "Linux io_uring submission/completion rings"),
            w("posixaio", "POSIX aio_read/aio_write"),
            w("rbd", "Ceph RBD images through librbd"),
            w("mmap", "Copy data to and from a memory-mapped file"),
            w("splice", "Move data with splice(2)/vmsplice(2)"),
            w("netsplice", "Network transfer using splice(2)"),
            w("sg", "SCSI generic passthrough (SG_IO)"),
            w("null", "Completes I/O at once without moving data"),
            w("net", "Transfer over TCP, UDP or unix sockets"),
            w("cpuio", "Keeps CPUs busy instead of doing I/O"),
            w("rdma", "RDMA verbs transfer"),
            w(
                "e4defrag",
                "ext4 online defragmentation (EXT4_IOC_MOVE_EXT)",
            ),
            w("falloc", "Each I/O is a fallocate(2) call"),
            w("gfapi", "GlusterFS via libgfapi, synchronous"),
            w("gfapi_async", "GlusterFS via libgfapi, asynchronous"),
            w("pmemblk", "Persistent memory via libpmemblk"),
            w("dev-dax", "Persistent memory via a device-DAX node"),
            w("filecreate", "Times file creation"),
            w(
                "external",
                "Engine loaded from a shared object: external:/path/engine.so",
            ),
            w("libpmem", "Persistent memory via libpmem"),
            w("nbd", "NBD export through libnbd"),
        ]),
        Ioengine,
        "Back end that issues the I/O, e.g. psync, libaio, io_uring, or external:path",
    )
    .runs()
    .def("psync")
    .check(Check::Engine),
    OptDef::new(
        "iodepth",
        Int,
        Io,
        "How many I/Os to keep in flight at once",
    )
    .runs()
    .def("1")
    .min(1),
    OptDef::new(
        "iodepth_batch",
        Int,
        Io,
        "How many queued I/Os to hand to the engine in one submit call",
    )
    .runs()
    .alias(&["iodepth_batch_submit"])
    .def("1")
    .parent("iodepth"),
    OptDef::new(
        "iodepth_batch_complete_min",
        Int,
        Io,
        "Fewest completions to wait for in one reap call (0 only polls)",
    )
    .runs()
    .alias(&["iodepth_batch_complete"])
    .def("1")
    .parent("iodepth"),
    OptDef::new(
        "iodepth_batch_complete_max",
        Int,
        Io,
        "Most completions to collect in one reap call",
    )
    .runs()
    .parent("iodepth"),
    OptDef::new(
        "iodepth_low",
        Int,
        Io,
        "Once the queue is full, let it drain to this depth before refilling",
    )
    .runs()
    .parent("iodepth"),
    OptDef::new(
        "serialize_overlap",
        Bool,
        Io,
        "Delay an I/O that overlaps one still in flight until that one completes",
    )
    .def("0")
    .runs()
    .parent("iodepth"),
    // offload runs as fio's does when it finishes (see `run::offload`).
    OptDef::new(
        "io_submit_mode",
        Choice(&[
            w("inline", "The job thread submits and reaps its own I/O"),
            w("offload", "Helper threads submit and reap for the job"),
        ]),
        Io,
        "Whether the job thread submits its own I/O or hands it to helper threads",
    )
    .def("inline")
    .runs(),
    OptDef::new(
        "size",
        Size,
        Io,
        "Amount of data the job covers: bytes, a % of the file/device, or zones",
    )
    .runs()
    .str_val()
    .check(Check::Zone)
    .each_piece(),
    OptDef::new(
        "io_size",
        Size,
        Io,
        "Total bytes to transfer when it differs from size (wraps around the region)",
    )
    .runs()
    .str_val()
    .alias(&["io_limit"])
    .check(Check::Zone)
    .each_piece()
    .shares_to_100(),
    OptDef::new(
        "fill_device",
        Bool,
        Files,
        "Keep writing until the device or filesystem is full (ENOSPC)",
    )
    .runs()
    .alias(&["fill_fs"])
    .def("0"),
    OptDef::new(
        "filesize",
        Size,
        Files,
        "Size of each file, or a lo-hi range to pick each file's size from",
    )
    .runs()
    .str_val()
    .min(1)
    .per_dir(2),
    OptDef::new(
        "file_append",
        Bool,
        Files,
        "Begin I/O at the current end of each file, so writes extend it",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "offset",
        Size,
        Io,
        "Where in the file or device I/O begins: bytes, % or zones",
    )
    .runs()
    .str_val()
    .alias(&["fileoffset"])
    .def("0")
    .check(Check::Zone)
    .each_piece(),
    OptDef::new(
        "offset_align",
        Int,
        Io,
        "Alignment applied to an offset given as a percentage",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "offset_increment",
        Size,
        Io,
        "Added to offset once per job clone, so clones work on separate regions",
    )
    .runs()
    .str_val()
    .def("0")
    .parent("offset")
    .check(Check::Zone)
    .each_piece(),
    OptDef::new(
        "number_ios",
        Size,
        Io,
        "End the job after this many I/Os even if size has not been reached",
    )
    .runs()
    .str_val()
    .def("0"),
    OptDef::new(
        "bs",
        Size,
        BlockSize,
        "Size of each I/O; read,write,trim values may be given separately",
    )
    .runs()
    .alias(&["blocksize"])
    .def("4096")
    .min(1)
    .parent("rw")
    .per_dir(3),
    OptDef::new(
        "ba",
        Size,
        BlockSize,
        "Alignment of random I/O offsets (defaults to the block size)",
    )
    .runs()
    .alias(&["blockalign"])
    .min(1)
    .parent("rw")
    .per_dir(3),
    OptDef::new(
        "bsrange",
        Range,
        BlockSize,
        "lo-hi range from which each I/O's size is drawn at random",
    )
    .runs()
    .alias(&["blocksize_range"])
    .min(1)
    .parent("rw")
    .per_dir(3),
    OptDef::new(
        "bssplit",
        Choice(&[]),
        BlockSize,
        "Weighted mix of block sizes such as 4k/60:64k/40, per direction",
    )
    .runs()
    .parent("rw")
    .check(Check::BsSplit),
    OptDef::new(
        "bs_unaligned",
        Flag,
        BlockSize,
        "Let sizes drawn from a range or split be non-multiples of the sector size",
    )
    .runs()
    .alias(&["blocksize_unaligned"])
    .parent("rw"),
    OptDef::new(
        "bs_is_seq_rand",
        Bool,
        BlockSize,
        "Read the bs pair as sequential,random sizes instead of read,write",
    )
    .def("0")
    .runs()
    .parent("blocksize"),
    OptDef::new(
        "randrepeat",
        Bool,
        Random,
        "Seed the offset generator the same way every run so the pattern repeats",
    )
    .runs()
    .def("1")
    .parent("rw"),
    OptDef::new(
        "randseed",
        Size,
        Random,
        "Seed value for the random generators",
    )
    .runs()
    .str_val()
    .def("0x89")
    .parent("rw"),
    OptDef::new(
        "norandommap",
        Flag,
        Random,
        "Choose random offsets without tracking coverage; blocks may repeat or be skipped",
    )
    .runs()
    .parent("rw"),
    OptDef::new(
        "softrandommap",
        Bool,
        Random,
        "Carry on without a random map if it cannot be allocated",
    )
    .runs()
    .def("0")
    .parent("norandommap"),
    OptDef::new(
        "random_generator",
        Choice(&[
            w(
                "tausworthe",
                "Tausworthe generator, good statistical quality",
            ),
            w(
                "lfsr",
                "Linear feedback shift register; hits each block once, no map needed",
            ),
            w("tausworthe64", "64-bit Tausworthe, for very large targets"),
        ]),
        Random,
        "Pseudo-random generator used for offsets",
    )
    .runs()
    .def("tausworthe"),
    OptDef::new(
        "random_distribution",
        Choice(&[
            w("random", "Uniform over the whole range"),
            w("zipf", "Zipf, skew given by theta"),
            w("pareto", "Pareto, skew given by its power"),
            w("normal", "Gaussian, spread given as a %"),
            w("zoned", "Given % of accesses to given % of the range"),
            w("zoned_abs", "Given % of accesses to ranges given in bytes"),
        ]),
        Random,
        "Distribution of random offsets, with its parameters after ':'",
    )
    .runs()
    .def("random")
    .check(Check::Distribution),
    OptDef::new(
        "percentage_random",
        Int,
        Random,
        "Share of I/Os that are random (rest sequential), per direction",
    )
    .runs()
    .def("100,100,100")
    .max(100)
    .per_dir(3),
    OptDef::new(
        "percentage_sequential",
        Deprecated,
        Random,
        "Removed in fio; set percentage_random instead",
    ),
    OptDef::new(
        "allrandrepeat",
        Bool,
        Random,
        "Seed every random generator of the job, not only offsets, reproducibly",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "nrfiles",
        Int,
        Files,
        "Number of files the job's I/O is spread over",
    )
    .runs()
    .alias(&["nr_files"])
    .def("1"),
    OptDef::new(
        "openfiles",
        Int,
        Files,
        "Cap on how many of the job's files may be open simultaneously",
    )
    .runs(),
    OptDef::new(
        "file_service_type",
        Choice(&[
            w("random", "Uniformly random file"),
            w("zipf", "Zipf-weighted file choice"),
            w("pareto", "Pareto-weighted file choice"),
            w("normal", "Gaussian-weighted file choice"),
            w("gauss", "Same as normal"),
            w("roundrobin", "Each file in turn"),
            w(
                "sequential",
                "Stay on one file until it is done, then the next",
            ),
        ]),
        Files,
        "How the next file is picked; a ':N' tail sets I/Os per pick",
    )
    .runs()
    .def("roundrobin")
    .parent("nrfiles"),
    OptDef::new(
        "fallocate",
        Choice(&[
            w("none", "Reserve no space"),
            w("native", "Platform's fallocate, quietly none if missing"),
            w("posix", "Reserve with posix_fallocate(3)"),
            w(
                "keep",
                "Reserve blocks but keep the size (FALLOC_FL_KEEP_SIZE)",
            ),
            w("truncate", "Only set the final size with ftruncate(2)"),
            w("0", "Old spelling of none"),
            w("1", "Old spelling of posix"),
        ]),
        Files,
        "How space is reserved when the job's files are laid out",
    )
    .runs()
    .def("native"),
    OptDef::new(
        "fadvise_hint",
        Choice(&[
            w("0", "Give no advice"),
            w("1", "Advice matching the job's own pattern"),
            w("random", "Always advise random access"),
            w("sequential", "Always advise sequential access"),
        ]),
        Files,
        "Access-pattern advice passed to the kernel with posix_fadvise",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "fsync",
        Int,
        Files,
        "Call fsync after this many writes (0 disables)",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "fdatasync",
        Int,
        Files,
        "Call fdatasync after this many writes (0 disables)",
    )
    .runs()
    .def("0"),
    // fio 3.33 marks every Nth write with a barrier flag only on engines
    // that declare barrier support (libpmem alone), and no engine ever
    // reads the flag: the option changes nothing fio does. ferrio runs it
    // with the same (no) effect; sysopts_vs_fio checks I/O counts and
    // syscalls with and without it.
    OptDef::new(
        "write_barrier",
        Int,
        IoType,
        "Turn each Nth write into a barrier write; 0 turns this off",
    )
    .def("0")
    .runs(),
    OptDef::new(
        "sync_file_range",
        Choice(&[
            w(
                "wait_before",
                "Wait for writeback already in progress first",
            ),
            w("write", "Start writeback of dirty pages in the range"),
            w("wait_after", "Wait until the writeback has finished"),
        ]),
        Files,
        "Call sync_file_range with these flags every N writes, e.g. wait_before,write:8",
    )
    .runs(),
    OptDef::new(
        "direct",
        Bool,
        IoType,
        "Open files with O_DIRECT so I/O bypasses the page cache",
    )
    .runs()
    .def("0"),
    // fio 3.33 sets direct for it and opens files with O_DIRECT plus its
    // O_ATOMIC bit, which Linux ignores (see `engine::OpenMode::atomic`).
    OptDef::new(
        "atomic",
        Bool,
        IoType,
        "Ask for atomic direct writes where the platform offers them (implies direct)",
    )
    .def("0")
    .runs(),
    OptDef::new(
        "buffered",
        Bool,
        IoType,
        "Do I/O through the page cache; the reverse of direct",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "overwrite",
        Bool,
        Files,
        "Lay the files out fully first so writes replace existing blocks",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "loops",
        Int,
        Timing,
        "Run the whole workload this many times",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "numjobs",
        Int,
        Process,
        "Start this many identical clones of the job",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "startdelay",
        Time,
        Timing,
        "Wait this long before the job starts; lo-hi picks a random delay",
    )
    .runs()
    .def("0")
    .seconds()
    .per_dir(2),
    OptDef::new(
        "runtime",
        Time,
        Timing,
        "Upper limit on how long the job runs (seconds without a unit)",
    )
    .runs()
    .alias(&["timeout"])
    .def("0")
    .seconds(),
    OptDef::new(
        "time_based",
        Flag,
        Timing,
        "Run for the whole runtime, repeating the workload if it ends early",
    )
    .runs(),
    OptDef::new(
        "verify_only",
        Flag,
        Verify,
        "Do no writes; only check data a previous run wrote",
    )
    .runs(),
    OptDef::new(
        "ramp_time",
        Time,
        Timing,
        "Run this long before statistics start to count",
    )
    .runs()
    .seconds(),
    OptDef::new(
        "clocksource",
        Choice(&[
            w("gettimeofday", "The gettimeofday(2) system call"),
            w("clock_gettime", "The clock_gettime(2) system call"),
            w("cpu", "The CPU's cycle counter, where reliable"),
        ]),
        Timing,
        "Clock used to take timestamps",
    )
    .runs(),
    OptDef::new(
        "mem",
        Choice(&[
            w("malloc", "Ordinary heap memory"),
            w("shm", "System V shared memory"),
            w("shmhuge", "System V shared memory on huge pages"),
            w("mmap", "Anonymous mapping, or a file given as mmap:path"),
            w("mmapshared", "Shared (MAP_SHARED) mapping"),
            w("mmaphuge", "Mapping backed by huge pages"),
        ]),
        Buffers,
        "How I/O buffer memory is obtained",
    )
    .runs()
    .alias(&["iomem"])
    .def("malloc"),
    OptDef::new(
        "iomem_align",
        Int,
        Buffers,
        "Memory alignment of the I/O buffers",
    )
    .runs()
    .alias(&["mem_align"])
    .def("0")
    .parent("iomem"),
    OptDef::new(
        "verify",
        Choice(&[
            w("0", "Do not verify"),
            w("md5", "MD5 digest"),
            w("crc64", "CRC-64"),
            w("crc32", "CRC-32"),
            w("crc32c-intel", "CRC-32C, same as crc32c"),
            w("crc32c", "CRC-32C, hardware assisted when possible"),
            w("crc16", "CRC-16"),
            w("crc7", "CRC-7"),
            w("sha1", "SHA-1 digest"),
            w("sha256", "SHA-256 digest"),
            w("sha512", "SHA-512 digest"),
            w("sha3-224", "SHA3-224 digest"),
            w("sha3-256", "SHA3-256 digest"),
            w("sha3-384", "SHA3-384 digest"),
            w("sha3-512", "SHA3-512 digest"),
            w("xxhash", "xxHash checksum"),
            w("meta", "Obsolete: header fields are always checked now"),
            w("pattern", "Only compare against verify_pattern"),
            w(
                "null",
                "Run the verify pass without checking (overhead test)",
            ),
        ]),
        Verify,
        "Checksum or pattern used to check written data",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "do_verify",
        Bool,
        Verify,
        "Run the verify pass after writing when verify is set",
    )
    .runs()
    .def("1")
    .parent("verify"),
    // fio warns that these three are deprecated and runs the job as if
    // they were absent; so does ferrio.
    OptDef::new("verifysort", SoftDeprecated, Verify, "Obsolete and ignored").runs(),
    OptDef::new(
        "verifysort_nr",
        SoftDeprecated,
        Verify,
        "Obsolete and ignored",
    )
    .runs(),
    OptDef::new(
        "verify_interval",
        Int,
        Verify,
        "Place a verify header every this many bytes (default: the block size)",
    )
    .runs()
    .min(80)
    .parent("verify"),
    OptDef::new(
        "verify_offset",
        Int,
        Verify,
        "Move the verify header to this byte offset in the block",
    )
    .runs()
    .min(40)
    .parent("verify"),
    OptDef::new(
        "verify_pattern",
        Choice(&[]),
        Verify,
        "Pattern written and then checked: hex, quoted text, %o, or a mix",
    )
    .runs()
    .parent("verify")
    .check(Check::Pattern),
    OptDef::new(
        "verify_fatal",
        Bool,
        Verify,
        "End the job at the first verify mismatch",
    )
    .runs()
    .def("0")
    .parent("verify"),
    OptDef::new(
        "verify_dump",
        Bool,
        Verify,
        "On a mismatch, save the expected and read blocks to files",
    )
    .def("0")
    .parent("verify")
    .runs(),
    OptDef::new(
        "verify_async",
        Int,
        Verify,
        "Number of helper threads that check completed reads",
    )
    .runs()
    .def("0")
    .parent("verify"),
    OptDef::new(
        "verify_backlog",
        Size,
        Verify,
        "Check written blocks each time this many have been written",
    )
    .runs()
    .str_val()
    .parent("verify"),
    OptDef::new(
        "verify_backlog_batch",
        Int,
        Verify,
        "How many blocks to check each time the backlog is worked off",
    )
    .runs()
    .parent("verify"),
    OptDef::new(
        "verify_async_cpus",
        Choice(&[]),
        Verify,
        "CPUs the verify helper threads may run on",
    )
    .runs()
    .parent("verify_async")
    .check(Check::CpuList),
    OptDef::new(
        "experimental_verify",
        Bool,
        Verify,
        "Verify by replaying the offset sequence instead of logging each write",
    )
    .runs()
    .parent("verify"),
    OptDef::new(
        "verify_state_load",
        Bool,
        Verify,
        "Resume from the verify state saved by an interrupted run",
    )
    .runs()
    .parent("verify"),
    OptDef::new(
        "verify_state_save",
        Bool,
        Verify,
        "Save verify state on exit so a later run can check the data",
    )
    .def("1")
    .runs()
    .parent("verify"),
    OptDef::new(
        "trim_percentage",
        Int,
        Verify,
        "Percentage of verified blocks that also get trimmed",
    )
    .def("0")
    .max(100)
    .parent("verify")
    .runs(),
    OptDef::new(
        "trim_verify_zero",
        Bool,
        Verify,
        "Expect trimmed blocks to read back as zeroes",
    )
    .def("1")
    .parent("trim_percentage")
    .runs(),
    OptDef::new(
        "trim_backlog",
        Size,
        Verify,
        "Trim blocks each time this many have been written",
    )
    .str_val()
    .parent("trim_percentage")
    .runs(),
    OptDef::new(
        "trim_backlog_batch",
        Int,
        Verify,
        "How many blocks to trim each time the backlog is worked off",
    )
    .parent("trim_percentage")
    .runs(),
    OptDef::new(
        "write_iolog",
        Text(&[]),
        Logging,
        "Record every I/O the job issues to this file, for replay",
    )
    .runs(),
    OptDef::new(
        "read_iolog",
        Text(&[]),
        Io,
        "Replay the I/O recorded in this iolog or blktrace file",
    )
    .runs(),
    OptDef::new(
        "read_iolog_chunked",
        Bool,
        Io,
        "Read the replay file in pieces instead of loading it whole",
    )
    .def("0")
    .parent("read_iolog")
    .runs(),
    OptDef::new(
        "replay_no_stall",
        Bool,
        Io,
        "Replay as fast as possible instead of keeping recorded timing",
    )
    .def("0")
    .parent("read_iolog")
    .runs(),
    OptDef::new(
        "replay_redirect",
        Text(&[]),
        Io,
        "Send all replayed I/O to this device, whatever the trace says",
    )
    .parent("read_iolog")
    .runs(),
    OptDef::new(
        "replay_scale",
        Int,
        Io,
        "Divide replayed offsets by this factor",
    )
    .def("1")
    .parent("read_iolog")
    .runs(),
    OptDef::new(
        "replay_align",
        Int,
        Io,
        "Round replayed offsets down to this power-of-two boundary",
    )
    .pow2()
    .parent("read_iolog")
    .runs(),
    OptDef::new(
        "replay_time_scale",
        Int,
        Io,
        "Replay timing as a percentage of the recorded one (100 = unchanged)",
    )
    .def("100")
    .min(1)
    .parent("read_iolog")
    .runs(),
    OptDef::new(
        "replay_skip",
        Choice(&[]),
        Io,
        "I/O types left out of the replay: read, write, trim, sync",
    )
    .parent("read_iolog")
    .runs(),
    OptDef::new(
        "merge_blktrace_file",
        Text(&[]),
        Io,
        "File that receives the merge of several blktrace inputs",
    )
    .runs(),
    OptDef::new(
        "merge_blktrace_scalars",
        FloatList {
            max_len: 20,
            min: 0.0,
            max: 0.0,
        },
        Io,
        "Time scaling percentage for each merged blktrace",
    )
    .runs(),
    OptDef::new(
        "merge_blktrace_iters",
        FloatList {
            max_len: 20,
            min: 0.0,
            max: 0.0,
        },
        Io,
        "How many times each merged blktrace is repeated",
    )
    .runs(),
    OptDef::new(
        "exec_prerun",
        Text(&[]),
        Process,
        "Shell command run before the job starts",
    )
    .runs(),
    OptDef::new(
        "exec_postrun",
        Text(&[]),
        Process,
        "Shell command run after the job ends",
    )
    .runs(),
    // Switched through sysfs as fio does (see `sys::iosched`).
    OptDef::new(
        "ioscheduler",
        Text(&[]),
        Files,
        "Switch the target device to this block I/O scheduler first",
    )
    .runs(),
    OptDef::new(
        "zonemode",
        Choice(&[
            w("none", "Treat the target as one region"),
            w(
                "strided",
                "Step through fixed zones set by zonesize, zonerange, zoneskip",
            ),
            w(
                "zbd",
                "Zoned block device: follow write pointers and zone states",
            ),
        ]),
        Zones,
        "How the target is divided into zones",
    )
    .runs()
    .def("none"),
    OptDef::new(
        "zonesize",
        Size,
        Zones,
        "Bytes of I/O done in each zone (for zbd: the zone size)",
    )
    .runs()
    .str_val()
    .def("0"),
    OptDef::new(
        "zonecapacity",
        Size,
        Zones,
        "Usable bytes per zone when below the zone size",
    )
    .runs()
    .str_val()
    .def("0"),
    OptDef::new(
        "zonerange",
        Size,
        Zones,
        "Size of the region each zone spans",
    )
    .runs()
    .str_val()
    .def("0"),
    OptDef::new(
        "zoneskip",
        Size,
        Zones,
        "Bytes skipped once a zone is done; a z suffix counts zones",
    )
    .runs()
    .str_val()
    .def("0")
    .check(Check::Zone)
    .each_piece(),
    OptDef::new(
        "read_beyond_wp",
        Bool,
        Zones,
        "With zonemode=zbd, let reads go past a zone's write pointer",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "max_open_zones",
        Int,
        Zones,
        "Cap on zones open for writing at once across all jobs (zbd)",
    )
    .runs()
    .def("0")
    .max(4096),
    OptDef::new(
        "job_max_open_zones",
        Int,
        Zones,
        "Cap on zones this job keeps open for writing at once (zbd)",
    )
    .runs()
    .def("0")
    .max(4096),
    OptDef::new(
        "ignore_zone_limits",
        Bool,
        Zones,
        "Disregard the open and active zone limits the device reports",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "zone_reset_threshold",
        FloatList {
            max_len: 1,
            min: 0.0,
            max: 1.0,
        },
        Zones,
        "Written fraction (0-1) of the I/O range above which zones get reset",
    )
    .runs(),
    OptDef::new(
        "zone_reset_frequency",
        FloatList {
            max_len: 1,
            min: 0.0,
            max: 1.0,
        },
        Zones,
        "Past the threshold, reset a zone once every 1/value writes (0-1)",
    )
    .runs(),
    OptDef::new(
        "lockmem",
        Size,
        Buffers,
        "Pin this much memory so the job sees less free RAM",
    )
    .runs()
    .str_val()
    .def("0"),
    OptDef::new(
        "rwmixread",
        Int,
        IoType,
        "Share of a mixed workload issued as reads, in percent",
    )
    .runs()
    .def("50")
    .max(100)
    .each_piece(),
    OptDef::new(
        "rwmixwrite",
        Int,
        IoType,
        "Share of a mixed workload issued as writes, in percent",
    )
    .runs()
    .def("50")
    .max(100)
    .each_piece(),
    OptDef::new(
        "rwmixcycle",
        Deprecated,
        IoType,
        "Removed in fio; has no effect",
    ),
    OptDef::new("nice", Int, Process, "CPU nice value the job runs at")
    .runs()
        .def("0")
        .min(-20)
        .max(19),
    OptDef::new(
        "prio",
        Int,
        Process,
        "I/O priority level within the class (0 highest to 7 lowest)",
    )
    .runs()
    .max(7),
    OptDef::new(
        "prioclass",
        Int,
        Process,
        "I/O scheduling class: 1 realtime, 2 best effort, 3 idle",
    )
    .runs()
    .max(3),
    OptDef::new(
        "thinktime",
        Int,
        Rate,
        "Pause between I/O bursts (µs without a unit)",
    )
    .runs()
    .def("0")
    .time(),
    OptDef::new(
        "thinktime_spin",
        Int,
        Rate,
        "Part of each pause spent busy-spinning instead of sleeping",
    )
    .runs()
    .def("0")
    .time()
    .parent("thinktime"),
    OptDef::new(
        "thinktime_blocks",
        Int,
        Rate,
        "Number of I/Os between pauses",
    )
    .runs()
    .def("1")
    .parent("thinktime"),
    OptDef::new(
        "thinktime_blocks_type",
        Choice(&[
            w("complete", "Count completed I/Os"),
            w("issue", "Count submitted I/Os"),
        ]),
        Rate,
        "Whether thinktime_blocks counts issued or completed I/Os",
    )
    .def("complete")
    .runs()
    .parent("thinktime"),
    OptDef::new(
        "thinktime_iotime",
        Int,
        Rate,
        "Also pause after this much time spent on I/O, whichever limit comes first",
    )
    .def("0")
    .runs()
    .seconds()
    .time()
    .parent("thinktime"),
    OptDef::new(
        "rate",
        Size,
        Rate,
        "Bandwidth cap in bytes per second, per direction",
    )
    .runs()
    .per_dir(3),
    OptDef::new(
        "rate_min",
        Size,
        Rate,
        "Fail the job if its bandwidth falls below this, per direction",
    )
    .alias(&["ratemin"])
    .runs()
    .parent("rate")
    .per_dir(3),
    OptDef::new(
        "rate_iops",
        Int,
        Rate,
        "Cap on I/Os per second, per direction",
    )
    .runs()
    .per_dir(3),
    OptDef::new(
        "rate_iops_min",
        Int,
        Rate,
        "Fail the job if its IOPS falls below this, per direction",
    )
    .runs()
    .parent("rate_iops")
    .per_dir(3),
    OptDef::new(
        "rate_process",
        Choice(&[
            w("linear", "Evenly spaced I/Os"),
            w("poisson", "Random, exponentially spaced I/Os"),
        ]),
        Rate,
        "How rate-limited I/Os are spaced out in time",
    )
    .def("linear")
    .runs()
    .parent("rate"),
    OptDef::new(
        "rate_cycle",
        Int,
        Rate,
        "Window in ms over which rate_min and rate_iops_min are averaged",
    )
    .alias(&["ratecycle"])
    .def("1000")
    .runs()
    .parent("rate"),
    OptDef::new(
        "rate_ignore_thinktime",
        Bool,
        Rate,
        "Do not catch up on time lost to think time when rate limiting",
    )
    .runs()
    .parent("rate"),
    OptDef::new(
        "max_latency",
        Size,
        Latency,
        "Fail the job if any I/O takes longer than this (µs), per direction",
    )
    .runs()
    .time()
    .per_dir(3),
    OptDef::new(
        "latency_target",
        Time,
        Latency,
        "Latency goal; fio searches for the deepest queue that meets it",
    )
    .runs(),
    OptDef::new(
        "latency_window",
        Time,
        Latency,
        "Length of each window in which the latency goal is checked",
    )
    .runs(),
    OptDef::new(
        "latency_percentile",
        FloatList {
            max_len: 1,
            min: 0.0,
            max: 100.0,
        },
        Latency,
        "How many I/Os, in percent, must come in under latency_target",
    )
    .runs()
    .def("100"),
    OptDef::new(
        "latency_run",
        Bool,
        Latency,
        "Do not settle on one depth: keep retuning it all run",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "invalidate",
        Bool,
        IoType,
        "Drop the files' cached pages before starting",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "sync",
        Choice(&[
            w("none", "Ordinary writes"),
            w("0", "Same as none"),
            w("sync", "Open with O_SYNC"),
            w("1", "Same as sync"),
            w("dsync", "Open with O_DSYNC"),
        ]),
        IoType,
        "Open files for synchronous writes",
    )
    .runs()
    .def("none"),
    OptDef::new(
        "write_hint",
        Choice(&[
            w("none", "No hint"),
            w("short", "Data will be rewritten soon"),
            w("medium", "Medium lifetime"),
            w("long", "Long lifetime"),
            w("extreme", "Data is expected to stay longest"),
        ]),
        IoType,
        "Expected lifetime of written data, passed to the kernel as a hint",
    )
    .runs(),
    OptDef::new(
        "create_serialize",
        Bool,
        Files,
        "Lay out the files of one job at a time",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "create_fsync",
        Bool,
        Files,
        "fsync each file after it has been laid out",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "create_on_open",
        Bool,
        Files,
        "Defer creating each file until it is opened for I/O",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "create_only",
        Bool,
        Files,
        "Lay out the files and stop without running the workload",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "allow_file_create",
        Bool,
        Files,
        "Allow creating files that do not exist yet",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "allow_mounted_write",
        Bool,
        Files,
        "Allow writes to a device that holds a mounted filesystem",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "pre_read",
        Bool,
        Files,
        "Read the files into the page cache before starting",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "cpumask",
        Int,
        Process,
        "Bit mask of the CPUs the job may run on",
    )
    .runs()
    .check(Check::CpuMask),
    OptDef::new(
        "cpus_allowed",
        Choice(&[]),
        Process,
        "CPUs the job may run on, as a list such as 0-3,6",
    )
    .runs()
    .check(Check::CpuList),
    OptDef::new(
        "cpus_allowed_policy",
        Choice(&[
            w("shared", "Every clone may use the whole set"),
            w("split", "Each clone gets its own CPU from the set"),
        ]),
        Process,
        "How the allowed CPUs are divided among the job's clones",
    )
    .runs()
    .prio(1)
    .parent("cpus_allowed"),
    OptDef::new(
        "numa_cpu_nodes",
        Choice(&[]),
        Process,
        "Run the job on the CPUs of these NUMA nodes",
    )
    .runs()
    .check(Check::NumaNodes),
    OptDef::new(
        "numa_mem_policy",
        Choice(&[]),
        Process,
        "NUMA memory policy for the job, as policy[:nodes]",
    )
    .runs()
    .check(Check::NumaPolicy),
    OptDef::new(
        "end_fsync",
        Bool,
        Files,
        "fsync each file once the job's writes are done",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "fsync_on_close",
        Bool,
        Files,
        "fsync each file every time it is closed",
    )
    .runs()
    .def("0"),
    OptDef::new("unlink", Bool, Files, "Remove the job's files when it ends")
        .runs()
        .def("0"),
    OptDef::new(
        "unlink_each_loop",
        Bool,
        Files,
        "Remove the job's files after every loop",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "exitall",
        Flag,
        Process,
        "When this job ends, stop other jobs as exit_what says",
    )
    .runs()
    .each_piece(),
    OptDef::new(
        "exit_what",
        Choice(&[
            w("group", "Jobs in the same group"),
            w(
                "stonewall",
                "Running jobs, then go on at the next stonewall",
            ),
            w("all", "Every job"),
        ]),
        Process,
        "Which jobs are stopped when an exitall job ends",
    )
    .def("group")
    .runs(),
    OptDef::new(
        "exitall_on_error",
        Flag,
        Process,
        "Stop every job when this one fails",
    )
    .runs(),
    OptDef::new(
        "stonewall",
        Flag,
        Process,
        "Start only after all earlier jobs have ended",
    )
    .runs()
    .alias(&["wait_for_previous"]),
    OptDef::new(
        "new_group",
        Flag,
        Process,
        "Begin a new reporting group at this job",
    )
    .runs(),
    OptDef::new(
        "thread",
        Flag,
        Process,
        "Run jobs as threads of one process instead of separate processes",
    )
    .runs(),
    OptDef::new(
        "per_job_logs",
        Bool,
        Logging,
        "Put the job number in log file names so clones log separately",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "write_bw_log",
        Choice(&[]),
        Logging,
        "Log bandwidth samples to files named from this prefix",
    )
    .runs(),
    OptDef::new(
        "write_lat_log",
        Choice(&[]),
        Logging,
        "Log latency samples to files named from this prefix",
    )
    .runs(),
    OptDef::new(
        "write_iops_log",
        Choice(&[]),
        Logging,
        "Log IOPS samples to files named from this prefix",
    )
    .runs(),
    OptDef::new(
        "log_entries",
        Int,
        Logging,
        "Starting capacity of each in-memory log, in entries",
    )
    .runs()
    .def("1024")
    .min(1024)
    .max(1048576),
    OptDef::new(
        "log_avg_msec",
        Int,
        Logging,
        "Average log samples over this many ms (0 logs each I/O)",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "log_hist_msec",
        Int,
        Logging,
        "Interval in ms between latency histogram log entries",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "log_hist_coarseness",
        Int,
        Logging,
        "Merge histogram bins, 0 (finest) to 6 (coarsest)",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "write_hist_log",
        Choice(&[]),
        Logging,
        "Log latency histograms to files named from this prefix",
    )
    .runs(),
    OptDef::new(
        "log_max_value",
        Bool,
        Logging,
        "Log each window's peak sample rather than its mean",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "log_offset",
        Bool,
        Logging,
        "Add the I/O's offset to each log entry",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "log_prio",
        Bool,
        Logging,
        "Add the I/O's priority to each log entry",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "log_compression",
        Int,
        Logging,
        "Chunk size in which in-memory logs get compressed",
    )
    .runs()
    .min(1024)
    .max(536870912),
    OptDef::new(
        "log_compression_cpus",
        Choice(&[]),
        Logging,
        "CPUs the log compression threads may run on",
    )
    .parent("log_compression")
    .runs()
    .check(Check::CpuList),
    OptDef::new(
        "log_store_compressed",
        Bool,
        Logging,
        "Keep log files compressed on disk",
    )
    .runs(),
    OptDef::new(
        "log_unix_epoch",
        Bool,
        Logging,
        "Stamp log entries with Unix time instead of time since job start",
    )
    .runs(),
    OptDef::new(
        "log_alternate_epoch",
        Bool,
        Logging,
        "Stamp log entries with the clock set by log_alternate_epoch_clock_id",
    )
    .runs(),
    OptDef::new(
        "log_alternate_epoch_clock_id",
        Int,
        Logging,
        "clock_gettime clock id whose epoch log timestamps use",
    )
    .runs(),
    OptDef::new(
        "block_error_percentiles",
        Bool,
        Stats,
        "Build a histogram of trim block errors (flash wear-out tests)",
    )
    .def("0")
    .runs(),
    OptDef::new(
        "bwavgtime",
        Int,
        Logging,
        "Window in ms over which bandwidth is averaged",
    )
    .runs()
    .def("500")
    .parent("write_bw_log"),
    OptDef::new(
        "iopsavgtime",
        Int,
        Logging,
        "Window in ms over which IOPS is averaged",
    )
    .runs()
    .def("500")
    .parent("write_iops_log"),
    OptDef::new(
        "group_reporting",
        Flag,
        Stats,
        "Report a group's jobs as one combined result",
    )
    .runs(),
    OptDef::new("stats", Bool, Stats, "Gather statistics for this job")
        .def("1")
        .runs(),
    OptDef::new(
        "zero_buffers",
        Flag,
        Buffers,
        "Use all-zero data in the I/O buffers",
    )
    .runs(),
    OptDef::new(
        "refill_buffers",
        Flag,
        Buffers,
        "Regenerate buffer contents before every write",
    )
    .runs(),
    OptDef::new(
        "scramble_buffers",
        Bool,
        Buffers,
        "Alter buffer contents slightly on each write to defeat dedupe",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "buffer_pattern",
        Choice(&[]),
        Buffers,
        "Fill write buffers with this pattern: hex, quoted text, or a mix",
    )
    .runs()
    .check(Check::Pattern),
    OptDef::new(
        "buffer_compress_percentage",
        Int,
        Buffers,
        "Make written data compressible by roughly this percentage",
    )
    .runs()
    .max(100)
    .each_piece(),
    OptDef::new(
        "buffer_compress_chunk",
        Int,
        Buffers,
        "Granularity at which compressible and random data alternate",
    )
    .runs()
    .def("512")
    .parent("buffer_compress_percentage"),
    OptDef::new(
        "dedupe_percentage",
        Int,
        Buffers,
        "Percentage of written blocks that repeat earlier content",
    )
    .runs()
    .max(100)
    .each_piece(),
    OptDef::new(
        "dedupe_global",
        Bool,
        Buffers,
        "Draw duplicate blocks from a pool shared by all jobs",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "dedupe_mode",
        Choice(&[
            w("repeat", "Copy the block generated last"),
            w(
                "working_set",
                "Copy a random block from a fixed working set",
            ),
        ]),
        Buffers,
        "How the content of a duplicate block is chosen",
    )
    .runs()
    .def("repeat")
    .parent("dedupe_percentage"),
    OptDef::new(
        "dedupe_working_set_percentage",
        Int,
        Buffers,
        "Size of the dedupe working set, as a % of the file size",
    )
    .runs()
    .def("5")
    .max(100)
    .parent("dedupe_percentage"),
    OptDef::new(
        "clat_percentiles",
        Bool,
        Stats,
        "Include completion-latency percentiles in the results",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "lat_percentiles",
        Bool,
        Stats,
        "Include total (submit to complete) latency percentiles in the results",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "slat_percentiles",
        Bool,
        Stats,
        "Include submission-latency percentiles in the results",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "percentile_list",
        FloatList {
            max_len: 20,
            min: 0.0,
            max: 100.0,
        },
        Stats,
        "Percentiles to report, separated by ':'",
    )
    .runs()
    .def("1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99")
    .per_dir(2),
    OptDef::new(
        "significant_figures",
        Int,
        Stats,
        "Digits of precision in normal text output",
    )
    .runs()
    .def("4")
    .min(1)
    .max(10),
    OptDef::new(
        "disk_util",
        Bool,
        Stats,
        "Gather and report utilisation of the disks used",
    )
    .runs()
    .def("1"),
    OptDef::new(
        "gtod_reduce",
        Bool,
        Stats,
        "Turn off most latency tracking to cut timing calls",
    )
    .runs()
    .def("0")
    .each_piece(),
    OptDef::new("disable_lat", Bool, Stats, "Do not track total latency")
        .runs()
        .def("0")
        .parent("gtod_reduce"),
    OptDef::new(
        "disable_clat",
        Bool,
        Stats,
        "Do not track completion latency",
    )
    .runs()
    .def("0")
    .parent("gtod_reduce"),
    OptDef::new(
        "disable_slat",
        Bool,
        Stats,
        "Do not track submission latency",
    )
    .runs()
    .def("0")
    .parent("gtod_reduce"),
    OptDef::new(
        "disable_bw_measurement",
        Bool,
        Stats,
        "Do not track bandwidth",
    )
    .runs()
    .alias(&["disable_bw"])
    .def("0")
    .parent("gtod_reduce"),
    OptDef::new(
        "gtod_cpu",
        Int,
        Timing,
        "Pin a thread to this CPU that keeps the time for all jobs",
    )
    .runs(),
    OptDef::new(
        "unified_rw_reporting",
        Choice(&[
            w("none", "Per direction only"),
            w("mixed", "One combined result for all directions"),
            w("both", "Per direction, then the combined result"),
            w("0", "Same as none"),
            w("1", "Same as mixed"),
            w("2", "Same as both"),
        ]),
        Stats,
        "Report statistics per direction, combined, or both",
    )
    .runs()
    .def("none"),
    OptDef::new(
        "continue_on_error",
        Choice(&[
            w("none", "Stop at the first error"),
            w("read", "Survive read errors"),
            w("write", "Survive write errors"),
            w("io", "Survive any I/O error"),
            w("verify", "Survive verify errors"),
            w("all", "Survive I/O and verify errors"),
            w("0", "Same as none"),
            w("1", "Same as all"),
        ]),
        Misc,
        "Which kinds of errors the job survives and carries on after",
    )
    .runs()
    .def("none"),
    OptDef::new(
        "ignore_error",
        Choice(&[]),
        Misc,
        "Error numbers or names to tolerate, as read,write,verify lists",
    )
    .runs()
    .parent("rw")
    .check(Check::ErrorList),
    OptDef::new(
        "error_dump",
        Bool,
        Misc,
        "Log every error, not only the one that stops the job",
    )
    .runs()
    .def("0"),
    OptDef::new(
        "profile",
        Text(&[
            w(
                "tiobench",
                "Workload modelled on the tiotest/tiobench suite",
            ),
            w("act", "Flash workload modelled on Aerospike's ACT tool"),
        ]),
        Misc,
        "Run one of the built-in workload profiles",
    )
    // As a job option fio only stores it (the --profile flag runs one).
    .runs(),
    OptDef::new(
        "cgroup",
        Text(&[]),
        Process,
        "Place the job in this control group",
    )
    .runs(),
    OptDef::new(
        "cgroup_nodelete",
        Bool,
        Process,
        "Leave the job's control group in place afterwards",
    )
    .def("0")
    .parent("cgroup")
    .runs(),
    OptDef::new(
        "cgroup_weight",
        Int,
        Process,
        "I/O weight of the job's control group",
    )
    .min(100)
    .max(1000)
    .parent("cgroup")
    .runs(),
    OptDef::new("uid", Int, Process, "User id the job runs as")
    .runs(),
    OptDef::new("gid", Int, Process, "Group id the job runs as")
    .runs(),
    OptDef::new(
        "kb_base",
        Choice(&[
            w(
                "1024",
                "k/m/g mean powers of 2 (kiB-style names read as decimal); binary output",
            ),
            w(
                "1000",
                "k/m/g mean powers of 10, kiB-style names binary; decimal output",
            ),
        ]),
        Stats,
        "Whether unit prefixes are counted in 1024s or 1000s",
    )
    .runs()
    .def("1024")
    .prio(1),
    OptDef::new(
        "unit_base",
        Choice(&[
            w("0", "Decide automatically"),
            w("8", "Bytes"),
            w("1", "Bits"),
        ]),
        Stats,
        "Report data amounts in bytes (8) or bits (1); 0 decides itself",
    )
    .runs()
    .prio(1),
    OptDef::new(
        "hugepage-size",
        Int,
        Buffers,
        "Huge page size used with mem=shmhuge or mmaphuge",
    )
    .runs()
    .def("2097152"),
    OptDef::new(
        "flow_id",
        Int,
        Rate,
        "Flow group this job belongs to for flow control",
    )
    .runs()
    .def("0"),
    OptDef::new("flow", Int, Rate, "Weight of this job in its flow group")
        .runs()
        .def("0")
        .max(1000)
        .parent("flow_id"),
    OptDef::new(
        "flow_watermark",
        SoftDeprecated,
        Rate,
        "Obsolete and ignored",
    )
    .runs(),
    OptDef::new(
        "flow_sleep",
        Int,
        Rate,
        "Pause in µs when flow control holds the job back",
    )
    .runs()
    .def("0")
    .parent("flow_id"),
    OptDef::new(
        "steadystate",
        Choice(&[
            w("iops", "Deviation of IOPS from its mean"),
            w("iops_slope", "Slope of the IOPS trend"),
            w("bw", "Deviation of bandwidth from its mean"),
            w("bw_slope", "Slope of the bandwidth trend"),
        ]),
        SteadyState,
        "Stop once the metric has settled within the limit, e.g. iops_slope:0.1%",
    )
    .runs()
    .alias(&["ss"])
    .def("iops_slope:0.01%")
    .check(Check::SteadyState),
    OptDef::new(
        "steadystate_duration",
        Time,
        SteadyState,
        "How long the steady-state condition must hold before stopping",
    )
    .runs()
    .alias(&["ss_dur"])
    .def("0")
    .seconds()
    .parent("steadystate"),
    OptDef::new(
        "steadystate_ramp_time",
        Time,
        SteadyState,
        "Wait this long before collecting steady-state samples",
    )
    .runs()
    .alias(&["ss_ramp"])
    .def("0")
    .seconds()
    .parent("steadystate"),
    // Options that fio's built-in profiles (tiobench, act) add to the
    // generic table at start-up; job files may set them like any other.
    // fio 3.33's tiobench builds its jobs from defaults its own options
    // never reach, so they change nothing, there or anywhere: they run,
    // as no-ops (src/profile.rs).
    OptDef::new("block", Int, Misc, "tiobench profile: block size in bytes")
        .def("4096")
        .profile("tiobench")
        .runs(),
    OptDef::new(
        "numruns",
        Int,
        Misc,
        "tiobench profile: how many times to run",
    )
    .profile("tiobench")
    .runs(),
    OptDef::new(
        "dir",
        Text(&[]),
        Misc,
        "tiobench profile: directory to test in",
    )
    .profile("tiobench")
    .runs(),
    OptDef::new("threads", Int, Misc, "tiobench profile: number of threads")
        .profile("tiobench")
        .runs(),
    OptDef::new(
        "device-names",
        Text(&[]),
        Misc,
        "act profile: devices to test",
    )
    .profile("act"),
    OptDef::new("load", Int, Misc, "act profile: load multiplier")
        .def("1")
        .profile("act"),
    OptDef::new(
        "test-duration",
        Time,
        Misc,
        "act profile: length of the whole test",
    )
    .def("24h")
    .profile("act"),
    OptDef::new(
        "threads-per-queue",
        Int,
        Misc,
        "act profile: read threads per device",
    )
    .def("8")
    .profile("act"),
    OptDef::new(
        "read-req-num-512-blocks",
        Int,
        Misc,
        "act profile: 512-byte blocks per read",
    )
    .def("3")
    .profile("act"),
    OptDef::new(
        "large-block-op-kbytes",
        Int,
        Misc,
        "act profile: large write size in KiB",
    )
    .def("131072")
    .profile("act"),
    OptDef::new("prep", Flag, Misc, "act profile: run the preparation phase").profile("act"),
    OptDef::new(
        "hipri",
        Flag,
        Ioengine,
        "Poll for completions instead of waiting for an interrupt",
    )
    .runs()
    .engines(&["io_uring", "io_uring_cmd", "pvsync2", "sg"]),
    OptDef::new(
        "userspace_reap",
        Flag,
        Ioengine,
        "Collect completions from user space instead of io_getevents",
    )
    .runs()
    .engines(&["libaio"]),
    OptDef::new(
        "cmdprio_percentage",
        Int,
        Ioengine,
        "Percentage of I/Os sent at the cmdprio priority, per direction",
    )
    .runs()
    .max(100)
    .per_dir(2)
    .engines(&["io_uring", "io_uring_cmd", "libaio"]),
    OptDef::new(
        "cmdprio_class",
        Int,
        Ioengine,
        "Priority class of the I/Os picked by cmdprio_percentage",
    )
    .runs()
    .min(1)
    .max(3)
    .per_dir(2)
    .engines(&["io_uring", "io_uring_cmd", "libaio"]),
    OptDef::new(
        "cmdprio",
        Int,
        Ioengine,
        "Priority level of the I/Os picked by cmdprio_percentage",
    )
    .runs()
    .max(7)
    .per_dir(2)
    .engines(&["io_uring", "io_uring_cmd", "libaio"]),
    OptDef::new(
        "cmdprio_bssplit",
        Text(&[]),
        Ioengine,
        "Percentages of I/Os sent at raised priority for each block size",
    )
    .runs()
    .engines(&["io_uring", "io_uring_cmd", "libaio"])
    .check(Check::CmdprioBsSplit),
    OptDef::new(
        "fixedbufs",
        Flag,
        Ioengine,
        "Register the I/O buffers with the kernel once at start",
    )
    .runs()
    .engines(&["io_uring", "io_uring_cmd"]),
    OptDef::new(
        "registerfiles",
        Flag,
        Ioengine,
        "Register the open files with the ring ahead of time",
    )
    .runs()
    .engines(&["io_uring", "io_uring_cmd"]),
    OptDef::new(
        "sqthread_poll",
        Flag,
        Ioengine,
        "Let a kernel thread poll the submission queue",
    )
    .runs()
    .engines(&["io_uring", "io_uring_cmd"]),
    OptDef::new(
        "sqthread_poll_cpu",
        Int,
        Ioengine,
        "CPU the submission polling thread runs on",
    )
    .runs()
    .engines(&["io_uring", "io_uring_cmd"])
    .each_piece(),
    OptDef::new(
        "nonvectored",
        Int,
        Ioengine,
        "Use plain read/write opcodes instead of vectored ones (-1: by kernel support)",
    )
    .runs()
    .def("-1")
    .engines(&["io_uring", "io_uring_cmd"]),
    OptDef::new(
        "hipri_percentage",
        Int,
        Ioengine,
        "Percentage of I/Os that get the high-priority flag",
    )
    .runs()
    .def("100")
    .max(100)
    .engines(&["pvsync2"]),
    OptDef::new(
        "uncached",
        Int,
        Ioengine,
        "Ask for buffered I/O that drops pages after use (RWF_UNCACHED)",
    )
    .engines(&["io_uring", "io_uring_cmd", "pvsync2"])
    .runs(),
    OptDef::new(
        "nowait",
        Bool,
        Ioengine,
        "Fail with EAGAIN instead of blocking (RWF_NOWAIT)",
    )
    .runs()
    .engines(&["io_uring", "io_uring_cmd", "libaio", "pvsync2"]),
    OptDef::new(
        "force_async",
        Int,
        Ioengine,
        "Flag every Nth request to run asynchronously (IOSQE_ASYNC)",
    )
    .runs()
    .engines(&["io_uring", "io_uring_cmd"]),
    // io_uring shares its option table with io_uring_cmd, so fio 3.33
    // accepts cmd_type for io_uring too, but only io_uring_cmd's own
    // functions read it: for io_uring it changes nothing, as here.
    // (io_uring_cmd itself, NVMe passthrough, is not an engine ferrio has.)
    OptDef::new(
        "cmd_type",
        Choice(&[w("nvme", "NVMe passthrough commands")]),
        Ioengine,
        "Kind of passthrough command io_uring_cmd sends",
    )
    .def("nvme")
    .engines(&["io_uring", "io_uring_cmd"])
    .runs(),
    OptDef::new(
        "hostname",
        Text(&[]),
        Ioengine,
        "Host to connect to, or address to accept connections on",
    )
    .engines(&["net", "netsplice", "rdma"])
    .runs(),
    OptDef::new(
        "cpuload",
        Int,
        Ioengine,
        "Percentage of CPU time to keep busy",
    )
    .runs()
    .engines(&["cpuio"]),
    OptDef::new(
        "cpuchunks",
        Int,
        Ioengine,
        "Length of each busy period in µs",
    )
    .def("50000")
    .parent("cpuload")
    .runs()
    .engines(&["cpuio"]),
    OptDef::new(
        "cpumode",
        Choice(&[
            w("noop", "Busy loop of no-op instructions"),
            w("qsort", "Sort data, which also touches memory"),
        ]),
        Ioengine,
        "Kind of work used to keep the CPU busy",
    )
    .def("noop")
    .runs()
    .engines(&["cpuio"]),
    OptDef::new(
        "exit_on_io_done",
        Bool,
        Ioengine,
        "Stop once the I/O jobs of the run have finished",
    )
    .def("0")
    .runs()
    .engines(&["cpuio"]),
    OptDef::new(
        "program",
        Text(&[]),
        Ioengine,
        "Path of the executable to launch",
    )
    .runs()
    .engines(&["exec"]),
    OptDef::new(
        "arguments",
        Text(&[]),
        Ioengine,
        "Arguments given to the program (%r: runtime, %n: job name)",
    )
    .runs()
    .engines(&["exec"]),
    OptDef::new(
        "grace_time",
        Int,
        Ioengine,
        "Seconds between SIGTERM and SIGKILL when stopping the program",
    )
    .def("1")
    .runs()
    .engines(&["exec"]),
    OptDef::new(
        "std_redirect",
        Bool,
        Ioengine,
        "Save the program's stdout and stderr to files",
    )
    .def("1")
    .runs()
    .engines(&["exec"]),
    OptDef::new(
        "stat_type",
        Choice(&[
            w("stat", "The stat(2) call"),
            w("lstat", "The lstat(2) call, not following symlinks"),
            w("statx", "The statx(2) call, where the kernel has it"),
        ]),
        Ioengine,
        "Which stat call is timed",
    )
    .def("stat")
    .runs()
    .engines(&["filestat"]),
    OptDef::new(
        "donorname",
        Text(&[]),
        Ioengine,
        "File whose blocks are donated to the file being defragmented",
    )
    .engines(&["e4defrag"])
    .runs(),
    OptDef::new(
        "inplace",
        Int,
        Ioengine,
        "Allocate and free donor space at each defrag step (1) or once (0)",
    )
    .max(1)
    .engines(&["e4defrag"])
    .runs(),
    OptDef::new(
        "thp",
        Int,
        Ioengine,
        "Ask for transparent huge pages on the mapping",
    )
    .runs()
    .engines(&["mmap"]),
    OptDef::new("readfua", Bool, Ioengine, "Set Force Unit Access on reads")
        .def("0")
        .engines(&["sg"]),
    OptDef::new(
        "writefua",
        Bool,
        Ioengine,
        "Set Force Unit Access on writes",
    )
    .def("0")
    .engines(&["sg"]),
    OptDef::new(
        "sg_write_mode",
        Choice(&[
            w("write", "WRITE"),
            w("write_and_verify", "WRITE AND VERIFY"),
            w("verify", "Old name for write_and_verify"),
            w("write_same", "WRITE SAME"),
            w("same", "Old name for write_same"),
            w(
                "write_same_ndob",
                "WRITE SAME(16) with no data-out buffer (NDOB)",
            ),
            w(
                "verify_bytchk_00",
                "VERIFY, BYTCHK 00: medium check, no data sent",
            ),
            w(
                "verify_bytchk_01",
                "VERIFY, BYTCHK 01: compare every block sent",
            ),
            w(
                "verify_bytchk_11",
                "VERIFY, BYTCHK 11: compare all blocks to one sent block",
            ),
            w("write_stream", "WRITE STREAM(16)"),
        ]),
        Ioengine,
        "SCSI command used for writes",
    )
    .def("write")
    .engines(&["sg"]),
    OptDef::new(
        "stream_id",
        Int,
        Ioengine,
        "Which stream the WRITE STREAM(16) commands target",
    )
    .def("0")
    .engines(&["sg"]),
    OptDef::new("clustername", Text(&[]), Ioengine, "Ceph cluster name")
        .engines(&["rados", "rbd"])
        .runs(),
    OptDef::new("rbdname", Text(&[]), Ioengine, "RBD image to use")
        .engines(&["rbd"])
        .runs(),
    OptDef::new("pool", Text(&[]), Ioengine, "Ceph pool to work in")
        .engines(&["rados", "rbd"])
        .runs(),
    OptDef::new("clientname", Text(&[]), Ioengine, "Ceph client (user) name")
        .engines(&["rados", "rbd"])
        .runs(),
    OptDef::new(
        "conf",
        Text(&[]),
        Ioengine,
        "Path to the ceph.conf describing the cluster",
    )
    .def("/etc/ceph/ceph.conf")
    .engines(&["rados"])
    .runs(),
    OptDef::new(
        "busy_poll",
        Bool,
        Ioengine,
        "Spin on the completion queue rather than sleeping",
    )
    .def("0")
    .engines(&["rados", "rbd"])
    .runs(),
    OptDef::new(
        "touch_objects",
        Bool,
        Ioengine,
        "Create the objects when the job starts",
    )
    .def("1")
    .engines(&["rados"])
    .runs(),
    // ferrio's own: bounds on waiting for a Ceph cluster, which fio 3.33
    // leaves at librados' defaults (300 s to connect, forever for an OSD).
    OptDef::new(
        "ferrio_ceph_timeout",
        Time,
        Ioengine,
        "ferrio: give up connecting to the cluster, or on a monitor request, after this long (0: librados' 300 s)",
    )
    .def("5")
    .seconds()
    .engines(&["rados", "rbd"])
    .runs(),
    OptDef::new(
        "ferrio_ceph_op_timeout",
        Time,
        Ioengine,
        "ferrio: fail an OSD operation that takes longer than this (0: wait forever, as fio does)",
    )
    .def("30")
    .seconds()
    .engines(&["rados", "rbd"])
    .runs(),
    OptDef::new(
        "ferrio_ceph_grace",
        Time,
        Ioengine,
        "ferrio: once the runtime is over, wait this long for I/O in flight, then report it as stalled and end the job (0: wait as long as the OSD operation timeout allows)",
    )
    .def("10")
    .seconds()
    .engines(&["rados", "rbd"])
    .runs(),
    OptDef::new(
        "ferrio_shared_connection",
        Bool,
        Ioengine,
        "ferrio: the clones of a job (numjobs) share one cluster connection instead of one each, as fio makes",
    )
    .def("0")
    .engines(&["rados", "rbd"])
    .runs(),
    // ferrio's own: librbd copies every write buffer by default, in case
    // the caller changes it while the write is out; ferrio never does, so
    // the copy is only client CPU taken from the cluster on the same host.
    OptDef::new(
        "ferrio_rbd_zero_copy",
        Bool,
        Ioengine,
        "ferrio: let librbd send write buffers without copying them (rbd_disable_zero_copy_writes=false), as ferrio never changes a buffer in flight (0: librbd copies each write, as under fio)",
    )
    .def("1")
    .engines(&["rbd"])
    .runs(),
    OptDef::new(
        "uri",
        Text(&[]),
        Ioengine,
        "NBD URI of the export to use (nbd://HOST:PORT/, nbd+unix:///?socket=PATH)",
    )
    .engines(&["nbd"])
    .runs(),
    OptDef::new(
        "skip_bad",
        Bool,
        Ioengine,
        "Leave out erase blocks marked bad",
    )
    .def("0")
    .engines(&["mtd"]),
    OptDef::new("bindname", Text(&[]), Ioengine, "Local address to bind to")
        .def("")
        .engines(&["rdma"]),
    OptDef::new(
        "port",
        Int,
        Ioengine,
        "Port number to connect to or listen on",
    )
    .min(1)
    .max(65535)
    .engines(&["net", "netsplice", "rdma"])
    .runs(),
    OptDef::new(
        "protocol",
        Choice(&[
            w("tcp", "TCP over IPv4"),
            w("tcpv6", "TCP over IPv6"),
            w("udp", "UDP over IPv4"),
            w("udpv6", "UDP over IPv6"),
            w("unix", "Local socket named by a filesystem path"),
        ]),
        Ioengine,
        "Transport used for the transfer",
    )
    .alias(&["proto"])
    .def("tcp")
    .engines(&["net", "netsplice"])
    .runs(),
    OptDef::new(
        "nodelay",
        Bool,
        Ioengine,
        "Set TCP_NODELAY so small writes go out at once",
    )
    .engines(&["net", "netsplice"])
    .runs(),
    OptDef::new(
        "listen",
        Flag,
        Ioengine,
        "Accept incoming connections instead of connecting",
    )
    .engines(&["net", "netsplice"])
    .runs(),
    OptDef::new(
        "pingpong",
        Flag,
        Ioengine,
        "Receiver answers every message, so timing covers the round trip",
    )
    .engines(&["net", "netsplice"])
    .runs(),
    OptDef::new(
        "interface",
        Text(&[]),
        Ioengine,
        "Network interface (name or address) for UDP multicast",
    )
    .engines(&["net", "netsplice"])
    .runs(),
    OptDef::new(
        "ttl",
        Int,
        Ioengine,
        "How many router hops multicast packets may cross (IP TTL)",
    )
    .def("1")
    .engines(&["net", "netsplice"])
    .runs(),
    OptDef::new(
        "window_size",
        Int,
        Ioengine,
        "Socket buffer size for sending and receiving",
    )
    .engines(&["net", "netsplice"])
    .runs(),
    OptDef::new(
        "mss",
        Int,
        Ioengine,
        "Largest TCP segment the socket may send (TCP_MAXSEG)",
    )
    .engines(&["net", "netsplice"])
    .runs(),
    OptDef::new(
        "verb",
        Choice(&[
            w("write", "One-sided RDMA write"),
            w("read", "One-sided RDMA read"),
            w("send", "Two-sided send"),
            w("recv", "Two-sided receive"),
        ]),
        Ioengine,
        "RDMA operation used for the transfers",
    )
    .alias(&["proto"])
    .def("write")
    .engines(&["rdma"]),
    OptDef::new("volume", Text(&[]), Ioengine, "GlusterFS volume name")
        .engines(&["gfapi", "gfapi_async"])
        .runs(),
    OptDef::new(
        "brick",
        Text(&[]),
        Ioengine,
        "GlusterFS server (brick) to connect to",
    )
    .engines(&["gfapi", "gfapi_async"])
    .runs(),
    OptDef::new(
        "single-instance",
        Bool,
        Ioengine,
        "Share one GlusterFS connection between all jobs",
    )
    .engines(&["gfapi", "gfapi_async"])
    .runs(),
];
