//! Finishing one I/O: its accounting, latency limits and verify check.

use super::slots::Slot;
use super::{Quiesce, Records};
use crate::engine::Dir;
use crate::result::{JobResult, strerror};
use crate::run::config::JobConfig;
use crate::run::errors::{self, Verdict};
use crate::run::pacing::clock::{Nanos, ms_between};
use crate::run::pacing::latency_target::{self, LatencyTarget};
use crate::run::records::logs::Completed;
use crate::run::status::live::Measured;
use crate::run::verification::verifying::Verifying;

/// What finishing an I/O updates, from the job loop's state: the same
/// steps whether a synchronous engine returned the I/O or an asynchronous
/// one reaped it.
pub(super) struct Finishing<'a, 'v> {
    pub(super) result: &'a mut JobResult,
    pub(super) records: &'a mut Records,
    pub(super) lat_target: &'a mut Option<LatencyTarget>,
    pub(super) quiesce: &'a mut Option<Quiesce>,
    pub(super) verifying: &'a mut Option<Verifying<'v>>,
}

/// A [`Finishing`] of the job loop `$job`'s fields, borrowed apart from
/// its slots so that a slot can be finished in place.
macro_rules! finishing {
    ($job:expr) => {
        Finishing {
            result: &mut $job.result,
            records: &mut $job.records,
            lat_target: &mut $job.lat_target,
            quiesce: &mut $job.quiesce,
            verifying: &mut $job.verifying,
        }
    };
}
pub(super) use finishing;

impl Finishing<'_, '_> {
    /// Accounts the I/O, then lets the latency limits and verify judge
    /// it; false when the job ends. The judges that a job does not use
    /// are skipped here, so that the common job pays no call for them.
    #[inline(always)]
    pub(super) fn finish(
        &mut self,
        cfg: &JobConfig,
        slot: &mut Slot,
        r: i64,
        at: Nanos,
        epoch: Nanos,
        func: &str,
    ) -> bool {
        if !complete(cfg, self.result, self.records, slot, r, at, epoch) {
            return false;
        }
        let judges_latency = self.lat_target.is_some() || cfg.pacing.max_latency_ns != [0; 3];
        if judges_latency
            && !judge_latency(cfg, self.result, self.lat_target, self.quiesce, slot, r, at)
        {
            return false;
        }
        self.verifying.is_none() || after_io(cfg, self.result, self.verifying, slot, r, func)
    }
}

/// max_latency's and latency_target's look at a completed I/O's total
/// latency; false when it ends the job (ETIMEDOUT, as in fio).
fn judge_latency(
    cfg: &JobConfig,
    result: &mut JobResult,
    lat_target: &mut Option<LatencyTarget>,
    quiesce: &mut Option<Quiesce>,
    slot: &Slot,
    r: i64,
    now: Nanos,
) -> bool {
    if r < 0 || !cfg.reporting.measure.lat || slot.dir == Dir::Trim {
        return true;
    }
    let lat = now.saturating_sub(slot.prepared);
    let max = cfg.pacing.max_latency_ns[slot.dir as usize];
    let mut over = (max > 0 && lat > max).then_some(max);
    if let Some(lt) = lat_target {
        let ios = result.dirs.iter().map(|d| d.ios).sum();
        match lt.completed(lat, now, ios) {
            latency_target::Step::Drain => *quiesce = Some(Quiesce::Depth),
            latency_target::Step::Fatal => {
                over = over.or(cfg.pacing.latency_target.map(|g| g.target_ns))
            }
            _ => {}
        }
    }
    let Some(max) = over else {
        return true;
    };
    let text = format!(
        "fio: latency of {lat} nsec exceeds specified max ({max} nsec): {} {} {} {}",
        cfg.files.paths[slot.file].display(),
        if slot.dir == Dir::Read {
            "read"
        } else {
            "write"
        },
        slot.offset,
        slot.len
    );
    result.fail(libc::ETIMEDOUT, "max latency exceeded", text);
    false
}

