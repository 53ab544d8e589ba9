//! A verifying job's bookkeeping: the blocks it wrote (fio's io_piece
//! log), which of them were checked, and fio's verify_backlog rule for
//! when to check some while writing. Only jobs that set `verify` have one.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use crate::verify::{Block, VerifySpec, Written};

use crate::rand::fio_rand::{FioRng, Purpose};
use crate::run::place::parts::PlaceParts;
use crate::run::storage::alloc::with_capacity;
use crate::run::verification::verify_async::Offload;
use crate::run::verification::verify_trail::Trail;

pub struct Verifying<'a> {
    pub spec: &'a VerifySpec,
    /// fio's verify_state: each write draws its block's seed from it, and
    /// each read of a logged block draws one too (unless a verify_pattern
    /// stands in for random data). `fresh` is it as seeded, for the points
    /// where fio seeds it again: before each verify pass, and at the start
    /// of each loop under randrepeat.
    seeds: FioRng,
    fresh: FioRng,
    /// Whether writes and reads of logged blocks draw seeds.
    draws_seeds: bool,
    writes_draw: bool,
    /// A job that reads and writes, without verify_backlog: fio compares
    /// each header's seed with the draw made for the read checking it.
    compare_seeds: bool,
    /// The seeds the current pass expects, by its block number.
    expected: Vec<u64>,
    /// Every write of the current loop, by piece number.
    written: Vec<Written>,
    /// Whether each logged write has completed (only those may be read
    /// back, as fio waits for a block's write before checking it).
    complete: Vec<bool>,
    /// fio's io_hist_list: pieces still to check, in write order (files
    /// with a random map, where each block is written once a loop).
    list: VecDeque<usize>,
    /// fio's io_hist_tree: pieces still to check, by file and offset,
    /// holding only the latest write over any byte (other files).
    tree: BTreeMap<(u32, u64), usize>,
    /// Backlog reads still to issue in the current batch.
    batch: u64,
    scratch: Vec<u8>,
    /// The pieces the last `stamp` dropped as overwritten (kept for
    /// trim_percentage, whose list loses them too).
    dropped: Vec<usize>,
    names: Arc<[String]>,
    /// verify_async's helpers, when the job has some.
    offload: Option<Offload>,
    /// What fio's verify state file records, kept as the job runs.
    pub trail: Trail,
    /// The engine moves no data (null): like fio, pass every check.
    fake_io: bool,
    /// experimental_verify: the bytes the job's replays have read, over
    /// all its loops (fio's bytes_verified, never reset between loops),
    /// and the smallest block of the job (fio's rw_min_bs).
    replay_verified: u64,
    min_bs: u64,
}

/// What fio says when it cannot allocate a verifying job's record of
/// its latest writes (the job then ends, with no error code).
pub const NO_TRAIL: &str = "fio: failed to alloc write comp data";

