//! `zonemode=zbd` on targets that are not zoned (fio's ZBD_NONE model):
//! the file is cut into zones of `zonesize` bytes, each with a write
//! pointer that starts at the zone's start when the run begins (whatever
//! the file holds). Writes go to a zone's write pointer and move it on;
//! a full zone is reset before it is written again; reads stay below the
//! write pointer (unless `read_beyond_wp`); a trim resets its zone and
//! never reaches the file. With `max_open_zones`, only that many zones
//! take writes at once. Jobs naming the same file share
//! its zones, as fio shares them by file name, so one job's writes are
//! there for a later job to read.
//!
//! Zoned hardware (host-managed or host-aware devices) is not handled:
//! ferrio refuses zonemode=zbd on anything but a regular file.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use super::config::BlockSizes;
use super::result::JobError;
use crate::engine::Dir;

/// fio's own cap on open zones (its open zone array's size).
const MAX_OPEN_ZONES: usize = 4096;

/// What a job's zbd options ask for, and its files' shared zones.
#[derive(Debug, Clone)]
pub struct ZbdSpec {
    pub zone_size: u64,
    /// Writable bytes per zone (zonecapacity; 0: the whole zone).
    pub zone_capacity: u64,
    pub read_beyond_wp: bool,
    /// zoneskip: bytes a sequential job skips past each zone it is done
    /// with (a multiple of the zone size).
    pub zone_skip: u64,
    pub max_open_zones: u32,
    pub job_max_open_zones: u32,
    /// zone_reset_threshold and zone_reset_frequency (0 to 1).
    pub reset_threshold: f64,
    pub reset_frequency: f64,
    /// One per file of the job, in the order of its paths; set when the
    /// plan is prepared (`share`).
    pub tables: Vec<Arc<SharedZones>>,
}

/// A file's zones, made by the first job that sets the file up.
#[derive(Debug, Default)]
pub struct SharedZones(Mutex<Option<ZoneTable>>);

#[derive(Debug, Clone, Copy)]
struct Zone {
    start: u64,
    wp: u64,
    capacity: u64,
    open: bool,
    /// Reset before the next write (zone_reset_frequency's choice).
    reset_next: bool,
}

impl Zone {
    fn capacity_end(&self) -> u64 {
        self.start + self.capacity
    }

    /// Whether fewer than `need` bytes are left below the capacity.
    fn full(&self, need: u64) -> bool {
        self.wp + need > self.capacity_end()
    }
}

#[derive(Debug)]
struct ZoneTable {
    zone_size: u64,
    /// The zones and, last, a sentinel that only marks the end.
    zones: Vec<Zone>,
    max_open: u32,
    /// The open zones' indexes in their first `open_count` slots. Like
    /// fio's fixed array, a slot past the count keeps what was last
    /// there, which fio may still read when no zone is open.
    open: Vec<u32>,
    open_count: u32,
    /// Bytes below the write pointers, over all zones.
    with_data: u64,
    /// Writes left until the next zone_reset_frequency reset.
    write_cnt: u32,
}

impl ZoneTable {
    fn zone_count(&self) -> u32 {
        (self.zones.len() - 1) as u32
    }

    fn index(&self, offset: u64) -> u32 {
        ((offset / self.zone_size).min(u64::from(self.zone_count()))) as u32
    }

    fn close(&mut self, z: u32, job_open: &mut u32) {
        if !self.zones[z as usize].open {
            return;
        }
        let count = self.open_count as usize;
        let Some(at) = self.open[..count].iter().position(|&o| o == z) else {
            return;
        };
        // fio shifts the rest of its whole array down by one.
        self.open.copy_within(at + 1.., at);
        self.open_count -= 1;
        *job_open = job_open.saturating_sub(1);
        self.zones[z as usize].open = false;
    }

