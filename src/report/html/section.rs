//! A section of plain line charts that a page of another kind (a
//! preset's, as the HD Tune-style curve) adds to a run's page, drawn by
//! a script of its own once the page's plotly.js has loaded.

use super::charts::{self, Line};
use super::{escape, figures_script};

/// One chart of a [`charts`] section: its title, x axis title, y axis
/// title (each with its unit) and points.
pub type Chart<'a> = (&'a str, &'a str, &'a str, Vec<(f64, f64)>);

/// The section's heading, one chart box per chart, and the script that
/// draws them.
pub fn charts(title: &str, list: &[Chart]) -> String {
    let mut out = format!("<h2>{}</h2>\n", escape(title));
    let mut figures = Vec::new();
    for (i, (name, x, y, points)) in list.iter().enumerate() {
        let id = format!("section-{i}");
        out += &format!("<div class=\"chart\" id=\"{id}\"></div>\n");
        let line = Line {
            name: (*name).to_string(),
            colour: charts::colour(i),
            dash: "solid",
            points: points.clone(),
        };
        figures.push((id, charts::plain(name, x, y, &line)));
    }
    out + &figures_script(&figures, false)
}

/// Puts `section` at the end of the page's body in `text` (a rendering
/// that may hold other formats before the page).
pub fn append_to_page(text: &mut String, section: &str) {
    if let Some(at) = text.rfind("</body></html>") {
        text.insert_str(at, section);
    }
}
