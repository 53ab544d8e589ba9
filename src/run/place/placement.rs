//! Where each I/O of a job goes, following fio's rules step by step:
//! sequential positions per direction with `rw=...:N` holes (or steps
//! back), random blocks through the random map, `rw_sequencer` between new
//! random offsets, and `zonemode=strided` moving the region along the
//! file. A file whose next offset falls outside its region is done, as
//! in fio; the caller then picks another file or ends the pass.

use std::path::Path;

use crate::engine::Dir;
use crate::rand::fio_rand::{Draws, Purpose};
use crate::rand::lfsr::Lfsr;
use crate::run::place::distribution::{Distribution, Seeding, jhash};
use crate::run::place::offsets::RandomMap;
use crate::run::place::parts::PlaceParts;
use crate::run::place::zbd::{Adjusted, ZbdFile, ZbdJob, ZoneIo};
use crate::run::workload::WorkloadConfig;

/// One file's positions.
pub struct Placement {
    /// Where the region starts (fio's file_offset; strided zones move
    /// it), where it started, its length (io_size) and the file's length.
    start: u64,
    first_start: u64,
    io_size: u64,
    file_len: u64,
    /// Per direction: the end of the last I/O and its start (fio's
    /// last_pos and last_start).
    last_pos: [u64; 3],
    last_start: [Option<u64>; 3],
    map: Option<RandomMap>,
    /// random_generator=lfsr's register (in place of the map and the
    /// offset draws); None inside when fio could not set one up.
    lfsr: Option<Option<Lfsr>>,
    distribution: Distribution,
    /// Random offsets fall on multiples of this, per direction (fio's
    /// blockalign, which defaults to the direction's smallest size).
    align: [u64; 3],
    /// Per direction, how many aligned blocks a random draw spreads over
    /// (fio's last_block), computed once: it is the same for every I/O.
    blocks: [u64; 3],
    /// zonemode=zbd: the file's zones with their write pointers.
    zbd: Option<ZbdFile>,
}

/// A random pick: the offset within the region, and whether it came
/// from the random map (so the I/O may be shortened to free blocks).
type Pick = (u64, bool);

/// What fio says as it sets up each file's random offsets: that the file
/// has more blocks than its 32-bit generator reaches, and what became of
/// a random map it could not allocate.
pub struct MapNotes<'s> {
    /// Prints a line on stdout (fio's log_info).
    say: &'s mut dyn FnMut(String),
    /// fio moved the job to its 64-bit generator for an earlier file.
    switched: bool,
}

impl MapNotes<'_> {
    /// fio's check of `blocks` against the 32-bit Tausworthe generator:
    /// it moves a job that did not choose a generator to the 64-bit one
    /// (which ferrio's draws follow on their own), and only notes it.
    fn check_generator(&mut self, cfg: &PlaceParts<'_>, path: &Path, blocks: u64) {
        let tausworthe = !cfg.placement.wide_draws && !cfg.placement.lfsr && !self.switched;
        if blocks <= u64::from(u32::MAX) || !tausworthe {
            return;
        }
        (self.say)(format!(
            "fio: file {} exceeds 32-bit tausworthe random generator.",
            path.display()
        ));
        if cfg.placement.random_generator_set {
            (self.say)(
                "fio: Use the random_generator= option to switch to lfsr or tausworthe64."
                    .to_string(),
            );
        } else {
            (self.say)(
                "fio: Switching to tausworthe64. Use the random_generator= option to get rid \
                 of this warning."
                    .to_string(),
            );
            self.switched = true;
        }
    }

    /// The file's random map of `blocks` blocks: `Some(None)` when it
    /// could not be allocated and softrandommap runs the job without one,
    /// `None` when the job ends (as fio's, with no error code).
    fn map(&mut self, cfg: &PlaceParts<'_>, path: &Path, blocks: u64) -> Option<Option<RandomMap>> {
        if let Some(map) = RandomMap::new(blocks) {
            return Some(Some(map));
        }
        if cfg.placement.soft_random_map {
            (self.say)(format!(
                "fio: file {} failed allocating random map. Running job without.",
                path.display()
            ));
            return Some(None);
        }
        eprintln!(
            "fio: failed allocating random map. If running a large number of jobs, try the \
             'norandommap' option or set 'softrandommap'. Or give a larger --alloc-size to fio."
        );
        None
    }
}

