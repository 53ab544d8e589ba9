//! Fallible allocation for what a job sizes from its options (the random
//! map, the depth's queues, the verify trail): a job asking for more
//! memory than the machine gives fails as fio's does, with its report,
//! instead of aborting the process.

use std::alloc::{Layout, alloc_zeroed};

/// An empty vector with room for `n` items, or `None` if the memory is
/// not to be had.
pub fn with_capacity<T>(n: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).ok()?;
    Some(v)
}

/// `n` zero words, or `None` if the memory is not to be had. The memory
/// comes zeroed from the allocator (for large sizes, pages the kernel
/// zeroes as they are first touched), so a large map costs nothing
/// until it is used, as `vec![0; n]` would, but without aborting.
pub fn zeroed_words(n: usize) -> Option<Vec<u64>> {
    if n == 0 {
        return Some(Vec::new());
    }
    let layout = Layout::array::<u64>(n).ok()?;
    // SAFETY: the layout has a non-zero size (n > 0).
    let ptr = unsafe { alloc_zeroed(layout) }.cast::<u64>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with the
    // layout of `n` u64s, which is what a Vec<u64> of capacity `n`
    // frees with; all `n` are initialised (zero is a valid u64).
    Some(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_refused_not_aborted() {
        assert!(zeroed_words(usize::MAX / 8).is_none());
        assert!(zeroed_words(1 << 60).is_none());
        assert!(with_capacity::<u64>(1 << 60).is_none());
        let words = zeroed_words(1000).unwrap();
        assert!(words.len() == 1000 && words.iter().all(|&w| w == 0));
        assert!(with_capacity::<u8>(10).unwrap().capacity() >= 10);
    }
}
