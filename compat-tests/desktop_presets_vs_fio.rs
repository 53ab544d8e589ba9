//! The desktop benchmark job files (jobs/desktop/: CrystalDiskMark-, HD
//! Tune- and dd-style) run under fio 3.33 and under ferrio on a small
//! scratch file: the same jobs in the same groups, each with the same
//! I/O counts and bytes, and HD Tune's samples at the same offsets.

mod common;

use std::path::Path;

use common::mounted::MountedLoop;
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

/// `ferrio preset NAME TARGET` with `env`, its report as JSON in a file:
/// (the summary it printed on stdout, the report).
fn preset(name: &str, env: &[(&str, &str)]) -> (String, serde_json::Value) {
    let dir = Scratch::new("preset");
    let mut run = Run::ferrio().in_dir(&dir.0).args([
        "preset",
        name,
        &dir.0.join("target.dat").display().to_string(),
        "--output-format=json",
        "--output=report.json",
    ]);
    for (k, v) in env {
        run = run.env(*k, *v);
    }
    let out = run.ok();
    let report = std::fs::read_to_string(dir.0.join("report.json")).unwrap();
    (out.stdout, serde_json::from_str(&report).unwrap())
}

/// The clat percentile `p` (as fio's JSON keys it) of a direction, in us.
fn clat_us(d: &serde_json::Value, p: &str) -> String {
    let ns = d["clat_ns"]["percentile"][p].as_u64().unwrap();
    format!("{:.2}", ns as f64 / 1000.0)
}

/// The row CrystalDiskMark's table must show for `stem` in `dir`, made
/// from the report: the pass with the highest bw_bytes (the first of
/// equals), its bytes per second over 1e6, its IOPS, mean completion
/// latency and percentiles.
fn cdm_row(report: &serde_json::Value, stem: &str, dir: &str) -> String {
    let passes: Vec<&serde_json::Value> = report["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| {
            j["jobname"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{stem}-{dir}-"))
        })
        .map(|j| &j[dir])
        .collect();
    assert_eq!(passes.len(), 5, "{stem} {dir}");
    let bw = |d: &serde_json::Value| d["bw_bytes"].as_u64().unwrap();
    let mut at = 0;
    for (i, d) in passes.iter().enumerate() {
        if bw(d) > bw(passes[at]) {
            at = i;
        }
    }
    let d = passes[at];
    let ios = d["total_ios"].as_u64().unwrap() as f64;
    let ms = d["runtime"].as_u64().unwrap() as f64;
    // bw_bytes is fio's io_bytes * 1000 / runtime.
    let bytes = d["io_bytes"].as_u64().unwrap();
    assert_eq!(bw(d), bytes * 1000 / ms as u64);
    format!(
        "{:9.3} MB/s [{:9.1} IOPS] <{:9.2} us>  p50/p99/p99.9 {} / {} / {} us  (pass {} of 5)",
        bw(d) as f64 / 1e6,
        1000.0 * ios / ms,
        d["clat_ns"]["mean"].as_f64().unwrap() / 1000.0,
        clat_us(d, "50.000000"),
        clat_us(d, "99.000000"),
        clat_us(d, "99.900000"),
        at + 1
    )
}

#[test]
fn the_crystaldiskmark_preset_prints_the_best_passes_of_its_own_report() {
    let env = [
        ("CDM_SIZE", "2m"),
        ("CDM_RUNTIME", "5"),
        ("CDM_INTERVAL", "0"),
    ];
    let (summary, report) = preset("crystaldiskmark", &env);
    assert_eq!(report["jobs"].as_array().unwrap().len(), 40);
    let labels = [
        ("seq1m-q8t1", "SEQ    1MiB (Q=  8, T= 1)"),
        ("seq1m-q1t1", "SEQ    1MiB (Q=  1, T= 1)"),
        ("rnd4k-q32t1", "RND    4KiB (Q= 32, T= 1)"),
        ("rnd4k-q1t1", "RND    4KiB (Q=  1, T= 1)"),
    ];
    let mut want = Vec::new();
    for dir in ["read", "write"] {
        for (stem, label) in labels {
            want.push(format!("  {label}: {}", cdm_row(&report, stem, dir)));
        }
    }
    let got: Vec<&str> = summary.lines().filter(|l| l.contains(" MB/s [")).collect();
    assert_eq!(got, want, "{summary}");
    let read = summary.find("[Read]").unwrap();
    let write = summary.find("[Write]").unwrap();
    assert!(
        read < write && summary.contains("   Test: 2m (x5) ["),
        "{summary}"
    );
}