impl Placement {
    /// The positions in a region of `io_size` bytes of the file at
    /// `path`, `file_len` bytes long; `None` when its random map could
    /// not be allocated and the job is to end (fio's message said so).
    pub fn new(
        cfg: &PlaceParts<'_>,
        path: &Path,
        (io_size, file_len): (u64, u64),
        notes: &mut MapNotes<'_>,
    ) -> Option<Self> {
        let index = cfg.files.paths.iter().position(|p| p == path).unwrap_or(0);
        let zbd = ZbdFile::new(cfg, index, io_size);
        // zbd: a writing job's region is whole zones.
        let (start, io_size) = zbd
            .as_ref()
            .map_or((cfg.files.offset, io_size), |z| (z.offset, z.io_size));
        let align = [0, 1, 2].map(|d| match cfg.placement.blockalign[d] {
            0 => cfg.workload.bs[d].min().max(1),
            a => a,
        });
        // Strided zones draw random blocks within one zone.
        let span = match &cfg.placement.zones {
            Some(z) => z.range,
            None => io_size.min(file_len.saturating_sub(cfg.files.offset).max(1)),
        };
        // fio spreads the skewed shapes over the region in units of the
        // smaller of the read and write minimum sizes, seeded from the
        // file's name and the job's thread number (or the offset seed,
        // without randrepeat).
        let unit = cfg.workload.bs[0]
            .min()
            .min(cfg.workload.bs[1].min())
            .max(1);
        let file_seed = if cfg.placement.seeds.repeat {
            let name = path.as_os_str().as_encoded_bytes();
            jhash(name).wrapping_mul(cfg.placement.seeds.thread_number as u32)
        } else {
            cfg.placement.seeds.seed(Purpose::Block) as u32
        };
        let seeding = Seeding {
            file_seed,
            zones: cfg.placement.seeds.generator(Purpose::Zone, false),
            hashed: true,
        };
        let distribution =
            Distribution::new(&cfg.placement.distribution, span.div_ceil(unit), seeding);
        // fio gives up the random map for non-uniform distributions. Its
        // map has a bit per smallest block size of the job.
        let map_unit = rw_min_bs(cfg.workload);
        let uniform = cfg.workload.pattern.random && distribution.is_uniform();
        // What a draw spreads over: the region within the file, or one
        // strided zone (fio's last_block, and its lfsr's block count).
        let draw_span = match &cfg.placement.zones {
            Some(z) => z.range,
            None => io_size.min(file_len),
        };
        if cfg.workload.pattern.random {
            notes.check_generator(cfg, path, draw_span / map_unit);
        }
        let lfsr = (uniform && cfg.placement.lfsr).then(|| {
            Lfsr::new(
                draw_span / map_unit,
                cfg.placement.seeds.seed(Purpose::Block),
            )
        });
        let map = if uniform && cfg.placement.random_map && lfsr.is_none() {
            notes.map(cfg, path, span / map_unit)?
        } else {
            None
        };
        let blocks = [0, 1, 2].map(|d| {
            let min = cfg.workload.bs[d].min();
            draw_span.saturating_sub(min.saturating_sub(align[d])) / align[d]
        });
        Some(Placement {
            start,
            first_start: start,
            io_size,
            file_len,
            last_pos: [start; 3],
            last_start: [None; 3],
            map,
            lfsr,
            distribution,
            align,
            blocks,
            zbd,
        })
    }

