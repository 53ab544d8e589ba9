//! Non-uniform random offsets (`random_distribution`): zipf, pareto,
//! normal, zoned and zoned_abs, computed as fio 3.33 computes them, with
//! its generators and seeds, so that a job visits fio's blocks in fio's
//! order. Zipf, pareto and normal draws are scattered over the file by
//! fio's multiplicative hash and shifted by a per-file offset; zoned draws
//! pick a zone by share of accesses, then a uniform block inside it.

use crate::options::distribution::Shape;
use crate::rand::fio_rand::FioRng;

/// fio computes the zipf normalisation over at most this many items.
const ZIPF_MAX_ITEMS: u64 = 10_000_000;

/// fio's multiplicative hash constant (its __hash_u64).
const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;

/// One entry of fio's zone lookup table: the zone a draw in 1..=100
/// falls in, as its start and end (percent of the region for `zoned`,
/// bytes for `zoned_abs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zone {
    start: u64,
    end: u64,
}

/// A generator of block numbers.
#[derive(Debug, Clone)]
pub enum Distribution {
    Uniform,
    Zipf {
        ranges: u64,
        theta: f64,
        zeta2: f64,
        zetan: f64,
        offset: u64,
        hashed: bool,
        rng: FioRng,
    },
    Pareto {
        ranges: u64,
        power: f64,
        offset: u64,
        hashed: bool,
        rng: FioRng,
    },
    Normal {
        ranges: u64,
        spread: u32,
        offset: u64,
        hashed: bool,
        rng: FioRng,
    },
    /// Per direction, fio's table of 100 entries (empty: uniform).
    Zoned {
        absolute: bool,
        table: [Vec<Zone>; 3],
        rng: FioRng,
    },
}

/// How a distribution is seeded: fio seeds the skewed shapes per file
/// (`file_seed`), the zone choice from the job's zone generator (`zones`).
pub struct Seeding {
    pub file_seed: u32,
    pub zones: FioRng,
    /// Scatter the skewed shapes' ranks with fio's hash (fio turns it off
    /// for its choice of files).
    pub hashed: bool,
}

impl Distribution {
    /// The generator for a file of `ranges` units (fio's nranges: the
    /// region over the smaller of the read and write minimum sizes).
    pub fn new(shape: &Shape, ranges: u64, seeding: Seeding) -> Self {
        let ranges = ranges.max(1);
        let mut rng = FioRng::new(u64::from(seeding.file_seed), false);
        match shape {
            Shape::Uniform => Distribution::Uniform,
            Shape::Zipf { theta, center } => {
                let offset = skew_offset(&mut rng, ranges, *center);
                let zetan = (0..ranges.min(ZIPF_MAX_ITEMS))
                    .map(|i| (1.0 / (i + 1) as f64).powf(*theta))
                    .sum();
                Distribution::Zipf {
                    ranges,
                    theta: *theta,
                    zeta2: 1.0f64.powf(*theta) + 0.5f64.powf(*theta),
                    zetan,
                    offset,
                    hashed: seeding.hashed,
                    rng,
                }
            }
            Shape::Pareto { h, center } => Distribution::Pareto {
                ranges,
                offset: skew_offset(&mut rng, ranges, *center),
                power: h.ln() / (1.0 - h).ln(),
                hashed: seeding.hashed,
                rng,
            },
            Shape::Normal { deviation, center } => {
                let spread = if *deviation != 0.0 {
                    let s = ((ranges as f64 * deviation) / 100.0).ceil() as u32;
                    s.min((ranges / 2) as u32)
                } else {
                    0
                };
                // fio keeps this offset in 32 bits, wrapping a negative one.
                let offset = center.map_or(0, |c| (ranges as f64 * (c - 0.5)) as i64 as u32);
                Distribution::Normal {
                    ranges,
                    spread,
                    offset: u64::from(offset),
                    hashed: seeding.hashed,
                    rng,
                }
            }
            Shape::Zoned(zones) => Distribution::Zoned {
                absolute: false,
                table: zones
                    .each_ref()
                    .map(|z| zone_table(z.iter().map(|&(a, s)| (a, u64::from(s))))),
                rng: seeding.zones,
            },
            Shape::ZonedAbs(zones) => Distribution::Zoned {
                absolute: true,
                table: zones.each_ref().map(|z| zone_table(z.iter().copied())),
                rng: seeding.zones,
            },
        }
    }

    pub fn is_uniform(&self) -> bool {
        matches!(self, Distribution::Uniform)
    }

