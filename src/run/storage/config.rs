//! The files part of a job's config: which files, the region of each
//! the job works on, and how they are opened, laid out and removed.

use std::path::PathBuf;

use crate::engine::{self, caps};
use crate::options::Value;
use crate::plan::JobSpec;
use crate::rand::fio_rand::{Purpose, Seeds};
use crate::result::JobError;
use crate::run::refusal::Refusal;
use crate::run::workload::{BlockSizes, WorkloadConfig};

/// The job's files and how it uses them.
#[derive(Debug, Clone)]
pub struct FilesConfig {
    /// The job's files; I/O goes to them in turn (fio's roundrobin).
    pub paths: Vec<PathBuf>,
    /// Bytes of the region the job works on in each file.
    pub size: u64,
    /// Where the region starts in the file.
    pub offset: u64,
    /// Each file's region in bytes: `size` for every file, unless a
    /// filesize range sized each file on its own.
    pub regions: Vec<u64>,
    /// fio's length of a diskless engine's file before its setup: the
    /// size option shared among the files, or unbounded without one.
    /// Strided zones wrap at a file's length, so it shows in the offsets.
    pub diskless_len: u64,
    /// lockfile: `Some(readwrite)` when the job locks its files around
    /// each I/O, with the number of the job its clones come from (whose
    /// locks they share).
    pub lockfile: Option<(bool, u32)>,
    /// Remove the file when the job is done.
    pub unlink: bool,
    /// Remove the job's regular files before every loop after the first
    /// (unlink_each_loop); the loop's open creates a writing job's anew.
    pub unlink_each_loop: bool,
    pub direct: bool,
    pub invalidate: bool,
    /// posix_fadvise advice given when the files are opened.
    pub advice: Option<i32>,
    /// write_hint, when set: the RWH_WRITE_LIFE_* value for each file.
    pub write_hint: Option<u64>,
    /// How the files' space is reserved when they are laid out.
    pub fallocate: crate::engine::Allocation,
    /// fsync each file once it has been laid out (create_fsync).
    pub create_fsync: bool,
    /// Create each file when it is opened for I/O instead of laying it
    /// out first.
    pub create_on_open: bool,
    /// create_serialize=0: the job lays out its files in its own thread,
    /// once started, beside the other jobs of its group.
    pub lay_out_in_job: bool,
    /// Write until the device is full: ENOSPC (or EDQUOT) ends the job
    /// without failing it (fill_device).
    pub fill_device: bool,
    /// At most this many files in use at once (openfiles; 0: all).
    pub open_files: usize,
    /// The block I/O scheduler to switch the files' disks to (see
    /// `sys::iosched`); None where fio would not look for the disks
    /// (diskless engines, disk_util=0).
    pub ioscheduler: Option<String>,
    /// Lay the files out and end, doing no I/O (create_only).
    pub create_only: bool,
    /// Write even to a device with a mounted file system on it.
    pub allow_mounted_write: bool,
    /// How the files are laid out: a writing job pre-fills them
    /// (overwrite), keeps what is there (file_append), and whether
    /// missing files may be created (allow_file_create).
    pub overwrite: bool,
    pub file_append: bool,
    pub allow_file_create: bool,
    /// O_SYNC or O_DSYNC for every open (sync), or 0.
    pub sync_flags: i32,
    /// atomic=1: files are opened with fio's O_ATOMIC bit beside O_DIRECT
    /// (see `engine::OpenMode::atomic`).
    pub atomic: bool,
    /// Read each file's region once before the I/O starts (pre_read).
    pub pre_read: bool,
}

/// What reading the files settles beside their part: the bytes of all
/// regions together (the job's size), fio's line for an opendir walk,
/// and the setup error a job fails with before any I/O.
pub struct Sized {
    pub total: u64,
    pub found: Option<String>,
    pub setup_failure: Option<JobError>,
}

/// The regions' sizes worked out from size, filesize and offset.
struct Regions {
    size: u64,
    offset: u64,
    total: u64,
    regions: Vec<u64>,
    setup_failure: Option<JobError>,
}

