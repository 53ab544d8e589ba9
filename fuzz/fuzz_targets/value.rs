//! One option's value text through the value parser.
//!
//! Layout: two bytes (little endian) pick the option, one byte of flags
//! (bit 0: kb_base 1000 instead of 1024, bit 1: dry_run, bits 2..: ncpus
//! minus one), then the value text (UTF-8, lossy).
#![no_main]

use ferrio::options::table::OPTIONS;
use ferrio::options::value::{self, ParseContext};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 || OPTIONS.is_empty() {
        return;
    }
    let index = u16::from_le_bytes([data[0], data[1]]) as usize % OPTIONS.len();
    let def = &OPTIONS[index];
    let flags = data[2];
    let ctx = ParseContext {
        kb_base: if flags & 1 != 0 { 1000 } else { 1024 },
        dry_run: flags & 2 != 0,
        ncpus: u64::from(flags >> 2) + 1,
        previous: [0; 3],
    };
    let text = String::from_utf8_lossy(&data[3..]);

    let parsed = value::parse(def, Some(&text), &ctx);
    let _ = format!("{parsed:?}");
    let parsed = value::parse(def, None, &ctx);
    let _ = format!("{parsed:?}");
});