    /// Whether random offsets go through a random map (fio verifies such
    /// a job's blocks in the order written, else sorted by offset).
    pub fn has_map(&self) -> bool {
        self.map.is_some()
    }

    /// Back to the start of the region with every block unvisited (fio's
    /// fio_file_reset).
    pub fn reset(&mut self, cfg: &PlaceParts<'_>) {
        if let (Some(z), Some(spec)) = (&self.zbd, &cfg.placement.zbd) {
            z.reset(spec);
        }
        self.last_pos = [self.start; 3];
        self.last_start = [None; 3];
        if let Some(map) = &mut self.map {
            map.reset();
        }
        if let Some(Some(lfsr)) = &mut self.lfsr {
            lfsr.reset();
        }
    }

    /// A new pass over the file: the region is back where it began.
    pub fn restart(&mut self, cfg: &PlaceParts<'_>) {
        self.start = self.first_start;
        self.reset(cfg);
    }

    /// fio's get_next_seq_offset: where a sequential I/O goes, relative
    /// to the region, with the hole (or step back) of `rw=...:N`.
    fn sequential(&mut self, cfg: &PlaceParts<'_>, d: usize) -> Option<u64> {
        let step = cfg.workload.seq_step;
        let last = &mut self.last_pos[d];
        // A time-based job on one file starts over at the region's end.
        if *last >= self.io_size + self.first_start && cfg.time_based && cfg.files.paths.len() == 1
        {
            *last = self.start;
        }
        if *last >= self.file_len {
            return None;
        }
        let end = self.io_size.min(self.file_len);
        // Backwards I/O starts at the region's end (fio compares the
        // absolute position with io_size, and so does this).
        if *last == self.start && self.start != 0 && step < 0 {
            *last = end;
        }
        let mut pos = last.wrapping_sub(self.start);
        if pos != 0 && step != 0 {
            pos = pos.wrapping_add_signed(step);
            if pos >= self.file_len {
                pos = if step > 0 {
                    self.start
                } else {
                    end.wrapping_add_signed(step)
                };
            }
        }
        Some(pos)
    }

    /// fio's get_next_rand_block: a random block of the region. With the
    /// random map used up, a time-based job (or a skewed file choice)
    /// starts the map over; any other job is done with the file.
    fn random(&mut self, cfg: &PlaceParts<'_>, d: usize, draws: &mut Draws) -> Option<Pick> {
        if let Some(pick) = self.draw(d, draws) {
            return Some(pick);
        }
        if cfg.time_based || cfg.placement.file_service.skewed() {
            self.reset(cfg);
            return self.draw(d, draws);
        }
        None
    }

    /// fio's get_next_rand_offset: one draw scaled to the direction's
    /// blocks; with a random map, a used block gives way to the next free
    /// one after it.
    fn draw(&mut self, d: usize, draws: &mut Draws) -> Option<Pick> {
        let align = self.align[d];
        let blocks = self.blocks[d];
        if blocks == 0 {
            return None;
        }
        if let Some(lfsr) = &mut self.lfsr {
            // A register fio could not set up gives no offsets at all.
            return lfsr.as_mut()?.next_block().map(|b| (b * align, false));
        }
        let Some(map) = &mut self.map else {
            let block = if self.distribution.is_uniform() {
                draws.offsets.scaled(blocks)
            } else {
                self.distribution
                    .next(d, blocks, align, &mut draws.offsets)?
            };
            return Some((block * align, false));
        };
        let mut pick = draws.offsets.scaled(blocks);
        if map.is_used(pick) {
            pick = map.next_free_after(pick)?;
        }
        Some((pick * align, true))
    }

    /// Records an issued I/O (fio's last_start and last_pos).
    fn issued(&mut self, d: usize, offset: u64, len: u64) {
        self.last_start[d] = Some(offset);
        self.last_pos[d] = offset + len;
    }