    /// The next block for an I/O in direction `dir`, in units of that
    /// direction's alignment `align`, among `blocks` of them; `offsets` is
    /// the job's offset generator, which zoned shapes draw inside a zone
    /// with. `None` for uniform (the caller draws) and when fio finds no
    /// block (zoned_abs zones beyond the region).
    pub fn next(
        &mut self,
        dir: usize,
        blocks: u64,
        align: u64,
        offsets: &mut FioRng,
    ) -> Option<u64> {
        match self {
            Distribution::Uniform => None,
            Distribution::Zipf {
                ranges,
                theta,
                zeta2,
                zetan,
                offset,
                hashed,
                rng,
            } => {
                let n = *ranges;
                let alpha = 1.0 / (1.0 - *theta);
                let eta = (1.0 - (2.0 / n as f64).powf(1.0 - *theta)) / (1.0 - *zeta2 / *zetan);
                let uniform = rng.draw() as f64 / u32::MAX as f64;
                let z = uniform * *zetan;
                let rank = if z < 1.0 {
                    1
                } else if z < 1.0 + 0.5f64.powf(*theta) {
                    2
                } else {
                    1 + (n as f64 * (eta * uniform - eta + 1.0).powf(alpha)) as u64
                };
                Some(scatter(rank - 1, *offset, n, *hashed))
            }
            Distribution::Pareto {
                ranges,
                power,
                offset,
                hashed,
                rng,
            } => {
                let uniform = rng.draw() as f64 / u32::MAX as f64;
                let rank = ((*ranges - 1) as f64 * uniform.powf(*power)) as u64;
                Some(scatter(rank, *offset, *ranges, *hashed))
            }
            Distribution::Normal {
                ranges,
                spread,
                offset,
                hashed,
                rng,
            } => {
                // The mean of twelve uniform draws, then a uniform wobble
                // of the spread's width, halved until it stays inside.
                let n = *ranges;
                let sum: u64 = (0..12).map(|_| rng.draw() % (n + 1)).sum();
                let mut at = sum.div_ceil(12);
                if *spread > 0 {
                    let r = rng.draw() as f64;
                    let wobble = (f64::from(*spread) * (r / (u32::MAX as f64 + 1.0))) as i32;
                    let mut wobble = wobble - (*spread / 2) as i32;
                    while at.wrapping_add_signed(i64::from(wobble)) >= n {
                        wobble /= 2;
                    }
                    at = at.wrapping_add_signed(i64::from(wobble));
                }
                Some(scatter(at, *offset, n, *hashed))
            }
            Distribution::Zoned {
                absolute,
                table,
                rng,
            } => {
                let zones = &table[dir];
                if zones.is_empty() {
                    return Some(offsets.scaled(blocks));
                }
                let zone = zones[(rng.between(1, 100) - 1) as usize];
                let (first, end) = if *absolute {
                    (zone.start / align, zone.end / align)
                } else {
                    (
                        zone.start * blocks / 100,
                        blocks * (zone.end - zone.start) / 100,
                    )
                };
                if *absolute {
                    if end > blocks {
                        return None;
                    }
                    Some(first + offsets.scaled(end - first))
                } else {
                    Some(first + offsets.scaled(end))
                }
            }
        }
    }
}

/// A skewed shape's per-file shift: the file generator's first draw, or
/// the centre's share of the ranges when `random_distribution` gave one.
fn skew_offset(rng: &mut FioRng, ranges: u64, center: Option<f64>) -> u64 {
    let first = rng.draw();
    center.map_or(first, |c| (ranges as f64 * c) as u64)
}

/// fio's scattering of a rank over the file: hashed (unless turned off),
/// shifted, wrapped.
fn scatter(rank: u64, offset: u64, ranges: u64, hashed: bool) -> u64 {
    let rank = if hashed {
        rank.wrapping_mul(GOLDEN_RATIO_64)
    } else {
        rank
    };
    rank.wrapping_add(offset) % ranges
}

/// fio's 100-entry lookup table for one direction's zones: entry `v - 1`
/// holds the zone that a draw `v` in 1..=100 falls in, each zone taking
/// as many entries as its share of accesses.
fn zone_table(zones: impl Iterator<Item = (u32, u64)>) -> Vec<Zone> {
    let mut table = Vec::with_capacity(100);
    let mut start = 0u64;
    for (access, size) in zones {
        let end = start + size;
        for _ in 0..access {
            table.push(Zone { start, end });
        }
        start = end;
    }
    if !table.is_empty() {
        let last = *table.last().unwrap_or(&Zone { start: 0, end: 0 });
        table.resize(100, last);
    }
    table
}

