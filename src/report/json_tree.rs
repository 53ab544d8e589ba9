//! The JSON tree that fio's writer prints, and its printing, hand-written
//! because fio's layout is not serde_json's: two-space levels, `"key" :
//! value`, integers and `%f` floats, strings with only `"` and `\`
//! escaped, members with an empty string value left out
//! (`../shared/spec/fio-output.md` §6). Apart from the report that fills
//! it (json.rs), so that the sections it nests (ferrio.rs, state.rs) build
//! trees without importing that report.

use std::fmt::Write;

/// A JSON value as fio's writer knows them.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Int(i64),
    Float(f64),
    Str(String),
    Obj(Obj),
    Arr(Vec<Json>),
}

/// An object: members in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Obj(Vec<(String, Json)>);

impl Obj {
    pub fn int(&mut self, key: &str, v: u64) -> &mut Self {
        self.0.push((key.to_string(), Json::Int(v as i64)));
        self
    }

    pub fn float(&mut self, key: &str, v: f64) -> &mut Self {
        self.0.push((key.to_string(), Json::Float(v)));
        self
    }

    /// A string member; an empty string is left out, as fio does.
    pub fn str(&mut self, key: &str, v: &str) -> &mut Self {
        if !v.is_empty() {
            self.0.push((key.to_string(), Json::Str(v.to_string())));
        }
        self
    }

    /// Drops the members named `keys`.
    pub fn remove(&mut self, keys: &[&str]) -> &mut Self {
        self.0.retain(|(k, _)| !keys.contains(&k.as_str()));
        self
    }

    /// Any value, as it is (an empty string included).
    pub fn value(&mut self, key: &str, v: Json) -> &mut Self {
        self.0.push((key.to_string(), v));
        self
    }

    pub fn obj(&mut self, key: &str, v: Obj) -> &mut Self {
        self.0.push((key.to_string(), Json::Obj(v)));
        self
    }

    pub fn arr(&mut self, key: &str, v: Vec<Json>) -> &mut Self {
        self.0.push((key.to_string(), Json::Arr(v)));
        self
    }

    /// Writes the object at `level` as fio does (the opening brace goes
    /// where the caller is).
    pub fn write(&self, out: &mut String, level: usize) {
        // fio never prints an empty object (it leaves the key out), and its
        // writer would put a blank line inside one; scripts such as CBT's
        // cut a document at its first blank line, so empty objects (only
        // ever in ferrio's own keys) are written closed on one line.
        if self.0.is_empty() {
            out.push_str("{}");
            return;
        }
        out.push_str("{\n");
        for (i, (key, value)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push_str(",\n");
            }
            indent(out, level + 1);
            let _ = write!(out, "\"{}\" : ", escape(key));
            value.write(out, level + 1);
        }
        out.push('\n');
        indent(out, level);
        out.push('}');
    }
}

impl Json {
    fn write(&self, out: &mut String, level: usize) {
        match self {
            Json::Int(v) => {
                let _ = write!(out, "{v}");
            }
            Json::Float(v) => {
                let _ = write!(out, "{v:.6}");
            }
            Json::Str(s) => {
                let _ = write!(out, "\"{}\"", escape(s));
            }
            Json::Obj(o) => o.write(out, level),
            // As for objects: an empty array on one line, never a blank one.
            Json::Arr(items) if items.is_empty() => out.push_str("[]"),
            Json::Arr(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    indent(out, level + 1);
                    item.write(out, level + 1);
                }
                out.push('\n');
                indent(out, level);
                out.push(']');
            }
        }
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
