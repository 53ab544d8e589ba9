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

// The inputs below were not reached by the 10-minute fuzz runs; they were
// written by hand after reading the code and confirmed to panic in the
// fuzz targets' builds (overflow checks on), so they are kept here too.

use ferrio::jobfile::MemLoader;
use ferrio::jobfile::expand::{self, Environment};
use ferrio::plan::{self, Input};

fn fuzz_env() -> Environment {
    Environment {
        page_size: 4096,
        mb_memory: 16384,
        ncpus: 8,
        ..Default::default()
    }
}

/// fuzz target `value`, input `b"\x27\x00\x00zoned:18446744073709551615/1:1/99"`
/// (option `random_distribution`): the zone percentages overflowed their
/// sum in `options::check::zoned`.
#[test]
fn value_zoned_percentage_sum_overflow() {
    parse_value(
        "random_distribution",
        0x00,
        b"zoned:18446744073709551615/1:1/99",
    );
    parse_value(
        "random_distribution",
        0x00,
        b"zoned_abs:18446744073709551615/1:1/99",
    );
}

/// fuzz target `expr`: `(-2)^127` is `i128::MIN`; dividing it by -1, taking
/// its remainder by -1, or negating it overflowed in `expand::evaluate`.
#[test]
fn expr_i128_min_overflows() {
    for text in ["-2^127/-1", "-2^127%-1", "-(-2^127)"] {
        let _ = expand::evaluate(text);
        let _ = expand::replace_keywords(&format!("size=$ncpus*0+{text}"), &fuzz_env());
    }
}

/// fuzz target `plan`, input `b"\x00[j]\nsize=$ncpus*0+-2^127/-1\n"`: the
/// same overflow reached through a job file.
#[test]
fn plan_keyword_arithmetic_overflow() {
    let mut loader = MemLoader::default();
    loader.0.insert(
        "/fuzz/job.fio".into(),
        b"[j]\nsize=$ncpus*0+-2^127/-1\n".to_vec(),
    );
    loader.0.insert("/fuzz/inc.fio".into(), Vec::new());
    let input = Input {
        cmdline: Vec::new(),
        files: vec!["/fuzz/job.fio".to_string()],
        sections: Vec::new(),
        env: fuzz_env(),
        loader: &loader,
        dry_run: false,
        showcmd: false,
        max_jobs: 4096,
    };
    let _ = plan::plan(&input).map(|p| p.jobs().count());
}
