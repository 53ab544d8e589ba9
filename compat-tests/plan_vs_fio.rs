//! For every job file that both accept, ferrio's plan has the same jobs, in
//! the same order, with the same names, group ids and clone counts as the
//! jobs fio 3.33 actually runs. fio's side comes from a dry run on the
//! null engine: the file is copied with the engine switched to `null`,
//! sizes and runtimes made small and side effects (files, logs, hooks)
//! removed — none of which changes names, groups or clones.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::{JobFile, Run, corpus, ferrio_jobs, fio_jobs, parallel};

fn accepted_by_fio(file: &JobFile) -> bool {
    Run::fio()
        .args(["--parse-only", &file.name()])
        .in_dir(file.dir())
        .envs(&file.env)
        .out()
        .code
        == 0
}

enum Verdict {
    Same(usize),
    Differ(String),
    /// fio itself cannot dry-run this file here (the reason is listed).
    NotComparable(String),
}

fn compare(file: &JobFile) -> Verdict {
    if !accepted_by_fio(file) {
        return Verdict::NotComparable(
            "fio rejects the file (parse verdicts are compared elsewhere)".into(),
        );
    }
    let want = match fio_jobs(file, &[]) {
        Ok(w) => w,
        Err(e) => return Verdict::NotComparable(e),
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
    let (mut same, mut differ, mut skipped) = (0, 0, 0);
    let mut reasons: HashMap<String, usize> = HashMap::new();
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
            Verdict::NotComparable(why) => {
                skipped += 1;
                *reasons.entry(why.clone()).or_default() += 1;
                println!("n/a     {shown}: {why}");
            }
        }
    }
    println!(
        "plans: {same} same, {differ} differ, {skipped} not comparable, of {}",
        files.len()
    );
    assert_eq!(differ, 0);
    assert!(same > 0);
}
