//! What ferrio reports beyond fio, under a `ferrio` key of each JSON job:
//! percentiles from the high-resolution histograms (unclipped, never above
//! the largest latency), ferrio's own CPU cost per I/O, the queue depth it
//! actually held over time, whether the tool rather than the device
//! limited the result, the latency of rate-capped jobs from each I/O's
//! intended issue time; the slowest I/Os with the file (or RADOS object)
//! they went to, and the connection rbd and rados jobs used; and the
//! state `ferrio merge` folds.

use super::json_tree::{Json, Obj};
use crate::engine::caps;
use crate::result::JobResult;
use crate::result::steady::SteadyResult;

/// Whether the tool limited a job's result, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub tool_limited: bool,
    pub warnings: Vec<String>,
}

/// CPU nanoseconds per completed I/O: (user, system).
fn cpu_per_io(r: &JobResult) -> Option<(f64, f64)> {
    let ios: u64 = r.dirs.iter().map(|d| d.ios).sum();
    (ios > 0).then(|| {
        let per = |us: u64| us as f64 * 1000.0 / ios as f64;
        (per(r.cpu.user_us), per(r.cpu.system_us))
    })
}

/// Share of the job's runtime its thread spent on a CPU or waiting for
/// one (taken by other work), in percent: the share it wanted a CPU,
/// which a busy machine does not hide.
fn busy_percent(r: &JobResult) -> f64 {
    let runtime_us = r.runtime.as_micros() as f64;
    if runtime_us == 0.0 {
        return 0.0;
    }
    let members = f64::from(r.members.max(1));
    let wanted = r.cpu.user_us + r.cpu.system_us + r.cpu.waiting_us;
    (100.0 * wanted as f64 / runtime_us / members).min(100.0)
}

/// Judges whether ferrio, not the device, set the pace: the job's thread
/// was on a CPU nearly all the time, or hardly ever waiting for
/// the device (fewer than one block per 20 I/Os: the data came from
/// memory), or an asynchronous engine held clearly fewer I/Os in flight
/// than asked while busy. The null engine measures the tool by design and
/// is never flagged.
pub fn verdict(r: &JobResult) -> Verdict {
    let mut warnings = Vec::new();
    let kind = crate::engine::kind(&r.report.engine);
    let has = |bits| kind.is_some_and(|k| k.has(bits));
    let busy = busy_percent(r);
    let ios: u64 = r.dirs.iter().map(|d| d.ios).sum();
    let never_waited = ios > 0 && r.cpu.voluntary_ctx * 20 < ios;
    if !has(caps::FAKE_IO) && r.runtime.as_millis() >= 100 {
        if busy >= 90.0 {
            warnings.push(format!(
                "job {}: its thread was on a CPU {busy:.0}% of the run: the CPU, not the device, limited this result",
                r.name
            ));
        } else if never_waited && busy >= 25.0 {
            warnings.push(format!(
                "job {}: its thread waited for the device {} times in {ios} I/Os (the data came from memory): the CPU, not the device, limited this result",
                r.name, r.cpu.voluntary_ctx
            ));
        }
        let asked = (r.latency_depth * r.members.max(1) as usize) as f64;
        // Engines that keep several I/Os in flight from one thread.
        if has(caps::KERNEL_AIO) && asked > 1.0 && r.depth_mean < 0.9 * asked && busy >= 80.0 {
            warnings.push(format!(
                "job {}: held {:.1} I/Os in flight on average, not the {asked} asked for, while busy {busy:.0}% of the time",
                r.name, r.depth_mean
            ));
        }
    }
    Verdict {
        tool_limited: !warnings.is_empty(),
        warnings,
    }
}

/// Latency from each I/O's intended issue time, per direction under a
/// rate cap: what the job's schedule promised against what it got, a
/// stall included in full (coordinated omission corrected, as in wrk2).
fn intended(r: &JobResult, list: &[f64]) -> Obj {
    let mut o = Obj::default();
    for (name, d) in ["read", "write", "trim"].iter().zip(&r.dirs) {
        let m = &d.intended;
        if m.count == 0 {
            continue;
        }
        let mut values = Obj::default();
        for p in list {
            values.int(&format!("{p:.6}"), d.intended_fine.percentile(*p, m));
        }
        let mut dir = Obj::default();
        dir.int("N", m.count)
            .int("min", m.min)
            .int("max", m.max)
            .float("mean", m.mean())
            .float("stddev", m.stddev())
            .obj("percentile", values);
        o.obj(name, dir);
    }
    o
}

