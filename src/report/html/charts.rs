//! The page's charts as plotly.js figures (data, layout): ticks, grids,
//! hover and zoom are plotly's; ferrio picks the unit of each axis, the
//! colours (the legend takes each series' own) and where the percentile
//! marks go so that their labels do not overlap.

use serde_json::{Value, json};

use super::units::{self, Unit};
use super::view::{Dir, bins_percentile, merge_bins};

/// plotly's default colour cycle: one colour per job (or run) of a chart.
pub const PALETTE: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// The percentiles marked on a latency distribution.
pub const MARKED: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 99.99];

pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// A named series of (x, y) points drawn in one colour.
pub struct Line<'a> {
    pub name: String,
    pub colour: &'a str,
    pub dash: &'a str,
    pub points: Vec<(f64, f64)>,
}

fn axis(title: &str) -> Value {
    json!({
        "title": {"text": title, "standoff": 6},
        "showgrid": true, "gridcolor": "#e3e3e3", "zeroline": false,
        "showline": true, "linecolor": "#888", "ticks": "outside",
        "automargin": true, "nticks": 8,
    })
}

fn layout(title: &str, x: Value, y: Value) -> Value {
    json!({
        "title": {"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 15}},
        "xaxis": x, "yaxis": y,
        "autosize": true, "height": 380,
        "margin": {"l": 70, "r": 70, "t": 44, "b": 40},
        "showlegend": true,
        "legend": {"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top"},
        "hovermode": "x unified",
        "paper_bgcolor": "#fff", "plot_bgcolor": "#fff",
        "font": {"family": "DejaVu Sans, Arial, sans-serif", "size": 12, "color": "#222"},
    })
}

fn trace(l: &Line, scale: f64, y_suffix: &str) -> Value {
    let (x, y): (Vec<f64>, Vec<f64>) = l.points.iter().map(|p| (p.0, p.1 / scale)).unzip();
    json!({
        "type": "scatter", "mode": if l.points.len() > 1 { "lines" } else { "lines+markers" },
        "name": l.name, "x": x, "y": y,
        "line": {"color": l.colour, "width": 2, "dash": l.dash},
        "marker": {"color": l.colour},
        "hovertemplate": format!("%{{y:.4~g}} {y_suffix}<extra>{}</extra>", l.name),
    })
}

/// A line chart over time; `y` is the axis title without its unit, and
/// `unit` what the values are divided by (and its name), `None` for
/// plain counts shown with SI suffixes (k, M) under `count_unit`.
pub fn over_time(
    title: &str,
    y: &str,
    unit: Result<Unit, &str>,
    lines: &[Line],
    seconds: f64,
) -> Value {
    // Counts read with SI suffixes (12k, 1.5M); values already in their
    // unit read as plain numbers (0.5 GiB/s, not "500m").
    let (scale, name, format) = match unit {
        Ok(u) => (u.size, u.name, ""),
        Err(name) => (1.0, name, "~s"),
    };
    let mut x = axis("time (s)");
    x["range"] = json!([0.0, seconds.max(1.0)]);
    let mut y_axis = axis(&format!("{y} ({name})"));
    y_axis["rangemode"] = json!("tozero");
    y_axis["tickformat"] = json!(format);
    let data: Vec<Value> = lines.iter().map(|l| trace(l, scale, name)).collect();
    json!({"data": data, "layout": layout(title, x, y_axis)})
}

/// Each disk's busy share over the run, on a 0-100 % axis.
pub fn utilisation_over_time(lines: &[Line]) -> Value {
    let seconds = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .fold(1.0, f64::max);
    let percent = Unit {
        name: "%",
        size: 1.0,
    };
    let mut fig = over_time(
        "Disk utilisation over time (busy share per 0.5 s)",
        "busy",
        Ok(percent),
        lines,
        seconds,
    );
    fig["layout"]["yaxis"]["range"] = json!([0.0, 100.0]);
    fig
}

/// A line chart of one series against a plain x axis (a preset's
/// transfer rate against position, say); the axis titles carry their
/// units.
pub fn plain(title: &str, x: &str, y: &str, line: &Line) -> Value {
    let mut y_axis = axis(y);
    y_axis["rangemode"] = json!("tozero");
    let mut figure_layout = layout(title, axis(x), y_axis);
    figure_layout["showlegend"] = json!(false);
    json!({"data": [trace(line, 1.0, "")], "layout": figure_layout})
}

/// Completion latency over time on a logarithmic axis, so that p50 and
/// the largest latency, often decades apart, both read.
pub fn latency_over_time(title: &str, lines: &[Line], seconds: f64) -> Value {
    let values = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let (min, max) = values.fold((f64::MAX, 0.0f64), |(lo, hi), v| {
        (lo.min(v.max(1.0)), hi.max(v))
    });
    let unit = units::log_latency(min, max);
    let mut fig = over_time(title, "completion latency", Ok(unit), lines, seconds);
    let lo = min / unit.size / 1.6;
    let hi = (max / unit.size * 1.6).max(lo * 10.0);
    let (ticks, labels): (Vec<f64>, Vec<String>) = units::log_ticks(lo, hi).into_iter().unzip();
    let y = &mut fig["layout"]["yaxis"];
    y["title"]["text"] = json!(format!("completion latency ({}, log scale)", unit.name));
    y["type"] = json!("log");
    y["range"] = json!([lo.log10(), hi.log10()]);
    y["tickvals"] = json!(ticks);
    y["ticktext"] = json!(labels);
    fig
}

/// A histogram of one direction and how the chart names and colours it.
pub struct Hist<'a> {
    pub label: String,
    pub dir: &'a Dir,
    pub colour: &'a str,
}

