//! Non-uniform random offsets (`random_distribution`): zipf, pareto,
//! normal and zoned, following fio's generators so that the same
//! parameters give the same shape of hot and cold blocks. Zipf, pareto and
//! normal draws are scattered over the file by a hash (as fio scatters
//! them), so the hot blocks are not all at its start; zoned draws are not.

use super::offsets::Rng;

/// fio computes the zipf normalisation over at most this many items.
const ZIPF_MAX_ITEMS: u64 = 10_000_000;

/// A generator of block numbers in `0..blocks`.
#[derive(Debug, Clone)]
pub enum Distribution {
    Uniform,
    Zipf {
        blocks: u64,
        theta: f64,
        zeta2: f64,
        zetan: f64,
        offset: u64,
    },
    Pareto {
        blocks: u64,
        power: f64,
        offset: u64,
    },
    Normal {
        blocks: u64,
        spread: u64,
        offset: i64,
    },
    /// Per direction: (share of accesses, share of the blocks), in percent.
    Zoned {
        blocks: u64,
        zones: [Vec<(u32, u32)>; 3],
    },
    /// Per direction, for each of the 100 possible draws: the first block
    /// of its zone and the block past its end (fio's zone index table).
    ZonedAbs {
        blocks: u64,
        table: [Vec<(u64, u64)>; 3],
    },
}

/// What `random_distribution` asked for, before the file size is known.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Uniform,
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    Normal {
        deviation: f64,
        center: Option<f64>,
    },
    Zoned([Vec<(u32, u32)>; 3]),
    /// Per direction: (share of accesses in percent, zone size in bytes).
    ZonedAbs([Vec<(u32, u64)>; 3]),
}

