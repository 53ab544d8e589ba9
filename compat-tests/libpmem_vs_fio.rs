//! fio 3.33's libpmem engine and ferrio's, side by side on files in a
//! scratch folder. These machines have no persistent memory: as fio,
//! ferrio refuses a file that is not on it, and with PMEM_IS_PMEM_FORCE=1
//! (libpmem's own switch to take any mapping as persistent memory) both
//! run, mapping each file with pmem_map_file and copying every I/O.

mod common;

use common::{Outcome, Run, Scratch, json};

const JOBS: &str = "[p]\nioengine=libpmem\nfilename=p\nsize=16m\nbs=4k\nrw=randwrite\n\
    [r]\nioengine=libpmem\nfilename=r\nsize=4m\nbs=64k\nrw=read\nstonewall\n\
    [s]\nioengine=libpmem\nfilename=s\nsize=4m\nbs=4k\nrw=write\nfsync=8\ndirect=1\nstonewall\n\
    [v]\nioengine=libpmem\nfilename=v\nsize=4m\nbs=4k\nrw=randwrite\nverify=crc32c\nstonewall\n";

/// Both tools on `job` in folders of their own, with `env` set:
/// (fio's outcome, ferrio's, and the sizes of the files each left).
fn both(job: &str, env: &[(&str, &str)], json_out: bool) -> [(Outcome, Vec<(String, u64)>); 2] {
    [Run::fio(), Run::ferrio()].map(|program| {
        let mut run = program;
        for (k, v) in env {
            run = run.env(*k, *v);
        }
        if json_out {
            run = run.arg("--output-format=json");
        }
        let dir = Scratch::new("libpmem");
        let out = run.job(job).in_dir(&dir.0).out();
        let mut sizes: Vec<(String, u64)> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_name() != "job.fio")
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, e.metadata().unwrap().len())
            })
            .collect();
        sizes.sort();
        (out, sizes)
    })
}

/// Each job's (name, error, reads, writes, syncs).
fn counts(out: &Outcome) -> Vec<(String, u64, u64, u64, u64)> {
    json(out)["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let n = |d: &str| j[d]["total_ios"].as_u64().unwrap_or(0);
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["error"].as_u64().unwrap(),
                n("read"),
                n("write"),
                n("sync"),
            )
        })
        .collect()
}

#[test]
fn libpmem_maps_copies_and_refuses_as_fio_does() {
    // Not persistent memory: the job fails with EOPNOTSUPP named as fio
    // names it; fio says nothing more, ferrio one `ferrio:` line.
    let [(want, _), (got, _)] = both("[p]\nioengine=libpmem\nfilename=p\nsize=1m\n", &[], false);
    let context = |o: &Outcome| {
        let line = o.stdout.lines().find(|l| l.starts_with("fio: pid="));
        line.map(|l| l.split_once(", ").unwrap().1.to_string())
    };
    assert_eq!((want.code, got.code), (1, 1));
    assert_eq!(context(&got), context(&want));
    assert_eq!(
        context(&want).as_deref(),
        Some(
            "err=95/file:engines/libpmem.c:114, func=file_name does not point to persistent \
             memory, error=Operation not supported"
        )
    );
    assert_eq!(
        common::fio_part(&got.stderr),
        common::fio_part(&want.stderr)
    );
    assert_eq!(
        got.stderr
            .lines()
            .filter(|l| l.starts_with("ferrio: "))
            .count(),
        1
    );
    // Taken as persistent memory: the same I/Os, syncs (pmem_drain) and
    // verify reads, and the files mapped at the jobs' sizes.
    let [(want, fio_files), (got, files)] = both(JOBS, &[("PMEM_IS_PMEM_FORCE", "1")], true);
    assert_eq!(counts(&got), counts(&want));
    let expected = [
        ("p", 0, 0, 4096, 0),
        ("r", 0, 64, 0, 0),
        ("s", 0, 0, 1024, 127),
        ("v", 0, 1024, 1024, 0),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(n, e, r, w, s)| (n.to_string(), *e, *r, *w, *s))
        .collect();
    assert_eq!(counts(&got), expected);
    assert_eq!(files, fio_files);
    let mib = |n: u64| n << 20;
    // (and each leaves v's verify state, local-v-3-verify.state)
    let sizes: Vec<(&str, u64)> = files
        .iter()
        .filter(|(n, _)| !n.ends_with("-verify.state"))
        .map(|(n, s)| (n.as_str(), *s))
        .collect();
    assert_eq!(
        sizes,
        [("p", mib(16)), ("r", mib(4)), ("s", mib(4)), ("v", mib(4))]
    );
}