    /// Empties a zone; a zone with nothing written is left as it is and
    /// not counted.
    fn reset(&mut self, z: u32, resets: &mut u64) {
        let zone = &mut self.zones[z as usize];
        let data = zone.wp - zone.start;
        if data == 0 {
            return;
        }
        self.with_data = self.with_data.saturating_sub(data);
        zone.wp = zone.start;
        *resets += 1;
    }

    fn reset_write_cnt(&mut self, frequency: f64) {
        self.write_cnt = if frequency > 0.0 {
            (1.0 / frequency).min(f64::from(u32::MAX)) as u32
        } else {
            u32::MAX
        };
    }
}

/// The table of every job file with zbd zones: files of the same name
/// share one, as in fio.
pub fn share(jobs: &mut [super::config::JobConfig]) {
    let mut seen: Vec<(std::path::PathBuf, Arc<SharedZones>)> = Vec::new();
    for job in jobs.iter_mut() {
        let Some(spec) = &mut job.zbd else { continue };
        spec.tables = job
            .paths
            .iter()
            .map(|p| match seen.iter().find(|(q, _)| q == p) {
                Some((_, t)) => Arc::clone(t),
                None => {
                    let t = Arc::new(SharedZones::default());
                    seen.push((p.clone(), Arc::clone(&t)));
                    t
                }
            })
            .collect();
    }
}

/// A setup failure: fio says some only on stderr (no error code), and
/// fails the job with an error code for others.
fn quiet(message: String) -> JobError {
    JobError {
        errno: 0,
        func: String::new(),
        message,
    }
}

/// fio's zone setup for one job, before its files are laid out: each
/// file's zones (made from the file's size now, unless a job before made
/// them), then the checks of the job's region against them. `say`
/// prints fio's lines about regions it rounds to whole zones (on stdout,
/// as fio's are).
pub fn set_up(cfg: &super::config::JobConfig, say: &mut dyn FnMut(&str)) -> Result<(), JobError> {
    let Some(spec) = &cfg.zbd else {
        return Ok(());
    };
    for (path, table) in cfg.paths.iter().zip(&spec.tables) {
        let mut guard = lock(table);
        if guard.is_none() {
            *guard = Some(make_table(cfg, spec, path)?);
        }
    }
    for ((path, table), &region) in cfg.paths.iter().zip(&spec.tables).zip(&cfg.regions) {
        let guard = lock(table);
        let Some(t) = guard.as_ref() else { continue };
        if t.zone_size != spec.zone_size {
            return Err(quiet(format!(
                "{}: zonesize {} does not match the device zone size {}.",
                path.display(),
                spec.zone_size,
                t.zone_size
            )));
        }
        let in_file = cfg.offset < t.zones[t.zone_count() as usize].start && region > 0;
        if in_file && spec.zone_skip % t.zone_size != 0 {
            return Err(quiet(format!(
                "{}: zoneskip {} is not a multiple of the device zone size {}.",
                path.display(),
                spec.zone_skip,
                t.zone_size
            )));
        }
        let mut lines = Vec::new();
        let aligned = aligned_region(cfg, t, cfg.offset, region, path, &mut lines);
        for line in &lines {
            say(line);
        }
        aligned.map_err(|()| quiet(String::new()))?;
    }
    // fio's zbd_verify_bs: a trim resets one whole zone.
    let trim_bs = &cfg.bs[Dir::Trim as usize];
    if cfg.pattern.trim {
        if trim_bs.min() != trim_bs.max() || matches!(trim_bs, BlockSizes::Split { .. }) {
            say("bsrange and bssplit are not allowed for trim with zonemode=zbd");
            return Err(quiet(String::new()));
        }
        for (path, table) in cfg.paths.iter().zip(&spec.tables) {
            let zone_size = lock(table).as_ref().map_or(0, |t| t.zone_size);
            if trim_bs.min() != zone_size {
                say(&format!(
                    "{}: trim block size {} is not the zone size {zone_size}",
                    path.display(),
                    trim_bs.min()
                ));
                return Err(quiet(String::new()));
            }
        }
    }
    for table in &spec.tables {
        let max_open = lock(table).as_ref().map_or(0, |t| t.max_open);
        if spec.max_open_zones > 0 && max_open != spec.max_open_zones {
            return Err(quiet("Different 'max_open_zones' values".to_string()));
        }
        if spec.job_max_open_zones > 0 && max_open == 0 {
            return Err(quiet(
                "'job_max_open_zones' cannot be used without a global open zones limit".to_string(),
            ));
        }
    }
    Ok(())
}