    /// fio's setup_strided_zone_mode, before each I/O.
    fn enter_zone(&mut self, cfg: &PlaceParts<'_>, d: usize, zone_bytes: &mut u64) {
        let Some(z) = &cfg.placement.zones else {
            return;
        };
        if *zone_bytes >= z.size {
            *zone_bytes = 0;
            self.start += z.range + z.skip;
            if self.start >= self.file_len {
                self.start = self.first_start;
            }
            self.last_pos[d] = self.start;
        }
        if self.last_pos[d] >= self.start + z.range {
            self.last_pos[d] = self.start;
        }
        if (*zone_bytes).is_multiple_of(z.range) {
            self.reset(cfg);
        }
    }
}

/// The job's placement over all its files: fio's per-job counters (the
/// countdown to a new random offset, the bytes done in the current zone)
/// and one `Placement` per file.
pub struct Placer {
    pub files: Vec<Placement>,
    until_new_offset: u64,
    zone_bytes: u64,
    /// Whether the I/O being placed may land on used blocks without
    /// marking them (fio's IO_U_F_BUSY_OK). fio sets the flag whenever it
    /// looks for a sequential offset and clears it only when the I/O
    /// completes, so a file that ran out on the sequential path leaves it
    /// set for the next file tried: a random block found there is then
    /// not marked in the random map.
    busy_ok: bool,
    /// zonemode=zbd: the zones the job holds open, its zone resets, and
    /// an error that ended its I/O.
    pub zbd: ZbdJob,
}

impl Placer {
    /// `file_lens`: each file's length; `say` prints a line on stdout.
    /// `None` when a file's random map could not be allocated (see
    /// [`MapNotes`]).
    pub fn new(
        cfg: &PlaceParts<'_>,
        file_lens: &[u64],
        say: &mut dyn FnMut(String),
    ) -> Option<Self> {
        let mut notes = MapNotes {
            say,
            switched: false,
        };
        Some(Placer {
            files: cfg
                .files
                .paths
                .iter()
                .zip(file_lens)
                .zip(&cfg.files.regions)
                .map(|((path, &len), &io_size)| {
                    Placement::new(cfg, path, (io_size, len), &mut notes)
                })
                .collect::<Option<_>>()?,
            // So that the first I/O gets a new offset.
            until_new_offset: 1,
            zone_bytes: 0,
            busy_ok: false,
            zbd: ZbdJob::default(),
        })
    }

    /// Every file back to the start of its region, for a new pass.
    pub fn restart(&mut self, cfg: &PlaceParts<'_>) {
        for f in &mut self.files {
            f.restart(cfg);
        }
        // zbd: fio counts a zone's bytes afresh each loop (its
        // clear_io_state).
        if cfg.placement.zbd.is_some() {
            self.zone_bytes = 0;
        }
    }

    /// zonemode=zbd: a write decided outside the placement (trimwrite's
    /// write after its trim) kept to the zone's write pointer; `None`
    /// when no zone takes it. Other jobs' blocks pass unchanged.
    pub fn zbd_write(
        &mut self,
        cfg: &PlaceParts<'_>,
        (file, offset, len): (usize, u64, u64),
    ) -> Option<(usize, u64, u64)> {
        let (Some(z), Some(spec)) = (&self.files[file].zbd, &cfg.placement.zbd) else {
            return Some((file, offset, len));
        };
        let min_bs = cfg.workload.bs[Dir::Write as usize].min().max(1);
        let random = cfg.workload.pattern.random;
        let io = ZoneIo {
            dir: Dir::Write,
            random,
            min_bs,
            at: offset,
            len,
        };
        match z.adjust(spec, &mut self.zbd, io) {
            Adjusted::Go(at, len) => {
                z.queued(&mut self.zbd, Dir::Write, at, len);
                Some((file, at, len))
            }
            Adjusted::Done => None,
            Adjusted::Fail(e) => {
                self.zbd.error = Some(e);
                None
            }
        }
    }

