//! fio's `null` engine: every I/O succeeds at once without touching data.
//! With a queue depth above one, I/Os are held until committed and then
//! reaped. As in fio, one committed batch is in flight at a time: the
//! engine is busy until it is reaped, so `iodepth=32` with the default
//! `iodepth_batch=1` runs at depth 1, and `iodepth_batch=32` at 32.

use std::io;
use std::path::Path;

use super::api::{Completion, Engine, OpenMode, Queued, Request};

pub struct Null {
    depth: usize,
    /// Slots queued but not yet committed, then in flight.
    queued: Vec<(usize, i64)>,
    in_flight: Vec<(usize, i64)>,
}

impl Null {
    /// An engine for `depth` I/Os; a depth whose lists cannot be had is
    /// an ENOMEM for the job, not an abort.
    pub fn new(depth: usize) -> io::Result<Self> {
        let no_memory = |_| io::Error::from_raw_os_error(libc::ENOMEM);
        let (mut queued, mut in_flight) = (Vec::new(), Vec::new());
        queued.try_reserve_exact(depth).map_err(no_memory)?;
        in_flight.try_reserve_exact(depth).map_err(no_memory)?;
        Ok(Null {
            depth,
            queued,
            in_flight,
        })
    }
}

impl Engine for Null {
    fn name(&self) -> &'static str {
        "null"
    }

    fn open(&mut self, _path: &Path, _mode: OpenMode) -> io::Result<usize> {
        Ok(0)
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
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

    fn busy(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// Like fio's null engine, returns the whole committed batch whatever
    /// the maximum asked for.
    fn reap(&mut self, min: usize, _max: usize, done: &mut Vec<Completion>) -> io::Result<()> {
        if min == 0 {
            return Ok(());
        }
        done.extend(
            self.in_flight
                .drain(..)
                .map(|(slot, result)| Completion { slot, result }),
        );
        Ok(())
    }
}

/// The table's maker.
pub fn make(depth: usize) -> io::Result<Box<dyn Engine>> {
    Ok(Box::new(Null::new(depth)?))
}
