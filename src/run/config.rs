//! What one job needs to run, read off its planned options; and the
//! refusal, before any I/O, of jobs that use options ferrio cannot run yet.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::{self, Dir, EngineOptions, caps};
use crate::options::check::SplitEntry;
use crate::options::{Support, Value};
use crate::plan::JobSpec;
use crate::rand::fio_rand::{FioRng, Purpose, SeedOptions, Seeds};
use crate::result::JobError;
use crate::result::options::ReportOptions;
use crate::run::place::distribution::Shape;
use crate::run::records::logs::{LogPlan, log_name};
use crate::run::storage::sync_range::SyncRange;
use crate::verify::checksum::Checksum;
use crate::verify::pattern::DataPattern;
use crate::verify::{Method, VerifySpec};

/// The I/O pattern of `rw`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// Directions in use, and whether offsets are random.
    pub read: bool,
    pub write: bool,
    pub trim: bool,
    /// trimwrite: each block is trimmed, then written.
    pub trimwrite: bool,
    pub random: bool,
}

/// A job, ready to run.
#[derive(Debug, Clone)]
pub struct JobConfig {
    pub name: String,
    pub group: u32,
    pub engine: String,
    /// What the engine is, from the engine table.
    pub kind: &'static engine::Kind,
    /// The job's files; I/O goes to them in turn (fio's roundrobin).
    pub paths: Vec<PathBuf>,
    pub pattern: Pattern,
    /// Block sizes per direction.
    pub bs: [BlockSizes; 3],
    /// Keep drawn block sizes as they are instead of rounding them down
    /// to a multiple of the smallest (bs_unaligned).
    pub bs_unaligned: bool,
    /// bs_is_seq_rand: the read sizes serve sequential I/Os and the write
    /// sizes random ones, whatever the I/O's direction.
    pub bs_is_seq_rand: bool,
    /// serialize_overlap: an I/O waits while it overlaps one in flight.
    /// fio drops it for jobs that change no data or run at depth 1.
    pub serialize_overlap: bool,
    /// lockfile: `Some(readwrite)` when the job locks its files around
    /// each I/O, with the number of the job its clones come from (whose
    /// locks they share).
    pub lockfile: Option<(bool, u32)>,
    /// Bytes of the region the job works on in each file.
    pub size: u64,
    /// Where the region starts in the file.
    pub offset: u64,
    /// Bytes of I/O to do before the job ends (io_size times loops).
    pub io_bytes: u64,
    /// Bytes of one pass over the files (io_size, or the whole region).
    pub pass_bytes: u64,
    /// Stop after this many I/Os, if set (number_ios, times loops; never
    /// for a time-based job).
    pub number_ios: Option<u64>,
    /// Wait this long before starting.
    pub startdelay: Duration,
    /// Run this long before measuring (ramp_time); runtime counts after it.
    pub ramp: Duration,
    /// What goes into write buffers.
    pub buffers: BufferFill,
    /// Compressible or duplicate write contents, refilled for every
    /// write; takes the place of `buffers` when set.
    pub buffer_shape: Option<crate::run::storage::content::Shape>,
    /// dedupe_global: every job's seed, for a working set shared by all
    /// (filled in once every job is known).
    pub dedupe_peers: Option<crate::run::storage::content::Peers>,
    /// Remove the file when the job is done.
    pub unlink: bool,
    /// Remove the job's regular files before every loop after the first
    /// (unlink_each_loop); the loop's open creates a writing job's anew.
    pub unlink_each_loop: bool,
    /// When this job ends, stop other jobs as `exit_what` says. fio's
    /// `exitall` is one switch for the whole run: set in any job, it
    /// applies to every job's end ([`super::prepare`] spreads it).
    pub exitall: bool,
    /// When this job fails, stop other jobs as `exit_what` says.
    pub exitall_on_error: bool,
    pub exit_what: ExitWhat,
    /// Report the job's group as one (fio's group_reporting).
    pub group_reporting: bool,
    /// The flow this job keeps pace with (set once every job is known),
    /// and how long it sleeps when held back.
    pub flow: Option<crate::run::pacing::flow::FlowMember>,
    pub flow_sleep: Duration,
    /// latency_target (with its window, percentile and latency_run): the
    /// search for the deepest queue that meets it.
    pub latency_target: Option<LatencyGoal>,
    /// max_latency per direction, in ns (0: none).
    pub max_latency_ns: [u64; 3],
    /// random_generator=lfsr: random offsets from a shift register that
    /// visits each block once, with no random map.
    pub lfsr: bool,
    /// steadystate with a non-zero ss_dur: end the job once it settles.
    pub steady: Option<crate::run::pacing::steady::SteadyConfig>,
    /// What fio says on stderr while setting the job up.
    pub notices: Vec<String>,
    /// What fio says on its output (stdout or --output) while reading the
    /// job, before any report.
    pub info: Vec<String>,
    /// Pause after every `think_blocks` I/Os: spin this long, then sleep.
    pub think_spin: Duration,
    pub think_sleep: Duration,
    pub think_blocks: u64,
    /// thinktime_blocks_type=issue: the blocks are counted as issued
    /// rather than completed.
    pub think_counts_issues: bool,
    /// thinktime_iotime: also pause once this long has passed since the
    /// last pause (the first period starts at the job's start and includes
    /// one think time, as in fio).
    pub think_iotime: Duration,
    /// With thinktime_iotime, fio counts blocks only when thinktime_blocks
    /// was set explicitly (its default of 1 would pause after every I/O).
    pub think_blocks_set: bool,
    /// Sync the file after every this many writes (0: never), with
    /// fsync or, for `fdatasync`, fdatasync.
    pub fsync_blocks: u64,
    pub fdatasync_blocks: u64,
    /// sync_file_range: its flags, and every how many writes.
    pub sync_range: Option<SyncRange>,
    /// Sync once more when all I/O is done, or when closing the file.
    pub end_fsync: bool,
    pub fsync_on_close: bool,
    /// Per-direction caps (0: none): bytes per second and I/Os per second.
    pub rate_bytes: [u64; 3],
    pub rate_iops: [u64; 3],
    /// rate_min and rate_iops_min, measured over rate_cycle.
    pub rate_floors: crate::run::pacing::rate::Floors,
    /// rate_process=poisson: exponential gaps between rate-capped I/Os.
    pub rate_poisson: bool,
    /// rate_ignore_thinktime: time spent thinking does not count against
    /// the rate.
    pub rate_ignore_thinktime: bool,
    pub iodepth: usize,
    /// Queue this many I/Os before submitting them (fio's iodepth_batch).
    pub batch_submit: usize,
    /// Reap at least / at most this many completions at a time.
    pub batch_complete_min: usize,
    pub batch_complete_max: usize,
    /// Neither batch_complete bound set above 0: fio polls, reaping after
    /// every I/O it queues.
    pub reap_after_each_io: bool,
    /// When the queue is full, let it drain to this depth before refilling.
    pub iodepth_low: usize,
    /// Stop after this long (time-based jobs loop over the file until then).
    pub runtime: Option<Duration>,
    pub time_based: bool,
    /// Share of reads in a mixed workload, in percent.
    pub read_percent: u64,
    pub direct: bool,
    /// Alignment of random offsets (fio's blockalign), per direction;
    /// 0 means the smallest block size.
    pub blockalign: [u64; 3],
    pub invalidate: bool,
    /// posix_fadvise advice given when the files are opened.
    pub advice: Option<i32>,
    /// write_hint, when set: the RWH_WRITE_LIFE_* value for each file.
    pub write_hint: Option<u64>,
    pub random_map: bool,
    /// softrandommap: a random map that cannot be allocated leaves the
    /// job without one instead of ending it.
    pub soft_random_map: bool,
    /// random_generator was set (fio then only warns of a file too large
    /// for the 32-bit generator, without moving to the 64-bit one).
    pub random_generator_set: bool,
    /// How random offsets are spread over the file.
    pub distribution: Shape,
    /// Per direction, the share of a random workload's I/Os that are
    /// random (the rest continue sequentially), in percent.
    pub percentage_random: [u64; 3],
    /// Seed for ferrio's own generator (buffer contents, layout).
    pub seed: u64,
    /// fio's seed table for this job: directions, block sizes and random
    /// offsets are drawn from fio's generators with it.
    pub seeds: Seeds,
    /// Draw from fio's 64-bit generator (random_generator=tausworthe64,
    /// or a file with more blocks than a 32-bit draw reaches).
    pub wide_draws: bool,
    /// Which latencies are measured (disable_* and gtod_reduce turn
    /// them off).
    pub measure: Measure,
    /// io_submit_mode=offload: the I/O runs one at a time (see
    /// `run::offload`).
    pub offload: bool,
    /// stats=0: the job runs, but fio gives it no slot of its own in the
    /// reports and logs nothing (see `run::group_results`).
    pub stats: bool,
    /// Whether each I/O is a latency sample (not for the file-operation
    /// engines, whose samples are their file operations).
    pub io_stats: bool,
    /// How often bandwidth and IOPS are sampled (bwavgtime, iopsavgtime).
    pub bw_every: Duration,
    pub iops_every: Duration,
    /// Run as a thread (fio's `thread`) rather than a process: only the
    /// `Starting` line tells the difference.
    pub thread: bool,
    /// The engine options the engines honour.
    pub engine_options: EngineOptions,
    pub report: Arc<ReportOptions>,
    /// The log files the job writes.
    pub logs: LogPlan,
    /// Why the job fails before any I/O (fio's setup errors, reported
    /// with the job rather than refusing the run).
    pub setup_failure: Option<JobError>,
    /// The error fio set while reading the job (an include it could not
    /// open): the job ends with it once its first I/O is done.
    pub read_error: Option<JobError>,
    /// The name of the job this one waits for (wait_for): it starts once
    /// every job of that name has ended.
    pub wait_for: Option<String>,
    /// continue_on_error as fio's bits: 1 read, 2 write, 4 verify; an
    /// ignore_error list sets its kind's bit.
    pub continue_on_error: u8,
    /// ignore_error's errnos per kind (read, write, verify); an empty
    /// list means fio's default, EIO and EILSEQ.
    pub ignore_errors: [Vec<i32>; 3],
    /// error_dump: log every error, also those the job carries on after.
    pub error_dump: bool,
    /// How written data is stamped and checked, when the job verifies.
    pub verify: Option<Arc<VerifySpec>>,
    /// trim_percentage and trim_backlog, for a writer that logs its
    /// blocks for verification (see trim_backlog.rs).
    pub trim: Option<crate::run::verification::trim_backlog::TrimSpec>,
    /// verify_state_load: fio reads the job's state file before the run
    /// even when the job does not verify (and gives up when it cannot).
    pub verify_state_load: bool,
    /// The bytes buffer_pattern fills write buffers with.
    pub buffer_pattern: Option<Arc<[u8]>>,
    /// `rw=read:N` and the like: bytes skipped after each sequential I/O,
    /// or stepped back when negative (fio's ddir_seq_add).
    pub seq_step: i64,
    /// `rw=randread:N`: a new random offset only every N I/Os (fio's
    /// ddir_seq_nr); between them, `repeat_offset` (rw_sequencer=identical)
    /// repeats the last offset, else I/O goes on sequentially.
    pub new_offset_every: u64,
    pub repeat_offset: bool,
    /// How the next file is chosen (file_service_type).
    pub file_service: FileService,
    /// zonemode=strided: the region moves along the file.
    pub zones: Option<StridedZones>,
    /// zonemode=zbd: zones with write pointers emulated in regular files.
    pub zbd: Option<crate::run::place::zbd::ZbdSpec>,
    /// Passes over the files (loops), and whether io_size was given, which
    /// decide whether a pass that ran out of offsets is followed by another.
    pub loops: u64,
    pub io_size_given: bool,
    /// Each file's region in bytes: `size` for every file, unless a
    /// filesize range sized each file on its own.
    pub regions: Vec<u64>,
    /// fio's length of a diskless engine's file before its setup: the
    /// size option shared among the files, or unbounded without one.
    /// Strided zones wrap at a file's length, so it shows in the offsets.
    pub diskless_len: u64,
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
    /// write_iolog: where the job records its I/O (unset when the job
    /// replays a log, as in fio).
    pub write_iolog: Option<PathBuf>,
    /// read_iolog: the parsed log the job replays in place of its own
    /// pattern; its files are `paths`.
    pub replay: Option<Arc<crate::run::records::replay::ReplayLog>>,
    /// ids, CPUs, priorities and commands applied to the job's thread.
    pub thread_setup: crate::sys::sched::ThreadSetup,
    /// The job's own I/O priority (prio/prioclass), and which I/Os are
    /// raised above it (cmdprio_*).
    pub default_ioprio: u16,
    pub cmdprio: Option<Arc<crate::run::place::priority::CmdPrio>>,
    /// Watch the disks under the job's files (disk_util).
    pub disk_util: bool,
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
    /// Where the I/O buffers live (mem/iomem), and how far past a page
    /// boundary each starts (iomem_align).
    pub mem: crate::run::storage::iomem::MemKind,
    /// hugepage-size: what huge page buffer memory is rounded up to.
    pub hugepage_size: usize,
    pub iomem_align: usize,
}

