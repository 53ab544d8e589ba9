//! fio's normal (human-readable) report: a block per job, a `Run status`
//! block per group, and the disks' use (`../shared/spec/fio-output.md`
//! §2, §4).

use std::fmt::Write;

use super::model::{GroupStats, Report, bytes_per_sec, cpu_percent, distribution, share_of_group};
use super::num2str::{Unit, num2str};
use crate::result::options::Unified;
use crate::result::steady::SteadyResult;
use crate::result::{DirStats, JobResult, strerror};
use crate::stats::percentile::percentiles;
use crate::stats::{Histogram, LatencyMoments};
use crate::sys::sched::class_and_level;

/// The end-of-run normal report, starting with the newline that ends any
/// pending status line.
pub fn render(report: &Report) -> String {
    let mut out = String::from("\n");
    for r in &report.results {
        job_block(&mut out, report, r);
    }
    for g in &report.groups {
        group_block(&mut out, g);
    }
    if !report.disks.is_empty() {
        out.push_str("\nDisk stats (read/write):\n");
        for d in &report.disks {
            let [ri, wi, rm, wm, rt, wt, q] = d.counters();
            let _ = writeln!(
                out,
                "  {}: ios={ri}/{wi}, merge={rm}/{wm}, ticks={rt}/{wt}, in_queue={q}, util={:3.2}%",
                d.name, d.util
            );
        }
    }
    out
}

/// How numbers of one section are written: significant figures and the
/// rate unit (fio's per-job `mixed:` section under
/// unified_rw_reporting=both loses both, a 3.33 bug kept here).
#[derive(Clone, Copy)]
struct Style {
    sig_figs: usize,
    rate: Unit,
}

const DIR_NAMES: [&str; 3] = ["read", "write", "trim"];

fn job_block(out: &mut String, report: &Report, r: &JobResult) {
    if !r.did_io() {
        return;
    }
    let opts = &r.report;
    let group = report.group(r.group);
    let time = report.ctime();
    match r.reported_error() {
        (0, _) => {
            let _ = writeln!(
                out,
                "{}: (groupid={}, jobs={}): err= 0: pid={}: {time}",
                r.name, r.group, r.members, r.pid
            );
        }
        (errno, context) => {
            let _ = writeln!(
                out,
                "{}: (groupid={}, jobs={}): err={:2} ({}): pid={}: {time}",
                r.name, r.group, r.members, errno, context, r.pid
            );
        }
    }
    if !opts.description.is_empty() {
        let _ = writeln!(out, "  Description  : [{}]", opts.description);
    }
    let style = Style {
        sig_figs: opts.sig_figs,
        rate: if opts.bits {
            Unit::BitsPerSec
        } else {
            Unit::BytesPerSec
        },
    };
    let mixed = opts.unified == Unified::Mixed;
    for (d, dir) in r.dirs.iter().enumerate() {
        if dir.bytes > 0 {
            let name = if mixed { "mixed" } else { DIR_NAMES[d] };
            let suffix = if d == 1 && !mixed {
                format!("; {} zone resets", r.zone_resets)
            } else {
                String::new()
            };
            direction(out, r, dir, name, &suffix, group, d, style);
        }
    }
    if opts.unified == Unified::Both {
        let folded = r.mixed();
        let lost = Style {
            sig_figs: 0,
            rate: Unit::None,
        };
        direction(out, r, &folded, "mixed", "", group, 0, lost);
    }
    let issued = r.issued();
    let lat_lines = [
        ("nsec", &r.latency.ns[..]),
        ("usec", &r.latency.us[..]),
        ("msec", &r.latency.ms[..]),
    ];
    for (unit, counts) in lat_lines {
        latency_distribution(out, unit, &distribution(counts, issued, 0.01));
    }
    if r.sync_lat.count > 0 {
        out.push_str("  fsync/fdatasync/sync_file_range:\n");
        latency_line(out, "sync", &r.sync_lat);
        percentile_table(out, r, "sync", &r.sync_hist, r.sync_lat.count);
    }
    let (usr, sys) = cpu_percent(r);
    let _ = writeln!(
        out,
        "  cpu          : usr={usr:3.2}%, sys={sys:3.2}%, ctx={}, majf={}, minf={}",
        r.cpu.ctx, r.cpu.major_faults, r.cpu.minor_faults
    );
    let depths = distribution(&r.depths, issued, 0.1);
    let submits = distribution(&r.submits, r.submits.iter().sum(), 0.1);
    let completes = distribution(&r.completes, r.completes.iter().sum(), 0.1);
    let depth_keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let batch_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    map_line(out, "  IO depths    : ", &depth_keys, &depths);
    map_line(out, "     submit    : ", &batch_keys, &submits);
    map_line(out, "     complete  : ", &batch_keys, &completes);
    let [rd, wr, tr] = &r.dirs;
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped={},{},{},0",
        rd.issued,
        wr.issued,
        tr.issued,
        r.syncs,
        rd.short,
        wr.short,
        tr.short,
        rd.dropped,
        wr.dropped,
        tr.dropped
    );
    if opts.continue_on_error {
        let _ = writeln!(
            out,
            "     errors    : total={}, first_error={}/<{}>",
            r.total_err,
            r.first_error,
            strerror(r.first_error)
        );
    }
    // fio has no latency depth for a job that ran no I/O loop of its own
    // (verify_only).
    if r.latency_depth > 0 {
        let _ = writeln!(
            out,
            "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
            opts.latency_target_ns,
            opts.latency_window_us,
            opts.latency_percentile,
            r.latency_depth
        );
    }
    if opts.block_error_hist {
        block_lines(out);
    }
    if let Some(ss) = &r.steady {
        steady_line(out, ss, group.kb_base, style);
    }
}

