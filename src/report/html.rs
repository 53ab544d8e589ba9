//! A self-contained HTML page of a run (ferrio's `--output-format=html`):
//! per job, bandwidth and IOPS over time, the completion-latency
//! histogram with its percentiles marked, and the queue depth held over
//! time against the depth asked for. Plain inline SVG: no script, no
//! external file, so it opens anywhere and archives well.

use std::fmt::Write;

use super::Report;
use super::num2str::{Unit, num2str};
use crate::result::{DirStats, JobResult};
use crate::stats::histogram::{BUCKETS, value_of};

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 220.0;
const MARGIN: f64 = 48.0;
const COLOURS: [&str; 3] = ["#1f77b4", "#d62728", "#2ca02c"];
const DIRS: [&str; 3] = ["read", "write", "trim"];

pub fn render(report: &Report) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>ferrio report</title>\n<style>\nbody{font-family:sans-serif;margin:2em;color:#222}\nsvg{background:#fafafa;border:1px solid #ddd;margin:0.5em 0}\ntable{border-collapse:collapse}td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #eee}\n.axis{stroke:#888;stroke-width:1}\ntext{font-size:11px;fill:#444}\n</style></head><body>\n",
    );
    let _ = writeln!(
        out,
        "<h1>ferrio report</h1>\n<p>{} ({} compatible), {}</p>",
        env!("CARGO_PKG_VERSION"),
        crate::FIO_VERSION,
        escape(&report.ctime())
    );
    for r in &report.results {
        job(&mut out, r);
    }
    out.push_str("</body></html>\n");
    out
}

fn job(out: &mut String, r: &JobResult) {
    let _ = writeln!(
        out,
        "<section class=\"job\"><h2>{} (group {}, {} job{})</h2>",
        escape(&r.name),
        r.group,
        r.members,
        if r.members == 1 { "" } else { "s" }
    );
    summary(out, r);
    let used: Vec<usize> = (0..3).filter(|&d| r.dirs[d].ios > 0).collect();
    let series = |f: fn(&DirStats) -> &Vec<(u64, u64)>| -> Vec<Series> {
        used.iter()
            .map(|&d| Series {
                label: DIRS[d],
                colour: COLOURS[d],
                points: f(&r.dirs[d])
                    .iter()
                    .map(|&(ms, v)| (ms as f64 / 1000.0, v as f64))
                    .collect(),
            })
            .collect()
    };
    line_chart(
        out,
        "bandwidth",
        "Bandwidth over time",
        "seconds",
        "KiB/s",
        &series(|d| &d.bw_series),
        None,
    );
    line_chart(
        out,
        "iops",
        "IOPS over time",
        "seconds",
        "IOPS",
        &series(|d| &d.iops_series),
        None,
    );
    for &d in &used {
        latency_chart(out, DIRS[d], COLOURS[d], &r.dirs[d]);
    }
    let depth = Series {
        label: "in flight",
        colour: COLOURS[0],
        points: r
            .depth_per_second
            .iter()
            .enumerate()
            .map(|(s, v)| (s as f64 + 1.0, *v))
            .collect(),
    };
    line_chart(
        out,
        "depth",
        "Queue depth held (mean per second)",
        "seconds",
        "I/Os in flight",
        &[depth],
        Some(("requested", r.latency_depth as f64)),
    );
    out.push_str("</section>\n");
}

fn summary(out: &mut String, r: &JobResult) {
    out.push_str("<table><tr><th>direction</th><th>IOPS</th><th>bandwidth</th><th>clat p50</th><th>clat p99</th><th>clat p99.99</th><th>clat max</th></tr>\n");
    for (d, stats) in r.dirs.iter().enumerate().filter(|(_, s)| s.ios > 0) {
        let iops = super::iops(stats);
        let bw = super::bytes_per_sec(stats);
        let p = |q: f64| time_text(stats.clat_fine.percentile(q, &stats.clat));
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            DIRS[d],
            num2str(iops, 4, 1, false, Unit::None),
            num2str(bw, 4, 1, true, Unit::BytesPerSec),
            p(50.0),
            p(99.0),
            p(99.99),
            time_text(stats.clat.max)
        );
    }
    out.push_str("</table>\n");
}

