//! Options that ferrio once parsed but refused (issue 7), run by ferrio
//! beside fio 3.33 on the same job files: the pauses think time takes,
//! the size of each I/O, and what else each option changes.

mod common;

use common::{JSON, Outcome, Pair, json};
use serde_json::Value;

impl Pair {
    /// The same file as each tool wrote it.
    fn read(&self, name: &str) -> [String; 2] {
        [&self.fio, &self.ferrio].map(|s| {
            std::fs::read_to_string(s.0.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
        })
    }
}

/// The first job's (read I/Os, runtime in ms).
fn ios_and_runtime(out: &Outcome) -> (u64, u64) {
    let doc = json(out);
    let job = &doc["jobs"][0];
    let n = |v: &Value| v.as_u64().unwrap();
    (n(&job["read"]["total_ios"]), n(&job["job_runtime"]))
}

/// thinktime_blocks_type: counting issued I/Os pauses after every 10th of
/// 100; counting completions (the null engine at depth 8 completes each
/// I/O one step late) misses the pause after the last. The number of
/// pauses shows in the runtime, 100 ms each: counted whole (the runtime
/// over 100 ms, rounded down), a loaded machine's oversleeping would have
/// to add up to a whole pause to change it (with 30 ms pauses, rounded,
/// 9 pauses overslept by 26 ms in all read as 10 on a busy machine).
#[test]
fn thinktime_blocks_type_counts_pauses_as_fio() {
    let pair = Pair::new("think-type");
    for (kind, depth) in [("issue", 8), ("complete", 8), ("complete", 1)] {
        let job = format!(
            "[a]\nioengine=null\nsize=1m\nnumber_ios=100\niodepth={depth}\n\
             thinktime=100ms\nthinktime_blocks=10\nthinktime_blocks_type={kind}\n"
        );
        let (want, got) = pair.run_alike(&job, JSON);
        let (want, got) = (ios_and_runtime(&want), ios_and_runtime(&got));
        assert_eq!(want.0, got.0, "{job}");
        let pauses = |ms: u64| ms / 100;
        assert_eq!(pauses(want.1), pauses(got.1), "{job}: {want:?} {got:?}");
    }
}

/// thinktime_iotime: a 200 ms pause once 100 ms have gone by since the
/// last (the first period also counts one think time), at 1000 IOPS for a
/// second: about 500 I/Os where the job would do 1000.
#[test]
fn thinktime_iotime_pauses_as_fio() {
    let pair = Pair::new("think-iotime");
    let job = "[a]\nioengine=null\nsize=1g\ntime_based\nruntime=1s\nrate_iops=1000\n\
               rate_ignore_thinktime=1\nthinktime=200ms\nthinktime_iotime=100ms\n";
    let (want, got) = pair.run_alike(job, JSON);
    let (want, got) = (ios_and_runtime(&want), ios_and_runtime(&got));
    assert!(want.0.abs_diff(got.0) <= 50, "{want:?} {got:?}");
    assert!(want.1.abs_diff(got.1) <= 60, "{want:?} {got:?}");
}

/// bs_is_seq_rand: sequential I/Os take the first size and random ones
/// the second, whatever their direction. Every I/O's direction, size and
/// offset (the latency log with offsets) is the same as fio's.
#[test]
fn bs_is_seq_rand_sizes_each_io_as_fio() {
    let pair = Pair::new("bs-seq-rand");
    let job = "[a]\nioengine=null\nsize=4m\nrw=randrw\npercentage_random=50\nbs=4k,16k\n\
               bs_is_seq_rand=1\nnumber_ios=200\nwrite_lat_log=a\nlog_offset=1\n";
    pair.run_alike(job, JSON);
    let [want, got] = pair.read("a_lat.1.log").map(|log| {
        log.lines()
            .map(|l| l.split(", ").skip(2).take(3).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
    });
    assert_eq!(want.len(), 200);
    assert_eq!(want, got);
}

/// serialize_overlap: random writes at depth 16 over four blocks. An I/O
/// that overlaps one in flight waits, so no more than four are ever in
/// flight; the depth distribution is fio's to the I/O.
#[test]
fn serialize_overlap_keeps_overlapping_ios_apart_as_fio() {
    let pair = Pair::new("serialize-overlap");
    let job = "[a]\nioengine=libaio\nfilename=s.dat\nsize=16k\nbs=4k\nrw=randwrite\n\
               norandommap\niodepth=16\nio_size=2m\nserialize_overlap=1\n";
    let (want, got) = pair.run_alike(job, JSON);
    let [want, got] = [want, got].map(|out| {
        let doc = json(&out);
        let job = &doc["jobs"][0];
        (
            job["write"]["total_ios"].clone(),
            job["iodepth_level"].clone(),
        )
    });
    assert_eq!(want, got);
    assert_eq!(want.0, 512);
    for deep in ["8", "16", "32", ">=64"] {
        assert_eq!(want.1[deep].as_f64(), Some(0.0), "{want:?}");
    }
}

/// lockfile, in each mode (a `:N` after it is read and ignored, as by fio
/// 3.33): three clones of a job share a file and its lock; each does the
/// same I/Os in each direction as under fio.
#[test]
fn lockfile_runs_and_counts_as_fio() {
    let pair = Pair::new("lockfile");
    for mode in [
        "none",
        "exclusive",
        "readwrite",
        "exclusive:4",
        "readwrite:2",
    ] {
        let job = format!(
            "[a]\nioengine=psync\nrw=randrw\nfilename=l.dat\nsize=256k\nnumjobs=3\n\
             lockfile={mode}\n"
        );
        let (want, got) = pair.run_alike(&job, JSON);
        let [want, got] = [want, got].map(|out| {
            let doc = json(&out);
            doc["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| {
                    let n = |v: &Value| v.as_u64().unwrap();
                    let ios = n(&j["read"]["total_ios"]) + n(&j["write"]["total_ios"]);
                    let bytes = n(&j["read"]["io_bytes"]) + n(&j["write"]["io_bytes"]);
                    (j["error"].clone(), ios, bytes)
                })
                .collect::<Vec<_>>()
        });
        assert_eq!(want.len(), 3, "{mode}");
        assert_eq!(want, got, "{mode}");
    }
}

/// opendir: the regular files found below a directory (a subdirectory
/// walked, a symbolic link passed over), in the order fio finds them and
/// each to its own size: the I/O log (timestamps aside) is fio's, and so
/// is the line announcing them.
#[test]
fn opendir_finds_the_files_fio_finds() {
    let pair = Pair::new("opendir");
    for scratch in [&pair.fio, &pair.ferrio] {
        std::fs::create_dir_all(scratch.0.join("d/sub")).unwrap();
        for (name, kib) in [("d/f1", 64), ("d/sub/f2", 128), ("d/f3", 32)] {
            std::fs::write(scratch.0.join(name), vec![0u8; kib * 1024]).unwrap();
        }
        std::os::unix::fs::symlink("f1", scratch.0.join("d/link")).unwrap();
    }
    let job = "[a]\nioengine=psync\nopendir=d\nrw=read\nbs=4k\nwrite_iolog=io.log\n";
    let (want, got) = pair.run_alike(job, JSON);
    let announced = |out: &Outcome| out.stdout.lines().next().unwrap_or("").to_string();
    assert_eq!(announced(&want), "fio: opendir added 3 files");
    assert_eq!(announced(&want), announced(&got));
    let n = |out: &Outcome| json(out)["jobs"][0]["read"]["io_bytes"].as_u64();
    assert_eq!(n(&want), Some(224 * 1024));
    assert_eq!(n(&want), n(&got));
    let [want, got] = pair.read("io.log").map(|log| {
        log.lines()
            .skip(1)
            .map(|l| l.split(' ').skip(1).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
    });
    assert_eq!(want, got);
    // A directory that is not there fails the job file, as in fio.
    let (want, got) = pair.run_alike("[a]\nopendir=nowhere\nsize=4k\n", JSON);
    assert_ne!(want.code, 0);
    assert!(got.stderr.contains("opendir(nowhere)"), "{}", got.stderr);
}

/// The first job's error code and (read, write) I/O counts.
fn error_and_ios(out: &Outcome) -> (u64, u64, u64) {
    let doc = json(out);
    let job = &doc["jobs"][0];
    let n = |v: &Value| v.as_u64().unwrap();
    (
        n(&job["error"]),
        n(&job["read"]["total_ios"]),
        n(&job["write"]["total_ios"]),
    )
}

/// write_hint: set on each file as it opens, on the inode for buffered
/// I/O and on the open file for direct I/O; whatever this kernel says to
/// each (recent kernels refuse the per-file hint with EINVAL, which fails
/// the job), the job ends as under fio.
#[test]
fn write_hint_is_set_as_fio_sets_it() {
    let pair = Pair::new("write-hint");
    for (hint, direct) in [("short", 0), ("extreme", 0), ("none", 0), ("medium", 1)] {
        let job = format!(
            "[a]\nfilename=h.dat\nsize=64k\nrw=write\nwrite_hint={hint}\ndirect={direct}\n"
        );
        let (want, got) = pair.run_alike(&job, JSON);
        assert_eq!(error_and_ios(&want), error_and_ios(&got), "{job}");
        if want.code != 0 || error_and_ios(&want).0 != 0 {
            assert!(
                got.stdout.contains("func=fcntl write hint"),
                "{}",
                got.stdout
            );
        }
    }
}

/// hugepage-size: huge page buffers are rounded up to it with fio's mask
/// arithmetic, so 0 asks the kernel for nothing (EINVAL), where a real
/// size finds this machine's huge pages (none here, so ENOMEM, or the
/// job runs): the same outcome as fio's for both kinds of memory.
#[test]
fn hugepage_size_rounds_buffers_as_fio() {
    let pair = Pair::new("hugepage-size");
    for size in ["0", "4m"] {
        for mem in ["shmhuge", "mmaphuge"] {
            let job = format!("[a]\nioengine=null\nsize=64k\nmem={mem}\nhugepage-size={size}\n");
            let (want, got) = pair.run_alike(&job, JSON);
            // (fio counts one read for a job whose buffers it could not
            // get; ferrio none: only the error is compared here.)
            assert_eq!(error_and_ios(&want).0, error_and_ios(&got).0, "{job}");
        }
    }
}

/// softrandommap only matters when the random map cannot be allocated:
/// a job that sets it covers its blocks as fio's does.
#[test]
fn softrandommap_runs_as_fio() {
    let pair = Pair::new("softrandommap");
    let job = "[a]\nioengine=null\nsize=1m\nrw=randread\nsoftrandommap=1\n\
               write_iolog=io.log\n";
    let (want, got) = pair.run_alike(job, JSON);
    assert_eq!(error_and_ios(&want), error_and_ios(&got));
    let [want, got] = pair.read("io.log").map(|log| {
        log.lines()
            .skip(1)
            .map(|l| l.split(' ').skip(1).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
    });
    assert_eq!(want, got);
}

/// nowait: RWF_NOWAIT on each read. A buffered read of pages not in the
/// cache would block, so it fails with EAGAIN; direct reads go through.
/// Direct: the same outcome as fio's on each engine that has the option.
#[test]
fn nowait_fails_blocking_reads_as_fio() {
    let pair = Pair::new("nowait");
    for engine in ["pvsync2", "libaio", "io_uring"] {
        for direct in [0, 1] {
            let job = format!(
                "[a]\nioengine={engine}\nfilename=n.dat\nsize=1m\nrw=read\n\
                 nowait=1\ndirect={direct}\n"
            );
            // The file is there and on disk before each run, so that the
            // tools' cache invalidation leaves none of it cached: whether a
            // file each had just laid out was still dirty (kept) or written
            // back (dropped) was the machine's timing, and decided whether
            // a buffered nowait read blocked.
            for scratch in [&pair.fio, &pair.ferrio] {
                let file = std::fs::File::create(scratch.0.join("n.dat")).unwrap();
                std::io::Write::write_all(&mut &file, &vec![7u8; 1 << 20]).unwrap();
                file.sync_all().unwrap();
            }
            let (want, got) = pair.run_job(&job, JSON);
            if direct == 1 {
                assert_eq!(
                    want.code, got.code,
                    "{job}: {}\n{}",
                    want.stderr, got.stderr
                );
                assert_eq!(error_and_ios(&want), error_and_ios(&got), "{job}");
                continue;
            }
            // Buffered: whether the kernel has the pages at the moment of
            // a read (readahead started by an earlier one, writeback
            // racing the invalidation) is its timing, and fio itself gives
            // either outcome from one run to the next (seen both ways on
            // a loaded machine). Each tool must end in one of them: every
            // read done, or the job failed with EAGAIN at a read.
            for (tool, out) in [("fio", &want), ("ferrio", &got)] {
                let (error, reads, writes) = error_and_ios(out);
                let done = (out.code, error, reads, writes) == (0, 0, 256, 0);
                let blocked = out.code == 1 && error == 11 && writes == 0;
                assert!(
                    done || blocked,
                    "{tool} {job}: {:?} {}",
                    error_and_ios(out),
                    out.stderr
                );
            }
        }
    }
}

/// hipri_percentage: pvsync2 polls for a share of its I/Os (drawn as fio
/// draws them); the job runs and counts as under fio.
#[test]
fn hipri_percentage_runs_as_fio() {
    let pair = Pair::new("hipri-pct");
    for pct in [0, 50, 100] {
        let job = format!(
            "[a]\nioengine=pvsync2\nfilename=p.dat\nsize=256k\nrw=randread\n\
             hipri=1\nhipri_percentage={pct}\n"
        );
        let (want, got) = pair.run_alike(&job, JSON);
        assert_eq!(error_and_ios(&want), error_and_ios(&got), "{job}");
    }
}

/// thp: fio's mmap engine then maps the file privately (and asks for
/// huge pages), so what the job writes never reaches the file; without
/// it the writes land. The file after the job is as fio leaves it.
#[test]
fn thp_maps_privately_as_fio() {
    let pair = Pair::new("thp");
    for thp in [1, 0] {
        for scratch in [&pair.fio, &pair.ferrio] {
            std::fs::write(scratch.0.join("z.dat"), vec![0u8; 256 * 1024]).unwrap();
        }
        let job = format!("[a]\nioengine=mmap\nfilename=z.dat\nsize=256k\nrw=write\nthp={thp}\n");
        let (want, got) = pair.run_alike(&job, JSON);
        assert_eq!(error_and_ios(&want), error_and_ios(&got), "{job}");
        let untouched = [&pair.fio, &pair.ferrio].map(|s| {
            std::fs::read(s.0.join("z.dat"))
                .unwrap()
                .iter()
                .all(|&b| b == 0)
        });
        assert_eq!(untouched[0], thp == 1, "{job}");
        assert_eq!(untouched[0], untouched[1], "{job}");
    }
}

/// log_alternate_epoch (and log_unix_epoch) stamp log entries with the
/// job's start on the clock log_alternate_epoch_clock_id names (Unix time
/// by default, 1 the monotonic clock); the clock id alone changes
/// nothing. The first entry's time is fio's, within the seconds between
/// the two runs.
#[test]
fn log_alternate_epoch_stamps_as_fio() {
    let pair = Pair::new("alt-epoch");
    for extra in [
        "log_alternate_epoch=1\n",
        "log_alternate_epoch=1\nlog_alternate_epoch_clock_id=1\n",
        "log_unix_epoch=1\nlog_alternate_epoch_clock_id=1\n",
        "log_alternate_epoch_clock_id=1\n",
    ] {
        let job = format!("[a]\nioengine=null\nsize=64k\nwrite_lat_log=e\n{extra}");
        pair.run_alike(&job, JSON);
        let [want, got] = pair.read("e_lat.1.log").map(|log| {
            let first = log.lines().next().unwrap_or("").to_string();
            first
                .split(',')
                .next()
                .unwrap()
                .trim()
                .parse::<u64>()
                .unwrap()
        });
        assert!(want.abs_diff(got) < 10_000, "{job}: {want} {got}");
    }
}

/// verifysort, verifysort_nr and flow_watermark are obsolete: fio warns
/// that each is deprecated and runs the job as if it were absent. ferrio
/// gives the same warnings and runs the same I/Os (it refused them before).
#[test]
fn obsolete_options_warn_and_run_as_in_fio() {
    let pair = Pair::new("obsolete");
    let job = "[a]\nioengine=null\nrw=randwrite\nsize=1m\nverify=crc32c\n\
               verifysort=1\nverifysort_nr=64\nflow_watermark=5\n";
    let (want, got) = pair.run_alike(job, JSON);
    assert_eq!(want.code, 0, "{}", want.stderr);
    assert_eq!(want.stderr, common::fio_part(&got.stderr));
    // fio's warnings come on standard output, before the JSON.
    let warnings = |o: &Outcome| o.stdout[..o.stdout.find('{').unwrap()].to_string();
    assert_eq!(warnings(&want), warnings(&got));
    assert!(warnings(&got).contains("Option verifysort is deprecated"));
    let doc = |o: &Outcome| json(o)["jobs"][0]["write"]["total_ios"].as_u64();
    assert_eq!(doc(&want), doc(&got));
    assert_eq!(doc(&got), Some(256));
}
