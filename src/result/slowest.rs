//! The slowest I/Os of a job and where they went (ferrio's own report):
//! a tail percentile says how slow, these say which blocks, and on rbd
//! or rados which RADOS object, so that one slow OSD or object shows.
//!
//! Keeping them costs one comparison per I/O: an I/O faster than the
//! slowest few seen so far is never looked at again.

/// How many of the slowest I/Os a job keeps.
pub const KEPT: usize = 8;

/// One slow I/O.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowIo {
    /// Total latency when measured, else completion latency.
    pub lat_ns: u64,
    pub dir: usize,
    /// The job's file index until the job ends; then its name.
    pub file: usize,
    pub file_name: String,
    pub offset: u64,
    pub bytes: u64,
    /// The RADOS object the I/O went to (rbd and rados jobs).
    pub object: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slowest {
    /// Slowest first, at most [`KEPT`].
    ios: Vec<SlowIo>,
    /// An I/O must be slower than this to be kept.
    floor: u64,
}

impl Default for Slowest {
    fn default() -> Self {
        Slowest {
            ios: Vec::with_capacity(KEPT + 1),
            floor: 0,
        }
    }
}

impl Slowest {
    #[inline]
    pub fn offer(&mut self, lat_ns: u64, dir: usize, file: usize, offset: u64, bytes: u64) {
        if lat_ns > self.floor || self.ios.len() < KEPT {
            self.keep(SlowIo {
                lat_ns,
                dir,
                file,
                file_name: String::new(),
                offset,
                bytes,
                object: None,
            });
        }
    }

    #[cold]
    fn keep(&mut self, io: SlowIo) {
        let at = self.ios.partition_point(|k| k.lat_ns >= io.lat_ns);
        self.ios.insert(at, io);
        self.ios.truncate(KEPT);
        if self.ios.len() == KEPT {
            self.floor = self.ios[KEPT - 1].lat_ns;
        }
    }

    /// Names each kept I/O's file and object, once the job is over.
    pub fn name(&mut self, name: impl Fn(usize, u64) -> (String, Option<String>)) {
        for io in &mut self.ios {
            (io.file_name, io.object) = name(io.file, io.offset);
        }
    }

    /// Adds another job's (group_reporting).
    pub fn absorb(&mut self, other: &Slowest) {
        for io in &other.ios {
            if io.lat_ns > self.floor || self.ios.len() < KEPT {
                self.keep(io.clone());
            }
        }
    }

    pub fn ios(&self) -> &[SlowIo] {
        &self.ios
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_slowest_in_order() {
        let mut s = Slowest::default();
        for (i, lat) in [5u64, 90, 7, 30, 1, 60, 2, 80, 3, 70, 4, 10]
            .iter()
            .enumerate()
        {
            s.offer(*lat, 1, 0, i as u64 * 4096, 4096);
        }
        let lats: Vec<u64> = s.ios().iter().map(|i| i.lat_ns).collect();
        assert_eq!(lats, [90, 80, 70, 60, 30, 10, 7, 5]);
        assert_eq!(s.ios()[0].offset, 4096);
        let mut t = Slowest::default();
        t.offer(75, 0, 1, 0, 512);
        s.absorb(&t);
        let lats: Vec<u64> = s.ios().iter().map(|i| i.lat_ns).collect();
        assert_eq!(lats, [90, 80, 75, 70, 60, 30, 10, 7]);
        s.name(|f, o| (format!("f{f}"), Some(format!("obj{}", o >> 12))));
        assert_eq!(s.ios()[0].object.as_deref(), Some("obj1"));
        assert_eq!(s.ios()[2].file_name, "f1");
    }
}
