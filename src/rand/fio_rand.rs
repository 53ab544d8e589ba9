//! fio's pseudo-random streams, reproduced so that a job draws the same
//! directions, block sizes and random offsets as fio 3.33 draws with the
//! same seeds: a size-based random mix then issues exactly fio's number of
//! reads and writes, and a random job visits fio's offsets in fio's order.
//!
//! fio keeps one generator per purpose, each seeded from a per-job table
//! that depends on `randseed`, `randrepeat`, `allrandrepeat` and the job's
//! thread number. The generators are L'Ecuyer's combined Tausworthe
//! generators: taus88 (32-bit) by default, taus258 (64-bit) with
//! `random_generator=tausworthe64` or when a file has more blocks than a
//! 32-bit draw can reach.

/// The purposes fio seeds a generator for, in the order of its seed table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Block sizes, one per direction.
    ReadSize = 0,
    WriteSize = 1,
    TrimSize = 2,
    Verify = 3,
    /// The read/write mix.
    Mix = 4,
    File = 5,
    /// Random offsets.
    Block = 6,
    FileSize = 7,
    Trim = 8,
    Buffer = 9,
    /// percentage_random: whether an I/O is random, one per direction
    /// (fio seeds all three from the read entry).
    SeqRandRead = 10,
    /// The zone of a zoned distribution.
    Zone = 16,
    /// Whether an I/O is sent at a cmdprio priority.
    PrioCmds = 19,
}

const SEEDS: usize = 21;

/// fio's fixed seed base for `randrepeat` and `allrandrepeat`.
const REPEAT_BASE: u64 = 0xb189_9bed;

/// The multiplier fio scrambles `randseed` with.
const SCRAMBLE: u64 = 0x9e37_0001;

/// One job's seed table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seeds {
    table: [u64; SEEDS],
    /// randrepeat: every loop draws the same sequences again.
    pub repeat: bool,
    /// fio's thread number, which also seeds the skewed distributions.
    pub thread_number: u64,
}

/// The options that decide a job's seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedOptions {
    pub randseed: u64,
    /// Whether `randseed` was set (otherwise fio may seed from the OS).
    pub randseed_set: bool,
    pub randrepeat: bool,
    pub allrandrepeat: bool,
    /// fio's thread number: the job's 1-based position, clones included.
    pub thread_number: u64,
}

impl Seeds {
    /// The table fio 3.33 builds (its setup_random_seeds and
    /// td_fill_rand_seeds): from `randseed` scrambled per entry and scaled
    /// by the thread number, or from the OS when neither `randrepeat` nor
    /// `randseed` is given; `allrandrepeat` replaces every entry with a
    /// fixed base, and `randrepeat` the offset entry.
    pub fn new(o: SeedOptions) -> Self {
        let mut seeds = [0u64; SEEDS];
        if !o.randrepeat && !o.randseed_set {
            for seed in &mut seeds {
                *seed = os_random();
            }
        } else {
            let mut seed = o.randseed;
            for _ in 0..4 {
                seed = seed.wrapping_mul(SCRAMBLE);
            }
            for (i, entry) in seeds.iter_mut().enumerate() {
                *entry = seed.wrapping_mul(o.thread_number).wrapping_add(i as u64);
                seed = seed.wrapping_mul(SCRAMBLE);
            }
        }
        if o.allrandrepeat {
            for (i, entry) in seeds.iter_mut().enumerate() {
                *entry = REPEAT_BASE
                    .wrapping_mul(o.thread_number)
                    .wrapping_add(i as u64);
            }
        }
        if o.randrepeat {
            seeds[Purpose::Block as usize] = REPEAT_BASE.wrapping_mul(o.thread_number);
        }
        Seeds {
            table: seeds,
            repeat: o.randrepeat,
            thread_number: o.thread_number,
        }
    }

    /// The seed of `purpose`.
    pub fn seed(&self, purpose: Purpose) -> u64 {
        self.table[purpose as usize]
    }

