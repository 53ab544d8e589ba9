//! One turn of the job loop, and what it does before it fills the queue:
//! the pauses it weighs, the limits it checks and its periodic duties.

use super::pace::think;
use super::{JobLoop, Next, Phase, Quiesce, Turn, issued};
use crate::engine::Dir;
use crate::result::JobResult;
use crate::run::pacing::clock::{self, ms_between, nanos};
use crate::run::pacing::latency_target;
use crate::run::pacing::rate;
use crate::run::status::depth::DepthTracker;
use crate::run::status::progress::State;
use crate::run::status::sampler::RateSampler;
use crate::stats::CpuUsage;

impl JobLoop<'_, '_> {
    /// One turn of fio's loop: `Err(Next::End)` once the job's I/O is over.
    /// Always inlined into `run` (its one caller): a call per I/O, with
    /// its saved registers and stack frame, costs a null-engine job some
    /// percent of its IOPS.
    #[inline(always)]
    pub(super) fn turn(&mut self) -> Phase {
        let cfg = self.cfg;
        self.weigh_think();
        self.check_limits()?;
        let issuing = self.may_issue();
        // A trigger's request for the job's state is answered where the
        // job first may not issue: what is still in flight is not listed
        // as written yet, as fio has it when its trigger fires.
        if !issuing && self.progress.vstate.asked() {
            self.answer_trigger();
        }
        if self.clock >= self.next_tick {
            self.duties(issuing);
        }
        // Room for another I/O: below the depth, and the engine willing.
        // latency_target holds the queue to the depth it is trying.
        let depth_limit = self
            .lat_target
            .as_ref()
            .map_or(cfg.depth.iodepth, |l| l.depth);
        let below_depth = self.in_flight + self.unsubmitted.len() < depth_limit;
        let may_be_busy = self.traits.may_be_busy;
        let room = below_depth && !(may_be_busy && self.eng.busy()) && !self.files_busy;
        // fio hands a busy null engine its next I/O anyway, which logs it,
        // and hands it over again once the engine has been reaped.
        if self.iolog.is_some()
            && issuing
            && !self.draining
            && below_depth
            && may_be_busy
            && self.eng.busy()
        {
            self.handed_to_busy = true;
        }
        // fio finds a replay's end as soon as it looks for another I/O,
        // which it does below the depth even when the engine is busy.
        if issuing
            && below_depth
            && let Some(rp) = &mut self.replayer
            && !rp.io_left()
        {
            let stop = self.stop;
            rp.finish(&|| stop.any());
            self.finished = true;
            self.replay_over = true;
            return Err(Next::Again);
        }
        self.quiesced()?;
        let mut turn = Turn {
            issuing,
            room,
            depth_limit,
            keep_filling: false,
            sync_queued: false,
        };
        if issuing && room {
            self.fill(&mut turn)?;
        }
        self.flow_control(&turn)?;
        if issuing && room && !self.draining && !turn.sync_queued {
            self.new_io(&mut turn)?;
        }
        self.submit_queued(turn.keep_filling)?;
        if self.in_flight == 0 && std::mem::take(&mut self.files_busy) {
            return Err(Next::Again);
        }
        if self.in_flight == 0 {
            // A drain for a sync or a new pass goes on to it only while
            // the job may still issue: when its time ran out during the
            // drain, the job is over (looping here would spin forever).
            if (self.draining && self.may_issue()) || !self.unsubmitted.is_empty() {
                return Err(Next::Again);
            }
            return Err(Next::End);
        }
        self.reap(depth_limit)
    }