/// `N bytes (…) copied, S s, R B/s` as dd prints it: (the part before
/// `copied`, seconds, rate with its unit).
fn dd_parts(line: &str) -> (String, String, String) {
    let (size, rest) = line
        .split_once(" copied, ")
        .unwrap_or_else(|| panic!("{line}"));
    let (secs, rate) = rest.split_once(" s, ").unwrap_or_else(|| panic!("{line}"));
    let (number, unit) = rate.split_once(' ').unwrap_or_else(|| panic!("{line}"));
    number.parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
    assert!(
        ["B/s", "kB/s", "MB/s", "GB/s", "TB/s"].contains(&unit),
        "{line}"
    );
    secs.parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
    (size.to_string(), secs.to_string(), rate.to_string())
}

#[test]
fn the_dd_preset_prints_dds_lines_with_the_bytes_dd_copies() {
    let count = 4;
    let (summary, report) = preset("dd", &[("DD_COUNT", &count.to_string())]);
    let jobs = report["jobs"].as_array().unwrap();
    let dir = Scratch::new("dd");
    let target = dir.0.join("dd.dat").display().to_string();
    let dd_flags: [&[&str]; 3] = [&["oflag=direct"], &[], &["conv=fdatasync"]];
    for (job, flags) in ["dd-direct", "dd-cached", "dd-fdatasync"]
        .iter()
        .zip(dd_flags)
    {
        let ours = summary
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{job}: ")))
            .unwrap_or_else(|| panic!("no {job} line in {summary}"));
        let dd = Run::tool("dd")
            .args([
                "if=/dev/zero",
                &format!("of={target}"),
                "bs=1M",
                &format!("count={count}"),
            ])
            .args(flags)
            .ok();
        let theirs = dd.stderr.lines().last().unwrap();
        let (size, secs, _) = dd_parts(ours);
        assert_eq!(size, dd_parts(theirs).0, "ferrio: {ours}\ndd: {theirs}");
        assert_eq!(size, "4194304 bytes (4.2 MB, 4.0 MiB)");
        // The seconds are the report's runtime (milliseconds).
        let w = &jobs.iter().find(|j| j["jobname"] == *job).unwrap()["write"];
        assert_eq!(w["io_bytes"], 4u64 << 20);
        let ms = w["runtime"].as_u64().unwrap();
        assert_eq!(secs.parse::<f64>().unwrap(), ms as f64 / 1000.0, "{ours}");
    }
}

#[test]
fn a_preset_refuses_a_mounted_device_as_fio_refuses_its_job_file() {
    if !common::need::require("mount", common::need::root()) {
        return;
    }
    let disk = MountedLoop::new();
    let abort = format!(
        "fio: {} appears mounted, and 'allow_mounted_write' isn't set. Aborting.",
        disk.device
    );
    // fio on the job file itself aborts before any I/O (and exits 0).
    let file = desktop("dd-direct.fio");
    let fio = Run::fio()
        .envs(&file.env)
        .env("FERRIO_TARGET", &disk.device)
        .arg(file.path.display().to_string())
        .out();
    assert_eq!(fio.code, 0, "{fio:?}");
    assert!(fio.stderr.contains(&abort), "{fio:?}");
    let ferrio = Run::ferrio()
        .env("DD_COUNT", "1")
        .args(["preset", "dd", &disk.device, "--output-format=json"])
        .out();
    assert!(ferrio.stderr.contains(&abort), "{ferrio:?}");
    assert_eq!(ferrio.code, 1, "{ferrio:?}");
    assert!(!ferrio.stderr.contains("copied"), "{ferrio:?}");
    // Refused before any job started: the three jobs did nothing.
    let report = common::json(&ferrio);
    let jobs = report["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    for job in jobs {
        assert_eq!(ios_and_bytes(job)[1], (0, 0), "{job}");
    }
}

