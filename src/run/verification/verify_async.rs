//! verify_async: fio hands each block read back for checking to a pool of
//! helper threads and goes on with its I/O; a failure they find ends the
//! job (or is counted, under continue_on_error) once the job notices it.
//! What is checked, and how, is the synchronous check's.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::verify::{Block, VerifySpec, Written};

/// A block for a helper to check, in a buffer of the pool.
struct Work {
    buf: Vec<u8>,
    block: Written,
    logged: bool,
    /// The seed the headers must hold, when compared.
    seed: Option<u64>,
}

/// A helper's verdict, with the buffer to reuse.
struct Verdict {
    buf: Vec<u8>,
    outcome: Result<(), String>,
}

pub struct Offload {
    to_helpers: Option<Sender<Work>>,
    verdicts: Receiver<Verdict>,
    helpers: Vec<JoinHandle<()>>,
    /// Buffers back from the helpers, reused so that handing a block
    /// over allocates only until the pool has grown to the queue's size.
    spare: Vec<Vec<u8>>,
    outstanding: usize,
}

impl Offload {
    /// Starts `threads` helpers, pinned to `cpus` when given
    /// (verify_async_cpus).
    pub fn start(
        spec: Arc<VerifySpec>,
        names: Arc<[String]>,
        threads: usize,
        cpus: Option<Vec<usize>>,
    ) -> Offload {
        let (to_helpers, work) = channel::<Work>();
        let (to_job, verdicts) = channel::<Verdict>();
        let work = Arc::new(Mutex::new(work));
        let helpers = (0..threads.max(1))
            .map(|_| {
                let (spec, names, work, to_job) =
                    (spec.clone(), names.clone(), work.clone(), to_job.clone());
                let cpus = cpus.clone();
                std::thread::spawn(move || {
                    if let Some(cpus) = &cpus
                        && crate::sys::sched::set_affinity(cpus).is_err()
                    {
                        eprintln!("fio: failed setting verify thread affinity");
                    }
                    let mut scratch = Vec::with_capacity(512);
                    loop {
                        // The lock is held only while taking one block.
                        let next = work
                            .lock()
                            .map_err(|_| ())
                            .and_then(|r| r.recv().map_err(|_| ()));
                        let Ok(mut w) = next else { break };
                        let block = Block {
                            file_name: &names[w.block.file as usize],
                            offset: w.block.offset,
                            numberio: w.block.numberio,
                            logged: w.logged,
                            offloaded: true,
                            seed: w.seed,
                        };
                        let outcome = spec.check(&mut w.buf, &block, &mut scratch, &mut |text| {
                            eprintln!("{text}")
                        });
                        if to_job
                            .send(Verdict {
                                buf: w.buf,
                                outcome,
                            })
                            .is_err()
                        {
                            break;
                        }
                    }
                })
            })
            .collect();
        Offload {
            to_helpers: Some(to_helpers),
            verdicts,
            helpers,
            spare: Vec::new(),
            outstanding: 0,
        }
    }

    /// Hands a copy of `data`, the block read back, to the helpers.
    pub fn send(&mut self, data: &[u8], block: Written, logged: bool, seed: Option<u64>) {
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(data);
        if let Some(tx) = &self.to_helpers
            && tx
                .send(Work {
                    buf,
                    block,
                    logged,
                    seed,
                })
                .is_ok()
        {
            self.outstanding += 1;
        }
    }

    /// The next failure the helpers have reported; waits for one verdict
    /// after another while `wait` and any are outstanding.
    pub fn failure(&mut self, wait: bool) -> Option<String> {
        while self.outstanding > 0 {
            let verdict = if wait {
                self.verdicts.recv().ok()
            } else {
                self.verdicts.try_recv().ok()
            };
            let Some(v) = verdict else { break };
            self.outstanding -= 1;
            self.spare.push(v.buf);
            if let Err(text) = v.outcome {
                return Some(text);
            }
        }
        None
    }
}

impl Drop for Offload {
    fn drop(&mut self) {
        // Closing the queue ends the helpers once it is empty.
        self.to_helpers = None;
        for h in self.helpers.drain(..) {
            let _ = h.join();
        }
    }
}
