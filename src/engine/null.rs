//! fio's `null` engine: every I/O succeeds at once without touching data.
//! With a queue depth above one, I/Os are held until committed and then
//! reaped, so the queue-depth machinery is exercised as with real devices.

use std::io;
use std::path::Path;

use super::{Completion, Engine, OpenMode, Queued, Request};

pub struct Null {
    depth: usize,
    /// Slots queued but not yet committed, then in flight.
    queued: Vec<(usize, i64)>,
    in_flight: Vec<(usize, i64)>,
}

impl Null {
    pub fn new(depth: usize) -> Self {
        Null {
            depth,
            queued: Vec::with_capacity(depth),
            in_flight: Vec::with_capacity(depth),
        }
    }
}

impl Engine for Null {
    fn name(&self) -> &'static str {
        "null"
    }

    fn open(&mut self, _path: &Path, _mode: OpenMode) -> io::Result<usize> {
        Ok(0)
    }

    fn queue(&mut self, req: Request<'_>) -> Queued {
        let len = req.buf.len() as i64;
        if self.depth <= 1 {
            return Queued::Done(len);
        }
        self.queued.push((req.slot, len));
        Queued::Pending
    }

    fn sync(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Ok(())
    }

    fn commit(&mut self) -> io::Result<()> {
        self.in_flight.append(&mut self.queued);
        Ok(())
    }

    fn reap(&mut self, _min: usize, max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        let n = max.min(self.in_flight.len());
        done.extend(
            self.in_flight
                .drain(..n)
                .map(|(slot, result)| Completion { slot, result }),
        );
        Ok(())
    }
}