/// A verifying job's part in finishing an I/O: a written block may now be
/// read back, and a block read back is checked. False when a verify
/// failure ends the job.
fn after_io(
    cfg: &JobConfig,
    result: &mut JobResult,
    verifying: &mut Option<Verifying<'_>>,
    slot: &mut Slot,
    r: i64,
    func: &str,
) -> bool {
    let Some(v) = verifying.as_mut() else {
        return true;
    };
    let block = match (slot.piece, slot.dir) {
        (Some(piece), Dir::Write) => {
            v.write_done(piece);
            return true;
        }
        // verify_only: fio's dry run reads nothing, and checks nothing,
        // before its pass (a verify_backlog read only leaves the log).
        (Some(_), _) if v.spec.only && cfg.workload.pattern.write => return true,
        (Some(piece), _) => v.piece(piece),
        // A job that only reads checks every block it reads.
        (None, Dir::Read) if !cfg.workload.pattern.write => crate::verify::Written {
            file: slot.file as u32,
            offset: slot.offset,
            len: slot.len as u32,
            numberio: 0,
        },
        (None, _) => return true,
    };
    let logged = slot.piece.is_some();
    let func = if v.offloaded() { "async_verify" } else { func };
    match v.check(slot.buf(), &block, logged, None) {
        Ok(()) => true,
        Err(text) => verify_failed(cfg, result, text, func, r),
    }
}

/// verify_async: waits for the helpers to finish what they were handed,
/// and treats each failure they found as the job's; false when one ends
/// the job.
pub(super) fn settle(cfg: &JobConfig, result: &mut JobResult, v: &mut Verifying<'_>) -> bool {
    while let Some(text) = v.settle() {
        if !verify_failed(cfg, result, text, "async_verify", 0) {
            return false;
        }
    }
    true
}

/// Records a failed check: fio's EILSEQ, which ends the job unless
/// continue_on_error covers verify errors.
pub(super) fn verify_failed(
    cfg: &JobConfig,
    result: &mut JobResult,
    text: String,
    func: &str,
    r: i64,
) -> bool {
    if r < 0 {
        return true;
    }
    if cfg.errors.continue_on_error & 4 != 0 {
        eprintln!("{text}");
        result.total_err += 1;
        if result.first_error == 0 {
            result.first_error = libc::EILSEQ;
        }
        return true;
    }
    result.fail(libc::EILSEQ, func, text);
    false
}

/// fio's line about a failed I/O.
fn io_error_text(cfg: &JobConfig, slot: &Slot, code: i32) -> String {
    let what = match slot.dir {
        Dir::Read => "read",
        Dir::Write => "write",
        Dir::Trim => "trim",
    };
    format!(
        "fio: io_u error on file {}: {}: {what} offset={}, buflen={}",
        cfg.files.paths[slot.file].display(),
        strerror(code),
        slot.offset,
        slot.len
    )
}

/// Keeps the error line of an I/O that failed after the job had ended
/// (or was ending) on an error: fio logs every failed completion, as
/// long as its error is one that ends a job and the engine reports I/O
/// errors itself.
pub(super) fn note_later_error(cfg: &JobConfig, result: &mut JobResult, slot: &Slot, r: i64) {
    if r >= 0 || cfg.kind.unlogged_error_func(slot.dir).is_some() {
        return;
    }
    let code = (-r) as i32;
    if cfg.errors.error_dump || errors::verdict(&cfg.errors, slot.dir, code) != Verdict::CarriesOn {
        let text = match cfg.kind.own_error_report(slot.dir) {
            Some((_, text)) => text.to_string(),
            None => io_error_text(cfg, slot, code),
        };
        result.later_errors.push(text);
    }
}