/// One chart of a [`charts`] section: its title, x label, y label and
/// points.
pub type Chart<'a> = (&'a str, &'a str, &'a str, Vec<(f64, f64)>);

/// A section of line charts for a page of its own kind (a preset's).
pub fn charts(title: &str, charts: &[Chart]) -> String {
    let mut out = format!("<h2>{}</h2>\n", escape(title));
    for (i, (name, x, y, points)) in charts.iter().enumerate() {
        let series = [Series {
            label: "",
            colour: COLOURS[i % COLOURS.len()],
            points: points.clone(),
        }];
        line_chart(&mut out, &format!("preset-{i}"), name, x, y, &series, None);
    }
    out
}

/// Puts `section` at the end of the page's body in `text` (a rendering
/// that may hold other formats before the page).
pub fn append_to_page(text: &mut String, section: &str) {
    if let Some(at) = text.rfind("</body></html>") {
        text.insert_str(at, section);
    }
}

/// One line of a chart.
struct Series {
    label: &'static str,
    colour: &'static str,
    points: Vec<(f64, f64)>,
}

fn line_chart(
    out: &mut String,
    id: &str,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    reference: Option<(&str, f64)>,
) {
    let points = series.iter().flat_map(|s| s.points.iter());
    let x_max = points.clone().map(|p| p.0).fold(1.0, f64::max);
    let y_max = points
        .map(|p| p.1)
        .chain(reference.map(|r| r.1))
        .fold(1.0, f64::max)
        * 1.1;
    let _ = writeln!(out, "<h3>{title}</h3>");
    let _ = writeln!(
        out,
        "<svg id=\"{id}\" class=\"chart\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\">"
    );
    axes(out, x_label, y_label, 0.0, x_max, y_max);
    let to_px = |(x, y): (f64, f64)| {
        (
            MARGIN + x / x_max * (WIDTH - 2.0 * MARGIN),
            HEIGHT - MARGIN - y / y_max * (HEIGHT - 2.0 * MARGIN),
        )
    };
    if let Some((label, y)) = reference {
        let (x0, py) = to_px((0.0, y));
        let (x1, _) = to_px((x_max, y));
        let _ = writeln!(
            out,
            "<line class=\"reference\" x1=\"{x0:.1}\" y1=\"{py:.1}\" x2=\"{x1:.1}\" y2=\"{py:.1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{:.1}\">{label} {y}</text>",
            x1 - 80.0,
            py - 4.0
        );
    }
    for (i, s) in series.iter().enumerate() {
        if s.points.is_empty() {
            continue;
        }
        let path: Vec<String> = s
            .points
            .iter()
            .map(|p| {
                let (x, y) = to_px(*p);
                format!("{x:.1},{y:.1}")
            })
            .collect();
        let _ = writeln!(
            out,
            "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
            s.colour,
            path.join(" ")
        );
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{}\">{}</text>",
            WIDTH - MARGIN - 60.0,
            MARGIN - 20.0 + 14.0 * i as f64,
            s.colour,
            s.label
        );
    }
    if series.iter().all(|s| s.points.is_empty()) {
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\">no samples (the job ran under one sampling interval)</text>",
            MARGIN + 10.0,
            HEIGHT / 2.0
        );
    }
    out.push_str("</svg>\n");
}

fn axes(out: &mut String, x_label: &str, y_label: &str, x_min: f64, x_max: f64, y_max: f64) {
    let (left, bottom) = (MARGIN, HEIGHT - MARGIN);
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{left}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\"/><line class=\"axis\" x1=\"{left}\" y1=\"{MARGIN}\" x2=\"{left}\" y2=\"{bottom}\"/>",
        WIDTH - MARGIN
    );
    let _ = writeln!(
        out,
        "<text x=\"{left}\" y=\"{:.1}\">{}</text><text x=\"{:.1}\" y=\"{:.1}\">{} {x_label}</text><text x=\"4\" y=\"{:.1}\">{}</text><text x=\"4\" y=\"{bottom}\">0</text><text x=\"4\" y=\"{:.1}\">{y_label}</text>",
        bottom + 16.0,
        short(x_min),
        WIDTH - MARGIN - 60.0,
        bottom + 16.0,
        short(x_max),
        MARGIN,
        short(y_max / 1.1),
        MARGIN - 16.0
    );
}