impl FilesConfig {
    /// Reads the files, their sizes and offsets, refusing what ferrio
    /// does not run in fio's order.
    pub fn from_spec(
        job: &JobSpec,
        kind: &engine::Kind,
        workload: &WorkloadConfig,
        seeds: &Seeds,
    ) -> Result<(Self, Sized), Refusal> {
        let (paths, named, found) = paths(job, kind, workload)?;
        let sized = regions(job, kind, workload, seeds, &paths, &named)?;
        let pattern = &workload.pattern;
        if let Some(refusal) = crate::run::storage::block_errors::refusal(job, pattern, &paths) {
            return Err(refusal);
        }
        let used = [pattern.read, pattern.write, pattern.trim];
        let (bs, size) = (&workload.bs, sized.size);
        if let Some(dir) =
            (0..3).find(|&d| workload.replay.is_none() && size > 0 && used[d] && bs[d].min() > size)
        {
            return Err(Refusal(format!(
                "job '{}': size {} is smaller than the {} block size {}",
                job.name,
                size,
                ["read", "write", "trim"][dir],
                bs[dir].min()
            )));
        }
        let offset = if job.flag("file_append") {
            append_offset(job, &paths)?
        } else {
            sized.offset
        };
        let files = (paths.len() as u64).max(1);
        let part = FilesConfig {
            lockfile: match job.value("lockfile") {
                Some(Value::Word {
                    word: "exclusive", ..
                }) => Some((false, origin_number(job))),
                Some(Value::Word {
                    word: "readwrite", ..
                }) => Some((true, origin_number(job))),
                _ => None,
            },
            direct: direct(job),
            // pre_read fills the page cache: dropping it would undo that.
            invalidate: job.flag("invalidate") && !job.flag("pre_read"),
            write_hint: match job.setting("write_hint").map(|s| &s.value) {
                Some(Value::Word { word, .. }) => ["none", "short", "medium", "long", "extreme"]
                    .iter()
                    .position(|w| w == word)
                    .map(|i| i as u64 + 1),
                _ => None,
            },
            advice: match job.value("fadvise_hint") {
                Some(Value::Word { word: "0", .. }) => None,
                Some(Value::Word { word: "random", .. }) => Some(libc::POSIX_FADV_RANDOM),
                Some(Value::Word {
                    word: "sequential", ..
                }) => Some(libc::POSIX_FADV_SEQUENTIAL),
                _ if pattern.random => Some(libc::POSIX_FADV_RANDOM),
                _ => Some(libc::POSIX_FADV_SEQUENTIAL),
            },
            ioscheduler: match job.value("ioscheduler") {
                Some(Value::Text(t))
                    if !t.is_empty() && job.flag("disk_util") && !kind.has(caps::DISKLESS) =>
                {
                    Some(t.clone())
                }
                _ => None,
            },
            sync_flags: match job.value("sync") {
                Some(Value::Word { word, .. }) => match *word {
                    "sync" | "1" => libc::O_SYNC,
                    "dsync" => libc::O_DSYNC,
                    _ => 0,
                },
                _ => 0,
            },
            diskless_len: match job.value("size") {
                Some(Value::Nums([size, ..])) if *size > 0 => size / files,
                _ => u64::MAX,
            },
            fallocate: match job.value("fallocate") {
                Some(Value::Word { word, .. }) => match *word {
                    "none" | "0" => crate::engine::Allocation::None,
                    "posix" | "1" => crate::engine::Allocation::Posix,
                    "keep" => crate::engine::Allocation::KeepSize,
                    "truncate" => crate::engine::Allocation::Truncate,
                    _ => crate::engine::Allocation::Native,
                },
                _ => crate::engine::Allocation::Native,
            },
            create_fsync: job.setting("create_fsync").is_none() || job.flag("create_fsync"),
            create_on_open: job.flag("create_on_open"),
            lay_out_in_job: !job.flag("create_serialize"),
            fill_device: job.flag("fill_device"),
            open_files: job.num("openfiles").unwrap_or(0) as usize,
            create_only: job.flag("create_only"),
            allow_mounted_write: job.flag("allow_mounted_write"),
            overwrite: job.flag("overwrite"),
            pre_read: job.flag("pre_read"),
            file_append: job.flag("file_append"),
            allow_file_create: job.flag("allow_file_create"),
            atomic: job.flag("atomic"),
            unlink: job.flag("unlink"),
            unlink_each_loop: job.flag("unlink_each_loop"),
            paths,
            size,
            offset,
            regions: sized.regions,
        };
        let outcome = Sized {
            total: sized.total,
            found,
            setup_failure: sized.setup_failure,
        };
        Ok((part, outcome))
    }
}

/// The job's paths, the names as given (with the job's directory in
/// front), and opendir's line.
type Named = (Vec<PathBuf>, Vec<String>, Option<String>);

