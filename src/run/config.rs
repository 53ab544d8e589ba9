//! What one job needs to run, read off its planned options: its config
//! is a few identity fields and one typed part per owner, each read by
//! its own `from_spec` beside the code that uses it; and the refusal,
//! before any I/O, of jobs that use options ferrio cannot run yet.

use crate::engine::{self, EngineOptions, caps};
use crate::options::{Support, Value};
use crate::plan::JobSpec;
use crate::result::JobError;
use crate::run::errors::ErrorsConfig;
use crate::run::job_loop::depth::{DepthConfig, offloaded};
use crate::run::pacing::config::{PacingConfig, TimingConfig};
use crate::run::pacing::steady::SteadyJob;
use crate::run::place::config::PlacementConfig;
use crate::run::place::parts::PlaceParts;
use crate::run::records::config::LoggingConfig;
use crate::run::refusal::Refusal;
use crate::run::scheduling::SchedulingConfig;
use crate::run::status::config::ReportingConfig;
use crate::run::storage::config::FilesConfig;
use crate::run::storage::content::ContentConfig;
use crate::run::storage::parts::StorageParts;
use crate::run::storage::sync_range::SyncConfig;
use crate::run::verification::config::VerifyConfig;
use crate::run::verification::verify_trail::StateParts;
use crate::run::workload::WorkloadConfig;

/// A job, ready to run.
#[derive(Debug, Clone)]
pub struct JobConfig {
    pub name: String,
    pub group: u32,
    pub engine: String,
    /// What the engine is, from the engine table.
    pub kind: &'static engine::Kind,
    /// The engine options the engines honour.
    pub engine_options: EngineOptions,
    /// What the I/O is: directions, block sizes, steps, the replayed log.
    pub workload: WorkloadConfig,
    /// The files, their regions, and how they are opened and laid out.
    pub files: FilesConfig,
    /// When the files are synced.
    pub sync: SyncConfig,
    /// What goes into the buffers, and where they live.
    pub content: ContentConfig,
    /// How deep the queue is, and its batches.
    pub depth: DepthConfig,
    /// When the job starts, and what ends it.
    pub timing: TimingConfig,
    /// When the I/O may go: rates, flows, think time, latency goals.
    pub pacing: PacingConfig,
    /// Where each I/O goes: offsets, random generators, zones, files.
    pub placement: PlacementConfig,
    /// How written data is checked.
    pub verification: VerifyConfig,
    /// Which failed I/Os the job carries on after.
    pub errors: ErrorsConfig,
    /// The logs the job writes.
    pub logging: LoggingConfig,
    /// What the job measures, and how it is reported.
    pub reporting: ReportingConfig,
    /// The job's thread, priorities, and whom its end stops.
    pub scheduling: SchedulingConfig,
    /// What fio says on stderr while setting the job up.
    pub notices: Vec<String>,
    /// What fio says on its output (stdout or --output) while reading the
    /// job, before any report.
    pub info: Vec<String>,
    /// Why the job fails before any I/O (fio's setup errors, reported
    /// with the job rather than refusing the run).
    pub setup_failure: Option<JobError>,
    /// The error fio set while reading the job (an include it could not
    /// open): the job ends with it once its first I/O is done.
    pub read_error: Option<JobError>,
}

