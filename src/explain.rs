//! `ferrio --explain`: the plan as a person reads it — every job's
//! effective options with where each value came from — and warnings for
//! classic job-file mistakes.

use std::fmt::Write;

use crate::options::{Kind, Value, table::OPTIONS};
use crate::plan::{JobSpec, Plan, default_value};

/// A lint warning for one job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    pub job: String,
    pub message: String,
}

/// The explanation text.
/// The explanation text: each job's settings and their origins, what the
/// job derives from them, and (`defaults`) every option it leaves at its
/// default.
pub fn explain(plan: &Plan, defaults: bool) -> String {
    let mut s = String::new();
    for group in &plan.groups {
        let _ = writeln!(s, "group {}:", group.id);
        for job in &group.jobs {
            describe_job(&mut s, job, defaults);
        }
    }
    let lints: Vec<Lint> = plan
        .jobs()
        .filter(|j| j.subjob == 0)
        .flat_map(lint)
        .collect();
    if !lints.is_empty() {
        let _ = writeln!(s, "warnings:");
        for l in lints {
            let _ = writeln!(s, "  {}: {}", l.job, l.message);
        }
    }
    s
}

fn describe_job(s: &mut String, job: &JobSpec, with_defaults: bool) {
    let clone = if job.subjob == 0 {
        String::new()
    } else {
        format!(", clone {}", job.subjob)
    };
    let _ = writeln!(
        s,
        "  job {} '{}' (ioengine={}{}):",
        job.number, job.name, job.engine, clone
    );
    if job.subjob != 0 {
        return;
    }
    for set in &job.settings {
        let shown = match &set.raw {
            Some(raw) => format!("{}={}", set.def.name, raw),
            None => set.def.name.to_string(),
        };
        let mut from = set.origin.to_string();
        if set
            .raw
            .as_deref()
            .is_some_and(|r| r.contains("${") || r.contains('$'))
        {
            let _ = write!(
                from,
                "; expanded from the environment to '{}'",
                set.text.as_deref().unwrap_or("")
            );
        }
        let _ = writeln!(s, "    {shown:<40} <- {from}");
    }
    derived(s, job);
    if with_defaults {
        defaults(s, job);
    }
}

/// What the job's settings come to: the files it works on and the bytes
/// of each, the I/O it does in all, and the write share of a mixed job.
fn derived(s: &mut String, job: &JobSpec) {
    let Ok(cfg) = crate::run::config::JobConfig::from_spec(job, false) else {
        return;
    };
    let size = |b: u64| {
        crate::report::num2str::num2str(b, 4, 1, true, crate::report::num2str::Unit::Bytes)
    };
    if cfg.kind.lays_out() && !cfg.files.paths.is_empty() {
        let files: Vec<String> = cfg
            .files
            .paths
            .iter()
            .zip(&cfg.files.regions)
            .map(|(p, r)| format!("{} ({})", p.display(), size(*r)))
            .collect();
        let _ = writeln!(s, "    derives: files {}", files.join(", "));
    }
    let total = if cfg.timing.time_based {
        "until its runtime ends".to_string()
    } else {
        size(cfg.timing.io_bytes)
    };
    let _ = writeln!(s, "    derives: I/O in all {total}");
    let p = cfg.workload.pattern;
    if p.read && p.write {
        let read = cfg.workload.read_percent;
        let _ = writeln!(s, "    derives: rwmixread={read} rwmixwrite={}", 100 - read);
    }
}

/// Every option the job leaves at its default, with that default.
fn defaults(s: &mut String, job: &JobSpec) {
    let mut defaults = String::new();
    for def in OPTIONS.iter().filter(|o| o.engines.is_empty()) {
        if matches!(
            def.kind,
            Kind::Unsupported | Kind::Deprecated | Kind::SoftDeprecated
        ) || job.setting(def.name).is_some()
        {
            continue;
        }
        if let (Some(text), Some(_)) = (def.default, default_value(def)) {
            let _ = write!(defaults, " {}={}", def.name, text);
        }
    }
    let _ = writeln!(s, "    defaults:{defaults}");
}

