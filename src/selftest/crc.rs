//! `--crctest[=LIST]`: how fast each checksum goes over a 128 KiB buffer
//! checksummed 2048 times, one line per checksum in fio's order.
//!
//! ferrio measures the checksums its verify uses (and fio's jhash, which
//! it has for file placement); fio's murmur3 and fnv are not in ferrio.
//! Asked for by name, those are refused; with no list they are skipped,
//! and stderr says so.

use std::hint::black_box;
use std::time::Instant;

use super::Selection;
use crate::verify::checksum::Checksum;

/// fio 3.33's checksum tests, in the order it runs and lists them.
const FIO_NAMES: &[&str] = &[
    "md5", "crc64", "crc32", "crc32c", "crc16", "crc7", "sha1", "sha256", "sha512", "xxhash",
    "murmur3", "jhash", "fnv", "sha3-224", "sha3-256", "sha3-384", "sha3-512",
];

const CHUNK: usize = 128 * 1024;
const ROUNDS: usize = 2048;

/// The routine ferrio has for one of fio's test names.
enum Routine {
    Verify(Checksum),
    Jhash,
    /// fio's verify=sha512 stores data rather than a hash (which ferrio's
    /// verify reproduces), but its test times the real SHA-512.
    Sha512,
}

fn routine(name: &str) -> Option<Routine> {
    match name {
        "jhash" => Some(Routine::Jhash),
        "sha512" => Some(Routine::Sha512),
        _ => Checksum::from_word(name).map(Routine::Verify),
    }
}

impl Routine {
    /// One test: the whole buffer, `ROUNDS` times.
    fn run(&self, buf: &[u8]) {
        match self {
            Routine::Verify(c) => {
                let mut field = [0u8; 128];
                for _ in 0..ROUNDS {
                    c.fill(black_box(buf), &mut field[..c.field_len()]);
                    black_box(&field);
                }
            }
            Routine::Jhash => {
                for _ in 0..ROUNDS {
                    black_box(crate::run::place::distribution::jhash(black_box(buf)));
                }
            }
            Routine::Sha512 => {
                use sha2::Digest;
                for _ in 0..ROUNDS {
                    black_box(sha2::Sha512::digest(black_box(buf)));
                }
            }
        }
    }
}

/// Runs the test for `list` (None: all); returns fio's exit status.
pub fn run(list: Option<&str>) -> i32 {
    let names = match super::select(list, FIO_NAMES) {
        Selection::List => return super::list(FIO_NAMES),
        Selection::Nothing => return super::unknown(list.unwrap_or_default(), FIO_NAMES),
        Selection::All => {
            let missing: Vec<&str> = FIO_NAMES
                .iter()
                .copied()
                .filter(|n| routine(n).is_none())
                .collect();
            eprintln!(
                "ferrio: --crctest: skipping {} (fio's, not implemented in ferrio)",
                missing.join(", ")
            );
            FIO_NAMES.to_vec()
        }
        Selection::Some(names) => {
            if let Some(name) = names.iter().find(|n| routine(n).is_none()) {
                eprintln!(
                    "ferrio: --crctest: {name} is one of fio's checksums that ferrio does not implement"
                );
                return 1;
            }
            names
        }
    };
    let buf = super::noise(CHUNK);
    let mut first = true;
    for name in names {
        let Some(routine) = routine(name) else {
            continue;
        };
        if first {
            super::spin_up();
            routine.run(&buf);
            first = false;
        }
        let start = Instant::now();
        routine.run(&buf);
        let line = match super::mib_per_sec((CHUNK * ROUNDS) as u64, start.elapsed()) {
            // fio lines up the figures with tabs after the name.
            Some(rate) => {
                let tabs = if name.len() >= 7 { "\t" } else { "\t\t" };
                format!("{name}:{tabs}{rate:8.2} MiB/sec")
            }
            None => format!("{name}:inf MiB/sec"),
        };
        println!("{line}");
    }
    0
}
