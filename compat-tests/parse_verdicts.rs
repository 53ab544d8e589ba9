//! For every job file of jobs/ and of the shared public corpus, `--parse-only`
//! and `--showcmd` agree with fio 3.33: same exit status, same stdout, and
//! the same stderr lines (ferrio adds its own `ferrio:` lines after them).

mod common;

use common::{JobFile, Run, corpus, fio_part, parallel};

fn compare(file: &JobFile, mode: &str) -> Result<(), String> {
    let name = file.name();
    let want = Run::fio()
        .args([mode, &name])
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    let got = Run::ferrio()
        .args([mode, &name])
        .in_dir(file.dir())
        .envs(&file.env)
        .out();
    if want.code != got.code {
        return Err(format!(
            "exit {} vs fio {}; stderr: {}",
            got.code,
            want.code,
            got.stderr.trim()
        ));
    }
    if want.stdout != got.stdout {
        return Err(format!(
            "stdout differs:\n fio: {:?}\n us:  {:?}",
            want.stdout, got.stdout
        ));
    }
    if want.stderr != fio_part(&got.stderr) {
        return Err(format!(
            "stderr differs:\n fio: {:?}\n us:  {:?}",
            want.stderr, got.stderr
        ));
    }
    if want.code != 0 && !got.stderr.lines().any(|l| l.starts_with("ferrio: ")) {
        return Err("no ferrio explanation line on failure".to_string());
    }
    Ok(())
}

fn check_all(mode: &str) {
    let files = corpus();
    assert!(!files.is_empty());
    let results = parallel(&files, |f| compare(f, mode));
    let mut failures = 0;
    for (f, r) in files.iter().zip(&results) {
        match r {
            Ok(()) => println!("agree {mode} {}", f.path.display()),
            Err(e) => {
                failures += 1;
                println!("DIFFER {mode} {}: {e}", f.path.display());
            }
        }
    }
    println!(
        "{mode}: {}/{} files agree with fio",
        files.len() - failures,
        files.len()
    );
    assert_eq!(failures, 0, "{failures} files differ from fio under {mode}");
}

#[test]
fn parse_only_agrees_with_fio_on_every_corpus_file() {
    check_all("--parse-only");
}

#[test]
fn showcmd_agrees_with_fio_on_every_corpus_file() {
    check_all("--showcmd");
}