/// Warnings for classic mistakes in one job.
pub fn lint(job: &JobSpec) -> Vec<Lint> {
    let mut out = Vec::new();
    let mut warn = |message: String| {
        out.push(Lint {
            job: job.name.clone(),
            message,
        })
    };
    let runtime = job
        .setting("runtime")
        .and_then(|s| s.value.number())
        .unwrap_or(0);
    let time_based = job.flag("time_based");
    if runtime > 0 && !time_based {
        warn(format!(
            "runtime={}s without time_based: the job stops when its size is done, which may be long before the runtime",
            runtime / 1_000_000
        ));
    }
    let ramp = job
        .setting("ramp_time")
        .and_then(|s| s.value.number())
        .unwrap_or(0);
    if ramp > 0 && runtime > 0 && ramp >= runtime {
        warn(
            "ramp_time is not shorter than runtime: nothing is measured after the ramp".to_string(),
        );
    }
    let iodepth = job.num("iodepth").unwrap_or(1);
    // Engines that complete each I/O before the next is issued (the
    // same test as the run's note), so an iodepth above 1 has no effect.
    let depth = usize::try_from(iodepth).unwrap_or(usize::MAX);
    if iodepth > 1 && crate::engine::kind(&job.engine).is_some_and(|k| k.synchronous(depth)) {
        warn(format!(
            "iodepth={iodepth} with the synchronous engine {}: only one I/O is ever in flight; use libaio or io_uring",
            job.engine
        ));
    }
    let bs = match job.value("bs") {
        Some(Value::Nums(v)) => *v,
        _ => [4096; 3],
    };
    if job.flag("direct") && bs.iter().any(|b| b % 512 != 0) {
        warn(format!(
            "direct=1 with bs={} that is not a multiple of 512: O_DIRECT I/O will fail",
            bs[0]
        ));
    }
    for (name, text, v, ignored) in ignored_suffixes(job) {
        warn(format!(
            "{name}={text}: fio reads '{ignored}' as nothing here, so the value is {v}; sizes are whole numbers with k, m, g, t or p"
        ));
    }
    if let Some(Value::Nums(rate)) = job.setting("rate").map(|s| &s.value) {
        for (dir, (r, b)) in ["read", "write", "trim"]
            .iter()
            .zip(rate.iter().zip(bs.iter()))
        {
            if *r > 0 && r < b {
                warn(format!(
                    "{dir} rate {r} B/s is less than one block ({b} B) per second"
                ));
                break;
            }
        }
    }
    out
}

/// The size options whose text fio reads only in part (`bs=4q` is 4 bytes,
/// `size=1.5m` is 1): each with its text, the number read and the part
/// ignored (the first such piece of a list or range).
fn ignored_suffixes(job: &JobSpec) -> Vec<(&'static str, &str, i64, &str)> {
    job.settings
        .iter()
        .filter(|set| matches!(set.def.kind, Kind::Size | Kind::Range))
        .filter_map(|set| {
            let text = set.text.as_deref()?;
            let (v, ignored) = text
                .split([',', '-', ':'])
                .find_map(crate::options::number::ignored_suffix)?;
            Some((set.def.name, text, v, ignored))
        })
        .collect()
}