/// zonemode=strided: `size` bytes of I/O in each zone of `range` bytes,
/// then `skip` bytes are skipped to the next zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedZones {
    pub size: u64,
    pub range: u64,
    pub skip: u64,
}

/// file_service_type: which file the next I/O goes to, and for how many
/// I/Os in a row (its `:N`).
#[derive(Debug, Clone, PartialEq)]
pub struct FileService {
    pub kind: ServiceKind,
    pub per_pick: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ServiceKind {
    RoundRobin,
    /// Stay on one file until it is done.
    Sequential,
    Random,
    /// zipf, pareto or normal over the files.
    Skewed(Shape),
}

impl FileService {
    /// Skewed choices reuse a finished file rather than retire it.
    pub fn skewed(&self) -> bool {
        matches!(self.kind, ServiceKind::Skewed(_))
    }
}

/// What a job measures per I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measure {
    pub slat: bool,
    pub clat: bool,
    pub lat: bool,
    pub bw: bool,
    /// Feed the slat, clat and lat histograms (their percentiles are on).
    pub slat_hist: bool,
    pub clat_hist: bool,
    pub lat_hist: bool,
}

/// The block sizes one direction draws from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockSizes {
    Fixed(u64),
    /// `bsrange=min-max`.
    Range {
        min: u64,
        max: u64,
    },
    /// `bssplit`: sizes with their share of the I/Os.
    Split {
        entries: Vec<SplitEntry>,
        min: u64,
        max: u64,
    },
}

impl BlockSizes {
    pub fn min(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { min, .. } | BlockSizes::Split { min, .. } => *min,
        }
    }

    pub fn max(&self) -> u64 {
        match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { max, .. } | BlockSizes::Split { max, .. } => *max,
        }
    }

    /// The size of the next I/O, as fio's get_next_buflen picks it: a
    /// range adds a share of the maximum to the minimum, a split takes the
    /// first size that fits whose cumulative share covers the draw; both
    /// are then rounded down to a multiple of the minimum (unless
    /// unaligned) and capped at the maximum, and drawn again until the
    /// size `fits` (ends within the region).
    pub fn pick(&self, rng: &mut FioRng, unaligned: bool, fits: impl Fn(u64) -> bool) -> u64 {
        let (min, max) = (self.min(), self.max());
        if min == max || !fits(min) {
            return min;
        }
        loop {
            let picked = self.draw(rng, unaligned, &fits);
            if fits(picked) {
                return picked;
            }
        }
    }

    /// One draw of get_next_buflen's loop.
    fn draw(&self, rng: &mut FioRng, unaligned: bool, fits: &impl Fn(u64) -> bool) -> u64 {
        let (min, max) = (self.min(), self.max());
        let top = rng.max();
        let r = rng.draw();
        let picked = match self {
            BlockSizes::Fixed(b) => *b,
            BlockSizes::Range { .. } => min + (max as f64 * (r as f64 / (top as f64 + 1.0))) as u64,
            BlockSizes::Split { entries, .. } => {
                let mut cumulative = 0u64;
                let mut chosen = max;
                for e in entries.iter().filter(|e| e.percent > 0) {
                    chosen = e.bs;
                    cumulative += e.percent as u64;
                    if r / cumulative <= top / 100 && fits(e.bs) {
                        break;
                    }
                }
                chosen
            }
        };
        let aligned = if unaligned {
            picked
        } else if min.is_power_of_two() {
            picked & !(min - 1)
        } else {
            picked - picked % min
        };
        aligned.min(max).max(min)
    }
}

/// How write buffers are filled (fio's zero_buffers, refill_buffers,
/// scramble_buffers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferFill {
    /// Zeros, once.
    Zeros,
    /// Random bytes once, then each write stamped with its offset so that
    /// no two blocks are alike (fio's default, scramble_buffers=1).
    RandomScrambled,
    /// Random bytes once, unchanged after.
    Random,
    /// New random bytes before every write.
    Refill,
    /// buffer_pattern, filled once; refilled before every write when the
    /// job also reads into the same buffers.
    Pattern { refill: bool },
}

/// Which jobs a job's end stops (fio's `exit_what`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitWhat {
    /// The jobs of its group.
    Group,
    /// The jobs running now (in ferrio, which runs one group at a
    /// time, its group's).
    Stonewall,
    /// The running jobs, and every job still to start, which then never
    /// does.
    All,
}

