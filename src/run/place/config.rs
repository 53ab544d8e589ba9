//! The placement part of a job's config: where each I/O goes (offset
//! alignment, the random map and generators, distributions, zones and
//! the choice of file).

use crate::options::Value;
use crate::options::distribution::Shape;
use crate::plan::JobSpec;
use crate::rand::fio_rand::{SeedOptions, Seeds};
use crate::run::place::zbd::spec::ZbdSpec;
use crate::run::refusal::Refusal;
use crate::run::workload::{BlockSizes, WorkloadConfig, per_dir};

/// Where a job's I/O goes.
#[derive(Debug, Clone)]
pub struct PlacementConfig {
    /// Alignment of random offsets (fio's blockalign), per direction;
    /// 0 means the smallest block size.
    pub blockalign: [u64; 3],
    pub random_map: bool,
    /// softrandommap: a random map that cannot be allocated leaves the
    /// job without one instead of ending it.
    pub soft_random_map: bool,
    /// random_generator was set (fio then only warns of a file too large
    /// for the 32-bit generator, without moving to the 64-bit one).
    pub random_generator_set: bool,
    /// How random offsets are spread over the file.
    pub distribution: Shape,
    /// Per direction, the share of a random workload's I/Os that are
    /// random (the rest continue sequentially), in percent.
    pub percentage_random: [u64; 3],
    /// Seed for ferrio's own generator (buffer contents, layout).
    pub seed: u64,
    /// fio's seed table for this job: directions, block sizes and random
    /// offsets are drawn from fio's generators with it.
    pub seeds: Seeds,
    /// Draw from fio's 64-bit generator (random_generator=tausworthe64,
    /// or a file with more blocks than a 32-bit draw reaches).
    pub wide_draws: bool,
    /// random_generator=lfsr: random offsets from a shift register that
    /// visits each block once, with no random map.
    pub lfsr: bool,
    /// How the next file is chosen (file_service_type).
    pub file_service: FileService,
    /// zonemode=strided: the region moves along the file.
    pub zones: Option<StridedZones>,
    /// zonemode=zbd: zones with write pointers emulated in regular files.
    pub zbd: Option<ZbdSpec>,
}

impl PlacementConfig {
    /// Reads the placement options; `zbd` was read with the workload.
    pub fn from_spec(
        job: &JobSpec,
        workload: &WorkloadConfig,
        seeds: Seeds,
        zbd: Option<ZbdSpec>,
    ) -> Result<Self, Refusal> {
        let distribution = distribution(job);
        let file_service = file_service(job)?;
        let zones = strided_zones(job)?;
        let seed = if !job.flag("randrepeat") {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        } else {
            job.num("randseed").unwrap_or(0)
                ^ (job.number as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        };
        Ok(PlacementConfig {
            blockalign: per_dir(job, "ba"),
            random_map: !job.flag("norandommap") && !aligned_apart(job, workload),
            soft_random_map: job.flag("softrandommap"),
            random_generator_set: job.setting("random_generator").is_some(),
            distribution,
            percentage_random: match job.value("percentage_random") {
                Some(Value::Nums(v)) => v.map(|p| p.min(100)),
                _ => [100; 3],
            },
            seed,
            seeds,
            wide_draws: generator_is(job, "tausworthe64"),
            lfsr: generator_is(job, "lfsr"),
            file_service,
            zones,
            zbd,
        })
    }
}

/// fio's seed table for the job (randseed, randrepeat, allrandrepeat and
/// the job's number).
pub fn seeds(job: &JobSpec) -> Seeds {
    Seeds::new(SeedOptions {
        randseed: job.num("randseed").unwrap_or(0x89),
        randseed_set: job.setting("randseed").is_some(),
        randrepeat: job.flag("randrepeat"),
        allrandrepeat: job.flag("allrandrepeat"),
        thread_number: u64::from(job.number),
    })
}

/// Whether random_generator names this generator.
pub fn generator_is(job: &JobSpec, name: &str) -> bool {
    matches!(job.value("random_generator"), Some(Value::Word { word, .. }) if *word == name)
}

/// fio gives up the random map only for a blockalign other than a
/// direction's smallest size (its own default) on a random job.
pub fn aligned_apart(job: &JobSpec, workload: &WorkloadConfig) -> bool {
    workload.pattern.random
        && per_dir(job, "ba")
            .iter()
            .zip(&workload.bs)
            .any(|(&ba, sizes): (&u64, &BlockSizes)| ba != 0 && ba != sizes.min())
}

/// zonemode=strided: `size` bytes of I/O in each zone of `range` bytes,
/// then `skip` bytes are skipped to the next zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StridedZones {
    pub size: u64,
    pub range: u64,
    pub skip: u64,
}