/// The plan as JSON, for scripts and tests: groups, jobs (with clone
/// numbers) and each job's options with their text and origin.
pub fn explain_json(plan: &Plan) -> String {
    use serde_json::{Map, Value as J, json};
    let groups: Vec<J> = plan
        .groups
        .iter()
        .map(|g| {
            let jobs: Vec<J> = g
                .jobs
                .iter()
                .map(|job| {
                    let mut options = Map::new();
                    for set in &job.settings {
                        let text = set.text.clone().map_or(J::Null, J::String);
                        options.insert(
                            set.def.name.to_string(),
                            json!({"value": text, "typed": typed(set), "origin": set.origin.to_string()}),
                        );
                    }
                    json!({
                        "name": job.name,
                        "number": job.number,
                        "subjob": job.subjob,
                        "engine": job.engine,
                        "options": options,
                    })
                })
                .collect();
            json!({"id": g.id, "jobs": jobs})
        })
        .collect();
    let lints: Vec<J> = plan
        .jobs()
        .filter(|j| j.subjob == 0)
        .flat_map(lint)
        .map(|l| json!({"job": l.job, "message": l.message}))
        .collect();
    let doc = json!({"groups": groups, "warnings": lints});
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// A typed value as JSON: numbers per direction, words with their tail,
/// ranges as pairs, and so on. Lists and patterns, which the option parser
/// reads into the run's own types, show as the text they came from.
fn typed(set: &crate::plan::Setting) -> serde_json::Value {
    use serde_json::json;
    match &set.value {
        Value::Bool(b) => json!({"bool": b}),
        Value::Nums(n) => json!({"nums": n}),
        Value::Percent(p) => json!({"percent": p}),
        Value::Word { word, tail } | Value::Distribution { word, tail, .. } => {
            json!({"word": word, "tail": tail})
        }
        Value::Text(t) => json!({"text": t}),
        Value::Ranges(r) => json!({"ranges": r}),
        Value::Floats { values, precision } => json!({"floats": values, "precision": precision}),
        Value::Ignored => json!({"ignored": true}),
        Value::BsSplit(_)
        | Value::ErrorLists(_)
        | Value::CpuList(_)
        | Value::NumaNodes(_)
        | Value::NumaPolicy(_)
        | Value::Pattern(_) => json!({"text": set.text.as_deref().unwrap_or("")}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::plan_for_test;

    fn lints_of(text: &str) -> Vec<String> {
        let p = plan_for_test(text, &[], &[], false).unwrap();
        p.jobs().flat_map(lint).map(|l| l.message).collect()
    }

    #[test]
    fn classic_mistakes_are_flagged() {
        assert!(lints_of("[a]\nsize=1g\nruntime=60\n")[0].contains("without time_based"));
        assert!(lints_of("[a]\ntime_based\nruntime=10\nramp_time=10\n")[0].contains("ramp_time"));
        assert!(
            lints_of("[a]\nioengine=psync\niodepth=32\n")[0].contains("synchronous engine psync")
        );
        // The run notes net's depth too, so the lint names it alike; null
        // queues above a depth of 1.
        assert!(lints_of("[a]\nioengine=net\niodepth=32\n")[0].contains("synchronous engine net"));
        assert!(lints_of("[a]\nioengine=null\niodepth=32\n").is_empty());
        assert!(lints_of("[a]\ndirect=1\nbs=1000\n")[0].contains("not a multiple of 512"));
        assert!(lints_of("[a]\nbs=64k\nrate=10k\n")[0].contains("less than one block"));
    }

    #[test]
    fn sound_jobs_get_no_warning() {
        let text = "[a]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=32\ntime_based\nruntime=60\nramp_time=5\nrate=1m\n";
        assert!(lints_of(text).is_empty(), "{:?}", lints_of(text));
    }

    #[test]
    fn explanation_shows_origins_and_environment() {
        let plan = plan_for_test(
            "[global]\nbs=${BS}\n[a]\nrw=read\n",
            &[("iodepth", Some("4"))],
            &[("BS", "8k")],
            false,
        );
        let plan = plan.unwrap();
        assert!(!explain(&plan, false).contains("defaults:"));
        let text = explain(&plan, true);
        assert!(text.contains("bs=${BS}"), "{text}");
        assert!(
            text.contains(
                "global section at /t/job.fio:2:1; expanded from the environment to '8k'"
            ),
            "{text}"
        );
        assert!(
            text.contains("rw=read") && text.contains("job section at /t/job.fio:4:1"),
            "{text}"
        );
        assert!(
            text.contains("iodepth=4") && text.contains("command line (option 1)"),
            "{text}"
        );
        assert!(
            text.contains("defaults:") && text.contains("numjobs=1"),
            "{text}"
        );
    }
}
