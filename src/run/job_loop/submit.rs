//! Handing queued I/Os to the engine.

#[allow(unused_imports)]
use super::*;

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
