//! End to end: bytes to a planned run.
//!
//! Layout: one byte of flags (bit 0: dry_run, bit 1: showcmd, bit 2: also
//! plan `/fuzz/inc.fio` as a second job file), then NUL-separated parts:
//! the job file `/fuzz/job.fio`, the file `/fuzz/inc.fio`, and up to 16
//! command-line options `name[=value]` (`section=NAME` becomes `--section`).
#![no_main]

use ferrio::jobfile::MemLoader;
use ferrio::jobfile::expand::Environment;
use ferrio::plan::{self, CmdOption, Input};
use libfuzzer_sys::fuzz_target;

fn env() -> Environment {
    let mut env = Environment {
        page_size: 4096,
        mb_memory: 16384,
        ncpus: 8,
        ..Default::default()
    };
    for (k, v) in [("BS", "4k"), ("SIZE", "1G"), ("EMPTY", ""), ("RW", "randread")] {
        env.vars.insert(k.to_string(), v.to_string());
    }
    env
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut parts = rest.split(|&b| b == 0);
    let main = parts.next().unwrap_or_default();
    let inc = parts.next().unwrap_or_default();

    let mut cmdline = Vec::new();
    let mut sections = Vec::new();
    for part in parts.take(16) {
        let text = String::from_utf8_lossy(part);
        let (name, value) = match text.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (text.to_string(), None),
        };
        if name == "section" {
            sections.push(value.unwrap_or_default());
        } else {
            cmdline.push(CmdOption { name, value });
        }
    }

    let mut loader = MemLoader::default();
    loader.0.insert("/fuzz/job.fio".into(), main.to_vec());
    loader.0.insert("/fuzz/inc.fio".into(), inc.to_vec());
    let mut files = vec!["/fuzz/job.fio".to_string()];
    if flags & 4 != 0 {
        files.push("/fuzz/inc.fio".to_string());
    }

    let input = Input {
        cmdline,
        files,
        sections,
        env: env(),
        loader: &loader,
        dry_run: flags & 1 != 0,
        showcmd: flags & 2 != 0,
        max_jobs: 4096,
    };
    match plan::plan(&input) {
        Ok(p) => {
            let _ = p.jobs().count();
        }
        Err(e) => {
            let _ = format!("{e:?}");
        }
    }
});
