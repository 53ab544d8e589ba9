//! Offsets and files beside fio 3.33: the offsets each tool issues (read
//! from its per-I/O latency log, which carries them with log_offset=1),
//! the files it creates and their sizes and allocated blocks.

mod common;

use std::os::unix::fs::MetadataExt;

use common::{Run, Scratch, ferrio, fio, lat_log_ios};
use serde_json::Value;

/// Runs `job` with `tool` in a fresh scratch folder and returns it.
fn run_in(tool: &str, job: &str) -> Scratch {
    let args = ["--output-format=json", "--output=out.json"];
    Run::tool(tool).args(args).job(job).ok_kept("files").0
}

/// (direction, length, offset) of one logged I/O.
type Io = (u64, u64, u64);

/// Every I/O in a folder's `x_lat.1.log`.
fn issued(s: &Scratch) -> Vec<Io> {
    lat_log_ios(&std::fs::read_to_string(s.0.join("x_lat.1.log")).unwrap())
}

/// A psync job at depth 1 (so the log is in issue order) on `file`
/// (`None`: fio's generated names), logging each I/O's offset.
fn logged(file: Option<&str>, options: &str) -> String {
    let file = file.map_or(String::new(), |f| format!("filename={f}\n"));
    format!("[j]\nioengine=psync\n{file}write_lat_log=x\nlog_offset=1\n{options}")
}

/// Runs the job with both tools; returns (fio's, ferrio's) issued I/Os.
fn both(job: &str, prepare: impl Fn(&Scratch)) -> (Vec<Io>, Vec<Io>) {
    let run_prepared = |tool| {
        let s = Scratch::new("files");
        prepare(&s);
        s.write("job.fio", job);
        let out = Run::tool(tool)
            .args(["--output=/dev/null", "job.fio"])
            .in_dir(&s.0)
            .out();
        assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
        issued(&s)
    };
    (run_prepared(fio()), run_prepared(ferrio()))
}

/// A 1 MiB data file, so regions can sit inside a longer file.
fn megabyte_file(s: &Scratch) {
    std::fs::write(s.0.join("data"), vec![7u8; 1 << 20]).unwrap();
}

#[test]
fn sequential_holes_and_backward_steps_issue_fios_offsets() {
    for options in [
        "rw=read:8k\nbs=4k\nsize=1m\n",
        "rw=read:-8k\nbs=4k\nsize=64k\n",
        "rw=read:-8k\nbs=4k\nsize=64k\noffset=16k\n",
        "rw=read:-4k\nbs=4k\nsize=256k\noffset=512k\n",
        "rw=write:12k\nbs=4k\nsize=1m\nloops=3\n",
        "rw=read:4k\nbs=16k\nsize=64k\nio_size=128k\n",
        "rw=read\nbs=16k\nsize=64k\nio_size=128k\n",
    ] {
        let (want, got) = both(&logged(Some("data"), options), megabyte_file);
        assert_eq!(got, want, "{options}");
    }
}

#[test]
fn random_modifiers_issue_fios_offsets() {
    // fio's generators are reproduced, so even the random offsets match:
    // a new one every N I/Os, repeated (identical) or continued from
    // (sequential) in between.
    for options in [
        "rw=randread:4\nrw_sequencer=identical\nbs=4k\nsize=64k\n",
        "rw=randread:4\nrw_sequencer=sequential\nbs=4k\nsize=64k\n",
        "rw=randread:3\nbs=16k\nsize=64k\nio_size=128k\n",
        "rw=randrw:2\nbs=4k\nsize=256k\n",
        "rw=rw:-16k\nbs=8k\nsize=512k\n",
        "rw=read:4k\nbsrange=4k-16k\nsize=512k\n",
    ] {
        let (want, got) = both(&logged(Some("data"), options), megabyte_file);
        assert_eq!(got, want, "{options}");
    }
}

