//! Placement and priority options (cmdprio_*, prio/prioclass, nice,
//! cpus_allowed, cpumask, exec_prerun/exec_postrun), clocksource, and
//! the file options around them (create_only, disk_util, overwrite,
//! file_append, allow_file_create, allow_mounted_write, offset_align,
//! pre_read), run by ferrio beside the same job files run by fio 3.33.

mod common;

use common::{JSON, Outcome, Run, Scratch, ferrio, fio, json};
use serde_json::Value;

/// Per job and direction: each `prios` entry's class, level, sample
/// count and member names (the draws are fio's, so counts are exact).
/// One `prios` entry: class, level, sample count, member names.
type PrioEntry = (u64, u64, u64, Vec<String>);

fn prios(doc: &Value) -> Vec<(String, String, Vec<PrioEntry>)> {
    let mut out = Vec::new();
    for job in doc["jobs"].as_array().unwrap() {
        for dir in ["read", "write", "mixed"] {
            let entries = job[dir]["prios"]
                .as_array()
                .map(|list| {
                    list.iter()
                        .map(|p| {
                            let lat = p.get("clat_ns").or(p.get("lat_ns")).unwrap();
                            let mut keys: Vec<String> =
                                p.as_object().unwrap().keys().cloned().collect();
                            keys.extend(lat.as_object().unwrap().keys().cloned());
                            (
                                p["prioclass"].as_u64().unwrap(),
                                p["prio"].as_u64().unwrap(),
                                lat["N"].as_u64().unwrap(),
                                keys,
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            out.push((
                job["jobname"].as_str().unwrap().to_string(),
                dir.to_string(),
                entries,
            ));
        }
    }
    out
}

const DATA: &str = "filename=data\nsize=2m\n";

#[test]
fn cmdprio_bssplit_prios_match_fio_on_libaio() {
    let job = format!(
        "[global]\n{DATA}direct=1\nrw=randrw\nioengine=libaio\niodepth=8\nbssplit=4k/50:8k/50\n\
         [simple]\ncmdprio_bssplit=4k/100:8k/0,8k/40\ncmdprio_class=2\ncmdprio=5\n\
         [adv]\nstonewall\nprioclass=2\nprio=7\ncmdprio_bssplit=4k/50/1/2:8k/30,8k/100\n\
         [latpct]\nstonewall\nlat_percentiles=1\ncmdprio_bssplit=4k/50/3/0\n\
         [mixed]\nstonewall\nunified_rw_reporting=mixed\ncmdprio_percentage=30,60\n"
    );
    let (want, got) = Run::new().args(JSON).job(&job).both_json();
    let (w, g) = (prios(&want), prios(&got));
    assert!(
        w.iter().any(|(_, _, e)| e.len() >= 2),
        "fio reported no prios: {w:?}"
    );
    assert_eq!(w, g);
}

#[test]
fn cmdprio_percentage_and_group_prios_match_fio_on_io_uring() {
    let job = format!(
        "[global]\n{DATA}rw=randread\nioengine=io_uring\niodepth=4\ngroup_reporting\n\
         [a]\ncmdprio_percentage=30\n[b]\nprioclass=2\nprio=3\n\
         [c]\nstonewall\ncmdprio_percentage=20\ncmdprio_class=3\nclat_percentiles=0\n"
    );
    let (want, got) = Run::new().args(JSON).job(&job).both_json();
    assert_eq!(prios(&want), prios(&got));
}

#[test]
fn per_priority_lines_in_normal_output_match_fio() {
    let job = format!(
        "[global]\n{DATA}rw=randread\nioengine=libaio\niodepth=4\n[a]\ncmdprio_percentage=40\n"
    );
    let (want, got, _, _) = Run::new().job(&job).both_kept();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    // The labels, with each priority's share of the I/Os (the unit
    // follows the measured times, so it is left out).
    let labels = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.contains(" prio "))
            .map(|l| {
                let mut label = l.split(':').next().unwrap().to_string();
                for unit in [" (nsec)", " (usec)", " (msec)"] {
                    label = label.replace(unit, "");
                }
                label
            })
            .collect()
    };
    let (w, g) = (labels(&want.stdout), labels(&got.stdout));
    assert_eq!(w.len(), 4, "fio: {}", want.stdout);
    assert_eq!(w, g);
}

#[test]
fn log_prio_values_match_fio() {
    let job = format!(
        "[global]\n{DATA}rw=randread\nioengine=libaio\niodepth=2\ncmdprio_percentage=50\n\
         [a]\nwrite_lat_log=p\nlog_prio=1\n[b]\nwrite_lat_log=q\n"
    );
    let (want, got, a, b) = Run::new()
        .args(["--output-format=json"])
        .job(&job)
        .both_kept();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    // The priority column, I/O by I/O (fio's draws: the same sequence).
    let column = |dir: &std::path::Path, name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.join(name))
            .unwrap()
            .lines()
            .map(|l| l.rsplit(", ").next().unwrap().to_string())
            .collect()
    };
    for name in ["p_clat.1.log", "q_clat.2.log"] {
        let w = column(&a.0, name);
        assert!(w.len() > 100, "{name}: {w:?}");
        assert_eq!(w, column(&b.0, name), "{name}");
    }
}

#[test]
fn thread_placement_and_priorities_match_fio() {
    // exec_prerun runs on the job's thread once it is set up, so what
    // the command sees of itself is what the job got.
    let scratch = Scratch::new("prioprobe");
    let probe = scratch.write(
        "probe.sh",
        "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status\ncut -d' ' -f19 /proc/self/stat\nionice\n",
    );
    std::fs::set_permissions(&probe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let job = format!(
        "[global]\nfilename=data\nsize=64k\nioengine=psync\nexec_prerun={}\nexec_postrun=echo done\n\
         [first]\ncpus_allowed=0-1\ncpus_allowed_policy=split\nnice=5\nprioclass=2\nprio=3\n\
         [second]\ncpus_allowed=0-1\ncpus_allowed_policy=split\nprioclass=3\n\
         [third]\ncpumask=1\nnice=2\nprio=4\nprioclass=1\n",
        probe.display()
    );
    let (want, got, a, b) = Run::new().job(&job).both_kept();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    for name in [
        "first.prerun.txt",
        "second.prerun.txt",
        "third.prerun.txt",
        "first.postrun.txt",
    ] {
        let w = std::fs::read_to_string(a.0.join(name)).unwrap();
        let g = std::fs::read_to_string(b.0.join(name)).unwrap();
        assert_eq!(w, g, "{name}");
    }
    let saving = |o: &Outcome| {
        o.stdout
            .lines()
            .filter(|l| l.contains("Saving output"))
            .count()
    };
    assert_eq!(saving(&want), saving(&got));
}

#[test]
fn setup_errors_match_fio() {
    let cases = [
        (
            "[a]\nfilename=data\nsize=64k\nioengine=libaio\ncmdprio_bssplit=4k/60/1/1:4k/60\n",
            "fio: cmdprio_bssplit total percentage for bs: 4096 exceeds 100",
        ),
        (
            "[a]\nfilename=data\nsize=64k\nioengine=io_uring\ncmdprio_percentage=5\ncmdprio_bssplit=4k/5\n",
            "a: cmdprio_percentage and cmdprio_bssplit options are mutually exclusive",
        ),
        (
            "[a]\nfilename=data\nsize=64k\ncpus_allowed=4096\n",
            "fio: your OS only supports up to 1024 CPUs",
        ),
        (
            "[a]\nfilename=data\nsize=64k\ncpus_allowed=0,1-300\n",
            "too large (max=",
        ),
    ];
    for (job, line) in cases {
        let (want, got, _, _) = Run::new()
            .args(["--output-format=json"])
            .job(job)
            .both_kept();
        assert_ne!(want.code, 0, "fio: {job}");
        assert_ne!(got.code, 0, "ferrio: {job}");
        assert!(want.stderr.contains(line), "fio: {}", want.stderr);
        assert!(got.stderr.contains(line), "ferrio: {}", got.stderr);
        let first = want.stderr.lines().next().unwrap();
        assert!(
            got.stderr.contains(first),
            "fio: {first}\nferrio: {}",
            got.stderr
        );
    }
}

#[test]
fn create_only_and_disk_util_match_fio() {
    // create_only: the files are laid out at full size and no I/O is done.
    let job = "[w]\nfilename=wfile\nsize=1m\nrw=write\ncreate_only=1\n\
               [r]\nfilename=rfile\nsize=512k\nrw=randread\ncreate_only=1\n";
    let (want, got, a, b) = Run::new()
        .args(["--output-format=json"])
        .job(job)
        .both_kept();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    for name in ["wfile", "rfile"] {
        let size = |dir: &std::path::Path| std::fs::metadata(dir.join(name)).unwrap().len();
        assert_eq!(size(&a.0), size(&b.0), "{name}");
    }
    let moved = |doc: &Value| -> Vec<(u64, u64, u64)> {
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["read"]["io_bytes"].as_u64().unwrap(),
                    j["write"]["io_bytes"].as_u64().unwrap(),
                    j["error"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(moved(&json(&want)), moved(&json(&got)));
    // disk_util=0 drops the disk section only when no job watches disks.
    for job in [
        format!("[a]\n{DATA}disk_util=0\n"),
        format!("[a]\n{DATA}disk_util=0\n[b]\n{DATA}\n"),
        format!("[a]\n{DATA}\n"),
    ] {
        let (want, got) = Run::new().args(JSON).job(&job).both_json();
        assert_eq!(
            want.get("disk_util").is_some(),
            got.get("disk_util").is_some(),
            "{job}"
        );
    }
}

/// A mounted block device from the mount table, if this machine has one.
fn mounted_device() -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let table = std::fs::read_to_string("/etc/mtab").ok()?;
    table
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .find(|d| std::fs::metadata(d).is_ok_and(|m| m.file_type().is_block_device()))
        .map(str::to_string)
}

#[test]
fn writes_to_a_mounted_device_are_refused_as_fio_does() {
    let Some(dev) = common::need::require_some("mounted-device", mounted_device()) else {
        return;
    };
    // The null engine touches no file, so neither tool can harm the
    // device even if its guard failed; the guard runs all the same.
    for allow in [0, 1] {
        let job = format!(
            "[a]\nfilename={dev}\nioengine=null\nrw=write\nsize=64k\nallow_mounted_write={allow}\n"
        );
        let (want, got, _, _) = Run::new()
            .args(["--output-format=json"])
            .job(&job)
            .both_kept();
        assert_eq!(
            want.code, got.code,
            "fio: {}\nferrio: {}",
            want.stderr, got.stderr
        );
        let line = format!("fio: {dev} appears mounted");
        assert_eq!(
            want.stderr.contains(&line),
            allow == 0,
            "fio: {}",
            want.stderr
        );
        assert_eq!(
            got.stderr.contains(&line),
            allow == 0,
            "ferrio: {}",
            got.stderr
        );
        let bytes = |o: &Outcome| json(o)["jobs"][0]["write"]["io_bytes"].as_u64();
        assert_eq!(bytes(&want), bytes(&got));
    }
}

#[test]
fn clocksource_gettimeofday_gives_whole_microseconds_as_fio() {
    for source in ["gettimeofday", "clock_gettime", "cpu"] {
        let job = format!("[a]\n{DATA}rw=randread\nclocksource={source}\n");
        let (want, got) = Run::new().args(JSON).job(&job).both_json();
        // Whether every reported latency is a whole number of µs.
        let whole_us = |doc: &Value| {
            let r = &doc["jobs"][0]["read"];
            ["clat_ns", "lat_ns"].iter().all(|k| {
                ["min", "max"]
                    .iter()
                    .all(|m| r[k][m].as_u64().unwrap().is_multiple_of(1000))
            })
        };
        assert_eq!(whole_us(&want), source == "gettimeofday", "fio, {source}");
        assert_eq!(whole_us(&got), source == "gettimeofday", "ferrio, {source}");
    }
}

#[test]
fn layout_options_match_fio() {
    // (job, file's size before, bytes to check at 300000 are data)
    let cases = [
        ("rw=write\nsize=512k\nfile_append=1\n", 0u64),
        ("rw=write\nsize=512k\nfile_append=1\n", 1 << 20),
        ("rw=write\nsize=512k\noverwrite=1\nio_size=4k\n", 0),
        ("rw=write\nsize=512k\nio_size=4k\n", 0),
        (
            "rw=write\nsize=512k\nio_size=4k\noverwrite=1\nfile_append=1\n",
            100_000,
        ),
    ];
    for (options, before) in cases {
        let job = format!("[a]\nfilename=data\n{options}");
        let mut seen = Vec::new();
        for bin in [fio(), ferrio()] {
            let s = Scratch::new("priolayout");
            s.write("job.fio", &job);
            if before > 0 {
                std::fs::write(s.0.join("data"), vec![0u8; before as usize]).unwrap();
            }
            let out = Run::tool(bin).args(["job.fio"]).in_dir(&s.0).out();
            assert_eq!(out.code, 0, "{bin}: {}", out.stderr);
            let data = std::fs::read(s.0.join("data")).unwrap();
            let filled = data
                .get(300_000..300_008)
                .is_some_and(|b| b.iter().any(|&x| x != 0));
            seen.push((data.len(), filled));
        }
        assert_eq!(
            seen[0], seen[1],
            "{options} (file of {before} bytes before)"
        );
    }
    // allow_file_create=0: a missing file is an error, an existing one is
    // used.
    for exists in [false, true] {
        let job = "[a]\nfilename=data\nsize=64k\nallow_file_create=0\n";
        let mut codes = Vec::new();
        for bin in [fio(), ferrio()] {
            let s = Scratch::new("priocreate");
            s.write("job.fio", job);
            if exists {
                std::fs::write(s.0.join("data"), vec![1u8; 65536]).unwrap();
            }
            let out = Run::tool(bin).args(["job.fio"]).in_dir(&s.0).out();
            if !exists {
                assert!(
                    out.stderr
                        .contains("fio: file creation disallowed by allow_file_create=0"),
                    "{bin}: {}",
                    out.stderr
                );
            }
            codes.push(out.code);
        }
        assert_eq!(codes[0], codes[1], "file exists: {exists}");
    }
}

#[test]
fn offset_shares_align_and_clone_regions_match_fio() {
    let cases = [
        "offset=100k\noffset_increment=200k\n",
        "size=500k\noffset=100k\noffset_increment=200k\n",
        "offset=33%\noffset_increment=10%\n",
        "offset=33%\noffset_increment=10%\noffset_align=64k\n",
        "offset=10%\nsize=300k\noffset_increment=100k\n",
        "offset=33%\npre_read=1\n",
    ];
    for options in cases {
        let job = format!("[a]\nfilename=data\nnumjobs=2\n{options}");
        let mut seen = Vec::new();
        for bin in [fio(), ferrio()] {
            let s = Scratch::new("priooffset");
            s.write("job.fio", &job);
            std::fs::write(s.0.join("data"), vec![7u8; 1 << 20]).unwrap();
            let out = Run::tool(bin)
                .args(["--output-format=json", "job.fio"])
                .in_dir(&s.0)
                .out();
            assert_eq!(out.code, 0, "{bin}: {}", out.stderr);
            let doc = json(&out);
            let bytes: Vec<u64> = doc["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| j["read"]["io_bytes"].as_u64().unwrap())
                .collect();
            seen.push(bytes);
        }
        assert_eq!(seen[0], seen[1], "{options}");
    }
}

#[test]
fn lockmem_locks_as_much_as_fio() {
    // exec_prerun's command walks up to the tool's process (fio's job
    // process, ferrio's only one) and reads how much memory it locked.
    let scratch = Scratch::new("priolock");
    let probe = scratch.write(
        "probe.sh",
        "#!/bin/sh\np=$$\nwhile [ \"$p\" != 1 ]; do\n  n=$(cat /proc/$p/comm)\n  \
         case $n in fio|ferrio) grep VmLck /proc/$p/status; break;; esac\n  \
         p=$(cut -d' ' -f4 /proc/$p/stat)\ndone\n",
    );
    std::fs::set_permissions(&probe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let job = format!(
        "[a]\nfilename=data\nsize=64k\nlockmem=3m\nexec_prerun={}\n",
        probe.display()
    );
    let (want, got, a, b) = Run::new().job(&job).both_kept();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    let w = std::fs::read_to_string(a.0.join("a.prerun.txt")).unwrap();
    let g = std::fs::read_to_string(b.0.join("a.prerun.txt")).unwrap();
    assert!(w.contains("3072 kB"), "fio: {w}");
    assert_eq!(w, g);
}

#[test]
fn numa_options_match_fio() {
    // Node lists and policies: accepted or refused alike, with fio's
    // (and libnuma's) lines.
    let values = [
        ("numa_cpu_nodes", "all"),
        ("numa_cpu_nodes", "0"),
        ("numa_cpu_nodes", "x"),
        ("numa_cpu_nodes", "0,4096"),
        ("numa_mem_policy", "local"),
        ("numa_mem_policy", "prefer:0"),
        ("numa_mem_policy", "prefer"),
        ("numa_mem_policy", "bind:0"),
        ("numa_mem_policy", "bind"),
        ("numa_mem_policy", "interleave"),
        ("numa_mem_policy", "local:0"),
        ("numa_mem_policy", "foo"),
    ];
    for (name, value) in values {
        let job = format!("[a]\n{DATA}{name}={value}\n");
        let (want, got, _, _) = Run::new()
            .args(["--output-format=json"])
            .job(&job)
            .both_kept();
        assert_eq!(
            want.code, got.code,
            "{name}={value}: fio {}\nferrio {}",
            want.stderr, got.stderr
        );
        if want.code != 0 {
            let first = want.stderr.lines().next().unwrap();
            assert!(
                got.stderr.contains(first),
                "{name}={value}: {first}\n{}",
                got.stderr
            );
        }
    }
    // numa_cpu_nodes replaces the CPUs cpus_allowed gave, as fio's
    // numa_run_on_node_mask does.
    let scratch = Scratch::new("prionuma");
    let probe = scratch.write(
        "probe.sh",
        "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status\n",
    );
    std::fs::set_permissions(&probe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let job = format!(
        "[a]\n{DATA}cpus_allowed=0\nnuma_cpu_nodes=all\nnuma_mem_policy=interleave\nexec_prerun={}\n",
        probe.display()
    );
    let (want, got, a, b) = Run::new().job(&job).both_kept();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    let read = |d: &std::path::Path| std::fs::read_to_string(d.join("a.prerun.txt")).unwrap();
    assert_eq!(read(&a.0), read(&b.0));
}

#[test]
fn timing_switches_shape_the_report_as_fio() {
    // For each switch: which latencies were measured and have
    // percentiles, whether bw/IOPS were sampled, and the labels of the
    // normal output's latency, percentile and rate lines.
    let switches = [
        "gtod_reduce=1",
        "disable_lat=1",
        "disable_clat=1",
        "disable_slat=1",
        "disable_bw_measurement=1",
        "clat_percentiles=0",
        "lat_percentiles=1",
        "slat_percentiles=1",
        "clat_percentiles=0\nlat_percentiles=1",
        "ramp_time=200ms\ntime_based=1\nruntime=600ms",
    ];
    let shape = |doc: &Value| -> Vec<(String, bool, bool)> {
        let r = &doc["jobs"][0]["read"];
        let mut out: Vec<(String, bool, bool)> = ["slat_ns", "clat_ns", "lat_ns"]
            .iter()
            .map(|k| {
                let n = r[k]["N"].as_u64().unwrap() > 0;
                (k.to_string(), n, r[k].get("percentile").is_some())
            })
            .collect();
        out.push(("bw".into(), r["bw_samples"].as_u64().unwrap() > 0, false));
        out.push((
            "iops".into(),
            r["iops_samples"].as_u64().unwrap() > 0,
            false,
        ));
        out
    };
    let labels = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("    ") || l.starts_with("   bw") || l.starts_with("   iops"))
            .map(|l| l.trim_start())
            .filter(|l| !l.starts_with('|'))
            .map(|l| l.split([':', '(']).next().unwrap().trim().to_string())
            .collect()
    };
    for switch in switches {
        let job = format!("[a]\n{DATA}ioengine=libaio\niodepth=4\nrw=randread\n{switch}\n");
        let (want, got) = Run::new().args(JSON).job(&job).both_json();
        assert_eq!(shape(&want), shape(&got), "{switch}");
        let (want, got, _, _) = Run::new().job(&job).both_kept();
        assert_eq!(labels(&want.stdout), labels(&got.stdout), "{switch}");
    }
}

#[test]
fn buffer_memory_kinds_and_alignment_match_fio() {
    // (options, what must be true of the run): the job's error and bytes
    // moved, and the first line on stderr.
    let cases = [
        "mem=malloc\n",
        "mem=shm\n",
        "iomem=shmhuge\n",
        "mem=mmap\n",
        "mem=mmaphuge\n",
        "mem=mmapshared\n",
        "mem=mmap:bufs\n",
        "direct=1\niomem_align=512\n",
        "direct=1\niomem_align=1\n",
        "direct=1\nmem_align=8192\nmem=shm\n",
    ];
    for options in cases {
        let job = format!(
            "[a]\nfilename=data\nsize=64k\nrw=randrw\nioengine=libaio\niodepth=4\n{options}"
        );
        let (want, got, a, b) = Run::new()
            .args(["--output-format=json"])
            .job(&job)
            .both_kept();
        let summary = |o: &Outcome| {
            let doc = json(o);
            let j = &doc["jobs"][0];
            (
                o.code,
                j["error"].as_u64().unwrap(),
                j["read"]["io_bytes"].as_u64().unwrap() + j["write"]["io_bytes"].as_u64().unwrap(),
                // fio's mmaphuge failure goes on to I/O with no buffer
                // and reports that I/O's EFAULT; ferrio stops at the
                // failed mapping (same job error, ENOMEM).
                if options.contains("mmaphuge") {
                    String::new()
                } else {
                    o.stderr.lines().next().unwrap_or("").to_string()
                },
            )
        };
        assert_eq!(summary(&want), summary(&got), "{options}");
        // A mapped file the job created is removed afterwards.
        assert_eq!(
            a.0.join("bufs").exists(),
            b.0.join("bufs").exists(),
            "{options}"
        );
    }
}

#[test]
fn gtod_cpu_keeps_time_in_microseconds_off_the_jobs_cpu() {
    let scratch = Scratch::new("priogtod");
    let probe = scratch.write(
        "probe.sh",
        "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status\n",
    );
    std::fs::set_permissions(&probe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let job = format!(
        "[a]\n{DATA}rw=randread\ngtod_cpu=1\ncpus_allowed=0-1\nexec_prerun={}\n",
        probe.display()
    );
    let (want, got, a, b) = Run::new()
        .args(["--output-format=json"])
        .job(&job)
        .both_kept();
    assert_eq!(want.code, 0, "fio: {}", want.stderr);
    assert_eq!(got.code, 0, "ferrio: {}", got.stderr);
    // Timestamps are the helper's latest gettimeofday reading: whole
    // microseconds.
    let whole_us = |o: &Outcome| {
        let doc = json(o);
        let r = &doc["jobs"][0]["read"];
        ["clat_ns", "lat_ns"].iter().all(|k| {
            ["min", "max"]
                .iter()
                .all(|m| r[k][m].as_u64().unwrap().is_multiple_of(1000))
        })
    };
    assert!(whole_us(&want));
    assert!(whole_us(&got));
    let read = |d: &std::path::Path| std::fs::read_to_string(d.join("a.prerun.txt")).unwrap();
    assert_eq!(read(&a.0), read(&b.0));
}

#[test]
fn ids_the_job_may_not_take_fail_it_as_in_fio() {
    // Both tools run as nobody (setpriv, as root, makes them) and the
    // job asks for root's ids: setgid/setuid fail with EPERM.
    let setpriv = "setpriv";
    if !common::need::require("setpriv", common::need::program(setpriv))
        || !common::need::require("root", common::need::root())
    {
        return;
    }
    for ids in ["uid=0\n", "gid=0\n"] {
        let mut seen = Vec::new();
        for bin in [fio(), ferrio()] {
            let s = Scratch::new("prioids");
            std::fs::set_permissions(&s.0, std::os::unix::fs::PermissionsExt::from_mode(0o777))
                .unwrap();
            s.write("job.fio", &format!("[a]\nfilename=data\nsize=64k\n{ids}"));
            let args = [
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                bin,
                "--output-format=json",
                "job.fio",
            ];
            let out = Run::tool(setpriv).args(args).in_dir(&s.0).out();
            let doc = json(&out);
            let context = out
                .stderr
                .lines()
                .find_map(|l| l.split_once("func=").map(|(_, f)| f.to_string()))
                .unwrap_or_default();
            seen.push((out.code, doc["jobs"][0]["error"].as_u64(), context));
        }
        assert_eq!(seen[0], seen[1], "{ids}");
        assert_eq!(seen[0].1, Some(1), "{ids}: {:?}", seen[0]);
    }
}