    /// zonemode=zbd: a trim of `file` resets its zone instead (fio's
    /// zbd_do_io_u_trim); the bytes done or a negative errno, as an
    /// engine's result.
    pub fn zbd_trim(&mut self, file: usize, offset: u64, len: u64) -> Option<i64> {
        let z = self.files[file].zbd.as_ref()?;
        Some(z.trim(&mut self.zbd, offset, len))
    }

    /// zonemode=zbd: the direction an I/O to `file` takes (a mixed job
    /// writes while the file has nothing to read).
    pub fn direction(&self, cfg: &PlaceParts<'_>, file: usize, dir: Dir) -> Dir {
        match (&cfg.placement.zbd, &self.files[file].zbd) {
            (Some(spec), Some(z)) => z.direction(
                spec,
                cfg.workload.pattern.read && cfg.workload.pattern.write,
                dir,
            ),
            _ => dir,
        }
    }

    /// The absolute offset and length of the next I/O to `file` in
    /// direction `dir`, in fio's order: the offset (sequential, random,
    /// or the last one again), then a block size that fits in the region
    /// (fio does not cut the last one to the bytes the job has left),
    /// then the random map's claim, which shortens
    /// the I/O to the free blocks there. `None` when the file is done
    /// (fio's fill_io_u failing).
    pub fn next(
        &mut self,
        cfg: &PlaceParts<'_>,
        file: usize,
        dir: Dir,
        draws: &mut Draws,
    ) -> Option<(u64, u64)> {
        let d = dir as usize;
        let place = &mut self.files[file];
        place.enter_zone(cfg, d, &mut self.zone_bytes);
        if let (Some(z), Some(spec)) = (&mut place.zbd, &cfg.placement.zbd) {
            z.before(
                spec,
                cfg.workload.pattern.random,
                dir,
                &mut place.last_pos[d],
                &mut place.start,
                &mut self.zone_bytes,
                (cfg.files.offset, place.file_len),
            );
        }
        self.until_new_offset -= 1;
        let new_offset = self.until_new_offset == 0;
        if new_offset {
            self.until_new_offset = cfg.workload.new_offset_every;
        }
        let mut is_random = false;
        let (rel, from_map) =
            if new_offset && cfg.workload.pattern.random && should_be_random(cfg, d, draws) {
                is_random = true;
                place.random(cfg, d, draws)?
            } else if new_offset || !cfg.workload.repeat_offset {
                // fio allows used blocks on a random job's sequential path
                // and between new offsets (rw=...:N), not on a plain
                // sequential job's (which has no map anyway).
                self.busy_ok |= cfg.workload.pattern.random || !new_offset;
                match place.sequential(cfg, d) {
                    Some(pos) => (pos, false),
                    // A random job's sequential run that ran out goes on from
                    // a random block, which fio does not mark as used.
                    None if cfg.workload.pattern.random => (place.random(cfg, d, draws)?.0, false),
                    None => return None,
                }
            } else {
                self.busy_ok = true;
                (place.last_start[d].map_or(0, |s| s - place.start), false)
            };
        if rel >= place.io_size {
            return None;
        }
        let at = rel + place.start;
        if at >= place.file_len {
            return None;
        }
        // A drawn size must fit in the region; fio draws again until one
        // does (a fixed size is not checked).
        let end = place.io_size + place.first_start;
        let fits = |len: u64| at + len <= end;
        // bs_is_seq_rand: the size (and its draws) follow how the offset
        // was found, not the direction.
        let size_dir = match (cfg.workload.bs_is_seq_rand, is_random) {
            (false, _) => d,
            (true, false) => Dir::Read as usize,
            (true, true) => Dir::Write as usize,
        };
        let bs = &cfg.workload.bs[size_dir];
        if bs.min() != bs.max() && !fits(bs.min()) {
            return None;
        }
        let mut len = bs.pick(&mut draws.sizes[size_dir], cfg.workload.bs_unaligned, fits);
        if at + len > place.file_len {
            return None;
        }
        // zbd: reads below the write pointer, writes at it; the random
        // map is still marked where the offset was drawn, as in fio.
        let mut at = at;
        if let (Some(z), Some(spec)) = (&place.zbd, &cfg.placement.zbd) {
            let io = ZoneIo {
                dir,
                random: cfg.workload.pattern.random,
                min_bs: cfg.workload.bs[d].min().max(1),
                at,
                len,
            };
            match z.adjust(spec, &mut self.zbd, io) {
                Adjusted::Go(new_at, new_len) => (at, len) = (new_at, new_len),
                Adjusted::Done => return None,
                Adjusted::Fail(e) => {
                    self.zbd.error = Some(e);
                    return None;
                }
            }
        }
        if let (Some(map), true) = (&mut place.map, from_map && !self.busy_ok) {
            // fio marks the map in units of this direction's smallest
            // size, whatever the map's own unit.
            let unit = cfg.workload.bs[d].min().max(1);
            let got = map.claim(divide(rel, unit), divide(len + unit - 1, unit));
            len = len.min(got * unit);
        }
        if let Some(z) = &place.zbd {
            z.queued(&mut self.zbd, dir, at, len);
        }
        place.issued(d, at, len);
        // The I/O completes before its io_u is filled again.
        self.busy_ok = false;
        self.zone_bytes += len;
        Some((at, len))
    }
}