impl JobConfig {
    /// The parts that decide where the job's I/O goes, for placement.
    pub fn place_parts(&self) -> PlaceParts<'_> {
        PlaceParts {
            workload: &self.workload,
            placement: &self.placement,
            files: &self.files,
            time_based: self.timing.time_based,
            verifies: self.verification.verify.is_some(),
            diskless: self.kind.has(crate::engine::caps::DISKLESS),
        }
    }

    /// The parts that laying out and guarding the job's files read.
    pub fn storage_parts(&self) -> StorageParts<'_> {
        StorageParts {
            name: &self.name,
            files: &self.files,
            pattern: &self.workload.pattern,
            kind: self.kind,
            layout_seed: self.placement.seed,
        }
    }

    /// What the live reporters show of the job.
    pub fn live_job(&self) -> crate::result::live_job::LiveJob {
        let (pattern, report) = (self.workload.pattern, &self.reporting.report);
        crate::result::live_job::LiveJob {
            name: self.name.clone(),
            group: self.group,
            files: self.files.paths.len(),
            uses: [pattern.read, pattern.write, pattern.trim],
            random: pattern.random,
            read_percent: self.workload.read_percent,
            rate_bytes: self.pacing.rate_bytes,
            rate_iops: self.pacing.rate_iops,
            runtime: self.timing.runtime,
            ramp: self.timing.ramp,
            startdelay: self.timing.startdelay,
            time_based: self.timing.time_based,
            io_bytes: self.timing.io_bytes,
            clat: self.reporting.measure.clat,
            lat: self.reporting.measure.lat,
            binary: report.binary(),
            sig_figs: report.sig_figs,
            percentile_list: report.percentile_list.clone(),
        }
    }

    /// What the job's verify state file says of it.
    pub fn state_parts(&self) -> StateParts<'_> {
        StateParts {
            name: &self.name,
            iodepth: self.depth.iodepth as u32,
            place: self.place_parts(),
        }
    }

    /// What the steady-state checker reads of the job.
    pub fn steady_job(&self) -> SteadyJob<'_> {
        SteadyJob {
            name: &self.name,
            group: self.group,
            steady: self.pacing.steady,
            group_reporting: self.reporting.group_reporting,
        }
    }

    /// Reads the options ferrio runs. Any other option that was set makes
    /// the job refused, naming the options, so nothing is silently ignored.
    /// The parts are read in the order in which fio refuses what they
    /// read, so that a job with two faults is refused for fio's first.
    pub fn from_spec(job: &JobSpec, readonly: bool) -> Result<Self, Refusal> {
        let in_bytes = crate::run::place::zone_counts::in_bytes(job);
        let job: &JobSpec = &in_bytes;
        let kind = admit(job)?;
        let (workload, zbd) = WorkloadConfig::from_spec(job, readonly, kind)?;
        let seeds = crate::run::place::config::seeds(job);
        let (files, sized) = FilesConfig::from_spec(job, kind, &workload, &seeds)?;
        let content = ContentConfig::from_spec(job, &workload, files.size)?;
        let verification =
            VerifyConfig::from_spec(job, kind, &workload, sized.setup_failure.is_some())?;
        let timing =
            TimingConfig::from_spec(job, kind, &workload, &files, sized.total, zbd.is_some())?;
        let depth = DepthConfig::from_spec(job, &workload);
        let reporting = ReportingConfig::from_spec(job, kind);
        let logging = LoggingConfig::from_spec(job, &reporting.measure, workload.replay.is_some())?;
        let errors = ErrorsConfig::from_spec(job, kind);
        let scheduling = SchedulingConfig::from_spec(job, kind, &workload.pattern)?;
        let sync = SyncConfig::from_spec(job, kind)?;
        let engine_options = kind.options(&engine::OptionSource {
            job,
            reads: workload.pattern.read,
            writes: workload.pattern.write,
            random: workload.pattern.random,
            size: files.size,
            direct: files.direct,
            default_ioprio: scheduling.default_ioprio,
        });
        let placement = PlacementConfig::from_spec(job, &workload, seeds, zbd)?;
        let pacing = PacingConfig::from_spec(job, kind, reporting.report.latency_percentile);
        if crate::run::records::config::iolog_overridden(job, workload.replay.is_some()) {
            eprintln!("fio: read iolog overrides write_iolog");
        }
        Ok(JobConfig {
            name: job.name.clone(),
            group: job.group,
            engine: job.engine.clone(),
            kind,
            engine_options,
            notices: notices(job, &workload),
            info: info(job, &workload, sized.found),
            setup_failure: sized.setup_failure,
            read_error: job.include_errno.map(|errno| JobError {
                errno,
                func: "file:init.c:1956, func=job file open".to_string(),
                message: String::new(),
            }),
            workload,
            files,
            sync,
            content,
            depth,
            timing,
            pacing,
            placement,
            verification,
            errors,
            logging,
            reporting,
            scheduling,
        })
    }
}

