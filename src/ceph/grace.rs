//! How long an rbd or rados job waits for its I/O in flight once its
//! runtime is over. fio 3.33 waits forever there: an OSD that died or
//! stopped answering hangs the run. ferrio waits a grace period (the
//! `ferrio_ceph_grace` option), then names the I/Os still out, the RADOS
//! objects they went to, and gives up on them.

use std::time::{Duration, Instant};

pub struct Grace {
    /// From the first I/O to the end of the wait: ramp time, runtime and
    /// grace. `None` for a job without a runtime, or with no grace set
    /// (then only the operation timeout bounds a stall).
    limit: Option<Duration>,
    started: Option<Instant>,
    /// What each slot has in flight: the engine's file and the offset.
    pending: Vec<Option<(usize, u64)>>,
}

impl Grace {
    pub fn new(depth: usize, limit: Option<Duration>) -> Self {
        Grace {
            limit,
            started: None,
            pending: vec![None; depth],
        }
    }

    /// A slot's I/O has started; the first one starts the clock.
    #[inline]
    pub fn started(&mut self, slot: usize, file: usize, offset: u64) {
        if self.limit.is_some() && self.started.is_none() {
            self.started = Some(Instant::now());
        }
        if let Some(p) = self.pending.get_mut(slot) {
            *p = Some((file, offset));
        }
    }

    #[inline]
    pub fn finished(&mut self, slot: usize) {
        if let Some(p) = self.pending.get_mut(slot) {
            *p = None;
        }
    }

    /// When to stop waiting for completions.
    pub fn deadline(&self) -> Option<Instant> {
        Some(self.started? + self.limit?)
    }

    /// The error that ends the job: how many I/Os were still out, and
    /// where (up to 8 objects, each named by `object`).
    pub fn stalled(&self, what: &str, object: impl Fn(usize, u64) -> String) -> std::io::Error {
        let out: Vec<(usize, u64)> = self.pending.iter().flatten().copied().collect();
        let mut objects: Vec<String> = out.iter().map(|&(f, o)| object(f, o)).collect();
        objects.sort();
        objects.dedup();
        let more = objects.len().saturating_sub(8);
        objects.truncate(8);
        let mut list = objects.join(", ");
        if more > 0 {
            list.push_str(&format!(" and {more} more"));
        }
        std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "{} I/Os to {what} did not complete within ferrio_ceph_grace after the \
                 runtime (objects: {list}); ferrio stops waiting for them",
                out.len()
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_what_is_still_out_and_only_counts_from_the_first_io() {
        let mut g = Grace::new(4, Some(Duration::from_secs(3)));
        assert_eq!(g.deadline(), None);
        g.started(0, 0, 0);
        g.started(1, 0, 4 << 20);
        g.started(2, 0, 4096);
        g.finished(1);
        assert!(g.deadline().is_some());
        let e = g.stalled("image rbd/x", |_, o| format!("obj.{:016x}", o >> 22));
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
        let text = e.to_string();
        assert!(text.starts_with("2 I/Os to image rbd/x"), "{text}");
        assert!(text.contains("(objects: obj.0000000000000000)"), "{text}");
        assert_eq!(Grace::new(1, None).deadline(), None);
    }
}