/// Whether a new offset of a random job is random (percentage_random).
fn should_be_random(cfg: &PlaceParts<'_>, d: usize, draws: &mut Draws) -> bool {
    let percent = cfg.placement.percentage_random[d];
    percent >= 100 || draws.random_or_not[d].between(1, 100) <= percent
}

/// fio's rw_min_bs: the smallest block size over all three directions,
/// whether the job uses them or not (`bs=4k,16k` on a random writer
/// still sizes the random map in 4k blocks, while the writes mark it in
/// 16k units: fio's random map then runs out early).
pub fn rw_min_bs(workload: &WorkloadConfig) -> u64 {
    workload
        .bs
        .iter()
        .map(|b| b.min())
        .min()
        .unwrap_or(4096)
        .max(1)
}

/// The directions the job issues (read, write, trim), by index.
pub fn used_dirs(workload: &WorkloadConfig) -> impl Iterator<Item = usize> + '_ {
    [
        workload.pattern.read,
        workload.pattern.write,
        workload.pattern.trim,
    ]
    .into_iter()
    .enumerate()
    .filter(|(_, on)| *on)
    .map(|(d, _)| d)
}

/// `x / unit`, by a shift when `unit` is a power of two (block sizes
/// nearly always are), to keep 64-bit divisions off the per-I/O path.
#[inline]
fn divide(x: u64, unit: u64) -> u64 {
    if unit.is_power_of_two() {
        x >> unit.trailing_zeros()
    } else {
        x / unit
    }
}

/// Whether the job's generators are 64-bit: asked for, or needed to
/// reach every block of the job's size.
pub fn draws_wide(cfg: &PlaceParts<'_>) -> bool {
    let smallest = rw_min_bs(cfg.workload);
    cfg.placement.wide_draws || cfg.files.size / smallest > u64::from(u32::MAX)
}

