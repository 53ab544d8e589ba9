//! The page: its head, one section per run and per group, the tables and
//! the charts of each group.

use std::fmt::Write;

use serde_json::Value;

use super::charts::{self, Hist, Line, colour};
use super::units::{self, time_text};
use super::view::{DIRS, Dir, Job, Run, groups};
use super::{compare, draw_script, escape, plotly_script};
use crate::report::num2str::{Unit, num2str};

const STYLE: &str = "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:1.5em 2em;color:#222}\n\
table{border-collapse:collapse;margin:0.6em 0}td,th{padding:3px 12px;text-align:right;border-bottom:1px solid #e3e3e3}\n\
th{background:#f4f4f4}tr.total th{background:#eaf1f8}td:first-child,th:first-child{text-align:left}\n\
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(600px,1fr));gap:0.4em 1.2em}\n\
.chart{width:100%;min-height:380px;margin:0.4em 0 1em}\n\
.note{color:#666;font-style:italic}\n\
@media print{body{margin:0}.charts{display:block}.chart{break-inside:avoid;min-height:0}\
.modebar-container{display:none}h2,h3,h4{break-after:avoid}table{break-inside:avoid}}\n\
@page{margin:12mm}\n";

/// The page of one run, or of several compared (in sets of `repeats`
/// runs of one setup each).
pub fn runs_page(runs: &[Run], repeats: usize) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>ferrio report</title>\n<style>\n{STYLE}</style>\n{}\n</head><body>\n",
        plotly_script()
    );
    let _ = writeln!(
        out,
        "<h1>ferrio report</h1>\n<p>ferrio {} ({} compatible)</p>",
        env!("CARGO_PKG_VERSION"),
        crate::FIO_VERSION,
    );
    let mut figures: Vec<(String, Value)> = Vec::new();
    if runs.len() > 1 {
        compare::section(&mut out, &mut figures, runs, repeats.max(1));
    }
    for (i, run) in runs.iter().enumerate() {
        let _ = writeln!(
            out,
            "<section class=\"run\"><h2>{}{}</h2>",
            escape(&run.label),
            if run.time.is_empty() {
                String::new()
            } else {
                format!(", {}", escape(&run.time))
            }
        );
        for (group, jobs) in groups(run) {
            group_section(
                &mut out,
                &mut figures,
                &format!("r{i}-g{group}"),
                group,
                &jobs,
            );
        }
        disks(&mut out, &mut figures, &format!("r{i}"), run);
        out.push_str("</section>\n");
    }
    out += &draw_script(&figures);
    out.push_str("</body></html>\n");
    out
}

/// How a job is named on charts: by name, with its place among the jobs
/// of the group that share its name (numjobs clones) when there are several.
pub fn labels(jobs: &[&Job]) -> Vec<String> {
    jobs.iter()
        .enumerate()
        .map(|(i, j)| {
            let same = jobs.iter().filter(|o| o.name == j.name).count();
            if same > 1 {
                let nth = jobs[..i].iter().filter(|o| o.name == j.name).count();
                format!("{}.{nth}", j.name)
            } else {
                j.name.clone()
            }
        })
        .collect()
}