    /// A generator for `purpose`, 64-bit or not.
    pub fn generator(&self, purpose: Purpose, wide: bool) -> FioRng {
        FioRng::new(self.table[purpose as usize], wide)
    }
}

fn os_random() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most `bytes.len()` bytes into the array.
    let got = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if got == bytes.len() as isize {
        u64::from_ne_bytes(bytes)
    } else {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    }
}

/// One of fio's generators.
#[derive(Debug, Clone)]
pub enum FioRng {
    Taus88([u32; 3]),
    Taus258([u64; 5]),
}

impl FioRng {
    /// Seeds a generator as fio's init_rand_seed does: a linear
    /// congruential spread of the seed over the state words, each kept
    /// above the generator's minimum, then six draws discarded. (fio's
    /// starting constant is written `(2^31) + (2^17) + (2^7)` in C, where
    /// `^` is exclusive or: it is 53.)
    pub fn new(seed: u64, wide: bool) -> Self {
        const START: u64 = (2 ^ 31) + (2 ^ 17) + (2 ^ 7);
        let floor = |x: u64, min: u64| if x < min { x + min } else { x };
        let mut rng = if wide {
            let lcg = |x: u64| x.wrapping_mul(6_906_969_069) ^ seed;
            let mut s = [0u64; 5];
            let mins = [1, 7, 15, 33, 49];
            let mut prev = START;
            for (word, min) in s.iter_mut().zip(mins) {
                *word = floor(lcg(prev), min);
                prev = *word;
            }
            FioRng::Taus258(s)
        } else {
            let seed = seed as u32;
            let lcg = |x: u32| x.wrapping_mul(69_069) ^ seed;
            let mut s = [0u32; 3];
            let mut prev = START as u32;
            for (word, min) in s.iter_mut().zip([1u32, 7, 15]) {
                let x = lcg(prev);
                *word = if x < min { x.wrapping_add(min) } else { x };
                prev = *word;
            }
            FioRng::Taus88(s)
        };
        for _ in 0..6 {
            rng.draw();
        }
        rng
    }

    /// The largest value a draw can take.
    pub fn max(&self) -> u64 {
        match self {
            FioRng::Taus88(_) => u32::MAX as u64,
            FioRng::Taus258(_) => u64::MAX,
        }
    }

    /// `max() + 1` as fio computes it, in floating point.
    fn span(&self) -> f64 {
        self.max() as f64 + 1.0
    }

    /// `1 / span()`. The span is a power of two (2^32 or 2^64), so its
    /// reciprocal is exact and multiplying by it gives bit for bit what
    /// fio's division gives, without a division per draw.
    fn per_span(&self) -> f64 {
        match self {
            FioRng::Taus88(_) => 1.0 / 4_294_967_296.0,
            FioRng::Taus258(_) => 1.0 / 18_446_744_073_709_551_616.0,
        }
    }

    /// The next draw.
    #[inline]
    pub fn draw(&mut self) -> u64 {
        match self {
            FioRng::Taus88(s) => {
                let step =
                    |s: u32, a: u32, b: u32, c: u32, d: u32| ((s & c) << d) ^ (((s << a) ^ s) >> b);
                s[0] = step(s[0], 13, 19, 4_294_967_294, 12);
                s[1] = step(s[1], 2, 25, 4_294_967_288, 4);
                s[2] = step(s[2], 3, 11, 4_294_967_280, 17);
                (s[0] ^ s[1] ^ s[2]) as u64
            }
            FioRng::Taus258(s) => {
                let step = |s: u64, a: u32, b: u32, mask: u64, d: u32| {
                    ((s & mask) << d) ^ (((s << a) ^ s) >> b)
                };
                s[0] = step(s[0], 1, 53, 18_446_744_073_709_551_614, 10);
                s[1] = step(s[1], 24, 50, 18_446_744_073_709_551_104, 5);
                s[2] = step(s[2], 3, 23, 18_446_744_073_709_547_520, 29);
                s[3] = step(s[3], 5, 24, 18_446_744_073_709_420_544, 23);
                s[4] = step(s[4], 3, 33, 18_446_744_073_701_163_008, 8);
                s[0] ^ s[1] ^ s[2] ^ s[3] ^ s[4]
            }
        }
    }