/// The job's files (with opendir's, after the named ones), the names as
/// given (with the job's directory in front), and opendir's line.
fn paths(job: &JobSpec, kind: &engine::Kind, workload: &WorkloadConfig) -> Result<Named, Refusal> {
    let mut named = job.filenames();
    let found = add_dir_files(job, &mut named)?;
    let directories = job.directories();
    // fio puts the job's first directory in front of every name it is
    // given, even an absolute one (dir//abs/path), before anything
    // else looks at the file.
    if let Some(dir) = directories.first() {
        for name in &mut named {
            *name = format!("{dir}/{name}");
        }
    }
    let paths: Vec<PathBuf> = if let Some(log) = &workload.replay {
        log.files.clone()
    } else if named.is_empty() && kind.has(caps::IMAGE) {
        // fio names an rbd job's one file after the engine.
        vec![PathBuf::from(kind.name)]
    } else if named.is_empty() {
        // Without a directory the name stands alone, as in fio (whose
        // file name seeds the skewed distributions).
        let dir = match directories.len() {
            0 => PathBuf::new(),
            n => crate::raw_text::path(&directories[job.subjob as usize % n]),
        };
        // Names from filename_format (fio's default: jobname.clone.file).
        // A clone leaves out the names its first instance already
        // uses, as fio does (and so may have no file at all).
        let format = match job.value("filename_format") {
            Some(Value::Text(t)) => t.as_str(),
            _ => "",
        };
        let count = job.num("nrfiles").unwrap_or(1);
        let name = |jobnum: u32, i: u64| make_filename(format, &job.name, jobnum, i);
        (0..count)
            .filter(|&i| job.subjob == 0 || (0..count).all(|j| name(0, j) != name(job.subjob, i)))
            .map(|i| dir.join(crate::raw_text::path(&name(job.subjob, i))))
            .collect()
    } else {
        // Named as the job file wrote them, bytes that are not UTF-8
        // included.
        named.iter().map(|n| crate::raw_text::path(n)).collect()
    };
    Ok((paths, named, found))
}

/// A share of the file (`offset=25%`, `offset_increment=10%`) or bytes,
/// and whether it was a share.
fn share_or_bytes(job: &JobSpec, name: &str, measured: u64) -> (u64, bool) {
    match job.value(name) {
        Some(v) => match percent_of(v) {
            Some(p) => (measured.wrapping_mul(p) / 100, true),
            None => (v.number().unwrap_or(0), false),
        },
        None => (0, false),
    }
}

/// The job's offset: a share of the file is of fio's length of it then
/// (a missing file's is 0, a diskless engine's the size over the files,
/// or unbounded, as C's arithmetic wraps it), rounded up to
/// offset_align (or to the smallest block size), as fio does; so is a
/// share as increment. Each clone's own start decides how much of the
/// file it covers when no size is given.
fn start_offset(
    job: &JobSpec,
    kind: &engine::Kind,
    workload: &WorkloadConfig,
    known: Option<u64>,
    files: u64,
) -> u64 {
    let measured = known.unwrap_or(match job.value("size") {
        _ if !kind.has(caps::DISKLESS) => 0,
        Some(Value::Nums([size, ..])) if *size > 0 => size / files,
        _ => u64::MAX,
    });
    let (offset, offset_shared) = share_or_bytes(job, "offset", measured);
    let (increment, increment_shared) = share_or_bytes(job, "offset_increment", measured);
    let align_bs = match job.setting("offset_align").and_then(|s| s.value.number()) {
        Some(align) if align > 0 => align,
        _ => workload.min_bs(),
    };
    let offset = offset + job.subjob as u64 * increment;
    if offset_shared || increment_shared {
        offset.div_ceil(align_bs) * align_bs
    } else {
        offset
    }
}

/// The size of each existing file, which percentages and a missing size
/// refer to (fio's null engine has no files to measure). An rbd or nbd
/// job's files are its image (the export): fio reads its size in its
/// setup, and fails the job there when it cannot.
fn known_size(
    job: &JobSpec,
    kind: &engine::Kind,
    workload: &WorkloadConfig,
    named: &[String],
    files: u64,
) -> (Option<u64>, Option<Result<u64, JobError>>) {
    let image = kind.image_size(job).map(|probe| {
        probe.map_err(|e| JobError {
            errno: e.errno,
            func: e.func.to_string(),
            message: e.message,
        })
    });
    let known = match &image {
        Some(probe) => probe.as_ref().ok().copied(),
        // fio's filecreate sizes each file it will create at the
        // smallest block size: one I/O per file.
        None if kind.has(caps::CREATES_FILES) => workload.bs.iter().map(BlockSizes::min).min(),
        // A rados job's files are objects, sized by `size` alone.
        None => existing_size(named)
            .filter(|_| kind.on_disk())
            .map(|total| total / files),
    };
    (known, image)
}