fn group_section(
    out: &mut String,
    figures: &mut Vec<(String, Value)>,
    id: &str,
    group: u64,
    jobs: &[&Job],
) {
    let names = labels(jobs);
    let _ = writeln!(
        out,
        "<section class=\"group\" id=\"{id}\"><h3>Group {group}: {} job{}</h3>",
        jobs.len(),
        if jobs.len() == 1 { "" } else { "s" }
    );
    settings_table(out, jobs, &names);
    results_table(out, jobs, &names);
    let seconds = jobs
        .iter()
        .flat_map(|j| {
            j.dirs
                .iter()
                .flat_map(|d| d.bw_series.iter().chain(&d.iops_series).map(|p| p.0))
                .chain([
                    j.depth_per_second.len() as f64,
                    j.runtime_ms as f64 / 1000.0,
                ])
        })
        .fold(1.0, f64::max);
    for dir in DIRS {
        let present: Vec<(usize, &Job, &Dir)> = jobs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| j.dir(dir).map(|d| (i, *j, d)))
            .collect();
        if present.is_empty() {
            continue;
        }
        let _ = writeln!(out, "<h4>{dir}</h4>\n<div class=\"charts\">");
        let mut chart = |kind: &str, figure: Option<Value>, why: &str| {
            let chart_id = format!("{id}-{dir}-{kind}");
            match figure {
                Some(f) => {
                    let _ = writeln!(out, "<div class=\"chart\" id=\"{chart_id}\"></div>");
                    figures.push((chart_id, f));
                }
                None => {
                    let _ = writeln!(out, "<p class=\"note\">{why}</p>");
                }
            }
        };
        let lines = |f: fn(&Dir) -> &Vec<(f64, f64)>| -> Vec<Line> {
            present
                .iter()
                .map(|(i, _, d)| Line {
                    name: names[*i].clone(),
                    colour: colour(*i),
                    dash: "solid",
                    points: f(d).clone(),
                })
                .filter(|l| !l.points.is_empty())
                .collect()
        };
        let bw = lines(|d| &d.bw_series);
        let max_bw = bw
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let no_samples = "no samples over time (the job ran under one sampling interval, or the saved results name no log)";
        chart(
            "bandwidth",
            (!bw.is_empty()).then(|| {
                charts::over_time(
                    &format!("Bandwidth over time, {dir}"),
                    "bandwidth",
                    Ok(units::bandwidth(max_bw)),
                    &bw,
                    seconds,
                )
            }),
            &format!("Bandwidth over time, {dir}: {no_samples}"),
        );
        let iops = lines(|d| &d.iops_series);
        chart(
            "iops",
            (!iops.is_empty()).then(|| {
                charts::over_time(
                    &format!("IOPS over time, {dir}"),
                    "IOPS",
                    Err("I/Os per second"),
                    &iops,
                    seconds,
                )
            }),
            &format!("IOPS over time, {dir}: {no_samples}"),
        );
        let lat = latency_lines(&present, &names);
        chart(
            "clat",
            (!lat.is_empty()).then(|| {
                charts::latency_over_time(
                    &format!("Latency over time, {dir} (p50, p99, max per s)"),
                    &lat,
                    seconds,
                )
            }),
            &format!(
                "Completion latency over time, {dir}: not recorded (write_lat_log names the log it is drawn from)"
            ),
        );
        let hists: Vec<Hist> = present
            .iter()
            .map(|(i, _, d)| Hist {
                label: names[*i].clone(),
                dir: d,
                colour: colour(*i),
            })
            .collect();
        chart(
            "distribution",
            charts::distribution(&format!("Completion latency distribution, {dir}"), &hists),
            &format!("Completion latency distribution, {dir}: needs json+ (the histogram bins)"),
        );
        out.push_str("</div>\n");
    }
    depth_chart(out, figures, id, jobs, &names, seconds);
    out.push_str("</section>\n");
}

/// Per job, p50 / p99 / max of completion latency per interval.
fn latency_lines<'a>(present: &[(usize, &Job, &Dir)], names: &[String]) -> Vec<Line<'a>> {
    let mut out = Vec::new();
    for (i, _, d) in present {
        if d.lat_series.is_empty() {
            continue;
        }
        for (what, dash, pick) in [("p50", "solid", 1), ("p99", "dash", 2), ("max", "dot", 3)] {
            out.push(Line {
                name: format!("{} {what}", names[*i]),
                colour: colour(*i),
                dash,
                points: d
                    .lat_series
                    .iter()
                    .map(|s| (s.0, [s.0, s.1, s.2, s.3][pick]))
                    .collect(),
            });
        }
    }
    out
}

