//! Which of a job's files the next I/O goes to (file_service_type), as
//! fio's get_next_file picks it: in turn, one file until it is done, or
//! at random (uniformly or skewed), keeping each pick for `:N` I/Os.
//! With `openfiles` below the file count, a file not in use yet is passed
//! over while that many are in use (fio's busy open), and a file leaves
//! use when it is done and the last I/O on it has ended (fio counts a
//! closing file as open until then). A file passed over that way while
//! I/O is in flight makes the choice busy, as fio's EBUSY does: the job
//! reaps before it asks again.

use crate::rand::fio_rand::{FioRng, Purpose};
use crate::run::place::config::PlacementConfig;
use crate::run::place::config::{FileService, ServiceKind};
use crate::run::place::distribution::{Distribution, Seeding};

/// Random picks that may miss before the choice checks whether any file
/// can take an I/O at all: a choice with none must end, never spin.
const MISSES_BEFORE_SCAN: u32 = 4096;

/// fio spreads a skewed file choice over this many slots per file.
const SLOT_SHIFT: u32 = 10;

pub struct FileChooser {
    service: FileService,
    /// fio's generator for file choices, and the skewed shape over them.
    rng: FioRng,
    skew: Option<Distribution>,
    /// Done files are skipped; when all are, the pass is over.
    done: Vec<bool>,
    done_count: usize,
    /// The file in use, and how many more I/Os it keeps.
    current: Option<usize>,
    left: u64,
    /// The next file in turn.
    next: usize,
    /// Files in use (fio's open files), and how many may be at once.
    in_use: Vec<bool>,
    in_use_count: usize,
    limit: usize,
    /// Files left since the caller last asked (only kept with a limit
    /// below the file count, where they are closed).
    retired: Vec<usize>,
    /// Files done with that still count as in use: I/O on them was in
    /// flight when they were left, and they have not closed yet.
    closing: Vec<bool>,
    /// Whether the job has I/O queued or in flight (the caller's word),
    /// and whether a pick found no room for a file because of it.
    in_flight: bool,
    busy: bool,
}

impl FileChooser {
    /// The choice among `files` files of a job placed by `placement`, of
    /// which at most `open_files` (fio's openfiles, 0: all) are in use at
    /// once.
    pub fn new(placement: &PlacementConfig, open_files: usize, files: usize) -> Self {
        let limit = open_files;
        FileChooser {
            service: placement.file_service.clone(),
            rng: placement.seeds.generator(Purpose::File, false),
            skew: skew(placement, files),
            done: vec![false; files],
            done_count: 0,
            current: None,
            left: 0,
            next: 0,
            in_use: vec![false; files],
            in_use_count: 0,
            limit: if limit == 0 { files } else { limit.min(files) },
            retired: Vec::with_capacity(files),
            closing: vec![false; files],
            in_flight: false,
            busy: false,
        }
    }

    /// The choice's generators from their seeds again: fio reseeds them
    /// at each loop of a job that repeats its randomness.
    pub fn reseed(&mut self, placement: &PlacementConfig) {
        self.rng = placement.seeds.generator(Purpose::File, false);
        self.skew = skew(placement, self.done.len());
    }

    /// Draws files with `draw` until one may take the next I/O. `None`
    /// when a drawn file is passed over only for want of room while I/O
    /// is in flight (the job reaps first), when `draw` has none, or when
    /// `exhausted` says after so many misses that no file will do.
    fn first_available(
        &mut self,
        mut draw: impl FnMut(&mut Self) -> Option<usize>,
        exhausted: impl Fn(&Self, usize) -> bool,
    ) -> Option<usize> {
        let mut tried = 0;
        loop {
            let f = draw(self)?;
            if self.available(f) {
                return Some(f);
            }
            if self.blocked(f) {
                self.busy = true;
                return None;
            }
            tried += 1;
            if exhausted(self, tried) {
                return None;
            }
        }
    }

    /// A random choice stops drawing after a long run of misses when no
    /// file is left to take the I/O.
    fn gives_up(&self, tried: usize) -> bool {
        tried >= MISSES_BEFORE_SCAN as usize && !self.any_available()
    }

    /// Whether `f` may take the next I/O: not done, and in use already or
    /// with room for one more file in use.
    fn available(&self, f: usize) -> bool {
        !self.done[f] && !self.closing[f] && (self.in_use[f] || self.in_use_count < self.limit)
    }

    /// Whether any file may take the next I/O (the slow check behind a
    /// long run of random misses).
    fn any_available(&self) -> bool {
        (0..self.done.len()).any(|f| self.available(f))
    }

    /// Whether `f` is passed over only for want of room while I/O is in
    /// flight: fio's busy open, after which the job reaps.
    fn blocked(&self, f: usize) -> bool {
        self.in_flight && !self.done[f] && !self.closing[f] && !self.in_use[f]
    }