    /// `count * draw / (max + 1)` in floating point, as fio scales a draw
    /// to a block number or a size.
    #[inline]
    pub fn scaled(&mut self, count: u64) -> u64 {
        let r = self.draw();
        if let FioRng::Taus88(_) = self
            && count < EXACT_COUNT
        {
            return exact_scaled(r, count);
        }
        float_scaled(r, count, self.per_span())
    }

    /// A value in `start..=end`, as fio's rand_between.
    #[inline]
    pub fn between(&mut self, start: u64, end: u64) -> u64 {
        match self {
            FioRng::Taus88(_) => {
                let count = (end - start) as u32 as u64 + 1;
                let r = self.draw() as f64;
                // fio converts to int before widening.
                start + ((count as f64 * (r * self.per_span())) as i32 as u32 as u64)
            }
            FioRng::Taus258(_) => start + self.scaled((end - start).wrapping_add(1)),
        }
    }

    /// A draw in (0, 1], as fio's __rand_0_1.
    pub fn unit(&mut self) -> f64 {
        (self.draw() as f64 + 1.0) / self.span()
    }
}

/// Counts below this times a 32-bit draw stay under 2^53, where each of
/// fio's floating-point steps is exact.
const EXACT_COUNT: u64 = 1 << 21;

/// fio's scaling of a 32-bit draw in integers: the product fits a double's
/// mantissa and the span is a power of two, so the floating-point result
/// is this one exactly, found with one multiply instead of a chain of
/// conversions that every random offset waits on.
#[inline]
fn exact_scaled(r: u64, count: u64) -> u64 {
    (r * count) >> 32
}

/// fio's scaling as it computes it, in floating point.
#[inline]
fn float_scaled(r: u64, count: u64, per_span: f64) -> u64 {
    (count as f64 * (r as f64 * per_span)) as u64
}

/// fio's choice of direction in a read/write mix (get_rw_ddir): a new
/// direction is drawn only once the current one has issued its quota,
/// and the quota set on a switch is the share of the new direction times
/// the I/Os issued so far in the old one.
#[derive(Debug, Clone)]
pub struct MixChooser {
    rng: FioRng,
    read_percent: u64,
    current: usize,
    quota: u64,
}

impl MixChooser {
    pub fn new(rng: FioRng, read_percent: u64) -> Self {
        MixChooser {
            rng,
            read_percent,
            current: 0,
            quota: 0,
        }
    }

    /// The direction (0 read, 1 write) of the next I/O, given the I/Os
    /// issued so far per direction.
    pub fn next(&mut self, issued: [u64; 2]) -> usize {
        if issued[self.current] >= self.quota {
            let drawn = if self.rng.between(1, 100) <= self.read_percent {
                0
            } else {
                1
            };
            if drawn != self.current {
                let share = [self.read_percent, 100 - self.read_percent][drawn];
                self.quota = issued[self.current] * share / 100;
            }
            self.current = drawn;
        }
        self.current
    }
}

/// The generators one job draws from, seeded as fio seeds them.
#[derive(Debug, Clone)]
pub struct Draws {
    /// The read/write mix (always fio's 32-bit generator).
    pub mix: MixChooser,
    /// Block sizes, per direction.
    pub sizes: [FioRng; 3],
    /// Random offsets.
    pub offsets: FioRng,
    /// percentage_random's draw, per direction (32-bit).
    pub random_or_not: [FioRng; 3],
}

