//! Which of a job's files the next I/O goes to (file_service_type), as
//! fio's get_next_file picks it: in turn, one file until it is done, or
//! at random (uniformly or skewed), keeping each pick for `:N` I/Os.

use super::config::{FileService, ServiceKind};
use super::distribution::Distribution;
use super::offsets::Rng;

/// fio spreads a skewed file choice over this many slots per file.
const SLOT_SHIFT: u32 = 10;

pub struct FileChooser {
    service: FileService,
    skew: Option<Distribution>,
    /// Done files are skipped; when all are, the pass is over.
    done: Vec<bool>,
    done_count: usize,
    /// The file in use, and how many more I/Os it keeps.
    current: Option<usize>,
    left: u64,
    /// The next file in turn.
    next: usize,
}

impl FileChooser {
    pub fn new(service: &FileService, files: usize) -> Self {
        let skew = match &service.kind {
            ServiceKind::Skewed(shape) => {
                Some(Distribution::new(shape, (files as u64) << SLOT_SHIFT, 1))
            }
            _ => None,
        };
        FileChooser {
            service: service.clone(),
            skew,
            done: vec![false; files],
            done_count: 0,
            current: None,
            left: 0,
            next: 0,
        }
    }

    /// The file for the next I/O; `None` once every file is done.
    pub fn pick(&mut self, rng: &mut Rng) -> Option<usize> {
        let files = self.done.len();
        if self.done_count >= files {
            return None;
        }
        if let Some(f) = self.current {
            if self.service.kind == ServiceKind::Sequential {
                return Some(f);
            }
            if self.left > 0 {
                self.left -= 1;
                return Some(f);
            }
        }
        let f = match &self.service.kind {
            ServiceKind::RoundRobin | ServiceKind::Sequential => loop {
                let f = self.next;
                self.next = (self.next + 1) % files;
                if !self.done[f] {
                    break f;
                }
            },
            ServiceKind::Random => loop {
                let f = rng.below(files as u64) as usize;
                if !self.done[f] {
                    break f;
                }
            },
            ServiceKind::Skewed(_) => {
                let skew = self.skew.as_ref()?;
                let slot = skew.next(rng, 0).unwrap_or(0);
                ((slot >> SLOT_SHIFT) as usize).min(files - 1)
            }
        };
        self.current = Some(f);
        self.left = self.service.per_pick.saturating_sub(1);
        Some(f)
    }

    /// `file` has no offset left. A skewed choice keeps it (the caller
    /// starts its positions over); otherwise it is done for this pass.
    /// Either way it is closed in fio, so the next I/O picks afresh.
    pub fn finished(&mut self, file: usize) {
        if self.current == Some(file) {
            self.current = None;
        }
        if !self.service.skewed() && !self.done[file] {
            self.done[file] = true;
            self.done_count += 1;
        }
    }

    /// A new pass: every file is back in play, and the turn starts over.
    pub fn restart(&mut self) {
        self.done.iter_mut().for_each(|d| *d = false);
        self.done_count = 0;
        self.current = None;
        self.left = 0;
    }
}
