//! `ferrio preset crystaldiskmark|dd|hdtune TARGET [fio options]`: the desktop
//! benchmarks of jobs/desktop/ (built into the binary, so an installed
//! ferrio has them) run against TARGET like any job file — same checks
//! (a write to a mounted device is refused before any I/O, as fio
//! refuses it), same --output, --output-format and HTML — and then the
//! summary the tool itself would print, from the same results.
//!
//! The job files stay plain fio job files: TARGET and the sizes are the
//! environment variables they name (FERRIO_TARGET, CDM_SIZE, DD_COUNT,
//! ...), filled in here from the command line and the environment.

use crate::cli;
use crate::execute::{Summary, Told};

pub mod cdm;
pub mod dd;
pub mod hdtune;

/// One built-in job file: where it claims to live, and its text.
type File = (&'static str, &'static str);

const CRYSTALDISKMARK: File = (
    "<built-in>/desktop/crystaldiskmark.fio",
    include_str!("../../jobs/desktop/crystaldiskmark.fio"),
);
const DD: [File; 3] = [
    (
        "<built-in>/desktop/dd-direct.fio",
        include_str!("../../jobs/desktop/dd-direct.fio"),
    ),
    (
        "<built-in>/desktop/dd-cached.fio",
        include_str!("../../jobs/desktop/dd-cached.fio"),
    ),
    (
        "<built-in>/desktop/dd-fdatasync.fio",
        include_str!("../../jobs/desktop/dd-fdatasync.fio"),
    ),
];

const HDTUNE: File = (
    "<built-in>/desktop/hdtune.fio",
    include_str!("../../jobs/desktop/hdtune.fio"),
);

/// The presets' names, for the command line.
const NAMES: [&str; 3] = ["crystaldiskmark", "dd", "hdtune"];

/// What a preset's run needs: its job files, the variables they name,
/// and the summary it prints from the results.
pub struct Preset {
    pub files: Vec<File>,
    pub env: Vec<(String, String)>,
    pub summary: Box<Summary>,
}

/// The variable `name` from the environment, else `default`.
fn var(name: &str, default: &str) -> (String, String) {
    let value = std::env::var(name).unwrap_or_else(|_| default.to_string());
    (name.to_string(), value)
}

/// The preset `name` aimed at `target`, or why it cannot be.
fn preset(name: &str, target: &str) -> Result<Preset, String> {
    let mut env = vec![("FERRIO_TARGET".to_string(), target.to_string())];
    Ok(match name {
        "crystaldiskmark" => {
            let more = [
                var("CDM_SIZE", "1g"),
                var("CDM_RUNTIME", "5"),
                var("CDM_INTERVAL", "5"),
            ];
            let [size, runtime, interval] = more.clone().map(|(_, v)| v);
            let target = target.to_string();
            env.extend(more);
            Preset {
                files: vec![CRYSTALDISKMARK],
                env,
                summary: Box::new(move |results| {
                    let profile = cdm::Profile {
                        size: &format!("{size} (x5)"),
                        runtime: &runtime,
                        interval: &interval,
                        target: &target,
                    };
                    cdm::summary(results, &profile).map(|text| Told { text, html: None })
                }),
            }
        }
        "hdtune" => hdtune_preset(target, env)?,
        _ => {
            env.push(var("DD_COUNT", "1024"));
            Preset {
                files: DD.to_vec(),
                env,
                summary: Box::new(|results| {
                    Some(Told {
                        text: dd::summary(results),
                        html: None,
                    })
                }),
            }
        }
    })
}

