//! The running record behind fio's verify state file: writes issued and
//! completed, reads completed, and per file a ring of the offsets of the
//! last `iodepth` completed writes (fio's last_write_comp). Kept by every
//! verifying job, written out when a writing one ends (verify_state_save)
//! and consulted through a loaded state by a later verify
//! (verify_state_load). The rings are sized once; recording allocates
//! nothing.

use std::path::Path;

use crate::rand::fio_rand::FioRng;
use crate::run::place::parts::PlaceParts;
use crate::verify::state::{self, RandState, VerifyState};

/// What a job's verify state file says of the job besides its writes:
/// its name and number, its iodepth, and what places its I/O (the
/// random-offset generator's state, its file count).
#[derive(Clone, Copy)]
pub struct StateParts<'a> {
    pub name: &'a str,
    pub iodepth: u32,
    pub place: PlaceParts<'a>,
}

pub struct Trail {
    /// Writes issued and completed (fio's io_issues and io_blocks).
    pub issued: u64,
    completed: u64,
    /// Reads completed (fio's io_blocks for reads), which places a verify
    /// read relative to a loaded state's writes.
    pub reads_done: u64,
    /// experimental_verify: the I/Os the last pass drew again, each one
    /// draw of fio's reseeded offset generator.
    pub replayed: u64,
    depth: usize,
    files: usize,
    /// Per file, `depth` words in turn: offsets of the latest completed
    /// writes; and per file the slot the next one goes to.
    rings: Vec<u64>,
    next: Vec<usize>,
}

impl Trail {
    /// The trail of a job of `files` files at `depth`; `None` when its
    /// memory is not to be had (fio's "failed to alloc write comp data").
    /// The rings are zeroed pages until written.
    pub fn new(depth: usize, files: usize) -> Option<Self> {
        let depth = depth.max(1);
        let mut next = crate::run::storage::alloc::with_capacity(files)?;
        next.resize(files, 0);
        Some(Trail {
            issued: 0,
            completed: 0,
            reads_done: 0,
            replayed: 0,
            depth,
            files,
            rings: crate::run::storage::alloc::zeroed_words(depth.checked_mul(files)?)?,
            next,
        })
    }

    /// fio's reset_all_stats (at the end of ramp_time, and for a latency
    /// target's final window) zeroes its counts of I/Os issued and
    /// completed; the rings of offsets stay. fio zeroes the writes its
    /// state counts together with the report's total_ios, so both count
    /// the same writes; ferrio's report already counts those issued since
    /// the ramp's end when its loop gets here (a rate-capped write can go
    /// out after the ramp and before this), and `counted` says how many:
    /// the state starts from them.
    pub fn stats_restarted(&mut self, counted: u64) {
        self.issued = counted;
        self.completed = 0;
        self.reads_done = 0;
    }

    /// A write at `offset` of `file` completed.
    pub fn completed(&mut self, file: usize, offset: u64) {
        self.completed += 1;
        if let Some(next) = self.next.get_mut(file) {
            self.rings[file * self.depth + *next] = offset;
            *next = (*next + 1) % self.depth;
        }
    }

    /// The state fio would save now. fio lists, for each file, as many
    /// ring entries as the job's completed writes up to `iodepth`
    /// (counting the whole job's writes, not the file's), newest first.
    pub fn state(&self, cfg: &StateParts<'_>, rand: RandState) -> VerifyState {
        let listed = (self.completed as usize).min(self.depth);
        let mut comps = Vec::with_capacity(listed * self.files);
        for (file, ring) in self.rings.chunks(self.depth).enumerate() {
            let mut j = self.next[file];
            for _ in 0..listed {
                j = if j == 0 { self.depth - 1 } else { j - 1 };
                comps.push((file as u64, ring[j]));
            }
        }
        VerifyState {
            comps,
            ..unlisted(cfg, self.files as u32, self.issued, rand)
        }
    }
}

/// A state that lists no completed writes: that of a job that keeps no
/// record of them (fio keeps one only under verify_state_save), or has
/// not started, or has ended (`files` is then 0: fio has closed them).
pub fn unlisted(cfg: &StateParts<'_>, files: u32, issued: u64, rand: RandState) -> VerifyState {
    VerifyState {
        depth: cfg.iodepth,
        files,
        issued,
        index: cfg.place.placement.seeds.thread_number.saturating_sub(1),
        rand,
        name: fio_name(cfg.name),
        comps: Vec::new(),
    }
}

/// The random-offset generator's state as fio has it when the job ends:
/// zeros for a job without random offsets (fio never seeds it); freshly
/// seeded when the job's last act was a verify pass under randrepeat (fio
/// reseeds before each pass), then advanced by the draws of a pass that
/// replayed the writes (experimental_verify; a shift register draws
/// nothing from it); otherwise where the writes left it.
pub fn rand_state(
    cfg: &PlaceParts<'_>,
    current: &FioRng,
    reseeded: bool,
    replayed: u64,
) -> RandState {
    if !cfg.workload.pattern.random {
        return RandState::Narrow([0; 3]);
    }
    let mut fresh;
    let rng = if reseeded && cfg.placement.seeds.repeat {
        fresh = crate::run::place::placement::job_draws(cfg).offsets;
        if !cfg.placement.lfsr {
            for _ in 0..replayed {
                fresh.draw();
            }
        }
        &fresh
    } else {
        current
    };
    match rng {
        FioRng::Taus88(s) => RandState::Narrow(*s),
        FioRng::Taus258(s) => RandState::Wide(*s),
    }
}

/// Writes a job's state file (as fio does when a writing, verifying job
/// ends, and for every job when a trigger fires); a failure is reported
/// on stderr (as fio's perror and log lines) and does not fail the job.
pub fn save(aux_path: Option<&Path>, state: &VerifyState) {
    let path = state::file_name(&state::prefix(aux_path), &state.name, state.index);
    if let Err(e) = std::fs::write(&path, state.encode()) {
        eprintln!("fio: open state file: {}", crate::strerror(&e));
        eprintln!("fio: state file: {} (for_write=1)", path.display());
    }
}

/// The job name as fio keeps it in the state (and so in the file's name):
/// at most 63 bytes.
fn fio_name(name: &str) -> String {
    let mut end = name.len().min(63);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name[..end].to_string()
}