    /// Weighs the think time due after the I/O just handed out: once it
    /// is, the job drains its I/O in flight and then pauses.
    #[inline]
    fn weigh_think(&mut self) {
        let cfg = self.cfg;
        // (Asked first: a take copies the whole field out, even when it
        // is empty, and this runs for every I/O.)
        if self.think.after.is_none() {
            return;
        }
        let Some((d, completed)) = self.think.after.take() else {
            return;
        };
        if self.quiesce.is_some() {
            return;
        }
        let (ios, _) = self.issued();
        let blocks = if cfg.pacing.think_counts_issues {
            ios
        } else {
            let in_flight = (self.in_flight + self.unsubmitted.len()) as u64;
            completed.unwrap_or(ios.saturating_sub(in_flight))
        };
        let mut stall = false;
        let mut count_blocks = true;
        let mut now = self.clock;
        if !cfg.pacing.think_iotime.is_zero() {
            now = clock::now();
            let period = cfg
                .pacing
                .think_iotime
                .saturating_add(cfg.pacing.think_spin)
                .saturating_add(cfg.pacing.think_sleep);
            if now.saturating_sub(self.think.last_time) >= nanos(period) {
                stall = true;
            } else {
                count_blocks = cfg.pacing.think_blocks_set;
            }
        }
        stall |= count_blocks && blocks >= self.think.last_blocks + cfg.pacing.think_blocks;
        if stall {
            // The block count before the I/O in flight drains, as fio
            // keeps it.
            self.think.last_blocks = blocks;
            if !cfg.pacing.think_iotime.is_zero() {
                self.think.last_time = now;
            }
            self.quiesce = Some(Quiesce::Think(d));
            self.draining = true;
        }
    }

    /// rate_min's and latency_target's checks between I/Os.
    #[inline]
    fn check_limits(&mut self) -> Phase {
        let cfg = self.cfg;
        let clock = self.clock;
        // fio's loop looks at an error set while reading the job once an
        // I/O has been done.
        if let Some(e) = &cfg.read_error
            && issued(&self.work).0 > 0
        {
            self.result.fail(e.errno, &e.func, e.message.clone());
            return Err(Next::End);
        }
        // rate_min and rate_iops_min, as fio checks them between I/Os.
        if let Some(check) = &mut self.floor_check
            && clock >= self.ramp_end
            && let Some(text) =
                check.check(clock, issued(&self.work).0, &self.result.dirs, &cfg.name)
        {
            self.result.fail(libc::EIO, "check_min_rate", text);
            return Err(Next::End);
        }
        if clock >= self.ramp_end
            && let Some(lt) = &mut self.lat_target
        {
            match lt.check(clock, self.result.dirs.iter().map(|d| d.ios).sum()) {
                latency_target::Step::Drain if self.quiesce.is_none() => {
                    self.quiesce = Some(Quiesce::Depth)
                }
                latency_target::Step::FinalWindow => self.quiesce = Some(Quiesce::FinalWindow),
                latency_target::Step::Done => self.finished = true,
                _ => {}
            }
            self.draining |= self.quiesce.is_some();
        }
        Ok(())
    }

    /// The periodic duties: bandwidth and IOPS samples, the end of
    /// ramp_time, and the progress published for the status line.
    fn duties(&mut self, issuing: bool) {
        let cfg = self.cfg;
        let clock = self.clock;
        let ramp_end = self.ramp_end;
        if clock >= self.sampler.next && issuing {
            let ms = ms_between(ramp_end, clock);
            let logs = &mut self.records.logs;
            self.sampler.sample(
                clock,
                &mut self.result.dirs,
                [self.traits.sample_bw, self.traits.sample_iops],
                &mut |iops, dir, value| {
                    if let Some(logs) = logs {
                        // Averaged entries carry the block size only when
                        // it is fixed.
                        let bs = &cfg.workload.bs[dir];
                        let bs = if bs.min() == bs.max() { bs.min() } else { 0 };
                        logs.sampled(iops, dir, value, ms, bs);
                    }
                },
            );
        }
        if self.cpu_start.is_none() && clock >= ramp_end {
            self.cpu_start = Some(CpuUsage::of_this_thread());
            self.progress.set_state(State::Running);
            if !cfg.timing.ramp.is_zero() {
                self.progress.set_epoch(ramp_end);
                if let Some(v) = &mut self.verifying {
                    v.trail
                        .stats_restarted(self.result.dirs[Dir::Write as usize].issued);
                }
                if let Some(lt) = &mut self.lat_target {
                    lt.restart(clock, 0);
                }
            }
        }
        if clock >= self.next_publish {
            self.publish();
        }
        self.next_tick = self.sampler.next.min(self.next_publish);
        if self.cpu_start.is_none() {
            self.next_tick = self.next_tick.min(ramp_end);
        }
    }