/// The seconds strace's `-T` gives the one fsync(2) of a run.
fn fsync_seconds(strace: &str) -> f64 {
    let calls: Vec<f64> = strace
        .lines()
        .filter(|l| l.contains("fsync(") && l.contains(" = 0 <"))
        .map(|l| {
            let took = l.rsplit_once('<').unwrap().1.trim_end_matches('>');
            took.parse().unwrap()
        })
        .collect();
    assert_eq!(calls.len(), 1, "{strace}");
    calls[0]
}

#[test]
fn dd_fdatasync_times_its_sync_with_the_writes_as_fio_does() {
    if !common::need::require("strace", common::need::program("strace")) {
        return;
    }
    // Whatever the machine's speed, fio's write runtime holds the end
    // sync's time (it syncs before it takes the runtime); so must ferrio's.
    let file = desktop("dd-fdatasync.fio");
    for program in [common::fio(), common::ferrio()] {
        let dir = Scratch::new("fdatasync");
        let out = Run::tool("strace")
            .in_dir(&dir.0)
            .envs(&file.env)
            .env("DD_COUNT", "64")
            .env("FERRIO_TARGET", dir.0.join("t.dat").display().to_string())
            .args(["-f", "-T", "-e", "trace=fsync", "-o", "trace.txt", program])
            .args(["--output-format=json", &file.path.display().to_string()])
            .ok();
        let report = common::json(&out);
        let ms = report["jobs"][0]["write"]["runtime"].as_u64().unwrap();
        let trace = std::fs::read_to_string(dir.0.join("trace.txt")).unwrap();
        let sync_ms = fsync_seconds(&trace) * 1000.0;
        assert!(
            ms as f64 >= sync_ms.floor(),
            "{program}: runtime {ms} ms, fsync {sync_ms} ms"
        );
    }
}

/// The figure after `label` in a summary line `label : N unit`.
fn figure(summary: &str, label: &str) -> String {
    summary
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .and_then(|rest| rest.trim_start_matches([' ', ':']).split(' ').next())
        .unwrap_or_else(|| panic!("no {label} in {summary}"))
        .to_string()
}

