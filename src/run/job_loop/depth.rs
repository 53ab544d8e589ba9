//! The depth part of a job's config: how many I/Os are in flight, and
//! how they are batched on their way in and out.

use crate::options::Value;
use crate::plan::JobSpec;
use crate::run::workload::WorkloadConfig;

/// How deep the job's queue is and how it is filled and reaped.
#[derive(Debug, Clone, Copy)]
pub struct DepthConfig {
    pub iodepth: usize,
    /// Queue this many I/Os before submitting them (fio's iodepth_batch).
    pub batch_submit: usize,
    /// Reap at least / at most this many completions at a time.
    pub batch_complete_min: usize,
    pub batch_complete_max: usize,
    /// Neither batch_complete bound set above 0: fio polls, reaping after
    /// every I/O it queues.
    pub reap_after_each_io: bool,
    /// When the queue is full, let it drain to this depth before refilling.
    pub iodepth_low: usize,
    /// serialize_overlap: an I/O waits while it overlaps one in flight.
    /// fio drops it for jobs that change no data or run at depth 1.
    pub serialize_overlap: bool,
    /// io_submit_mode=offload: the I/O runs one at a time (see
    /// `run::offload`).
    pub offload: bool,
}

impl DepthConfig {
    /// Reads iodepth and its batches; a blktrace's probed depth stands in
    /// for an iodepth left unset.
    pub fn from_spec(job: &JobSpec, workload: &WorkloadConfig) -> Self {
        let probed = workload
            .replay
            .as_ref()
            .and_then(|log| log.depth)
            .filter(|_| job.setting("iodepth").is_none());
        let iodepth = match probed {
            Some(depth) => depth,
            None => job.num("iodepth").unwrap_or(1).max(1) as usize,
        };
        let batch_complete_min = job.num("iodepth_batch_complete_min").unwrap_or(1) as usize;
        let pattern = &workload.pattern;
        DepthConfig {
            iodepth,
            batch_submit: match job.num("iodepth_batch").unwrap_or(1) as usize {
                0 => iodepth,
                n => n.min(iodepth),
            },
            batch_complete_min,
            batch_complete_max: match job.setting("iodepth_batch_complete_max") {
                Some(_) => job.num("iodepth_batch_complete_max").unwrap_or(1) as usize,
                None => batch_complete_min,
            }
            .max(batch_complete_min)
            .max(1),
            reap_after_each_io: batch_complete_min == 0
                && job.num("iodepth_batch_complete_max").unwrap_or(0) == 0,
            iodepth_low: match job.setting("iodepth_low") {
                Some(_) if probed.is_none() => {
                    (job.num("iodepth_low").unwrap_or(0) as usize).min(iodepth)
                }
                _ => iodepth,
            },
            serialize_overlap: job.flag("serialize_overlap")
                && (job.setting("read_iolog").is_some()
                    || ((pattern.write || pattern.trim) && iodepth > 1)),
            offload: offloaded(job),
        }
    }
}

/// io_submit_mode=offload.
pub fn offloaded(job: &JobSpec) -> bool {
    matches!(
        job.value("io_submit_mode"),
        Some(Value::Word {
            word: "offload",
            ..
        })
    )
}