    /// Whether `f` is a file in use that the choice will come back to
    /// (not one left, closing or done).
    pub fn holds(&self, f: usize) -> bool {
        self.in_use[f] && !self.closing[f] && !self.done[f]
    }

    /// Tells the choice whether the job has I/O queued or in flight.
    #[inline]
    pub fn set_in_flight(&mut self, any: bool) {
        self.in_flight = any;
    }

    /// Whether the last pick gave nothing because every file it tried
    /// needed room (the job reaps, then picks again); clears the mark.
    pub fn take_busy(&mut self) -> bool {
        std::mem::take(&mut self.busy)
    }

    fn take(&mut self, f: usize) -> usize {
        if !self.in_use[f] {
            self.in_use[f] = true;
            self.in_use_count += 1;
        }
        f
    }

    /// The file for the next I/O; `None` once every file is done.
    #[inline]
    pub fn pick(&mut self) -> Option<usize> {
        let files = self.done.len();
        if self.done_count >= files {
            return None;
        }
        if let Some(f) = self.current {
            // One file is always the next one, whatever the service type
            // (the choice's own generator feeds nothing else).
            if self.service.kind == ServiceKind::Sequential || files == 1 {
                return Some(f);
            }
            if self.left > 0 {
                self.left -= 1;
                return Some(f);
            }
        }
        self.choose(files)
    }

    /// A new choice of file, by the service type (out of line: most I/Os
    /// keep the current file).
    fn choose(&mut self, files: usize) -> Option<usize> {
        let f = match self.service.kind {
            ServiceKind::RoundRobin | ServiceKind::Sequential => self.first_available(
                |c| {
                    let f = c.next;
                    // No division on the hot path: wrap by comparison.
                    c.next = if f + 1 == files { 0 } else { f + 1 };
                    Some(f)
                },
                |_, tried| tried >= files,
            )?,
            ServiceKind::Random => self.first_available(
                |c| Some(c.rng.scaled(files as u64) as usize),
                Self::gives_up,
            )?,
            ServiceKind::Skewed(_) => self.first_available(
                |c| {
                    let skew = c.skew.as_mut()?;
                    let slots = (files as u64) << SLOT_SHIFT;
                    let slot = skew.next(0, slots, 1, &mut c.rng).unwrap_or(0);
                    Some(((slot >> SLOT_SHIFT) as usize).min(files - 1))
                },
                Self::gives_up,
            )?,
        };
        let f = self.take(f);
        self.current = Some(f);
        self.left = self.service.per_pick.saturating_sub(1);
        Some(f)
    }

    /// `file` has no offset left. A skewed choice keeps it (the caller
    /// starts its positions over); otherwise it is done for this pass.
    /// Either way it is closed in fio, so the next I/O picks afresh;
    /// with I/O still `in_flight` on it, it keeps its room until it has
    /// `closed`.
    pub fn finished(&mut self, file: usize, in_flight: bool) {
        if self.current == Some(file) {
            self.current = None;
        }
        if in_flight && self.in_use[file] && self.limit < self.done.len() {
            self.closing[file] = true;
            self.retired.push(file);
        } else if self.in_use[file] {
            self.in_use[file] = false;
            self.in_use_count -= 1;
            if self.limit < self.done.len() {
                self.retired.push(file);
            }
        }
        if !self.service.skewed() && !self.done[file] {
            self.done[file] = true;
            self.done_count += 1;
        }
    }

    /// `file` has closed: a file left with I/O in flight gives up its room.
    pub fn closed(&mut self, file: usize) {
        if std::mem::take(&mut self.closing[file]) {
            self.in_use[file] = false;
            self.in_use_count -= 1;
        }
    }

    /// A file that left use since the last call, if any.
    pub fn take_retired(&mut self) -> Option<usize> {
        self.retired.pop()
    }

    /// A new pass: every file is back in play, and the turn starts over.
    pub fn restart(&mut self) {
        self.done.iter_mut().for_each(|d| *d = false);
        self.done_count = 0;
        self.in_use.iter_mut().for_each(|u| *u = false);
        self.in_use_count = 0;
        self.closing.iter_mut().for_each(|c| *c = false);
        self.retired.clear();
        self.current = None;
        self.left = 0;
    }
}

/// The skewed shape over a skewed choice's slots, freshly seeded.
fn skew(placement: &PlacementConfig, files: usize) -> Option<Distribution> {
    match &placement.file_service.kind {
        ServiceKind::Skewed(shape) => Some(Distribution::new(
            shape,
            (files as u64) << SLOT_SHIFT,
            Seeding {
                file_seed: placement.seeds.seed(Purpose::File) as u32,
                zones: placement.seeds.generator(Purpose::Zone, false),
                hashed: false,
            },
        )),
        _ => None,
    }
}