/// Bob Jenkins' hash as fio uses it (jhash with a zero initial value),
/// which seeds the skewed shapes from each file's name.
pub fn jhash(key: &[u8]) -> u32 {
    const INIT: u32 = 0x61C8_8647;
    let mut a = INIT.wrapping_add(key.len() as u32);
    let (mut b, mut c) = (a, a);
    let mut k = key;
    while k.len() > 12 {
        a = a.wrapping_add(u32::from(k[0]));
        b = b.wrapping_add(u32::from(k[4]));
        c = c.wrapping_add(u32::from(k[8]));
        (a, b, c) = mix(a, b, c);
        k = &k[12..];
    }
    if k.is_empty() {
        return c;
    }
    let byte = |i: usize, shift: u32| k.get(i).map_or(0, |&x| u32::from(x) << shift);
    c = c
        .wrapping_add(byte(11, 24))
        .wrapping_add(byte(10, 16))
        .wrapping_add(byte(9, 8))
        .wrapping_add(byte(8, 0));
    b = b
        .wrapping_add(byte(7, 24))
        .wrapping_add(byte(6, 16))
        .wrapping_add(byte(5, 8))
        .wrapping_add(byte(4, 0));
    a = a
        .wrapping_add(byte(3, 24))
        .wrapping_add(byte(2, 16))
        .wrapping_add(byte(1, 8))
        .wrapping_add(byte(0, 0));
    final_mix(a, b, c)
}

fn mix(mut a: u32, mut b: u32, mut c: u32) -> (u32, u32, u32) {
    a = a.wrapping_sub(c) ^ c.rotate_left(4);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a) ^ a.rotate_left(6);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b) ^ b.rotate_left(8);
    b = b.wrapping_add(a);
    a = a.wrapping_sub(c) ^ c.rotate_left(16);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a) ^ a.rotate_left(19);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b) ^ b.rotate_left(4);
    b = b.wrapping_add(a);
    (a, b, c)
}

fn final_mix(mut a: u32, mut b: u32, mut c: u32) -> u32 {
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(14));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    c ^= b;
    c = c.wrapping_sub(b.rotate_left(16));
    a ^= c;
    a = a.wrapping_sub(c.rotate_left(4));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(14));
    c ^= b;
    c.wrapping_sub(b.rotate_left(24))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeding() -> Seeding {
        Seeding {
            file_seed: 7,
            zones: FioRng::new(9, false),
            hashed: true,
        }
    }

    /// Share of all draws that land on the most drawn 1% of blocks.
    fn top_share(d: &mut Distribution, blocks: u64, draws: u64) -> f64 {
        let mut offsets = FioRng::new(42, false);
        let mut hits = vec![0u64; blocks as usize];
        for _ in 0..draws {
            hits[d.next(0, blocks, 1, &mut offsets).unwrap() as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        hits[..(blocks / 100) as usize].iter().sum::<u64>() as f64 / draws as f64
    }

    #[test]
    fn skewed_shapes_concentrate_on_few_blocks() {
        let blocks = 10_000;
        let zipf = Shape::Zipf {
            theta: 1.2,
            center: None,
        };
        let pareto = Shape::Pareto {
            h: 0.2,
            center: None,
        };
        let normal = Shape::Normal {
            deviation: 10.0,
            center: None,
        };
        let share = |s: &Shape| {
            top_share(
                &mut Distribution::new(s, blocks, seeding()),
                blocks,
                200_000,
            )
        };
        assert!(share(&zipf) > 0.6);
        assert!(share(&pareto) > 0.45);
        let normal = share(&normal);
        assert!(normal > 0.02 && normal < 0.2, "{normal}");
    }

    #[test]
    fn zones_get_their_share_of_accesses() {
        let blocks = 1000;
        let zones = [vec![(60, 10), (40, 90)], vec![], vec![]];
        let mut d = Distribution::new(&Shape::Zoned(zones), blocks, seeding());
        let mut offsets = FioRng::new(1, false);
        let first = (0..100_000)
            .filter(|_| d.next(0, blocks, 1, &mut offsets).unwrap() < 100)
            .count();
        assert!((58_000..62_000).contains(&first), "{first}");
    }

    #[test]
    fn jhash_of_nothing_is_its_initial_value_and_names_differ() {
        assert_eq!(jhash(b""), 0x61C8_8647);
        // As fio's jhash computes it for its default file name.
        assert_eq!(jhash(b"j.0.0"), 0xd646_691e);
        assert_ne!(jhash(b"j.0.0"), jhash(b"j.1.0"));
        assert_ne!(
            jhash(b"a-name-longer-than-twelve"),
            jhash(b"a-name-longer-than-twelvf")
        );
    }
}