#[test]
fn the_hdtune_preset_summarises_its_samples_and_its_report() {
    let dir = Scratch::new("hdtune");
    let target = dir.write("disk.dat", &"x".repeat(4 << 20));
    let out = Run::ferrio()
        .in_dir(&dir.0)
        .args(["preset", "hdtune", &target.display().to_string()])
        .args(["--output-format=json", "--output=report.json"])
        .ok();
    let text = std::fs::read_to_string(dir.0.join("report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let job = |name: &str| {
        report["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["jobname"] == name)
            .unwrap()["read"]
            .clone()
    };
    // 4 MiB: 64 samples of 64 KiB, one 64 KiB block apart: every block.
    assert_eq!(job("transfer")["total_ios"], 64);
    assert_eq!(job("access")["total_ios"], 200);
    assert!(
        out.stdout.contains("64 samples of 64 KiB every 64 KiB"),
        "{}",
        out.stdout
    );
    // Each sample's rate is its bytes over its latency in the log.
    let log = std::fs::read_to_string(dir.0.join("hdtune_clat.1.log")).unwrap();
    let rates: Vec<f64> = common::lat_log_ios(&log)
        .iter()
        .zip(log.lines())
        .map(|((_, len, _), line)| {
            let ns: f64 = line.split(',').nth(1).unwrap().trim().parse().unwrap();
            *len as f64 * 1000.0 / ns
        })
        .collect();
    assert_eq!(rates.len(), 64);
    let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
    let max = rates.iter().copied().fold(0.0, f64::max);
    let avg = rates.iter().sum::<f64>() / 64.0;
    let s = &out.stdout;
    assert_eq!(figure(s, "Minimum"), format!("{min:.1}"), "{s}");
    assert_eq!(figure(s, "Maximum"), format!("{max:.1}"), "{s}");
    assert_eq!(figure(s, "Average"), format!("{avg:.1}"), "{s}");
    let access = job("access")["lat_ns"]["mean"].as_f64().unwrap() / 1e6;
    assert_eq!(figure(s, "Access Time"), format!("{access:.3}"), "{s}");
    let burst = job("burst")["bw_bytes"].as_u64().unwrap() as f64 / 1e6;
    assert_eq!(figure(s, "Burst Rate"), format!("{burst:.1}"), "{s}");
}

#[test]
fn the_hdtune_preset_draws_its_curves_in_the_html_page() {
    let dir = Scratch::new("hdtune-html");
    let target = dir.write("disk.dat", &"x".repeat(4 << 20));
    Run::ferrio()
        .in_dir(&dir.0)
        .args(["preset", "hdtune", &target.display().to_string()])
        .args(["--output-format=html", "--output=report.html"])
        .ok();
    let page = std::fs::read_to_string(dir.0.join("report.html")).unwrap();
    let at = page
        .find("<h2>HD Tune-style read test</h2>")
        .expect("no HD Tune section");
    let section = &page[at..];
    assert!(section.ends_with("</body></html>\n"));
    // One point per sample (64) and per random read (200), in the
    // plotly figures the section's script draws.
    let json = section
        .split_once("const figures = ")
        .and_then(|(_, rest)| rest.split_once(";\n"))
        .map(|(json, _)| json.replace("<\\/", "</"))
        .expect("no figures in the HD Tune section");
    let figures: serde_json::Value = serde_json::from_str(&json).unwrap();
    let figures = figures.as_object().unwrap();
    let points: Vec<usize> = figures
        .values()
        .map(|f| f["data"][0]["x"].as_array().unwrap().len())
        .collect();
    for f in figures.values() {
        for axis in ["xaxis", "yaxis"] {
            let title = f["layout"][axis]["title"]["text"].as_str().unwrap();
            assert!(title.ends_with(')') && title.contains(" ("), "{title}");
        }
    }
    assert_eq!(points, [64, 200], "{section}");
    for title in [
        "Transfer rate against position",
        "Access time against position",
    ] {
        assert!(section.contains(title), "{title}");
    }
}

#[test]
fn preset_is_in_the_help_and_has_its_own() {
    let out = Run::ferrio().arg("--help").ok();
    assert!(
        out.stdout.contains("  preset name target [fio flags]"),
        "{}",
        out.stdout
    );
    let out = Run::ferrio().args(["preset", "--help"]).out();
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert!(
        out.stdout
            .contains("Usage: ferrio preset <NAME> <TARGET> [FIO OPTIONS]..."),
        "{}",
        out.stdout
    );
    // A name it does not know, a target it cannot size, a job file
    // among the flags: each refused, saying what was expected.
    let out = Run::ferrio().args(["preset", "atto", "x"]).out();
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("[possible values: crystaldiskmark, dd, hdtune]"),
        "{}",
        out.stderr
    );
    let dir = Scratch::new("preset-errors");
    let missing = dir.0.join("missing.dat").display().to_string();
    let out = Run::ferrio().args(["preset", "hdtune", &missing]).out();
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.starts_with(&format!(
            "ferrio preset hdtune: {missing}: cannot read its size"
        )),
        "{}",
        out.stderr
    );
    let out = Run::ferrio()
        .in_dir(&dir.0)
        .args(["preset", "dd", &missing, "job.fio"])
        .out();
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("job.fio: a preset runs its own job files"),
        "{}",
        out.stderr
    );
    assert!(
        !Path::new(&missing).exists(),
        "a refused preset wrote its target"
    );
}
