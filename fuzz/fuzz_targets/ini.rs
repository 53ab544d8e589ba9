//! Arbitrary bytes as a job file. Everything after the first NUL byte
//! becomes a second file, `/fuzz/inc.fio`, so `include inc.fio` (and
//! include cycles) can be reached.
#![no_main]

use ferrio::jobfile::{self, MemLoader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (main, inc) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let mut loader = MemLoader::default();
    loader.0.insert("/fuzz/job.fio".into(), main.to_vec());
    loader.0.insert("/fuzz/inc.fio".into(), inc.to_vec());

    let all = jobfile::read(&loader, "/fuzz/job.fio", &|_| true);
    // Keeping only some sections (fio's `--section`) must not break
    // anything either. (It may read *more* sections than `all`: lines of
    // skipped sections are ignored, errors in them included.)
    let _ = jobfile::read(&loader, "/fuzz/job.fio", &|name| name.len() % 2 == 0);
    for section in &all.sections {
        for entry in &section.entries {
            let _ = entry.text();
        }
    }
    if let Some(e) = &all.error {
        let _ = e.to_string();
    }
});