/// Why a job cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl JobConfig {
    /// Reads the options ferrio runs. Any other option that was set makes
    /// the job refused, naming the options, so nothing is silently ignored.
    #[allow(clippy::too_many_lines)] // issue 16: being split by the job-loop/config work
    pub fn from_spec(job: &JobSpec, readonly: bool) -> Result<Self, Refusal> {
        let in_bytes = crate::run::place::zone_counts::in_bytes(job);
        let job: &JobSpec = &in_bytes;
        // A built-in profile's options (tiobench's `threads`, act's
        // `load`...) are accepted everywhere but only mean something to a
        // job that runs that profile: elsewhere fio ignores them, and so
        // does ferrio.
        let profile = match job.value("profile") {
            Some(Value::Text(p)) => Some(p.as_str()),
            Some(Value::Word { word, .. }) => Some(*word),
            _ => None,
        };
        let inert = |def: &crate::options::OptDef| def.profile.is_some_and(|p| Some(p) != profile);
        // An option set to its default (`overwrite=0`) changes nothing.
        let is_default = |s: &crate::plan::Setting| {
            crate::plan::job::default_value(s.def).is_some_and(|d| *d == s.value)
        };
        let pending: Vec<&str> = job
            .settings
            .iter()
            .filter(|s| s.def.support == Support::ParseOnly && !inert(s.def) && !is_default(s))
            .map(|s| s.def.name)
            .collect();
        let offload = matches!(
            job.value("io_submit_mode"),
            Some(Value::Word {
                word: "offload",
                ..
            })
        );
        let offloadable = |k: &engine::Kind| k.has(caps::OFFLOADABLE);
        if offload && !engine::kind(&job.engine).is_some_and(offloadable) {
            let names: Vec<&str> = engine::KINDS
                .iter()
                .filter(|k| offloadable(k))
                .map(|k| k.name)
                .collect();
            return Err(Refusal(format!(
                "job '{}': io_submit_mode=offload is run by ferrio only for the engines whose \
                 offloaded runs were compared with fio 3.33's ({}), not ioengine={}",
                job.name,
                names.join(", "),
                job.engine
            )));
        }
        if !pending.is_empty() {
            return Err(Refusal(format!(
                "job '{}': ferrio does not run these options yet: {} (run it with fio, or drop them)",
                job.name,
                pending.join(", ")
            )));
        }
        // Neither has fio 3.33 (dircreate, dirstat and dirdelete came
        // later): fio fails to load it, and so does the run here.
        if !crate::options::FIO_ENGINES.contains(&job.engine.as_str()) {
            return Err(Refusal(format!(
                "job '{}': fio: engine {} not loadable (fio 3.33 has no such engine built in)",
                job.name, job.engine
            )));
        }
        let Some(kind) = engine::kind(&job.engine) else {
            let names: Vec<&str> = engine::KINDS.iter().map(|k| k.name).collect();
            return Err(Refusal(format!(
                "job '{}': ioengine={} is not available in ferrio yet (it has: {})",
                job.name,
                job.engine,
                names.join(", ")
            )));
        };
        let replay = replay_log(job, readonly)?;
        // A replayed log decides the directions (and has no pattern).
        let pattern = match &replay {
            Some(log) => Pattern {
                read: log.reads,
                write: log.writes,
                trim: log.trims,
                trimwrite: false,
                random: false,
            },
            None => pattern(job)?,
        };
        let zbd = zbd_spec(job, kind)?;
        let (seq_step, new_offset_every) = rw_modifier(job, &pattern)?;
        if readonly && (pattern.write || pattern.trim) {
            return Err(Refusal(format!(
                "job '{}': it writes, and --readonly is set",
                job.name
            )));
        }
        let bs = block_sizes(job)?;
        // fio's vsync writes a trim's buffer (its writev takes every
        // direction but reads); a job that does not write has no such
        // buffer there, and fio fails it in a way not reproduced here.
        if kind.has(caps::TRIMS_AS_WRITES) && pattern.trim && !pattern.write {
            return Err(Refusal(format!(
                "job '{}': trims on ioengine=vsync without writes are not run by ferrio yet \
                 (trimwrite is)",
                job.name
            )));
        }
        // fio gives up the random map only for a blockalign other than
        // a direction's smallest size (its own default) on a random job.
        let aligned_apart = pattern.random
            && per_dir(job, "ba")
                .iter()
                .zip(&bs)
                .any(|(&ba, sizes)| ba != 0 && ba != sizes.min());
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
        let rbd = kind.has(caps::IMAGE);
        let paths: Vec<PathBuf> = if let Some(log) = &replay {
            log.files.clone()
        } else if named.is_empty() && rbd {
            // fio names an rbd job's one file after the engine.
            vec![PathBuf::from("rbd")]
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
                .filter(|&i| {
                    job.subjob == 0 || (0..count).all(|j| name(0, j) != name(job.subjob, i))
                })
                .map(|i| dir.join(crate::raw_text::path(&name(job.subjob, i))))
                .collect()
        } else {
            // Named as the job file wrote them, bytes that are not UTF-8
            // included.
            named.iter().map(|n| crate::raw_text::path(n)).collect()
        };
        let files = (paths.len() as u64).max(1);
        // The size of each existing file, which percentages and a missing
        // size refer to (fio's null engine has no files to measure).
        // An rbd job's files are its image: fio reads the image's size in
        // its setup, and fails the job there when it cannot.
        let image = rbd.then(|| engine::rbd::image_size(&engine::rbd::target(job)));
        let known = match &image {
            Some(probe) => probe.as_ref().ok().copied(),
            // fio's filecreate sizes each file it will create at the
            // smallest block size: one I/O per file.
            None if kind.has(caps::CREATES_FILES) => bs.iter().map(BlockSizes::min).min(),
            // A rados job's files are objects, sized by `size` alone.
            None => existing_size(&named)
                .filter(|_| kind.on_disk())
                .map(|total| total / files),
        };
        let mut unknown_size = false;
        let mut share = |p: u64| match known {
            Some(s) => s * p / 100,
            None => {
                unknown_size = true;
                0
            }
        };
        // An offset as a share of the file is of fio's length of it
        // then: a missing file's is 0, a diskless engine's the size
        // over the files (or unbounded, as C's arithmetic wraps it).
        let measured = known.unwrap_or(match job.value("size") {
            _ if !kind.has(caps::DISKLESS) => 0,
            Some(Value::Nums([size, ..])) if *size > 0 => size / files,
            _ => u64::MAX,
        });
        let offset_share = |p: u64| measured.wrapping_mul(p) / 100;
        // A share of the file is rounded up to offset_align (or to the
        // smallest block size), as fio does; so is a share as increment.
        let mut aligned = false;
        let offset = match job.value("offset") {
            Some(v) => match percent_of(v) {
                Some(p) => {
                    aligned = true;
                    offset_share(p)
                }
                None => v.number().unwrap_or(0),
            },
            None => 0,
        };
        let increment = match job.value("offset_increment") {
            Some(v) => match percent_of(v) {
                Some(p) => {
                    aligned = true;
                    offset_share(p)
                }
                None => v.number().unwrap_or(0),
            },
            None => 0,
        };
        let align_bs = match job.setting("offset_align").and_then(|s| s.value.number()) {
            Some(align) if align > 0 => align,
            _ => bs.iter().map(BlockSizes::min).min().unwrap_or(4096).max(1),
        };
        let align = |offset: u64| {
            if aligned {
                offset.div_ceil(align_bs) * align_bs
            } else {
                offset
            }
        };
        // Each clone's own start decides how much of the file it covers
        // when no size is given.
        let offset = align(offset + job.subjob as u64 * increment);
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
        // fill_device without a size writes until the device is full.
        let fill_device = job.flag("fill_device");
        if fill_device
            && pattern.read
            && !pattern.write
            && offset != 0
            && job.setting("size").is_none()
        {
            return Err(Refusal(format!(
                "job '{}': fill_device with an offset on a reading job is not run by \
                 ferrio: fio 3.33 adds the offset to its unbounded size, which wraps, \
                 and lays out a file shorter than the offset; run it with fio",
                job.name
            )));
        }
        if fill_device && pattern.read && pattern.write {
            return Err(Refusal(format!(
                "job '{}': fill_device on a job that both reads and writes is not run by \
                 ferrio: fio 3.33 lays its files out until the filesystem is full and then \
                 mixes reads with writes that meet ENOSPC, which is not modelled; run it \
                 with fio",
                job.name
            )));
        }
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
                let rest = known.map_or(0, |s| s.saturating_sub(offset));
                let per_file = share(p).min(rest);
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
        // A filesize range sizes each file at random within it, as fio
        // does (with fio's generator and seed, so the sizes are fio's); a
        // file already sized within the range keeps its size.
        let min_bs = bs.iter().map(BlockSizes::min).min().unwrap_or(4096).max(1);
        let seeds = Seeds::new(SeedOptions {
            randseed: job.num("randseed").unwrap_or(0x89),
            randseed_set: job.setting("randseed").is_some(),
            randrepeat: job.flag("randrepeat"),
            allrandrepeat: job.flag("allrandrepeat"),
            thread_number: u64::from(job.number),
        });
        let regions: Vec<u64> = match size_range {
            Some((lo, hi)) => {
                let wide = matches!(
                    job.value("random_generator"),
                    Some(Value::Word {
                        word: "tausworthe64",
                        ..
                    })
                );
                let mut draws = seeds.generator(Purpose::FileSize, wide);
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
        // fio sets such a job up, fails it, and reports it with the rest.
        let setup_failure = match image {
            // The log sizes a replay: fio checks no size for it.
            _ if replay.is_some() => None,
            Some(Err(e)) => Some(JobError {
                errno: e.errno(),
                func: "rbd setup".to_string(),
                message: format!("fio_rbd_connect failed: {e}"),
            }),
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
            crate::run::storage::block_errors::setup_failure(job, region, bs[2].min())
        });
        if let Some(refusal) = crate::run::storage::block_errors::refusal(job, &pattern, &paths) {
            return Err(refusal);
        }
        let used = [pattern.read, pattern.write, pattern.trim];
        if let Some(dir) =
            (0..3).find(|&d| replay.is_none() && size > 0 && used[d] && bs[d].min() > size)
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
            offset
        };
        let loops = job.num("loops").unwrap_or(1).max(1);
        let io_size = job.setting("io_size").and_then(|s| match s.value {
            Value::Nums(v) if v[0] > 0 => Some(v[0]),
            _ => None,
        });
        // Without io_size, fio's budget is the files' regions together
        // (its size, capped at what the files hold), not rounded to
        // blocks: a job whose offsets never run out (reads and writes
        // each with their own position, norandommap) issues the I/O
        // that crosses it. One whose offsets do run out stops at each
        // file's last whole block anyway.
        let whole = regions
            .iter()
            .fold(0u64, |sum, &r| sum.saturating_add(r))
            .min(total);
        let whole = if zbd.is_some() { total } else { whole };
        // trimwrite writes every block it trims: twice the bytes.
        let pass_bytes = io_size
            .unwrap_or(whole)
            .max(1)
            .saturating_mul(if pattern.trimwrite { 2 } else { 1 });
        let io_bytes = pass_bytes.saturating_mul(loops);
        // An engine that moves no data never gets through any size: such
        // a job runs until its runtime or number_ios ends it, or forever.
        // A replay goes on until its log is done; its size is the log's.
        let (pass_bytes, io_bytes) = match &replay {
            Some(log) => (u64::MAX, log.bytes),
            None if kind.has(caps::NO_IO) => (u64::MAX, u64::MAX),
            None => (pass_bytes, io_bytes),
        };
        let startdelay = match job.value("startdelay") {
            Some(Value::Nums([lo, hi, _])) if hi > lo => {
                // A range: each job picks its own delay within it.
                lo + crate::run::place::offsets::Rng::new(job.number as u64).below(hi - lo + 1)
            }
            Some(Value::Nums(v)) => v[0],
            _ => 0,
        };
        let compress = job.num("buffer_compress_percentage").unwrap_or(0).min(100) as u32;
        let dedupe = job.num("dedupe_percentage").unwrap_or(0).min(100) as u32;
        let buffer_shape = buffer_shape(job, &bs, size, compress, dedupe);
        let buffer_pattern = match job.setting("buffer_pattern").map(|s| &s.value) {
            Some(Value::Pattern(p)) => Some(p.clone()),
            Some(Value::Text(t)) => {
                let e = DataPattern::unreadable(t, false);
                return Err(Refusal(format!("job '{}': buffer_pattern: {e}", job.name)));
            }
            _ => None,
        };
        // A job that fails its file setup does no I/O, so verify settings
        // ferrio cannot run yet are never reached: fio reports the setup
        // error, and so does ferrio, instead of refusing the job.
        let verify = match verify_spec(job, &pattern, &bs, cfg_time_based(job)) {
            Err(_) if setup_failure.is_some() => None,
            other => other?,
        };
        let logs_writes = verify.is_some() && pattern.write && job.flag("do_verify");
        let trim = crate::run::verification::trim_backlog::TrimSpec::from_job(job, logs_writes)?;
        let norandommap_note = norandommap_verify_warning(job, &bs);
        if replay.is_some() && verify.is_some() {
            return Err(Refusal(format!(
                "job '{}': verify with read_iolog is not run by ferrio yet",
                job.name
            )));
        }
        // fio's file engines fake their I/O, so its verify passes without
        // looking, after timing each file's operation once more, and the
        // engines without data have nothing to check; ferrio models
        // neither yet.
        if verify.is_some() && (kind.has(caps::NO_STATS) || kind.has(caps::NO_IO)) {
            return Err(Refusal(format!(
                "job '{}': verify with ioengine={} is not run by ferrio yet",
                job.name, job.engine
            )));
        }
        let buffers = if buffer_pattern.is_some() {
            // fio turns scrambling and zeroing off, and refills only for
            // jobs that read.
            BufferFill::Pattern {
                refill: pattern.read,
            }
        } else if job.flag("zero_buffers") || compress == 100 {
            // Fully compressible means zeros (unless some buffers repeat).
            BufferFill::Zeros
        } else if job.flag("refill_buffers") {
            BufferFill::Refill
        } else if job.flag("scramble_buffers") {
            BufferFill::RandomScrambled
        } else {
            BufferFill::Random
        };
        // cpuio thinks after each of its I/Os by itself, whatever the
        // job's thinktime says (fio's engine overrides it).
        let (think, think_spin, think_blocks) = if kind.has(caps::OWN_THINK_TIME) {
            (0, 0, 1)
        } else {
            let think = job.num("thinktime").unwrap_or(0);
            let spin = job.num("thinktime_spin").unwrap_or(0).min(think);
            (think, spin, job.num("thinktime_blocks").unwrap_or(1).max(1))
        };
        let seed = if !job.flag("randrepeat") {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        } else {
            job.num("randseed").unwrap_or(0)
                ^ (job.number as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        };
        let wide_draws = matches!(
            job.value("random_generator"),
            Some(Value::Word {
                word: "tausworthe64",
                ..
            })
        );
        let lfsr = matches!(
            job.value("random_generator"),
            Some(Value::Word { word: "lfsr", .. })
        );
        let runtime = job
            .num("runtime")
            .filter(|&us| us > 0)
            .map(Duration::from_micros);
        let time_based = job.flag("time_based");
        if time_based && runtime.is_none() {
            return Err(Refusal(format!(
                "job '{}': time_based needs a runtime",
                job.name
            )));
        }
        let read_percent = match (job.setting("rwmixread"), job.setting("rwmixwrite")) {
            (None, Some(w)) => 100 - w.value.number().unwrap_or(0).min(100),
            _ => job.num("rwmixread").unwrap_or(50).min(100),
        };
        // A blktrace's probed depth stands in for an iodepth left unset.
        let probed = replay
            .as_ref()
            .and_then(|log| log.depth)
            .filter(|_| job.setting("iodepth").is_none());
        let iodepth = match probed {
            Some(depth) => depth,
            None => job.num("iodepth").unwrap_or(1).max(1) as usize,
        };
        let ignore_errors = match job.value("ignore_error") {
            Some(Value::ErrorLists(lists)) => lists.clone(),
            _ => Default::default(),
        };
        let batch_complete_min = job.num("iodepth_batch_complete_min").unwrap_or(1) as usize;
        let report = ReportOptions::from_spec(job);
        let reduced = job.flag("gtod_reduce");
        let measure = Measure {
            slat: !reduced && !job.flag("disable_slat"),
            clat: !reduced && !job.flag("disable_clat"),
            lat: !reduced && !job.flag("disable_lat"),
            bw: !job.flag("disable_bw_measurement"),
            slat_hist: report.slat_percentiles,
            clat_hist: report.clat_percentiles,
            lat_hist: report.lat_percentiles,
        };
        let logs = log_plan(job, &measure);
        // fio compresses a histogram log's entries as if they were plain
        // ones, whose value is then a memory address: nothing to match.
        if logs.hist.is_some() && (logs.gz_batch.is_some() || logs.gz_store) {
            return Err(Refusal(format!(
                "job '{}': write_hist_log with log_compression or log_store_compressed \
                 is not run by ferrio (fio 3.33 writes memory addresses in place of \
                 the histogram lines then)",
                job.name
            )));
        }
        // A bw (IOPS) log sets the sampling interval to its own averaging
        // unless bwavgtime (iopsavgtime) is set; 0 means per I/O.
        let every = |name, logged: bool| {
            let ms = match job.setting(name) {
                Some(s) => s.value.number().unwrap_or(500),
                None if logged => job.num("log_avg_msec").unwrap_or(0),
                None => 500,
            };
            Duration::from_millis(ms.max(1))
        };
        let thread_setup =
            crate::sys::sched::ThreadSetup::from_job(job, job.number.saturating_sub(1) as usize);
        let default_ioprio = thread_setup.default_ioprio();
        let cmdprio = if kind.has(caps::KERNEL_AIO) {
            crate::run::place::priority::CmdPrio::from_job(
                job,
                default_ioprio,
                pattern.read,
                pattern.write,
            )
            .map_err(|e| Refusal(format!("{e}\nfio: io engine {} init failed.", job.engine)))?
        } else {
            None
        };
        Ok(JobConfig {
            disk_util: job.flag("disk_util"),
            ioscheduler: match job.value("ioscheduler") {
                Some(Value::Text(t))
                    if !t.is_empty() && job.flag("disk_util") && !kind.has(caps::DISKLESS) =>
                {
                    Some(t.clone())
                }
                _ => None,
            },
            create_only: job.flag("create_only"),
            allow_mounted_write: job.flag("allow_mounted_write"),
            overwrite: job.flag("overwrite"),
            pre_read: job.flag("pre_read"),
            mem: crate::run::storage::iomem::MemKind::from_job(job),
            hugepage_size: job.num("hugepage-size").unwrap_or(2 << 20) as usize,
            iomem_align: job.num("iomem_align").unwrap_or(0) as usize,
            file_append: job.flag("file_append"),
            allow_file_create: job.flag("allow_file_create"),
            atomic: job.flag("atomic"),
            sync_flags: match job.value("sync") {
                Some(Value::Word { word, .. }) => match *word {
                    "sync" | "1" => libc::O_SYNC,
                    "dsync" => libc::O_DSYNC,
                    _ => 0,
                },
                _ => 0,
            },
            thread_setup,
            default_ioprio,
            cmdprio: cmdprio.map(Arc::new),
            name: job.name.clone(),
            group: job.group,
            engine: job.engine.clone(),
            kind,
            paths,
            pattern,
            bs,
            size,
            iodepth,
            batch_submit: match job.num("iodepth_batch").unwrap_or(1) as usize {
                0 => iodepth,
                n => n.min(iodepth),
            },
            batch_complete_min,
            batch_complete_max: match job.setting("iodepth_batch_complete_max") {
                Some(_) => job.num("iodepth_batch_complete_max").unwrap_or(1) as usize,
                None => batch_complete_min,
            }
            .max(batch_complete_min)
            .max(1),
            reap_after_each_io: batch_complete_min == 0
                && job.num("iodepth_batch_complete_max").unwrap_or(0) == 0,
            iodepth_low: match job.setting("iodepth_low") {
                Some(_) if probed.is_none() => {
                    (job.num("iodepth_low").unwrap_or(0) as usize).min(iodepth)
                }
                _ => iodepth,
            },
            runtime,
            time_based,
            read_percent,
            bs_unaligned: job.flag("bs_unaligned"),
            bs_is_seq_rand: job.flag("bs_is_seq_rand"),
            lockfile: match job.value("lockfile") {
                Some(Value::Word {
                    word: "exclusive", ..
                }) => Some((false, origin_number(job))),
                Some(Value::Word {
                    word: "readwrite", ..
                }) => Some((true, origin_number(job))),
                _ => None,
            },
            serialize_overlap: job.flag("serialize_overlap")
                && (job.setting("read_iolog").is_some()
                    || ((pattern.write || pattern.trim) && iodepth > 1)),
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
            blockalign: per_dir(job, "ba"),
            random_map: !job.flag("norandommap") && !aligned_apart,
            soft_random_map: job.flag("softrandommap"),
            random_generator_set: job.setting("random_generator").is_some(),
            distribution: distribution(job)?,
            percentage_random: match job.value("percentage_random") {
                Some(Value::Nums(v)) => v.map(|p| p.min(100)),
                _ => [100; 3],
            },
            seed,
            seeds,
            wide_draws,
            offset,
            io_bytes,
            pass_bytes,
            // fio's count covers all of the job's loops, twice over for
            // trimwrite (a trim and a write per block); a time-based job
            // runs its whole runtime whatever it says. (fio doubles it
            // again at each new loop, which matters only when the count
            // ends a loop early, and then ferrio ends the job there.)
            number_ios: job
                .num("number_ios")
                .filter(|&n| n > 0 && !time_based)
                .map(|n| n.saturating_mul(loops) * if pattern.trimwrite { 2 } else { 1 }),
            startdelay: Duration::from_micros(startdelay),
            ramp: Duration::from_micros(job.num("ramp_time").unwrap_or(0)),
            buffers,
            buffer_shape,
            dedupe_peers: None,
            unlink: job.flag("unlink"),
            unlink_each_loop: job.flag("unlink_each_loop"),
            exitall: job.flag("exitall"),
            exitall_on_error: job.flag("exitall_on_error"),
            exit_what: match job.value("exit_what") {
                Some(Value::Word { word: "all", .. }) => ExitWhat::All,
                Some(Value::Word {
                    word: "stonewall", ..
                }) => ExitWhat::Stonewall,
                _ => ExitWhat::Group,
            },
            group_reporting: job.flag("group_reporting"),
            steady: steady(job),
            lfsr,
            latency_target: match job.num("latency_target").unwrap_or(0) {
                0 => None,
                us => Some(LatencyGoal {
                    target_ns: us.saturating_mul(1000),
                    window_ns: job.num("latency_window").unwrap_or(0).saturating_mul(1000),
                    percentile: report.latency_percentile,
                    keep_running: job.flag("latency_run"),
                }),
            },
            max_latency_ns: per_dir(job, "max_latency").map(|us| us.saturating_mul(1000)),
            flow: None,
            flow_sleep: Duration::from_micros(job.num("flow_sleep").unwrap_or(0)),
            notices: norandommap_note
                .into_iter()
                .chain(
                    (aligned_apart && !job.flag("norandommap"))
                        .then(|| "fio: Any use of blockalign= turns off randommap".to_string()),
                )
                .collect(),
            info: found
                .into_iter()
                .chain(shared_verify_warning(job, &pattern))
                .chain(timed_verify_warning(job, &pattern))
                .collect(),
            think_spin: Duration::from_micros(think_spin),
            think_sleep: Duration::from_micros(think - think_spin),
            think_blocks,
            think_counts_issues: matches!(
                job.value("thinktime_blocks_type"),
                Some(Value::Word { word: "issue", .. })
            ),
            think_iotime: Duration::from_micros(job.num("thinktime_iotime").unwrap_or(0)),
            think_blocks_set: job.setting("thinktime_blocks").is_some(),
            fsync_blocks: job.num("fsync").unwrap_or(0),
            fdatasync_blocks: job.num("fdatasync").unwrap_or(0),
            sync_range: sync_range(job, kind)?,
            end_fsync: job.flag("end_fsync"),
            fsync_on_close: job.flag("fsync_on_close"),
            rate_bytes: per_dir(job, "rate"),
            rate_iops: per_dir(job, "rate_iops"),
            rate_floors: crate::run::pacing::rate::Floors {
                bytes: per_dir(job, "rate_min"),
                iops: per_dir(job, "rate_iops_min"),
                cycle_ms: job.num("rate_cycle").unwrap_or(1000),
            },
            rate_ignore_thinktime: job.flag("rate_ignore_thinktime"),
            rate_poisson: matches!(
                job.value("rate_process"),
                Some(Value::Word {
                    word: "poisson",
                    ..
                })
            ),
            measure,
            stats: job.flag("stats"),
            offload,
            bw_every: every("bwavgtime", logs.bw.is_some()),
            iops_every: every("iopsavgtime", logs.iops.is_some()),
            logs,
            setup_failure,
            read_error: job.include_errno.map(|errno| JobError {
                errno,
                func: "file:init.c:1956, func=job file open".to_string(),
                message: String::new(),
            }),
            wait_for: match job.value("wait_for") {
                Some(Value::Text(t)) if !t.is_empty() => Some(t.clone()),
                _ => None,
            },
            thread: job.flag("thread"),
            continue_on_error: match job.value("continue_on_error") {
                Some(Value::Word { word, .. }) => match *word {
                    "read" => 1,
                    "write" => 2,
                    "io" => 3,
                    "verify" => 4,
                    "all" | "1" => 7,
                    _ => 0,
                },
                _ => 0,
            } | (0..3)
                .filter(|&k| !ignore_errors[k].is_empty())
                .fold(0, |bits, k| bits | 1 << k),
            ignore_errors,
            error_dump: job.flag("error_dump"),
            engine_options: kind.options(&engine::OptionSource {
                job,
                reads: pattern.read,
                writes: pattern.write,
                random: pattern.random,
                size,
                direct: direct(job),
                default_ioprio,
            }),
            io_stats: !kind.has(caps::NO_STATS),
            report: Arc::new(report),
            seq_step,
            new_offset_every,
            repeat_offset: matches!(
                job.value("rw_sequencer"),
                Some(Value::Word {
                    word: "identical",
                    ..
                })
            ),
            file_service: file_service(job)?,
            zones: strided_zones(job)?,
            zbd,
            loops,
            io_size_given: io_size.is_some(),
            regions,
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
            create_on_open: job.flag("create_on_open"),
            lay_out_in_job: !job.flag("create_serialize"),
            fill_device,
            open_files: job.num("openfiles").unwrap_or(0) as usize,
            write_iolog: match job.value("write_iolog") {
                Some(Value::Text(_)) if replay.is_some() => {
                    eprintln!("fio: read iolog overrides write_iolog");
                    None
                }
                Some(Value::Text(t)) => Some(PathBuf::from(t)),
                _ => None,
            },
            replay,
            create_fsync: job.setting("create_fsync").is_none() || job.flag("create_fsync"),
            verify: verify.map(Arc::new),
            trim,
            verify_state_load: job.flag("verify_state_load"),
            buffer_pattern: buffer_pattern.map(|p| Arc::from(p.bytes())),
        })
    }

    /// Whether any rate cap applies.
    pub fn rate_capped(&self) -> bool {
        self.rate_bytes
            .iter()
            .chain(&self.rate_iops)
            .any(|&r| r > 0)
    }
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

/// merge_blktrace_file: merges read_iolog's blktrace files as fio 3.33
/// does, before the job replays them (or, under --merge-blktrace-only,
/// instead of running it); nothing when the job asks for no merge.
pub fn merge_traces(job: &JobSpec) -> Result<(), Refusal> {
    let Some(Value::Text(output)) = job.value("merge_blktrace_file") else {
        return Ok(());
    };
    let Some(Value::Text(list)) = job.value("read_iolog") else {
        return Err(Refusal(format!(
            "job '{}': merge_blktrace_file needs read_iolog (the blktrace files to merge)",
            job.name
        )));
    };
    let floats = |name| match job.value(name) {
        Some(Value::Floats { values, .. }) => values.clone(),
        _ => Vec::new(),
    };
    let logs: Vec<&str> = list.split(':').collect();
    let scalars = floats("merge_blktrace_scalars");
    let iters = floats("merge_blktrace_iters");
    match crate::run::records::merge_blktrace::merge(
        &logs,
        std::path::Path::new(output),
        &scalars,
        &iters,
    ) {
        Ok(said) => {
            eprintln!("{said}");
            Ok(())
        }
        Err(e) => Err(Refusal(format!("job '{}': {e}", job.name))),
    }
}

/// read_iolog: the log this job (or clone) replays, parsed with the
/// replay options.
fn replay_log(
    job: &JobSpec,
    readonly: bool,
) -> Result<Option<Arc<crate::run::records::replay::ReplayLog>>, Refusal> {
    use crate::run::records::replay::{ReplayOptions, load, log_for_clone};
    merge_traces(job)?;
    let Some(Value::Text(list)) = job.value("read_iolog") else {
        return Ok(None);
    };
    let opts = ReplayOptions {
        redirect: match job.value("replay_redirect") {
            Some(Value::Text(t)) => Some(PathBuf::from(t)),
            _ => None,
        },
        scale: job.num("replay_scale").unwrap_or(1),
        align: job.num("replay_align").unwrap_or(0),
        no_stall: job.flag("replay_no_stall"),
        time_scale: job.num("replay_time_scale").unwrap_or(100).max(1),
        readonly,
        skip: [false; 3],
        skip_sync: false,
    };
    let mut opts = opts;
    if let Some(Value::Text(list)) = job.value("replay_skip") {
        for word in list.split(',').map(str::trim) {
            match word {
                "read" => opts.skip[Dir::Read as usize] = true,
                "write" => opts.skip[Dir::Write as usize] = true,
                "trim" => opts.skip[Dir::Trim as usize] = true,
                "sync" => opts.skip_sync = true,
                _ => {
                    return Err(Refusal(format!(
                        "job '{}': replay_skip: Unknown skip type: {word} \
                         (expected read, write, trim or sync)",
                        job.name
                    )));
                }
            }
        }
    }
    let path = log_for_clone(list, job.subjob);
    load(std::path::Path::new(path), &job.name, &opts)
        .map(|log| Some(Arc::new(log)))
        .map_err(|e| Refusal(format!("job '{}': {e}", job.name)))
}

/// sync_file_range, where ferrio makes the call as fio does: from the
/// synchronous engines, splice and libaio, which call it between I/Os
/// (mmap msyncs its mapping for it, posixaio fsyncs the file). fio
/// queues it in the ring under io_uring: that stays refused, as does
/// recording it in write_iolog.
fn sync_range(job: &JobSpec, kind: &engine::Kind) -> Result<Option<SyncRange>, Refusal> {
    let Some(Value::Text(text)) = job.value("sync_file_range") else {
        return Ok(None);
    };
    if !kind.has(caps::SYNCS_RANGES) {
        return Err(Refusal(format!(
            "job '{}': sync_file_range with ioengine={} is not run by ferrio yet \
             (it runs with the sync family, splice, libaio, posixaio and mmap)",
            job.name, job.engine
        )));
    }
    if job.setting("write_iolog").is_some() {
        return Err(Refusal(format!(
            "job '{}': sync_file_range with write_iolog is not run by ferrio yet",
            job.name
        )));
    }
    Ok(Some(SyncRange::parse(text)))
}

/// The log files of a job, named as fio names them.
fn log_plan(job: &JobSpec, measure: &Measure) -> LogPlan {
    let per_job = job.flag("per_job_logs");
    let store = job.flag("log_store_compressed");
    let path = |option: &str, kind: &str| -> Option<PathBuf> {
        let setting = job.setting(option)?;
        let prefix = match &setting.value {
            Value::Text(t) if !t.is_empty() => t.clone(),
            Value::Word { tail: Some(t), .. } if !t.is_empty() => t.clone(),
            _ => job.name.clone(),
        };
        let name = log_name(&prefix, kind, job.number, per_job);
        // Stored compressed, fio's files end in `.log.fz`.
        Some(if store {
            let mut name = name.into_os_string();
            name.push(".fz");
            name.into()
        } else {
            name
        })
    };
    let avg = job.num("log_avg_msec").unwrap_or(0);
    // An explicit bwavgtime (iopsavgtime) caps the log's window.
    let rate_avg = |name: &str| match job.setting(name) {
        Some(s) => avg.min(s.value.number().unwrap_or(500)),
        None => avg,
    };
    LogPlan {
        lat: path("write_lat_log", "lat").filter(|_| measure.lat),
        slat: path("write_lat_log", "slat").filter(|_| measure.slat),
        clat: path("write_lat_log", "clat").filter(|_| measure.clat),
        bw: path("write_bw_log", "bw"),
        iops: path("write_iops_log", "iops"),
        hist: path("write_hist_log", "clat_hist"),
        lat_avg_ms: avg,
        bw_avg_ms: rate_avg("bwavgtime"),
        iops_avg_ms: rate_avg("iopsavgtime"),
        max_value: job.flag("log_max_value"),
        offset: job.flag("log_offset"),
        prio: job.flag("log_prio"),
        hist_ms: job.num("log_hist_msec").unwrap_or(0),
        hist_coarseness: job.num("log_hist_coarseness").unwrap_or(0).min(6) as u32,
        epoch_clock: (job.flag("log_unix_epoch") || job.flag("log_alternate_epoch"))
            .then(|| job.num("log_alternate_epoch_clock_id").unwrap_or(0) as libc::clockid_t),
        shared: !per_job,
        epoch_ms: 0,
        entries: job.num("log_entries").unwrap_or(1024),
        gz_batch: job
            .num("log_compression")
            .filter(|&n| n > 0)
            .map(|_| job.num("log_entries").unwrap_or(1024) as usize),
        gz_cpus: job
            .setting("log_compression_cpus")
            .and_then(|s| match &s.value {
                Value::CpuList(cpus) => Some(cpus.clone()),
                // A blank list, given, names no CPU.
                _ => s.text.as_ref().map(|_| Vec::new()),
            }),
        gz_store: store,
        muted: !job.flag("stats"),
    }
}

/// Block sizes per direction from `bssplit`, else `bsrange`, else `bs`.
pub fn block_sizes(job: &JobSpec) -> Result<[BlockSizes; 3], Refusal> {
    if let Some(Value::BsSplit(splits)) = job.setting("bssplit").map(|s| &s.value) {
        return Ok(splits.clone().map(|mut entries| {
            // fio looks sizes up from the smallest share to the largest.
            entries.sort_by_key(|e| e.percent);
            let min = entries.iter().map(|e| e.bs).min().unwrap_or(4096);
            let max = entries.iter().map(|e| e.bs).max().unwrap_or(4096);
            BlockSizes::Split { entries, min, max }
        }));
    }
    if let Some(Value::Ranges(r)) = job.setting("bsrange").map(|s| &s.value) {
        return Ok(r.map(|(min, max)| BlockSizes::Range { min, max }));
    }
    let bs = match job.value("bs") {
        Some(Value::Nums(v)) => *v,
        _ => [4096; 3],
    };
    Ok(bs.map(BlockSizes::Fixed))
}

/// `random_distribution`: the word and its `:` parameters.
fn distribution(job: &JobSpec) -> Result<Shape, Refusal> {
    let Some(Value::Word { word, tail }) = job.value("random_distribution") else {
        return Ok(Shape::Uniform);
    };
    let tail = tail.as_deref().unwrap_or("");
    let mut numbers = tail
        .split(':')
        .map(|t| crate::options::number::c_float(t.trim()));
    let value = numbers.next().flatten();
    let center = numbers.next().flatten();
    Ok(match *word {
        "random" => Shape::Uniform,
        "zipf" => Shape::Zipf {
            theta: value.unwrap_or(1.1),
            center,
        },
        "pareto" => Shape::Pareto {
            h: value.unwrap_or(0.2),
            center,
        },
        "normal" => Shape::Normal {
            deviation: value.unwrap_or(0.0),
            center,
        },
        // Checked when the option was read, with the same rules.
        "zoned" | "zoned_abs" => {
            let kb_base = job.num("kb_base").unwrap_or(1024);
            let absolute = *word == "zoned_abs";
            let zones = crate::options::check::parse_zoned(tail, absolute, kb_base)
                .map_err(|e| Refusal(format!("job '{}': {e}", job.name)))?;
            if absolute {
                Shape::ZonedAbs(zones)
            } else {
                Shape::Zoned(zones.map(|d| d.into_iter().map(|(a, s)| (a, s as u32)).collect()))
            }
        }
        other => {
            return Err(Refusal(format!(
                "job '{}': random_distribution={other} is not run by ferrio yet",
                job.name
            )));
        }
    })
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

/// The shape of write contents under buffer_compress_percentage and
/// dedupe_percentage; `None` when neither shapes them (a compress
/// percentage of 100 means zeros).
fn buffer_shape(
    job: &JobSpec,
    bs: &[BlockSizes; 3],
    size: u64,
    compress: u32,
    dedupe: u32,
) -> Option<crate::run::storage::content::Shape> {
    use crate::run::storage::content::{DedupeMode, Shape};
    let compress = if compress == 100 { 0 } else { compress };
    if compress == 0 && dedupe == 0 {
        return None;
    }
    let min_bs = bs[Dir::Write as usize].min().max(1);
    let mode = match job.value("dedupe_mode") {
        Some(Value::Word {
            word: "working_set",
            ..
        }) => {
            let percent = job.num("dedupe_working_set_percentage").unwrap_or(5);
            DedupeMode::WorkingSet {
                pages: size * percent / 100 / min_bs,
                global: job.flag("dedupe_global"),
            }
        }
        _ => DedupeMode::Repeat,
    };
    Some(Shape {
        compress,
        chunk: job.num("buffer_compress_chunk").unwrap_or(512) as usize,
        dedupe,
        mode,
        min_bs: min_bs as usize,
    })
}

/// A per-direction number option, zeros when unset.
fn per_dir(job: &JobSpec, name: &str) -> [u64; 3] {
    match job.value(name) {
        Some(Value::Nums(v)) => *v,
        _ => [0; 3],
    }
}

/// The earliest time, counted from the job's start, at which the next I/O
/// of a direction may be issued under its rate caps: when the I/O done so
/// far has used its share of time (fio's linear rate process).
pub fn rate_due(cfg: &JobConfig, dir: usize, ios: u64, bytes: u64) -> Option<Duration> {
    let by_bytes = (cfg.rate_bytes[dir] > 0).then(|| bytes as f64 / cfg.rate_bytes[dir] as f64);
    let by_ios = (cfg.rate_iops[dir] > 0).then(|| ios as f64 / cfg.rate_iops[dir] as f64);
    match (by_bytes, by_ios) {
        (None, None) => None,
        (a, b) => Some(Duration::from_secs_f64(
            a.unwrap_or(0.0).max(b.unwrap_or(0.0)),
        )),
    }
}

fn pattern(job: &JobSpec) -> Result<Pattern, Refusal> {
    let word = match job.value("rw") {
        Some(Value::Word { word, .. }) => *word,
        _ => "read",
    };
    let p = |read, write, random| {
        Ok(Pattern {
            read,
            write,
            trim: false,
            trimwrite: false,
            random,
        })
    };
    let trim = |random, trimwrite| {
        Ok(Pattern {
            read: false,
            write: trimwrite,
            trim: true,
            trimwrite,
            random,
        })
    };
    match word {
        "read" => p(true, false, false),
        "write" => p(false, true, false),
        "trim" => trim(false, false),
        "trimwrite" => trim(false, true),
        "randtrimwrite" => trim(true, true),
        "randread" => p(true, false, true),
        "randwrite" => p(false, true, true),
        "randtrim" => trim(true, false),
        "rw" | "readwrite" => p(true, true, false),
        "randrw" => p(true, true, true),
        other => Err(Refusal(format!(
            "job '{}': rw={other} is not run by ferrio yet",
            job.name
        ))),
    }
}

/// The `:N` after `rw`: for sequential patterns, the bytes skipped after
/// each I/O (negative: stepped back); for random ones, how many I/Os share
/// each new random offset. fio reads the first as a size and the second
/// with atoi.
fn rw_modifier(job: &JobSpec, pattern: &Pattern) -> Result<(i64, u64), Refusal> {
    let Some(Value::Word {
        tail: Some(tail), ..
    }) = job.value("rw")
    else {
        return Ok((0, 1));
    };
    if pattern.random {
        let digits: &str = {
            let t = tail.trim_start();
            let end = t
                .char_indices()
                .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && matches!(c, '+' | '-'))))
                .map_or(t.len(), |(i, _)| i);
            &t[..end]
        };
        let every = digits.parse::<i64>().unwrap_or(0);
        if every <= 0 {
            return Err(Refusal(format!(
                "job '{}': rw={tail}: the number of I/Os per random offset must be at least 1",
                job.name
            )));
        }
        return Ok((0, every as u64));
    }
    let kb_base = job.num("kb_base").filter(|&b| b != 0).unwrap_or(1024);
    match crate::options::number::size(tail.trim(), kb_base) {
        Some(crate::options::number::SizeValue::Bytes(b)) => Ok((b as i64, 1)),
        _ => Err(Refusal(format!(
            "job '{}': rw postfix '{tail}' is not a size",
            job.name
        ))),
    }
}

