//! read_iolog of a blktrace binary file, as fio 3.33 replays one.
//!
//! A trace is a run of 48-byte records (in the byte order of the machine
//! that traced, which the magic number tells), each followed by
//! `pdu_len` bytes of payload that fio skips. Only the queue events
//! become I/O: reads and writes, discards (trims) and flushes (syncs),
//! each after the time since the previous queue event. Each traced
//! device becomes one of the job's files: the block device under /dev
//! with its major and minor numbers, or replay_redirect.
//!
//! The queue, merge and completion events also give the trace's deepest
//! queue, which becomes the job's iodepth unless the job sets one.

use std::path::{Path, PathBuf};

use crate::engine::Dir;
use crate::run::records::replay_log::{Action, ReplayLog, ReplayOptions, Step, gap_since};

pub const MAGIC: u32 = 0x6561_7400;
const VERSION: u32 = 0x07;
const RECORD: usize = 48;

/// Event categories (the high 16 bits of `action`).
const TC_READ: u32 = 1 << 16;
const TC_WRITE: u32 = 1 << 17;
const TC_FLUSH: u32 = 1 << 18;
const TC_NOTIFY: u32 = 1 << 26;
const TC_DISCARD: u32 = 1 << 29;
/// Event kinds (the low 16 bits).
const TA_QUEUE: u32 = 1;
const TA_BACKMERGE: u32 = 2;
const TA_FRONTMERGE: u32 = 3;
const TA_COMPLETE: u32 = 8;

/// fio's cap on a probed depth (stacked devices may never complete).
const MAX_DEPTH: usize = 1024;

/// The fields of one record fio uses.
struct Record {
    magic: u32,
    time: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    device: u32,
    pdu_len: u16,
}

/// Whether `data` starts with a blktrace magic number, and if so whether
/// its records are in the other byte order.
pub fn byte_order(data: &[u8]) -> Option<bool> {
    let word: [u8; 4] = data.get(..4)?.try_into().ok()?;
    if u32::from_ne_bytes(word) & 0xffff_ff00 == MAGIC {
        Some(false)
    } else if u32::from_ne_bytes(word).swap_bytes() & 0xffff_ff00 == MAGIC {
        Some(true)
    } else {
        None
    }
}

fn record(raw: &[u8], swap: bool) -> Record {
    let u32_at = |i: usize| {
        let v = u32::from_ne_bytes(raw[i..i + 4].try_into().unwrap_or_default());
        if swap { v.swap_bytes() } else { v }
    };
    let u64_at = |i: usize| {
        let v = u64::from_ne_bytes(raw[i..i + 8].try_into().unwrap_or_default());
        if swap { v.swap_bytes() } else { v }
    };
    let pdu = u16::from_ne_bytes([raw[46], raw[47]]);
    Record {
        magic: u32_at(0),
        time: u64_at(8),
        sector: u64_at(16),
        bytes: u32_at(24),
        action: u32_at(28),
        device: u32_at(36),
        pdu_len: if swap { pdu.swap_bytes() } else { pdu },
    }
}

/// The direction a record's category names, for the depth probe.
fn depth_dir(action: u32) -> Option<usize> {
    if action & TC_READ != 0 {
        Some(Dir::Read as usize)
    } else if action & TC_WRITE != 0 {
        Some(Dir::Write as usize)
    } else if action & TC_DISCARD != 0 {
        Some(Dir::Trim as usize)
    } else {
        None
    }
}

