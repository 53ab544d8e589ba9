//! fio's built-in workload profiles (`--profile=NAME`).
//!
//! fio 3.33 loads a profile only once the command line and the job files
//! are parsed, just before the jobs start: the profile's option list is
//! then parsed as more command-line options, its leading options going
//! to the global section (after, so over, the user's own) and each
//! `name=` starting one of its jobs. So `--showcmd` and `--parse-only`
//! see no profile job at all.
//!
//! tiobench's own options (`size`, `block`, `numruns`, `dir`, `threads`)
//! are parsed into a structure its option list never reads in 3.33: the
//! profile always runs with its defaults (4 KiB blocks, one loop, one
//! thread, the current directory, and four times the machine's memory in
//! KiB as size). `--size` itself is the ordinary job option, which the
//! profile's own size then overrides. ferrio builds the same list.

use crate::plan::CmdOption;

/// Why a profile cannot run, with fio's exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    pub message: String,
    pub code: i32,
}

/// The options `name` adds after the command line's own, given the
/// machine's memory in MiB (fio's `$mb_memory`) and whether the command
/// line names act's devices.
pub fn options(
    name: &str,
    mb_memory: u64,
    act_devices: bool,
) -> Result<Vec<CmdOption>, ProfileError> {
    match name {
        "tiobench" => Ok(tiobench(mb_memory)),
        // Without devices act's preparation fails in fio too, so that
        // much is fio's own error.
        "act" if !act_devices => Err(ProfileError {
            message: "act: you need to set IO target(s) with the device-names option.\n\
                      fio: profile act prep failed"
                .to_string(),
            code: 1,
        }),
        "act" => Err(ProfileError {
            message: "ferrio: the act profile is not run yet: fio's act also sorts every \
                      I/O's latency into hourly slices, judges them against its pass \
                      criteria and prints its own table, which is not modelled; run it \
                      with fio"
                .to_string(),
            code: 1,
        }),
        other => Err(ProfileError {
            message: format!("fio: profile '{other}' not found"),
            code: 1,
        }),
    }
}

/// tiobench: sequential then random writes, then sequential and random
/// reads, each its own group, over four files in the current directory.
fn tiobench(mb_memory: u64) -> Vec<CmdOption> {
    let size = format!("size={}", 4 * 1024 * mb_memory);
    let list = [
        "buffered=0",
        size.as_str(),
        "bs=4096",
        "loops=1",
        "directory=./",
        "numjobs=1",
        "timeout=600",
        "group_reporting",
        "thread",
        "overwrite=1",
        "filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4",
        "ioengine=sync",
        "name=seqwrite",
        "rw=write",
        "end_fsync=1",
        "name=randwrite",
        "stonewall",
        "rw=randwrite",
        "end_fsync=1",
        "name=seqread",
        "stonewall",
        "rw=read",
        "name=randread",
        "stonewall",
        "rw=randread",
    ];
    list.iter()
        .map(|item| {
            let (name, value) = match item.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (*item, None),
            };
            CmdOption {
                name: name.to_string(),
                value,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiobench_sizes_by_memory_and_names_four_jobs() {
        let opts = options("tiobench", 24105, false).unwrap();
        let size = opts.iter().find(|o| o.name == "size").unwrap();
        assert_eq!(size.value.as_deref(), Some("98734080"));
        let names: Vec<_> = opts
            .iter()
            .filter(|o| o.name == "name")
            .filter_map(|o| o.value.as_deref())
            .collect();
        assert_eq!(names, ["seqwrite", "randwrite", "seqread", "randread"]);
    }

    #[test]
    fn unknown_profiles_are_fios_error() {
        let e = options("nope", 1, false).unwrap_err();
        assert_eq!(e.message, "fio: profile 'nope' not found");
    }
}
