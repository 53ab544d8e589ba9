//! The job's I/O buffers as memory: each slot's share of the job's one
//! region and the raw pointer to it, behind safe accessors. How long an engine may use a
//! buffer is the rule of `Engine::queue`'s Safety section; this module
//! only keeps each buffer valid and its own.

use crate::run::storage::iomem::Region;

/// Buffer alignment: enough for O_DIRECT on any Linux block device.
const ALIGN: usize = 4096;

/// One slot's buffer: `cap` bytes at `base`, aligned as the job asks, in
/// the job's region. The job loop keeps the region until it is done with
/// the slots and their engine (and never unmaps it while an abandoned
/// engine may use it), so `base` is valid while the buffer is.
pub(super) struct Buffer {
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

/// Where the job's buffers are carved from: one region for all, `stride`
/// bytes a slot.
pub(super) struct Carver<'r> {
    region: &'r Region,
    max_len: usize,
    /// iomem_align: each buffer starts this far past a page boundary.
    skew: usize,
}

impl<'r> Carver<'r> {
    /// Bytes per slot for buffers of `max_len` bytes `skew` bytes past a
    /// page boundary: whole pages, so that each buffer starts on its own.
    pub(super) fn stride(max_len: usize, skew: usize) -> Option<usize> {
        max_len.checked_add(skew)?.checked_next_multiple_of(ALIGN)
    }

    /// Carves `region`, which holds a [`stride`](Self::stride) for every
    /// slot.
    pub(super) fn new(region: &'r Region, max_len: usize, skew: usize) -> Self {
        Carver {
            region,
            max_len,
            skew,
        }
    }

    /// The buffer of slot `index`. Its memory is not touched here: the
    /// region's pages stay the kernel's zero pages until the slot is
    /// first used (see `Slot::first_use`).
    pub(super) fn buffer(&self, index: usize) -> Buffer {
        let stride = Self::stride(self.max_len, self.skew).unwrap_or(0);
        debug_assert!((index + 1) * stride <= self.region.len);
        // SAFETY: the region holds `stride` bytes for every slot (page
        // aligned, as the region is), and this slot's are only this
        // buffer's; the skew and the buffer fit in them.
        let base = unsafe { self.region.ptr.add(index * stride + self.skew) };
        Buffer {
            base,
            cap: self.max_len,
        }
    }
}
