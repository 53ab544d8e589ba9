//! `random_generator=lfsr`: random offsets from a maximal-length linear
//! feedback shift register, as fio draws them. The register has the fewest
//! bits whose period covers the file's blocks; values past the last block
//! are skipped, so each block comes up exactly once per pass, with no
//! random map.

/// Feedback taps (bit positions, highest first) of a maximal-length
/// register of each width, 3 to 63 bits: the published table fio uses.
const TAPS: [&[u8]; 61] = [
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

/// One file's register.
#[derive(Debug, Clone)]
pub struct Lfsr {
    xor_mask: u64,
    top_bit: u64,
    last: u64,
    max: u64,
    /// Values handed out in this pass.
    given: u64,
    /// fio's spin bookkeeping: with no spin, its very first value comes
    /// after two steps of the register instead of one.
    first: bool,
    seed: u64,
}

impl Lfsr {
    /// A register over `blocks` values, started from `seed`; None when
    /// no register fits or the seed is the register's forbidden all-ones
    /// state (fio fails to set the job up then).
    pub fn new(blocks: u64, seed: u64) -> Option<Self> {
        let bits = (3..64).find(|&i| (1u64 << i) > blocks)?;
        let taps = TAPS[bits - 3];
        let xor_mask = taps.iter().fold(0, |m, &t| m | 1u64 << (t - 1));
        let mut lfsr = Lfsr {
            xor_mask,
            top_bit: 1 << (taps[0] - 1),
            last: 0,
            max: blocks.checked_sub(1)?,
            given: 0,
            first: true,
            seed,
        };
        lfsr.reset().then_some(lfsr)
    }

    /// Back to the seed for a new pass; false for a forbidden seed.
    pub fn reset(&mut self) -> bool {
        let mask = (self.top_bit << 1) - 1;
        self.given = 0;
        self.last = self.seed & mask;
        self.last != mask
    }

    fn step(&mut self) {
        let v = self.last;
        self.last = ((v >> 1) | self.top_bit) ^ ((v & 1).wrapping_sub(1) & self.xor_mask);
    }

    /// The next block, or None once every block was given in this pass.
    pub fn next_block(&mut self) -> Option<u64> {
        let given = self.given;
        self.given += 1;
        if given > self.max {
            return None;
        }
        loop {
            if std::mem::take(&mut self.first) {
                self.step();
            }
            self.step();
            if self.last <= self.max {
                return Some(self.last);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_comes_up_once_per_pass() {
        for blocks in [5u64, 64, 1000, 4097] {
            let mut l = Lfsr::new(blocks, 12345).unwrap();
            let mut seen: Vec<u64> = std::iter::from_fn(|| l.next_block()).take(10_000).collect();
            assert_eq!(seen.len() as u64, blocks, "{blocks}");
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len() as u64, blocks);
        }
    }

    #[test]
    fn the_all_ones_seed_is_refused() {
        assert!(Lfsr::new(100, 127).is_none());
        assert!(Lfsr::new(100, 126).is_some());
    }
}