/// The job's draws from fio's generators. A file with more blocks than a
/// 32-bit draw can reach makes fio switch to its 64-bit generator.
pub fn job_draws(cfg: &PlaceParts<'_>) -> Draws {
    Draws::new(
        &cfg.placement.seeds,
        draws_wide(cfg),
        cfg.workload.read_percent,
        cfg.verifies,
        cfg.workload.pattern.trimwrite,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::plan_for_test;
    use crate::run::config::JobConfig;

    fn config(text: &str) -> JobConfig {
        let p = plan_for_test(text, &[], &[], false).unwrap();
        JobConfig::from_spec(p.jobs().next().unwrap(), false).unwrap()
    }

    /// Offsets of up to `n` reads of 4k on one file of `file_len` bytes,
    /// until the file is done.
    fn offsets_in(cfg: &JobConfig, file_len: u64, n: usize) -> Vec<u64> {
        let cfg = &cfg.place_parts();
        let mut placer = Placer::new(cfg, &[file_len], &mut |_| {}).unwrap();
        let mut draws = job_draws(cfg);
        (0..n)
            .map_while(|_| placer.next(cfg, 0, Dir::Read, &mut draws))
            .map(|(o, _)| o)
            .collect()
    }

    fn offsets(cfg: &JobConfig, n: usize) -> Vec<u64> {
        offsets_in(cfg, cfg.files.offset + cfg.files.size, n)
    }

    #[test]
    fn percentage_random_zero_is_sequential_and_full_is_random() {
        let seq = offsets(
            &config("[j]\nrw=randread\nsize=1m\npercentage_random=0\n"),
            8,
        );
        assert_eq!(seq, (0..8).map(|i| i * 4096).collect::<Vec<_>>());
        let random = offsets(&config("[j]\nrw=randread\nsize=1m\n"), 64);
        let in_order = random.windows(2).filter(|w| w[1] == w[0] + 4096).count();
        assert!(in_order < 8, "{in_order} of 63 steps were sequential");
        let half = offsets(
            &config("[j]\nrw=randread\nsize=64m\npercentage_random=50\n"),
            2000,
        );
        let in_order = half.windows(2).filter(|w| w[1] == w[0] + 4096).count();
        assert!(
            (700..1300).contains(&in_order),
            "{in_order} of 1999 steps were sequential"
        );
    }

    #[test]
    fn blockalign_puts_random_offsets_on_its_multiples() {
        let cfg = config("[j]\nrw=randread\nbs=4k\nba=64k\nsize=1m\n");
        assert!(!cfg.placement.random_map);
        assert!(offsets(&cfg, 200).iter().all(|o| o % 65536 == 0));
    }

    #[test]
    fn random_pass_touches_every_block_once_then_the_file_is_done() {
        let cfg = config("[j]\nrw=randread\nsize=1m\n");
        let mut seen = offsets(&cfg, 300);
        seen.sort_unstable();
        assert_eq!(seen, (0..256).map(|i| i * 4096).collect::<Vec<_>>());
    }

    #[test]
    fn holes_skip_bytes_and_the_file_is_done_at_its_end() {
        let cfg = config("[j]\nrw=read:8k\nsize=64k\n");
        assert_eq!(offsets(&cfg, 100), [0, 12288, 24576, 36864, 49152, 61440]);
    }

    #[test]
    fn backwards_reads_wrap_to_the_end_of_the_region() {
        // What fio 3.33 issues for these jobs (read from its lat log).
        let cfg = config("[j]\nrw=read:-8k\nsize=64k\n");
        let want: Vec<u64> = [
            0, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0, 56,
        ]
        .iter()
        .map(|k| k * 1024)
        .collect();
        assert_eq!(offsets(&cfg, 17), want);
        let cfg = config("[j]\nrw=read:-8k\nsize=64k\noffset=16k\n");
        let want: Vec<u64> = [
            56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 72, 68, 64, 60, 56,
        ]
        .iter()
        .map(|k| k * 1024)
        .collect();
        assert_eq!(offsets_in(&cfg, 1 << 20, 16), want);
    }

    #[test]
    fn identical_sequencer_repeats_each_new_offset() {
        let cfg = config("[j]\nrw=randread:4\nrw_sequencer=identical\nsize=64k\n");
        let got = offsets(&cfg, 16);
        assert_eq!(got.len(), 16);
        for group in got.chunks(4) {
            assert!(group.iter().all(|&o| o == group[0]), "{got:?}");
        }
    }
}
