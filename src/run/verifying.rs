//! A verifying job's bookkeeping: the blocks it wrote (fio's io_piece
//! log), which of them were checked, and fio's verify_backlog rule for
//! when to check some while writing. Only jobs that set `verify` have one.

use crate::verify::{Block, VerifySpec, Written};

use super::config::JobConfig;
use super::offsets::Rng;

/// Salt for the stream of per-block seeds stored in headers.
const SEED_SALT: u64 = 0x7665_7269_6679;

pub struct Verifying<'a> {
    pub spec: &'a VerifySpec,
    seeds: Rng,
    written: Vec<Written>,
    /// Whether each logged write has completed (only those may be read
    /// back, as fio waits for a block's write before checking it).
    complete: Vec<bool>,
    /// The first logged write not yet checked.
    next: usize,
    /// Backlog reads still to issue in the current batch.
    batch: u64,
    scratch: Vec<u8>,
    names: Vec<String>,
}

impl<'a> Verifying<'a> {
    pub fn new(cfg: &'a JobConfig) -> Option<Self> {
        let spec = cfg.verify.as_deref()?;
        let blocks = (cfg.io_bytes / cfg.bs[1].min().max(1)) as usize;
        Some(Verifying {
            spec,
            seeds: Rng::new(cfg.seed ^ SEED_SALT),
            written: Vec::with_capacity(blocks.min(1 << 22)),
            complete: Vec::with_capacity(blocks.min(1 << 22)),
            next: 0,
            batch: 0,
            scratch: Vec::with_capacity(512),
            names: cfg.paths.iter().map(|p| p.display().to_string()).collect(),
        })
    }

    /// Stamps a write buffer with headers and checksums and logs the
    /// block; returns its index in the log. `numberio` counts the writes
    /// issued before this one.
    pub fn stamp(&mut self, buf: &mut [u8], file: usize, offset: u64, numberio: u64) -> usize {
        let numberio = numberio as u16;
        if !self.spec.only {
            let now = crate::verify::now();
            let seed = self.seeds.next_u64();
            self.spec
                .fill(buf, offset, seed, numberio, now, &mut self.scratch);
        }
        self.written.push(Written {
            file: file as u32,
            offset,
            len: buf.len() as u32,
            numberio,
        });
        self.complete.push(false);
        self.written.len() - 1
    }

    pub fn write_done(&mut self, piece: usize) {
        if let Some(c) = self.complete.get_mut(piece) {
            *c = true;
        }
    }

    /// fio's check_get_verify: with verify_backlog, once the unchecked
    /// writes reach a multiple of the backlog (and the last I/O was not a
    /// read), the next `verify_backlog_batch` I/Os check the oldest ones,
    /// each as soon as its write has completed.
    pub fn backlog_next(&mut self, last_was_read: bool) -> Option<usize> {
        let spec = self.spec;
        let unchecked = (self.written.len() - self.next) as u64;
        if spec.backlog == 0 || unchecked == 0 || !spec.read_back {
            return None;
        }
        if self.batch == 0 {
            if !unchecked.is_multiple_of(spec.backlog) || last_was_read {
                return None;
            }
            self.batch = spec.backlog_batch;
        }
        if !self.complete[self.next] {
            return None;
        }
        self.batch -= 1;
        self.next += 1;
        Some(self.next - 1)
    }

    /// The logged block at `piece`.
    pub fn piece(&self, piece: usize) -> Written {
        self.written[piece]
    }

    /// The blocks left to check after the writes, in fio's order: as
    /// written when a random map kept each block to one write, otherwise
    /// by file and offset with only the last write of a block kept.
    pub fn rest(&mut self, in_write_order: bool) -> Vec<Written> {
        let mut rest = self.written.split_off(self.next);
        self.next = self.written.len();
        if !in_write_order {
            // Stable, so equal offsets keep their write order: keep the last.
            rest.sort_by_key(|w| (w.file, w.offset));
            rest.reverse();
            rest.dedup_by_key(|w| (w.file, w.offset));
            rest.reverse();
        }
        rest
    }

    /// Checks a block read into `buf`: one logged when it was written
    /// (`logged`), or any block a job that only reads came across.
    pub fn check(&mut self, buf: &mut [u8], piece: &Written, logged: bool) -> Result<(), String> {
        let block = Block {
            file_name: &self.names[piece.file as usize],
            offset: piece.offset,
            numberio: piece.numberio,
            logged,
        };
        self.spec
            .check(buf, &block, &mut self.scratch, &mut |text| {
                eprintln!("{text}")
            })
    }
}
