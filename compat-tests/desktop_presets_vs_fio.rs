//! The desktop benchmark job files (jobs/desktop/: CrystalDiskMark-, HD
//! Tune- and dd-style) run under fio 3.33 and under ferrio on a small
//! scratch file: the same jobs in the same groups, each with the same
//! I/O counts and bytes, and HD Tune's samples at the same offsets.

mod common;

use std::path::Path;

use common::{JobFile, Run, Scratch, corpus, ios_and_bytes};

/// The job file `name` of jobs/desktop/ with its sidecar environment.
fn desktop(name: &str) -> JobFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("jobs/desktop")
        .join(name);
    corpus()
        .into_iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{} is not in the corpus", path.display()))
}

/// (job name, group, [(ios, bytes); 3]) of one job of a report.
type Counts = (String, u64, [(u64, u64); 3]);

/// The [`Counts`] of each job a JSON report holds.
fn counts(report: &serde_json::Value) -> Vec<Counts> {
    report["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
                ios_and_bytes(j),
            )
        })
        .collect()
}

/// The offsets of the I/Os in a `log_offset=1` latency log, in order.
fn offsets(log: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(log).unwrap();
    common::lat_log_ios(&text)
        .into_iter()
        .map(|(_, _, offset)| offset)
        .collect()
}

/// Runs `file` under both tools, each in a scratch folder of its own with
/// its target there; returns both reports and folders.
fn run_both(file: &JobFile) -> (serde_json::Value, serde_json::Value, Scratch, Scratch) {
    let dirs = (Scratch::new("desktop-fio"), Scratch::new("desktop-ferrio"));
    let mut reports = Vec::new();
    for (run, dir) in [(Run::fio(), &dirs.0), (Run::ferrio(), &dirs.1)] {
        let mut run = run.in_dir(&dir.0).envs(&file.env);
        run = run
            .env(
                "FERRIO_TARGET",
                dir.0.join("target.dat").display().to_string(),
            )
            .arg("--output-format=json")
            .arg(file.path.display().to_string());
        reports.push(run.json());
    }
    let ferrio = reports.pop().unwrap();
    let fio = reports.pop().unwrap();
    (fio, ferrio, dirs.0, dirs.1)
}

#[test]
fn each_desktop_job_file_runs_alike_under_fio_and_ferrio() {
    let names = [
        "crystaldiskmark.fio",
        "dd-direct.fio",
        "dd-cached.fio",
        "dd-fdatasync.fio",
        "hdtune.fio",
    ];
    for name in names {
        let file = desktop(name);
        let (fio, ferrio, fio_dir, ferrio_dir) = run_both(&file);
        let want = counts(&fio);
        assert!(!want.is_empty(), "{name}: fio ran no job");
        assert_eq!(counts(&ferrio), want, "{name}");
        let log = "hdtune_clat.1.log";
        if name == "hdtune.fio" {
            let want = offsets(&fio_dir.0.join(log));
            // 8 samples of 128 KiB (two 64 KiB reads each), 512 KiB apart.
            let expected: Vec<u64> = (0..8u64)
                .flat_map(|i| [i << 19, (i << 19) + (64 << 10)])
                .collect();
            assert_eq!(want, expected, "fio's samples");
            assert_eq!(offsets(&ferrio_dir.0.join(log)), want, "{name}");
        }
    }
}

#[test]
fn the_crystaldiskmark_file_holds_its_eight_tests_of_five_passes() {
    let file = desktop("crystaldiskmark.fio");
    let (fio, _, _, _) = run_both(&file);
    let jobs = counts(&fio);
    assert_eq!(jobs.len(), 40);
    // Every pass is a group of its own, reads first, then writes.
    let groups: Vec<u64> = jobs.iter().map(|j| j.1).collect();
    assert_eq!(groups, (0..40).collect::<Vec<u64>>());
    let tests = ["seq1m-q8t1", "seq1m-q1t1", "rnd4k-q32t1", "rnd4k-q1t1"];
    for (i, (name, _, ios)) in jobs.iter().enumerate() {
        let dir = if i < 20 { "read" } else { "write" };
        let test = tests[(i % 20) / 5];
        assert_eq!(name, &format!("{test}-{dir}-{}", i % 5 + 1));
        // The whole 1 MiB test file in each pass: 1 MiB or 4 KiB blocks.
        let per = if test.starts_with("seq") { 1 } else { 256 };
        let at = usize::from(dir == "write");
        assert_eq!(ios[at], (per, 1 << 20), "{name}");
    }
}
