//! The verify states a trigger saves. fio writes every job's state file
//! from its main thread the moment the trigger fires, before it runs the
//! trigger command, so the command finds each file holding the writes
//! issued and completed up to then; a job that saved so never saves
//! again as it ends. ferrio's jobs keep their records in their own
//! threads, so the main thread asks each running job for its state and
//! waits for the answers (a job answers where it first finds that it may
//! not issue another I/O, before it reaps what is in flight, or as it
//! ends), and saves itself the states of the jobs that are not running:
//! those yet to start as they would begin, those that have ended as fio
//! keeps them then (their files closed, so none listed).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use crate::run::config::JobConfig;
use crate::run::status::progress::{JobProgress, State};
use crate::run::verification::verify_trail;
use crate::verify::state::{RandState, VerifyState};

// A job's stage is 0 until the trigger asks for its state.

/// Asked, not answered yet.
const ASKED: u8 = 1;
/// Saved for the trigger, by the job or the main thread.
const SAVED: u8 = 2;

/// How long the trigger waits for the running jobs' answers before it
/// runs its command all the same (a job stuck in one I/O then saves as
/// it ends).
const PATIENCE: Duration = Duration::from_secs(5);

/// One job's side of the exchange, in its progress slot.
#[derive(Debug, Default)]
pub struct StateRequest {
    stage: AtomicU8,
    /// What the job left as it ended: writes issued and the random-offset
    /// generator's state.
    ended: Mutex<Option<(u64, RandState)>>,
}

impl StateRequest {
    /// Whether the trigger waits for this job's state (a cheap look
    /// before [`StateRequest::answer`]).
    pub fn asked(&self) -> bool {
        self.stage.load(Ordering::Relaxed) == ASKED
    }

    /// Whether the trigger saved this job's state already (its own save
    /// at the end is then left out, as in fio).
    pub fn saved(&self) -> bool {
        self.stage.load(Ordering::Acquire) == SAVED
    }

    /// Saves the job's state now if the trigger asked for it and nobody
    /// saved it yet; whether this call saved it.
    pub fn answer(&self, state: impl FnOnce() -> VerifyState) -> bool {
        if !self.asked() || !self.claim_asked() {
            return false;
        }
        verify_trail::save(crate::run::verification::trigger::aux_path(), &state());
        true
    }

    /// Records what the job left as it ended.
    pub fn ended(&self, issued: u64, rand: RandState) {
        if let Ok(mut slot) = self.ended.lock() {
            *slot = Some((issued, rand));
        }
    }

    fn ask(&self) {
        self.stage.store(ASKED, Ordering::Release);
    }

    /// Takes an asked-for save on; only one of the job and the main
    /// thread gets it.
    fn claim_asked(&self) -> bool {
        self.stage
            .compare_exchange(ASKED, SAVED, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }

    fn claim(&self) {
        self.stage.store(SAVED, Ordering::Release);
    }

    fn ended_with(&self) -> Option<(u64, RandState)> {
        self.ended.lock().ok().and_then(|s| s.clone())
    }
}

/// Saves every job's state for the trigger. `running` says whether the
/// first group's jobs have been let go; before that no job thread runs
/// and every state is that of a job yet to start. The running jobs are
/// told to `stop` once asked, so that each answers promptly.
pub fn save_all(
    jobs: &[JobConfig],
    progress: &[JobProgress],
    stop: &std::sync::atomic::AtomicBool,
    running: bool,
) {
    for (cfg, p) in jobs.iter().zip(progress) {
        if running && p.state() != State::Pending {
            p.vstate.ask();
        } else {
            p.vstate.claim();
            verify_trail::save(
                crate::run::verification::trigger::aux_path(),
                &unstarted(cfg),
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    let give_up = Instant::now() + PATIENCE;
    loop {
        let mut waiting = false;
        for (cfg, p) in jobs.iter().zip(progress) {
            if !p.vstate.asked() {
                continue;
            }
            let over = matches!(p.state(), State::Done | State::Failed | State::Killed);
            if !over {
                waiting = true;
            } else if p.vstate.claim_asked() {
                let state = match p.vstate.ended_with() {
                    Some((issued, rand)) => verify_trail::unlisted(cfg, 0, issued, rand),
                    None => unstarted(cfg),
                };
                verify_trail::save(crate::run::verification::trigger::aux_path(), &state);
            }
        }
        if !waiting || Instant::now() >= give_up {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The state of a job that has not started: nothing written, its files
/// counted, its random-offset generator as seeded.
fn unstarted(cfg: &JobConfig) -> VerifyState {
    let seeded = crate::run::job_loop::job_draws(cfg).offsets;
    let rand = verify_trail::rand_state(cfg, &seeded, false, 0);
    verify_trail::unlisted(cfg, cfg.files.paths.len() as u32, 0, rand)
}
