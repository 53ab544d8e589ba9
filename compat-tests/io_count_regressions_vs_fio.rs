//! Job shapes where ferrio once issued a different number of I/Os (or
//! bytes, or errors) than fio 3.33: each job runs in both tools, in a
//! fresh folder of its own, and the per-direction I/O and byte counts,
//! the job's error and the exit code must agree. Most cases came from a
//! random differential sweep over job options and were cut down to the
//! options that matter.

mod common;

use common::{JSON, Run, ferrio, fio, ios_and_bytes, json, parallel};

/// What a job did: its error, then (I/Os, bytes) for read, write and
/// trim, and the tool's exit code.
type Counts = (i64, [(u64, u64); 3], i32);

fn counts(tool: &str, job: &str) -> Counts {
    let (_, out) = Run::tool(tool)
        .args(JSON)
        .job(&format!("[x]\n{job}"))
        .out_kept("sweep");
    let doc = json(&out);
    let j = &doc["jobs"][0];
    (j["error"].as_i64().unwrap(), ios_and_bytes(j), out.code)
}

/// Runs every job in both tools and fails with the list of those that
/// differ.
fn same_as_fio(jobs: &[String]) {
    let results = parallel(jobs, |job| (counts(fio(), job), counts(ferrio(), job)));
    let differ: Vec<String> = jobs
        .iter()
        .zip(&results)
        .filter(|(_, (a, b))| a != b)
        .map(|(job, (a, b))| format!("{}\n  fio    {a:?}\n  ferrio {b:?}", job.replace('\n', " ")))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// fio leaves a used block unmarked in the random map when the I/O's
/// fill first tried another file on the sequential path (the io_u keeps
/// its busy-ok flag until it completes); with several files whose size
/// is not a multiple of the block size, a file runs out there and the
/// next file's random block is then drawn again later.
#[test]
fn percentage_random_over_files_that_run_out() {
    let mut jobs = Vec::new();
    for engine in ["psync", "libaio"] {
        jobs.push(format!(
            "ioengine={engine}\nrw=randread\nbs=8k\nsize=1m\nnrfiles=5\npercentage_random=50\n"
        ));
    }
    let services = ["roundrobin", "random", "sequential"];
    let mut n = 0;
    for nrfiles in [1, 2, 3, 5] {
        for size in ["1m", "1000k", "777k"] {
            for percent in [0, 25, 50, 100] {
                for rw in ["randread", "randwrite", "randrw"] {
                    let service = services[n % services.len()];
                    n += 1;
                    jobs.push(format!(
                        "ioengine=psync\nrw={rw}\nbs=8k\nsize={size}\nnrfiles={nrfiles}\n\
                         percentage_random={percent}\nfile_service_type={service}\n"
                    ));
                }
            }
        }
    }
    same_as_fio(&jobs);
}

/// A read/write mix draws its direction again for each file fio tries
/// for one I/O, so a file that runs out moves the mix's draws on.
#[test]
fn read_write_mix_draws_again_for_each_file_tried() {
    let jobs: Vec<String> = [
        "rw=randrw\nbs=8k\nsize=1m\nnrfiles=5\npercentage_random=50\n",
        "rw=randrw\nbs=8k\nsize=777k\nnrfiles=3\npercentage_random=25\nfile_service_type=sequential\n",
        "rw=randrw\nbs=8k\nsize=1000k\nnrfiles=4\nfile_service_type=random\n",
        "rw=rw\nbs=8k\nsize=777k\nnrfiles=4\nrwmixread=30\n",
    ]
    .iter()
    .map(|j| format!("ioengine=psync\n{j}"))
    .collect();
    same_as_fio(&jobs);
}

/// Past its loops, fio goes on while the bytes done fall short of one
/// io_size, not of io_size per loop: `size=1m io_size=2m loops=2` reads
/// 2 MiB, not 4.
#[test]
fn io_size_beyond_size_with_loops() {
    let jobs: Vec<String> = [
        "size=1m\nio_size=2m\nloops=2\n",
        "size=1m\nio_size=2m\nloops=3\n",
        "size=1m\nio_size=1536k\nloops=2\n",
        "size=1m\nio_size=3m\nloops=2\n",
        "size=1m\nio_size=512k\nloops=2\n",
        "size=1m\nio_size=2m\nloops=2\nrw=randread\n",
        "size=1m\nio_size=3m\nloops=2\nrw=randrw\nnrfiles=3\n",
        "size=1m\nio_size=2m\nloops=2\nrw=randwrite\nnorandommap=1\n",
    ]
    .iter()
    .map(|j| format!("ioengine=psync\n{j}"))
    .collect();
    same_as_fio(&jobs);
}

/// fio reseeds the file choice at each loop of a job that repeats its
/// randomness, so a second loop over randomly chosen files repeats the
/// first.
#[test]
fn random_file_choice_repeats_each_loop() {
    let jobs: Vec<String> = [
        "rw=randread\nbs=8k\nsize=300k\nnrfiles=2\npercentage_random=50\nfile_service_type=random\nloops=2\n",
        "rw=randread\nbs=8k\nsize=300k\nnrfiles=2\npercentage_random=50\nfile_service_type=random\nloops=3\n",
        "rw=randread\nbs=8k\nsize=300k\nnrfiles=4\npercentage_random=50\nfile_service_type=random:2\nloops=2\n",
        "rw=randread\nbs=8k\nsize=300k\nnrfiles=2\npercentage_random=50\nfile_service_type=zipf:1.1\nloops=2\n",
    ]
    .iter()
    .map(|j| format!("ioengine=psync\n{j}"))
    .collect();
    same_as_fio(&jobs);
}

/// fio's first loop runs until its files' offsets run out or the bytes
/// of all its loops are issued: with reads and writes each on their own
/// position, or random offsets without a map, a loop goes on past the
/// job's size and the next loop starts over only after that.
#[test]
fn a_loop_goes_on_while_its_offsets_last() {
    let jobs: Vec<String> = [
        "rw=randrw\nloops=2\nnorandommap=1\n",
        "rw=rw\nloops=2\n",
        "rw=rw\nloops=3\n",
        "rw=randrw\nloops=2\n",
        "rw=read\nloops=2\n",
        "rw=read\nloops=2\nnrfiles=3\n",
        "rw=write\nloops=2\nverify=crc32c\n",
        "rw=randwrite\nloops=2\nverify=crc32c\nnorandommap=1\n",
        "rw=rw\nloops=2\nio_size=512k\n",
        "rw=read\nloops=3\nio_size=2m\n",
        "rw=randrw\nloops=2\nnorandommap=1\nioengine=libaio\niodepth=8\n",
    ]
    .iter()
    .map(|j| format!("ioengine=psync\nsize=1000k\n{j}"))
    .collect();
    same_as_fio(&jobs);
}

/// fio sizes a file's random map in the smallest block size of all three
/// directions (its rw_min_bs), used or not, while a direction marks it
/// in its own: `bs=4k-16k` (fio reads it as 4k reads and 16k writes) or
/// `bs=4k,16k` on a random writer runs out of map after 29 writes.
#[test]
fn random_map_counts_blocks_of_the_smallest_size_of_any_direction() {
    let jobs: Vec<String> = [
        "rw=randwrite\nbs=4k-16k\nsize=1m\n",
        "rw=randwrite\nbs=4k-16k\nsize=3m\nioengine=null\n",
        "rw=randwrite\nbs=4k,16k\nsize=1m\n",
        "rw=randread\nbs=16k,4k\nsize=1m\n",
        "rw=randrw\nbs=4k,16k\nsize=1m\n",
        "rw=randwrite\nbs=4k,16k\nsize=1m\nrandom_generator=lfsr\n",
        "rw=randtrim\nbs=4k,4k,16k\nsize=1m\nioengine=null\n",
    ]
    .iter()
    .map(|j| j.to_string())
    .collect();
    same_as_fio(&jobs);
}

/// A blockalign equal to a direction's smallest size (fio's own default)
/// keeps the random map: `ba=4k` on a 4k random writer over three files
/// whose sizes are not multiples of 4k issues each block once.
#[test]
fn blockalign_of_the_block_size_keeps_the_random_map() {
    let jobs: Vec<String> = [
        "rw=randwrite\nsize=1000k\nnrfiles=3\nba=4k\n",
        "rw=randread\nsize=1m\nbs=8k\nba=4k\n",
        "rw=randrw\nsize=1m\nbs=4k,8k\nba=4k,8k\n",
        "rw=randread\nsize=1m\nba=8k\n",
    ]
    .iter()
    .map(|j| j.to_string())
    .collect();
    same_as_fio(&jobs);
}

/// fio's mmap engine fails its setup (err=1) when blocks smaller than a
/// page meet direct=1 or periodic syncs.
#[test]
fn mmap_refuses_blocks_below_a_page_with_direct_or_syncs() {
    let jobs: Vec<String> = [
        "rw=randrw\nbs=1k-9k\nsize=256k\ndirect=1\n",
        "rw=write\nbs=1k\nsize=256k\nfsync=4\n",
        "rw=write\nbs=8k\nsize=256k\nfsync=4\n",
        "rw=read\nbs=1k\nsize=256k\n",
    ]
    .iter()
    .map(|j| format!("ioengine=mmap\n{j}"))
    .collect();
    same_as_fio(&jobs);
}

/// fio's vsync engine writes a trimwrite job's trims (its writev takes
/// every direction but reads) where the other engines fail with ENOTTY
/// on a regular file.
#[test]
fn vsync_trimwrite_writes_its_trims() {
    let jobs: Vec<String> = ["bs=64k\nsize=3m\n", "bs=512\nsize=1m\n"]
        .iter()
        .map(|j| format!("ioengine=vsync\nrw=trimwrite\n{j}"))
        .collect();
    same_as_fio(&jobs);
}

/// fio's vsync never sees a short transfer: reading a file created empty
/// on open counts every read whole where psync fails with EIO.
#[test]
fn vsync_counts_short_reads_whole() {
    let jobs: Vec<String> = [
        "ioengine=vsync\nrw=read\nsize=256k\ncreate_on_open=1\n",
        "ioengine=vsync\nrw=rw\nbs=512\nsize=256k\ncreate_on_open=1\n",
        "ioengine=psync\nrw=read\nsize=256k\ncreate_on_open=1\n",
    ]
    .iter()
    .map(|j| j.to_string())
    .collect();
    same_as_fio(&jobs);
}