/// What fio says on stderr while setting a job up: that verify is
/// limited without a random map, and that blockalign turns it off.
fn notices(job: &JobSpec, workload: &WorkloadConfig) -> Vec<String> {
    let aligned_apart = crate::run::place::config::aligned_apart(job, workload);
    crate::run::verification::config::norandommap_verify_warning(job, &workload.bs)
        .into_iter()
        .chain(
            (aligned_apart && !job.flag("norandommap"))
                .then(|| "fio: Any use of blockalign= turns off randommap".to_string()),
        )
        .collect()
}

/// What fio says on its output while reading a job: opendir's count
/// (`found`) and its warnings about verifying writers.
fn info(job: &JobSpec, workload: &WorkloadConfig, found: Option<String>) -> Vec<String> {
    use crate::run::verification::config::{shared_verify_warning, timed_verify_warning};
    found
        .into_iter()
        .chain(shared_verify_warning(job, &workload.pattern))
        .chain(timed_verify_warning(job, &workload.pattern))
        .collect()
}

/// The checks before any option is read: io_submit_mode=offload on an
/// engine whose offloaded runs were compared with fio's, no option that
/// ferrio only parses, and an engine fio 3.33 has and ferrio runs.
fn admit(job: &JobSpec) -> Result<&'static engine::Kind, Refusal> {
    // A built-in profile's options (tiobench's `threads`, act's
    // `load`...) are accepted everywhere but only mean something to a
    // job that runs that profile: elsewhere fio ignores them, and so
    // does ferrio.
    let profile = match job.value("profile") {
        Some(Value::Text(p)) => Some(p.as_str()),
        Some(Value::Word { word, .. }) => Some(*word),
        _ => None,
    };
    let inert = |def: &crate::options::OptDef| def.profile.is_some_and(|p| Some(p) != profile);
    // An option set to its default (`overwrite=0`) changes nothing.
    let is_default =
        |s: &crate::plan::Setting| crate::plan::default_value(s.def).is_some_and(|d| *d == s.value);
    let pending: Vec<&str> = job
        .settings
        .iter()
        .filter(|s| s.def.support == Support::ParseOnly && !inert(s.def) && !is_default(s))
        .map(|s| s.def.name)
        .collect();
    let offload = offloaded(job);
    let offloadable = |k: &engine::Kind| k.has(caps::OFFLOADABLE);
    if offload && !engine::kind(&job.engine).is_some_and(offloadable) {
        let names: Vec<&str> = engine::KINDS
            .iter()
            .filter(|k| offloadable(k))
            .map(|k| k.name)
            .collect();
        return Err(Refusal(format!(
            "job '{}': io_submit_mode=offload is run by ferrio only for the engines whose \
             offloaded runs were compared with fio 3.33's ({}), not ioengine={}",
            job.name,
            names.join(", "),
            job.engine
        )));
    }
    if !pending.is_empty() {
        return Err(Refusal(format!(
            "job '{}': ferrio does not run these options yet: {} (run it with fio, or drop them)",
            job.name,
            pending.join(", ")
        )));
    }
    // Neither has fio 3.33 (dircreate, dirstat and dirdelete came
    // later): fio fails to load it, and so does the run here.
    if !engine::FIO_ENGINES.contains(&job.engine.as_str()) {
        return Err(Refusal(format!(
            "job '{}': fio: engine {} not loadable (fio 3.33 has no such engine built in)",
            job.name, job.engine
        )));
    }
    let Some(kind) = engine::kind(&job.engine) else {
        let names: Vec<&str> = engine::KINDS.iter().map(|k| k.name).collect();
        return Err(Refusal(format!(
            "job '{}': ioengine={} is not available in ferrio yet (it has: {})",
            job.name,
            job.engine,
            names.join(", ")
        )));
    };
    Ok(kind)
}
