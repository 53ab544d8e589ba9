//! Write-buffer contents shaped for compression and deduplication
//! (buffer_compress_percentage, buffer_compress_chunk, dedupe_percentage,
//! dedupe_mode, dedupe_working_set_percentage), laid out as fio lays
//! them out, so that the data written compresses and dedupes as fio's
//! does.
//!
//! A buffer is filled chunk by chunk: each chunk starts with random
//! bytes and ends with zeros, the zeros being the compressible share.
//! Every chunk's random bytes come from a seed drawn from a stream of
//! seeds; a buffer that is to repeat earlier content replays a position
//! of that stream instead of advancing it.

use std::sync::Arc;

use crate::engine::Dir;
use crate::options::Value;
use crate::plan::JobSpec;
use crate::run::place::offsets::Rng;

/// How duplicate buffers pick the content they repeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DedupeMode {
    /// The content of the next unique buffer (fio's `repeat`: a copy of
    /// the generator's current state).
    Repeat,
    /// A random one of `pages` unique buffers (fio's `working_set`): the
    /// job's first ones, or with `global` (dedupe_global) runs of the
    /// first ones of every job in turn, starting with its own.
    WorkingSet { pages: u64, global: bool },
}

/// The jobs whose unique buffers a global working set draws on: every
/// job's seed, in job order, and this job's place among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peers {
    pub seeds: Vec<u64>,
    pub own: usize,
}

/// Gives the jobs with a global dedupe working set the seeds of every
/// job of the run, as fio hands them each job's generator: each job is
/// given as its seed and its content part.
pub fn share_working_sets(jobs: &mut [(u64, &mut ContentConfig)]) {
    let seeds: Vec<u64> = jobs.iter().map(|(seed, _)| *seed).collect();
    for (own, (_, job)) in jobs.iter_mut().enumerate() {
        if let Some(Shape {
            mode: DedupeMode::WorkingSet { global: true, .. },
            ..
        }) = job.buffer_shape
        {
            job.dedupe_peers = Some(Peers {
                seeds: seeds.clone(),
                own,
            });
        }
    }
}

/// What goes into the job's buffers, and where they live.
#[derive(Debug, Clone)]
pub struct ContentConfig {
    /// What goes into write buffers.
    pub buffers: BufferFill,
    /// Compressible or duplicate write contents, refilled for every
    /// write; takes the place of `buffers` when set.
    pub buffer_shape: Option<Shape>,
    /// dedupe_global: every job's seed, for a working set shared by all
    /// (filled in once every job is known).
    pub dedupe_peers: Option<Peers>,
    /// The bytes buffer_pattern fills write buffers with.
    pub buffer_pattern: Option<Arc<[u8]>>,
    /// Where the I/O buffers live (mem/iomem), and how far past a page
    /// boundary each starts (iomem_align).
    pub mem: crate::run::storage::iomem::MemKind,
    /// hugepage-size: what huge page buffer memory is rounded up to.
    pub hugepage_size: usize,
    pub iomem_align: usize,
}

