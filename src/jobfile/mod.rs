//! Reading fio job files: bytes → sections of options with their locations.
//!
//! This layer knows nothing about what options mean; it reproduces fio's
//! reader (comment cutting, section headers, `include`) and remembers where
//! each line came from so later errors can point at it. File access goes
//! through [`Loader`] so tests and the fuzzer can read from memory.

pub mod expand;
pub mod line;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use line::{LineKind, classify, trim};

/// Where a piece of text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: Arc<str>,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One `key[=value]` line of a section, text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The line after fio's trimming, as fio quotes it in messages.
    pub line: String,
    pub key: String,
    pub value: Option<String>,
    pub location: Location,
    /// Set when the entry came from an included file: the `include` line.
    pub included_from: Option<Location>,
}

impl Entry {
    /// The text fio works on: the trimmed line, `key` or `key = value`.
    pub fn text(&self) -> String {
        self.line.clone()
    }
}

/// A `[name]` section with its options in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub location: Location,
    pub entries: Vec<Entry>,
    /// Failed includes inside the section: fio reports them while reading
    /// (stderr) and prints the job's error record when it sets the job up
    /// (stdout, job sections only).
    pub include_errors: Notes,
    /// The errno of the section's first include that could not be
    /// opened: fio sets it as the job's error while reading the file.
    pub include_errno: Option<i32>,
}

impl Section {
    /// fio treats every section whose name starts with `global` as global.
    pub fn is_global(&self) -> bool {
        self.name.starts_with("global")
    }
}

/// A job file that failed to read, with the place and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub location: Option<Location>,
    /// The line fio would print on stderr for this failure.
    pub fio_message: String,
    /// What went wrong and what was expected, for people.
    pub detail: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => write!(f, "{loc}: {}", self.detail),
            None => f.write_str(&self.detail),
        }
    }
}

/// Source of job-file bytes; the filesystem in production, memory in tests.
pub trait Loader {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>>;
    fn exists(&self, path: &Path) -> bool;
}

/// Reads job files from the filesystem (`-` is standard input).
pub struct FsLoader;

impl Loader for FsLoader {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        if path == Path::new("-") {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)?;
            return Ok(buf);
        }
        std::fs::read(path)
    }
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
}

/// Job files held in memory, keyed by path.
#[derive(Default)]
pub struct MemLoader(pub HashMap<PathBuf, Vec<u8>>);

impl Loader for MemLoader {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.0
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }
    fn exists(&self, path: &Path) -> bool {
        self.0.contains_key(path)
    }
}

/// How deep includes may nest. fio keeps every file of the chain open,
/// so it fails a chain near its open-file limit (1024 by default); a
/// chain of files that are each included once is read to this depth,
/// which also bounds the reader's recursion.
const MAX_INCLUDE_DEPTH: usize = 1000;

/// A job file read up to its end or up to its first error. fio handles
/// the sections before a syntax error (reporting their problems first), so
/// the sections read so far are kept beside the error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOutcome {
    pub sections: Vec<Section>,
    pub error: Option<ReadError>,
}

/// What fio prints while reading input it still accepts, stream by
/// stream, in the order it prints it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    /// Warnings, one line each (a value out of range in one piece, a
    /// failed include...).
    pub stderr: Vec<String>,
    /// Everything fio prints on stdout, verbatim (notices, `--showcmd`).
    pub stdout: String,
}

impl Notes {
    /// Adds a line to stdout.
    pub fn say(&mut self, line: &str) {
        self.stdout.push_str(line);
        self.stdout.push('\n');
    }
}

/// An include that could not be read. fio reports it, keeps the options
/// read so far, and goes on with the next line, which it then reads as if
/// it stood outside any section.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IncludeFailure {
    stderr: Vec<String>,
    /// The job's error record, printed on stdout when the job is set up,
    /// and the errno behind it.
    record: Option<String>,
    errno: Option<i32>,
}

enum LineError {
    Fatal(ReadError),
    Include(IncludeFailure),
}

impl From<ReadError> for LineError {
    fn from(e: ReadError) -> Self {
        LineError::Fatal(e)
    }
}

/// Reads one job file and its includes into sections.
///
/// `keep` decides which non-global sections are kept (fio's `--section`);
/// skipped sections' lines are ignored entirely, as fio ignores them.
pub fn read(loader: &dyn Loader, path: &str, keep: &dyn Fn(&str) -> bool) -> ReadOutcome {
    let mut sections: Vec<Section> = Vec::new();
    let error = read_into(loader, path, keep, &mut sections).err();
    ReadOutcome { sections, error }
}

fn read_into(
    loader: &dyn Loader,
    path: &str,
    keep: &dyn Fn(&str) -> bool,
    sections: &mut Vec<Section>,
) -> Result<(), ReadError> {
    let bytes = loader.read(Path::new(path)).map_err(|e| ReadError {
        location: None,
        fio_message: format!("fio: unable to open '{path}' job file"),
        detail: format!("cannot open job file '{path}': {e}"),
    })?;
    // fio keeps bytes that are not UTF-8 as they are.
    let text = crate::raw_text::from_bytes(&bytes);
    let mut skipping = false;
    // After a failed include, fio reads on as if outside any section.
    let mut outside = false;
    for (line, location) in located_lines(&text, path) {
        if line.starts_with('[') {
            match classify(line) {
                LineKind::Section(name) => {
                    let name = truncate_section_name(name);
                    let global = name.starts_with("global");
                    skipping = !global && !keep(&name);
                    outside = false;
                    if !skipping {
                        sections.push(Section {
                            name,
                            location,
                            include_errors: Notes::default(),
                            include_errno: None,
                            entries: Vec::new(),
                        });
                    }
                    continue;
                }
                _ if skipping => continue,
                _ => return Err(outside_section(line, location)),
            }
        }
        if skipping {
            continue;
        }
        let section = match sections.last_mut() {
            Some(s) if !outside => s,
            _ => return Err(outside_section(line, location)),
        };
        let result = read_line(
            loader,
            path,
            line,
            location,
            None,
            &mut section.entries,
            &mut vec![path.to_string()],
        );
        match result {
            Ok(()) => {}
            Err(LineError::Fatal(e)) => return Err(e),
            Err(LineError::Include(failure)) => {
                section.include_errors.stderr.extend(failure.stderr);
                if let Some(record) = failure.record.filter(|_| !section.is_global()) {
                    section.include_errors.say(&record);
                    section.include_errno = section.include_errno.or(failure.errno);
                }
                outside = true;
            }
        }
    }
    Ok(())
}

