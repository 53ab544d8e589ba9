//! The job's verify state, as a trigger or verify_state_save asks for it.

use super::JobLoop;
use crate::engine::Dir;
use crate::rand::fio_rand::Draws;
use crate::result::JobResult;
use crate::run::config::JobConfig;
use crate::run::status::progress::JobProgress;
use crate::run::verification::verify_trail;
use crate::run::verification::verifying::Verifying;
use crate::verify::state::{RandState, VerifyState};

impl JobLoop<'_, '_> {
    /// Answers a trigger's request for the job's verify state, if any.
    #[cold]
    pub(super) fn answer_trigger(&self) {
        answer_trigger(
            self.progress,
            self.cfg,
            self.verifying.as_ref(),
            &self.draws,
            self.verify_reseeded,
            &self.result,
        );
    }
}

/// Answers a trigger's request for the job's verify state, with the
/// state as it is now.
pub(super) fn answer_trigger(
    progress: &JobProgress,
    cfg: &JobConfig,
    verifying: Option<&Verifying>,
    draws: &Draws,
    reseeded: bool,
    result: &JobResult,
) {
    progress.vstate.answer(|| {
        let replayed = verifying.map_or(0, |v| v.trail.replayed);
        let rand = verify_trail::rand_state(&cfg.place_parts(), &draws.offsets, reseeded, replayed);
        trigger_state(cfg, verifying, result, rand)
    });
}

/// The job's verify state as a trigger saves it: the completed writes
/// are listed only where verify_state_save keeps them.
fn trigger_state(
    cfg: &JobConfig,
    verifying: Option<&Verifying>,
    result: &JobResult,
    rand: RandState,
) -> VerifyState {
    match verifying {
        Some(v) if v.spec.state_save => v.trail.state(&cfg.state_parts(), rand),
        _ => {
            let issued = writes_issued(verifying, result);
            verify_trail::unlisted(
                &cfg.state_parts(),
                cfg.files.paths.len() as u32,
                issued,
                rand,
            )
        }
    }
}

/// The writes the job issued, as its verify state counts them.
pub(super) fn writes_issued(verifying: Option<&Verifying>, result: &JobResult) -> u64 {
    verifying.map_or(result.dirs[Dir::Write as usize].issued, |v| v.trail.issued)
}