/// The latency histogram of one direction on a logarithmic axis, with the
/// 50th, 99th, 99.9th and 99.99th percentiles marked.
fn latency_chart(out: &mut String, dir: &str, colour: &str, d: &DirStats) {
    if d.clat.count == 0 {
        return;
    }
    // fio's buckets, gathered into 10 bins per decade of nanoseconds.
    let mut bins: Vec<(f64, u64)> = Vec::new();
    for b in 0..BUCKETS {
        let c = d.clat_hist.count(b);
        if c == 0 {
            continue;
        }
        let x = ((value_of(b).max(1) as f64).log10() * 10.0).floor() / 10.0;
        match bins.last_mut() {
            Some(last) if (last.0 - x).abs() < 1e-9 => last.1 += c,
            _ => bins.push((x, c)),
        }
    }
    let x_min = bins.first().map_or(0.0, |b| b.0);
    let x_max = bins.last().map_or(1.0, |b| b.0) + 0.1;
    let y_max = bins.iter().map(|b| b.1).max().unwrap_or(1) as f64 * 1.1;
    let _ = writeln!(out, "<h3>Completion latency, {dir}</h3>");
    let _ = writeln!(
        out,
        "<svg id=\"latency-{dir}\" class=\"chart\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\">"
    );
    let span = (x_max - x_min).max(0.1);
    let px = |x: f64| MARGIN + (x - x_min) / span * (WIDTH - 2.0 * MARGIN);
    let py = |y: f64| HEIGHT - MARGIN - y / y_max * (HEIGHT - 2.0 * MARGIN);
    axes(out, "log10 ns", "I/Os", x_min, x_max, y_max);
    let bar = (WIDTH - 2.0 * MARGIN) / (span * 10.0) - 1.0;
    for (x, c) in &bins {
        let (left, top) = (px(*x), py(*c as f64));
        let _ = writeln!(
            out,
            "<rect class=\"bar\" x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{colour}\"/>",
            bar.max(1.0),
            HEIGHT - MARGIN - top
        );
    }
    for (i, p) in [50.0, 99.0, 99.9, 99.99].iter().enumerate() {
        let v = d.clat_fine.percentile(*p, &d.clat);
        let x = px((v.max(1) as f64).log10().clamp(x_min, x_max));
        // Labels near the right edge go to the left of their line.
        let label_x = if x > WIDTH - 130.0 {
            x - 110.0
        } else {
            x + 3.0
        };
        let _ = writeln!(
            out,
            "<line class=\"percentile\" x1=\"{x:.1}\" y1=\"{MARGIN}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#444\" stroke-dasharray=\"3 3\"/><text x=\"{:.1}\" y=\"{:.1}\">p{p} {}</text>",
            HEIGHT - MARGIN,
            label_x,
            MARGIN + 12.0 * i as f64,
            time_text(v)
        );
    }
    out.push_str("</svg>\n");
}

/// A latency in the largest unit that keeps it readable.
fn time_text(ns: u64) -> String {
    match ns {
        0..=9_999 => format!("{ns} ns"),
        10_000..=9_999_999 => format!("{:.1} µs", ns as f64 / 1e3),
        10_000_000..=9_999_999_999 => format!("{:.1} ms", ns as f64 / 1e6),
        _ => format!("{:.2} s", ns as f64 / 1e9),
    }
}

fn short(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v.abs() >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.1}")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_escaping() {
        assert_eq!(time_text(512), "512 ns");
        assert_eq!(time_text(51_200), "51.2 µs");
        assert_eq!(time_text(3_600_000_000_000), "3600.00 s");
        assert_eq!(escape("a<b>&"), "a&lt;b&gt;&amp;");
    }
}
