//! The verification part of a job's config: how written data is
//! stamped and checked, trims among the logged writes, and the state
//! file; with fio's warnings about verifying jobs.

use std::sync::Arc;

use crate::engine::{self, caps};
use crate::options::Value;
use crate::options::distribution::Shape;
use crate::plan::JobSpec;
use crate::run::refusal::Refusal;
use crate::run::workload::{BlockSizes, Pattern, WorkloadConfig};
use crate::verify::checksum::Checksum;
use crate::verify::pattern::DataPattern;
use crate::verify::{Method, VerifySpec};

/// How the job verifies what it writes.
#[derive(Debug, Clone)]
pub struct VerifyConfig {
    /// How written data is stamped and checked, when the job verifies.
    pub verify: Option<Arc<VerifySpec>>,
    /// trim_percentage and trim_backlog, for a writer that logs its
    /// blocks for verification (see trim_backlog.rs).
    pub trim: Option<TrimSpec>,
    /// verify_state_load: fio reads the job's state file before the run
    /// even when the job does not verify (and gives up when it cannot).
    pub verify_state_load: bool,
}

impl VerifyConfig {
    /// Reads the verify options. A job that fails its file setup
    /// (`setup_fails`) does no I/O, so verify settings ferrio cannot run
    /// yet are never reached: fio reports the setup error, and so does
    /// ferrio, instead of refusing the job.
    pub fn from_spec(
        job: &JobSpec,
        kind: &engine::Kind,
        workload: &WorkloadConfig,
        setup_fails: bool,
    ) -> Result<Self, Refusal> {
        let pattern = &workload.pattern;
        let verify = match verify_spec(job, pattern, &workload.bs, job.flag("time_based")) {
            Err(_) if setup_fails => None,
            other => other?,
        };
        let logs_writes = verify.is_some() && pattern.write && job.flag("do_verify");
        let trim = TrimSpec::from_job(job, logs_writes)?;
        if workload.replay.is_some() && verify.is_some() {
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
        Ok(VerifyConfig {
            verify: verify.map(Arc::new),
            trim,
            verify_state_load: job.flag("verify_state_load"),
        })
    }
}

/// fio's warning (init.c, once for the job as written) that clones of a
/// verifying writer share their files, so one may overwrite what another
/// will check: unless each clone gets its own files by name.
pub fn shared_verify_warning(job: &JobSpec, rw: &Pattern) -> Option<String> {
    let verifies = job.verifies();
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

/// fio's warning (init.c, for every job and clone) that without a random
/// map, blocks of varying sizes overlap and only the latest is checked.
pub fn norandommap_verify_warning(job: &JobSpec, bs: &[BlockSizes; 3]) -> Option<String> {
    let fixed = bs.iter().all(|b| b.min() == b.max())
        && bs[0].min() == bs[1].min()
        && bs[0].min() == bs[2].min();
    (job.flag("norandommap") && job.verifies() && !fixed)
        .then(|| "fio: norandommap given for variable block sizes, verify limited".to_string())
}

/// fio's note (init.c) that a time-based writer with a runtime has no
/// time left for its verify pass (only a backlog checks while writing).
pub fn timed_verify_warning(job: &JobSpec, rw: &Pattern) -> Option<String> {
    let warn = job.verifies()
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
        Some(Value::Distribution { shape, .. }) => *shape == Shape::Uniform,
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

/// A verifying writer's trim settings, when they can change anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrimSpec {
    /// trim_percentage: the share of logged writes chosen for trimming.
    pub percent: u64,
    /// trim_backlog: trims come due each time the unchecked writes reach
    /// a multiple of this (0: never).
    pub backlog: u64,
}

impl TrimSpec {
    /// The settings of a job whose writes are logged for verification
    /// (`logs_writes`), or None when they cannot matter: no percentage,
    /// or nothing logged to draw from. Refuses the combinations where
    /// when fio's trim comes due depends on things ferrio does not model.
    pub fn from_job(job: &JobSpec, logs_writes: bool) -> Result<Option<Self>, Refusal> {
        let percent = job.num("trim_percentage").unwrap_or(0);
        if percent == 0 || !logs_writes {
            return Ok(None);
        }
        let refuse = |why: &str| {
            Err(Refusal(format!(
                "job '{}': trim_percentage {why} is not run by ferrio yet (run it with fio)",
                job.name
            )))
        };
        // fio's write loop keeps going while chosen blocks wait, past the
        // job's size when the files have room left, and a backlog read
        // changes both the count and the last direction the rule looks at.
        if job.setting("io_size").is_some() || job.setting("number_ios").is_some() {
            return refuse("with io_size or number_ios");
        }
        if job.flag("time_based") || job.flag("norandommap") {
            return refuse("with time_based or norandommap");
        }
        // Nor does it stop once the job's size is written while blocks
        // wait, unless the offsets run out: with holes or steps in a
        // sequence, zones, a skewed or partly random choice, or no random
        // map, they never do, and fio writes on for good.
        let skewed = matches!(
            job.value("random_distribution"),
            Some(Value::Distribution { shape, .. }) if *shape != Shape::Uniform
        );
        let partly_random = matches!(
            job.value("percentage_random"),
            Some(Value::Nums(v)) if v.iter().any(|&p| p < 100)
        );
        let zoned = matches!(
            job.value("zonemode"),
            Some(Value::Word { word, .. }) if *word != "none"
        );
        let stepped = matches!(job.value("rw"), Some(Value::Word { tail: Some(_), .. }));
        if skewed || partly_random || zoned || stepped || job.setting("ba").is_some() {
            return refuse(
                "with rw steps, zones, random_distribution, percentage_random or blockalign",
            );
        }
        if job.flag("verify_only") {
            return refuse("with verify_only");
        }
        // With I/O in flight, whether the last completion fio saw was a
        // write when the backlog comes due is a matter of timing (the
        // synchronous engines complete each I/O before the next).
        // (Only the sync family's runs were compared with fio's.)
        let sync_family = crate::engine::kind(&job.engine)
            .is_some_and(|k| k.has(crate::engine::caps::SYNC_FAMILY));
        if job.num("iodepth").unwrap_or(1) > 1 && !sync_family {
            return refuse("with iodepth above 1 on an asynchronous engine");
        }
        Ok(Some(TrimSpec {
            percent: percent.min(100),
            backlog: job.num("trim_backlog").unwrap_or(0),
        }))
    }
}
