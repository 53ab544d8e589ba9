//! One job file's view of its zones: where each I/O may go, and what it
//! does to the zones once queued.

use std::sync::Arc;

use super::setup::aligned_region;
use super::spec::{SharedZones, ZbdSpec, lock};
use super::zones::ZoneTable;
use crate::engine::Dir;
use crate::result::JobError;

/// One I/O as zbd keeps it to the zones: its direction, whether the
/// job's offsets are random, the direction's smallest block, and where
/// and how long it is.
#[derive(Debug, Clone, Copy)]
pub struct ZoneIo {
    pub dir: Dir,
    pub random: bool,
    pub min_bs: u64,
    pub at: u64,
    pub len: u64,
}

/// The job's own zone counts: the zones it holds open (fio's
/// td->num_open_zones), the resets it made, and an error that ended its
/// I/O.
#[derive(Debug, Default)]
pub struct ZbdJob {
    pub(super) open: u32,
    pub resets: u64,
    pub error: Option<JobError>,
}

/// One job file's view of its zones: the region (moved to whole zones for
/// writing jobs) and the zones it spans.
pub struct ZbdFile {
    pub(super) table: Arc<SharedZones>,
    /// fio's file_offset (zoneskip moves it) and io_size.
    pub offset: u64,
    pub io_size: u64,
    pub(super) min_zone: u32,
    pub(super) max_zone: u32,
}

/// What became of an I/O.
pub enum Adjusted {
    Go(u64, u64),
    /// No zone can take it: the file is done.
    Done,
    /// The job fails.
    Fail(JobError),
}

impl ZbdFile {
    /// The view of file `index` of the job, whose region starts at
    /// `offset` and spans `io_size` bytes (fio's io_size of the file,
    /// which may reach past the zones: rounding cuts it for writers).
    pub fn new(
        cfg: &crate::run::place::parts::PlaceParts<'_>,
        index: usize,
        io_size: u64,
    ) -> Option<Self> {
        let spec = cfg.placement.zbd.as_ref()?;
        let table = Arc::clone(spec.tables.get(index)?);
        let (offset, io_size, min_zone, max_zone) = {
            let guard = lock(&table);
            let t = guard.as_ref()?;
            let (offset, io_size) = aligned_region(
                cfg.workload,
                t,
                cfg.files.offset,
                io_size,
                &cfg.files.paths[index],
                &mut Vec::new(),
            )
            .ok()?;
            (offset, io_size, t.index(offset), t.index(offset + io_size))
        };
        let file = ZbdFile {
            table,
            offset,
            io_size,
            min_zone,
            max_zone,
        };
        file.reset(spec);
        Some(file)
    }

    /// fio's zbd_file_reset (the file opened or started over): the bytes
    /// written are counted again and the reset countdown starts over.
    pub fn reset(&self, spec: &ZbdSpec) {
        let mut guard = lock(&self.table);
        let Some(t) = guard.as_mut() else { return };
        let zones = &t.zones[self.min_zone as usize..self.max_zone as usize];
        t.with_data = zones.iter().map(|z| z.wp - z.start).sum();
        t.reset_write_cnt(spec.reset_frequency);
    }

    pub(super) fn valid(&self, at: u64) -> bool {
        at.wrapping_sub(self.offset) < self.io_size
    }

    /// fio's setup_zbd_zone_mode, before each I/O: a sequential writer
    /// at a zone's capacity goes on from the zone's end; with zoneskip, a
    /// sequential job done with its zone (a zone's worth of bytes, the
    /// zone's end, or a reader at the write pointer) moves its region
    /// `zonesize + zoneskip` on, back to `first` past the file's end.
    /// `start` is the region's start; `zone_bytes` the bytes done since
    /// the last move.
    // The per-I/O calls below are #[cold]: only zbd jobs make them, and
    // inlined into the I/O loop they would crowd every other job's path.
    #[cold]
    #[allow(clippy::too_many_arguments)]
    pub fn before(
        &mut self,
        spec: &ZbdSpec,
        random: bool,
        dir: Dir,
        last_pos: &mut u64,
        start: &mut u64,
        zone_bytes: &mut u64,
        (first, file_len): (u64, u64),
    ) {
        self.offset = *start;
        if random {
            return;
        }
        let guard = lock(&self.table);
        let Some(t) = guard.as_ref() else { return };
        let i = t.index(*last_pos) as usize;
        let z = t.zones[i];
        // Past the last zone fio reads beyond its table; the pass is over
        // there anyway (and a time-based job starts over).
        let zone_end = t.zones.get(i + 1).map_or(z.start, |n| n.start);
        if dir == Dir::Write
            && i + 1 < t.zones.len()
            && z.capacity < t.zone_size
            && *last_pos >= z.capacity_end()
        {
            *last_pos = zone_end;
        }
        if spec.zone_skip == 0 {
            return;
        }
        if *zone_bytes >= spec.zone_size
            || *last_pos >= zone_end
            || (dir == Dir::Read && !spec.read_beyond_wp && *last_pos >= z.wp)
        {
            *zone_bytes = 0;
            *start += spec.zone_size + spec.zone_skip;
            if *start >= file_len {
                *start = first;
            }
            *last_pos = *start;
            self.offset = *start;
        }
    }

