//! The modules of src/ form no import cycle: no file names an item of
//! another file that names one of its own back, directly or through
//! others (a file that declares a public submodule counts as naming it,
//! so a submodule never imports its parent's items: they live in a
//! sibling, as engine/api.rs and report/model.rs do). A cycle is what
//! let one change ripple through 29 files of run/ (issue 16); this test
//! keeps the layering a maintainer can read top-down (part configs →
//! JobConfig → features → the job loop → the run; engines → their table;
//! report formats → the report model).
//!
//! The graph is read from the source itself, file by file: every path
//! through `crate::`, `super::`, `self::` or a submodule the file
//! declares, in code (comments, string literals and `#[cfg(test)]`
//! items are left out, since they link nothing at build time).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path, as its segments below the crate (`["run", "place"]`).
type ModPath = Vec<String>;

#[test]
fn src_has_no_import_cycle() {
    let graph = Graph::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(
        graph.edges.len() > 80,
        "the source walk found only {} files: it is not reading src/",
        graph.edges.len()
    );
    let run_edges: usize = graph
        .edges
        .iter()
        .filter(|(f, _)| f.starts_with("run/"))
        .map(|(_, to)| to.len())
        .sum();
    assert!(
        run_edges > 100,
        "only {run_edges} imports found among run/'s files: the path reading is broken"
    );
    let cycles: Vec<Vec<String>> = graph
        .strongly_connected()
        .into_iter()
        .filter(|c| c.len() > 1)
        .collect();
    let shown: Vec<String> = cycles
        .iter()
        .map(|c| {
            let lines: Vec<String> = c
                .iter()
                .map(|f| {
                    let inside: Vec<&String> =
                        graph.edges[f].iter().filter(|t| c.contains(t)).collect();
                    format!("  {f} -> {inside:?}")
                })
                .collect();
            format!("{} files:\n{}", c.len(), lines.join("\n"))
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "import cycles in src/:\n{}",
        shown.join("\n")
    );
}

#[test]
fn the_path_reader_sees_uses_groups_and_submodules_but_not_comments_or_tests() {
    let source = r#"
        //! crate::run::doc_only is no import
        use crate::run::{a::{self, B}, c};
        mod child;
        fn f() { let s = "crate::run::in_a_string"; super::sibling::g(); child::h(); }
        #[cfg(test)]
        mod tests { use crate::run::test_only; }
    "#;
    let me: ModPath = vec!["run".into(), "x".into()];
    let mut found = paths_named(source, &me);
    found.sort();
    let want: Vec<ModPath> = [
        &["run", "a"][..],
        &["run", "a", "B"],
        &["run", "c"],
        &["run", "sibling", "g"],
        &["run", "x", "child", "h"],
    ]
    .iter()
    .map(|p| p.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(found, want);
}

/// Files (as paths below src/, `run/place/files.rs`) and the files each
/// one names.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    fn read(src: PathBuf) -> Self {
        let mut files = Vec::new();
        walk(&src, &mut files);
        let texts: BTreeMap<ModPath, (String, String)> = files
            .iter()
            .map(|f| {
                let rel = f.strip_prefix(&src).unwrap().to_string_lossy().to_string();
                let text = std::fs::read_to_string(f).unwrap();
                (module_of(&rel), (rel, text))
            })
            .collect();
        // A private submodule (`mod setup;`) is a part of its parent,
        // reachable only through it: the files of one module may name one
        // another, as the parts of the job loop's type do.
        let private: BTreeSet<ModPath> = texts
            .iter()
            .flat_map(|(me, (_, text))| {
                private_children(text).into_iter().map(move |c| {
                    let mut p = me.clone();
                    p.push(c);
                    p
                })
            })
            .collect();
        let node = |m: &ModPath| -> String {
            let mut m = m.clone();
            while private.contains(&m) {
                m.pop();
            }
            texts[&m].0.clone()
        };
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (me, (_, text)) in &texts {
            let from = node(me);
            let targets: Vec<String> = paths_named(text, me)
                .iter()
                .filter_map(|p| {
                    (1..=p.len())
                        .rev()
                        .find(|&n| texts.contains_key(&p[..n]))
                        .map(|n| node(&p[..n].to_vec()))
                })
                .collect();
            let set = edges.entry(from.clone()).or_default();
            set.extend(targets.into_iter().filter(|t| *t != from));
        }
        Graph { edges }
    }

    /// Tarjan's strongly connected components, each sorted by name.
    fn strongly_connected(&self) -> Vec<Vec<String>> {
        struct Walk<'g> {
            g: &'g Graph,
            index: BTreeMap<&'g str, usize>,
            low: BTreeMap<&'g str, usize>,
            stack: Vec<&'g str>,
            out: Vec<Vec<String>>,
        }
        impl<'g> Walk<'g> {
            fn visit(&mut self, v: &'g str) {
                let i = self.index.len();
                self.index.insert(v, i);
                self.low.insert(v, i);
                self.stack.push(v);
                for w in &self.g.edges[v] {
                    let w = w.as_str();
                    if !self.index.contains_key(w) {
                        self.visit(w);
                        let lw = self.low[w];
                        let lv = self.low.get_mut(v).unwrap();
                        *lv = (*lv).min(lw);
                    } else if self.stack.contains(&w) {
                        let iw = self.index[w];
                        let lv = self.low.get_mut(v).unwrap();
                        *lv = (*lv).min(iw);
                    }
                }
                if self.low[v] == self.index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = self.stack.pop() {
                        comp.push(w.to_string());
                        if w == v {
                            break;
                        }
                    }
                    comp.sort();
                    self.out.push(comp);
                }
            }
        }
        let mut walk = Walk {
            g: self,
            index: BTreeMap::new(),
            low: BTreeMap::new(),
            stack: Vec::new(),
            out: Vec::new(),
        };
        for v in self.edges.keys() {
            if !walk.index.contains_key(v.as_str()) {
                walk.visit(v);
            }
        }
        walk.out
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The submodules a file declares without `pub`.
fn private_children(text: &str) -> Vec<String> {
    let tokens = tokenize(&without_tests(&code_only(text)));
    tokens
        .windows(3)
        .enumerate()
        .filter(|(i, w)| {
            w[0] == "mod"
                && w[2] == ";"
                && (*i == 0 || !matches!(tokens[i - 1].as_str(), "pub" | ")"))
        })
        .map(|(_, w)| w[1].clone())
        .collect()
}