#[test]
fn strided_zones_issue_fios_offsets() {
    for options in [
        "zonesize=16k\nzonerange=64k\nsize=256k\n",
        "zonesize=16k\nzonerange=64k\nzoneskip=32k\nsize=256k\n",
        "zonesize=8k\nzonerange=4k\nsize=1m\n",
        "zonesize=64k\nzoneskip=64k\noffset=128k\nsize=1m\n",
    ] {
        let job = logged(
            Some("data"),
            &format!("rw=read\nbs=4k\nzonemode=strided\n{options}"),
        );
        let (want, got) = both(&job, megabyte_file);
        assert_eq!(got, want, "{options}");
    }
    // A zonesize without zonemode=strided is refused by both.
    let s = Scratch::new("files");
    s.write("job.fio", "[j]\nfilename=data\nsize=64k\nzonesize=16k\n");
    let want = Run::fio().args(["job.fio"]).in_dir(&s.0).out();
    let got = Run::ferrio().args(["job.fio"]).in_dir(&s.0).out();
    assert_ne!(want.code, 0);
    assert_ne!(got.code, 0);
    assert!(
        got.stderr
            .contains("--zonemode=none and --zonesize are not compatible")
    );
}

#[test]
fn file_service_types_go_through_files_as_fio_does() {
    for options in [
        "file_service_type=sequential\nrw=read\n",
        "file_service_type=roundrobin:3\nrw=read\n",
        "rw=read:4k\n",
        "file_service_type=sequential\nrw=read:-4k\n",
        "openfiles=1\nrw=read\n",
        "openfiles=2\nrw=read\nloops=2\n",
        "openfiles=3\nrw=read:4k\nfile_service_type=roundrobin:2\n",
    ] {
        let job = logged(None, &format!("nrfiles=4\nsize=256k\nbs=4k\n{options}"));
        let (want, got) = both(&job, |_| {});
        assert_eq!(got, want, "{options}");
    }
    // Random choices draw from fio's generators: the same files in the
    // same order.
    for kind in [
        "random", "random:4", "zipf:1.2", "pareto", "normal", "gauss:10",
    ] {
        let job = logged(
            None,
            &format!("nrfiles=4\nsize=256k\nbs=4k\nrw=read\nfile_service_type={kind}\n"),
        );
        let (want, got) = both(&job, |_| {});
        assert_eq!(got, want, "{kind}");
    }
    let job = logged(
        None,
        "nrfiles=4\nsize=256k\nbs=4k\nrw=randread\nfile_service_type=sequential\n",
    );
    let (want, got) = both(&job, |_| {});
    assert_eq!(got, want);
}

/// (name, size) of each file a run left, other than its own.
fn files_left(s: &Scratch) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = std::fs::read_dir(&s.0)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            !n.ends_with(".fio") && !n.ends_with(".json") && !n.ends_with(".log")
        })
        .map(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            (n, e.metadata().unwrap().len())
        })
        .collect();
    out.sort();
    out
}

