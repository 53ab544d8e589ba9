//! fio's number formatting (num2str, C's `%f`), and expected lines as
//! literal pieces and numbers.

/// What num2str appends (and whether it counts bits: then the value is
/// multiplied by 8 first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    None,
    Bytes,
    BytesPerSec,
    BitsPerSec,
}

impl Unit {
    fn text(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Bytes => "B",
            Unit::BytesPerSec => "B/s",
            Unit::BitsPerSec => "bit/s",
        }
    }
}

/// fio's num2str (spec §2.3) for a value in base units: divide by 1000
/// (or 1024) until at most `maxlen` digits remain; the fraction shown
/// comes only from the remainder of the last division, printed by C's
/// `%.Nf` in the room left (a fraction rounding up to 1 carries).
pub fn num2str(value: u64, maxlen: usize, binary: bool, unit: Unit) -> String {
    let prefixes: [&str; 7] = if binary {
        ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
    } else {
        ["", "k", "M", "G", "T", "P", "E"]
    };
    let thousand: u64 = if binary { 1024 } else { 1000 };
    let digits = |n: u64| n.to_string().len();
    let mut n = if unit == Unit::BitsPerSec {
        value.wrapping_mul(8)
    } else {
        value
    };
    let mut level = 0;
    let mut remainder = None;
    while level < prefixes.len() && digits(n) > maxlen {
        remainder = Some(n % thousand);
        n /= thousand;
        level += 1;
    }
    if level == prefixes.len() {
        level = 0;
    }
    let tail = format!("{}{}", prefixes[level], unit.text());
    let Some(rem) = remainder else {
        return format!("{n}{tail}");
    };
    let room = maxlen as i64 - digits(n) as i64;
    if room <= 1 {
        let carry = u64::from(rem >= thousand / 2);
        return format!("{}{tail}", n + carry);
    }
    let fraction = format!("{:.*}", (room - 1) as usize, rem as f64 / thousand as f64);
    if fraction.starts_with('1') {
        n += 1;
    }
    format!("{n}.{}{tail}", &fraction[2..])
}

/// Every text C's `%<width>.<prec>f` can print for `value / divisor` when
/// `value` is known only as the JSON printed it (six decimals, `terms`
/// such values summed): the true value lies within half a unit of the
/// sixth decimal per term.
pub fn fixed(value: f64, divisor: f64, width: usize, prec: usize, terms: usize) -> Vec<String> {
    let slack = terms as f64 * 5.000_001e-7 + value.abs() * 1e-15;
    let mut out: Vec<String> = Vec::new();
    for v in [value - slack, value, value + slack] {
        let text = format!("{:>width$.prec$}", (v.max(0.0)) / divisor);
        if !out.contains(&text) {
            out.push(text);
        }
    }
    out
}

// ---------------------------------------------------------------------
// Expected text: a line as literal pieces, numbers and unknown parts.

#[derive(Clone, Debug)]
enum Piece {
    Text(String),
    /// A number: one of these texts.
    Number(Vec<String>),
    /// What the JSON does not hold (a pid, a date, an error context).
    Anything,
}

/// One expected line (or terse field).
#[derive(Clone, Debug, Default)]
pub struct Expect(Vec<Piece>);

impl Expect {
    pub fn text(mut self, s: impl Into<String>) -> Self {
        self.0.push(Piece::Text(s.into()));
        self
    }
    pub fn num(mut self, s: impl ToString) -> Self {
        self.0.push(Piece::Number(vec![s.to_string()]));
        self
    }
    pub fn one_of(mut self, texts: Vec<String>) -> Self {
        self.0.push(Piece::Number(texts));
        self
    }
    pub fn anything(mut self) -> Self {
        self.0.push(Piece::Anything);
        self
    }

    /// How many numbers the line holds.
    pub fn numbers(&self) -> usize {
        self.0
            .iter()
            .filter(|p| matches!(p, Piece::Number(_)))
            .count()
    }

    pub fn matches(&self, line: &str) -> bool {
        fn rest(pieces: &[Piece], line: &str) -> bool {
            let Some((first, others)) = pieces.split_first() else {
                return line.is_empty();
            };
            match first {
                Piece::Text(t) => line
                    .strip_prefix(t.as_str())
                    .is_some_and(|r| rest(others, r)),
                Piece::Number(alts) => alts.iter().any(|a| {
                    line.strip_prefix(a.as_str())
                        .is_some_and(|r| rest(others, r))
                }),
                Piece::Anything => (0..=line.len())
                    .filter(|i| line.is_char_boundary(*i))
                    .any(|i| rest(others, &line[i..])),
            }
        }
        rest(&self.0, line)
    }
}

impl std::fmt::Display for Expect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.0 {
            match p {
                Piece::Text(t) => write!(f, "{t}")?,
                Piece::Number(alts) if alts.len() == 1 => write!(f, "{}", alts[0])?,
                Piece::Number(alts) => write!(f, "{{{}}}", alts.join("|"))?,
                Piece::Anything => write!(f, "…")?,
            }
        }
        Ok(())
    }
}

pub fn line(s: impl Into<String>) -> Expect {
    Expect::default().text(s)
}
