//! Several runs side by side: for each job they share (matched by name,
//! and by place among jobs of the same name), each direction's IOPS,
//! bandwidth and completion-latency percentiles in every run with the
//! change from the first run (with `--repeats`, each set of repeated runs
//! as its median, and whether its change from the first set is beyond
//! the spread of their repeats), and the runs' latency curves and (when
//! their series are known) bandwidth over time overlaid.

use std::fmt::Write;

use serde_json::Value;

use super::charts::{self, Hist, Line, colour};
use super::escape;
use super::page::{bw_text, iops_text, labels};
use super::units::{self, time_text};
use super::view::{DIRS, Dir, Job, Run};

/// The change from `base` to `v`, in percent, as the table shows it.
fn delta(base: f64, v: f64) -> String {
    if base == 0.0 {
        return String::new();
    }
    format!(" ({:+.1}%)", (v - base) / base * 100.0)
}

/// The job labelled `label` in each run (`None` where a run lacks it).
fn matched<'a>(runs: &'a [Run], label: &str) -> Vec<Option<&'a Job>> {
    runs.iter()
        .map(|r| {
            let jobs: Vec<&Job> = r.jobs.iter().collect();
            labels(&jobs)
                .iter()
                .position(|l| l == label)
                .map(|i| jobs[i])
        })
        .collect()
}

/// The longest runtime, seconds, of the job labelled `label` in any run.
fn jobs_runtime(runs: &[Run], label: &str) -> f64 {
    matched(runs, label)
        .iter()
        .flatten()
        .map(|j| j.runtime_ms as f64 / 1000.0)
        .fold(1.0, f64::max)
}

