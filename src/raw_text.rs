//! Job files are bytes, not always UTF-8: fio keeps a byte that is not
//! UTF-8 as it is, in option values, file names and its output alike.
//! ferrio's text is Rust strings, so such a byte is carried as one
//! character of the last private-use block (U+10FF00 + byte) from the job
//! file's reader to the places where text meets the system again: the
//! report stream and the job's file names, which put the byte back.
//! (A job file that holds those very characters, U+10FF80..U+10FFFF, has
//! them read as the bytes they stand for.)

use std::borrow::Cow;
use std::path::PathBuf;

/// Where the carried bytes start: U+10FF00 + byte.
const BASE: u32 = 0x10FF00;

/// The text of `bytes`, each byte that is not part of valid UTF-8
/// carried as its stand-in character.
pub fn from_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                // `good` is valid UTF-8: from_utf8 said so up to there.
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                for &b in &bad[..n] {
                    out.push(stand_in(b));
                }
                rest = &bad[n..];
            }
        }
    }
    Cow::Owned(out)
}

fn stand_in(byte: u8) -> char {
    char::from_u32(BASE + u32::from(byte)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The bytes `text` stands for: carried bytes put back as they were.
pub fn to_bytes(text: &str) -> Cow<'_, [u8]> {
    let carried = |c: char| (BASE + 0x80..=BASE + 0xff).contains(&u32::from(c));
    if !text.chars().any(carried) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        if carried(c) {
            out.push((u32::from(c) - BASE) as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    Cow::Owned(out)
}

/// A file name as the job file wrote it, bytes and all.
pub fn path(text: &str) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(&to_bytes(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_come_back_as_they_were() {
        let bytes = b"caf\xe9 \xff ok \xc3\xa9 \xc3";
        let text = from_bytes(bytes);
        assert_eq!(text.chars().filter(|c| u32::from(*c) > BASE).count(), 3);
        assert_eq!(&*to_bytes(&text), &bytes[..]);
        assert_eq!(from_bytes(b"plain \xc3\xa9"), "plain \u{e9}");
        assert!(matches!(to_bytes("plain"), Cow::Borrowed(_)));
    }
}
