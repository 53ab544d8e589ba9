//! fio's end-of-run reports, one module per format, each a function of
//! the same [`Report`]: the job results as fio groups them, the run-status
//! aggregates of each group, and the disks' use.

pub mod eta;
pub mod ferrio;
pub mod html;
pub mod json;
pub mod json_tree;
pub mod model;
pub mod ndjson;
pub mod normal;
pub mod num2str;
pub mod state;
pub mod terse;

pub use model::{
    GroupDir, GroupStats, NO_GROUP, Report, bytes_per_sec, cpu_percent, ctime, distribution, iops,
    share_of_group,
};

/// Which formats to write (fio's `--output-format`, a set).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Formats {
    pub normal: bool,
    pub json: bool,
    /// json+ (implies json): the histogram bins too.
    pub json_plus: bool,
    pub terse: bool,
    /// ferrio's own: a self-contained HTML page with plots.
    pub html: bool,
}

impl Formats {
    /// Reads `--output-format`'s comma list.
    pub fn parse(list: &str) -> Result<Formats, String> {
        let mut f = Formats::default();
        for word in list.split(',') {
            match word {
                "normal" => f.normal = true,
                "json" => f.json = true,
                "json+" => {
                    f.json = true;
                    f.json_plus = true
                }
                "terse" | "minimal" | "csv" => f.terse = true,
                "html" => f.html = true,
                other => return Err(other.to_string()),
            }
        }
        Ok(f)
    }

    /// The formats in effect after these flags, taken in order as fio
    /// reads them: normal until told otherwise; `--output-format` replaces
    /// the set, `--minimal` makes it terse alone, `--append-terse` adds
    /// terse. (A list fio would refuse was refused before any job.)
    pub fn from_flags(flags: &[(String, Option<String>)]) -> Formats {
        let mut f = Formats {
            normal: true,
            ..Formats::default()
        };
        for (name, value) in flags {
            match name.as_str() {
                "output-format" => {
                    if let Some(set) = value.as_deref().and_then(|v| Formats::parse(v).ok()) {
                        f = set;
                    }
                }
                "minimal" => {
                    f = Formats {
                        terse: true,
                        ..Formats::default()
                    }
                }
                "append-terse" => f.terse = true,
                _ => {}
            }
        }
        f
    }
}

impl Report {
    /// The reports in fio's fixed order: terse lines, then the JSON
    /// document, then the normal text.
    pub fn render(&self, formats: Formats) -> String {
        let mut out = String::new();
        if formats.terse {
            out += &terse::render(self);
        }
        if formats.json {
            out += &json::render(self, formats.json_plus);
        }
        if formats.normal {
            out += &normal::render(self);
        }
        if formats.html {
            out += &html::render(self);
        }
        out
    }
}
