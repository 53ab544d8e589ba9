//! Waiting: for a rate's schedule or start delay, and fio's think time.

use std::time::Instant;

use super::Stops;
use crate::run::pacing::clock::{self, Nanos};

/// Sleeps until `until`, waking for stops; false when the run was stopped
/// or the deadline came first.
pub(super) fn wait_until(until: Nanos, deadline: Option<Nanos>, stop: Stops<'_>) -> bool {
    loop {
        let now = clock::now();
        if now >= until {
            return true;
        }
        if stop.any() || deadline.is_some_and(|d| now >= d) {
            return false;
        }
        let limit = deadline.map_or(until, |d| d.min(until));
        std::thread::sleep(std::time::Duration::from_nanos(
            (limit - now).min(50_000_000),
        ));
    }
}

/// fio's think time: busy-spin for `thinktime_spin`, sleep the rest;
/// returns how long it took, in µs.
pub(super) fn think(spin: std::time::Duration, sleep: std::time::Duration) -> u64 {
    let began = Instant::now();
    let spin_until = began + spin;
    while Instant::now() < spin_until {
        std::hint::spin_loop();
    }
    std::thread::sleep(sleep);
    began.elapsed().as_micros() as u64
}
