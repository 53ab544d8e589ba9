//! What a test needs from the machine, and the one way to go without it.
//!
//! A test that cannot run what it is for must not pass as "ok": cargo
//! captures what a passing test prints, so a skip that only says so is
//! silent. [`require`] fails the test naming what is missing, unless
//! `FERRIO_TEST_SKIP` (a comma-separated list of the names in [`NEEDS`])
//! names it; a named skip is written to the terminal past cargo's capture
//! and the test returns. `scripts/test` installs every program below, and
//! runs as root, so that nothing is skipped there.

use std::io::Write;

/// The variable that names the requirements a run may go without.
pub const SKIP_VAR: &str = "FERRIO_TEST_SKIP";

/// Every requirement a test may name: (name, what it is and where it
/// comes from on Debian 12).
pub const NEEDS: &[(&str, &str)] = &[
    ("root", "running as root (uid 0)"),
    (
        "mount",
        "mounting file systems (a tmpfs, a loop-mounted ext4 image): root with CAP_SYS_ADMIN, \
         mkfs.ext4 (e2fsprogs), losetup and mount (mount)",
    ),
    ("strace", "strace(1) (Debian's strace)"),
    (
        "nbdkit",
        "nbdkit(1) with its memory plugin and exitlast filter (Debian's nbdkit)",
    ),
    ("ss", "ss(8) (Debian's iproute2)"),
    ("setpriv", "setpriv(1) (Debian's util-linux)"),
    ("fsfreeze", "fsfreeze(8) (Debian's util-linux)"),
    ("mpirun", "Open MPI's mpirun (Debian's openmpi-bin)"),
    (
        "prometheus-client",
        "the OpenMetrics parser of Prometheus' Python client for /usr/bin/python3 \
         (Debian's python3-prometheus-client)",
    ),
    (
        "ceph",
        "Ceph's daemons (ceph-osd: Debian's ceph-osd), or root for scripts/ceph-local to install them",
    ),
    (
        "ceph-headers",
        "librbd.h, against which a unit test checks rbd_image_info_t's layout (Debian's librbd-dev)",
    ),
    (
        "mounted-device",
        "a block device mounted on this machine (a block device node in /etc/mtab)",
    ),
    (
        "sysfs",
        "/sys/devices/system/cpu/online (sysfs mounted at /sys)",
    ),
];

/// The names `FERRIO_TEST_SKIP` lists; a name not in [`NEEDS`] fails the
/// test, so that a misspelt skip does not pass unnoticed either.
fn named_skips() -> Vec<String> {
    let listed = std::env::var(SKIP_VAR).unwrap_or_default();
    let names: Vec<String> = listed
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    for name in &names {
        assert!(
            NEEDS.iter().any(|(n, _)| n == name),
            "{SKIP_VAR}={listed}: {name:?} is not a requirement; known: {:?}",
            NEEDS.iter().map(|(n, _)| *n).collect::<Vec<_>>()
        );
    }
    names
}

/// Whether the test may go on: true when `met`. When the requirement
/// `need` (a name in [`NEEDS`]) is not met, the test fails saying what
/// is missing, unless `FERRIO_TEST_SKIP` names it: then the skip is
/// printed past cargo's capture and false tells the test to return.
pub fn require(need: &str, met: bool) -> bool {
    let what = NEEDS
        .iter()
        .find(|(n, _)| *n == need)
        .map(|(_, w)| *w)
        .unwrap_or_else(|| panic!("require({need:?}): not a name in NEEDS"));
    let skips = named_skips();
    if met {
        return true;
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("this test")
        .to_string();
    assert!(
        skips.iter().any(|n| n == need),
        "{test} cannot run what it is for: missing {what}. scripts/test installs it (as root); \
         to run without it, name the skip: {SKIP_VAR}={need}"
    );
    // Written to the process's stderr itself, not through eprintln!,
    // which cargo captures for a passing test.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: missing {what} ({SKIP_VAR} names {need})"
    );
    false
}

/// [`require`] for a check that yields what the test goes on with.
pub fn require_some<T>(need: &str, found: Option<T>) -> Option<T> {
    let met = found.is_some();
    if require(need, met) { found } else { None }
}

/// Whether `program` is on PATH (or is a path to an executable file).
pub fn program(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return runnable(std::path::Path::new(program));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| runnable(&dir.join(program))))
}

/// Whether the tests run as root.
pub fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}