/// A logarithmic latency axis over bins from `first` to `last` ns: the
/// axis, its unit, and its span in that unit.
fn latency_axis(first: f64, last: f64) -> (Value, Unit, f64, f64) {
    let unit = units::log_latency(first, last);
    let lo = first.max(1.0) / unit.size / 1.6;
    let hi = (last.max(1.0) / unit.size * 1.6).max(lo * 10.0);
    let (ticks, labels): (Vec<f64>, Vec<String>) = units::log_ticks(lo, hi).into_iter().unzip();
    let mut x = axis(&format!("completion latency ({}, log scale)", unit.name));
    x["type"] = json!("log");
    x["range"] = json!([lo.log10(), hi.log10()]);
    x["tickvals"] = json!(ticks);
    x["ticktext"] = json!(labels);
    (x, unit, lo, hi)
}

/// The cumulative share of I/Os (percent) at each bin, in `unit`.
fn cumulative(bins: &[(f64, u64)], unit: Unit) -> (Vec<f64>, Vec<f64>) {
    let total: u64 = bins.iter().map(|b| b.1).sum::<u64>().max(1);
    let mut seen = 0;
    bins.iter()
        .map(|(v, c)| {
            seen += c;
            (v.max(1.0) / unit.size, seen as f64 * 100.0 / total as f64)
        })
        .unzip()
}

fn percent_axis(title: &str) -> Value {
    let mut y = axis(title);
    y["range"] = json!([0, 105]);
    y["tickvals"] = json!([0, 25, 50, 75, 100]);
    y
}

/// The completion-latency distribution of a group's jobs in one
/// direction: each job's histogram, the cumulative share of I/Os of them
/// all (right axis), and its percentiles marked.
pub fn distribution(title: &str, hists: &[Hist]) -> Option<Value> {
    let all = merge_bins(hists.iter().map(|h| h.dir.bins.as_slice()));
    if all.iter().map(|b| b.1).sum::<u64>() == 0 {
        return None;
    }
    let (x, unit, lo, hi) = latency_axis(all[0].0, all[all.len() - 1].0);
    let mut data: Vec<Value> = hists
        .iter()
        .map(|h| {
            let (x, y): (Vec<f64>, Vec<u64>) = h
                .dir
                .bins
                .iter()
                .map(|b| (b.0.max(1.0) / unit.size, b.1))
                .unzip();
            json!({
                "type": "scatter", "mode": "lines", "name": format!("{} I/Os", h.label),
                "x": x, "y": y, "line": {"color": h.colour, "width": 1.5, "shape": "hvh"},
                "fill": "tozeroy",
                "hovertemplate": format!("%{{x:.4~g}} {}: %{{y}} I/Os<extra></extra>", unit.name),
            })
        })
        .collect();
    let (cx, cy) = cumulative(&all, unit);
    data.push(json!({
        "type": "scatter", "mode": "lines", "name": "cumulative %", "x": cx, "y": cy,
        "yaxis": "y2", "line": {"color": "#222", "width": 2},
        "hovertemplate": format!("%{{x:.4~g}} {}: %{{y:.3f}}%<extra></extra>", unit.name),
    }));
    let mut y = axis("I/Os (count)");
    y["rangemode"] = json!("tozero");
    y["tickformat"] = json!("~s");
    let mut l = layout(title, x, y);
    let mut y2 = percent_axis("cumulative (% of I/Os)");
    y2["overlaying"] = json!("y");
    y2["side"] = json!("right");
    y2["showgrid"] = json!(false);
    l["yaxis2"] = y2;
    l["hovermode"] = json!("closest");
    let marks = marks(hists, &all, unit, lo, hi);
    l["shapes"] = marks.0;
    l["annotations"] = marks.1;
    Some(json!({"data": data, "layout": l}))
}