impl ContentConfig {
    /// Reads the buffer options of a job whose regions are `size` bytes.
    pub fn from_spec(
        job: &JobSpec,
        workload: &crate::run::workload::WorkloadConfig,
        size: u64,
    ) -> Result<Self, crate::run::refusal::Refusal> {
        let compress = job.num("buffer_compress_percentage").unwrap_or(0).min(100) as u32;
        let dedupe = job.num("dedupe_percentage").unwrap_or(0).min(100) as u32;
        let buffer_shape = buffer_shape(job, &workload.bs, size, compress, dedupe);
        let buffer_pattern = match job.setting("buffer_pattern").map(|s| &s.value) {
            Some(Value::Pattern(p)) => Some(p.clone()),
            Some(Value::Text(t)) => {
                let e = crate::verify::pattern::DataPattern::unreadable(t, false);
                return Err(crate::run::refusal::Refusal(format!(
                    "job '{}': buffer_pattern: {e}",
                    job.name
                )));
            }
            _ => None,
        };
        let buffers = if buffer_pattern.is_some() {
            // fio turns scrambling and zeroing off, and refills only for
            // jobs that read.
            BufferFill::Pattern {
                refill: workload.pattern.read,
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
        Ok(ContentConfig {
            buffers,
            buffer_shape,
            dedupe_peers: None,
            buffer_pattern: buffer_pattern.map(|p| Arc::from(p.bytes())),
            mem: crate::run::storage::iomem::MemKind::from_job(job),
            hugepage_size: job.num("hugepage-size").unwrap_or(2 << 20) as usize,
            iomem_align: job.num("iomem_align").unwrap_or(0) as usize,
        })
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

/// The shape of write contents under buffer_compress_percentage and
/// dedupe_percentage; `None` when neither shapes them (a compress
/// percentage of 100 means zeros).
fn buffer_shape(
    job: &JobSpec,
    bs: &[crate::run::workload::BlockSizes; 3],
    size: u64,
    compress: u32,
    dedupe: u32,
) -> Option<Shape> {
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

/// The shape of a job's write buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Percentage of each chunk left as zeros (1 to 99).
    pub compress: u32,
    /// Chunk size in bytes; 0 means whole blocks of the smallest size.
    pub chunk: usize,
    /// Percentage of buffers that repeat earlier content (0 to 100).
    pub dedupe: u32,
    pub mode: DedupeMode,
    /// The smallest write block size.
    pub min_bs: usize,
}

impl Shape {
    /// How many seeds one buffer of the smallest size draws.
    fn seeds_per_block(&self) -> u64 {
        let chunk = if self.chunk == 0 {
            self.min_bs
        } else {
            self.chunk.min(self.min_bs)
        };
        (self.min_bs / chunk.max(1)).max(1) as u64
    }
}

/// Fills write buffers of one job.
pub struct Content {
    shape: Shape,
    /// The job's base seed, and the stream position of the next unique
    /// buffer.
    base: u64,
    next: u64,
    /// The base seeds of every job (a global working set), and this
    /// job's place among them.
    peer_bases: Vec<u64>,
    own: usize,
    /// Draws which buffers repeat, and which working-set page.
    dedupe_draws: Rng,
    page_draws: Rng,
}

impl Content {
    pub fn new(shape: Shape, seed: u64, peers: Option<&Peers>) -> Self {
        Content {
            shape,
            base: base_of(seed),
            next: 0,
            peer_bases: peers
                .map_or_else(Vec::new, |p| p.seeds.iter().map(|&s| base_of(s)).collect()),
            own: peers.map_or(0, |p| p.own),
            dedupe_draws: Rng::new(mix(seed ^ 0x6465_6475_7065)),
            page_draws: Rng::new(mix(seed ^ 0x7061_6765)),
        }
    }

    /// Fills one write buffer.
    pub fn fill(&mut self, buf: &mut [u8]) {
        self.advance(buf.len(), Some(buf));
    }

    /// Draws what filling a buffer of `len` bytes draws, writing nothing
    /// (fio's fill of every buffer before the first I/O, whose bytes no
    /// write keeps).
    pub fn skip(&mut self, len: usize) {
        self.advance(len, None);
    }

    /// One buffer of `len` bytes: its chunks' seeds drawn, and written
    /// into `buf` when there is one.
    fn advance(&mut self, len: usize, mut buf: Option<&mut [u8]>) {
        let shape = self.shape;
        // Where in the seed stream this buffer starts, and whether it
        // moves the stream on.
        let (base, mut position, unique) = if shape.dedupe == 100 {
            // Every chunk of every buffer repeats the first.
            (self.base, self.next, false)
        } else if shape.dedupe > 0 && self.dedupe_draws.below(100) < shape.dedupe as u64 {
            match shape.mode {
                DedupeMode::Repeat => (self.base, self.next, false),
                DedupeMode::WorkingSet { pages, .. } => {
                    let page = self.page_draws.below(pages.max(1));
                    let (base, nth) = self.working_set_page(page, pages);
                    (base, nth * shape.seeds_per_block(), false)
                }
            }
        } else {
            (self.base, self.next, true)
        };
        let mut min_write = shape.min_bs;
        let mut at = 0;
        while at < len {
            let left = len - at;
            min_write = min_write.min(left);
            let chunk = if shape.chunk == 0 {
                min_write
            } else {
                min_write.min(shape.chunk)
            };
            if let Some(buf) = buf.as_deref_mut() {
                let seed = mix(base.wrapping_add(position));
                fill_chunk(&mut buf[at..at + chunk], seed, shape.compress);
            }
            if shape.dedupe != 100 {
                position += 1;
            }
            at += chunk;
        }
        if unique {
            self.next = position;
        }
    }

    /// Whose unique buffer, and which one, page `page` of a working set
    /// of `pages` holds: the job's own, or under a global working set the
    /// pages are split in runs, one job after another.
    fn working_set_page(&self, page: u64, pages: u64) -> (u64, u64) {
        let jobs = self.peer_bases.len() as u64;
        if jobs == 0 {
            return (self.base, page);
        }
        let run = (pages / jobs).max(1);
        let job = (self.own as u64 + page / run) % jobs;
        (self.peer_bases[job as usize], page % run)
    }
}

fn base_of(seed: u64) -> u64 {
    mix(seed ^ 0x6275_6666_6572)
}

/// One chunk: random bytes from `seed`, then `compress` percent zeros
/// (the random share rounded down, as fio rounds it).
fn fill_chunk(chunk: &mut [u8], seed: u64, compress: u32) {
    let random = chunk.len() * (100 - compress as usize) / 100;
    let mut rng = Rng::new(seed);
    for word in chunk[..random].chunks_mut(8) {
        let n = word.len();
        word.copy_from_slice(&rng.next_u64().to_le_bytes()[..n]);
    }
    chunk[random..].fill(0);
}

/// splitmix64's finaliser: spreads nearby seeds apart.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn shape(compress: u32, dedupe: u32, mode: DedupeMode) -> Shape {
        Shape {
            compress,
            chunk: 512,
            dedupe,
            mode,
            min_bs: 4096,
        }
    }

    /// (share of zero bytes, share of blocks seen before) over `n` blocks.
    fn measure(shape: Shape, n: usize) -> (f64, f64) {
        let mut c = Content::new(shape, 1, None);
        let mut buf = vec![0u8; 4096];
        let (mut zeros, mut dups) = (0, 0);
        let mut seen = HashSet::new();
        for _ in 0..n {
            buf.fill(0xaa);
            c.fill(&mut buf);
            zeros += buf.iter().filter(|&&b| b == 0).count();
            dups += usize::from(!seen.insert(buf.clone()));
        }
        (zeros as f64 / (n * 4096) as f64, dups as f64 / n as f64)
    }

    #[test]
    fn skipping_a_buffer_draws_what_filling_it_draws() {
        for s in [
            shape(50, 30, DedupeMode::Repeat),
            shape(
                0,
                40,
                DedupeMode::WorkingSet {
                    pages: 8,
                    global: false,
                },
            ),
        ] {
            let (mut filled, mut skipped) = (Content::new(s, 3, None), Content::new(s, 3, None));
            let mut buf = vec![0u8; 4096];
            for _ in 0..20 {
                filled.fill(&mut buf);
                skipped.skip(4096);
            }
            let mut other = vec![0u8; 4096];
            for _ in 0..20 {
                filled.fill(&mut buf);
                skipped.fill(&mut other);
                assert_eq!(buf, other);
            }
        }
    }

    #[test]
    fn compress_percentage_zeroes_that_share_of_each_chunk() {
        let (zeros, dups) = measure(shape(50, 0, DedupeMode::Repeat), 200);
        assert!((zeros - 0.5).abs() < 0.01, "{zeros}");
        assert_eq!(dups, 0.0);
    }

    #[test]
    fn dedupe_percentage_repeats_that_share_of_buffers() {
        let (_, dups) = measure(shape(0, 30, DedupeMode::Repeat), 4000);
        assert!((dups - 0.3).abs() < 0.03, "{dups}");
        let ws = DedupeMode::WorkingSet {
            pages: 50,
            global: false,
        };
        let (_, dups) = measure(shape(0, 40, ws), 4000);
        assert!((dups - 0.4).abs() < 0.03, "{dups}");
        let (_, dups) = measure(shape(0, 100, DedupeMode::Repeat), 100);
        assert!(dups > 0.98, "{dups}");
    }
}
