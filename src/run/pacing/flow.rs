//! Flow control (`flow_id`, `flow`, `flow_sleep`): jobs sharing a flow id
//! keep their I/O counts in the ratio of their weights. Each job counts
//! the I/Os it was let through; before each one it compares its share of
//! the flow's count with its share of the flow's weight, and holds back
//! while it is ahead.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One flow id's shared counts.
#[derive(Debug)]
pub struct Flow {
    /// I/Os let through by all its jobs, plus one (fio starts it at one,
    /// so that no ratio divides by zero).
    count: AtomicU64,
    /// The weights of its jobs that have not ended.
    weight: AtomicU64,
}

/// A job's place in its flow.
#[derive(Debug, Clone)]
pub struct FlowMember {
    flow: Arc<Flow>,
    weight: u64,
}

impl FlowMember {
    /// The job's seat in the flow for one run: it leaves the flow, taking
    /// its I/Os and weight out, when the seat is dropped.
    pub fn seat(&self) -> Seat<'_> {
        Seat {
            member: self,
            mine: 0,
        }
    }
}

/// A running job's count of the I/Os its flow let through.
pub struct Seat<'a> {
    member: &'a FlowMember,
    mine: u64,
}

impl Seat<'_> {
    /// Whether the job is ahead of its share; if not, counts one more I/O
    /// for it.
    pub fn held_back(&mut self) -> bool {
        let flow = &self.member.flow;
        let total = flow.count.load(Ordering::Relaxed) as f64;
        let weights = flow.weight.load(Ordering::Relaxed) as f64;
        if self.mine as f64 / total > self.member.weight as f64 / weights {
            return true;
        }
        flow.count.fetch_add(1, Ordering::Relaxed);
        self.mine += 1;
        false
    }
}

impl Drop for Seat<'_> {
    fn drop(&mut self) {
        let flow = &self.member.flow;
        flow.count.fetch_sub(self.mine, Ordering::Relaxed);
        flow.weight.fetch_sub(self.member.weight, Ordering::Relaxed);
    }
}

/// Each job's membership, given every job's `flow_id` and `flow`
/// weight: a job with a weight joins the flow of its id. As in fio,
/// every job of the run weighs in from the start, whichever group it
/// runs in.
pub fn join_flows(ids_and_weights: &[(u64, u64)]) -> Vec<Option<FlowMember>> {
    let mut flows: Vec<(u64, Arc<Flow>)> = Vec::new();
    let mut members = Vec::with_capacity(ids_and_weights.len());
    for &(id, weight) in ids_and_weights {
        if weight == 0 {
            members.push(None);
            continue;
        }
        let flow = match flows.iter().find(|(i, _)| *i == id) {
            Some((_, f)) => f.clone(),
            None => {
                let f = Arc::new(Flow {
                    count: AtomicU64::new(1),
                    weight: AtomicU64::new(0),
                });
                flows.push((id, f.clone()));
                f
            }
        };
        flow.weight.fetch_add(weight, Ordering::Relaxed);
        members.push(Some(FlowMember { flow, weight }));
    }
    members
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_set_the_ratio_of_ios() {
        let flow = Arc::new(Flow {
            count: AtomicU64::new(1),
            weight: AtomicU64::new(9),
        });
        let heavy = FlowMember {
            flow: flow.clone(),
            weight: 8,
        };
        let light = FlowMember { flow, weight: 1 };
        let (mut h, mut l) = (heavy.seat(), light.seat());
        while h.mine + l.mine < 9000 {
            h.held_back();
            l.held_back();
        }
        let (h, l) = (h.mine, l.mine);
        assert!((h as f64 / l as f64 - 8.0).abs() < 0.1, "{h} {l}");
    }
}
