//! Waiting: for a rate's schedule or start delay, and fio's think time.
//! Every wait ends within moments of a stop (a signal, the run's own end,
//! exitall), as fio's sleeps watch its terminate flag.

use std::time::{Duration, Instant};

use super::Stops;
use crate::run::pacing::clock::{self, Nanos};
use crate::sys::signals::sleep_or_stop;

/// Sleeps until `until`, waking for stops; false when the run was stopped
/// or the deadline came first.
pub(super) fn wait_until(until: Nanos, deadline: Option<Nanos>, stop: Stops<'_>) -> bool {
    loop {
        let now = clock::now();
        if now >= until {
            return true;
        }
        if deadline.is_some_and(|d| now >= d) {
            return false;
        }
        let limit = deadline.map_or(until, |d| d.min(until));
        if !sleep_or_stop(Duration::from_nanos(limit - now), || stop.any()) {
            return false;
        }
    }
}

/// fio's think time: busy-spin for `thinktime_spin`, sleep the rest
/// (for ever, as fio does, when the rest is too long to be a time, as
/// with `thinktime=-1`, until the job is stopped); returns how long it
/// took, in µs.
pub(super) fn think(spin: Duration, sleep: Duration, stop: Stops<'_>) -> u64 {
    let began = Instant::now();
    let spin_until = began.checked_add(spin);
    while spin_until.is_none_or(|until| Instant::now() < until) {
        if stop.any() {
            return began.elapsed().as_micros() as u64;
        }
        std::hint::spin_loop();
    }
    sleep_or_stop(sleep, || stop.any());
    began.elapsed().as_micros() as u64
}
