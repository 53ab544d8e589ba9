//! log_compression's helper: fio hands each filled batch of log records
//! to a thread of the job's own, which deflates it while I/O goes on, so
//! that a long job's logs take little memory. log_compression_cpus pins
//! that thread (and only it), and, like fio's, it runs one nice level
//! below the job.

use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::run::records::log_codec::{Layout, Sample, deflate};

/// A batch of entries for one of the job's logs (by its index), with the
/// layout of its records and the milliseconds to add to its time stamps.
type Batch = (usize, Vec<Sample>, Layout, u64);

/// The running helper of one job.
#[derive(Debug)]
pub struct Compressor {
    tx: mpsc::Sender<Batch>,
    handle: JoinHandle<Vec<Vec<Vec<u8>>>>,
}

/// What a log keeps to hand its batches over.
#[derive(Debug, Clone)]
pub struct Handoff {
    log: usize,
    tx: mpsc::Sender<Batch>,
}

impl Handoff {
    /// Sends a batch away, to be turned into records and deflated off
    /// the job's thread; a helper that is gone (it cannot be, before
    /// `finish`) would only lose memory savings, so that is not an error.
    pub fn send(&self, entries: Vec<Sample>, layout: Layout, epoch_ms: u64) {
        let _ = self.tx.send((self.log, entries, layout, epoch_ms));
    }
}

impl Compressor {
    /// Starts the helper for `logs` logs, on `cpus` if given.
    pub fn start(logs: usize, cpus: Option<Vec<usize>>) -> std::io::Result<Compressor> {
        let (tx, rx) = mpsc::channel::<Batch>();
        let handle = std::thread::Builder::new()
            .name("log-gz".to_string())
            .spawn(move || {
                if let Some(cpus) = cpus
                    && crate::sys::sched::set_affinity(&cpus).is_err()
                {
                    eprintln!("gz: failed to set CPU affinity");
                }
                // SAFETY: nice(2) on Linux changes only the calling thread.
                unsafe { libc::nice(1) };
                let mut chunks: Vec<Vec<Vec<u8>>> = vec![Vec::new(); logs];
                for (log, entries, layout, epoch_ms) in rx {
                    let records = layout.records(&entries, epoch_ms);
                    chunks[log].push(deflate(&records));
                }
                chunks
            })?;
        Ok(Compressor { tx, handle })
    }

    /// The sender for log number `log`.
    pub fn handoff(&self, log: usize) -> Handoff {
        Handoff {
            log,
            tx: self.tx.clone(),
        }
    }

    /// Waits for every batch sent so far and returns each log's streams,
    /// in the order their batches were sent. The logs' own senders must
    /// be gone by then.
    pub fn finish(self) -> Vec<Vec<Vec<u8>>> {
        drop(self.tx);
        self.handle.join().unwrap_or_default()
    }
}