/// fio's block lifetime lines for a table no block of which changed
/// state (the only table fio 3.33 reports without aborting): no
/// percentiles, and the state counts left at zero.
fn block_lines(out: &mut String) {
    out.push_str("  block lifetime percentiles :\n   |");
    let states = [
        "unwritten",
        "trimmed",
        "written",
        "trim failure",
        "write failure",
    ];
    let counts: Vec<String> = states.iter().map(|s| format!(" {s}=0")).collect();
    let _ = writeln!(out, "        states               :{}", counts.join(","));
}

/// fio's `steadystate` line: whether the job settled, the window's mean
/// rates and the last criterion computed.
fn steady_line(out: &mut String, ss: &SteadyResult, kb_base: u64, style: Style) {
    let binary = kb_base == 1024;
    let bw = ss.bw_mean() / kb_base;
    let c = &ss.config;
    let _ = writeln!(
        out,
        "  steadystate  : attained={}, bw={} ({}), iops={}, {}{}={:.3}{}",
        if ss.attained { "yes" } else { "no" },
        num2str(bw, style.sig_figs, kb_base, binary, style.rate),
        num2str(bw, style.sig_figs, kb_base, !binary, style.rate),
        num2str(ss.iops_mean(), style.sig_figs, 1, false, Unit::None),
        if c.iops { "iops" } else { "bw" },
        if c.slope { " slope" } else { " mean dev" },
        ss.criterion,
        if c.percent { "%" } else { "" }
    );
}