/// file_service_type: which file the next I/O goes to, and for how many
/// I/Os in a row (its `:N`).
#[derive(Debug, Clone, PartialEq)]
pub struct FileService {
    pub kind: ServiceKind,
    pub per_pick: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ServiceKind {
    RoundRobin,
    /// Stay on one file until it is done.
    Sequential,
    Random,
    /// zipf, pareto or normal over the files.
    Skewed(Shape),
}

impl FileService {
    /// Skewed choices reuse a finished file rather than retire it.
    pub fn skewed(&self) -> bool {
        matches!(self.kind, ServiceKind::Skewed(_))
    }
}

/// `random_distribution`, read into its shape when the option was.
fn distribution(job: &JobSpec) -> Shape {
    match job.value("random_distribution") {
        Some(Value::Distribution { shape, .. }) => shape.clone(),
        _ => Shape::Uniform,
    }
}

/// file_service_type and its `:N` (I/Os per pick) or distribution
/// parameter.
fn file_service(job: &JobSpec) -> Result<FileService, Refusal> {
    let Some(Value::Word { word, tail }) = job.value("file_service_type") else {
        return Ok(FileService {
            kind: ServiceKind::RoundRobin,
            per_pick: 1,
        });
    };
    let tail = tail.as_deref().unwrap_or("");
    let count = || {
        // fio reads the count with atoi: leading digits, else 0.
        let t = tail.trim_start();
        let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        t[..end]
            .parse::<u64>()
            .unwrap_or(if tail.is_empty() { 1 } else { 0 })
    };
    let mut numbers = tail
        .split(':')
        .map(|t| crate::options::number::c_float(t.trim()));
    let value = numbers.next().flatten();
    let center = numbers.next().flatten();
    let kind = match *word {
        "roundrobin" => ServiceKind::RoundRobin,
        "sequential" => ServiceKind::Sequential,
        "random" => ServiceKind::Random,
        "zipf" => ServiceKind::Skewed(Shape::Zipf {
            theta: value.unwrap_or(1.1),
            center,
        }),
        "pareto" => ServiceKind::Skewed(Shape::Pareto {
            h: value.unwrap_or(0.2),
            center,
        }),
        "normal" | "gauss" => ServiceKind::Skewed(Shape::Normal {
            deviation: value.unwrap_or(0.0),
            center,
        }),
        other => {
            return Err(Refusal(format!(
                "job '{}': file_service_type={other} is not known",
                job.name
            )));
        }
    };
    let per_pick = match kind {
        ServiceKind::Skewed(_) => 1,
        _ => count(),
    };
    Ok(FileService { kind, per_pick })
}

/// zonemode=strided: zonerange defaults to zonesize. As in fio 3.33, a
/// zonesize needs zonemode=strided (or zbd), and strided zones need a
/// zonesize; with more than one file open at a time they are off.
fn strided_zones(job: &JobSpec) -> Result<Option<StridedZones>, Refusal> {
    let size = job.num("zonesize").unwrap_or(0);
    let mode = match job.value("zonemode") {
        Some(Value::Word { word, .. }) => *word,
        _ => "none",
    };
    let fail = |text: &str| Err(Refusal(format!("job '{}': fio: {text}", job.name)));
    match (mode, size) {
        ("none", 0) | ("zbd", _) => return Ok(None),
        ("none", _) => return fail("--zonemode=none and --zonesize are not compatible."),
        (_, 0) => return fail("--zonesize must be specified when using --zonemode=strided."),
        _ => {}
    }
    // fio drops the zones for openfiles above one as given, before it
    // defaults openfiles to the file count: several files keep them.
    if job.num("openfiles").unwrap_or(0) > 1 {
        return Ok(None);
    }
    let range = job.num("zonerange").filter(|&r| r > 0).unwrap_or(size);
    Ok(Some(StridedZones {
        size,
        range,
        skip: job.num("zoneskip").unwrap_or(0),
    }))
}
