//! Handing queued I/Os to the engine: a batch's commit.

use std::io;

use super::slots::Slot;
use super::{JobLoop, Next, Phase, errno};
use crate::engine::Engine;
use crate::run::pacing::clock::{LoopClock, Nanos};

impl JobLoop<'_, '_> {
    /// Submit what is queued: a full batch, a full queue, the last I/Os,
    /// or the I/Os a periodic sync has to wait for. With `keep_filling`
    /// the queue has room for more, which the next turn fills.
    #[inline]
    pub(super) fn submit_queued(&mut self, keep_filling: bool) -> Phase {
        if self.unsubmitted.is_empty() {
            return Ok(());
        }
        let batch = self.unsubmitted.len();
        if let Err(e) = submit(
            self.eng.as_mut(),
            &mut self.slots,
            &mut self.unsubmitted,
            &mut self.in_flight,
            &mut self.clock,
            &mut self.ticker,
        ) {
            self.result.fail(
                errno(&e),
                "io commit",
                format!("fio: io commit failed: {e}"),
            );
            return Err(Next::End);
        }
        self.depth.set(self.clock, self.in_flight);
        if self.clock >= self.ramp_end {
            self.result.depth_sample(self.in_flight, batch);
            if self.traits.counts_submits {
                self.result.submitted(batch);
            }
        }
        if keep_filling {
            return Err(Next::Again);
        }
        Ok(())
    }
}

/// Submits the queued I/Os: one system call, then one clock read that
/// marks them all as handed to the device (so their submission latency
/// includes the call, as fio measures it).
pub(super) fn submit(
    eng: &mut dyn Engine,
    slots: &mut [Slot],
    unsubmitted: &mut Vec<usize>,
    in_flight: &mut usize,
    clock: &mut Nanos,
    ticker: &mut LoopClock,
) -> io::Result<()> {
    let result = eng.commit();
    *clock = ticker.read();
    for &i in unsubmitted.iter() {
        slots[i].submitted = Some(*clock);
    }
    *in_flight += unsubmitted.len();
    unsubmitted.clear();
    result
}