type Metric = (&'static str, fn(&Dir) -> Option<f64>, fn(f64) -> String);

const METRICS: [Metric; 5] = [
    ("IOPS", |d| Some(d.iops), iops_text),
    ("bandwidth", |d| Some(d.bw_bytes), bw_text),
    ("clat p50", |d| d.percentile(50.0), time_text),
    ("clat p99", |d| d.percentile(99.0), time_text),
    ("clat p99.99", |d| d.percentile(99.99), time_text),
];

/// A measure over the repeats of one setup: their median, and the range
/// they spread over.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

impl Spread {
    fn of(values: &[f64]) -> Option<Spread> {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = match n {
            0 => return None,
            _ if n % 2 == 1 => v[n / 2],
            _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        };
        Some(Spread {
            median,
            min: v[0],
            max: v[n - 1],
        })
    }

    /// Whether the difference from `base` is larger than the repeats'
    /// spread: the two sets' ranges do not overlap.
    fn beyond(&self, base: &Spread) -> bool {
        self.min > base.max || self.max < base.min
    }
}

/// A cell of the table: a set's median and, for a set after the first,
/// its change from the first set's and (with repeats) whether the change
/// is beyond their spread.
fn cell(
    set: usize,
    this: Option<Spread>,
    base: Option<Spread>,
    repeats: usize,
    show: fn(f64) -> String,
) -> String {
    match (this, base) {
        (Some(v), Some(b)) if set > 0 => {
            let verdict = match (repeats > 1, v.beyond(&b)) {
                (false, _) => "",
                (true, true) => ", beyond the spread",
                (true, false) => ", within the spread",
            };
            let change = delta(b.median, v.median);
            match change.strip_suffix(')') {
                Some(open) if !verdict.is_empty() => format!("{}{open}{verdict})", show(v.median)),
                _ => format!("{}{change}", show(v.median)),
            }
        }
        (Some(v), _) => show(v.median),
        (None, _) => "-".to_string(),
    }
}

/// The comparison: a table of each set of `repeats` runs (each run its
/// own set when 1), then the runs' latency curves and bandwidth overlaid.
pub fn section(out: &mut String, figures: &mut Vec<(String, Value)>, runs: &[Run], repeats: usize) {
    out.push_str("<section class=\"compare\"><h2>Comparison</h2>\n<table class=\"compare\"><tr><th>job</th><th>direction</th><th>measure</th>");
    for set in runs.chunks(repeats) {
        let name = match set.len() {
            1 => set[0].label.clone(),
            n => format!("{} (median of {n})", set[0].label),
        };
        let _ = write!(out, "<th>{}</th>", escape(&name));
    }
    out.push_str("</tr>\n");
    let first: Vec<&Job> = runs[0].jobs.iter().collect();
    let mut charts_of = Vec::new();
    for label in labels(&first) {
        let jobs = matched(runs, &label);
        for dir in DIRS {
            let dirs: Vec<Option<&Dir>> = jobs.iter().map(|j| j.and_then(|j| j.dir(dir))).collect();
            if dirs[0].is_none() {
                continue;
            }
            for (what, get, show) in METRICS {
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td>{dir}</td><td>{what}</td>",
                    escape(&label)
                );
                let sets: Vec<Option<Spread>> = dirs
                    .chunks(repeats)
                    .map(|set| {
                        Spread::of(
                            &set.iter()
                                .filter_map(|d| d.and_then(get))
                                .collect::<Vec<_>>(),
                        )
                    })
                    .collect();
                for (i, this) in sets.iter().enumerate() {
                    let _ = write!(out, "<td>{}</td>", cell(i, *this, sets[0], repeats, show));
                }
                out.push_str("</tr>\n");
            }
            charts_of.push((label.clone(), dir, dirs));
        }
    }
    out.push_str("</table>\n");
    for (n, (label, dir, dirs)) in charts_of.iter().enumerate() {
        let hists: Vec<Hist> = dirs
            .iter()
            .zip(runs)
            .enumerate()
            .filter_map(|(i, (d, r))| {
                d.map(|d| Hist {
                    label: r.label.clone(),
                    dir: d,
                    colour: colour(i),
                })
            })
            .collect();
        out.push_str("<div class=\"charts\">\n");
        let title = format!("Completion latency by run: {label}, {dir}");
        if let Some(f) = charts::cumulative_overlay(&title, &hists) {
            let id = format!("compare-{n}");
            let _ = writeln!(out, "<div class=\"chart\" id=\"{id}\"></div>");
            figures.push((id, f));
        }
        let lines: Vec<Line> = hists
            .iter()
            .filter(|h| !h.dir.bw_series.is_empty())
            .map(|h| Line {
                name: h.label.clone(),
                colour: h.colour,
                dash: "solid",
                points: h.dir.bw_series.clone(),
            })
            .collect();
        if !lines.is_empty() {
            let points = lines.iter().flat_map(|l| l.points.iter());
            let runtime = jobs_runtime(runs, label);
            let seconds = points.clone().map(|p| p.0).fold(runtime, f64::max);
            let max = points.map(|p| p.1).fold(0.0, f64::max);
            let title = format!("Bandwidth over time by run: {label}, {dir}");
            let f = charts::over_time(
                &title,
                "bandwidth",
                Ok(units::bandwidth(max)),
                &lines,
                seconds,
            );
            let id = format!("compare-{n}-bandwidth");
            let _ = writeln!(out, "<div class=\"chart\" id=\"{id}\"></div>");
            figures.push((id, f));
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_against_the_first_run() {
        assert_eq!(delta(100.0, 110.0), " (+10.0%)");
        assert_eq!(delta(200.0, 150.0), " (-25.0%)");
        assert_eq!(delta(0.0, 5.0), "");
    }

    #[test]
    fn medians_and_spreads_of_repeats() {
        let a = Spread::of(&[10.0, 12.0, 11.0]).unwrap();
        assert_eq!((a.median, a.min, a.max), (11.0, 10.0, 12.0));
        assert_eq!(Spread::of(&[4.0, 1.0]).unwrap().median, 2.5);
        assert_eq!(Spread::of(&[]), None);
        // Ranges that overlap are within the spread; apart, beyond it.
        let near = Spread::of(&[11.5, 12.5, 13.0]).unwrap();
        let far = Spread::of(&[13.0, 14.0, 15.0]).unwrap();
        assert!(!near.beyond(&a) && far.beyond(&a) && a.beyond(&far));
        let show = |v: f64| format!("{v}");
        assert_eq!(
            cell(1, Some(far), Some(a), 3, show),
            "14 (+27.3%, beyond the spread)"
        );
        assert_eq!(
            cell(1, Some(near), Some(a), 3, show),
            "12.5 (+13.6%, within the spread)"
        );
        assert_eq!(cell(1, Some(far), Some(a), 1, show), "14 (+27.3%)");
        assert_eq!(cell(0, Some(a), Some(a), 3, show), "11");
        assert_eq!(cell(1, None, Some(a), 3, show), "-");
    }
}