impl Draws {
    /// `same_write_sizes`: the write sizes repeat the read sizes (fio
    /// does so under verify, so that reading back finds the blocks
    /// written); `same_trim_sizes`: the trim sizes repeat the write sizes
    /// (trimwrite writes what it trimmed).
    pub fn new(
        seeds: &Seeds,
        wide: bool,
        read_percent: u64,
        same_write_sizes: bool,
        same_trim_sizes: bool,
    ) -> Self {
        let read = Purpose::ReadSize;
        let write = if same_write_sizes {
            read
        } else {
            Purpose::WriteSize
        };
        let trim = if same_trim_sizes {
            write
        } else {
            Purpose::TrimSize
        };
        let sequential_or_not = || seeds.generator(Purpose::SeqRandRead, false);
        Draws {
            mix: MixChooser::new(seeds.generator(Purpose::Mix, false), read_percent),
            sizes: [read, write, trim].map(|p| seeds.generator(p, wide)),
            offsets: seeds.generator(Purpose::Block, wide),
            random_or_not: [
                sequential_or_not(),
                sequential_or_not(),
                sequential_or_not(),
            ],
        }
    }
}

impl Draws {
    /// Takes the fresh sequences of `fresh` (fio reseeds at each loop),
    /// keeping the mix's current direction and dropping its quota, as
    /// fio's loop start leaves them.
    pub fn start_over(&mut self, fresh: Draws) {
        let current = self.mix.current;
        *self = fresh;
        self.mix.current = current;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::place::offsets::Rng;

    #[test]
    fn integer_scaling_gives_the_floating_point_block() {
        let mut rng = Rng::new(7);
        let per_span = 1.0 / 4_294_967_296.0;
        let edges = [0, 1, u32::MAX as u64, u32::MAX as u64 - 1];
        for count in [1, 2, 3, 1000, 262_144, 999_999, EXACT_COUNT - 1] {
            for r in edges
                .into_iter()
                .chain((0..20_000).map(|_| rng.next_u64() >> 32))
            {
                assert_eq!(
                    exact_scaled(r, count),
                    float_scaled(r, count, per_span),
                    "{r} {count}"
                );
            }
        }
    }

    fn options(thread_number: u64) -> SeedOptions {
        SeedOptions {
            randseed: 0x89,
            randseed_set: false,
            randrepeat: true,
            allrandrepeat: false,
            thread_number,
        }
    }

    #[test]
    fn the_offset_seed_under_randrepeat_is_the_fixed_base_times_the_thread_number() {
        let seeds = Seeds::new(options(3));
        assert_eq!(seeds.table[Purpose::Block as usize], 0xb189_9bed * 3);
        assert_ne!(seeds.table[0], seeds.table[1]);
        assert_eq!(Seeds::new(options(3)), seeds);
        assert_ne!(Seeds::new(options(4)), seeds);
    }

    #[test]
    fn the_reciprocal_is_exact() {
        for wide in [false, true] {
            let rng = FioRng::new(1, wide);
            assert_eq!(rng.per_span() * rng.span(), 1.0);
            let mut a = FioRng::new(99, wide);
            for _ in 0..10_000 {
                let r = a.draw() as f64;
                assert_eq!(r / a.span(), r * a.per_span());
            }
        }
    }

    #[test]
    fn draws_stay_in_their_bounds() {
        for wide in [false, true] {
            let mut rng = FioRng::new(12345, wide);
            for _ in 0..10_000 {
                let v = rng.between(1, 100);
                assert!((1..=100).contains(&v), "{v}");
                let u = rng.unit();
                assert!(u > 0.0 && u <= 1.0);
                assert!(rng.scaled(1000) < 1000);
            }
        }
    }

    #[test]
    fn a_mix_keeps_its_share_over_many_ios() {
        let seeds = Seeds::new(options(1));
        let mut mix = MixChooser::new(seeds.generator(Purpose::Mix, false), 70);
        let mut issued = [0u64; 2];
        for _ in 0..100_000 {
            issued[mix.next(issued)] += 1;
        }
        let reads = issued[0] as f64 / 100_000.0;
        assert!((0.66..0.74).contains(&reads), "{reads}");
    }
}