/// The I/Os held in flight per second against the depth asked for; left
/// out for engines that hold one I/O at a time.
fn depth_chart(
    out: &mut String,
    figures: &mut Vec<(String, Value)>,
    id: &str,
    jobs: &[&Job],
    names: &[String],
    seconds: f64,
) {
    let mut lines = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        if j.synchronous() || j.depth_per_second.is_empty() {
            continue;
        }
        lines.push(Line {
            name: format!("{} held", names[i]),
            colour: colour(i),
            dash: "solid",
            points: j
                .depth_per_second
                .iter()
                .enumerate()
                .map(|(s, v)| (s as f64 + 0.5, *v))
                .collect(),
        });
        lines.push(Line {
            name: format!("{} requested ({})", names[i], j.depth_requested),
            colour: colour(i),
            dash: "dash",
            points: vec![(0.0, j.depth_requested), (seconds, j.depth_requested)],
        });
    }
    if lines.is_empty() {
        if jobs.iter().any(|j| !j.synchronous()) {
            out.push_str("<p class=\"note\">Queue depth over time: not in these results (ferrio's JSON section holds it; fio's JSON has only the iodepth distribution)</p>\n");
        }
        return;
    }
    let chart_id = format!("{id}-depth");
    let _ = writeln!(
        out,
        "<div class=\"charts\"><div class=\"chart\" id=\"{chart_id}\"></div></div>"
    );
    figures.push((
        chart_id,
        charts::over_time(
            "Queue depth held (mean per second) and requested",
            "I/Os in flight",
            Err("count"),
            &lines,
            seconds,
        ),
    ));
}

fn settings_table(out: &mut String, jobs: &[&Job], names: &[String]) {
    out.push_str("<table class=\"settings\"><tr><th>job</th><th>engine</th><th>rw</th><th>bs</th><th>iodepth</th><th>numjobs</th><th>size</th><th>runtime</th></tr>\n");
    for (j, name) in jobs.iter().zip(names) {
        let s = &j.settings;
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(name),
            escape(&s.engine),
            escape(&s.rw),
            escape(&s.bs),
            escape(&s.iodepth),
            escape(&s.numjobs),
            escape(&s.size),
            escape(&s.runtime)
        );
    }
    out.push_str("</table>\n");
}

/// IOPS as the summary prints it.
pub fn iops_text(iops: f64) -> String {
    num2str(iops.max(0.0) as u64, 4, 1, false, Unit::None)
}

/// Bandwidth as the summary prints it.
pub fn bw_text(bytes: f64) -> String {
    num2str(bytes.max(0.0) as u64, 4, 1, true, Unit::BytesPerSec)
}

fn results_table(out: &mut String, jobs: &[&Job], names: &[String]) {
    out.push_str("<table class=\"results\"><tr><th>job</th><th>direction</th><th>IOPS</th><th>bandwidth</th><th>clat p50</th><th>clat p99</th><th>clat p99.99</th><th>clat max</th></tr>\n");
    for (j, name) in jobs.iter().zip(names) {
        for d in &j.dirs {
            let p = |q: f64| d.percentile(q).map_or("-".to_string(), time_text);
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(name),
                d.name,
                iops_text(d.iops),
                bw_text(d.bw_bytes),
                p(50.0),
                p(99.0),
                p(99.99),
                time_text(d.clat_max)
            );
        }
    }
    for dir in DIRS {
        let of: Vec<&Dir> = jobs.iter().filter_map(|j| j.dir(dir)).collect();
        if of.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<tr class=\"total\"><th>group total</th><th>{dir}</th><th>{}</th><th>{}</th><th colspan=\"4\"></th></tr>",
            iops_text(of.iter().map(|d| d.iops).sum()),
            bw_text(of.iter().map(|d| d.bw_bytes).sum()),
        );
    }
    out.push_str("</table>\n");
}

fn disks(out: &mut String, figures: &mut Vec<(String, Value)>, id: &str, run: &Run) {
    if run.disks.is_empty() {
        return;
    }
    out.push_str("<h3>Disk utilisation</h3>\n<table class=\"disks\"><tr><th>device</th><th>utilisation</th></tr>\n");
    for (name, util) in &run.disks {
        let _ = writeln!(out, "<tr><td>{}</td><td>{util:.2}%</td></tr>", escape(name));
    }
    out.push_str("</table>\n");
    let lines: Vec<Line> = run
        .disk_series
        .iter()
        .enumerate()
        .map(|(i, (name, points))| Line {
            name: name.clone(),
            colour: colour(i),
            dash: "solid",
            points: points.clone(),
        })
        .collect();
    if lines.is_empty() {
        return;
    }
    let chart_id = format!("{id}-disks");
    let _ = writeln!(
        out,
        "<div class=\"charts\"><div class=\"chart\" id=\"{chart_id}\"></div></div>"
    );
    figures.push((chart_id, charts::utilisation_over_time(&lines)));
}