/// file_service_type and its `:N` (I/Os per pick) or distribution
/// parameter.
fn file_service(job: &JobSpec) -> Result<FileService, Refusal> {
    let Some(Value::Word { word, tail }) = job.value("file_service_type") else {
        return Ok(FileService {
            kind: ServiceKind::RoundRobin,
            per_pick: 1,
        });
    };
    let tail = tail.as_deref().unwrap_or("");
    let count = || {
        // fio reads the count with atoi: leading digits, else 0.
        let t = tail.trim_start();
        let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        t[..end]
            .parse::<u64>()
            .unwrap_or(if tail.is_empty() { 1 } else { 0 })
    };
    let mut numbers = tail
        .split(':')
        .map(|t| crate::options::number::c_float(t.trim()));
    let value = numbers.next().flatten();
    let center = numbers.next().flatten();
    let kind = match *word {
        "roundrobin" => ServiceKind::RoundRobin,
        "sequential" => ServiceKind::Sequential,
        "random" => ServiceKind::Random,
        "zipf" => ServiceKind::Skewed(Shape::Zipf {
            theta: value.unwrap_or(1.1),
            center,
        }),
        "pareto" => ServiceKind::Skewed(Shape::Pareto {
            h: value.unwrap_or(0.2),
            center,
        }),
        "normal" | "gauss" => ServiceKind::Skewed(Shape::Normal {
            deviation: value.unwrap_or(0.0),
            center,
        }),
        other => {
            return Err(Refusal(format!(
                "job '{}': file_service_type={other} is not known",
                job.name
            )));
        }
    };
    let per_pick = match kind {
        ServiceKind::Skewed(_) => 1,
        _ => count(),
    };
    Ok(FileService { kind, per_pick })
}

