//! fio's `cpuio` engine: no data moves; each "I/O" keeps the CPU busy for
//! a while, and the job's think time between them is sized so that the
//! busy share of the time is `cpuload` percent. `cpumode=noop` spins for
//! `cpuchunks` microseconds; `cpumode=qsort` sorts a fixed array four
//! ways, and the think time follows how long that last took.

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use super::api::{Engine, OpenMode, OptionSource, Queued, Request};

/// How the engine burns CPU time (`cpumode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Noop,
    Qsort,
}

/// The engine's options, as the job gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuOptions {
    /// Percentage of CPU time to use, at most 100 (0 fails the job).
    pub load: u32,
    /// Microseconds of each busy period (`cpuchunks`).
    pub cycle_us: u32,
    pub mode: Mode,
    /// End the job once the run's I/O jobs are done (`exit_on_io_done`).
    pub exit_on_io_done: bool,
}

impl CpuOptions {
    /// The think time that makes `busy_us` of work `load` percent of the
    /// whole.
    pub fn think_us(&self, busy_us: u64) -> u64 {
        let load = u64::from(self.load.clamp(1, 100));
        busy_us * (100 - load) / load
    }
}

/// Number of 32-bit values qsort mode sorts (1 MiB).
const QSORT_VALUES: usize = 256 * 1024;

pub struct CpuIo {
    options: CpuOptions,
    /// qsort mode's values, made once.
    values: Vec<i32>,
    /// qsort mode's think time, from the last sort's duration.
    think: Option<Duration>,
}

/// Marsaglia's multiply-with-carry generator, with fio's seeds: the
/// values qsort mode sorts.
fn mwc_values(n: usize) -> Vec<i32> {
    let (mut w, mut z) = (521_288_629u32, 362_436_069u32);
    (0..n)
        .map(|_| {
            z = 36969u32.wrapping_mul(z & 0xffff).wrapping_add(z >> 16);
            w = 18000u32.wrapping_mul(w & 0xffff).wrapping_add(w >> 16);
            (z << 16).wrapping_add(w) as i32
        })
        .collect()
}

impl CpuIo {
    /// The engine for a job with these options; EINVAL without a load,
    /// as fio's init fails.
    pub fn new(mut options: CpuOptions) -> io::Result<Self> {
        if options.load == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "cpu thread needs rate (cpuload=)",
            ));
        }
        options.load = options.load.min(100);
        let values = match options.mode {
            Mode::Noop => Vec::new(),
            Mode::Qsort => mwc_values(QSORT_VALUES),
        };
        Ok(CpuIo {
            options,
            values,
            think: None,
        })
    }

    /// fio's line at the engine's start (on stdout).
    pub fn banner(job: &str, options: &CpuOptions) -> String {
        let mode = match options.mode {
            Mode::Noop => "noop",
            Mode::Qsort => "qsort",
        };
        format!(
            "{job} ({mode}): ioengine=cpuio, cpuload={}, cpucycle={}",
            options.load.min(100),
            options.cycle_us
        )
    }

    /// Sorts the values up, down, by their bytes, and down again, with
    /// the C library's qsort and a comparison call per step, as fio
    /// does: the same work takes the same time.
    fn sort_four_ways(&mut self) {
        let base = self.values.as_mut_ptr().cast::<libc::c_void>();
        let n = self.values.len();
        // SAFETY: each call sorts the vector's own memory in place, as
        // `n` four-byte or `4 * n` one-byte elements, with comparisons
        // that read one element of that size from each pointer.
        unsafe {
            libc::qsort(base, n, 4, Some(ascending));
            libc::qsort(base, n, 4, Some(descending));
            libc::qsort(base, n * 4, 1, Some(bytewise));
            libc::qsort(base, n, 4, Some(descending));
        }
    }
}

/// qsort's comparison of two i32 values, smaller first.
unsafe extern "C" fn ascending(a: *const libc::c_void, b: *const libc::c_void) -> libc::c_int {
    // SAFETY: qsort passes pointers to two elements of the i32 array.
    let (a, b) = unsafe { (*a.cast::<i32>(), *b.cast::<i32>()) };
    a.cmp(&b) as libc::c_int
}

/// qsort's comparison of two i32 values, larger first.
unsafe extern "C" fn descending(a: *const libc::c_void, b: *const libc::c_void) -> libc::c_int {
    // SAFETY: as for `ascending`.
    unsafe { ascending(b, a) }
}

/// qsort's comparison of two signed bytes.
unsafe extern "C" fn bytewise(a: *const libc::c_void, b: *const libc::c_void) -> libc::c_int {
    // SAFETY: qsort passes pointers to two bytes of the array.
    let (a, b) = unsafe { (*a.cast::<i8>(), *b.cast::<i8>()) };
    libc::c_int::from(a) - libc::c_int::from(b)
}

impl Engine for CpuIo {
    fn name(&self) -> &'static str {
        "cpuio"
    }

    fn open(&mut self, _path: &Path, _mode: OpenMode) -> io::Result<usize> {
        Ok(0)
    }

    unsafe fn queue(&mut self, _req: Request<'_>) -> Queued {
        match self.options.mode {
            Mode::Noop => {
                let until = Instant::now() + Duration::from_micros(self.options.cycle_us.into());
                // A long chunk (cpuchunks is up to 71 minutes) ends
                // early on a stop signal.
                while Instant::now() < until && !crate::sys::signals::stop_requested() {
                    std::hint::spin_loop();
                }
            }
            Mode::Qsort => {
                let began = Instant::now();
                self.sort_four_ways();
                let busy = began.elapsed().as_micros() as u64;
                self.think = Some(Duration::from_micros(self.options.think_us(busy)));
            }
        }
        Queued::Done(0)
    }

    /// The sleep after each busy period: sized for the load from the
    /// configured period (noop), or from the last sort's time (qsort).
    fn think_time(&self) -> Option<Duration> {
        let configured = Duration::from_micros(self.options.think_us(self.options.cycle_us.into()));
        Some(self.think.unwrap_or(configured))
    }

    no_file_data!();
}

/// cpuio's options, as the job sets them.
pub fn options(src: &OptionSource) -> CpuOptions {
    let job = src.job;
    let clamped = |name, default| job.num(name).unwrap_or(default).min(u64::from(u32::MAX)) as u32;
    CpuOptions {
        load: clamped("cpuload", 0),
        cycle_us: clamped("cpuchunks", 50_000),
        mode: match job.value("cpumode") {
            Some(crate::options::Value::Word { word: "qsort", .. }) => Mode::Qsort,
            _ => Mode::Noop,
        },
        exit_on_io_done: job.flag("exit_on_io_done"),
    }
}

/// The table's maker.
pub fn make(_: usize, options: &CpuOptions) -> io::Result<Box<dyn Engine>> {
    CpuIo::new(*options).map(|e| Box::new(e) as Box<dyn Engine>)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_time_makes_the_load() {
        let o = CpuOptions {
            load: 25,
            cycle_us: 1000,
            mode: Mode::Noop,
            exit_on_io_done: false,
        };
        assert_eq!(o.think_us(1000), 3000);
    }

    #[test]
    fn no_load_is_refused() {
        assert!(CpuIo::new(CpuOptions::default()).is_err());
    }

    #[test]
    fn four_sorts_end_descending() {
        let mut e = CpuIo::new(CpuOptions {
            load: 50,
            cycle_us: 1,
            mode: Mode::Qsort,
            exit_on_io_done: false,
        })
        .unwrap();
        e.sort_four_ways();
        assert!(e.values.windows(2).all(|w| w[0] >= w[1]));
    }
}
