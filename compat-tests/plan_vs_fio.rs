//! For every job file that both accept, ferrio's plan has the same jobs, in
//! the same order, with the same names, group ids and clone counts as the
//! jobs fio 3.33 actually runs. fio's side comes from a dry run on the
//! null engine: the file is copied with the engine switched to `null`,
//! sizes and runtimes made small and side effects (files, logs, hooks)
//! removed — none of which changes names, groups or clones.

mod common;

use std::path::Path;

use common::{JobFile, Run, corpus, ferrio_jobs, fio_jobs, parallel};

enum Verdict {
    Same(usize),
    Differ(String),
    /// fio rejects the file because it cannot load its external engine
    /// here (the engine named): nothing to dry-run.
    NoEngine(String),
}

/// The external engines of the shared corpus that fio 3.33 cannot load
/// on this machine: Ceph's objectstore, messenger and rados engines, which
/// Ceph builds from its own source tree (`libfio_ceph_*.so`) and Debian
/// does not ship. They are the only files fio rejects: ceph/ceph-bluestore,
/// ceph/ceph-messenger and ceph/ceph-rados, three of the 86 files (none
/// in jobs/). Any other file not compared is a failure.
const UNLOADABLE: &[&str] = &[
    "libfio_ceph_objectstore.so",
    "libfio_ceph_messenger.so",
    "libfio_ceph_rados.so",
];

/// fio's verdict on the file, and why it rejects it.
fn fio_parse(file: &JobFile) -> common::Outcome {
    Run::fio()
        .args(["--parse-only", &file.name()])
        .in_dir(file.dir())
        .envs(&file.env)
        .out()
}

fn compare(file: &JobFile) -> Verdict {
    let parsed = fio_parse(file);
    if parsed.code != 0 {
        let unloadable = UNLOADABLE.iter().find(|engine| {
            parsed
                .stderr
                .contains(&format!("fio: engine {engine} not loadable"))
        });
        return match unloadable {
            Some(engine) => Verdict::NoEngine((*engine).to_string()),
            None => Verdict::Differ(format!(
                "fio rejects the file, for another reason than an engine it cannot load: {}",
                parsed.stderr
            )),
        };
    }
    let want = match fio_jobs(file, &[]) {
        Ok(w) => w,
        Err(e) => {
            return Verdict::Differ(format!("fio accepts the file but its dry run failed: {e}"));
        }
    };
    match ferrio_jobs(file, &[]) {
        Ok(got) if got == want => Verdict::Same(got.len()),
        Ok(got) => Verdict::Differ(format!("fio {want:?}\n  ferrio {got:?}")),
        Err(e) => Verdict::Differ(e),
    }
}

#[test]
fn planned_jobs_groups_and_clones_match_fio() {
    let files = corpus();
    let verdicts = parallel(&files, compare);
    let (mut same, mut differ, mut no_engine) = (0, 0, 0);
    for (f, v) in files.iter().zip(&verdicts) {
        let shown = f
            .path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")))
            .unwrap_or(&f.path)
            .display();
        match v {
            Verdict::Same(n) => {
                same += 1;
                println!("same    {shown} ({n} jobs)");
            }
            Verdict::Differ(e) => {
                differ += 1;
                println!("DIFFER  {shown}\n  {e}");
            }
            Verdict::NoEngine(engine) => {
                no_engine += 1;
                println!("n/a     {shown}: fio cannot load {engine} here");
            }
        }
    }
    println!(
        "plans: {same} same, {differ} differ, {no_engine} with an engine fio cannot load, of {}",
        files.len()
    );
    assert_eq!(differ, 0);
    // One file per engine fio cannot load, at most: the corpus has one
    // of each.
    assert!(
        no_engine <= UNLOADABLE.len(),
        "{no_engine} files not compared"
    );
    assert_eq!(same + no_engine, files.len());
    assert!(same > 0);
}