/// zonemode=zbd's options. ferrio emulates zones in regular files only
/// (fio's ZBD_NONE model); what it does not model is refused here.
fn zbd_spec(
    job: &JobSpec,
    kind: &engine::Kind,
) -> Result<Option<crate::run::place::zbd::ZbdSpec>, Refusal> {
    if !matches!(job.value("zonemode"), Some(Value::Word { word: "zbd", .. })) {
        return Ok(None);
    }
    let refuse = |what: &str| {
        Err(Refusal(format!(
            "job '{}': zonemode=zbd {what} is not run by ferrio yet",
            job.name
        )))
    };
    if verifies(job) {
        return refuse("with verify (fio replays the zones' write order)");
    }
    if job.setting("read_iolog").is_some() {
        return refuse("with read_iolog");
    }
    // Engines on files, and null that fakes them; the others' targets
    // are not files fio would emulate zones in.
    if !kind.has(caps::FILE_IO) && !kind.has(caps::FAKE_IO) {
        return refuse(&format!("with ioengine={}", job.engine));
    }
    let max_open = job.num("max_open_zones").unwrap_or(0) as u32;
    let depth = job.num("iodepth").unwrap_or(1);
    let synchronous = kind.has(caps::FILE_IO | caps::SYNC_IO);
    if max_open > 0 && depth > 1 && !synchronous {
        // fio closes a zone as the write that fills it completes, which
        // ferrio does not follow for I/O in flight.
        return refuse("with max_open_zones and iodepth above 1 on an asynchronous engine");
    }
    let regular = |name: &String| std::fs::metadata(name).map_or(true, |m| m.is_file());
    let dir = match job.value("directory") {
        Some(Value::Text(d)) if !d.is_empty() => Some(d.clone()),
        _ => None,
    };
    for name in job.filenames() {
        let path = match &dir {
            Some(d) if !name.starts_with('/') => format!("{d}/{name}"),
            _ => name,
        };
        if !regular(&path) {
            return Err(Refusal(format!(
                "job '{}': zonemode=zbd on {path}: ferrio emulates zones in regular files \
                 only; zoned and other block devices are not run by ferrio yet",
                job.name
            )));
        }
    }
    let fraction = |name: &str| match job.value(name) {
        Some(Value::Floats { values, .. }) => values.first().copied().unwrap_or(0.0),
        _ => 0.0,
    };
    Ok(Some(crate::run::place::zbd::ZbdSpec {
        zone_size: job.num("zonesize").unwrap_or(0),
        zone_capacity: job.num("zonecapacity").unwrap_or(0),
        read_beyond_wp: job.flag("read_beyond_wp"),
        zone_skip: job.num("zoneskip").unwrap_or(0),
        max_open_zones: max_open,
        job_max_open_zones: job.num("job_max_open_zones").unwrap_or(0) as u32,
        reset_threshold: fraction("zone_reset_threshold"),
        reset_frequency: fraction("zone_reset_frequency"),
        tables: Vec::new(),
    }))
}

