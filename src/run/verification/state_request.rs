//! A job's side of a trigger's request for its verify state, kept in
//! the job's progress slot, and where the saved states go (`--aux-path`).
//! Apart from the trigger's own code (trigger.rs, trigger_save.rs), which
//! reads every job's progress, so that progress can hold a request.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::run::verification::verify_trail;
use crate::verify::state::{RandState, VerifyState};

// A job's stage is 0 until the trigger asks for its state.

/// Asked, not answered yet.
const ASKED: u8 = 1;
/// Saved for the trigger, by the job or the main thread.
const SAVED: u8 = 2;

/// `--aux-path`, where a trigger saves the state of the jobs that do not
/// verify (a verifying job's own spec carries it).
static AUX_PATH: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Where the trigger's state files go (the working directory by default).
pub fn aux_path() -> Option<&'static Path> {
    AUX_PATH.get().and_then(Option::as_deref)
}

/// Sets `--aux-path` once, as the command line is read.
pub fn set_aux_path(path: Option<PathBuf>) {
    let _ = AUX_PATH.set(path);
}

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
        verify_trail::save(aux_path(), &state());
        true
    }

    /// Records what the job left as it ended.
    pub fn ended(&self, issued: u64, rand: RandState) {
        if let Ok(mut slot) = self.ended.lock() {
            *slot = Some((issued, rand));
        }
    }

    pub(super) fn ask(&self) {
        self.stage.store(ASKED, Ordering::Release);
    }

    /// Takes an asked-for save on; only one of the job and the main
    /// thread gets it.
    pub(super) fn claim_asked(&self) -> bool {
        self.stage
            .compare_exchange(ASKED, SAVED, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }

    pub(super) fn claim(&self) {
        self.stage.store(SAVED, Ordering::Release);
    }

    pub(super) fn ended_with(&self) -> Option<(u64, RandState)> {
        self.ended.lock().ok().and_then(|s| s.clone())
    }
}
