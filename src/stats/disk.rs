//! Disk utilisation as fio reports it under `Disk stats`: the whole-disk
//! counters of `/sys/block/<disk>/stat` for every disk the jobs' files
//! live on, as the difference between the first and the last reading;
//! and, for ferrio's charts, how busy each disk was every half second.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The counters of one `/sys/block/<disk>/stat` reading that fio reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counters {
    ios: [u64; 2],
    merges: [u64; 2],
    ticks: [u64; 2],
    io_ticks: u64,
    time_in_queue: u64,
}

/// One disk's use over the run.
#[derive(Debug, Clone, PartialEq)]
pub struct DiskUsage {
    pub name: String,
    /// Completed reads and writes, merged ones, and their ticks (ms).
    pub ios: [u64; 2],
    pub merges: [u64; 2],
    pub ticks: [u64; 2],
    pub in_queue: u64,
    /// Percent of the wall time the disk was busy, at most 100.
    pub util: f64,
    /// (milliseconds since the disk was first read, percent busy over
    /// the [`SAMPLE`] before), one every [`SAMPLE`] while jobs ran.
    pub series: Vec<(u64, f64)>,
}

/// How often a watched disk's busy share is sampled for its series.
pub const SAMPLE: std::time::Duration = std::time::Duration::from_millis(500);

impl DiskUsage {
    /// The counters in fio's order: reads and writes completed, merged,
    /// their ticks, then the time in queue.
    pub fn counters(&self) -> [u64; 7] {
        [
            self.ios[0],
            self.ios[1],
            self.merges[0],
            self.merges[1],
            self.ticks[0],
            self.ticks[1],
            self.in_queue,
        ]
    }
}

/// Disks being watched, by name.
#[derive(Debug, Default)]
pub struct DiskWatch {
    disks: BTreeMap<String, Watched>,
}

/// A watched disk: its first reading, and its busy share over time.
#[derive(Debug)]
struct Watched {
    since: Instant,
    first: Counters,
    /// When the last sample was taken, with the disk's busy time then.
    last: (Instant, u64),
    series: Vec<(u64, f64)>,
}

/// Percent of `ms` milliseconds that `busy_ms` of them were, at most 100.
fn percent_busy(busy_ms: u64, ms: f64) -> f64 {
    if ms > 0.0 {
        (100.0 * busy_ms as f64 / ms).min(100.0)
    } else {
        0.0
    }
}

impl DiskWatch {
    /// Starts watching the disk that holds `path` (a file, or a block
    /// device node), unless it is watched already or is no disk.
    pub fn watch(&mut self, path: &Path) {
        let Some(name) = disk_of(path) else { return };
        if self.disks.contains_key(&name) {
            return;
        }
        if let Some(first) = read(&name) {
            let now = Instant::now();
            self.disks.insert(
                name,
                Watched {
                    since: now,
                    first,
                    last: (now, first.io_ticks),
                    series: Vec::new(),
                },
            );
        }
    }

    /// Adds a point to the series of each disk last sampled a [`SAMPLE`]
    /// or more ago (called as the run ticks).
    pub fn sample(&mut self) {
        let now = Instant::now();
        for (name, w) in &mut self.disks {
            if now.saturating_duration_since(w.last.0) < SAMPLE {
                continue;
            }
            let Some(c) = read(name) else { continue };
            let ms = now.saturating_duration_since(w.last.0).as_secs_f64() * 1000.0;
            let busy = percent_busy(c.io_ticks.saturating_sub(w.last.1), ms);
            let at = now.saturating_duration_since(w.since).as_millis() as u64;
            w.series.push((at, busy));
            w.last = (now, c.io_ticks);
        }
    }

    /// The use of every watched disk since it was first read.
    pub fn usage(&self) -> Vec<DiskUsage> {
        let now = Instant::now();
        self.disks
            .iter()
            .filter_map(|(name, w)| {
                let (first, last) = (&w.first, read(name)?);
                let ms = now.saturating_duration_since(w.since).as_millis() as f64;
                let d = |a: u64, b: u64| a.saturating_sub(b);
                let util = percent_busy(d(last.io_ticks, first.io_ticks), ms);
                Some(DiskUsage {
                    name: name.clone(),
                    ios: [d(last.ios[0], first.ios[0]), d(last.ios[1], first.ios[1])],
                    merges: [
                        d(last.merges[0], first.merges[0]),
                        d(last.merges[1], first.merges[1]),
                    ],
                    ticks: [
                        d(last.ticks[0], first.ticks[0]),
                        d(last.ticks[1], first.ticks[1]),
                    ],
                    in_queue: d(last.time_in_queue, first.time_in_queue),
                    util,
                    series: with_last_part(&w.series, w, &last, now),
                })
            })
            .collect()
    }
}

/// A disk's series with the part since its last sample added, when that
/// part is long enough (100 ms) for a share to mean something: the run's
/// end rarely falls on a sample.
fn with_last_part(
    series: &[(u64, f64)],
    w: &Watched,
    last: &Counters,
    now: Instant,
) -> Vec<(u64, f64)> {
    let mut all = series.to_vec();
    let ms = now.saturating_duration_since(w.last.0).as_secs_f64() * 1000.0;
    if ms >= 100.0 {
        let at = now.saturating_duration_since(w.since).as_millis() as u64;
        all.push((at, percent_busy(last.io_ticks.saturating_sub(w.last.1), ms)));
    }
    all
}

/// The sysfs name of the whole disk that holds `path`.
pub fn disk_of(path: &Path) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    // A path that is no file (an rbd job's "rbd") counts, as in fio, for
    // the disk of its directory.
    let meta = std::fs::metadata(path).or_else(|_| {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        std::fs::metadata(dir.unwrap_or(Path::new(".")))
    });
    let meta = meta.ok()?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let link: PathBuf = format!("/sys/dev/block/{major}:{minor}").into();
    let mut dir = std::fs::canonicalize(link).ok()?;
    // A partition's directory sits inside its disk's.
    if dir.join("partition").exists() {
        dir.pop();
    }
    let name = dir.file_name()?.to_str()?.to_string();
    Path::new("/sys/block").join(&name).exists().then_some(name)
}

fn read(disk: &str) -> Option<Counters> {
    let text = std::fs::read_to_string(format!("/sys/block/{disk}/stat")).ok()?;
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|w| w.parse().unwrap_or(0))
        .collect();
    if f.len() < 11 {
        return None;
    }
    Some(Counters {
        ios: [f[0], f[4]],
        merges: [f[1], f[5]],
        ticks: [f[3], f[7]],
        io_ticks: f[9],
        time_in_queue: f[10],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_filesystems_have_no_disk() {
        assert_eq!(disk_of(Path::new("/proc/self/status")), None);
        assert_eq!(disk_of(Path::new("/nonexistent/file")), None);
    }
}