/// zonemode=strided: zonerange defaults to zonesize. As in fio 3.33, a
/// zonesize needs zonemode=strided (or zbd), and strided zones need a
/// zonesize; with more than one file open at a time they are off.
fn strided_zones(job: &JobSpec) -> Result<Option<StridedZones>, Refusal> {
    let size = job.num("zonesize").unwrap_or(0);
    let mode = match job.value("zonemode") {
        Some(Value::Word { word, .. }) => *word,
        _ => "none",
    };
    let fail = |text: &str| Err(Refusal(format!("job '{}': fio: {text}", job.name)));
    match (mode, size) {
        ("none", 0) | ("zbd", _) => return Ok(None),
        ("none", _) => return fail("--zonemode=none and --zonesize are not compatible."),
        (_, 0) => return fail("--zonesize must be specified when using --zonemode=strided."),
        _ => {}
    }
    // fio drops the zones for openfiles above one as given, before it
    // defaults openfiles to the file count: several files keep them.
    if job.num("openfiles").unwrap_or(0) > 1 {
        return Ok(None);
    }
    let range = job.num("zonerange").filter(|&r| r > 0).unwrap_or(size);
    Ok(Some(StridedZones {
        size,
        range,
        skip: job.num("zoneskip").unwrap_or(0),
    }))
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

/// fio's warning (init.c, once for the job as written) that clones of a
/// verifying writer share their files, so one may overwrite what another
/// will check: unless each clone gets its own files by name.
fn shared_verify_warning(job: &JobSpec, rw: &Pattern) -> Option<String> {
    let verifies = verifies(job);
    let own_files = job.setting("filename").is_none()
        && job.flag("unique_filename")
        && match job.value("filename_format") {
            Some(Value::Text(f)) => ["$jobname", "$jobnum", "$filenum"]
                .iter()
                .all(|k| f.contains(k)),
            _ => false,
        };
    let warn = verifies
        && rw.write
        && job.flag("do_verify")
        && job.subjob == 0
        && job.num("numjobs").unwrap_or(1) > 1
        && !own_files;
    warn.then(|| {
        "fio: multiple writers may overwrite blocks that belong to other jobs. This can cause verification failures."
            .to_string()
    })
}

/// Whether the job verifies, as verify_spec reads it: verify_pattern
/// alone verifies too.
fn verifies(job: &JobSpec) -> bool {
    match job.setting("verify").map(|s| &s.value) {
        Some(Value::Word { word: "0", .. }) => false,
        Some(_) => true,
        None => job.setting("verify_pattern").is_some(),
    }
}

/// fio's warning (init.c, for every job and clone) that without a random
/// map, blocks of varying sizes overlap and only the latest is checked.
fn norandommap_verify_warning(job: &JobSpec, bs: &[BlockSizes; 3]) -> Option<String> {
    let fixed = bs.iter().all(|b| b.min() == b.max())
        && bs[0].min() == bs[1].min()
        && bs[0].min() == bs[2].min();
    (job.flag("norandommap") && verifies(job) && !fixed)
        .then(|| "fio: norandommap given for variable block sizes, verify limited".to_string())
}

/// fio's note (init.c) that a time-based writer with a runtime has no
/// time left for its verify pass (only a backlog checks while writing).
fn timed_verify_warning(job: &JobSpec, rw: &Pattern) -> Option<String> {
    let warn = verifies(job)
        && rw.write
        && !rw.read
        && job.flag("do_verify")
        && job.flag("time_based")
        && job.num("runtime").unwrap_or(0) > 0
        && job.num("verify_backlog").unwrap_or(0) == 0;
    warn.then(|| {
        "fio: verification read phase will never start because write phase uses all of runtime"
            .to_string()
    })
}

fn cfg_time_based(job: &JobSpec) -> bool {
    job.flag("time_based")
}

/// experimental_verify: ferrio replays the writes it issued, which is what
/// fio's reseeded generators draw again, except where fio's replay would
/// draw something else: fresh random offsets (randrepeat=0), a skewed
/// distribution whose state fio does not reset, and draws past the writes
/// (fio stops on bytes completed, so at a depth above one it goes on
/// drawing offsets, and may issue more reads than writes, while reads are
/// in flight). Loops, io_size, number_ios and time_based run as in fio:
/// the replayed reads count among the writes issued, and the bytes
/// verified over the whole job (see `Verifying::rest`).
fn replay_supported(job: &JobSpec, rw: &Pattern) -> Result<(), &'static str> {
    // fio's replay draws the job's reads again too, counting them in its
    // read/write mix as it goes: what it turns into reads is not simply
    // the writes in their order.
    if rw.read && rw.write {
        return Err("on a job that reads and writes");
    }
    // fio turns the replayed trims into reads as well, expecting zeros.
    if rw.trim {
        return Err("on a job that trims");
    }
    if rw.random && !job.flag("randrepeat") {
        return Err("with randrepeat=0");
    }
    let uniform = match job.value("random_distribution") {
        Some(Value::Word { word, .. }) => *word == "random",
        _ => true,
    };
    if rw.random && !uniform {
        return Err("with a random_distribution other than random");
    }
    if rw.random && job.setting("percentage_random").is_some() {
        return Err("with percentage_random");
    }
    if job.num("iodepth").unwrap_or(1) > 1 {
        return Err("at an iodepth above 1");
    }
    Ok(())
}

