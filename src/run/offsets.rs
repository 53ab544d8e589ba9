//! Where each I/O goes: sequential positions per direction, or random
//! blocks drawn without repeats through a random map until every block has
//! been used once (fio's default), or with repeats (`norandommap`).

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

/// fio's 32-bit Tausworthe generator (taus88) with fio's seeding, for
/// the draws whose results must equal fio's (each file's size in a
/// `filesize` range).
#[derive(Debug, Clone)]
pub struct Taus88 {
    s: [u32; 3],
}

impl Taus88 {
    /// Seeded as fio's init_rand_seed seeds a 32-bit state.
    pub fn new(seed: u64) -> Self {
        let seed = seed as u32;
        let lcg = |x: u32| x.wrapping_mul(69069) ^ seed;
        let at_least = |x: u32, m: u32| if x < m { x + m } else { x };
        // fio's starting value is written (2^31)+(2^17)+(2^7) in C,
        // where ^ is exclusive or: 29 + 19 + 5.
        let s1 = at_least(lcg(53), 1);
        let s2 = at_least(lcg(s1), 7);
        let s3 = at_least(lcg(s2), 15);
        let mut t = Taus88 { s: [s1, s2, s3] };
        for _ in 0..6 {
            t.next_u32();
        }
        t
    }

    pub fn next_u32(&mut self) -> u32 {
        let step = |s: u32, a: u32, b: u32, c: u32, d: u32| ((s & c) << d) ^ (((s << a) ^ s) >> b);
        self.s[0] = step(self.s[0], 13, 19, 4_294_967_294, 12);
        self.s[1] = step(self.s[1], 2, 25, 4_294_967_288, 4);
        self.s[2] = step(self.s[2], 3, 11, 4_294_967_280, 17);
        self.s[0] ^ self.s[1] ^ self.s[2]
    }

    /// fio's per-job seed number `index` (its rand_seeds table) for the
    /// job numbered `thread_number`, from `randseed`.
    pub fn job_seed(randseed: u64, thread_number: u64, index: u64) -> u64 {
        const MIX: u64 = 0x9e37_0001;
        let mut seed = randseed;
        for _ in 0..4 {
            seed = seed.wrapping_mul(MIX);
        }
        for _ in 0..index {
            seed = seed.wrapping_mul(MIX);
        }
        seed.wrapping_mul(thread_number).wrapping_add(index)
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
    pub fn new(blocks: u64) -> Self {
        let words = blocks.div_ceil(64) as usize;
        let mut map = RandomMap {
            blocks,
            used: 0,
            bits: vec![0; words],
            full: vec![0; words.div_ceil(64)],
        };
        // Bits past the last block count as used.
        if !blocks.is_multiple_of(64) {
            let last = words - 1;
            map.bits[last] = !0u64 << (blocks % 64);
            if map.bits[last] == !0 {
                map.full[last / 64] |= 1 << (last % 64);
            }
        }
        map
    }

    pub fn is_exhausted(&self) -> bool {
        self.used >= self.blocks
    }

    /// Marks and returns the first free block at or after `start`,
    /// wrapping around; `None` when every block is used.
    pub fn take_from(&mut self, start: u64) -> Option<u64> {
        if self.is_exhausted() {
            return None;
        }
        let words = self.bits.len();
        let first = (start / 64) as usize % words;
        let masked = self.bits[first] | !(!0u64 << (start % 64));
        let word = if masked != !0 {
            first
        } else {
            self.next_word_with_room((first + 1) % words)
        };
        let free = if word == first && masked != !0 {
            !masked
        } else {
            !self.bits[word]
        };
        let bit = free.trailing_zeros() as usize;
        self.bits[word] |= 1 << bit;
        if self.bits[word] == !0 {
            self.full[word / 64] |= 1 << (word % 64);
        }
        self.used += 1;
        Some(word as u64 * 64 + bit as u64)
    }

    /// After `take_from` returned `first`, claims up to `more` further
    /// blocks that follow it while they are free; returns how many it got.
    /// fio shortens an I/O to the free blocks it finds, so that a random
    /// pass never touches a block twice.
    pub fn extend(&mut self, first: u64, more: u64) -> u64 {
        let mut got = 0;
        while got < more {
            let block = first + 1 + got;
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

    pub fn reset(&mut self) {
        *self = RandomMap::new(self.blocks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_is_used_once_before_any_repeats() {
        for blocks in [1u64, 63, 64, 65, 1000, 4096, 5000] {
            let mut map = RandomMap::new(blocks);
            let mut rng = Rng::new(blocks);
            let mut seen = vec![false; blocks as usize];
            for _ in 0..blocks {
                let b = map.take_from(rng.below(blocks)).unwrap();
                assert!(!seen[b as usize], "block {b} twice");
                seen[b as usize] = true;
            }
            assert!(map.is_exhausted());
            assert_eq!(map.take_from(0), None);
        }
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
