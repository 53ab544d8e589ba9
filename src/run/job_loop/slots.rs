//! The job's I/O slots and the memory their buffers are carved from.

use super::sync::SyncKind;
use crate::engine::Dir;
use crate::run::clock::Nanos;
use crate::run::config::{BufferFill, JobConfig};
use crate::run::iomem::Region;
use crate::run::layout::fill_random;
use crate::run::offsets::Rng;
use crate::run::result::JobResult;
use crate::verify::pattern::repeat_into;

/// Buffer alignment: enough for O_DIRECT on any Linux block device.
const ALIGN: usize = 4096;

/// One I/O's place in the queue.
pub(super) struct Slot {
    /// The slot's own memory when buffers come from the heap (held only
    /// to own it; empty when the job's region holds the buffers).
    pub(super) _heap: Vec<u8>,
    /// The buffer: `cap` bytes at `base`, aligned as the job asks, in
    /// `_heap` or in the job's buffer region (which outlives the slots).
    pub(super) base: *mut u8,
    pub(super) cap: usize,
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
}

/// Where the job's buffers are carved from: each slot's own heap memory,
/// or one region for all.
pub(super) struct Carver<'r> {
    pub(super) region: Option<&'r Region>,
    pub(super) max_len: usize,
    /// iomem_align: each buffer starts this far past a page boundary.
    pub(super) skew: usize,
    /// Bytes per slot: the buffer, a page for alignment, and the skew.
    pub(super) stride: usize,
}

impl<'r> Carver<'r> {
    pub(super) fn new(region: Option<&'r Region>, max_len: usize, skew: usize) -> Self {
        Carver {
            region,
            max_len,
            skew,
            stride: (max_len + ALIGN + skew).div_ceil(ALIGN) * ALIGN,
        }
    }

    /// The memory slot `index` needs (the job's region is `stride` per
    /// slot, page aligned).
    pub(super) fn slot(&self, index: usize, fill: BufferFill, rng: &mut Rng) -> Slot {
        let (mut heap, chunk) = match self.region {
            None => {
                let mut heap = vec![0u8; self.max_len + ALIGN + self.skew];
                let start = heap.as_ptr().align_offset(ALIGN);
                let chunk = heap[start..].as_mut_ptr();
                (heap, chunk)
            }
            // SAFETY: the region holds `stride` bytes for every slot.
            Some(r) => (Vec::new(), unsafe { r.ptr.add(index * self.stride) }),
        };
        let filled = self.max_len + ALIGN;
        if fill != BufferFill::Zeros {
            if heap.is_empty() {
                // SAFETY: `filled` <= stride bytes of this slot's chunk.
                fill_random(
                    unsafe { std::slice::from_raw_parts_mut(chunk, filled) },
                    rng,
                );
            } else {
                fill_random(&mut heap, rng);
            }
        }
        Slot {
            _heap: heap,
            // SAFETY: the chunk has room for the skew and the buffer.
            base: unsafe { chunk.add(self.skew) },
            cap: self.max_len,
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

impl Slot {
    /// Prepares a write buffer as the job's buffer options ask.
    pub(super) fn prepare_write(&mut self, cfg: &JobConfig, rng: &mut Rng, serial: u64) {
        let offset = self.offset;
        let buf = self.buf();
        match cfg.buffers {
            BufferFill::Pattern { refill: true } => {
                if let Some(p) = &cfg.buffer_pattern {
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
        libc::iovec {
            iov_base: self.base.cast(),
            iov_len: self.cap,
        }
    }

    /// The buffer for the current I/O.
    #[inline]
    pub(super) fn buf(&mut self) -> &mut [u8] {
        debug_assert!(self.skip + self.len <= self.cap);
        let skip = self.skip.min(self.cap);
        // SAFETY: `base` points at `cap` bytes that only this slot uses,
        // alive as long as the slot (see `Carver`), and skip + len <= cap.
        unsafe {
            std::slice::from_raw_parts_mut(self.base.add(skip), self.len.min(self.cap - skip))
        }
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
