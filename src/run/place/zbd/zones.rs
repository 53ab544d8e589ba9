//! The zones of one file, shared by every job that names the file: each
//! zone's write pointer, and the zones open for writing under
//! max_open_zones.

/// fio's own cap on open zones (its open zone array's size).
pub(super) const MAX_OPEN_ZONES: usize = 4096;

#[derive(Debug, Clone, Copy)]
pub(super) struct Zone {
    pub(super) start: u64,
    pub(super) wp: u64,
    pub(super) capacity: u64,
    pub(super) open: bool,
    /// Reset before the next write (zone_reset_frequency's choice).
    pub(super) reset_next: bool,
}

impl Zone {
    pub(super) fn capacity_end(&self) -> u64 {
        self.start + self.capacity
    }

    /// Whether fewer than `need` bytes are left below the capacity.
    pub(super) fn full(&self, need: u64) -> bool {
        self.wp + need > self.capacity_end()
    }
}

#[derive(Debug)]
pub(super) struct ZoneTable {
    pub(super) zone_size: u64,
    /// The zones and, last, a sentinel that only marks the end.
    pub(super) zones: Vec<Zone>,
    pub(super) max_open: u32,
    /// The open zones' indexes in their first `open_count` slots. Like
    /// fio's fixed array, a slot past the count keeps what was last
    /// there, which fio may still read when no zone is open.
    pub(super) open: Vec<u32>,
    pub(super) open_count: u32,
    /// Bytes below the write pointers, over all zones.
    pub(super) with_data: u64,
    /// Writes left until the next zone_reset_frequency reset.
    pub(super) write_cnt: u32,
}

impl ZoneTable {
    pub(super) fn zone_count(&self) -> u32 {
        (self.zones.len() - 1) as u32
    }

    pub(super) fn index(&self, offset: u64) -> u32 {
        ((offset / self.zone_size).min(u64::from(self.zone_count()))) as u32
    }

    pub(super) fn close(&mut self, z: u32, job_open: &mut u32) {
        if !self.zones[z as usize].open {
            return;
        }
        let count = self.open_count as usize;
        let Some(at) = self.open[..count].iter().position(|&o| o == z) else {
            return;
        };
        // fio shifts the rest of its whole array down by one.
        self.open.copy_within(at + 1.., at);
        self.open_count -= 1;
        *job_open = job_open.saturating_sub(1);
        self.zones[z as usize].open = false;
    }

    /// Empties a zone; a zone with nothing written is left as it is and
    /// not counted.
    pub(super) fn reset(&mut self, z: u32, resets: &mut u64) {
        let zone = &mut self.zones[z as usize];
        let data = zone.wp - zone.start;
        if data == 0 {
            return;
        }
        self.with_data = self.with_data.saturating_sub(data);
        zone.wp = zone.start;
        *resets += 1;
    }

    pub(super) fn reset_write_cnt(&mut self, frequency: f64) {
        self.write_cnt = if frequency > 0.0 {
            (1.0 / frequency).min(f64::from(u32::MAX)) as u32
        } else {
            u32::MAX
        };
    }
}