#[allow(clippy::too_many_arguments)]
fn direction(
    out: &mut String,
    r: &JobResult,
    d: &DirStats,
    name: &str,
    suffix: &str,
    group: &GroupStats,
    dir: usize,
    style: Style,
) {
    if d.runtime_ms == 0 {
        return;
    }
    let opts = &r.report;
    let binary = group.kb_base == 1024;
    let (bw, iops) = (bytes_per_sec(d), super::model::iops(d));
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={} ({})({}/{}msec){suffix}",
        num2str(iops, style.sig_figs, 1, false, Unit::None),
        num2str(bw, style.sig_figs, 1, binary, style.rate),
        num2str(bw, style.sig_figs, 1, !binary, style.rate),
        num2str(d.bytes, style.sig_figs, 1, binary, Unit::Bytes),
        d.runtime_ms
    );
    latency_line(out, "slat", &d.slat);
    latency_line(out, "clat", &d.clat);
    latency_line(out, " lat", &d.lat);
    let prio_kind = if opts.lat_percentiles { "lat" } else { "clat" };
    for p in d.reported_prios().into_iter().flatten() {
        let (class, level) = class_and_level(p.ioprio);
        latency_line(out, &format!("{prio_kind} prio {class}/{level}"), &p.lat);
    }
    if !crate::persona::as_fio() {
        intended_line(out, d);
    }
    if opts.slat_percentiles && d.slat.count > 0 {
        percentile_table(out, r, "slat", &d.slat_hist, d.slat.count);
    }
    if opts.clat_percentiles && d.clat.count > 0 {
        percentile_table(out, r, "clat", &d.clat_hist, d.clat.count);
    }
    if opts.lat_percentiles && d.lat.count > 0 {
        percentile_table(out, r, "lat", &d.lat_hist, d.lat.count);
    }
    if opts.clat_percentiles || opts.lat_percentiles {
        let all = if opts.lat_percentiles {
            d.lat.count
        } else {
            d.clat.count
        };
        for p in d.reported_prios().into_iter().flatten() {
            let (class, level) = class_and_level(p.ioprio);
            let share = 100.0 * p.lat.count as f64 / all as f64;
            let name = format!("{prio_kind} prio {class}/{level} ({share:.2}% of IOs)");
            percentile_table(out, r, &name, &p.hist, p.lat.count);
        }
    }
    if d.bw.count > 0 {
        // Always bytes: fio 3.33 means to show bits here under
        // unit_base=1, but compares the option with 1 while it holds its
        // bit-rate unit code, so the ×8 and the `kbit` labels never apply.
        let base = group.kb_base as f64;
        let mut label = if binary { "KiB" } else { "kB" };
        let per = share_of_group(d.bw.mean(), group.dirs[dir].agg);
        let (mut min, mut max) = (d.bw.min, d.bw.max);
        let (mut mean, mut dev) = (d.bw.mean(), d.bw.stddev());
        if mean > base * base {
            min = (min as f64 / base) as u64;
            max = (max as f64 / base) as u64;
            mean /= base;
            dev /= base;
            label = "MiB";
        }
        let _ = writeln!(
            out,
            "   bw ({label:>5}/s): min={min:5}, max={max:5}, per={per:3.2}%, avg={mean:5.2}, stdev={dev:5.2}, samples={}",
            d.bw.count
        );
    }
    if d.iops.count > 0 {
        let _ = writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
            d.iops.min,
            d.iops.max,
            d.iops.mean(),
            d.iops.stddev(),
            d.iops.count
        );
    }
}

/// A `slat`/`clat`/`lat` line, in the unit that its min, max and
/// deviation call for.
fn latency_line(out: &mut String, name: &str, m: &LatencyMoments) {
    if m.count == 0 {
        return;
    }
    let (mut min, mut max, mut mean, mut dev) = (m.min, m.max, m.mean(), m.stddev());
    let unit = if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        min /= 1_000_000;
        max /= 1_000_000;
        mean /= 1_000_000.0;
        dev /= 1_000_000.0;
        "msec"
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        min /= 1000;
        max /= 1000;
        mean /= 1000.0;
        dev /= 1000.0;
        "usec"
    } else {
        "nsec"
    };
    let _ = writeln!(
        out,
        "    {name} ({unit}): min={}, max={}, avg={mean:5.2}, stdev={dev:5.2}",
        num2str(min, 6, 1, false, Unit::None),
        num2str(max, 6, 1, false, Unit::None)
    );
}