/// `run/place/zbd/mod.rs` → `["run", "place", "zbd"]`; lib.rs and main.rs
/// are the crate itself.
fn module_of(rel: &str) -> ModPath {
    let mut parts: ModPath = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Every module path that the code of a file (module `me`) names, made
/// absolute below the crate.
fn paths_named(text: &str, me: &ModPath) -> Vec<ModPath> {
    let code = without_tests(&code_only(text));
    let tokens = tokenize(&code);
    let children: BTreeSet<&str> = tokens
        .windows(3)
        .filter(|w| w[0] == "mod" && w[2] == ";")
        .map(|w| w[1].as_str())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let starts_path = i + 1 < tokens.len()
            && tokens[i + 1] == "::"
            && (i == 0 || tokens[i - 1] != "::")
            && (matches!(tokens[i].as_str(), "crate" | "super" | "self")
                || children.contains(tokens[i].as_str()));
        if starts_path {
            i = read_path(&tokens, i, Vec::new(), me, &mut out);
        } else {
            i += 1;
        }
    }
    out
}

/// Reads one path (with `{…}` groups) from `tokens[i]`, pushing each
/// full path it names; returns the index after it.
fn read_path(
    tokens: &[String],
    mut i: usize,
    mut prefix: Vec<String>,
    me: &ModPath,
    out: &mut Vec<ModPath>,
) -> usize {
    while let Some(t) = tokens.get(i) {
        if t == "{" {
            i += 1;
            while i < tokens.len() && tokens[i] != "}" {
                if tokens[i] == "," {
                    i += 1;
                    continue;
                }
                let after = read_path(tokens, i, prefix.clone(), me, out);
                // `*` and `as NAME` name nothing more.
                i = after.max(i + 1);
            }
            return i + 1;
        }
        if !t.chars().all(|c| c.is_alphanumeric() || c == '_') {
            break;
        }
        if t != "self" || prefix.is_empty() {
            prefix.push(t.clone());
        }
        i += 1;
        if tokens.get(i).map(String::as_str) == Some("::") {
            i += 1;
        } else {
            break;
        }
    }
    if let Some(abs) = absolute(&prefix, me) {
        out.push(abs);
    }
    i
}

/// A path as written in module `me`, made absolute.
fn absolute(path: &[String], me: &ModPath) -> Option<ModPath> {
    let (first, rest) = path.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => me.clone(),
        "super" => me[..me.len().checked_sub(1)?].to_vec(),
        child => {
            let mut b = me.clone();
            b.push(child.to_string());
            b
        }
    };
    for seg in rest {
        if seg == "super" {
            base.pop()?;
        } else {
            base.push(seg.clone());
        }
    }
    Some(base)
}

/// The text with comments and string and char literals blanked out.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !ident_before(&b, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (1..=hashes).all(|h| b.get(j + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            let close = if next == Some('\\') {
                (i + 2..b.len().min(i + 12)).find(|&j| b[j] == '\'')
            } else {
                (b.get(i + 2) == Some(&'\'')).then_some(i + 2)
            };
            match close {
                Some(j) => {
                    out.push_str("' '");
                    i = j + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// The code with every `#[cfg(test)]` item (a module or a use) left out.
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let brace = after.find('{');
        let semi = after.find(';');
        rest = match (brace, semi) {
            (Some(b), Some(s)) if s < b => &after[s + 1..],
            (Some(b), _) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, ch) in after[b..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                &after[end..]
            }
            (None, Some(s)) => &after[s + 1..],
            (None, None) => "",
        };
    }
    out.push_str(rest);
    out
}

/// Identifiers, `::`, and single punctuation characters.
fn tokenize(code: &str) -> Vec<String> {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}
