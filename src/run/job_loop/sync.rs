//! Periodic syncs: when one is due, and how it is counted.

#[allow(unused_imports)]
use super::*;

/// Accounts a periodic sync that an engine completed from its queue (in
/// the statistics only after `epoch`); on an error, fails the job as fio
/// does and returns false.
pub(super) fn sync_done(
    result: &mut JobResult,
    slot: &mut Slot,
    kind: SyncKind,
    r: i64,
    at: Nanos,
    epoch: Nanos,
) -> bool {
    let submitted = slot.submitted.take().unwrap_or(at);
    if r < 0 {
        let code = (-r) as i32;
        let text = std::io::Error::from_raw_os_error(code);
        result.fail(code, kind.call(), format!("fio: sync failed: {text}"));
        return false;
    }
    if at >= epoch {
        count_sync(result, kind, at.saturating_sub(submitted));
    }
    true
}

/// Accounts one periodic sync that took `took` nanoseconds: every kind is
/// timed, but only fsyncs count as syncs; fio counts its fdatasync and
/// sync_file_range calls one slot past its fsync count, where the short
/// read and short write counts lie.
pub(super) fn count_sync(result: &mut JobResult, kind: SyncKind, took: Nanos) {
    result.sync_lat.add(took);
    result.sync_hist.add(took);
    result.syncs += u64::from(kind == SyncKind::Full);
    match kind {
        SyncKind::Data => result.dir_mut(Dir::Read).short += 1,
        SyncKind::Range => result.dir_mut(Dir::Write).short += 1,
        SyncKind::Full => {}
    }
}

pub(super) fn sync_due(cfg: &JobConfig, writes: u64, last_was_sync: bool) -> Option<SyncKind> {
    if writes == 0 || last_was_sync {
        return None;
    }
    if cfg.fsync_blocks > 0 && writes.is_multiple_of(cfg.fsync_blocks) {
        return Some(SyncKind::Full);
    }
    if cfg.fdatasync_blocks > 0 && writes.is_multiple_of(cfg.fdatasync_blocks) {
        return Some(SyncKind::Data);
    }
    if let Some(range) = cfg.sync_range
        && range.every > 0
        && writes.is_multiple_of(range.every)
    {
        return Some(SyncKind::Range);
    }
    None
}

/// The periodic syncs, in the order fio checks which is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SyncKind {
    /// fsync
    Full,
    /// fdatasync
    Data,
    /// sync_file_range
    Range,
}

impl SyncKind {
    pub(super) fn of(data_only: bool) -> SyncKind {
        if data_only {
            SyncKind::Data
        } else {
            SyncKind::Full
        }
    }

    /// The call's name, for its failure.
    pub(super) fn call(self) -> &'static str {
        match self {
            SyncKind::Full | SyncKind::Data => "fsync",
            SyncKind::Range => "sync_file_range",
        }
    }
}
