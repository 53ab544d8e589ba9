//! zonemode=zbd on a regular file beside fio 3.33, which emulates zones
//! in it: the offsets and lengths each tool issues (from per-I/O latency
//! logs with log_offset=1), the I/O counts and bytes per direction, the
//! zone resets on the write line, the lines said about rounded regions,
//! and how setup and I/O errors end the run.

mod common;

use std::collections::BTreeMap;

use common::{Run, Scratch, ferrio, fio, fio_part, lat_log_ios, parallel};

/// What one tool did with a job.
#[derive(Debug, PartialEq)]
struct Seen {
    code: i32,
    /// Each latency log's I/Os as (direction, length, offset).
    logs: BTreeMap<String, Vec<(u64, u64, u64)>>,
    /// Per job: its `issued rwts` line, the bytes of each direction's
    /// line, and the zone resets on its write line.
    totals: Vec<String>,
    /// fio's notes about regions moved to whole zones.
    notes: Vec<String>,
    /// stderr (without ferrio's own explanations).
    stderr: String,
    /// The error line's errno and function, when the job failed.
    error: Option<String>,
}

/// Runs `job` with `tool` in a fresh folder holding `f1`, a file of
/// `file_len` bytes (none when 0).
fn run_job(tool: &str, job: &str, file_len: u64) -> Seen {
    let s = Scratch::new("zbd");
    if file_len > 0 {
        let f = std::fs::File::create(s.0.join("f1")).unwrap();
        f.set_len(file_len).unwrap();
    }
    s.write("job.fio", job);
    let out = Run::tool(tool).args(["job.fio"]).in_dir(&s.0).out();
    let mut logs = BTreeMap::new();
    for entry in std::fs::read_dir(&s.0).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if !name.contains("_lat.") {
            continue;
        }
        let text = std::fs::read_to_string(s.0.join(&name)).unwrap();
        logs.insert(name, lat_log_ios(&text));
    }
    let mut totals = Vec::new();
    for line in out.stdout.lines() {
        let t = line.trim_start();
        if t.starts_with("issued rwts:") {
            totals.push(t.to_string());
        } else if let Some(rest) = ["read:", "write:"]
            .iter()
            .find_map(|d| t.strip_prefix(d).map(|r| (*d, r)))
            .filter(|(_, r)| r.contains("IOPS="))
        {
            // The bytes sit in "(<bytes>/<ms>msec)"; the resets follow.
            let (dir, r) = rest;
            let bytes = r.split(")(").nth(1).and_then(|b| b.split('/').next());
            let resets = r.split("; ").nth(1).unwrap_or("");
            totals.push(format!("{dir} {} {resets}", bytes.unwrap_or("?")));
        }
    }
    let notes = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("f1: "))
        .map(str::to_string)
        .collect();
    // The error line's errno and function (fio adds its source line).
    let error = out
        .stdout
        .lines()
        .chain(out.stderr.lines())
        .find(|l| l.starts_with("fio: pid="))
        .map(|l| {
            let errno = l.split("err=").nth(1).and_then(|e| e.split('/').next());
            let func = l
                .split("func=")
                .nth(1)
                .and_then(|f| f.split(", error").next());
            format!("{errno:?} {func:?}")
        });
    // The error line is compared above; what else went to stderr must
    // match in full.
    let stderr = fio_part(&out.stderr)
        .lines()
        .filter(|l| !l.starts_with("fio: pid="))
        .collect::<Vec<_>>()
        .join("\n");
    Seen {
        code: out.code,
        logs,
        totals,
        notes,
        stderr,
        error,
    }
}

/// Runs a job of one section on an 8 MiB f1 with both tools and checks
/// that they agree; returns fio's view for checks of its own.
fn same(options: &str) -> Seen {
    let job = format!(
        "[j]\nfilename=f1\nioengine=psync\nzonemode=zbd\nzonesize=1m\nsize=8m\n\
         write_lat_log=x\nlog_offset=1\n{options}"
    );
    let theirs = run_job(fio(), &job, 8 << 20);
    let ours = run_job(ferrio(), &job, 8 << 20);
    assert_eq!(theirs, ours, "job:\n{job}");
    theirs
}

