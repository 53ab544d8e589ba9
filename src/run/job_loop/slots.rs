//! The job's I/O slots: one I/O each, with its buffer.

use super::buffers::{Buffer, Carver};
use crate::engine::Dir;
use crate::result::JobResult;
use crate::run::config::JobConfig;
use crate::run::pacing::clock::Nanos;
use crate::run::place::offsets::Rng;
use crate::run::storage::content::BufferFill;
use crate::run::storage::layout::fill_random;
use crate::verify::pattern::repeat_into;

/// One I/O's place in the queue.
pub(super) struct Slot {
    /// Room for the largest I/O.
    mem: Buffer,
    pub(super) dir: Dir,
    pub(super) offset: u64,
    pub(super) len: usize,
    /// How far into the buffer the I/O starts: past what a short transfer
    /// already moved, when fio hands the rest back to the engine.
    pub(super) skip: usize,
    /// Which of the job's files the I/O goes to.
    pub(super) file: usize,
    /// When the I/O was prepared, and when it was handed to the device.
    pub(super) prepared: Nanos,
    pub(super) submitted: Option<Nanos>,
    /// When a rate-capped direction's schedule meant the I/O to be
    /// issued (`DirStats::intended`).
    pub(super) intended: Option<Nanos>,
    /// Whether it went through an asynchronous engine's queue (only those
    /// have a submission latency).
    pub(super) queued: bool,
    /// Handed to an asynchronous engine and not reaped yet.
    pub(super) flying: bool,
    /// For a verifying job, the logged block this I/O writes or checks.
    pub(super) piece: Option<usize>,
    /// The I/O's priority, and its entry in the direction's list of
    /// priorities reported apart (0: the job's own).
    pub(super) ioprio: u16,
    pub(super) prio_index: u8,
    /// A periodic sync queued like an I/O, on the engines that flush
    /// asynchronously.
    pub(super) sync: Option<SyncKind>,
    /// The buffer still holds the region's untouched zero pages and is
    /// to be filled as the job's buffers start before its first I/O.
    pub(super) fresh: bool,
}

impl Carver<'_> {
    /// Slot `index`, with its buffer; `fresh`: whether it is to be filled
    /// before its first I/O.
    pub(super) fn slot(&self, index: usize, fresh: bool) -> Slot {
        Slot {
            mem: self.buffer(index),
            fresh,
            file: 0,
            dir: Dir::Read,
            offset: 0,
            len: 0,
            skip: 0,
            prepared: 0,
            submitted: None,
            intended: None,
            queued: false,
            flying: false,
            piece: None,
            ioprio: 0,
            prio_index: 0,
            sync: None,
        }
    }
}

/// Whether a job's buffers are filled before their first I/O, as fio
/// fills the buffers of a job that writes (random bytes, or
/// buffer_pattern) and leaves those of a job that only reads untouched.
pub(super) fn fills_buffers(cfg: &JobConfig) -> bool {
    let writes =
        cfg.workload.pattern.write || cfg.workload.replay.as_ref().is_some_and(|log| log.writes);
    writes && (cfg.content.buffer_pattern.is_some() || cfg.content.buffers != BufferFill::Zeros)
}

impl Slot {
    /// The slot's I/O has ended at `at` with result `r`: when it was
    /// submitted (`at` if it never was, as with a synchronous engine's
    /// I/O), or the errno of its failure.
    #[inline(always)]
    pub(super) fn ended(&mut self, r: i64, at: Nanos) -> Result<Nanos, i32> {
        let submitted = self.submitted.take().unwrap_or(at);
        if r < 0 {
            Err((-r) as i32)
        } else {
            Ok(submitted)
        }
    }

    /// Before the slot's first I/O: its whole buffer filled as the job's
    /// buffers start (buffer_pattern, else random bytes from the job's
    /// generator, drawn in the order the slots are first used). Filling
    /// here rather than at the start leaves the memory of a deep queue's
    /// slots untouched until they are used (fio fills a writing job's
    /// buffers at its start, and never those of a job that only reads).
    #[cold]
    pub(super) fn first_use(&mut self, cfg: &JobConfig, rng: &mut Rng) {
        self.fresh = false;
        let cap = self.mem.iovec().iov_len;
        let whole = self.mem.bytes(0, cap);
        match &cfg.content.buffer_pattern {
            Some(p) => repeat_into(p, whole),
            None => fill_random(whole, rng),
        }
    }

    /// Prepares a write buffer as the job's buffer options ask.
    pub(super) fn prepare_write(&mut self, cfg: &JobConfig, rng: &mut Rng, serial: u64) {
        let offset = self.offset;
        let buf = self.buf();
        match cfg.content.buffers {
            BufferFill::Pattern { refill: true } => {
                if let Some(p) = &cfg.content.buffer_pattern {
                    repeat_into(p, buf);
                }
            }
            BufferFill::Refill => fill_random(buf, rng),
            BufferFill::RandomScrambled => {
                // Stamp each 512-byte sector with the offset and a serial
                // number so that no two written blocks are alike.
                for (i, sector) in buf.chunks_mut(512).enumerate() {
                    let stamp = (offset + i as u64 * 512) ^ serial.rotate_left(32);
                    let n = sector.len().min(8);
                    sector[..n].copy_from_slice(&stamp.to_le_bytes()[..n]);
                }
            }
            BufferFill::Random | BufferFill::Zeros | BufferFill::Pattern { .. } => {}
        }
    }

    /// The whole buffer, for engines that register it.
    pub(super) fn region(&mut self) -> libc::iovec {
        self.mem.iovec()
    }

    /// The buffer for the current I/O.
    #[inline]
    pub(super) fn buf(&mut self) -> &mut [u8] {
        self.mem.bytes(self.skip, self.len)
    }

    /// After a transfer of `r` bytes: whether it fell short of the I/O
    /// (some bytes moved, not all, of a read or write). If so the slot now
    /// holds the rest of the I/O, as fio's io_u does before it requeues it,
    /// and the direction counts one short I/O.
    #[inline]
    pub(super) fn shortened(&mut self, r: i64, result: &mut JobResult) -> bool {
        let moved = r.max(0) as usize;
        if moved == 0 || moved >= self.len || self.dir == Dir::Trim {
            return false;
        }
        self.keep_rest(moved, result);
        true
    }

    /// The rare half of [`shortened`](Self::shortened), out of the loop.
    #[cold]
    fn keep_rest(&mut self, moved: usize, result: &mut JobResult) {
        self.offset += moved as u64;
        self.skip += moved;
        self.len -= moved;
        result.dir_mut(self.dir).short += 1;
    }
}

/// The periodic syncs, in the order fio checks which is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SyncKind {
    /// fsync
    Full,
    /// fdatasync
    Data,
    /// sync_file_range
    Range,
}

impl SyncKind {
    pub(super) fn of(data_only: bool) -> SyncKind {
        if data_only {
            SyncKind::Data
        } else {
            SyncKind::Full
        }
    }

    /// The call's name, for its failure.
    pub(super) fn call(self) -> &'static str {
        match self {
            SyncKind::Full | SyncKind::Data => "fsync",
            SyncKind::Range => "sync_file_range",
        }
    }
}
