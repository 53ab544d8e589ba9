//! Where each I/O goes: sequential positions per direction, or random
//! blocks drawn without repeats through a random map until every block has
//! been used once (fio's default), or with repeats (`norandommap`).

use crate::run::storage::alloc::zeroed_words;

/// A small, fast generator (xorshift64*), seeded per job so runs repeat.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (n > 0).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// Which blocks have been used, with a summary level so that finding a
/// free block near a random start costs O(1) amortised.
#[derive(Debug, Clone)]
pub struct RandomMap {
    blocks: u64,
    used: u64,
    bits: Vec<u64>,
    /// One bit per word of `bits`: set when that word is full.
    full: Vec<u64>,
}

impl RandomMap {
    /// A map of `blocks` unused blocks, or `None` when its memory is not
    /// to be had (fio then fails the job, or with softrandommap runs it
    /// without a map).
    pub fn new(blocks: u64) -> Option<Self> {
        let words = usize::try_from(blocks.div_ceil(64)).ok()?;
        let mut map = RandomMap {
            blocks,
            used: 0,
            bits: zeroed_words(words)?,
            full: zeroed_words(words.div_ceil(64))?,
        };
        map.mark_tail();
        Some(map)
    }

    /// Bits past the last block count as used.
    fn mark_tail(&mut self) {
        let blocks = self.blocks;
        if !blocks.is_multiple_of(64) {
            let last = self.bits.len() - 1;
            self.bits[last] = !0u64 << (blocks % 64);
            if self.bits[last] == !0 {
                self.full[last / 64] |= 1 << (last % 64);
            }
        }
    }

    pub fn is_exhausted(&self) -> bool {
        self.used >= self.blocks
    }

    /// Whether `block` has been used (a block past the end never has).
    pub fn is_used(&self, block: u64) -> bool {
        block < self.blocks && self.bits[(block / 64) as usize] & (1 << (block % 64)) != 0
    }

    /// The first free block after `block`, wrapping around to the start
    /// (fio's axmap_next_free); `None` when every block is used.
    pub fn next_free_after(&self, block: u64) -> Option<u64> {
        if self.is_exhausted() || block >= self.blocks {
            return None;
        }
        let start = if block + 1 == self.blocks {
            0
        } else {
            block + 1
        };
        let words = self.bits.len();
        let first = (start / 64) as usize;
        let masked = self.bits[first] | !(!0u64 << (start % 64));
        if masked != !0 {
            return Some(first as u64 * 64 + (!masked).trailing_zeros() as u64);
        }
        let word = self.next_word_with_room((first + 1) % words);
        Some(word as u64 * 64 + (!self.bits[word]).trailing_zeros() as u64)
    }

    /// Marks up to `count` blocks from `first` on as used, stopping at the
    /// first one already used; returns how many it marked. fio shortens an
    /// I/O to these, so that a random pass never touches a block twice.
    #[inline(always)]
    pub fn claim(&mut self, first: u64, count: u64) -> u64 {
        let mut got = 0;
        while got < count {
            let block = first + got;
            if block >= self.blocks {
                break;
            }
            let (word, bit) = ((block / 64) as usize, block % 64);
            if self.bits[word] & (1 << bit) != 0 {
                break;
            }
            self.bits[word] |= 1 << bit;
            if self.bits[word] == !0 {
                self.full[word / 64] |= 1 << (word % 64);
            }
            self.used += 1;
            got += 1;
        }
        got
    }

    /// The first word at or after `from` (wrapping) that is not full.
    fn next_word_with_room(&self, from: usize) -> usize {
        let words = self.bits.len();
        let groups = self.full.len();
        let mut group = from / 64;
        let mut mask = !0u64 << (from % 64);
        for _ in 0..=groups {
            let room = !self.full[group] & mask;
            let room = if group == groups - 1 && !words.is_multiple_of(64) {
                room & !(!0u64 << (words % 64))
            } else {
                room
            };
            if room != 0 {
                return group * 64 + room.trailing_zeros() as usize;
            }
            group = (group + 1) % groups;
            mask = !0;
        }
        from
    }

    /// Every block unused again, in the map's own memory (a map still
    /// unused is left as it is, its pages untouched).
    pub fn reset(&mut self) {
        if self.used == 0 {
            return;
        }
        self.bits.fill(0);
        self.full.fill(0);
        self.used = 0;
        self.mark_tail();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_is_used_once_before_any_repeats() {
        for blocks in [1u64, 63, 64, 65, 1000, 4096, 5000] {
            let mut map = RandomMap::new(blocks).unwrap();
            let mut rng = Rng::new(blocks);
            let mut seen = vec![false; blocks as usize];
            for _ in 0..blocks {
                let pick = rng.below(blocks);
                let b = if map.is_used(pick) {
                    map.next_free_after(pick).unwrap()
                } else {
                    pick
                };
                assert_eq!(map.claim(b, 1), 1);
                assert!(!seen[b as usize], "block {b} twice");
                seen[b as usize] = true;
            }
            assert!(map.is_exhausted());
            assert_eq!(map.next_free_after(0), None);
        }
    }

    #[test]
    fn a_reset_map_hands_out_every_block_again() {
        let mut map = RandomMap::new(70).unwrap();
        map.reset();
        assert_eq!(map.claim(0, 70), 70);
        assert!(map.is_exhausted());
        map.reset();
        assert!(!map.is_exhausted() && !map.is_used(69));
        assert_eq!(map.next_free_after(69), Some(0));
        assert_eq!(map.claim(64, 10), 6);
        assert!(RandomMap::new(1 << 62).is_none());
    }

    #[test]
    fn draws_stay_in_range_and_spread() {
        let mut rng = Rng::new(7);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[rng.below(10) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_000..11_000).contains(&c)),
            "{counts:?}"
        );
    }
}
