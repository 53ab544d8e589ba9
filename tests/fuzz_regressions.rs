//! Inputs found by the cargo-fuzz targets in `fuzz/` that once made
//! ferrio panic. Each test feeds the minimised input through the same API
//! as its fuzz target and only checks that the call returns.

use ferrio::options::{self, ParseContext, value};

/// Decodes the `value` fuzz target's flag byte (see
/// `fuzz/fuzz_targets/value.rs`).
fn value_ctx(flags: u8) -> ParseContext {
    ParseContext {
        kb_base: if flags & 1 != 0 { 1000 } else { 1024 },
        dry_run: flags & 2 != 0,
        ncpus: u64::from(flags >> 2) + 1,
        previous: [0; 3],
    }
}

/// Parses `text` for option `name` as the `value` target does: with the
/// text and without one. The option is looked up by name rather than by the
/// target's table index so that the test survives table changes.
fn parse_value(name: &str, flags: u8, text: &[u8]) {
    let def = options::find(name).unwrap_or_else(|| panic!("no option {name}"));
    let ctx = value_ctx(flags);
    let text = String::from_utf8_lossy(text);
    let with_text = value::parse(def, Some(&text), &ctx);
    let without = value::parse(def, None, &ctx);
    // Reaching here is the test; the results are whatever fio would say.
    let _ = format!("{with_text:?} {without:?}");
}

/// fuzz target `value`, input
/// `b"\x1f\x00\x002/1TTT:8k/-010:k"` (option index 31 = `bssplit`,
/// kb_base 1024): the percentages 1T and -10 (read as 2^64-10) overflowed
/// the sum in `options::check::bssplit`.
#[test]
fn value_bssplit_percentage_sum_overflow() {
    parse_value("bssplit", 0x00, b"2/1TTT:8k/-010:k");
}

/// Same overflow, written by hand: `-1` reads as u64::MAX.
#[test]
fn value_bssplit_negative_percentage() {
    parse_value("bssplit", 0x00, b"4k/-1:4k/2");
}