    /// Publishes the job's progress: its totals, its live tally, and a
    /// snapshot of its result when one is wanted.
    fn publish(&mut self) {
        let clock = self.clock;
        let progress = self.progress;
        let dirs = &self.result.dirs;
        progress.publish(
            [0, 1, 2].map(|d| dirs[d].bytes),
            [0, 1, 2].map(|d| dirs[d].ios),
        );
        if let Some(tally) = &mut self.records.live
            && clock >= self.ramp_end
        {
            progress.hand_over(tally, clock);
            progress.set_depth(if self.traits.synchronous {
                1
            } else {
                self.in_flight
            });
        }
        if progress.snapshot_wanted() {
            let mut so_far = self.result.clone();
            so_far.finish(std::time::Duration::from_nanos(
                clock.saturating_sub(self.ramp_end),
            ));
            if let Some(start) = self.cpu_start {
                so_far.cpu = CpuUsage::of_this_thread().since(&start);
            }
            progress.give_snapshot(so_far);
        }
        self.next_publish = clock + self.publish_every;
    }

    /// Once the I/O drained for a pause is all in: the pause itself.
    #[inline]
    fn quiesced(&mut self) -> Phase {
        let cfg = self.cfg;
        let Some(q) = self.quiesce else {
            return Ok(());
        };
        if self.in_flight != 0 || !self.unsubmitted.is_empty() {
            return Ok(());
        }
        self.quiesce = None;
        self.draining = false;
        match q {
            Quiesce::Flow => {
                let stop = self.stop;
                crate::sys::signals::sleep_or_stop(cfg.pacing.flow_sleep, || stop.any());
                self.clock = clock::now();
                Err(Next::Again)
            }
            Quiesce::Depth => Ok(()),
            Quiesce::Think(d) => {
                let thought = think(cfg.pacing.think_spin, cfg.pacing.think_sleep, self.stop);
                // The next I/O starts once the job has thought:
                // thinking is no part of its latency.
                self.clock = clock::now();
                if cfg.pacing.rate_ignore_thinktime {
                    self.rate_credit[d] += rate::thinktime_credit(
                        cfg.workload.bs[d].min(),
                        cfg.pacing.rate_bytes[d],
                        cfg.pacing.rate_iops[d],
                        thought,
                    );
                    if let Some(p) = &mut self.poisson {
                        p.delay(d, thought);
                    }
                }
                Err(Next::Again)
            }
            Quiesce::FinalWindow => {
                self.final_window();
                Ok(())
            }
        }
    }

    /// latency_target settled on a depth: fio starts the statistics, and
    /// the runtime, over for the window at the depth found.
    fn final_window(&mut self) {
        let cfg = self.cfg;
        let clock = clock::now();
        self.clock = clock;
        self.ramp_end = clock;
        self.deadline = cfg.timing.runtime.map(|r| clock.saturating_add(nanos(r)));
        let pid = self.result.pid;
        self.result = JobResult::new(cfg);
        self.result.pid = pid;
        self.sampler = RateSampler::new(clock, cfg.reporting.bw_every, cfg.reporting.iops_every);
        self.depth = DepthTracker::new(clock);
        self.cpu_start = Some(CpuUsage::of_this_thread());
        self.progress.set_epoch(clock);
        if let Some(v) = &mut self.verifying {
            v.trail.stats_restarted(0);
        }
        if let Some(lt) = &mut self.lat_target {
            lt.stats_restarted(clock);
        }
        self.next_tick = clock;
    }

    /// Flow control: a job ahead of its share of the flow waits, with
    /// flow_sleep after the I/O in flight has drained, else spinning.
    #[inline]
    fn flow_control(&mut self, turn: &Turn) -> Phase {
        let cfg = self.cfg;
        if turn.issuing
            && turn.room
            && !self.draining
            && let Some(seat) = self.flow.as_deref_mut()
            && seat.held_back()
        {
            if cfg.pacing.flow_sleep.is_zero() {
                std::hint::spin_loop();
                self.clock = clock::now();
                return Err(Next::Again);
            }
            self.quiesce = Some(Quiesce::Flow);
            self.draining = true;
        }
        Ok(())
    }
}