fn all_same(shapes: &[&str]) -> Vec<Seen> {
    parallel(shapes, |o| same(o))
}

#[test]
fn writes_go_to_write_pointers_and_full_zones_are_reset() {
    let seen = all_same(&[
        "rw=write\nbs=128k\n",
        "rw=randwrite\nbs=128k\n",
        "rw=write\nbs=128k\nloops=2\n",
        "rw=write\nbs=128k\nzonecapacity=768k\n",
        "rw=randwrite\nbs=128k\nzonecapacity=768k\n",
        "rw=randwrite\nbs=256k\nzonecapacity=640k\n",
        "rw=randwrite\nbsrange=64k-256k\n",
        "rw=write\nbsrange=64k-256k\nzonecapacity=900k\n",
        "rw=randwrite\nbssplit=64k/50:128k/30:256k/20\n",
        "rw=randwrite\nbs=64k\niodepth=4\nzonecapacity=800k\n",
        "rw=randwrite\nbs=64k\niodepth=4\nioengine=libaio\nzonecapacity=800k\n",
        // Blocks that do not divide the zones.
        "rw=write\nbs=192k\n",
        "rw=randwrite\nbs=192k\nzonecapacity=900k\n",
        "rw=write\nbs=192k\nzonesize=768k\n",
    ]);
    // Something was reset, and capacity left gaps in the file.
    assert!(seen[2].totals.iter().any(|t| t.ends_with("8 zone resets")));
    assert!(seen[3].totals.iter().any(|t| t.contains("6144KiB")));
}

#[test]
fn reads_stay_below_write_pointers_unless_told_otherwise() {
    let seen = all_same(&[
        // Nothing written yet in this run: nothing to read.
        "rw=read\nbs=128k\n",
        "rw=randread\nbs=128k\n",
        "rw=read\nbs=128k\nread_beyond_wp=1\n",
        "rw=randread\nbs=64k\nread_beyond_wp=1\nnumber_ios=50\n",
        // Mixed jobs write first, then read what they wrote.
        "rw=randrw\nbs=128k\n",
        "rw=rw\nbs=128k\n",
        "rw=randrw\nbsrange=64k-256k\nloops=2\n",
        "rw=rw\nbsrange=4k-64k\nloops=3\nzonecapacity=1000k\n",
    ]);
    assert!(seen[0].logs.values().all(Vec::is_empty));
    assert_eq!(seen[2].logs.values().map(Vec::len).sum::<usize>(), 64);
}

#[test]
fn open_zone_limits_pick_the_zones_fio_picks() {
    all_same(&[
        "rw=randwrite\nbs=128k\nmax_open_zones=2\n",
        "rw=randwrite\nbs=128k\nmax_open_zones=3\njob_max_open_zones=2\n",
        "rw=write\nbs=128k\nmax_open_zones=2\n",
        "rw=randwrite\nbs=128k\nmax_open_zones=2\nzonecapacity=512k\n",
        "rw=randwrite\nbs=128k\nmax_open_zones=4\nignore_zone_limits=1\n",
        "rw=randrw\nbs=128k\nmax_open_zones=2\nloops=2\n",
        "rw=randrw\nbsrange=4k-256k\nloops=3\nzonecapacity=1000k\nmax_open_zones=3\n",
        "rw=randrw\nbs=4k\nrwmixread=70\nnumber_ios=3000\nmax_open_zones=3\njob_max_open_zones=2\n",
        // A synchronous engine completes each write as it is queued.
        "rw=randwrite\nbs=128k\niodepth=4\nmax_open_zones=2\n",
    ]);
}

#[test]
fn zoneskip_moves_sequential_jobs_past_whole_zones() {
    let seen = all_same(&[
        "rw=write\nbs=256k\nzoneskip=1m\n",
        "rw=write\nbs=256k\nzoneskip=1m\nloops=2\n",
        "rw=write\nbs=192k\nzoneskip=3m\n",
        "rw=write\nbs=128k\nzoneskip=2m\nzonecapacity=768k\n",
        "rw=read\nbs=128k\nzoneskip=1m\nread_beyond_wp=1\n",
        "rw=randwrite\nbs=128k\nzoneskip=1m\n",
        // Not a multiple of the zone size: fio refuses the job.
        "rw=write\nbs=256k\nzoneskip=512k\n",
    ]);
    assert_ne!(seen[6].code, 0);
}

