//! fio's built-in speed tests, `--crctest` and `--memcpytest`: the same
//! selection rules, lines and exit statuses as fio's, with ferrio's own
//! routines measured.

pub mod crc;
pub mod memcpy;

use std::time::{Duration, Instant};

/// How the comma list given to a test selects from the test's names, as
/// fio reads it: no list means every name, `help` or `list` asks for the
/// names, and otherwise the names it knows are kept (the others dropped
/// without a word) in the test's own order.
enum Selection {
    All,
    List,
    Some(Vec<&'static str>),
    Nothing,
}

fn select(list: Option<&str>, names: &[&'static str]) -> Selection {
    match list {
        None => Selection::All,
        Some("help" | "list") => Selection::List,
        Some(list) => {
            let asked: Vec<&str> = list.split(',').collect();
            let picked: Vec<&'static str> = names
                .iter()
                .copied()
                .filter(|n| asked.contains(n))
                .collect();
            if picked.is_empty() {
                Selection::Nothing
            } else {
                Selection::Some(picked)
            }
        }
    }
}

/// The names, one a line on stdout; fio exits 1 after listing them.
fn list(names: &[&str]) -> i32 {
    let mut text = String::new();
    for name in names {
        text += name;
        text.push('\n');
    }
    print!("{text}");
    1
}

/// fio's answer to a list that names none of its tests.
fn unknown(list: &str, names: &[&str]) -> i32 {
    eprintln!("fio: unknown hash `{list}`. Available:");
    self::list(names)
}

/// Keeps the CPU busy for a while before the first measurement, so that
/// a core in a low-power state does not make the first figure low.
fn spin_up() {
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(100) {
        std::hint::spin_loop();
    }
}

/// The rate fio prints: `bytes` over the whole microseconds `took`, in
/// MiB/s; `None` where fio prints `inf` (under a microsecond).
fn mib_per_sec(bytes: u64, took: Duration) -> Option<f64> {
    let usec = took.as_micros();
    (usec > 0).then(|| bytes as f64 / usec as f64 / (1.024 * 1.024))
}

/// A repeatable buffer of noise to checksum or copy.
fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x8989;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}