/// HD Tune's samples laid over the whole of `target` (a file or a block
/// device), which must be there to be read.
fn hdtune_preset(target: &str, mut env: Vec<(String, String)>) -> Result<Preset, String> {
    use std::io::{Seek, SeekFrom};
    let span = std::fs::File::open(target)
        .and_then(|mut f| f.seek(SeekFrom::End(0)))
        .map_err(|e| format!("{target}: cannot read its size to sample it: {e}"))?;
    let layout = hdtune::layout(span).ok_or_else(|| {
        format!("{target}: {span} bytes; expected at least one 64 KiB block to sample")
    })?;
    let size = |n: u64| n.to_string();
    env.extend([
        (
            "HDTUNE_SPAN".to_string(),
            size(layout.samples * layout.step),
        ),
        ("HDTUNE_STEP".to_string(), size(layout.step)),
        ("HDTUNE_BURST".to_string(), size(layout.burst)),
        (
            "HDTUNE_TOTAL".to_string(),
            size(layout.samples * layout.burst),
        ),
        ("HDTUNE_SEEKS".to_string(), "200".to_string()),
    ]);
    let target = target.to_string();
    Ok(Preset {
        files: vec![HDTUNE],
        env,
        summary: Box::new(move |results| {
            let read = |name| std::fs::read_to_string(name).unwrap_or_default();
            let (log, access) = (read(hdtune::LOG), read(hdtune::ACCESS_LOG));
            Some(Told {
                text: hdtune::summary(results, &log, layout, &target),
                html: Some(hdtune::charts(&log, &access, layout)),
            })
        }),
    })
}

/// `ferrio preset`'s own command line; what follows TARGET is fio's.
fn command() -> clap::Command {
    use clap::{Arg, Command};
    Command::new("preset")
        .bin_name("ferrio preset")
        .about(
            "Run a desktop benchmark (jobs/desktop/, built in) against a file or device, \
             then print the summary the tool itself prints: crystaldiskmark (CrystalDiskMark's \
             default profile; CDM_SIZE, CDM_RUNTIME, CDM_INTERVAL change it), dd (dd bs=1M \
             count=DD_COUNT with oflag=direct, cached, conv=fdatasync), hdtune (HD Tune's \
             read test: 200 sampled bursts across TARGET, access time, burst rate; it \
             writes its hdtune_*.log beside the run)",
        )
        .arg(
            Arg::new("name")
                .value_name("NAME")
                .required(true)
                .value_parser(NAMES),
        )
        .arg(
            Arg::new("target")
                .value_name("TARGET")
                .required(true)
                .help("the file or block device the job files' FERRIO_TARGET names"),
        )
        .arg(
            Arg::new("options")
                .value_name("FIO OPTIONS")
                .num_args(0..)
                .trailing_var_arg(true)
                .allow_hyphen_values(true)
                .help("fio's command-line flags for the run (--output, --output-format, ...)"),
        )
}

/// Reads `ferrio preset`'s arguments (after `preset`): the run's flags
/// and the preset to run; the exit status when there is nothing to run
/// (`--help`, a bad name or target, said on stderr).
pub fn prepare(argv: &[String]) -> Result<(cli::Args, Preset), i32> {
    let matches = match command()
        .try_get_matches_from(std::iter::once("preset".to_string()).chain(argv.iter().cloned()))
    {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return Err(if e.use_stderr() { 1 } else { 0 });
        }
    };
    let get = |id: &str| matches.get_one::<String>(id).cloned().unwrap_or_default();
    let (name, target) = (get("name"), get("target"));
    let rest: Vec<String> = matches
        .get_many::<String>("options")
        .map(|o| o.cloned().collect())
        .unwrap_or_default();
    let args = match cli::parse(&rest) {
        Ok(a) => a,
        Err(e) => {
            for line in &e.fio_stderr {
                eprintln!("{line}");
            }
            eprintln!("ferrio preset: {}", e.detail);
            return Err(1);
        }
    };
    if let Some(file) = args.files.first() {
        eprintln!(
            "ferrio preset: {file}: a preset runs its own job files; give fio flags \
             (--output, --output-format, ...) after TARGET, not job files"
        );
        return Err(1);
    }
    match preset(&name, &target) {
        Ok(preset) => Ok((args, preset)),
        Err(e) => {
            eprintln!("ferrio preset {name}: {e}");
            Err(1)
        }
    }
}