/// Scatters a rank over the file (a 64-bit mixing function).
fn scatter(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Distribution {
    /// The generator for a file of `blocks` blocks of `block` bytes.
    pub fn new(shape: &Shape, blocks: u64, block: u64) -> Self {
        let blocks = blocks.max(1);
        let offset = |center: Option<f64>| center.map_or(0, |c| (blocks as f64 * c) as u64);
        match shape {
            Shape::Uniform => Distribution::Uniform,
            Shape::Zipf { theta, center } => {
                let zetan = (1..=blocks.min(ZIPF_MAX_ITEMS))
                    .map(|i| (i as f64).powf(-theta))
                    .sum();
                Distribution::Zipf {
                    blocks,
                    theta: *theta,
                    zeta2: 1.0 + 0.5f64.powf(*theta),
                    zetan,
                    offset: offset(*center),
                }
            }
            Shape::Pareto { h, center } => Distribution::Pareto {
                blocks,
                power: h.ln() / (1.0 - h).ln(),
                offset: offset(*center),
            },
            Shape::Normal { deviation, center } => {
                let spread = ((blocks as f64 * deviation / 100.0).ceil() as u64).min(blocks / 2);
                let offset = center.map_or(0, |c| (blocks as f64 * (c - 0.5)) as i64);
                Distribution::Normal {
                    blocks,
                    spread,
                    offset,
                }
            }
            Shape::Zoned(zones) => Distribution::Zoned {
                blocks,
                zones: zones.clone(),
            },
            Shape::ZonedAbs(zones) => Distribution::ZonedAbs {
                blocks,
                table: zones.clone().map(|z| zone_table(&z, block)),
            },
        }
    }

    pub fn is_uniform(&self) -> bool {
        matches!(self, Distribution::Uniform)
    }

    /// The next block for an I/O in direction `dir`; `None` when there is
    /// none to draw (uniform: the caller draws it; zoned_abs: the zones
    /// reach past the file, which ends fio's job on that file).
    pub fn next(&self, rng: &mut Rng, dir: usize) -> Option<u64> {
        let unit = |rng: &mut Rng| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        Some(match self {
            Distribution::Uniform => return None,
            Distribution::Zipf {
                blocks,
                theta,
                zeta2,
                zetan,
                offset,
            } => {
                let n = *blocks as f64;
                let alpha = 1.0 / (1.0 - theta);
                let eta = (1.0 - (2.0 / n).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
                let u = unit(rng);
                let uz = u * zetan;
                let rank = if uz < 1.0 {
                    1
                } else if uz < 1.0 + 0.5f64.powf(*theta) {
                    2
                } else {
                    1 + (n * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                (scatter(rank - 1).wrapping_add(*offset)) % blocks
            }
            Distribution::Pareto {
                blocks,
                power,
                offset,
            } => {
                let rank = ((blocks - 1) as f64 * unit(rng).powf(*power)) as u64;
                (scatter(rank).wrapping_add(*offset)) % blocks
            }
            Distribution::Normal {
                blocks,
                spread,
                offset,
            } => {
                // The mean of twelve uniform draws, then a uniform wobble of
                // the spread's width, as fio's Gaussian generator does.
                let sum: u64 = (0..12).map(|_| rng.below(blocks + 1)).sum();
                let mut at = sum.div_ceil(12);
                if *spread > 0 {
                    let mut wobble = (*spread as f64 * unit(rng)) as i64 - (*spread / 2) as i64;
                    while at as i64 + wobble >= *blocks as i64 {
                        wobble /= 2;
                    }
                    at = at.wrapping_add_signed(wobble);
                }
                (scatter(at).wrapping_add_signed(*offset)) % blocks
            }
            Distribution::Zoned { blocks, zones } => {
                let zones = &zones[dir];
                let draw = rng.below(100) as u32;
                let (mut access, mut start) = (0u32, 0u64);
                for &(share, size) in zones {
                    let len = (blocks * size as u64 / 100).max(1);
                    access += share;
                    if draw < access {
                        return Some((start + rng.below(len)).min(blocks - 1));
                    }
                    start += len;
                }
                rng.below(*blocks)
            }
            Distribution::ZonedAbs { blocks, table } => {
                let table = &table[dir];
                if table.is_empty() {
                    return Some(rng.below(*blocks));
                }
                let (first, end) = table[rng.below(100) as usize];
                if end > *blocks {
                    return None;
                }
                first + rng.below((end - first).max(1))
            }
        })
    }
}

/// fio's zone index for zoned_abs: for each draw 1..=100, the zone it
/// falls in as (first block, block past the end).
fn zone_table(zones: &[(u32, u64)], block: u64) -> Vec<(u64, u64)> {
    if zones.is_empty() {
        return Vec::new();
    }
    let mut table = Vec::with_capacity(100);
    let (mut start, mut covered) = (0u64, 0u32);
    for &(share, size) in zones {
        let end = start + size;
        for _ in 0..share {
            table.push((start / block, end / block));
        }
        covered += share;
        start = end;
    }
    // Shares add up to 100 (the parser checks): pad defensively.
    let last = *table.last().unwrap_or(&(0, 1));
    table.resize(100.max(covered as usize), last);
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Share of all draws that land on the most drawn 1% of blocks.
    fn top_share(d: &Distribution, blocks: u64, draws: u64) -> f64 {
        let mut rng = Rng::new(42);
        let mut hits = vec![0u64; blocks as usize];
        for _ in 0..draws {
            hits[d.next(&mut rng, 0).unwrap() as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        hits[..(blocks / 100) as usize].iter().sum::<u64>() as f64 / draws as f64
    }

    #[test]
    fn skewed_shapes_concentrate_on_few_blocks_and_uniform_does_not() {
        let blocks = 10_000;
        let zipf = Distribution::new(
            &Shape::Zipf {
                theta: 1.2,
                center: None,
            },
            blocks,
            4096,
        );
        let pareto = Distribution::new(
            &Shape::Pareto {
                h: 0.2,
                center: None,
            },
            blocks,
            4096,
        );
        assert!(top_share(&zipf, blocks, 200_000) > 0.6);
        assert!(top_share(&pareto, blocks, 200_000) > 0.45);
        let normal = Distribution::new(
            &Shape::Normal {
                deviation: 10.0,
                center: None,
            },
            blocks,
            4096,
        );
        let share = top_share(&normal, blocks, 200_000);
        assert!(share > 0.02 && share < 0.2, "{share}");
    }

    #[test]
    fn zones_get_their_share_of_accesses() {
        let blocks = 1000;
        let zones = [vec![(60, 10), (40, 90)], vec![], vec![]];
        let d = Distribution::new(&Shape::Zoned(zones), blocks, 4096);
        let mut rng = Rng::new(1);
        let first: u64 = (0..100_000)
            .filter(|_| d.next(&mut rng, 0).unwrap() < 100)
            .count() as u64;
        assert!((58_000..62_000).contains(&first), "{first}");
    }
}
