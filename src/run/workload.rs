//! The workload part of a job's config: what the job's I/O is (its
//! directions, block sizes, sequence steps and the log it replays), read
//! first, as fio reads rw and bs before the rest.

use std::sync::Arc;

use crate::engine::{self, caps};
use crate::options::Value;
use crate::options::parsed::SplitEntry;
use crate::plan::JobSpec;
use crate::rand::fio_rand::FioRng;
use crate::run::place::zbd::spec::ZbdSpec;
use crate::run::records::replay_log::ReplayLog;
use crate::run::refusal::Refusal;

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

/// What the job's I/O is.
#[derive(Debug, Clone)]
pub struct WorkloadConfig {
    pub pattern: Pattern,
    /// Block sizes per direction.
    pub bs: [BlockSizes; 3],
    /// Keep drawn block sizes as they are instead of rounding them down
    /// to a multiple of the smallest (bs_unaligned).
    pub bs_unaligned: bool,
    /// bs_is_seq_rand: the read sizes serve sequential I/Os and the write
    /// sizes random ones, whatever the I/O's direction.
    pub bs_is_seq_rand: bool,
    /// Share of reads in a mixed workload, in percent.
    pub read_percent: u64,
    /// `rw=read:N` and the like: bytes skipped after each sequential I/O,
    /// or stepped back when negative (fio's ddir_seq_add).
    pub seq_step: i64,
    /// `rw=randread:N`: a new random offset only every N I/Os (fio's
    /// ddir_seq_nr); between them, `repeat_offset` (rw_sequencer=identical)
    /// repeats the last offset, else I/O goes on sequentially.
    pub new_offset_every: u64,
    pub repeat_offset: bool,
    /// read_iolog: the parsed log the job replays in place of its own
    /// pattern; its files are the job's paths.
    pub replay: Option<Arc<ReplayLog>>,
}

impl WorkloadConfig {
    /// Reads the workload, refusing what ferrio does not run, in fio's
    /// order; zonemode=zbd's options are read (and refused) between the
    /// pattern and its `:N`, as before, and handed back for placement.
    pub fn from_spec(
        job: &JobSpec,
        readonly: bool,
        kind: &engine::Kind,
    ) -> Result<(Self, Option<ZbdSpec>), Refusal> {
        let replay = crate::run::records::replay::replay_log(job, readonly)?;
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
        let zbd = ZbdSpec::from_spec(job, kind)?;
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
        let read_percent = match (job.setting("rwmixread"), job.setting("rwmixwrite")) {
            (None, Some(w)) => 100 - w.value.number().unwrap_or(0).min(100),
            _ => job.num("rwmixread").unwrap_or(50).min(100),
        };
        let workload = WorkloadConfig {
            pattern,
            bs,
            bs_unaligned: job.flag("bs_unaligned"),
            bs_is_seq_rand: job.flag("bs_is_seq_rand"),
            read_percent,
            seq_step,
            new_offset_every,
            repeat_offset: matches!(
                job.value("rw_sequencer"),
                Some(Value::Word {
                    word: "identical",
                    ..
                })
            ),
            replay,
        };
        Ok((workload, zbd))
    }

    /// The smallest block size of any direction (4096 when none).
    pub fn min_bs(&self) -> u64 {
        self.bs
            .iter()
            .map(BlockSizes::min)
            .min()
            .unwrap_or(4096)
            .max(1)
    }
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

/// A per-direction number option, zeros when unset.
pub fn per_dir(job: &JobSpec, name: &str) -> [u64; 3] {
    match job.value(name) {
        Some(Value::Nums(v)) => *v,
        _ => [0; 3],
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