/// The job's regions: bytes per file and in all, from size, filesize
/// (a range sizes each file at random within it, with fio's generator
/// and seed), offset and the files that exist; with the setup error fio
/// fails such a job with (it sets the job up, fails it, and reports it
/// with the rest).
fn regions(
    job: &JobSpec,
    kind: &engine::Kind,
    workload: &WorkloadConfig,
    seeds: &Seeds,
    paths: &[PathBuf],
    named: &[String],
) -> Result<Regions, Refusal> {
    let files = (paths.len() as u64).max(1);
    let (known, image) = known_size(job, kind, workload, named, files);
    let offset = start_offset(job, kind, workload, known, files);
    let (filesize, size_range) = match file_size(job) {
        Some((lo, hi)) if lo != hi => (None, Some((lo, hi))),
        Some((lo, _)) => (Some(lo), None),
        None => (None, None),
    };
    // A file of a given size is worked on from the offset to its end,
    // as fio does; an offset past the (smallest) size fails the job's
    // setup.
    let offset_past_file = filesize
        .or(size_range.map(|(lo, _)| lo))
        .is_some_and(|lo| offset > lo);
    let filesize = filesize.map(|fs| fs.saturating_sub(offset));
    refuse_fill_device(job, workload, offset)?;
    let fill_device = job.flag("fill_device");
    let mut unknown_size = false;
    // Set when each existing file is used to its own end (files of
    // different sizes keep them, as in fio).
    let mut own_sizes = false;
    // Bytes per file (the region each file's I/O covers) and in all.
    let (size, total) = match (filesize, job.value("size")) {
        (None, _) if fill_device && job.setting("size").is_none() && size_range.is_none() => {
            (u64::MAX / files, u64::MAX)
        }
        (None, Some(Value::Nums(v))) if size_range.is_some() && v[0] > 0 => (v[0], v[0]),
        (None, _) if size_range.is_some() => (u64::MAX, u64::MAX),
        (Some(per_file), Some(Value::Nums(v))) if v[0] > 0 => {
            (per_file, v[0].min(per_file * files))
        }
        (Some(per_file), _) => (per_file, per_file * files),
        (None, Some(v @ (Value::Nums(_) | Value::Percent(_)))) if percent_of(v).is_some() => {
            let p = percent_of(v).unwrap_or(100);
            let share = match known {
                Some(s) => s * p / 100,
                None => {
                    unknown_size = true;
                    0
                }
            };
            let rest = known.map_or(0, |s| s.saturating_sub(offset));
            let per_file = share.min(rest);
            (per_file, per_file * files)
        }
        // A diskless engine's image (nbd's export) is never extended: fio
        // does no I/O past its end, whatever the size.
        (None, Some(Value::Nums(v))) if v[0] > 0 && image.is_some() && kind.has(caps::DISKLESS) => {
            let per_file = (v[0] / files).min(known.unwrap_or(0).saturating_sub(offset));
            (per_file, per_file * files)
        }
        (None, Some(Value::Nums(v))) if v[0] > 0 => (v[0] / files, v[0]),
        // Without a size, fio works on the rest of each named file.
        _ => {
            own_sizes = known.is_some() && image.is_none() && !kind.has(caps::CREATES_FILES);
            let per_file = known.map_or(0, |s| s.saturating_sub(offset));
            (per_file, per_file * files)
        }
    };
    // A file already sized within a filesize range keeps its size.
    let regions: Vec<u64> = match size_range {
        Some((lo, hi)) => {
            let mut draws = seeds.generator(
                Purpose::FileSize,
                crate::run::place::config::generator_is(job, "tausworthe64"),
            );
            let min_bs = workload.min_bs();
            paths
                .iter()
                .map(|p| {
                    let len = std::fs::metadata(p).map_or(0, |m| m.len());
                    let len = if (lo..=hi).contains(&len) {
                        len
                    } else {
                        let drawn = lo + draws.scaled(hi - lo);
                        drawn - drawn % min_bs
                    };
                    len.saturating_sub(offset)
                })
                .collect()
        }
        None if own_sizes => paths
            .iter()
            .map(|p| {
                existing_size(&[p.to_string_lossy().into_owned()])
                    .map_or(0, |len| len.saturating_sub(offset))
            })
            .collect(),
        None => vec![size; paths.len()],
    };
    let (size, total) = match size_range {
        _ if own_sizes => {
            let sum = regions.iter().copied().fold(0u64, u64::saturating_add);
            (regions.iter().copied().max().unwrap_or(0), sum)
        }
        Some(_) => {
            let sum = regions.iter().copied().fold(0u64, u64::saturating_add);
            (regions.iter().copied().max().unwrap_or(0), total.min(sum))
        }
        None => (size, total),
    };
    let setup_failure = match image {
        // The log sizes a replay: fio checks no size for it.
        _ if workload.replay.is_some() => None,
        Some(Err(e)) => Some(e),
        _ if kind.has(caps::NO_IO) => None,
        // fio gives this failure no error code: only its message.
        _ if offset_past_file => Some(JobError {
            errno: 0,
            func: String::new(),
            message: format!("{}: you need to specify valid offset=", job.name),
        }),
        // With a file size fio asks for no size; a region left empty
        // without one fails its block size check instead.
        _ if filesize.is_some() || size_range.is_some() => {
            let sized = matches!(job.value("size"), Some(Value::Nums([s, ..])) if *s > 0);
            (total == 0 && !sized).then(|| JobError {
                errno: 0,
                func: String::new(),
                message: "fio: blocksize is larger than data set range".to_string(),
            })
        }
        _ => (size == 0 || unknown_size).then(|| JobError {
            errno: libc::EINVAL,
            func: "total_file_size".to_string(),
            message: format!("{}: you need to specify size=", job.name),
        }),
    };
    let setup_failure = setup_failure.or_else(|| {
        let region = regions.first().copied().unwrap_or(size);
        crate::run::storage::block_errors::setup_failure(job, region, workload.bs[2].min())
    });
    Ok(Regions {
        size,
        offset,
        total,
        regions,
        setup_failure,
    })
}

