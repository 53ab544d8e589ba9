//! The job's I/O buffers as memory: where each slot's buffer is carved
//! from (its own heap memory, or its share of the job's region) and the
//! raw pointer to it, behind safe accessors. How long an engine may use a
//! buffer is the rule of `Engine::queue`'s Safety section; this module
//! only keeps each buffer valid and its own.

use crate::run::config::BufferFill;
use crate::run::place::offsets::Rng;
use crate::run::storage::iomem::Region;
use crate::run::storage::layout::fill_random;

/// Buffer alignment: enough for O_DIRECT on any Linux block device.
const ALIGN: usize = 4096;

/// One slot's buffer: `cap` bytes at `base`, aligned as the job asks, in
/// `_heap` or in the job's region. The job loop keeps the region until
/// it is done with the slots and their engine (and never unmaps it while
/// an abandoned engine may use it), so `base` is valid while the buffer
/// is.
pub(super) struct Buffer {
    /// The buffer's own memory when buffers come from the heap (held
    /// only to own it; empty when the job's region holds the buffers).
    _heap: Vec<u8>,
    base: *mut u8,
    cap: usize,
}

impl Buffer {
    /// `len` bytes from `skip` on, cut to the buffer.
    #[inline]
    pub(super) fn bytes(&mut self, skip: usize, len: usize) -> &mut [u8] {
        debug_assert!(skip + len <= self.cap);
        let skip = skip.min(self.cap);
        // SAFETY: `base` points at `cap` bytes that only this buffer uses,
        // valid while it is (see above), and skip + len <= cap.
        unsafe { std::slice::from_raw_parts_mut(self.base.add(skip), len.min(self.cap - skip)) }
    }

    /// The whole buffer, for engines that register it.
    pub(super) fn iovec(&mut self) -> libc::iovec {
        libc::iovec {
            iov_base: self.base.cast(),
            iov_len: self.cap,
        }
    }
}

/// Where the job's buffers are carved from: each slot's own heap memory,
/// or one region for all.
pub(super) struct Carver<'r> {
    region: Option<&'r Region>,
    max_len: usize,
    /// iomem_align: each buffer starts this far past a page boundary.
    skew: usize,
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

    /// The buffer slot `index` needs (the job's region is `stride` per
    /// slot, page aligned), filled as the job's buffers start.
    pub(super) fn buffer(&self, index: usize, fill: BufferFill, rng: &mut Rng) -> Buffer {
        let fill = |bytes: &mut [u8], rng: &mut Rng| {
            if fill != BufferFill::Zeros {
                fill_random(bytes, rng);
            }
        };
        let (heap, chunk) = match self.region {
            None => {
                let mut heap = vec![0u8; self.max_len + ALIGN + self.skew];
                fill(&mut heap, rng);
                let start = heap.as_ptr().align_offset(ALIGN);
                let chunk = heap[start..].as_mut_ptr();
                (heap, chunk)
            }
            Some(r) => {
                // SAFETY: the region holds `stride` bytes for every slot,
                // and this slot's are only this buffer's.
                let chunk = unsafe { r.ptr.add(index * self.stride) };
                // SAFETY: max_len + ALIGN <= stride bytes of the chunk.
                fill(
                    unsafe { std::slice::from_raw_parts_mut(chunk, self.max_len + ALIGN) },
                    rng,
                );
                (Vec::new(), chunk)
            }
        };
        Buffer {
            _heap: heap,
            // SAFETY: the chunk has room for the skew and the buffer.
            base: unsafe { chunk.add(self.skew) },
            cap: self.max_len,
        }
    }
}