/// Parses a whole trace; `data` starts with a record whose magic
/// [`byte_order`] recognised.
pub fn parse(data: &[u8], job: &str, opts: &ReplayOptions) -> Result<ReplayLog, String> {
    let swap = byte_order(data).unwrap_or(false);
    let mut log = ReplayLog::default();
    // (device, file) of the traced devices met so far.
    let mut devices: Vec<(u32, usize)> = Vec::new();
    let mut this_depth = [0i64; 3];
    let mut depth = [0i64; 3];
    let mut ios = [0u64; 4];
    let mut skipped_writes = 0u64;
    let mut warned_zero = false;
    let mut last_time = 0u64;
    let mut at = 0;
    while at < data.len() {
        let Some(raw) = data.get(at..at + RECORD) else {
            log.warnings.push("fio: iolog short read".to_string());
            break;
        };
        let t = record(raw, swap);
        if t.magic & 0xffff_ff00 != MAGIC {
            return Err(format!("fio: bad magic in blktrace data: {:x}", t.magic));
        }
        if t.magic & 0xff != VERSION {
            return Err(format!("fio: bad blktrace version {}", t.magic & 0xff));
        }
        at += RECORD + usize::from(t.pdu_len);
        let kind = t.action & 0xffff;
        if t.action & TC_NOTIFY == 0 {
            if let Some(d) = depth_dir(t.action) {
                match kind {
                    TA_QUEUE => this_depth[d] += 1,
                    TA_BACKMERGE | TA_FRONTMERGE => this_depth[d] -= 1,
                    TA_COMPLETE => {
                        depth[d] = depth[d].max(this_depth[d]);
                        this_depth[d] = 0;
                    }
                    _ => {}
                }
            }
            if opts.readonly && t.action & (TC_WRITE | TC_DISCARD) != 0 {
                skipped_writes += 1;
                continue;
            }
        }
        if kind != TA_QUEUE || t.action & TC_NOTIFY != 0 {
            continue;
        }
        let delay_ns = gap_since(last_time, t.time, opts);
        last_time = t.time;
        let bytes = if opts.align > 0 {
            (u64::from(t.bytes) + opts.align - 1) & !(opts.align - 1)
        } else {
            u64::from(t.bytes)
        };
        let dir = if t.action & TC_DISCARD != 0 {
            if opts.skip[Dir::Trim as usize] {
                continue;
            }
            Some(Dir::Trim)
        } else if t.action & TC_FLUSH != 0 {
            if opts.skip_sync {
                continue;
            }
            None
        } else {
            let dir = if t.action & TC_WRITE != 0 {
                Dir::Write
            } else {
                Dir::Read
            };
            // fio names the device before it skips the record.
            device_file(&mut log, &mut devices, t.device, opts)?;
            if opts.skip[dir as usize] {
                continue;
            }
            if bytes == 0 {
                if !warned_zero {
                    warned_zero = true;
                    log.warnings.push(format!(
                        "blktrace: ignoring zero byte trace: action={:x}",
                        t.action
                    ));
                }
                continue;
            }
            Some(dir)
        };
        let file = device_file(&mut log, &mut devices, t.device, opts)?;
        let delay_us = delay_ns / 1000;
        let action = match dir {
            Some(dir) => {
                let offset =
                    crate::run::records::replay_log::scaled(t.sector.wrapping_mul(512), opts);
                log.max_len = log.max_len.max(bytes);
                log.bytes += bytes;
                ios[dir as usize] += 1;
                Action::Io {
                    dir,
                    offset,
                    len: bytes,
                }
            }
            None => {
                ios[3] += 1;
                Action::Sync { data_only: false }
            }
        };
        log.steps.push(Step {
            file,
            delay_us,
            action,
        });
    }
    if skipped_writes > 0 {
        log.warnings.push(format!(
            "fio: {job} skips replay of {skipped_writes} writes due to read-only"
        ));
    }
    for file in 0..log.files.len() {
        log.steps.push(Step {
            file,
            delay_us: 0,
            action: Action::File,
        });
    }
    if ios.iter().all(|&n| n == 0) {
        return Err("fio: found no ios in blktrace data".to_string());
    }
    if log.files.is_empty() {
        return Err("fio: did not find replay device(s)".to_string());
    }
    let probed = (0..3)
        .map(|d| match depth[d] {
            n if n > MAX_DEPTH as i64 => MAX_DEPTH,
            n if n <= 0 && ios[d] > 0 => 1,
            n => n.max(0) as usize,
        })
        .max()
        .unwrap_or(1);
    log.depth = Some(probed.max(1));
    log.reads = ios[0] > 0;
    log.writes = ios[1] > 0;
    log.trims = ios[2] > 0;
    Ok(log)
}

/// The job's file for a traced device, added (with an open step) the
/// first time the device appears.
fn device_file(
    log: &mut ReplayLog,
    devices: &mut Vec<(u32, usize)>,
    device: u32,
    opts: &ReplayOptions,
) -> Result<usize, String> {
    if let Some(&(_, file)) = devices.iter().find(|(d, _)| *d == device) {
        return Ok(file);
    }
    let (major, minor) = (device >> 20, device & ((1 << 20) - 1));
    let path = match &opts.redirect {
        Some(p) => p.clone(),
        None => find_device(Path::new("/dev"), major, minor).ok_or_else(|| {
            format!("fio: no block device {major}:{minor} under /dev for the blktrace (set replay_redirect)")
        })?,
    };
    // fio adds a device's file only once (a redirect names one file).
    let file = match log.files.iter().position(|f| *f == path) {
        Some(i) => i,
        None => {
            log.files.push(path);
            log.files.len() - 1
        }
    };
    devices.push((device, file));
    log.steps.push(Step {
        file,
        delay_us: 0,
        action: Action::Open,
    });
    Ok(file)
}

/// The block device node under `dir` (searched depth first, symlinks
/// not followed) with these numbers.
fn find_device(dir: &Path, major: u32, minor: u32) -> Option<PathBuf> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Some(found) = find_device(&path, major, minor) {
                return Some(found);
            }
        } else if meta.file_type().is_block_device() {
            let rdev = meta.rdev();
            if libc::major(rdev) == major && libc::minor(rdev) == minor {
                return Some(path);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(time: u64, sector: u64, bytes: u32, action: u32) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend((MAGIC | VERSION).to_ne_bytes());
        r.extend(0u32.to_ne_bytes());
        r.extend(time.to_ne_bytes());
        r.extend(sector.to_ne_bytes());
        r.extend(bytes.to_ne_bytes());
        r.extend(action.to_ne_bytes());
        r.extend(0u32.to_ne_bytes());
        r.extend((8u32 << 20).to_ne_bytes());
        r.extend(0u32.to_ne_bytes());
        r.extend(0u16.to_ne_bytes());
        r.extend(0u16.to_ne_bytes());
        r
    }

    #[test]
    fn queue_events_become_ios_and_depth_is_probed() {
        let q = 1 << 20; // BLK_TC_QUEUE
        let mut data = rec(1000, 8, 4096, TA_QUEUE | q | TC_READ);
        data.extend(rec(3000, 16, 8192, TA_QUEUE | q | TC_WRITE));
        data.extend(rec(4000, 8, 4096, TA_COMPLETE | (1 << 23) | TC_READ));
        let opts = ReplayOptions {
            redirect: Some(PathBuf::from("x")),
            time_scale: 100,
            ..ReplayOptions::default()
        };
        let log = parse(&data, "j", &opts).unwrap();
        assert_eq!(log.files, vec![PathBuf::from("x")]);
        assert_eq!(log.steps.len(), 4);
        assert_eq!(
            log.steps[2],
            Step {
                file: 0,
                delay_us: 2,
                action: Action::Io {
                    dir: Dir::Write,
                    offset: 8192,
                    len: 8192
                }
            }
        );
        assert_eq!(log.depth, Some(1));
    }
}