/// ferrio's line for a rate-capped direction: latency from each I/O's
/// intended issue time (`DirStats::intended`), in the unit fio's rule
/// picks for its latency lines, with the tail that a stall shows in.
fn intended_line(out: &mut String, d: &DirStats) {
    let m = &d.intended;
    if m.count == 0 {
        return;
    }
    let (divisor, unit) = if m.min > 2_000_000 && m.max > 99_999_999 {
        (1_000_000.0, "msec")
    } else if m.min > 2000 && m.max > 99_999 {
        (1000.0, "usec")
    } else {
        (1.0, "nsec")
    };
    let at = |p: f64| d.intended_fine.percentile(p, m) as f64 / divisor;
    let _ = writeln!(
        out,
        "    ferrio lat from intended issue ({unit}): min={:.0}, max={:.0}, avg={:5.2}, p50={:.0}, p99={:.0}, p99.9={:.0}",
        m.min as f64 / divisor,
        m.max as f64 / divisor,
        m.mean() / divisor,
        at(50.0),
        at(99.0),
        at(99.9)
    );
}

/// A percentile table: unit from the smallest and largest values shown,
/// values rounded up to it, as many per line as fit in 73 columns.
fn percentile_table(out: &mut String, r: &JobResult, name: &str, hist: &Histogram, n: u64) {
    let list = &r.report.percentile_list;
    if list.is_empty() {
        return;
    }
    let mut values = percentiles(hist, n, list);
    let minv = values.iter().copied().min().unwrap_or(0);
    let maxv = values.iter().copied().max().unwrap_or(0);
    let (steps, divisor, unit) = if minv > 2_000_000 && maxv > 99_999_999 {
        (2, 1_000_000, "msec")
    } else if minv > 2000 && maxv > 99_999 {
        (1, 1000, "usec")
    } else {
        (0, 1, "nsec")
    };
    let _ = write!(out, "    {name} percentiles ({unit}):\n     |");
    let precision = r.report.percentile_precision;
    let scaled_max = maxv / divisor;
    let width = if scaled_max == 0 {
        5
    } else {
        (scaled_max.ilog10() as usize + 1).max(5)
    };
    let per_line = (73 / (precision + 10 + width)).max(1);
    let last = values.len() - 1;
    for (j, (p, v)) in list.iter().zip(values.iter_mut()).enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        for _ in 0..steps {
            *v = v.div_ceil(1000);
        }
        let end = if j == last { '\n' } else { ',' };
        let _ = write!(
            out,
            " {p:>pw$.precision$}th=[{v:>width$}]{end}",
            pw = precision + 3
        );
        if j == last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

/// `lat (usec)   : 50=1.45%, ...`, five buckets per line, empty buckets
/// left out.
fn latency_distribution(out: &mut String, unit: &str, shares: &[f64]) {
    const LABELS: [&str; 12] = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    let shown: Vec<String> = LABELS
        .iter()
        .zip(shares)
        .filter(|(_, s)| **s > 0.0)
        .map(|(l, s)| format!("{l}={s:3.2}%"))
        .collect();
    for line in shown.chunks(5) {
        let _ = writeln!(out, "  lat ({unit})   : {}", line.join(", "));
    }
}

fn map_line(out: &mut String, label: &str, keys: &[&str], shares: &[f64]) {
    let items: Vec<String> = keys
        .iter()
        .zip(shares)
        .map(|(k, s)| format!("{k}={s:3.1}%"))
        .collect();
    let _ = writeln!(out, "{label}{}", items.join(", "));
}

fn group_block(out: &mut String, g: &GroupStats) {
    let _ = writeln!(out, "\nRun status group {} (all jobs):", g.id);
    let binary = g.kb_base == 1024;
    let rate = if g.bits {
        Unit::BitsPerSec
    } else {
        Unit::BytesPerSec
    };
    let n = |v: u64, binary: bool, unit: Unit| num2str(v, g.sig_figs, 1, binary, unit);
    let line = |out: &mut String, label: &str, d: &super::model::GroupDir| {
        let _ = writeln!(
            out,
            "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            n(d.agg, binary, rate),
            n(d.agg, !binary, rate),
            n(d.min_bw, binary, rate),
            n(d.max_bw, binary, rate),
            n(d.min_bw, !binary, rate),
            n(d.max_bw, !binary, rate),
            n(d.io_bytes, binary, Unit::Bytes),
            n(d.io_bytes, !binary, Unit::Bytes),
            d.min_run,
            d.max_run
        );
    };
    let labels = ["   READ", "  WRITE", "   TRIM"];
    for (d, label) in g.dirs.iter().zip(labels) {
        if d.max_run == 0 {
            continue;
        }
        line(out, if g.mixed { "  MIXED" } else { label }, d);
    }
    if g.both {
        let used: Vec<&super::model::GroupDir> = g.dirs.iter().filter(|d| d.max_run > 0).collect();
        let mixed = super::model::GroupDir {
            io_bytes: used.iter().map(|d| d.io_bytes).sum(),
            agg: used.iter().map(|d| d.agg).sum(),
            min_bw: used.iter().map(|d| d.min_bw).min().unwrap_or(u64::MAX),
            max_bw: used.iter().map(|d| d.max_bw).max().unwrap_or(0),
            min_run: used.iter().map(|d| d.min_run).min().unwrap_or(u64::MAX),
            max_run: used.iter().map(|d| d.max_run).max().unwrap_or(0),
        };
        line(out, "  MIXED", &mixed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(samples: &[u64]) -> LatencyMoments {
        let mut m = LatencyMoments::default();
        for &s in samples {
            m.add(s);
        }
        m
    }

    /// Unit choice per line from min, max and deviation (spec §2.5): a
    /// 149 ns minimum keeps a 4.8 ms maximum in nsec; all three large
    /// enough give usec; msec needs all three in milliseconds.
    #[test]
    fn latency_lines_choose_fios_units() {
        let line = |samples: &[u64]| {
            let mut out = String::new();
            latency_line(&mut out, "clat", &moments(samples));
            out
        };
        assert!(
            line(&[149, 215_000, 4_781_900]).starts_with("    clat (nsec): min=149, max=4781.9k,")
        );
        assert!(
            line(&[55_000, 219_000, 4_783_000]).starts_with("    clat (usec): min=55, max=4783,")
        );
        assert!(
            line(&[2_500_000, 17_000_000, 150_000_000])
                .starts_with("    clat (msec): min=2, max=150,")
        );
        // A small deviation keeps nsec although min and max would allow usec.
        assert!(line(&[100_000, 100_001, 100_002]).starts_with("    clat (nsec)"));
    }

    /// Percentile tables: unit from the smallest and largest values shown,
    /// values rounded up, column width from the largest (spec §2.7).
    #[test]
    fn percentile_tables_choose_fios_units_and_widths() {
        let table = |samples: &[u64]| {
            let mut h = Histogram::default();
            for &s in samples {
                h.add(s);
            }
            let r = empty_result();
            let mut out = String::new();
            percentile_table(&mut out, &r, "clat", &h, samples.len() as u64);
            out
        };
        let usec = table(&[47_360, 47_360, 47_360, 47_360, 47_360, 150_000, 150_000]);
        assert!(
            usec.starts_with("    clat percentiles (usec):\n     |  1.00th=[   48],"),
            "{usec}"
        );
        let mixed = table(&[
            100, 130, 1000, 1500, 2000, 5000, 47000, 47360, 100_000, 5_000_000,
        ]);
        assert!(mixed.starts_with("    clat percentiles (nsec):\n     |  1.00th=[    100],  5.00th=[    100], 10.00th=[    100],\n"), "{mixed}");
        assert!(mixed.ends_with(" 99.99th=[5013504]\n"), "{mixed}");
    }

    fn empty_result() -> crate::result::JobResult {
        let p =
            crate::plan::plan_for_test("[j]\nioengine=null\nsize=1m\n", &[], &[], false).unwrap();
        let cfg =
            crate::run::config::JobConfig::from_spec(p.jobs().next().unwrap(), false).unwrap();
        crate::result::JobResult::new(&cfg)
    }
}
