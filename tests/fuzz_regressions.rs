//! Inputs found by the cargo-fuzz targets in `fuzz/` that once made
//! ferrio panic. Each test feeds the minimised input through the same API
//! as its fuzz target and asserts what fio 3.33 says of it: the value, or
//! the refusal with fio's own lines, compared with fio on the same input
//! through `--parse-only`. scripts/test also runs these in the test
//! profile, with overflow checks on, so a reverted checked sum panics.

use std::process::Command;

use ferrio::options::{self, ParseContext, Parsed, value};

/// What `--parse-only` prints and returns: (status, stdout, stderr without
/// ferrio's own explanation lines).
fn parse_only(program: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("timeout")
        .args(["-k", "5", "60", program, "--parse-only"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.starts_with("ferrio: "))
        .map(|l| format!("{l}\n"))
        .collect();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// fio 3.33 and ferrio agree on `args`; returns fio's (status, stderr).
fn agree_with_fio(args: &[&str]) -> (i32, String) {
    let version = Command::new("fio").arg("--version").output();
    let found = version.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    assert_eq!(
        found.ok().as_deref(),
        Some("fio-3.33"),
        "fio 3.33 is needed for these tests"
    );
    let want = parse_only("fio", args);
    let got = parse_only(env!("CARGO_BIN_EXE_ferrio"), args);
    assert_eq!(got, want, "ferrio vs fio on {args:?}");
    (want.0, want.2)
}

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
fn parse_value(name: &str, flags: u8, text: &[u8]) -> Parsed {
    let def = options::find(name).unwrap_or_else(|| panic!("no option {name}"));
    let ctx = value_ctx(flags);
    let text = String::from_utf8_lossy(text);
    let with_text = value::parse(def, Some(&text), &ctx);
    let _ = value::parse(def, None, &ctx);
    with_text
}

/// fuzz target `value`, input
/// `b"\x1f\x00\x002/1TTT:8k/-010:k"` (option index 31 = `bssplit`,
/// kb_base 1024): the percentages 1T and -10 (read as 2^64-10) overflowed
/// the sum in `options::check::bssplit`.
#[test]
fn value_bssplit_percentage_sum_overflow() {
    let parsed = parse_value("bssplit", 0x00, b"2/1TTT:8k/-010:k");
    assert!(parsed.value.is_none());
    assert_eq!(parsed.messages[0], "fio: split conversion failed");
    let (code, stderr) = agree_with_fio(&["--name=j", "--bssplit=2/1TTT:8k/-010:k"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("fio: split conversion failed\n"),
        "{stderr}"
    );
}

/// Same overflow, written by hand: `-1` reads as u64::MAX.
#[test]
fn value_bssplit_negative_percentage() {
    // fio reads the share like atoi, caps it at 100 and accepts the split.
    let parsed = parse_value("bssplit", 0x00, b"4k/-1:4k/2");
    assert!(parsed.value.is_some(), "{:?}", parsed.messages);
    assert_eq!(
        agree_with_fio(&["--name=j", "--bssplit=4k/-1:4k/2"]),
        (0, String::new())
    );
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
    for text in [
        "zoned:18446744073709551615/1:1/99",
        "zoned_abs:18446744073709551615/1:1/99",
    ] {
        let parsed = parse_value("random_distribution", 0x00, text.as_bytes());
        assert!(parsed.value.is_none(), "{text}");
        assert_eq!(parsed.messages[0], "fio: split conversion failed", "{text}");
        let option = format!("--random_distribution={text}");
        let (code, stderr) = agree_with_fio(&["--name=j", &option]);
        assert_eq!(code, 1);
        assert!(
            stderr.starts_with("fio: split conversion failed\n"),
            "{stderr}"
        );
    }
}

/// fuzz target `expr`: `(-2)^127` is `i128::MIN`; dividing it by -1, taking
/// its remainder by -1, or negating it overflowed in `expand::evaluate`.
#[test]
fn expr_i128_min_overflows() {
    // bc has no limit: 2^127 is a value, too large for size= only, so fio
    // says no more than that it failed parsing it; -2^127 % -1 is 0.
    for (text, value) in [
        ("-2^127/-1", None),
        ("-2^127%-1", Some(0)),
        ("-(-2^127)", None),
    ] {
        let computed = expand::evaluate(text);
        match value {
            Some(v) => assert_eq!(computed, Ok(v), "{text}"),
            None => assert!(computed.is_err_and(|e| e.is_too_large()), "{text}"),
        }
        let line = expand::replace_keywords(&format!("size=$ncpus*0+{text}"), &fuzz_env());
        assert_eq!(line.is_ok(), value.is_some(), "{text}");
        let job = std::env::temp_dir().join(format!("ferrio-expr-{}.fio", std::process::id()));
        std::fs::write(&job, format!("[j]\nsize=$ncpus*0+{text}\n")).unwrap();
        let (code, stderr) = agree_with_fio(&[job.to_str().unwrap()]);
        let _ = std::fs::remove_file(&job);
        assert_eq!(
            code,
            if value.is_some() { 0 } else { 1 },
            "{text}: {stderr}"
        );
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
    let planned = plan::plan(&input);
    assert!(planned.is_err(), "fio drops the job");
    let job = std::env::temp_dir().join(format!("ferrio-plan-{}.fio", std::process::id()));
    std::fs::write(&job, "[j]\nsize=$ncpus*0+-2^127/-1\n").unwrap();
    let (code, stderr) = agree_with_fio(&[job.to_str().unwrap()]);
    let _ = std::fs::remove_file(&job);
    assert_eq!(code, 1);
    assert!(stderr.ends_with("fio: job j dropped\n"), "{stderr}");
}