/// The job's verify settings, with fio's fix-ups of verify_interval
/// (init.c): by default the smallest write size, never more than it, and
/// always a divisor of the smallest and largest write sizes.
fn verify_spec(
    job: &JobSpec,
    rw: &Pattern,
    bs: &[BlockSizes; 3],
    time_based: bool,
) -> Result<Option<VerifySpec>, Refusal> {
    let refuse = |what: String| Refusal(format!("job '{}': {what}", job.name));
    let pattern = match job.setting("verify_pattern").map(|s| &s.value) {
        Some(Value::Pattern(p)) => Some(p.clone()),
        Some(Value::Text(t)) => {
            let e = DataPattern::unreadable(t, true);
            return Err(refuse(format!("verify_pattern: {e}")));
        }
        _ => None,
    };
    let word = match job.setting("verify").map(|s| &s.value) {
        Some(Value::Word { word, .. }) => Some(*word),
        _ => None,
    };
    let method = match (word, &pattern) {
        (None | Some("0"), None) => return Ok(None),
        // verify_pattern alone verifies the pattern behind a header.
        (None, Some(_)) => Method::HeaderAndPattern,
        (Some("0"), Some(_)) => return Ok(None),
        (Some("meta"), _) => Method::HeaderOnly,
        (Some("null"), _) => Method::Null,
        (Some("pattern"), Some(_)) => Method::PatternOnly,
        (Some("pattern"), None) => {
            return Err(refuse("verify=pattern needs a verify_pattern".to_string()));
        }
        (Some(w), _) => Method::Checksum(Checksum::from_word(w).ok_or_else(|| {
            refuse(format!(
                "verify={w} is not run by ferrio yet (run it with fio)"
            ))
        })?),
    };
    let (min_w, max_w) = (bs[1].min(), bs[1].max());
    let mut interval = job.num("verify_interval").unwrap_or(0);
    if min_w != max_w && interval == 0 {
        interval = min_w;
    }
    interval = interval.min(min_w);
    if interval == 0 || min_w % interval != 0 || max_w % interval != 0 {
        interval = gcd(min_w, max_w);
    }
    let header_at = job.num("verify_offset").unwrap_or(0) as usize;
    // fio writes past the interval (or fails the job) in these cases.
    let header = method.header_size();
    if header > 0 && (interval as usize <= header || header_at + header > interval as usize) {
        return Err(refuse(format!(
            "verify_interval {interval} has no room for the {header}-byte verify header at offset {header_at}"
        )));
    }
    let backlog = job.num("verify_backlog").unwrap_or(0);
    let only = job.flag("verify_only");
    let replay = job.flag("experimental_verify");
    if replay {
        replay_supported(job, rw).map_err(|why| {
            refuse(format!(
                "experimental_verify {why} is not run by ferrio (run it with fio)"
            ))
        })?;
    }
    Ok(Some(VerifySpec {
        method,
        interval: interval as usize,
        header_at,
        pattern,
        fatal: job.flag("verify_fatal"),
        read_back: job.flag("do_verify"),
        only,
        backlog,
        backlog_batch: job
            .num("verify_backlog_batch")
            .filter(|&b| b > 0)
            .unwrap_or(backlog),
        // A job that only reads cannot know which write a block holds;
        // fio compares the sizes of all three directions.
        check_numberio: rw.write && fixed_size(bs) && !time_based && !only,
        thread: job.number as u16,
        dump: job.flag("verify_dump"),
        dump_dir: None,
        state_save: job.flag("verify_state_save"),
        loaded: None,
        replay,
        offload_threads: job.num("verify_async").unwrap_or(0) as usize,
        offload_cpus: match job.value("verify_async_cpus") {
            Some(Value::CpuList(cpus)) => Some(cpus.clone()),
            _ => None,
        },
    }))
}

/// Whether every I/O of the job has one size (fio's td_min_bs equal to
/// its td_max_bs, over reads, writes and trims alike).
fn fixed_size(bs: &[BlockSizes; 3]) -> bool {
    let min = bs.iter().map(BlockSizes::min).min();
    min.is_some() && min == bs.iter().map(BlockSizes::max).max()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `latency_target` and the options that shape its search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyGoal {
    pub target_ns: u64,
    pub window_ns: u64,
    pub percentile: f64,
    pub keep_running: bool,
}

/// The steady-state criterion, when `ss_dur` turns it on.
fn steady(job: &JobSpec) -> Option<crate::run::pacing::steady::SteadyConfig> {
    let dur = job.num("steadystate_duration").unwrap_or(0);
    if dur < 1_000_000 {
        return None;
    }
    let Some(Value::Word { word, tail }) = job.value("steadystate") else {
        return None;
    };
    let ramp = job.num("steadystate_ramp_time").unwrap_or(0);
    crate::run::pacing::steady::SteadyConfig::new(word, tail.as_deref()?, dur, ramp)
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
