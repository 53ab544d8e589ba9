//! The logging part of a job's config: the per-I/O logs it writes and
//! the iolog it records.

use std::path::PathBuf;

use crate::options::Value;
use crate::plan::JobSpec;
use crate::run::records::logs::{LogPlan, log_name};
use crate::run::refusal::Refusal;
use crate::run::status::config::Measure;

/// What the job records beside its report.
#[derive(Debug, Clone)]
pub struct LoggingConfig {
    /// The log files the job writes.
    pub logs: LogPlan,
    /// write_iolog: where the job records its I/O (unset when the job
    /// replays a log, as in fio).
    pub write_iolog: Option<PathBuf>,
}

impl LoggingConfig {
    /// Reads the log options of a job that measures `measure` and, with
    /// `replays`, replays a log; refuses a histogram log fio would fill
    /// with memory addresses.
    pub fn from_spec(job: &JobSpec, measure: &Measure, replays: bool) -> Result<Self, Refusal> {
        let logs = log_plan(job, measure);
        // fio compresses a histogram log's entries as if they were plain
        // ones, whose value is then a memory address: nothing to match.
        if logs.hist.is_some() && (logs.gz_batch.is_some() || logs.gz_store) {
            return Err(Refusal(format!(
                "job '{}': write_hist_log with log_compression or log_store_compressed \
                 is not run by ferrio (fio 3.33 writes memory addresses in place of \
                 the histogram lines then)",
                job.name
            )));
        }
        let write_iolog = match job.value("write_iolog") {
            Some(Value::Text(_)) if replays => None,
            Some(Value::Text(t)) => Some(PathBuf::from(t)),
            _ => None,
        };
        Ok(LoggingConfig { logs, write_iolog })
    }
}

/// fio's note when read_iolog overrides write_iolog, said once the job
/// is known to run.
pub fn iolog_overridden(job: &JobSpec, replays: bool) -> bool {
    replays && matches!(job.value("write_iolog"), Some(Value::Text(_)))
}

/// The log files of a job, named as fio names them.
fn log_plan(job: &JobSpec, measure: &Measure) -> LogPlan {
    let per_job = job.flag("per_job_logs");
    let store = job.flag("log_store_compressed");
    let path = |option: &str, kind: &str| -> Option<PathBuf> {
        let setting = job.setting(option)?;
        let prefix = match &setting.value {
            Value::Text(t) if !t.is_empty() => t.clone(),
            Value::Word { tail: Some(t), .. } if !t.is_empty() => t.clone(),
            _ => job.name.clone(),
        };
        let name = log_name(&prefix, kind, job.number, per_job);
        // Stored compressed, fio's files end in `.log.fz`.
        Some(if store {
            let mut name = name.into_os_string();
            name.push(".fz");
            name.into()
        } else {
            name
        })
    };
    let avg = job.num("log_avg_msec").unwrap_or(0);
    // An explicit bwavgtime (iopsavgtime) caps the log's window.
    let rate_avg = |name: &str| match job.setting(name) {
        Some(s) => avg.min(s.value.number().unwrap_or(500)),
        None => avg,
    };
    LogPlan {
        lat: path("write_lat_log", "lat").filter(|_| measure.lat),
        slat: path("write_lat_log", "slat").filter(|_| measure.slat),
        clat: path("write_lat_log", "clat").filter(|_| measure.clat),
        bw: path("write_bw_log", "bw"),
        iops: path("write_iops_log", "iops"),
        hist: path("write_hist_log", "clat_hist"),
        lat_avg_ms: avg,
        bw_avg_ms: rate_avg("bwavgtime"),
        iops_avg_ms: rate_avg("iopsavgtime"),
        max_value: job.flag("log_max_value"),
        offset: job.flag("log_offset"),
        prio: job.flag("log_prio"),
        hist_ms: job.num("log_hist_msec").unwrap_or(0),
        hist_coarseness: job.num("log_hist_coarseness").unwrap_or(0).min(6) as u32,
        epoch_clock: (job.flag("log_unix_epoch") || job.flag("log_alternate_epoch"))
            .then(|| job.num("log_alternate_epoch_clock_id").unwrap_or(0) as libc::clockid_t),
        shared: !per_job,
        epoch_ms: 0,
        entries: job.num("log_entries").unwrap_or(1024),
        gz_batch: job
            .num("log_compression")
            .filter(|&n| n > 0)
            .map(|_| job.num("log_entries").unwrap_or(1024) as usize),
        gz_cpus: job
            .setting("log_compression_cpus")
            .and_then(|s| match &s.value {
                Value::CpuList(cpus) => Some(cpus.clone()),
                // A blank list, given, names no CPU.
                _ => s.text.as_ref().map(|_| Vec::new()),
            }),
        gz_store: store,
        muted: !job.flag("stats"),
    }
}
