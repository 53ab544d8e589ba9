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

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::run::status::progress::{JobProgress, State};
use crate::run::verification::state_request::aux_path;
use crate::run::verification::verify_trail;
use crate::run::verification::verify_trail::StateParts;
use crate::verify::state::VerifyState;

/// How long the trigger waits for the running jobs' answers before it
/// runs its command all the same (a job stuck in one I/O then saves as
/// it ends).
const PATIENCE: Duration = Duration::from_secs(5);

/// Saves every job's state for the trigger. `running` says whether the
/// first group's jobs have been let go; before that no job thread runs
/// and every state is that of a job yet to start. The running jobs are
/// told to `stop` once asked, so that each answers promptly.
pub fn save_all(
    jobs: &[StateParts<'_>],
    progress: &[JobProgress],
    stop: &std::sync::atomic::AtomicBool,
    running: bool,
) {
    for (cfg, p) in jobs.iter().zip(progress) {
        if running && p.state() != State::Pending {
            p.vstate.ask();
        } else {
            p.vstate.claim();
            verify_trail::save(aux_path(), &unstarted(cfg));
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
                verify_trail::save(aux_path(), &state);
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
fn unstarted(cfg: &StateParts<'_>) -> VerifyState {
    let seeded = crate::run::place::placement::job_draws(&cfg.place).offsets;
    let rand = verify_trail::rand_state(&cfg.place, &seeded, false, 0);
    verify_trail::unlisted(cfg, cfg.place.files.paths.len() as u32, 0, rand)
}