/// fill_device without a size writes until the device is full; fio's
/// ways with it on a reading job with an offset, or on one that reads
/// and writes, are not modelled.
fn refuse_fill_device(
    job: &JobSpec,
    workload: &WorkloadConfig,
    offset: u64,
) -> Result<(), Refusal> {
    let pattern = &workload.pattern;
    if !job.flag("fill_device") {
        return Ok(());
    }
    if pattern.read && !pattern.write && offset != 0 && job.setting("size").is_none() {
        return Err(Refusal(format!(
            "job '{}': fill_device with an offset on a reading job is not run by \
             ferrio: fio 3.33 adds the offset to its unbounded size, which wraps, \
             and lays out a file shorter than the offset; run it with fio",
            job.name
        )));
    }
    if pattern.read && pattern.write {
        return Err(Refusal(format!(
            "job '{}': fill_device on a job that both reads and writes is not run by \
             ferrio: fio 3.33 lays its files out until the filesystem is full and then \
             mixes reads with writes that meet ENOSPC, which is not modelled; run it \
             with fio",
            job.name
        )));
    }
    Ok(())
}

/// file_append: I/O starts where each regular file ends now (fio's
/// start offset is the file's size then, whatever `offset` says).
/// ferrio keeps one start for all files, so files of different sizes
/// are refused.
fn append_offset(job: &JobSpec, paths: &[PathBuf]) -> Result<u64, Refusal> {
    let ends: Vec<u64> = paths
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map_or(0, |m| m.len())
        })
        .collect();
    match ends.split_first() {
        Some((first, rest)) if rest.iter().any(|e| e != first) => Err(Refusal(format!(
            "job '{}': file_append over files of different sizes is not run by ferrio yet",
            job.name
        ))),
        Some((first, _)) => Ok(*first),
        None => Ok(0),
    }
}

/// The size of files that already exist (regular files or block
/// devices): the smallest, once per file, as fio then shares the size out
/// evenly. `None` when a file is missing or empty, or none was named.
fn existing_size(names: &[String]) -> Option<u64> {
    use std::io::{Seek, SeekFrom};
    let mut smallest: Option<u64> = None;
    for name in names {
        let len = std::fs::File::open(name)
            .ok()?
            .seek(SeekFrom::End(0))
            .ok()?;
        if len == 0 {
            return None;
        }
        smallest = Some(smallest.map_or(len, |s| s.min(len)));
    }
    smallest.map(|s| s * names.len() as u64)
}