    /// fio's zbd_adjust_ddir: a mixed job's read turns into a write while
    /// nothing has been written (there would be nothing to read).
    #[cold]
    pub fn direction(&self, spec: &ZbdSpec, mixed: bool, dir: Dir) -> Dir {
        if dir != Dir::Read || !mixed || spec.read_beyond_wp {
            return dir;
        }
        match lock(&self.table).as_ref() {
            Some(t) if t.with_data == 0 => Dir::Write,
            _ => dir,
        }
    }

    /// fio's zbd_adjust_block: reads are kept below the write pointer,
    /// writes go to it (in an open zone, resetting a full one).
    #[cold]
    pub fn adjust(&self, spec: &ZbdSpec, job: &mut ZbdJob, io: ZoneIo) -> Adjusted {
        let ZoneIo {
            dir,
            random,
            min_bs,
            at,
            len,
        } = io;
        if dir == Dir::Read && spec.read_beyond_wp {
            return Adjusted::Go(at, len);
        }
        let mut guard = lock(&self.table);
        let Some(t) = guard.as_mut() else {
            return Adjusted::Go(at, len);
        };
        // Past the zones (a reader's region may reach there): fio's
        // sentinel there has no write pointer, so the I/O goes as it is.
        if t.index(at) == t.zone_count() {
            return Adjusted::Go(at, len);
        }
        match dir {
            Dir::Read => self.read(t, random, min_bs, at, len),
            // A random trim goes to a zone with data, the nearest one.
            Dir::Trim
                if random
                    && t.zones[t.index(at) as usize].wp == t.zones[t.index(at) as usize].start =>
            {
                match self.find_zone(t, true, 1, t.index(at)) {
                    Some(z) => Adjusted::Go(t.zones[z as usize].start, len),
                    None => Adjusted::Done,
                }
            }
            Dir::Write => self.write(t, spec, job, io),
            _ => Adjusted::Go(at, len),
        }
    }

    pub(super) fn read(
        &self,
        t: &ZoneTable,
        random: bool,
        min_bs: u64,
        mut at: u64,
        mut len: u64,
    ) -> Adjusted {
        let first = t.index(at);
        let mut zi = first;
        let mut range = t.zones[zi as usize].wp - t.zones[zi as usize].start;
        if range < min_bs || (!random && at + min_bs > t.zones[zi as usize].wp) {
            let Some(found) = self.find_zone(t, random, min_bs, zi) else {
                return Adjusted::Done;
            };
            zi = found;
            let z = &t.zones[zi as usize];
            range = z.wp - z.start;
            if !random {
                at = z.start;
            }
        }
        let z = &t.zones[zi as usize];
        if range <= len {
            at = z.start;
        } else if random {
            let from = at - t.zones[first as usize].start;
            at = z.start + (from % (range - len)) / min_bs * min_bs;
        }
        let fits = len.min(z.wp - at) / min_bs * min_bs;
        if fits < len {
            len = fits;
        }
        Adjusted::Go(at, len)
    }

    /// fio's zbd_find_zone: the next zone with `min_bytes` written after
    /// zone `from`, and for random I/O the nearest one before it too.
    pub(super) fn find_zone(
        &self,
        t: &ZoneTable,
        random: bool,
        min_bytes: u64,
        from: u32,
    ) -> Option<u32> {
        let (first, last) = (i64::from(self.min_zone), i64::from(self.max_zone));
        let (mut up, mut down) = (i64::from(from) + 1, i64::from(from) - 1);
        let readable = |i: i64| {
            let z = &t.zones[i as usize];
            z.start + min_bytes <= z.wp
        };
        while up < last || down >= first {
            if up < last {
                if readable(up) {
                    return Some(up as u32);
                }
            } else if !random {
                break;
            }
            if random && down >= first && readable(down) {
                return Some(down as u32);
            }
            up += 1;
            down -= 1;
        }
        None
    }

    /// fio's zbd_queue_io and zbd_end_zone_io for a write of its final
    /// size: the write pointer moves on, and a zone the write fills is
    /// closed (once it completes in fio; ferrio's limits on open zones
    /// need I/O that completes as it is queued).
    #[cold]
    pub fn queued(&self, job: &mut ZbdJob, dir: Dir, at: u64, len: u64) {
        if dir != Dir::Write {
            return;
        }
        let mut guard = lock(&self.table);
        let Some(t) = guard.as_mut() else { return };
        let zi = t.index(at);
        if zi == t.zone_count() {
            return;
        }
        let z = &mut t.zones[zi as usize];
        let capacity_end = z.capacity_end();
        let end = (at + len).min(capacity_end);
        if z.wp <= end {
            t.with_data += end - z.wp;
        }
        z.wp = end;
        if at + len >= capacity_end {
            t.close(zi, &mut job.open);
        }
    }

    /// fio's zbd_do_io_u_trim, in place of a discard: the trim resets
    /// its zone (which fio does not pass on to a file). Returns the bytes
    /// done, or fio's error for a trim off a zone's start.
    #[cold]
    pub fn trim(&self, job: &mut ZbdJob, at: u64, len: u64) -> i64 {
        let mut guard = lock(&self.table);
        let Some(t) = guard.as_mut() else {
            return len as i64;
        };
        let zi = t.index(at);
        if zi == t.zone_count() {
            return len as i64;
        }
        if at != t.zones[zi as usize].start {
            return -i64::from(libc::EINVAL);
        }
        t.reset(zi, &mut job.resets);
        len as i64
    }
}