#[test]
fn trims_reset_whole_zones_as_fio_does() {
    let seen = all_same(&[
        "rw=trim\nbs=1m\n",
        "rw=trim\nbs=1m\nloops=2\n",
        "rw=trim\nbs=1m\noffset=512k\n",
        // Nothing written: no zone for a random trim.
        "rw=randtrim\nbs=1m\n",
        "rw=trimwrite\nbs=1m\n",
        "rw=trimwrite\nbs=1m\nloops=2\n",
        "rw=randtrimwrite\nbs=1m\n",
        // A trim is one whole zone.
        "rw=randtrim\nbs=512k\n",
        "rw=trim\nbsrange=1m-2m\n",
    ]);
    assert!(seen[5].totals.iter().any(|t| t.ends_with("8 zone resets")));
    assert!(seen[7].code != 0 && seen[8].code != 0);
}

#[test]
fn random_trims_find_the_zones_an_earlier_job_wrote() {
    let job = "[global]\nfilename=f1\nzonemode=zbd\nzonesize=1m\nioengine=psync\nsize=8m\n\
               log_offset=1\n\
               [w]\nrw=write\nbs=128k\nsize=5m\nwrite_lat_log=w\n\
               [t]\nstonewall\nrw=randtrim\nbs=1m\nnumber_ios=3\nwrite_lat_log=t\n\
               [r]\nstonewall\nrw=read\nbs=128k\nwrite_lat_log=r\n";
    let theirs = run_job(fio(), job, 8 << 20);
    assert_eq!(theirs, run_job(ferrio(), job, 8 << 20));
    // Three of the five written zones were reset: two are left to read.
    assert_eq!(theirs.logs["r_lat.3.log"].len(), 16);
}

#[test]
fn reset_threshold_and_frequency_reset_zones_as_fio_does() {
    let seen = all_same(&[
        "rw=randwrite\nbs=128k\nzone_reset_frequency=0.25\n",
        "rw=randwrite\nbs=128k\nzone_reset_threshold=0.5\nzone_reset_frequency=0.1\nloops=3\n",
        "rw=randwrite\nbs=4k\nzone_reset_threshold=0.2\nzone_reset_frequency=0.01\nio_size=32m\n",
    ]);
    assert!(seen[0].totals.iter().any(|t| t.ends_with("13 zone resets")));
}

#[test]
fn regions_are_rounded_to_whole_zones_for_writers() {
    let seen = all_same(&[
        "rw=write\nbs=128k\nsize=7680k\n",
        "rw=write\nbs=128k\nsize=4m\noffset=512k\n",
        "rw=randread\nbs=128k\nsize=4m\noffset=512k\n",
        "rw=read\nbs=128k\nsize=4m\noffset=512k\nread_beyond_wp=1\n",
        // A region past the file's zones.
        "rw=write\nbs=128k\noffset=2m\n",
        // The null engine cannot tell file sizes: fio zones the job's size.
        "rw=write\nbs=128k\nsize=4m\noffset=2m\nioengine=null\nzonecapacity=768k\n",
        "rw=randwrite\nbs=128k\nsize=16m\nioengine=null\nzonecapacity=768k\n",
    ]);
    assert_eq!(seen[1].notes.len(), 2);
    assert!(seen[3].notes.is_empty());
}

#[test]
fn a_later_job_reads_what_an_earlier_one_wrote() {
    let job = "[global]\nfilename=f1\nzonemode=zbd\nzonesize=1m\nioengine=psync\nbs=128k\n\
               size=8m\nlog_offset=1\n\
               [w]\nrw=write\nsize=5m\nwrite_lat_log=w\n\
               [r]\nstonewall\nrw=randread\nnumber_ios=60\nwrite_lat_log=r\n\
               [s]\nstonewall\nrw=read\nwrite_lat_log=s\n";
    let theirs = run_job(fio(), job, 8 << 20);
    assert_eq!(theirs, run_job(ferrio(), job, 8 << 20));
    // The reads found the 5 zones written.
    assert_eq!(theirs.logs["s_lat.3.log"].len(), 40);
}