impl<'a> Verifying<'a> {
    /// The job's verification, if it verifies (`verify`), over the
    /// files and I/O of `place`, with `pass_bytes` per pass at `iodepth`,
    /// through an engine that fakes its I/O or not; `Err` when the memory
    /// it sizes from the job is not to be had (see [`NO_TRAIL`]).
    pub fn new(
        place: PlaceParts<'a>,
        verify: Option<&'a Arc<VerifySpec>>,
        pass_bytes: u64,
        iodepth: usize,
        fake_io: bool,
    ) -> Result<Option<Self>, &'static str> {
        let Some(shared) = verify else {
            return Ok(None);
        };
        let spec = shared.as_ref();
        let names: Arc<[String]> = place
            .files
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let offload = (spec.offload_threads > 0).then(|| {
            Offload::start(
                shared.clone(),
                names.clone(),
                spec.offload_threads,
                spec.offload_cpus.clone(),
            )
        });
        let blocks = (pass_bytes / place.workload.bs[1].min().max(1)) as usize;
        let fresh = place.placement.seeds.generator(
            Purpose::Verify,
            crate::run::place::placement::draws_wide(&place),
        );
        let draws_seeds = spec.pattern.is_none();
        Ok(Some(Verifying {
            spec,
            seeds: fresh.clone(),
            fresh,
            draws_seeds,
            writes_draw: draws_seeds && spec.method != crate::verify::Method::Null,
            compare_seeds: place.workload.pattern.read
                && place.workload.pattern.write
                && spec.backlog == 0
                && draws_seeds
                && spec.method.header_size() > 0
                && !fake_io,
            expected: Vec::new(),
            // Room for the pass's writes up front where it can be had;
            // else the log grows as they come, as fio's does.
            written: with_capacity(blocks.min(1 << 22)).unwrap_or_default(),
            complete: with_capacity(blocks.min(1 << 22)).unwrap_or_default(),
            list: VecDeque::new(),
            tree: BTreeMap::new(),
            batch: 0,
            scratch: Vec::with_capacity(512),
            dropped: Vec::with_capacity(8),
            names,
            offload,
            trail: Trail::new(iodepth, place.files.paths.len()).ok_or(NO_TRAIL)?,
            fake_io,
            replay_verified: 0,
            min_bs: crate::run::place::placement::rw_min_bs(place.workload),
        }))
    }

    /// The next seed from fio's verify_state: two draws multiplied, as
    /// fio makes one on a 64-bit build.
    fn next_seed(&mut self) -> u64 {
        let first = self.seeds.draw();
        first.wrapping_mul(self.seeds.draw())
    }

    /// Seeds fio's verify_state again (a new loop under randrepeat).
    pub fn reseed(&mut self) {
        self.seeds = self.fresh.clone();
    }

    /// Stamps a write buffer with headers and checksums and logs the
    /// block; returns its piece number. `numberio` counts the writes
    /// issued before this one; `mapped` says whether the file has a
    /// random map (fio then keeps its writes in order, else sorted with
    /// older overlapping writes dropped).
    pub fn stamp(
        &mut self,
        buf: &mut [u8],
        file: usize,
        offset: u64,
        numberio: u64,
        mapped: bool,
    ) -> usize {
        self.trail.issued += 1;
        let numberio = numberio as u16;
        if !self.spec.only {
            let now = crate::verify::now();
            // Without random data fio leaves the header's seed at zero.
            let seed = if self.writes_draw {
                self.next_seed()
            } else {
                0
            };
            let stamp = crate::verify::Stamp {
                offset,
                seed,
                numberio,
                now,
            };
            self.spec.fill(buf, &stamp, &mut self.scratch);
        }
        let piece = self.written.len();
        let written = Written {
            file: file as u32,
            offset,
            len: buf.len() as u32,
            numberio,
        };
        self.written.push(written);
        self.complete.push(false);
        self.dropped.clear();
        // experimental_verify keeps no log to check from (so no
        // verify_backlog either): its pass replays the writes.
        if !self.spec.replay {
            if mapped {
                self.list.push_back(piece);
            } else {
                self.drop_overlaps(&written);
                self.tree.insert((written.file, offset), piece);
            }
        }
        piece
    }

    /// Removes the logged writes that share a byte with `w` (fio's
    /// log_io_piece drops them: only the newest data can be checked).
    fn drop_overlaps(&mut self, w: &Written) {
        let end = w.offset + u64::from(w.len);
        let before = self
            .tree
            .range(..(w.file, w.offset))
            .next_back()
            .filter(|(k, p)| {
                let old = &self.written[**p];
                k.0 == w.file && old.offset + u64::from(old.len) > w.offset
            })
            .map(|(&k, _)| k);
        if let Some(k) = before {
            self.dropped.extend(self.tree.remove(&k));
        }
        while let Some((&k, _)) = self.tree.range((w.file, w.offset)..(w.file, end)).next() {
            self.dropped.extend(self.tree.remove(&k));
        }
    }

    /// The pieces the last write logged in the tree dropped as overwritten.
    pub fn dropped(&self) -> &[usize] {
        &self.dropped
    }

    pub fn write_done(&mut self, piece: usize) {
        if let Some(c) = self.complete.get_mut(piece) {
            *c = true;
        }
        if let Some(w) = self.written.get(piece) {
            self.trail.completed(w.file as usize, w.offset);
        }
    }

    /// Whether a verify read of `offset` in `file` goes past the writes of
    /// a loaded verify state (fio's verify_state_should_stop).
    pub fn past_saved_writes(&self, file: usize, offset: u64) -> bool {
        self.spec
            .loaded
            .as_ref()
            .is_some_and(|s| s.should_stop(self.trail.reads_done, file as u64, offset))
    }

    /// fio's io_hist_len: logged writes not yet checked.
    pub fn unchecked(&self) -> usize {
        self.list.len() + self.tree.len()
    }

    /// fio's get_next_verify: the lowest block of the tree, else the
    /// oldest of the list, once its write has completed.
    fn take_next(&mut self) -> Option<usize> {
        if let Some((&k, &piece)) = self.tree.first_key_value() {
            if !self.complete[piece] {
                return None;
            }
            self.tree.remove(&k);
            return Some(piece);
        }
        let &piece = self.list.front()?;
        if !self.complete[piece] {
            return None;
        }
        self.list.pop_front();
        Some(piece)
    }

    /// fio's check_get_verify: with verify_backlog, once the unchecked
    /// writes reach a multiple of the backlog (and the last I/O was not a
    /// read), the next `verify_backlog_batch` I/Os check logged blocks,
    /// each as soon as its write has completed.
    pub fn backlog_next(&mut self, last_was_read: bool) -> Option<usize> {
        let spec = self.spec;
        let unchecked = self.unchecked() as u64;
        if spec.backlog == 0 || unchecked == 0 || !spec.read_back {
            return None;
        }
        if self.batch == 0 {
            if !unchecked.is_multiple_of(spec.backlog) || last_was_read {
                return None;
            }
            self.batch = spec.backlog_batch;
        }
        let piece = self.take_next()?;
        self.batch -= 1;
        // fio draws the read's seed, and then takes the header's.
        if self.draws_seeds {
            self.next_seed();
        }
        Some(piece)
    }

    /// The logged pieces not checked yet, in the order fio checks them
    /// (the tree's, then the list's).
    pub fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        self.tree.values().chain(self.list.iter()).copied()
    }

    /// Backlog reads still to issue in the current batch.
    pub fn batch_left(&self) -> u64 {
        self.batch
    }

    /// The logged block at `piece`.
    pub fn piece(&self, piece: usize) -> Written {
        self.written[piece]
    }

    /// The blocks left to check after a loop's writes, in fio's order
    /// (the tree's, then the list's). Called with no I/O in flight: the
    /// log starts afresh for the next loop, as fio prunes it. fio seeds
    /// its verify_state again before the pass.
    pub fn rest(&mut self) -> Vec<Written> {
        self.reseed();
        let rest = self.unchecked_blocks();
        self.expected.clear();
        if self.compare_seeds {
            for _ in 0..rest.len() {
                let seed = self.next_seed();
                self.expected.push(seed);
            }
        }
        rest
    }

    /// The seed the pass's block `n` must hold, when fio compares it.
    pub fn expected_seed(&self, n: usize) -> Option<u64> {
        self.expected.get(n).copied()
    }

    fn unchecked_blocks(&mut self) -> Vec<Written> {
        if self.spec.replay {
            let mut all = std::mem::take(&mut self.written);
            self.forget();
            self.replay_within_loop(&mut all);
            return all;
        }
        let mut rest: Vec<Written> = self.tree.values().map(|&p| self.written[p]).collect();
        rest.extend(self.list.iter().map(|&p| self.written[p]));
        self.forget();
        rest
    }

    /// experimental_verify: fio's replay reads while the bytes verified
    /// so far in the whole job, and a smallest block more, stay within
    /// what this loop wrote; as that count runs over the loops, a later
    /// loop's pass reads only what its writes exceed the earlier passes
    /// by (nothing, when its loops are alike). Its first writes, drawn
    /// again, are the blocks it reads.
    fn replay_within_loop(&mut self, writes: &mut Vec<Written>) {
        let wrote: u64 = writes.iter().map(|w| u64::from(w.len)).sum();
        let mut n = 0;
        while n < writes.len() && self.replay_verified + self.min_bs <= wrote {
            self.replay_verified += u64::from(writes[n].len);
            n += 1;
        }
        writes.truncate(n);
    }

    /// Drops the log (fio's prune_io_piece_log at each loop's start).
    pub fn forget(&mut self) {
        self.tree.clear();
        self.list.clear();
        self.written.clear();
        self.complete.clear();
    }

    /// Checks a block read into `buf`: one logged when it was written
    /// (`logged`), or any block a job that only reads came across. With
    /// verify_async the block goes to the helpers, and what fails is a
    /// failure they reported earlier, if any.
    /// `seed`: what the headers must hold, when fio compares it.
    pub fn check(
        &mut self,
        buf: &mut [u8],
        piece: &Written,
        logged: bool,
        seed: Option<u64>,
    ) -> Result<(), String> {
        self.trail.reads_done += 1;
        if self.fake_io {
            return Ok(());
        }
        if let Some(offload) = &mut self.offload {
            offload.send(buf, *piece, logged, seed);
            return offload.failure(false).map_or(Ok(()), Err);
        }
        let block = Block {
            file_name: &self.names[piece.file as usize],
            offset: piece.offset,
            numberio: piece.numberio,
            logged,
            offloaded: false,
            seed,
        };
        self.spec
            .check(buf, &block, &mut self.scratch, &mut |text| {
                eprintln!("{text}")
            })
    }

    /// Whether helpers do the checking (fio then names the failing
    /// function async_verify).
    pub fn offloaded(&self) -> bool {
        self.offload.is_some()
    }

    /// Waits for the helpers' verdicts on everything handed over; the
    /// next failure among them, if any (call again for the rest).
    pub fn settle(&mut self) -> Option<String> {
        self.offload.as_mut()?.failure(true)
    }
}
