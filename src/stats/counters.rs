//! Bucket counters allocated on the first count. A job keeps many
//! histograms (nine of fio's layout and their fine twins) and most stay
//! empty; allocating only what is counted into keeps many-job runs small.

/// `N` counters, none allocated until one is counted into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LazyCounters<const N: usize> {
    counts: Option<Box<[u64; N]>>,
}

impl<const N: usize> Default for LazyCounters<N> {
    fn default() -> Self {
        Self { counts: None }
    }
}

impl<const N: usize> LazyCounters<N> {
    /// Adds `n` to counter `i` (which must be below `N`).
    #[inline]
    pub fn add(&mut self, i: usize, n: u64) {
        self.all_mut()[i] += n;
    }

    fn all_mut(&mut self) -> &mut [u64; N] {
        self.counts.get_or_insert_with(|| Box::new([0; N]))
    }

    /// Every counter, or `None` while nothing was counted.
    pub fn all(&self) -> Option<&[u64; N]> {
        self.counts.as_deref()
    }

    /// Counter `i`; 0 while nothing was counted.
    pub fn get(&self, i: usize) -> u64 {
        self.counts.as_ref().map_or(0, |c| c[i])
    }

    /// Zeroes the counters but keeps them, so that counters reused
    /// interval after interval are allocated once.
    pub fn clear(&mut self) {
        if let Some(counts) = &mut self.counts {
            counts.fill(0);
        }
    }

    /// Adds all of `other`'s counts.
    pub fn merge(&mut self, other: &Self) {
        let Some(theirs) = &other.counts else { return };
        for (m, t) in self.all_mut().iter_mut().zip(theirs.iter()) {
            *m += t;
        }
    }

    /// The non-zero counters by index, with their counts, in order.
    pub fn nonzero(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts
            .iter()
            .flat_map(|c| c.iter().enumerate())
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (i, *c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_allocated_until_counted() {
        let mut c = LazyCounters::<4>::default();
        assert!(c.all().is_none());
        assert_eq!(c.get(3), 0);
        c.clear();
        c.merge(&LazyCounters::default());
        assert!(c.all().is_none());
        c.add(2, 5);
        assert_eq!(c.nonzero().collect::<Vec<_>>(), vec![(2, 5)]);
        let mut d = LazyCounters::<4>::default();
        d.merge(&c);
        d.add(0, 1);
        assert_eq!(d.nonzero().collect::<Vec<_>>(), vec![(0, 1), (2, 5)]);
        d.clear();
        assert_eq!(d.nonzero().count(), 0);
        assert!(d.all().is_some());
    }
}