#[test]
fn setup_checks_end_the_run_as_fios_do() {
    let cases: Vec<(&str, u64)> = vec![
        ("zonesize=0\nrw=write\nbs=128k\n", 8 << 20),
        ("zonesize=100\nrw=write\nbs=128k\n", 8 << 20),
        ("zonecapacity=2m\nrw=write\nbs=128k\n", 8 << 20),
        ("job_max_open_zones=2\nrw=write\nbs=128k\n", 8 << 20),
        ("size=512k\nrw=write\nbs=128k\n", 8 << 20),
        // No file yet: fio sizes the zones before laying it out.
        ("rw=write\nbs=128k\n", 0),
    ];
    let seen = parallel(&cases, |(options, len)| {
        let job = format!(
            "[j]\nfilename=f1\nioengine=psync\nzonemode=zbd\nzonesize=1m\nsize=8m\n{options}"
        );
        let theirs = run_job(fio(), &job, *len);
        assert_eq!(theirs, run_job(ferrio(), &job, *len), "job:\n{job}");
        theirs
    });
    assert!(seen.iter().all(|s| s.code != 0));
}

#[test]
fn writes_no_zone_can_take_fail_the_job_as_in_fio() {
    let seen = all_same(&[
        // A block larger than a zone.
        "rw=write\nbs=2m\n",
        // A zone capacity below the block size.
        "rw=randwrite\nbs=128k\nzonesize=768k\nzonecapacity=100k\n",
    ]);
    assert!(seen.iter().all(|s| s.code != 0 && s.error.is_some()));
}

/// Sizes and offsets counted in zones (a z suffix): zones of `zonesize`,
/// the same offsets as fio's.
#[test]
fn zone_counts_are_zones_of_zonesize() {
    let seen = all_same(&[
        "rw=write\nbs=128k\nsize=4z\n",
        "rw=write\nbs=128k\nsize=4m\noffset=2z\n",
        "rw=randwrite\nbs=128k\nio_size=3z\n",
        "rw=write\nbs=128k\nzoneskip=1z\nio_size=2m\n",
    ]);
    assert!(seen.iter().all(|s| s.code == 0));
}

#[test]
fn what_ferrio_does_not_emulate_is_refused() {
    let s = Scratch::new("zbd");
    std::fs::File::create(s.0.join("f1"))
        .unwrap()
        .set_len(8 << 20)
        .unwrap();
    for options in [
        "rw=write\nbs=128k\nverify=crc32c\n",
        "rw=randwrite\nbs=128k\nmax_open_zones=2\nioengine=libaio\niodepth=4\n",
        "rw=write\nbs=128k\nioengine=cpuio\n",
    ] {
        let job = format!("[j]\nfilename=f1\nzonemode=zbd\nzonesize=1m\nsize=8m\n{options}");
        s.write("job.fio", &job);
        let out = Run::ferrio().args(["job.fio"]).in_dir(&s.0).out();
        assert_ne!(out.code, 0, "{job}");
        assert!(out.stderr.contains("zonemode=zbd"), "{job}: {}", out.stderr);
    }
}

#[test]
fn clones_share_the_files_zones_and_issue_what_fio_issues() {
    // Two threads on one file's zones interleave as the scheduler lets
    // them: the I/O counts and bytes are fixed, the offsets and resets
    // are not (fio's own vary from run to run).
    let job = "[j]\nfilename=f1\nioengine=psync\nzonemode=zbd\nzonesize=1m\nsize=8m\n\
               rw=randwrite\nbs=64k\nnumjobs=2\ngroup_reporting\nmax_open_zones=2\n";
    let totals = |s: Seen| {
        let issued: Vec<String> = s
            .totals
            .iter()
            .filter(|t| t.starts_with("issued"))
            .cloned()
            .collect();
        let bytes: Vec<String> = s
            .totals
            .iter()
            .filter_map(|t| t.strip_prefix("write: "))
            .map(|t| t.split(' ').next().unwrap_or("").to_string())
            .collect();
        (s.code, issued, bytes)
    };
    let theirs = totals(run_job(fio(), job, 8 << 20));
    assert_eq!(theirs, totals(run_job(ferrio(), job, 8 << 20)));
    assert_eq!(theirs.2, ["16.0MiB"]);
}