/// A percentage value (`size=50%`, `offset=25%`).
fn percent_of(v: &Value) -> Option<u64> {
    match v {
        Value::Percent(p) => Some(*p),
        // Per-direction sizes keep a percentage as MAX - p.
        Value::Nums(n) if n[0] >= u64::MAX - 100 => Some(u64::MAX - n[0]),
        _ => None,
    }
}

/// `filesize`: each file's size, or the lo-hi range fio sizes each file
/// within.
fn file_size(job: &JobSpec) -> Option<(u64, u64)> {
    match &job.setting("filesize")?.value {
        Value::Nums([lo, hi, _]) if *hi == 0 || hi == lo => Some((*lo, *lo)),
        Value::Nums([lo, hi, _]) => Some((*lo.min(hi), *lo.max(hi))),
        Value::Ranges([(lo, hi), ..]) => Some((*lo, *hi)),
        _ => None,
    }
}

/// O_DIRECT or not: `direct` and `buffered` are each other's opposite,
/// and whichever was set last decides, as in fio; atomic=1 turns it on
/// whatever they say (fio sets direct for it after reading every option).
fn direct(job: &JobSpec) -> bool {
    if job.flag("atomic") {
        return true;
    }
    let last = job
        .settings
        .iter()
        .rev()
        .find(|s| matches!(s.def.name, "direct" | "buffered"));
    match last {
        Some(s) if s.def.name == "buffered" => !job.flag("buffered"),
        _ => job.flag("direct"),
    }
}

/// A generated file name, as fio's make_filename writes it: each of
/// `$jobname`, `$jobnum`, `$filenum` and `$clientuid` (empty outside
/// client/server runs), matched without regard to case, is replaced
/// wherever it occurs. An empty format means `jobname.jobnum.filenum`.
pub fn make_filename(format: &str, job: &str, jobnum: u32, filenum: u64) -> String {
    if format.is_empty() {
        return format!("{job}.{jobnum}.{filenum}");
    }
    let mut name = format.to_string();
    for (keyword, value) in [
        ("$jobname", job.to_string()),
        ("$jobnum", jobnum.to_string()),
        ("$filenum", filenum.to_string()),
        ("$clientuid", String::new()),
    ] {
        // Search on past each replacement, so that a value holding the
        // keyword cannot loop.
        let mut from = 0;
        while let Some(at) = name[from..]
            .to_ascii_lowercase()
            .find(keyword)
            .map(|i| i + from)
        {
            name.replace_range(at..at + keyword.len(), &value);
            from = at + value.len();
        }
    }
    name
}

/// The number of the job a clone was made from: clones follow it, the
/// first numbered subjob numjobs-1 and the last 1.
fn origin_number(job: &JobSpec) -> u32 {
    let numjobs = job.num("numjobs").unwrap_or(1) as u32;
    let position = if job.subjob == 0 {
        0
    } else {
        numjobs.saturating_sub(job.subjob)
    };
    job.number - position
}

/// opendir: adds every regular file below the directory, recursively and
/// in the order the directory lists them, after the named files (fio's
/// parse-time walk; symbolic links and other kinds are passed over).
/// Returns the line fio prints once for the job as written.
fn add_dir_files(job: &JobSpec, named: &mut Vec<String>) -> Result<Option<String>, Refusal> {
    let Some(Value::Text(top)) = job.setting("opendir").map(|s| &s.value) else {
        return Ok(None);
    };
    walk(top, named).map_err(|(func, e)| {
        Refusal(format!(
            "job '{}': fio: {func}: {e}\nfio: failed parsing opendir={top}",
            job.name
        ))
    })?;
    Ok((job.subjob == 0).then(|| format!("fio: opendir added {} files", named.len())))
}

/// One directory of the opendir walk; on failure, fio's function name
/// with the error.
fn walk(dir: &str, named: &mut Vec<String>) -> Result<(), (String, std::io::Error)> {
    let entries = std::fs::read_dir(dir).map_err(|e| (format!("opendir({dir})"), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| (format!("opendir({dir})"), e))?;
        let path = format!("{dir}/{}", entry.file_name().to_string_lossy());
        let kind = match std::fs::symlink_metadata(&path) {
            Ok(m) => m.file_type(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(("stat".to_string(), e)),
        };
        if kind.is_file() {
            named.push(path);
        } else if kind.is_dir() {
            walk(&path, named)?;
        }
    }
    Ok(())
}
