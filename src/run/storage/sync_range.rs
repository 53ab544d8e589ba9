//! fio's `sync_file_range=flags[:N]`: after every N writes, fio calls
//! sync_file_range(2) on the file the next I/O would go to, over the span
//! of that file written since its last sync (from the lowest offset
//! written to the end of the highest write). The span starts out as
//! fio's zeroed file state, 0 to 0, so the first call reaches back to
//! offset 0; an empty span makes no call, yet still counts as a sync.

use crate::options::Value;
use crate::plan::JobSpec;
use crate::run::refusal::Refusal;

/// When the job syncs its files.
#[derive(Debug, Clone, Copy)]
pub struct SyncConfig {
    /// Sync the file after every this many writes (0: never), with
    /// fsync or, for `fdatasync`, fdatasync.
    pub fsync_blocks: u64,
    pub fdatasync_blocks: u64,
    /// sync_file_range: its flags, and every how many writes.
    pub sync_range: Option<SyncRange>,
    /// Sync once more when all I/O is done, or when closing the file.
    pub end_fsync: bool,
    pub fsync_on_close: bool,
}

impl SyncConfig {
    /// Reads fsync, fdatasync, sync_file_range, end_fsync and
    /// fsync_on_close, refusing sync_file_range where ferrio does not
    /// make the call.
    pub fn from_spec(job: &JobSpec, kind: &crate::engine::Kind) -> Result<Self, Refusal> {
        Ok(SyncConfig {
            fsync_blocks: job.num("fsync").unwrap_or(0),
            fdatasync_blocks: job.num("fdatasync").unwrap_or(0),
            sync_range: sync_range(job, kind)?,
            end_fsync: job.flag("end_fsync"),
            fsync_on_close: job.flag("fsync_on_close"),
        })
    }
}

/// sync_file_range, where ferrio makes the call as fio does: from the
/// synchronous engines, splice and libaio, which call it between I/Os
/// (mmap msyncs its mapping for it, posixaio fsyncs the file). fio
/// queues it in the ring under io_uring: that stays refused, as does
/// recording it in write_iolog.
fn sync_range(job: &JobSpec, kind: &crate::engine::Kind) -> Result<Option<SyncRange>, Refusal> {
    let Some(Value::Text(text)) = job.value("sync_file_range") else {
        return Ok(None);
    };
    if !kind.has(crate::engine::caps::SYNCS_RANGES) {
        return Err(Refusal(format!(
            "job '{}': sync_file_range with ioengine={} is not run by ferrio yet \
             (it runs with the sync family, splice, libaio, posixaio and mmap)",
            job.name, job.engine
        )));
    }
    if job.setting("write_iolog").is_some() {
        return Err(Refusal(format!(
            "job '{}': sync_file_range with write_iolog is not run by ferrio yet",
            job.name
        )));
    }
    Ok(Some(SyncRange::parse(text)))
}

/// The setting: which SYNC_FILE_RANGE_* flags, and every how many writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncRange {
    pub flags: u32,
    pub every: u64,
}

impl SyncRange {
    /// Reads `wait_before,write,wait_after[:N]` as fio does: the words'
    /// flags or'ed together; N read like C's atoi (1 when absent, and 0,
    /// never, when it is no number).
    pub fn parse(text: &str) -> SyncRange {
        let (words, count) = match text.split_once(':') {
            Some((w, n)) => (w, atoi(n)),
            None => (text, 1),
        };
        let flags = words
            .split(',')
            .map(|w| match w.trim() {
                "wait_before" => libc::SYNC_FILE_RANGE_WAIT_BEFORE,
                "write" => libc::SYNC_FILE_RANGE_WRITE,
                "wait_after" => libc::SYNC_FILE_RANGE_WAIT_AFTER,
                _ => 0,
            })
            .fold(0, |a, f| a | f);
        SyncRange {
            flags,
            every: count,
        }
    }
}

/// C's atoi on a count: leading digits, else 0 (a negative count is no
/// count at all to fio's unsigned test).
fn atoi(s: &str) -> u64 {
    let digits: String = s
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap_or(0)
}

/// The span written of each of a job's files since its last sync.
#[derive(Debug, Clone)]
pub struct Written {
    /// Per file: lowest offset and end of highest write, `u64::MAX` when
    /// nothing was written since the last sync.
    spans: Vec<(u64, u64)>,
}

impl Written {
    pub fn new(files: usize) -> Written {
        Written {
            spans: vec![(0, 0); files],
        }
    }

    /// A write of `bytes` at `offset` to `file` completed.
    pub fn note(&mut self, file: usize, offset: u64, bytes: u64) {
        let Some((first, last)) = self.spans.get_mut(file) else {
            return;
        };
        if *first == u64::MAX || offset < *first {
            *first = offset;
        }
        let end = offset + bytes;
        if *last == u64::MAX || end > *last {
            *last = end;
        }
    }

    /// The span to sync for `file` (offset, length), forgotten once
    /// synced.
    pub fn take(&mut self, file: usize) -> (u64, u64) {
        let Some(span) = self.spans.get_mut(file) else {
            return (0, 0);
        };
        let (first, last) = std::mem::replace(span, (u64::MAX, u64::MAX));
        (first, last.wrapping_sub(first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_counts_read_as_fio_reads_them() {
        let all = SyncRange::parse("wait_before,write,wait_after:8");
        assert_eq!((all.flags, all.every), (7, 8));
        assert_eq!(SyncRange::parse("write"), SyncRange { flags: 2, every: 1 });
        assert_eq!(SyncRange::parse("write:x").every, 0);
    }

    #[test]
    fn spans_start_at_zero_then_cover_what_was_written() {
        let mut w = Written::new(2);
        w.note(0, 8192, 4096);
        assert_eq!(w.take(0), (0, 12288));
        assert_eq!(w.take(0), (u64::MAX, 0));
        w.note(0, 16384, 4096);
        w.note(0, 4096, 4096);
        assert_eq!(w.take(0), (4096, 16384));
        assert_eq!(w.take(1), (0, 0));
    }
}
