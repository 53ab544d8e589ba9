//! One line of a job file, classified the way fio's reader sees it.
//!
//! fio trims leading blanks, cuts everything from the first `;` and then from
//! the first `#` (anywhere on the line, even inside a value), and trims
//! trailing blanks and control characters (so CRLF ends work). What remains
//! is a section header, an `include`, or an option. The grammar is small, so
//! it is written with nom combinators over `&str`.

use nom::{
    IResult,
    bytes::complete::{tag, take_till},
    character::complete::char,
    combinator::{opt, rest},
    sequence::preceded,
};

/// What a non-blank line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineKind<'a> {
    /// `[name]`: fio keeps everything after `[` except the last character,
    /// so `[a]` is `a` and a malformed `[a` is the empty name.
    Section(&'a str),
    /// A line starting with the word `include`: the file name begins one
    /// character after the word.
    Include(&'a str),
    /// `key` or `key=value`, with the value exactly as written after `=`.
    Option {
        key: &'a str,
        value: Option<&'a str>,
    },
}

/// A line after fio's trimming, with the column (1-based, in characters)
/// where the kept text starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trimmed<'a> {
    pub text: &'a str,
    pub column: usize,
}

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

fn is_c_space_or_cntrl(c: char) -> bool {
    is_c_space(c) || c.is_ascii_control()
}

/// Applies fio's trimming to a raw line; `None` for blank and comment lines.
pub fn trim(raw: &str) -> Option<Trimmed<'_>> {
    // C strings end at the first NUL byte.
    let raw = raw.split('\0').next().unwrap_or("");
    let start = raw.len() - raw.trim_start_matches(is_c_space).len();
    let mut text = &raw[start..];
    if let Some(cut) = text.find(';') {
        text = &text[..cut];
    }
    if let Some(cut) = text.find('#') {
        text = &text[..cut];
    }
    let text = text.trim_end_matches(is_c_space_or_cntrl);
    if text.is_empty() || text.chars().all(is_c_space_or_cntrl) {
        return None;
    }
    let column = raw[..start].chars().count() + 1;
    Some(Trimmed { text, column })
}

fn section(input: &str) -> IResult<&str, LineKind<'_>> {
    let (input, inner) = preceded(char('['), rest)(input)?;
    if inner.is_empty() {
        // fio's sscanf needs one character after '['.
        return Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Char,
        )));
    }
    let mut chars = inner.char_indices();
    let last = chars.next_back().map_or(0, |(i, _)| i);
    Ok((input, LineKind::Section(&inner[..last])))
}

fn include(input: &str) -> IResult<&str, LineKind<'_>> {
    let (after, _) = tag("include")(input)?;
    let mut chars = after.chars();
    chars.next();
    Ok(("", LineKind::Include(chars.as_str())))
}

fn option(input: &str) -> IResult<&str, LineKind<'_>> {
    let (input, key) = take_till(|c| c == '=')(input)?;
    let (input, value) = opt(preceded(char('='), rest))(input)?;
    let key = key.trim_end_matches(is_c_space_or_cntrl);
    Ok((input, LineKind::Option { key, value }))
}

/// Classifies a trimmed line. `Section` is only tried when the line starts
/// with `[`; an unusable header (`[` alone) comes back as an option so the
/// caller reports it as text outside any section, as fio does.
pub fn classify(text: &str) -> LineKind<'_> {
    if let Ok((_, kind)) = section(text) {
        return kind;
    }
    if let Ok((_, kind)) = include(text) {
        return kind;
    }
    match option(text) {
        Ok((_, kind)) => kind,
        Err(_) => LineKind::Option {
            key: text,
            value: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_cut_anywhere_on_the_line() {
        assert_eq!(trim("  bs=4k ; note").unwrap().text, "bs=4k");
        assert_eq!(trim("filename=a#b").unwrap().text, "filename=a");
        assert!(trim("   # whole line").is_none());
        assert!(trim("; whole line").is_none());
        assert!(trim(" \t\r").is_none());
    }

    #[test]
    fn crlf_and_leading_blanks() {
        let t = trim("\t rw=read\r").unwrap();
        assert_eq!(t.text, "rw=read");
        assert_eq!(t.column, 3);
    }

    #[test]
    fn section_names_drop_the_last_character() {
        assert_eq!(classify("[job1]"), LineKind::Section("job1"));
        assert_eq!(classify("[j"), LineKind::Section(""));
        assert_eq!(classify("[a b]"), LineKind::Section("a b"));
    }

    #[test]
    fn include_takes_text_after_one_separator() {
        assert_eq!(classify("include x.fio"), LineKind::Include("x.fio"));
    }

    #[test]
    fn option_value_is_verbatim_after_equals() {
        assert_eq!(
            classify("rw = randread"),
            LineKind::Option {
                key: "rw",
                value: Some(" randread")
            }
        );
        assert_eq!(
            classify("time_based"),
            LineKind::Option {
                key: "time_based",
                value: None
            }
        );
    }
}
