//! Jobs that ask for more memory than there is, and jobs whose memory is
//! large but mostly unused, beside fio 3.33: a random map that cannot be
//! allocated, I/O buffers under an address-space limit, and the memory a
//! deep queue of buffers really takes.

mod common;

use common::{Outcome, Run, ferrio, fio, json};

/// A random map of 2^41 blocks (256 GiB of bits): more than any machine
/// these tests run on gives a process.
const HUGE_MAP: &[&str] = &[
    "--name=j",
    "--ioengine=null",
    "--rw=randread",
    "--size=1p",
    "--bs=512",
    "--number_ios=1000",
];

/// fio's message for a random map it could not allocate.
const MAP_FAILED: &str = "fio: failed allocating random map. If running a large number of \
                          jobs, try the 'norandommap' option or set 'softrandommap'. Or give a \
                          larger --alloc-size to fio.\n";

/// The lines fio prints of its random map and generator (stdout).
fn map_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("fio: ")).collect()
}

#[test]
fn a_random_map_that_cannot_be_allocated_ends_the_job_as_fios() {
    let (want, got) = Run::new().args(HUGE_MAP).both();
    assert_eq!(
        want.stderr, MAP_FAILED,
        "fio allocated the map: this machine cannot show the failure"
    );
    assert_eq!(got.stderr, want.stderr, "stderr");
    assert_eq!(got.code, want.code, "exit status: {}", got.stderr);
    // No job block (no I/O) and the notes of the 32-bit generator: the
    // normal report is the same text.
    assert_eq!(got.stdout, want.stdout);
    let (want, got) = Run::new().args(HUGE_MAP).args(common::JSON).both();
    assert_eq!((got.code, &got.stderr), (want.code, &want.stderr));
    assert_eq!(map_lines(&got.stdout), map_lines(&want.stdout));
    let (w, g) = (json(&want), json(&got));
    for key in ["error", "elapsed"] {
        assert_eq!(g["jobs"][0][key], w["jobs"][0][key], "{key}");
    }
    assert_eq!(common::ios_and_bytes(&g["jobs"][0]), [(0, 0); 3]);
}

#[test]
fn softrandommap_runs_the_job_without_the_map_it_cannot_allocate() {
    for generator in [&[][..], &["--random_generator=tausworthe"]] {
        let (want, got) = Run::new()
            .args(HUGE_MAP)
            .args(["--softrandommap=1", "--nrfiles=2"])
            .args(generator)
            .args(common::JSON)
            .both();
        assert_eq!(
            map_lines(&want.stdout).len(),
            if generator.is_empty() { 4 } else { 6 },
            "{}",
            want.stdout
        );
        assert_eq!(
            map_lines(&got.stdout),
            map_lines(&want.stdout),
            "{generator:?}"
        );
        assert_eq!((got.code, &got.stderr), (want.code, &want.stderr));
        let (w, g) = (json(&want), json(&got));
        assert_eq!(g["jobs"][0]["error"], 0);
        assert_eq!(
            common::ios_and_bytes(&g["jobs"][0]),
            common::ios_and_bytes(&w["jobs"][0])
        );
    }
}

/// `program` with `args` under a 1 GiB address-space limit.
fn limited(program: &str, args: &[&str]) -> Outcome {
    Run::tool("prlimit")
        .arg("--as=1073741824")
        .arg(program)
        .args(args)
        .out()
}

/// The `err=` line without its pid and fio's source location (which
/// ferrio cannot have).
fn error_line(stdout: &str) -> Option<String> {
    let line = stdout.lines().find(|l| l.starts_with("fio: pid="))?;
    let rest = &line[line.find(", err=")?..];
    let rest = match (rest.find("file:"), rest.find("func=")) {
        (Some(a), Some(b)) => format!("{}{}", &rest[..a], &rest[b..]),
        _ => rest.to_string(),
    };
    Some(rest)
}

#[test]
fn buffers_beyond_an_address_space_limit_fail_the_job_with_enomem() {
    // 100000 buffers of 64 KiB: 6.5 GB, past the limit, from the heap
    // (fio's malloc), a mapping and a shared memory segment.
    for (mem, func) in [
        (None, "iomem allocation"),
        (Some("--mem=mmap"), "mmap"),
        (Some("--mem=shm"), "shmat"),
    ] {
        let mut args = vec![
            "--name=j",
            "--ioengine=null",
            "--rw=randread",
            "--size=1m",
            "--iodepth=100000",
            "--bs=64k",
            "--output-format=json",
        ];
        args.extend(mem);
        let want = limited(fio(), &args);
        let got = limited(ferrio(), &args);
        let line = format!(", err=12/func={func}, error=Cannot allocate memory");
        assert_eq!(
            error_line(&want.stdout).as_deref(),
            Some(line.as_str()),
            "{}",
            want.stdout
        );
        assert_eq!(
            error_line(&got.stdout),
            error_line(&want.stdout),
            "{mem:?}\n{}\n{}",
            got.stdout,
            got.stderr
        );
        assert_eq!(
            (got.code, &got.stderr),
            (want.code, &want.stderr),
            "{mem:?}"
        );
        let (w, g) = (json(&want), json(&got));
        assert_eq!(w["jobs"][0]["error"], 12);
        assert_eq!(g["jobs"][0]["error"], w["jobs"][0]["error"]);
    }
}

/// The peak resident memory, in KiB, of `program` on `args`, as
/// /usr/bin/time measures it.
fn peak_rss(program: &str, args: &[&str]) -> u64 {
    let out = Run::tool("/usr/bin/time")
        .args(["-f", "maxrss=%M", program])
        .args(args)
        .out();
    assert_eq!(out.code, 0, "{program}: {}", out.stderr);
    let line = out
        .stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("maxrss="));
    line.and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no maxrss from /usr/bin/time: {}", out.stderr))
}

#[test]
fn a_deep_queue_of_read_buffers_takes_memory_only_as_fios_does() {
    // 100000 buffers of 16 KiB (1.6 GB) that a null read never touches.
    let args = [
        "--name=j",
        "--ioengine=null",
        "--rw=randread",
        "--iodepth=100000",
        "--bs=16k",
        "--size=1g",
        "--output-format=json",
    ];
    let want = peak_rss(fio(), &args);
    let got = peak_rss(ferrio(), &args);
    assert!(
        got <= 2 * want,
        "ferrio's peak RSS {got} KiB is over twice fio's {want} KiB"
    );
}
