//! ferrio's HTML page of results (`--output-format=html` and `ferrio
//! report`): per group of jobs, a table of the jobs' settings and results
//! with the group total, then per direction the jobs' bandwidth and IOPS
//! over time, their completion latency over time when it was logged, the
//! latency distribution, and the queue depth held against the depth asked
//! for. Several runs get a comparison first (compare.rs).
//!
//! The charts are plotly.js figures. plotly.js comes from the `plotly`
//! crate, which embeds it at build time (its `plotly_embed_js` feature),
//! so the page is one file that opens offline; nothing is fetched.

mod charts;
mod compare;
pub mod logs;
mod page;
mod section;
mod units;
pub mod view;

use std::fmt::Write;

use serde_json::Value;

use super::model::Report;
pub use page::runs_page;
pub use section::{Chart, append_to_page, charts};

/// The page of a run just made: its json+ document, read back, with the
/// series over time the run kept in memory, and the completion latency
/// over time from the latency logs its jobs wrote (names relative to the
/// working folder, where the run wrote them).
pub fn render(report: &Report) -> String {
    let mut text = String::new();
    super::json::document(report, true).write(&mut text, 0);
    let doc: Value = serde_json::from_str(&text).unwrap_or_default();
    let mut run = view::read(&doc, "this run").unwrap_or_default();
    // A log the page cannot read costs only its chart.
    let _ = logs::attach(&mut run, std::path::Path::new("."));
    for (job, result) in run.jobs.iter_mut().zip(&report.results) {
        for dir in &mut job.dirs {
            let Some(i) = view::DIRS.iter().position(|d| *d == dir.name) else {
                continue;
            };
            let stats = &result.dirs[i];
            let at = |ms: u64| ms as f64 / 1000.0;
            if stats.bw_series.is_empty() && stats.iops_series.is_empty() {
                continue;
            }
            dir.bw_series = stats
                .bw_series
                .iter()
                .map(|&(ms, kib)| (at(ms), kib as f64 * 1024.0))
                .collect();
            dir.iops_series = stats
                .iops_series
                .iter()
                .map(|&(ms, v)| (at(ms), v as f64))
                .collect();
        }
    }
    runs_page(&[run], 1)
}

/// plotly.js, in a script element. The `plotly` crate hands its embedded
/// copy over only together with MathJax, which the page does not use:
/// the first script element of the two is plotly.js.
fn plotly_script() -> String {
    let both = plotly::Plot::offline_js_sources();
    match both.find("</script>") {
        Some(end) => both[..end + "</script>".len()].to_string(),
        None => both,
    }
}

/// How wide a chart is drawn for print, in CSS pixels: an A4 or Letter
/// page's width inside the page's print margins.
const PRINT_WIDTH: u32 = 680;

/// The script that draws the page's `figures` (id, plotly figure) once
/// plotly.js is loaded, and marks the body `data-drawn` when all are drawn.
fn draw_script(figures: &[(String, Value)]) -> String {
    figures_script(figures, true)
}

/// The script that draws `figures`, in a block of its own so that several
/// on one page (a preset's section after the run's) cannot clash; `mark`
/// marks the body `data-drawn` with their count once all are drawn. A
/// chart sized for a wide window would be shrunk or cut on paper, and
/// printing resizes no window: each chart is redrawn at the paper's
/// width before printing and given back to the window after.
fn figures_script(figures: &[(String, Value)], mark: bool) -> String {
    let mut all = serde_json::Map::new();
    for (id, f) in figures {
        all.insert(id.clone(), f.clone());
    }
    // A JSON string may hold "</": written as "<\/" it cannot end the script.
    let json = Value::Object(all).to_string().replace("</", "<\\/");
    let mark = if mark {
        "Promise.all(drawn).then(() => { document.body.dataset.drawn = drawn.length; });\n"
    } else {
        ""
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<script>{{\nconst figures = {json};\nconst config = {{responsive: true, displaylogo: false}};\n\
         const drawn = Object.entries(figures).map(([id, f]) => Plotly.newPlot(id, f.data, f.layout, config));\n\
         {mark}\
         addEventListener('beforeprint', () => {{ for (const id in figures) Plotly.relayout(id, {{width: {PRINT_WIDTH}}}); }});\n\
         addEventListener('afterprint', () => {{ for (const id in figures) Plotly.relayout(id, {{width: null, autosize: true}}); }});\n}}</script>\n"
    );
    out
}

/// `&`, `<` and `>` as HTML text.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plotly_is_embedded_without_mathjax() {
        let s = plotly_script();
        assert!(s.starts_with("<script"));
        assert!(s.contains("plotly.js v"));
        assert!(!s.contains("TeXFont"), "MathJax left out");
        assert_eq!(s.matches("</script>").count(), 1);
    }

    #[test]
    fn figure_text_cannot_close_the_script() {
        let s = draw_script(&[("a".into(), serde_json::json!({"t": "</script>"}))]);
        assert_eq!(s.matches("</script>").count(), 1);
        assert_eq!(escape("a<b>&"), "a&lt;b&gt;&amp;");
    }
}