/// The `ferrio` object of a JSON job; `group_agg` is its group's
/// aggregate bandwidth per direction, kept for `ferrio merge`.
pub fn section(r: &JobResult, group_agg: [u64; 3]) -> Obj {
    let mut o = Obj::default();
    o.str("version", env!("CARGO_PKG_VERSION"));
    // Who ran the job and when it began; a merged result (`ferrio merge`,
    // which runs nothing) has neither.
    let started_ms = crate::distributed::started_ms();
    if started_ms > 0 {
        o.str("hostname", &crate::distributed::hostname())
            .int("rank", crate::distributed::rank().unwrap_or(0))
            .int("started_ms", started_ms);
    }
    let (usr, sys) = cpu_per_io(r).unwrap_or((0.0, 0.0));
    o.float("cpu_ns_per_io", usr + sys)
        .float("usr_ns_per_io", usr)
        .float("sys_ns_per_io", sys)
        .float("busy_percent", busy_percent(r))
        .int("iodepth_requested", r.latency_depth as u64)
        .float("iodepth_achieved", r.depth_mean)
        .arr(
            "iodepth_per_second",
            r.depth_per_second.iter().map(|d| Json::Float(*d)).collect(),
        );
    let mut list: Vec<f64> = r.report.percentile_list.clone();
    if list.last() != Some(&100.0) {
        list.push(100.0);
    }
    let mut pct = Obj::default();
    for (name, d) in ["read", "write", "trim"].iter().zip(&r.dirs) {
        let mut dir = Obj::default();
        let kinds = [
            ("clat_ns", &d.clat_fine, &d.clat),
            ("lat_ns", &d.lat_fine, &d.lat),
        ];
        for (kind, h, m) in kinds {
            if m.count == 0 || *h == Default::default() {
                continue;
            }
            let mut values = Obj::default();
            for p in &list {
                values.int(&format!("{p:.6}"), h.percentile(*p, m));
            }
            dir.obj(kind, values);
        }
        pct.obj(name, dir);
    }
    o.obj("percentiles", pct);
    if r.dirs.iter().any(|d| d.intended.count > 0) {
        o.obj("intended_lat_ns", intended(r, &list));
    }
    if let Some(ss) = &r.steady {
        o.obj("steadystate", steady_why(ss));
    }
    if let Some(client) = &r.connection {
        o.str("connection", client);
    }
    o.arr("slowest_ios", r.slowest.ios().iter().map(slow_io).collect());
    let v = verdict(r);
    o.int("tool_limited", u64::from(v.tool_limited))
        .arr("warnings", v.warnings.into_iter().map(Json::Str).collect())
        .obj("state", super::state::save(r, group_agg));
    o
}

/// One of the job's slowest I/Os: how slow, which way, and where.
fn slow_io(io: &crate::result::slowest::SlowIo) -> Json {
    let mut o = Obj::default();
    o.int("lat_ns", io.lat_ns)
        .str("ddir", ["read", "write", "trim"][io.dir.min(2)])
        .str("file", &io.file_name)
        .int("offset", io.offset)
        .int("bytes", io.bytes);
    if let Some(object) = &io.object {
        o.str("object", object);
    }
    Json::Obj(o)
}

/// Why steady state was or was not reached: the last criterion computed
/// against the limit, or that the window never filled.
fn steady_why(ss: &SteadyResult) -> Obj {
    let c = &ss.config;
    let what = match (c.iops, c.slope) {
        (true, true) => "IOPS slope",
        (true, false) => "IOPS deviation from the mean",
        (false, true) => "bandwidth slope",
        (false, false) => "bandwidth deviation from the mean",
    };
    let pct = if c.percent { "%" } else { "" };
    let reason = if ss.attained {
        format!(
            "{what} {:.6}{pct} came under the limit {:.6}{pct}",
            ss.criterion.abs(),
            c.limit
        )
    } else if !ss.full {
        format!(
            "the job ended before its {} one-second samples filled the window",
            c.dur
        )
    } else {
        format!(
            "the last {what} was {:.6}{pct}, not under the limit {:.6}{pct}",
            ss.criterion.abs(),
            c.limit
        )
    };
    let mut o = Obj::default();
    o.int("attained", u64::from(ss.attained))
        .int("window_full", u64::from(ss.full))
        .float("last_criterion", ss.criterion)
        .float("limit", c.limit)
        .str("reason", &reason);
    o
}
