//! io_submit_mode=offload, as far as fio 3.33 gives it a result to match.
//!
//! fio hands each I/O to a pool of `iodepth` helper threads, each with its
//! own copy of the job at iodepth=1 and its own engine instance: a helper
//! queues its one I/O and waits for it before taking the next. The helpers'
//! statistics are summed into the job's, so the report shows every I/O at
//! depth 1 (`IO depths: 1=100%`) and the submit and complete counts of the
//! engine run at depth 1, while the job header and the `latency` line keep
//! the configured iodepth; total_ios are those of an inline run.
//!
//! Measured on this machine: with iodepth=1 fio completes every time, on
//! the sync engines, null, libaio and mmap. With iodepth above 1 its
//! helpers race and the run hangs about one time in three, whatever the
//! engine; posixaio hangs even at iodepth=1; io_uring refuses offload when
//! the job is read (a plan error here too). ferrio does not hang: it runs
//! the I/O on the job thread one at a time, which yields the depth, submit
//! and complete figures fio reports when it does finish. What differs is
//! that fio's helpers may keep up to iodepth such I/Os going at once
//! (ferrio keeps one), and fio's total latency also holds the hand-over to
//! a helper.

use crate::run::config::JobConfig;
use crate::run::job_loop::depth::DepthConfig;

/// The job as the I/O loop runs it under offload: one I/O at a time.
pub fn one_at_a_time(cfg: &JobConfig) -> JobConfig {
    JobConfig {
        depth: DepthConfig {
            iodepth: 1,
            iodepth_low: 1,
            batch_submit: 1,
            batch_complete_min: 1,
            batch_complete_max: 1,
            reap_after_each_io: false,
            ..cfg.depth
        },
        ..cfg.clone()
    }
}