/// Accounts one finished I/O (in the statistics and logs only after
/// `epoch`, the end of ramp_time); on an error, marks the job failed as
/// fio does and returns false.
pub(super) fn complete(
    cfg: &JobConfig,
    result: &mut JobResult,
    records: &mut Records,
    slot: &mut Slot,
    r: i64,
    at: Nanos,
    epoch: Nanos,
) -> bool {
    let submitted = match slot.ended(r, at) {
        Ok(submitted) => submitted,
        Err(code) => return failed_io(cfg, result, slot, code),
    };
    let queued = std::mem::take(&mut slot.queued);
    // fio notes what was written for sync_file_range even while ramping.
    if let (Some(w), Dir::Write) = (&mut records.written, slot.dir) {
        w.note(slot.file, slot.offset, r as u64);
    }
    if at < epoch {
        return true;
    }
    if !cfg.reporting.io_stats {
        // Counted, but no latency sample (fio's FIO_NOSTATS engines).
        let stats = result.dir_mut(slot.dir);
        stats.bytes += r as u64;
        stats.ios += 1;
        return true;
    }
    let ns = |from: Nanos, to: Nanos| to.saturating_sub(from);
    let m = cfg.reporting.measure;
    let clat = ns(submitted, at);
    if m.clat {
        result.latency.add(clat);
    }
    let stats = result.dir_mut(slot.dir);
    let bytes = r as u64;
    stats.bytes += bytes;
    stats.ios += 1;
    let slat = (queued && m.slat).then(|| ns(slot.prepared, submitted));
    if let Some(slat) = slat {
        stats.slat.add(slat);
        if m.slat_hist {
            stats.slat_hist.add(slat);
        }
    }
    if m.clat {
        stats.clat.add(clat);
        stats.clat_fine.add(clat);
        if m.clat_hist {
            stats.clat_hist.add(clat);
        }
        if !m.lat_hist {
            stats.add_prio_sample(slot.prio_index, clat, m.clat_hist);
        }
    }
    let lat = m.lat.then(|| ns(slot.prepared, at));
    if let Some(lat) = lat {
        stats.lat.add(lat);
        if m.lat_hist {
            stats.lat_hist.add(lat);
            stats.lat_fine.add(lat);
            stats.add_prio_sample(slot.prio_index, lat, true);
        }
    }
    let intended = slot.intended.map(|t| ns(t, at));
    if let Some(late) = intended {
        stats.intended.add(late);
        stats.intended_fine.add(late);
    }
    if let Some(tally) = &mut records.live {
        let clat = m.clat.then_some(clat);
        tally.record(
            slot.dir as usize,
            bytes,
            Measured {
                clat,
                lat,
                intended,
            },
        );
    }
    if let Some(logs) = &mut records.logs {
        // fio samples bw and IOPS per I/O when their logs are not
        // averaged.
        if logs.bw_per_io() && m.bw {
            stats
                .bw
                .add((bytes * 1_000_000).checked_div(clat).unwrap_or(0));
        }
        if logs.iops_per_io() {
            stats.iops.add(1);
        }
        let io = Completed {
            time_ms: ms_between(epoch, at),
            dir: slot.dir as usize,
            bytes,
            offset: slot.offset,
            slat_ns: slat,
            clat_ns: m.clat.then_some(clat),
            lat_ns: lat,
            ioprio: slot.ioprio,
        };
        logs.completed(&io, &stats.clat_hist);
    }
    if let Some(slow) = lat.or(m.clat.then_some(clat)) {
        let d = slot.dir as usize;
        result.slowest.offer(slow, d, slot.file, slot.offset, bytes);
    }
    true
}

/// An I/O that failed with `code`: whether the job carries on (as
/// continue_on_error allows), else the job's failure, as fio reports it.
#[cold]
fn failed_io(cfg: &JobConfig, result: &mut JobResult, slot: &mut Slot, code: i32) -> bool {
    // fill_device: a full device is the expected end. fio reports the
    // I/O's error, then ends the job without failing it.
    if cfg.files.fill_device && matches!(code, libc::ENOSPC | libc::EDQUOT) {
        eprintln!("{}", io_error_text(cfg, slot, code));
        return false;
    }
    let verdict = errors::verdict(&cfg.errors, slot.dir, code);
    if verdict == Verdict::CarriesOn {
        if cfg.errors.error_dump {
            eprintln!("{}", io_error_text(cfg, slot, code));
        }
        let first = result.total_err == 0 && result.issued() == 1;
        result.warn_direct |=
            first && errors::warns_of_direct_io(&cfg.errors, cfg.files.direct, code);
        result.carry_on(code, errors::carried_on_context(&cfg.errors));
        slot.queued = false;
        return true;
    }
    if verdict == Verdict::EndsCounted {
        result.count_error(code);
    }
    if let Some((func, text)) = cfg.kind.own_error_report(slot.dir) {
        result.fail(code, func, text.to_string());
        return false;
    }
    // Engines that only flag the I/O's error leave fio to report it
    // where it queued the I/O, with no line of its own.
    if let Some(func) = cfg.kind.unlogged_error_func(slot.dir) {
        result.fail(code, func, String::new());
        return false;
    }
    result.fail(code, "io_u error", io_error_text(cfg, slot, code));
    false
}