/// The size fio sees for a file when it makes its zones: its size on
/// disk (0 when missing), but for an engine that cannot tell file sizes
/// (null), the job's size shared among its files.
fn real_size(cfg: &super::config::JobConfig, path: &Path) -> u64 {
    if cfg.kind.has(crate::engine::caps::DISKLESS) {
        return cfg.size / cfg.paths.len().max(1) as u64;
    }
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// fio's init_zone_info: zones of the zone size over the whole file,
/// all empty.
fn make_table(
    cfg: &super::config::JobConfig,
    spec: &ZbdSpec,
    path: &Path,
) -> Result<ZoneTable, JobError> {
    let name = path.display();
    let size = spec.zone_size;
    if size == 0 {
        return Err(quiet(format!(
            "{name}: Specifying the zone size is mandatory for regular file/block device with --zonemode=zbd\n"
        )));
    }
    if size < 512 {
        return Err(quiet(format!(
            "{name}: zone size must be at least 512 bytes for --zonemode=zbd\n"
        )));
    }
    let capacity = match spec.zone_capacity {
        0 => size,
        c => c,
    };
    if capacity > size {
        return Err(quiet(format!(
            "{name}: job parameter zonecapacity {} is larger than zone size {size}",
            spec.zone_capacity
        )));
    }
    let file_len = real_size(cfg, path);
    if file_len < size {
        return Err(JobError {
            errno: libc::EINVAL,
            func: "zbd_create_zone_info() failed".to_string(),
            message: format!(
                "{name}: file/device size {file_len} is smaller than zone size {size}"
            ),
        });
    }
    let count = file_len.div_ceil(size);
    let mut zones: Vec<Zone> = (0..=count)
        .map(|i| Zone {
            start: i * size,
            wp: i * size,
            capacity,
            open: false,
            reset_next: false,
        })
        .collect();
    // The sentinel holds no data.
    if let Some(last) = zones.last_mut() {
        last.capacity = 0;
    }
    Ok(ZoneTable {
        zone_size: size,
        zones,
        max_open: spec.max_open_zones,
        open: vec![0; MAX_OPEN_ZONES],
        open_count: 0,
        with_data: 0,
        write_cnt: 0,
    })
}

/// fio's zbd_zone_align_file_sizes: a job that writes has its region
/// moved up to the next zone start and cut down to whole zones (saying
/// so); a region with no whole zone left fails the job (also said in
/// `lines`, where fio says it: on stdout).
fn aligned_region(
    cfg: &super::config::JobConfig,
    t: &ZoneTable,
    mut offset: u64,
    mut io_size: u64,
    path: &Path,
    lines: &mut Vec<String>,
) -> Result<(u64, u64), ()> {
    let name = path.display();
    // fio compares the whole rw value: only rw=read is left as it is.
    let read_only =
        cfg.pattern.read && !cfg.pattern.write && !cfg.pattern.trim && !cfg.pattern.random;
    let zone_size = t.zone_size;
    if offset >= t.zones[t.zone_count() as usize].start || io_size == 0 || read_only {
        return Ok((offset, io_size));
    }
    let too_small = format!("{name}: io_size must be at least one zone");
    let zone_start = |at: u64| t.zones[t.index(at) as usize].start;
    if offset != zone_start(offset) {
        let next = zone_start(offset) + zone_size;
        if next >= offset + io_size {
            lines.push(too_small);
            return Err(());
        }
        lines.push(format!("{name}: rounded up offset from {offset} to {next}"));
        io_size -= next - offset;
        offset = next;
    }
    let end = zone_start(offset + io_size);
    if offset + io_size != end {
        if end <= offset {
            lines.push(too_small);
            return Err(());
        }
        lines.push(format!(
            "{name}: rounded down io_size from {io_size} to {}",
            end - offset
        ));
        io_size = end - offset;
    }
    Ok((offset, io_size))
}

/// The job's own zone counts: the zones it holds open (fio's
/// td->num_open_zones), the resets it made, and an error that ended its
/// I/O.
#[derive(Debug, Default)]
pub struct ZbdJob {
    open: u32,
    pub resets: u64,
    pub error: Option<JobError>,
}

/// One job file's view of its zones: the region (moved to whole zones for
/// writing jobs) and the zones it spans.
pub struct ZbdFile {
    table: Arc<SharedZones>,
    /// fio's file_offset (zoneskip moves it) and io_size.
    pub offset: u64,
    pub io_size: u64,
    min_zone: u32,
    max_zone: u32,
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
    pub fn new(cfg: &super::config::JobConfig, index: usize, io_size: u64) -> Option<Self> {
        let spec = cfg.zbd.as_ref()?;
        let table = Arc::clone(spec.tables.get(index)?);
        let (offset, io_size, min_zone, max_zone) = {
            let guard = lock(&table);
            let t = guard.as_ref()?;
            let (offset, io_size) = aligned_region(
                cfg,
                t,
                cfg.offset,
                io_size,
                &cfg.paths[index],
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

    fn valid(&self, at: u64) -> bool {
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
    #[allow(clippy::too_many_arguments)]
    #[cold]
    pub fn adjust(
        &self,
        spec: &ZbdSpec,
        job: &mut ZbdJob,
        random: bool,
        dir: Dir,
        min_bs: u64,
        at: u64,
        len: u64,
    ) -> Adjusted {
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
            Dir::Write => self.write(t, spec, job, min_bs, at, len),
            _ => Adjusted::Go(at, len),
        }
    }

    fn read(
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
    fn find_zone(&self, t: &ZoneTable, random: bool, min_bytes: u64, from: u32) -> Option<u32> {
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

    fn write(
        &self,
        t: &mut ZoneTable,
        spec: &ZbdSpec,
        job: &mut ZbdJob,
        min_bs: u64,
        at: u64,
        len: u64,
    ) -> Adjusted {
        let einval = |func: &str| {
            Adjusted::Fail(JobError {
                errno: libc::EINVAL,
                func: func.to_string(),
                message: String::new(),
            })
        };
        if len > t.zone_size {
            return einval("I/O buflen exceeds zone size");
        }
        let mut zi = t.index(at);
        if !open_zone(t, spec, job, zi) {
            match self.open_another(t, spec, job, min_bs, at) {
                Some(z) => zi = z,
                None => return Adjusted::Done,
            }
        }
        if spec.reset_frequency > 0.0
            && t.with_data as f64 >= self.io_size as f64 * spec.reset_threshold
        {
            t.write_cnt = t.write_cnt.saturating_sub(1);
            if t.write_cnt == 0 {
                t.reset_write_cnt(spec.reset_frequency);
                t.zones[zi as usize].reset_next = true;
            }
        }
        let zone = t.zones[zi as usize];
        if zone.reset_next || zone.full(min_bs) {
            t.zones[zi as usize].reset_next = false;
            t.reset(zi, &mut job.resets);
            if zone.capacity < min_bs {
                return Adjusted::Fail(JobError {
                    errno: libc::EINVAL,
                    func: "ZCAP is less min_bs".to_string(),
                    message: format!(
                        "zone capacity {} smaller than minimum block size {min_bs}",
                        zone.capacity
                    ),
                });
            }
        }
        let zone = t.zones[zi as usize];
        let at = zone.wp;
        if !self.valid(at) {
            return einval("invalid WP value");
        }
        let fits = len.min(zone.capacity_end() - at) / min_bs * min_bs;
        let len = if fits == len {
            len
        } else if fits >= min_bs {
            fits
        } else {
            return Adjusted::Fail(JobError {
                errno: libc::EIO,
                func: "zone remainder too small".to_string(),
                message: format!(
                    "zone remainder {} smaller than min block size {min_bs}",
                    zone.capacity_end() - at
                ),
            });
        };
        Adjusted::Go(at, len)
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

    /// fio's zbd_convert_to_open_zone: an open zone (or one that can be
    /// opened) with room for `min_bs`, searched from among the open zones
    /// or, without limits, from the zone of `at`.
    fn open_another(
        &self,
        t: &mut ZoneTable,
        spec: &ZbdSpec,
        job: &mut ZbdJob,
        min_bs: u64,
        at: u64,
    ) -> Option<u32> {
        let limited = t.max_open > 0 || spec.job_max_open_zones > 0;
        let pick = |t: &ZoneTable| -> u32 {
            ((u128::from(at - self.offset) * u128::from(t.open_count))
                / u128::from(self.io_size.max(1))) as u32
        };
        let mut zi = if limited {
            t.open[pick(t) as usize % MAX_OPEN_ZONES]
        } else {
            t.index(at)
        };
        zi = zi.clamp(self.min_zone, self.max_zone.saturating_sub(1));
        let examine = loop {
            if !limited {
                break true;
            }
            if t.open_count == 0 {
                break false;
            }
            let count = t.open_count;
            let mut tmp = pick(t);
            let mut found = None;
            for _ in 0..count {
                if tmp >= count {
                    tmp = 0;
                }
                let z = t.open[tmp as usize];
                if (self.min_zone..self.max_zone).contains(&z) {
                    found = Some(tmp);
                    break;
                }
                tmp += 1;
            }
            let new = t.open[found? as usize];
            if new == zi {
                break true;
            }
            zi = new;
        };
        if examine && t.zones[zi as usize].wp + min_bs <= t.zones[zi as usize].capacity_end() {
            return Some(zi);
        }
        // Two rounds: fio tries again once after waiting for I/O in
        // flight, which a ferrio job has none of here.
        for _ in 0..2 {
            for _ in 0..self.io_size / t.zone_size {
                zi += 1;
                if !self.valid(t.zones[zi as usize].start) {
                    zi = self.min_zone;
                }
                if t.zones[zi as usize].open {
                    continue;
                }
                if open_zone(t, spec, job, zi) {
                    return Some(zi);
                }
            }
            for i in 0..t.open_count as usize {
                let z = t.open[i];
                if !(self.min_zone..self.max_zone).contains(&z) {
                    continue;
                }
                zi = z;
                let zone = &t.zones[z as usize];
                if zone.wp + min_bs <= zone.capacity_end() {
                    return Some(z);
                }
            }
        }
        None
    }
}

/// fio's zbd_open_zone: whether zone `z` may take writes, opening it if
/// the limits allow.
fn open_zone(t: &mut ZoneTable, spec: &ZbdSpec, job: &mut ZbdJob, z: u32) -> bool {
    if t.max_open == 0 {
        return true;
    }
    let zone = &t.zones[z as usize];
    if zone.open {
        return zone.wp < zone.capacity_end();
    }
    if spec.job_max_open_zones > 0 && job.open >= spec.job_max_open_zones {
        return false;
    }
    if t.open_count >= t.max_open {
        return false;
    }
    t.open[t.open_count as usize] = z;
    t.open_count += 1;
    job.open += 1;
    t.zones[z as usize].open = true;
    true
}

/// A table's lock; a job that panicked holding it left the zones as they
/// were, which the others may go on with.
fn lock(table: &SharedZones) -> MutexGuard<'_, Option<ZoneTable>> {
    table.0.lock().unwrap_or_else(|e| e.into_inner())
}
