//! fio's data patterns (`buffer_pattern`, `verify_pattern`): a sequence of
//! hex numbers (`0xdeadbeef`, written order), decimal numbers (stored
//! little-endian in as few bytes as they need), "quoted text", 'file names'
//! whose contents are taken, and, in verify patterns, `%o`: the block's
//! offset as 8 little-endian bytes. The pattern is repeated to fill a block.

/// fio's limit on a pattern's length in bytes (MAX_PATTERN_SIZE).
const MAX_LEN: usize = 512;

/// A parsed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPattern {
    bytes: Vec<u8>,
    /// Where `%o` stands in `bytes` (8 placeholder bytes each).
    offsets_at: Vec<usize>,
}

impl DataPattern {
    /// Reads a pattern as fio does; `formats` allows `%o` (verify_pattern
    /// only: fio's buffer_pattern takes no formats).
    pub fn parse(text: &str, formats: bool) -> Result<Self, String> {
        let bad = || Self::unreadable(text, formats);
        let mut bytes = Vec::new();
        let mut offsets_at = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let room = MAX_LEN - bytes.len();
            if room == 0 {
                return Err(bad());
            }
            rest = match rest.as_bytes()[0] {
                b'"' => {
                    let end = rest[1..].find('"').ok_or_else(bad)?;
                    if end > room {
                        return Err(bad());
                    }
                    bytes.extend_from_slice(&rest.as_bytes()[1..1 + end]);
                    &rest[end + 2..]
                }
                b'\'' => {
                    let end = rest[1..].find('\'').ok_or_else(bad)?;
                    let contents = std::fs::read(&rest[1..1 + end]).map_err(|_| bad())?;
                    let n = contents.len().min(room);
                    bytes.extend_from_slice(&contents[..n]);
                    &rest[end + 2..]
                }
                b'%' if formats && rest.starts_with("%o") && room >= 8 => {
                    offsets_at.push(bytes.len());
                    bytes.extend_from_slice(&[0; 8]);
                    &rest[2..]
                }
                _ => number(rest, &mut bytes, room).ok_or_else(bad)?,
            };
        }
        if bytes.is_empty() {
            return Err(bad());
        }
        Ok(DataPattern { bytes, offsets_at })
    }

    /// Why `text` is not a pattern. The run says it for an option given
    /// without a value, which the option parser keeps as empty text.
    pub fn unreadable(text: &str, formats: bool) -> String {
        format!(
            "bad pattern '{text}': expected hex (0x..), decimal, \"text\", 'file'{}",
            if formats { " or %o" } else { "" }
        )
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Whether the pattern changes with the block's offset (`%o`).
    pub fn has_offset(&self) -> bool {
        !self.offsets_at.is_empty()
    }

    /// The pattern as written for the block at `offset`: `%o` replaced by
    /// the offset.
    pub fn for_block(&self, offset: u64, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&self.bytes);
        for &at in &self.offsets_at {
            out[at..at + 8].copy_from_slice(&offset.to_le_bytes());
        }
    }

    /// The raw pattern (placeholders as zeros).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Fills `buf` with `pattern` repeated from its first byte.
pub fn repeat_into(pattern: &[u8], buf: &mut [u8]) {
    for chunk in buf.chunks_mut(pattern.len()) {
        chunk.copy_from_slice(&pattern[..chunk.len()]);
    }
}

/// Reads one number at the start of `text` into `out`; returns the rest.
fn number<'a>(text: &'a str, out: &mut Vec<u8>, room: usize) -> Option<&'a str> {
    let b = text.as_bytes();
    let hex_digits = if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        b[2..].iter().take_while(|c| c.is_ascii_hexdigit()).count()
    } else {
        0
    };
    if hex_digits > 0 {
        let mut digits = hex_digits;
        // `0xff0x14` is two numbers: the 0 before the second x is not ours.
        let next = 2 + digits;
        if next < b.len() && (b[next] | 0x20) == b'x' && b[next - 1] == b'0' {
            digits -= 1;
        }
        let hex = &text[2..2 + digits];
        // An odd count: the first digit is a byte of its own.
        let first = digits % 2;
        let mut pieces: Vec<&str> = Vec::new();
        if first == 1 {
            pieces.push(&hex[..1]);
        }
        pieces.extend(
            hex.as_bytes()[first..]
                .chunks(2)
                .map(|c| std::str::from_utf8(c).unwrap_or("0")),
        );
        if pieces.len() > room {
            return None;
        }
        for p in pieces {
            out.push(u8::from_str_radix(p, 16).ok()?);
        }
        return Some(&text[2 + digits..]);
    }
    // Decimal, up to a later `0x` if there is one.
    let limit = text.to_ascii_lowercase().find("0x").unwrap_or(text.len());
    let scan = &text[..limit];
    let start = scan.len() - scan.trim_start().len();
    let mut end = start;
    let sb = scan.as_bytes();
    if end < sb.len() && (sb[end] == b'-' || sb[end] == b'+') {
        end += 1;
    }
    let digits_from = end;
    while end < sb.len() && sb[end].is_ascii_digit() {
        end += 1;
    }
    if end == digits_from {
        return None;
    }
    let value: i64 = scan[start..end].parse().ok()?;
    if value > i64::from(i32::MAX) || value < i64::from(i32::MIN) {
        return None;
    }
    let mut v = value as i32 as u32;
    if v == 0 {
        out.push(0);
    } else {
        let mut n = 0;
        while v != 0 {
            if n == room {
                return None;
            }
            out.push(v as u8);
            v >>= 8;
            n += 1;
        }
    }
    Some(&text[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &str) -> Vec<u8> {
        DataPattern::parse(text, true).unwrap().bytes
    }

    #[test]
    fn reads_fios_pattern_pieces() {
        assert_eq!(bytes("0xdeadbeef"), [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(bytes("0xabc"), [0x0a, 0xbc]);
        assert_eq!(bytes("0xff0x14"), [0xff, 0x14]);
        assert_eq!(bytes("\"ab\"0x01"), [b'a', b'b', 1]);
        assert_eq!(bytes("258"), [2, 1]);
        assert_eq!(bytes("0"), [0]);
        let p = DataPattern::parse("0xaa%o", true).unwrap();
        let mut out = Vec::new();
        p.for_block(0x1000, &mut out);
        assert_eq!(out, [0xaa, 0, 0x10, 0, 0, 0, 0, 0, 0]);
        assert!(DataPattern::parse("%o", false).is_err());
        assert!(DataPattern::parse("\"open", true).is_err());
        assert!(DataPattern::parse("zz", true).is_err());
    }
}
