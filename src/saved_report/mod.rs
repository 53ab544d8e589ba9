//! `ferrio report FILE.json... [--output FILE]`: the HTML page of saved
//! results (the json+ of a fio or ferrio run, and the bandwidth, IOPS and
//! latency logs its jobs name, read from beside the JSON file when they
//! are there). Several files are several runs, set side by side with the
//! change of each from the first.

use serde_json::Value;

use crate::files_command::Usage;
use crate::report::html::{self, logs, view};

/// `ferrio report`'s command line.
const USAGE: Usage = Usage {
    name: "report",
    about: "Render the HTML report of saved results: one run, or several side by side with the change from the first",
    files: "the json+ results of a run (--output-format=json+; json draws no latency distribution); the logs its jobs name (write_bw_log, write_iops_log, write_lat_log) are read from the file's folder when present",
    output: "write the page to FILE instead of stdout",
    repeats: true,
};

/// Runs `ferrio report` with its arguments (after `report`); returns the
/// exit status.
pub fn run(argv: &[String]) -> i32 {
    USAGE.run(argv, |request| {
        let (files, repeats) = (&request.files, request.repeats);
        if !files.len().is_multiple_of(repeats) {
            return Err(format!(
                "{} files are not whole sets of --repeats {repeats}",
                files.len()
            ));
        }
        let runs: Vec<view::Run> = files.iter().map(|f| read(f)).collect::<Result<_, _>>()?;
        Ok(html::runs_page(&runs, repeats))
    })
}

/// One saved run. fio may print lines (notes, warnings) before its JSON
/// document; the document starts at the first line that opens an object.
fn read(path: &str) -> Result<view::Run, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let start = text
        .lines()
        .scan(0, |at, line| {
            let here = *at;
            *at += line.len() + 1;
            Some((here, line))
        })
        .find(|(_, l)| l.starts_with('{'))
        .map(|(at, _)| at)
        .ok_or_else(|| {
            format!("{path}: no JSON document (expected the output of --output-format=json+)")
        })?;
    let skipped = text[..start].lines().count();
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let doc = match stream.next() {
        Some(Ok(doc)) => doc,
        Some(Err(e)) => {
            // serde_json's text ends with its own position, counted from
            // the document's start: the file's line is given instead.
            let text = e.to_string();
            let what = text.split(" at line ").next().unwrap_or(&text).to_string();
            return Err(format!(
                "{path}:{}:{}: not a JSON results document: {what}",
                e.line() + skipped,
                e.column()
            ));
        }
        None => return Err(format!("{path}: empty")),
    };
    // Named as given: runs saved as a/run.json and b/run.json stay apart.
    let mut run = view::read(&doc, path).map_err(|e| format!("{path}: {e}"))?;
    let folder = std::path::Path::new(path)
        .parent()
        .unwrap_or(std::path::Path::new("."));
    logs::attach(&mut run, folder).map_err(|e| format!("{path}: {e}"))?;
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_and_errors() {
        let request = |argv: &[String]| USAGE.request(argv);
        let help = request(&["--help".into()]).unwrap_err();
        assert!(!help.1 && help.0.contains("ferrio report"), "{}", help.0);
        assert!(request(&[]).unwrap_err().1);
        let r = request(&["a.json".into(), "--output".into(), "x.html".into()]).unwrap();
        assert_eq!(r.output.as_deref(), Some("x.html"));
    }
}