/// The cumulative latency curves of several runs' same job, one colour
/// each, to set side by side.
pub fn cumulative_overlay(title: &str, hists: &[Hist]) -> Option<Value> {
    let all = merge_bins(hists.iter().map(|h| h.dir.bins.as_slice()));
    if all.is_empty() {
        return None;
    }
    let (x, unit, _, _) = latency_axis(all[0].0, all[all.len() - 1].0);
    let data: Vec<Value> = hists
        .iter()
        .filter(|h| !h.dir.bins.is_empty())
        .map(|h| {
            let (cx, cy) = cumulative(&h.dir.bins, unit);
            json!({
                "type": "scatter", "mode": "lines", "name": h.label, "x": cx, "y": cy,
                "line": {"color": h.colour, "width": 2, "shape": "hv"},
                "hovertemplate": format!("%{{x:.4~g}} {}: %{{y:.3f}}%<extra>{}</extra>", unit.name, h.label),
            })
        })
        .collect();
    let mut l = layout(title, x, percent_axis("cumulative (% of I/Os)"));
    l["hovermode"] = json!("closest");
    Some(json!({"data": data, "layout": l}))
}

/// Dashed lines at the marked percentiles and their labels, each label on
/// its own height so that labels of close percentiles cannot overlap; a
/// label near the right edge sits left of its line.
fn marks(hists: &[Hist], all: &[(f64, u64)], unit: Unit, lo: f64, hi: f64) -> (Value, Value) {
    let mut shapes = Vec::new();
    let mut notes = Vec::new();
    for (i, p) in MARKED.iter().enumerate() {
        // One job: the value its document gives; several: the merged histogram's.
        let ns = match hists {
            [h] => h
                .dir
                .percentile(*p)
                .unwrap_or_else(|| bins_percentile(all, *p)),
            _ => bins_percentile(all, *p),
        };
        let x = ns.max(1.0) / unit.size;
        let share = (x.log10() - lo.log10()) / (hi.log10() - lo.log10());
        shapes.push(json!({
            "type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
            "line": {"color": "#555", "width": 1, "dash": "dot"},
        }));
        notes.push(json!({
            "x": x.log10(), "xref": "x", "yref": "paper", "y": 0.97 - 0.11 * i as f64,
            "yanchor": "top", "xanchor": if share > 0.7 { "right" } else { "left" },
            "text": format!("p{p} {}", units::time_text(ns)), "showarrow": false,
            "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 11, "color": "#333"},
        }));
    }
    (json!(shapes), json!(notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_labels_stack_and_use_per_axis_units() {
        let dir = Dir {
            bins: vec![(1000.0, 90), (50_000.0, 9), (2_000_000.0, 1)],
            ..Dir::default()
        };
        let fig = distribution(
            "t",
            &[Hist {
                label: "j".into(),
                dir: &dir,
                colour: "#000",
            }],
        )
        .unwrap();
        let notes = fig["layout"]["annotations"].as_array().unwrap();
        assert_eq!(notes.len(), MARKED.len());
        let heights: Vec<f64> = notes.iter().map(|n| n["y"].as_f64().unwrap()).collect();
        assert!(heights.windows(2).all(|w| w[0] - w[1] > 0.1), "{heights:?}");
        assert_eq!(
            fig["layout"]["xaxis"]["title"]["text"],
            "completion latency (µs, log scale)"
        );
        let ticks = fig["layout"]["xaxis"]["tickvals"].as_array().unwrap();
        assert!(ticks.len() >= 4);
    }
}