/// The lines of a job file that hold anything after fio's trimming, each
/// with where its text starts (file, line and column): how both a job
/// file and the files it includes are read.
fn located_lines<'a>(text: &'a str, path: &str) -> impl Iterator<Item = (&'a str, Location)> {
    let file: Arc<str> = Arc::from(path);
    text.split('\n')
        .enumerate()
        .filter_map(move |(index, raw)| {
            let trimmed = trim(raw)?;
            let location = Location {
                file: file.clone(),
                line: index + 1,
                column: trimmed.column,
            };
            Some((trimmed.text, location))
        })
}

/// fio reads at most 255 characters of a header and drops the last one.
fn truncate_section_name(name: &str) -> String {
    let inner_len: usize = name.chars().count() + 1;
    if inner_len <= 255 {
        return name.to_string();
    }
    name.chars().take(254).collect()
}

fn outside_section(text: &str, location: Location) -> ReadError {
    ReadError {
        location: Some(location),
        fio_message: format!("fio: option <{text}> outside of [] job section"),
        detail: format!(
            "'{text}' is outside of any [section]; expected a [job] or [global] header first"
        ),
    }
}

/// Handles one option or include line inside a section.
fn read_line(
    loader: &dyn Loader,
    current_file: &str,
    text: &str,
    location: Location,
    included_from: Option<&Location>,
    entries: &mut Vec<Entry>,
    chain: &mut Vec<String>,
) -> Result<(), LineError> {
    match classify(text) {
        LineKind::Include(name) => {
            let target = resolve_include(loader, current_file, name);
            let detail = if chain.contains(&target) {
                Some(format!(
                    "include cycle: {} -> {target}; expected each file to be included at most once in a chain",
                    chain.join(" -> ")
                ))
            } else {
                (chain.len() >= MAX_INCLUDE_DEPTH).then(|| {
                    format!(
                        "includes nested {MAX_INCLUDE_DEPTH} files deep at {target}; expected a shorter chain"
                    )
                })
            };
            if let Some(detail) = detail {
                return Err(LineError::Fatal(ReadError {
                    location: Some(location),
                    fio_message: format!("Error 1 while parsing include file {target}"),
                    detail,
                }));
            }
            chain.push(target.clone());
            let from = included_from.cloned().unwrap_or(location.clone());
            match read_include(loader, &target, &from, entries, chain) {
                Ok(()) => {}
                Err(LineError::Include(mut failure)) => {
                    failure
                        .stderr
                        .push(format!("Error 1 while parsing include file {target}"));
                    return Err(LineError::Include(failure));
                }
                Err(LineError::Fatal(mut e)) => {
                    if e.location.is_none() {
                        e.location = Some(location.clone());
                    }
                    return Err(LineError::Fatal(e));
                }
            }
            chain.pop();
        }
        LineKind::Option { key, value } => entries.push(Entry {
            line: text.to_string(),
            key: key.to_string(),
            value: value.map(str::to_string),
            location,
            included_from: included_from.cloned(),
        }),
        // Lines starting with `[` are handled by the callers before this.
        LineKind::Section(_) => {}
    }
    Ok(())
}

/// fio first tries the name as given (relative to the working directory),
/// then relative to the including file's directory.
fn resolve_include(loader: &dyn Loader, current_file: &str, name: &str) -> String {
    if loader.exists(Path::new(name)) {
        return name.to_string();
    }
    match current_file.rfind('/') {
        Some(slash) => format!("{}{}", &current_file[..=slash], name),
        None => name.to_string(),
    }
}

fn read_include(
    loader: &dyn Loader,
    path: &str,
    include_line: &Location,
    entries: &mut Vec<Entry>,
    chain: &mut Vec<String>,
) -> Result<(), LineError> {
    let bytes = loader.read(Path::new(path)).map_err(|e| {
        LineError::Include(IncludeFailure {
            stderr: vec![format!("fio: unable to open '{path}' job file")],
            record: Some(format!(
                "fio: file:init.c:1956, func=job file open, error={}",
                crate::strerror(&e)
            )),
            errno: Some(e.raw_os_error().unwrap_or(libc::ENOENT)),
        })
    })?;
    // fio keeps bytes that are not UTF-8 as they are.
    let text = crate::raw_text::from_bytes(&bytes);
    for (line, location) in located_lines(&text, path) {
        if line.starts_with('[') {
            return Err(LineError::Include(IncludeFailure {
                stderr: vec!["No new sections in included files".to_string()],
                record: None,
                errno: None,
            }));
        }
        read_line(
            loader,
            path,
            line,
            location,
            Some(include_line),
            entries,
            chain,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
