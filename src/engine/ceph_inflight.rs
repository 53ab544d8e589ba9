//! What the rbd and rados engines share about their I/O in flight:
//! librbd's and librados' completions reaped into the runner's, the
//! length each slot reports on success, and giving up on I/O that is
//! still out when the grace period ends. Each engine adds only what
//! differs: how it submits, what it releases when a slot completes, and
//! how it names the objects of stalled I/Os.

use std::io;
use std::time::Duration;

use super::api::Completion;
use crate::ceph::grace::Grace;
use crate::ceph::{CallbackQueue, Finished};

pub struct InFlight {
    queue: CallbackQueue,
    /// The length of the I/O each slot has in flight: what a successful
    /// completion reports (librbd returns 0 for writes, librados a short
    /// count past an object's end).
    lens: Vec<i64>,
    /// Reaped completions, reused so that reaping allocates nothing.
    finished: Vec<Finished>,
    grace: Grace,
    /// Spin for completions instead of sleeping (fio's busy_poll).
    busy_poll: bool,
}

impl InFlight {
    /// Room for `depth` I/Os; fails (saying what to install) when the
    /// Ceph libraries are missing.
    pub fn new(depth: usize, busy_poll: bool, wait_limit: Option<Duration>) -> io::Result<Self> {
        let depth = depth.max(1);
        crate::ceph::load()?;
        Ok(InFlight {
            queue: CallbackQueue::new(depth),
            lens: vec![0; depth],
            finished: Vec::with_capacity(depth),
            grace: Grace::new(depth, wait_limit),
            busy_poll,
        })
    }

    /// How many I/Os may be in flight at once.
    pub fn depth(&self) -> usize {
        self.lens.len()
    }

    /// Where the engine submits its operations.
    pub fn queue(&self) -> &CallbackQueue {
        &self.queue
    }

    /// Records what `slot` reports when its I/O succeeds; `false` for a
    /// slot past the queue's depth.
    pub fn set_len(&mut self, slot: usize, len: i64) -> bool {
        match self.lens.get_mut(slot) {
            Some(l) => {
                *l = len;
                true
            }
            None => false,
        }
    }

    /// A slot's I/O (to the engine's `file`, at `offset`) was submitted.
    #[inline]
    pub fn started(&mut self, slot: usize, file: usize, offset: u64) {
        self.grace.started(slot, file, offset);
    }

    /// Reaps between `min` and `max` completions into `done`, handing
    /// each finished slot to `release` first. `false` when the grace
    /// period ended with I/O still out: the engine then abandons it.
    pub fn reap(
        &mut self,
        min: usize,
        max: usize,
        done: &mut Vec<Completion>,
        mut release: impl FnMut(usize),
    ) -> bool {
        let deadline = self.grace.deadline();
        let reaped = self
            .queue
            .reap(min, max, self.busy_poll, deadline, &mut self.finished);
        for f in self.finished.drain(..) {
            release(f.token);
            self.grace.finished(f.token);
            done.push(Completion {
                slot: f.token,
                result: f.transferred(&self.lens),
            });
        }
        reaped.is_ok()
    }

    /// Gives up on the I/O in flight: the queue stays allocated for the
    /// rest of the process (the libraries still call back into it). The
    /// engine must leak whatever that I/O still uses. The error names
    /// `what` the I/O went to and its objects, each named by `object`
    /// from the engine's file and the offset.
    pub fn abandon(&mut self, what: &str, object: impl Fn(usize, u64) -> String) -> io::Error {
        self.queue.abandon();
        self.grace.stalled(what, object)
    }

    /// Whether [`abandon`](Self::abandon) was called.
    pub fn abandoned(&self) -> bool {
        self.queue.abandoned()
    }
}
