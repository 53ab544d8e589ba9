//! fio's random draws, reproduced: the same job run by ferrio and by fio
//! 3.33 issues the same I/Os in the same order — direction, size and
//! offset of every one — read from each tool's per-I/O latency log (the
//! null engine and psync at depth 1 complete in issue order).

mod common;

use common::{Run, Scratch, ferrio, fio};

/// Each log's (direction, size, offset) columns, by file name.
fn issued(bin: &str, job: &str) -> Vec<(String, String)> {
    let dir = Scratch::new("draws");
    dir.write("job.fio", job);
    let out = Run::tool(bin)
        .args(["--output-format=json", "job.fio"])
        .in_dir(&dir.0)
        .out();
    assert_eq!(out.code, 0, "{bin} failed on\n{job}\n{}", out.stderr);
    let mut logs: Vec<(String, String)> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".log"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let columns: Vec<String> = text
                .lines()
                .map(|l| l.splitn(3, ',').nth(2).unwrap_or("").to_string())
                .collect();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                columns.join("\n"),
            )
        })
        .collect();
    logs.sort();
    logs
}

#[test]
fn every_io_goes_where_fio_sends_it() {
    let cases = [
        // The read/write mix: fio's quota of I/Os per direction.
        "rw=randrw\nrwmixread=70\nsize=4m",
        "rw=rw\nrwmixread=30\nsize=1m",
        // Block size ranges and splits, drawn with fio's retries near the
        // end of the region and its smallest-share-first lookup.
        "rw=randread\nbsrange=1k-16k\nsize=1m",
        "rw=read\nbsrange=1k-16k\nsize=1m",
        "rw=randrw\nbssplit=4k/50:16k/30:64k/20\nsize=8m",
        "rw=randread\nbssplit=4k/10:8k:16k/40\nsize=8m",
        // Sizes per direction share one random map in the smallest unit,
        // which ends fio's pass early.
        "rw=randrw\nsize=1m\nbs=4k,16k",
        "rw=randrw\nsize=3m\nbs=4k,64k\nrwmixread=80",
        "rw=randwrite\nsize=1m\nbs=8k\nblockalign=4k",
        "rw=randread\nsize=1000k\nbs=3k",
        // percentage_random, and its random fallback at the region's end.
        "rw=randread\nsize=2m\npercentage_random=50",
        "rw=randrw\nsize=4m\npercentage_random=20,70",
        // Seeds: thread numbers, randseed without randrepeat, loops that
        // draw again from the start, the 64-bit generator, allrandrepeat.
        "rw=randrw\nsize=2m\nnumjobs=3",
        "rw=randrw\nsize=2m\nrandseed=1234\nrandrepeat=0",
        "rw=randrw\nsize=1m\nloops=3",
        "rw=randrw\nsize=1m\nbs=4k,16k\nloops=2",
        "rw=randrw\nsize=1m\nrandom_generator=tausworthe64",
        "rw=randrw\nsize=1m\nallrandrepeat=1",
        "rw=randrw\nsize=1m\nnorandommap",
        // Skewed shapes, seeded from the file name and thread number, and
        // zones of the region or of absolute sizes.
        "rw=randread\nsize=4m\nrandom_distribution=zipf:1.2",
        "rw=randread\nsize=4m\nrandom_distribution=zipf:0.8:0.3\nnumjobs=2",
        "rw=randrw\nsize=4m\nrandom_distribution=pareto:0.3",
        "rw=randread\nsize=4m\nrandom_distribution=normal",
        "rw=randread\nsize=4m\nrandom_distribution=normal:20:0.2",
        "rw=randread\nsize=4m\nrandom_distribution=normal:20:0.7\nrandrepeat=0\nrandseed=77",
        "rw=randrw\nsize=4m\nbs=4k,16k\nrandom_distribution=zipf:1.1",
        "rw=randread\nsize=4m\nrandom_distribution=zoned:60/10:30/20:10/70",
        "rw=randread\nsize=4m\nrandom_distribution=zoned_abs:60/512k:40/3m",
        // fio's split rules: sizes not given are shared out, a size of 0
        // counts as not given, an access share is kept in 8 bits.
        "rw=randread\nsize=4m\nrandom_distribution=zoned:60:40",
        "rw=randread\nsize=4m\nrandom_distribution=zoned:60/0:30:10/50",
        "rw=randread\nsize=4m\nrandom_distribution=zoned:300/50:56/50",
        "rw=randread\nsize=4m\nfilename=some/dir/../data\nrandom_distribution=zipf:1.2",
    ];
    for case in cases {
        let job = format!("[j]\nioengine=null\nwrite_lat_log=x\nlog_offset=1\n{case}\n");
        let want = issued(fio(), &job);
        assert!(!want.is_empty(), "fio wrote no log for\n{job}");
        assert_eq!(
            issued(ferrio(), &job),
            want,
            "I/Os differ from fio's for\n{job}"
        );
    }
}

#[test]
fn a_file_job_reads_and_writes_where_fio_does() {
    let job = "[j]\nioengine=psync\nfilename=data\nrw=randrw\nrwmixread=60\n\
               bsrange=4k-32k\nsize=4m\nwrite_lat_log=x\nlog_offset=1\n";
    let want = issued(fio(), job);
    assert_eq!(issued(ferrio(), job), want);
}