/// (job name, read I/Os, write I/Os) of each job of a folder's out.json.
fn io_counts(s: &Scratch) -> Vec<(String, u64, u64)> {
    let text = std::fs::read_to_string(s.0.join("out.json")).unwrap();
    let doc: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["read"]["total_ios"].as_u64().unwrap(),
                j["write"]["total_ios"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn filename_format_and_filesize_ranges_make_fios_files() {
    let job = "[j]\nnrfiles=5\nfilesize=64k-1m\nbs=4k\nrw=read\n\
               [k]\nnrfiles=3\nfilesize=100k-300k\nbs=8k\nrw=write\n\
               [f]\nnumjobs=2\nnrfiles=2\nsize=32k\nrw=write\n\
               filename_format=f.$JOBNAME.$jobnum.$filenum.x\n\
               [shared]\nnumjobs=2\nnrfiles=2\nsize=64k\nrw=read\n\
               filename_format=shared.$filenum\n";
    let (want, got) = (run_in(fio(), job), run_in(ferrio(), job));
    // The same names, and each file of a filesize range sized as fio
    // sized it (fio's generator, fio's seed).
    assert_eq!(files_left(&got), files_left(&want));
    // A clone whose names are all taken has no file and does nothing.
    assert_eq!(io_counts(&got), io_counts(&want));
}

#[test]
fn fallocate_modes_reserve_what_fio_reserves() {
    // A write job that writes 64k of a 1m file: what each mode leaves
    // shows in the file's size and its allocated blocks.
    for mode in ["none", "native", "posix", "keep", "truncate"] {
        let job = format!(
            "[j]\nioengine=psync\nfilename=f\nsize=1m\nio_size=64k\nbs=4k\nrw=write\nfallocate={mode}\n"
        );
        let shape = |s: &Scratch| {
            let m = std::fs::metadata(s.0.join("f")).unwrap();
            (m.len(), m.blocks())
        };
        let (want, got) = (run_in(fio(), &job), run_in(ferrio(), &job));
        assert_eq!(shape(&got), shape(&want), "fallocate={mode}");
    }
    // create_on_open: no layout; the writes make the file.
    let job = "[j]\nioengine=psync\nfilename=c\nsize=64k\nbs=4k\nrw=write\ncreate_on_open=1\n";
    let (want, got) = (run_in(fio(), job), run_in(ferrio(), job));
    assert_eq!(files_left(&got), files_left(&want));
    assert_eq!(io_counts(&got), io_counts(&want));
}

#[test]
fn zoned_abs_issues_fios_offsets() {
    // 80% of the accesses in the first 64k, 20% in the next 192k.
    let job = logged(
        Some("data"),
        "rw=randread\nbs=4k\nsize=1m\nio_size=8m\nnorandommap\n\
         random_distribution=zoned_abs:80/64k:20/192k\n",
    );
    let (want, got) = both(&job, megabyte_file);
    assert_eq!(got, want);
}

/// Mounts a 2 MiB tmpfs at `dir`; false where mounting is not allowed.
fn small_tmpfs(dir: &std::path::Path) -> bool {
    std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn fill_device_writes_until_the_device_is_full_and_ends_cleanly() {
    // (exit status, error, write I/Os, bytes written, stderr) of a run.
    let outcome = |tool: &str, job: &str, dir: &std::path::Path| {
        let _ = std::fs::remove_file(dir.join("f"));
        let s = Scratch::new("fill");
        s.write("job.fio", &job.replace("DIR", &dir.display().to_string()));
        let out = Run::tool(tool)
            .args(["--output-format=json", "job.fio"])
            .in_dir(&s.0)
            .out();
        let doc: Value =
            serde_json::from_str(&out.stdout[out.stdout.find('{').unwrap()..]).unwrap();
        let j = &doc["jobs"][0];
        (
            out.code,
            j["error"].as_u64().unwrap(),
            j["write"]["total_ios"].as_u64().unwrap(),
            j["write"]["io_bytes"].as_u64().unwrap(),
            out.stderr.trim().to_string(),
        )
    };
    let job =
        |extra: &str| format!("[w]\nfilename=DIR/f\nioengine=psync\nrw=write\nbs=64k\n{extra}");
    // With a size, fill_device changes nothing.
    let s = Scratch::new("fill");
    let sized = job("fill_device=1\nsize=1m\n");
    assert_eq!(
        outcome(ferrio(), &sized, &s.0),
        outcome(fio(), &sized, &s.0)
    );
    let mount = Scratch::new("tmpfs");
    // The full-device cases are what this test is for.
    if !common::need::require("mount", small_tmpfs(&mount.0)) {
        return;
    }
    // Without a size: write until ENOSPC, report that I/O's error, end
    // without failing. Without fill_device the same ENOSPC fails the job.
    for extra in ["fill_device=1\n", "size=4m\n"] {
        let job = job(extra);
        let want = outcome(fio(), &job, &mount.0);
        let got = outcome(ferrio(), &job, &mount.0);
        assert_eq!(got, want, "{extra}");
    }
    let _ = std::fs::remove_file(mount.0.join("f"));
    let _ = std::process::Command::new("umount").arg(&mount.0).status();
}

/// fill_device on a reading job, in a 2 MiB tmpfs: without a size the
/// layout writes until the filesystem is full and the job reads all of
/// it (each file cut to what it got; a second file gets nothing), for
/// every loop; with a size it is an ordinary layout. Compared: exit
/// status, error, read I/Os and bytes, stderr, and the files' sizes.
#[test]
fn fill_device_on_a_reading_job_reads_what_the_layout_wrote() {
    let mount = Scratch::new("tmpfs-read");
    if !common::need::require("mount", small_tmpfs(&mount.0)) {
        return;
    }
    let outcome = |tool: &str, job: &str| {
        for entry in std::fs::read_dir(&mount.0).unwrap().flatten() {
            let _ = std::fs::remove_file(entry.path());
        }
        let s = Scratch::new("fill-read");
        s.write(
            "job.fio",
            &job.replace("DIR", &mount.0.display().to_string()),
        );
        let out = Run::tool(tool)
            .args(["--output-format=json", "job.fio"])
            .in_dir(&s.0)
            .out();
        let doc: Value =
            serde_json::from_str(&out.stdout[out.stdout.find('{').unwrap()..]).unwrap();
        let j = &doc["jobs"][0];
        let mut sizes: Vec<(String, u64)> = std::fs::read_dir(&mount.0)
            .unwrap()
            .flatten()
            .map(|e| {
                let len = e.metadata().map(|m| m.len()).unwrap_or(0);
                (e.file_name().to_string_lossy().into_owned(), len)
            })
            .collect();
        sizes.sort();
        (
            out.code,
            j["error"].as_u64().unwrap(),
            j["read"]["total_ios"].as_u64().unwrap(),
            j["read"]["io_bytes"].as_u64().unwrap(),
            out.stderr.trim().to_string(),
            sizes,
        )
    };
    for extra in [
        "rw=read\n",
        "rw=randread\nbs=48k\n",
        "rw=read\nloops=2\n",
        "rw=read\nnrfiles=2\n",
        "rw=randread\nioengine=libaio\niodepth=4\n",
        "rw=read\nsize=1m\n",
    ] {
        let job = format!("[r]\ndirectory=DIR\nioengine=psync\nbs=64k\nfill_device=1\n{extra}");
        let want = outcome(fio(), &job);
        assert!(want.3 > 0, "{extra}: fio read nothing: {want:?}");
        assert_eq!(outcome(ferrio(), &job), want, "{extra}");
    }
    for entry in std::fs::read_dir(&mount.0).unwrap().flatten() {
        let _ = std::fs::remove_file(entry.path());
    }
    let _ = std::process::Command::new("umount").arg(&mount.0).status();
}

#[test]
fn reading_a_file_created_on_open_fails_with_fios_full_resid() {
    let job = "[j]\nioengine=psync\nfilename=f\nsize=64k\nbs=4k\nrw=read\ncreate_on_open=1\n";
    let outcome = |tool: &str| {
        let s = Scratch::new("files");
        s.write("job.fio", job);
        let out = Run::tool(tool)
            .args(["--output-format=json", "job.fio"])
            .in_dir(&s.0)
            .out();
        let doc: Value =
            serde_json::from_str(&out.stdout[out.stdout.find('{').unwrap()..]).unwrap();
        let j = &doc["jobs"][0];
        (
            out.code,
            j["error"].as_u64().unwrap(),
            j["read"]["total_ios"].as_u64().unwrap(),
            std::fs::metadata(s.0.join("f")).unwrap().len(),
        )
    };
    assert_eq!(outcome(ferrio()), outcome(fio()));
}

/// `unlink=1` removes only regular files, as fio's does: a job writing to
/// a character device (a private copy of /dev/null's node, made in the
/// test's directory) leaves the node in place in both tools, with the
/// same bytes written. Needs root for mknod.
#[test]
fn unlink_leaves_device_nodes_alone() {
    use std::os::unix::fs::FileTypeExt;
    if !common::need::require("root", common::need::root()) {
        return;
    }
    for tool in [fio(), ferrio()] {
        let s = Scratch::new("unlink-node");
        let node = s.0.join("null-node");
        let c = std::ffi::CString::new(node.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path; /dev/null's device numbers (1, 3).
        let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
        assert_eq!(made, 0, "mknod");
        s.write(
            "job.fio",
            "[w]\nfilename=null-node\nioengine=psync\nrw=write\nbs=4k\nsize=64k\nunlink=1\n",
        );
        let out = Run::tool(tool)
            .args(["--output-format=json", "job.fio"])
            .in_dir(&s.0)
            .out();
        assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
        let doc: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(doc["jobs"][0]["write"]["io_bytes"], 65536, "{tool}");
        let kind = std::fs::symlink_metadata(&node).map(|m| m.file_type().is_char_device());
        assert!(
            kind.unwrap_or(false),
            "{tool} removed or replaced the device node"
        );
    }
}

/// unlink_each_loop: before each loop after the first fio removes the
/// job's files and opens them again, which creates a writer's files empty
/// (no layout: a mixed job's reads of them then find nothing) and fails a
/// reader's open. Compared: exit status, error, bytes and I/Os of each
/// direction, stderr, and the files left.
#[test]
fn unlink_each_loop_removes_and_reopens_files_as_fio_does() {
    for (rw, extra) in [
        ("write", "nrfiles=2\n"),
        ("read", ""),
        ("randrw", ""),
        ("randrw", "ioengine=libaio\niodepth=4\n"),
    ] {
        let job = format!(
            "[j]\nioengine=psync\nsize=64k\nbs=4k\nrw={rw}\nloops=3\nunlink_each_loop=1\n{extra}"
        );
        let outcome = |tool: &str| {
            let s = Scratch::new("files");
            s.write("job.fio", &job);
            let out = Run::tool(tool)
                .args(["--output-format=json", "job.fio"])
                .in_dir(&s.0)
                .out();
            let doc: Value =
                serde_json::from_str(&out.stdout[out.stdout.find('{').unwrap()..]).unwrap();
            let j = &doc["jobs"][0];
            let figures: Vec<u64> = ["read", "write"]
                .iter()
                .flat_map(|d| [&j[d]["io_bytes"], &j[d]["total_ios"]])
                .map(|v| v.as_u64().unwrap())
                .collect();
            // fio's line names its source file; the rest must agree.
            let stderr = out.stderr.replace("file:backend.c:471, ", "");
            let stderr = stderr.replace("file:filesetup.c:805, ", "");
            let stderr: String = stderr
                .lines()
                .map(|l| l.split(", err=").last().unwrap_or(l).to_string())
                .collect();
            let left = files_left(&s);
            (
                out.code,
                j["error"].as_u64().unwrap(),
                figures,
                stderr,
                left,
            )
        };
        assert_eq!(outcome(ferrio()), outcome(fio()), "rw={rw} {extra}");
    }
}

/// The most of a job's files (`j.0.N`) open at once in an strace log of
/// openat and close calls.
fn open_files_at_once(trace: &str) -> usize {
    let mut open = std::collections::HashSet::new();
    let mut most = 0;
    for line in trace.lines() {
        if line.contains("openat(AT_FDCWD, \"j.0.") {
            if let Some(fd) = line
                .rsplit("= ")
                .next()
                .and_then(|f| f.trim().parse::<u32>().ok())
            {
                open.insert(fd.to_string());
                most = most.max(open.len());
            }
        } else if let Some(at) = line.find("close(") {
            let fd = line[at + 6..].split(')').next().unwrap_or("");
            if line.trim_end().ends_with("= 0") {
                open.remove(fd);
            }
        }
    }
    most
}

/// openfiles below nrfiles: fio opens a file only when the job comes to
/// it and closes it when done, so no more than openfiles are open at
/// once (on an async engine, counting a file done with until its last
/// I/O has ended). Compared (under strace): the most of the job's files
/// open at once, and the offsets issued (from the lat log).
#[test]
fn openfiles_opens_files_lazily_as_fio_does() {
    if !common::need::require("strace", common::need::program("strace")) {
        return;
    }
    for options in [
        "rw=read\nnrfiles=6\nopenfiles=2\n",
        "rw=randread\nnrfiles=6\nopenfiles=2\nfile_service_type=roundrobin\n",
        "rw=randread\nnrfiles=6\nopenfiles=4\nfile_service_type=zipf:1.2\n",
        "rw=randwrite\nnrfiles=5\nopenfiles=3\nfile_service_type=random\n",
        // An async engine: a file done with stays open (and counted) until
        // the I/O in flight on it has ended, and the job reaps meanwhile.
        "ioengine=libaio\niodepth=4\nrw=read\nnrfiles=6\nopenfiles=1\n",
        "ioengine=libaio\niodepth=4\nrw=randread\nnrfiles=6\nopenfiles=1\nfile_service_type=random\n",
        "ioengine=io_uring\niodepth=8\nrw=randread\nnrfiles=6\nopenfiles=2\nfile_service_type=sequential\n",
    ] {
        let job = format!("{}bs=4k\nfilesize=32k\n{options}", logged(None, ""));
        let outcome = |tool: &str| {
            let s = Scratch::new("files");
            s.write("job.fio", &job);
            let args = [
                "-f",
                "-qq",
                "-e",
                "trace=openat,close",
                "-o",
                "trace.txt",
                tool,
                "--output=/dev/null",
                "job.fio",
            ];
            let out = Run::tool("strace").args(args).in_dir(&s.0).out();
            assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
            let trace = std::fs::read_to_string(s.0.join("trace.txt")).unwrap();
            (open_files_at_once(&trace), issued(&s))
        };
        let (mut want, mut got) = (outcome(fio()), outcome(ferrio()));
        assert!(want.0 > 0, "{options}: no file opened under strace");
        assert_eq!(got.0, want.0, "{options}: most files open at once");
        // The log has the I/Os in the order they completed: at a depth
        // above one a busy machine may swap neighbours, in either tool.
        if options.contains("iodepth") {
            want.1.sort_unstable();
            got.1.sort_unstable();
        }
        assert_eq!(got.1, want.1, "{options}: offsets");
    }
}

/// A verifying writer with openfiles below its file count checks its
/// blocks at the end of each loop, when the files it is done with are
/// closed: both tools open them again for the checks (ferrio once
/// panicked there), and read back every block written.
#[test]
fn verify_between_loops_reopens_closed_files_as_fio_does() {
    let job = "[x]\nioengine=psync\nnrfiles=3\nopenfiles=1\nsize=3m\nbs=4k\nrw=write\n\
               loops=2\nverify=crc32c\n";
    let counts = |tool: &str| {
        let s = run_in(tool, job);
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(s.0.join("out.json")).unwrap()).unwrap();
        let j = &doc["jobs"][0];
        (
            j["error"].as_u64().unwrap(),
            j["read"]["total_ios"].as_u64().unwrap(),
            j["write"]["total_ios"].as_u64().unwrap(),
        )
    };
    let want = counts(fio());
    assert_eq!(want, (0, 1536, 1536), "fio");
    assert_eq!(counts(ferrio()), want);
}

/// Where the files go with `directory`: in front of every name given,
/// even an absolute one (fio makes dir//abs/path), and for the names fio
/// makes up, clone N in entry N of a colon list. ferrio once wrote a
/// named file to the current folder instead, outside the directory.
#[test]
fn directory_prefixes_every_file_as_fio_does() {
    let files = |tool: &str| {
        let s = Scratch::new("files");
        for dir in ["dd", "a", "b"] {
            std::fs::create_dir_all(s.0.join(dir)).unwrap();
        }
        let absolute = s.0.join("f2");
        std::fs::create_dir_all(
            s.0.join("dd")
                .join(absolute.parent().unwrap().strip_prefix("/").unwrap()),
        )
        .unwrap();
        let job = format!(
            "[global]\nsize=64k\nrw=write\n[x]\ndirectory=dd\nfilename=f1\n\
             [y]\ndirectory=dd\nfilename={}\n[z]\ndirectory=a:b\nnumjobs=3\n\
             [w]\ndirectory=a:b\nfilename=f\nnumjobs=2\n",
            absolute.display()
        );
        s.write("job.fio", &job);
        let out = Run::tool(tool)
            .args(["--output=/dev/null", "job.fio"])
            .in_dir(&s.0)
            .out();
        assert_eq!(out.code, 0, "{tool}: {}", out.stderr);
        let mut found = Vec::new();
        let mut stack = vec![s.0.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.file_name().unwrap() != "job.fio" {
                    let inside = path.strip_prefix(&s.0).unwrap().display().to_string();
                    let scratch = s.0.display().to_string();
                    found.push(inside.replace(scratch.trim_start_matches('/'), "SCRATCH"));
                }
            }
        }
        found.sort();
        found
    };
    let want = files(fio());
    assert!(want.contains(&"dd/f1".to_string()), "{want:?}");
    assert_eq!(files(ferrio()), want);
}
