//! --readonly and the mounted-device guard, where ferrio is safer than
//! fio 3.33 at no cost to scripts (issue 17 item 12): fio deletes files
//! under --readonly (unlink, unlink_each_loop, filedelete), starts laying
//! out a missing file before it refuses, and lets a write through to a
//! mounted device named by a symbolic link or a path with `..`.

mod common;

use std::path::{Path, PathBuf};

use common::mounted::MountedLoop;
use common::{Run, Scratch};

/// A small file of 64 KiB in `dir`, the file the jobs name.
fn data_file(dir: &Scratch) -> PathBuf {
    dir.write("f", &"x".repeat(64 << 10))
}

#[test]
fn readonly_refuses_what_would_delete_create_or_lay_out_files() {
    let base = [
        "--readonly",
        "--name=j",
        "--filename=f",
        "--rw=read",
        "--size=64k",
    ];
    // (options, ferrio's reason, fio's exit status)
    let cases: [(&[&str], &str, i32); 5] = [
        (&["--unlink=1"], "unlink=1 deletes its files", 0),
        // fio deletes the file after the first loop, then fails to open it.
        (
            &["--unlink_each_loop=1", "--loops=2"],
            "unlink_each_loop=1 deletes its files",
            1,
        ),
        (
            &["--ioengine=filedelete"],
            "ioengine=filedelete changes its files (creates, deletes or allocates them)",
            0,
        ),
        (
            &["--ioengine=falloc"],
            "ioengine=falloc changes its files (creates, deletes or allocates them)",
            0,
        ),
        (
            &["--size=128k"],
            "its file f is missing or shorter than the 131072 bytes it uses, so it would be laid out (written) first",
            1,
        ),
    ];
    for (extra, why, fio_code) in cases {
        let lays_out = extra.contains(&"--size=128k");
        let (fio_dir, ferrio_dir) = (Scratch::new("ro-fio"), Scratch::new("ro-ferrio"));
        let (f1, f2) = (data_file(&fio_dir), data_file(&ferrio_dir));
        let run = Run::new().args(base).args(extra);
        let (want, got) = run.both_at(&fio_dir.0, &ferrio_dir.0);
        // What fio does with the same input, measured: it goes on and
        // changes the file, or refuses only after it began.
        let fio_changed = std::fs::metadata(&f1).map(|m| m.len()).ok() != Some(64 << 10);
        assert_eq!(want.code, fio_code, "fio {extra:?}: {}", want.stderr);
        if lays_out {
            assert!(
                want.stderr
                    .contains("fio: refusing extend of file due to read-only")
            );
        }
        let deletes = extra
            .iter()
            .any(|e| e.contains("unlink") || e.contains("filedelete"));
        assert_eq!(
            fio_changed, deletes,
            "fio {extra:?}: the file after the run"
        );
        // ferrio refuses before any job starts and leaves the file alone.
        let mut expected = String::new();
        if lays_out {
            expected.push_str("fio: refusing extend of file due to read-only\n");
        }
        expected.push_str(&format!("ferrio: job 'j': {why}, and --readonly is set\n"));
        assert_eq!(
            (got.code, got.stderr.as_str()),
            (1, expected.as_str()),
            "{extra:?}"
        );
        assert_eq!(std::fs::read(&f2).unwrap().len(), 64 << 10, "{extra:?}");
        assert_eq!(got.stdout, "", "{extra:?}");
    }
    // A missing file: fio refuses to lay it out but fails later (err=2);
    // ferrio refuses at once, and neither creates it.
    let (fio_dir, ferrio_dir) = (Scratch::new("ro-fio"), Scratch::new("ro-ferrio"));
    let (want, got) = Run::new().args(base).both_at(&fio_dir.0, &ferrio_dir.0);
    assert_eq!(
        (want.code, got.code),
        (1, 1),
        "{}\n{}",
        want.stderr,
        got.stderr
    );
    assert!(
        want.stderr
            .contains("fio: refusing extend of file due to read-only")
    );
    assert!(
        got.stderr
            .starts_with("fio: refusing extend of file due to read-only\n")
    );
    assert!(!fio_dir.0.join("f").exists() && !ferrio_dir.0.join("f").exists());
}

#[test]
fn the_mounted_device_guard_knows_a_device_by_any_name() {
    let disk = MountedLoop::new();
    let links = Scratch::new("links");
    let link = links.0.join("by-id-like");
    std::os::unix::fs::symlink(&disk.device, &link).unwrap();
    let name = Path::new(&disk.device)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    let dotted = format!("/dev/../dev/{name}");
    let job = |path: &str| {
        Run::new().args([
            "--name=j",
            &format!("--filename={path}"),
            "--rw=write",
            "--bs=4k",
            "--offset=12m",
            "--size=64k",
        ])
    };
    // Named as the mount table names it, both tools abort alike (and fio
    // exits 0 when it aborts so).
    let (want, got) = job(&disk.device).in_dir(&links.0).both();
    let abort = format!(
        "fio: {} appears mounted, and 'allow_mounted_write' isn't set. Aborting.",
        disk.device
    );
    assert_eq!(want.code, 0, "{}", want.stderr);
    assert!(
        want.stdout.contains(&abort) || want.stderr.contains(&abort),
        "{want:?}"
    );
    assert_eq!(got.code, want.code, "{got:?}");
    assert_eq!(got.stdout, want.stdout);
    // Through a link or `..`, fio writes to the mounted device; ferrio
    // aborts as for the device's own name.
    for path in [link.to_str().unwrap(), dotted.as_str()] {
        let (want, got) = job(path).in_dir(&links.0).both();
        assert_eq!(want.code, 0, "fio {path}: {}", want.stderr);
        assert!(
            want.stdout.contains("WRITE:"),
            "fio {path}: {}",
            want.stdout
        );
        let abort =
            format!("fio: {path} appears mounted, and 'allow_mounted_write' isn't set. Aborting.");
        assert_eq!(got.code, 0, "ferrio {path}: {got:?}");
        assert!(
            got.stdout.contains(&abort) || got.stderr.contains(&abort),
            "{got:?}"
        );
        assert!(!got.stdout.contains("WRITE:"), "{}", got.stdout);
    }
}
