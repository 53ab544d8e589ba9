//! Value expansion applied to each `key=value` text before it is parsed:
//! `${VAR}` from the environment, the keywords `$pagesize`, `$mb_memory` and
//! `$ncpus`, and the integer arithmetic around keywords.
//!
//! fio 3.33 pipes such arithmetic to `bc`; ferrio computes the same integer
//! result itself (bc with scale 0: truncating division, `%`, `^`) and never
//! starts a process. Everything here is a pure function of the text and an
//! [`Environment`] snapshot, so the planner stays pure and fuzzable.

use std::collections::HashMap;

/// The outside facts that expansion may use, captured once.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub vars: HashMap<String, String>,
    pub page_size: u64,
    pub mb_memory: u64,
    pub ncpus: u64,
}

impl Environment {
    /// Snapshot of this process's environment and machine.
    pub fn capture() -> Self {
        Environment {
            vars: std::env::vars().collect(),
            page_size: page_size().unwrap_or(4096),
            mb_memory: mem_total_mb().unwrap_or(1024),
            ncpus: std::thread::available_parallelism()
                .map(|n| n.get() as u64)
                .unwrap_or(1),
        }
        .with_configured_cpus()
    }

    /// fio counts configured CPUs, which `/sys` lists; fall back to the
    /// usable count when that is unreadable.
    fn with_configured_cpus(mut self) -> Self {
        if let Some(n) = configured_cpus() {
            self.ncpus = n;
        }
        self
    }
}

fn page_size() -> Option<u64> {
    // SAFETY: sysconf only reads a configuration value.
    let v = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    (v > 0).then_some(v as u64)
}

fn mem_total_mb() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

fn configured_cpus() -> Option<u64> {
    let entries = std::fs::read_dir("/sys/devices/system/cpu").ok()?;
    let n = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.strip_prefix("cpu")
                .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
        })
        .count() as u64;
    (n > 0).then_some(n)
}

/// Replaces every `${NAME}` with the variable's value; an unset variable
/// becomes the empty string, as in fio.
pub fn substitute_env(text: &str, env: &Environment) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                out.push_str(&rest[..start]);
                if let Some(value) = env.vars.get(&after[..end]) {
                    out.push_str(value);
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[..start + 2]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Why an expression around a keyword could not be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MathError(pub String);

/// What [`MathError`] says of a result past 128 bits.
const TOO_LARGE: &str = "cannot compute expression: result too large";

impl MathError {
    /// Whether the expression had a value, only too large to hold: bc
    /// computes it without a word (it has no limit), and fio then fails
    /// the option only because the value does not fit, saying no more
    /// than that it failed parsing it.
    pub fn is_too_large(&self) -> bool {
        self.0 == TOO_LARGE
    }
}

/// Replaces the keywords and, when one was found and the value has an
/// operator, computes the value as `bc` would.
pub fn replace_keywords(text: &str, env: &Environment) -> Result<String, MathError> {
    let words = [
        ("$pagesize", env.page_size),
        ("$mb_memory", env.mb_memory),
        ("$ncpus", env.ncpus),
    ];
    let mut out = text.to_string();
    let mut replaced = false;
    for (word, value) in words {
        if out.contains(word) {
            out = out.replace(word, &value.to_string());
            replaced = true;
        }
    }
    if !replaced {
        return Ok(out);
    }
    compute(out)
}

/// fio only calls `bc` for values with an operator, no quote, an `=`, and
/// short enough text; otherwise the text is used as it is.
fn compute(text: String) -> Result<String, MathError> {
    let has_operator = text.contains(['+', '-', '*', '/']);
    if !has_operator || text.contains('\'') {
        return Ok(text);
    }
    let Some(eq) = text.find('=') else {
        return Ok(text);
    };
    let value = &text[eq + 1..];
    if text.len() >= 128 || value.len() > 100 {
        return Ok(text);
    }
    let result = evaluate(value)?;
    Ok(format!("{}{}", &text[..=eq], result))
}

/// Evaluates an integer expression with bc's scale-0 rules.
pub fn evaluate(expr: &str) -> Result<i128, MathError> {
    let tokens = tokenize(expr)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        depth: 0,
    };
    let value = parser.sum()?;
    if parser.pos != parser.tokens.len() {
        return Err(MathError(format!(
            "cannot compute '{expr}': unexpected text after the expression"
        )));
    }
    Ok(value)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Num(i128),
    Op(char),
}

fn tokenize(expr: &str) -> Result<Vec<Token>, MathError> {
    let mut tokens = Vec::new();
    let mut chars = expr.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut n: i128 = 0;
            while let Some(&d) = chars.peek() {
                let Some(digit) = d.to_digit(10) else { break };
                n = n
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(digit as i128))
                    .ok_or_else(|| {
                        MathError(format!("cannot compute '{expr}': number too large"))
                    })?;
                chars.next();
            }
            tokens.push(Token::Num(n));
        } else if "+-*/%^()".contains(c) {
            tokens.push(Token::Op(c));
            chars.next();
        } else {
            return Err(MathError(format!(
                "cannot compute '{expr}': '{c}' is not part of an integer expression (digits, + - * / % ^ and parentheses)"
            )));
        }
    }
    Ok(tokens)
}

/// Deeper nesting than this is refused rather than risking the stack;
/// fio's values are at most 100 characters, so real input never comes near.
const MAX_NESTING: usize = 200;

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Current nesting of unary minus and parentheses.
    depth: usize,
}

impl Parser {
    fn peek_op(&self) -> Option<char> {
        match self.tokens.get(self.pos) {
            Some(Token::Op(c)) => Some(*c),
            _ => None,
        }
    }

    fn overflow() -> MathError {
        MathError(TOO_LARGE.to_string())
    }

    fn sum(&mut self) -> Result<i128, MathError> {
        let mut v = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek_op() {
            self.pos += 1;
            let r = self.product()?;
            v = if op == '+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or_else(Self::overflow)?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i128, MathError> {
        let mut v = self.power()?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek_op() {
            self.pos += 1;
            let r = self.power()?;
            if op != '*' && r == 0 {
                return Err(MathError(
                    "cannot compute expression: divide by zero".to_string(),
                ));
            }
            v = match op {
                '*' => v.checked_mul(r).ok_or_else(Self::overflow)?,
                '/' => v.checked_div(r).ok_or_else(Self::overflow)?,
                // Only i128::MIN % -1 has no checked remainder; bc's is 0.
                _ => v.checked_rem(r).unwrap_or(0),
            };
        }
        Ok(v)
    }

    /// `^` binds tighter than `*` and groups to the right, as in bc; a
    /// negative exponent gives 0 at scale 0 (except for bases ±1).
    fn power(&mut self) -> Result<i128, MathError> {
        let base = self.unary()?;
        if self.peek_op() == Some('^') {
            self.pos += 1;
            let exp = self.nested(Self::power)?;
            if exp < 0 {
                return Ok(match base {
                    1 => 1,
                    -1 => {
                        if exp % 2 == 0 {
                            1
                        } else {
                            -1
                        }
                    }
                    0 => {
                        return Err(MathError(
                            "cannot compute expression: divide by zero".to_string(),
                        ));
                    }
                    _ => 0,
                });
            }
            let exp = u32::try_from(exp).map_err(|_| Self::overflow())?;
            return base.checked_pow(exp).ok_or_else(Self::overflow);
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<i128, MathError> {
        self.nested(Self::unary_inner)
    }

    /// Runs `parse` one nesting level deeper, refusing to go past
    /// [`MAX_NESTING`]: the two places the parser recurses, an exponent
    /// and a unary operand (which parentheses and minus signs go through),
    /// count against the same limit.
    fn nested(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<i128, MathError>,
    ) -> Result<i128, MathError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(MathError(
                "cannot compute expression: nested too deeply".to_string(),
            ));
        }
        let v = parse(self);
        self.depth -= 1;
        v
    }

    fn unary_inner(&mut self) -> Result<i128, MathError> {
        if self.peek_op() == Some('-') {
            self.pos += 1;
            return self.unary()?.checked_neg().ok_or_else(Self::overflow);
        }
        match self.tokens.get(self.pos).copied() {
            Some(Token::Num(n)) => {
                self.pos += 1;
                Ok(n)
            }
            Some(Token::Op('(')) => {
                self.pos += 1;
                let v = self.sum()?;
                if self.peek_op() != Some(')') {
                    return Err(MathError(
                        "cannot compute expression: missing ')'".to_string(),
                    ));
                }
                self.pos += 1;
                Ok(v)
            }
            _ => Err(MathError(
                "cannot compute expression: expected a number".to_string(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Environment {
        let mut vars = HashMap::new();
        vars.insert("SIZE".to_string(), "4g".to_string());
        Environment {
            vars,
            page_size: 4096,
            mb_memory: 24000,
            ncpus: 2,
        }
    }

    #[test]
    fn env_vars_expand_and_unset_ones_vanish() {
        assert_eq!(substitute_env("size=${SIZE}", &env()), "size=4g");
        assert_eq!(
            substitute_env("filename=/a/${NOPE}/b", &env()),
            "filename=/a//b"
        );
        assert_eq!(substitute_env("x=${}", &env()), "x=");
        assert_eq!(substitute_env("x=${OPEN", &env()), "x=${OPEN");
    }

    #[test]
    fn keywords_with_math_are_computed_like_bc() {
        assert_eq!(
            replace_keywords("size=$mb_memory/1000", &env()).unwrap(),
            "size=24"
        );
        assert_eq!(
            replace_keywords("numjobs=$ncpus*2+1", &env()).unwrap(),
            "numjobs=5"
        );
        assert_eq!(replace_keywords("bs=$pagesize", &env()).unwrap(), "bs=4096");
        assert_eq!(replace_keywords("x=2^3^2+$ncpus", &env()).unwrap(), "x=514");
        assert_eq!(replace_keywords("x=(7-$ncpus)%3", &env()).unwrap(), "x=2");
        assert_eq!(replace_keywords("x=-7/$ncpus", &env()).unwrap(), "x=-3");
    }

    #[test]
    fn values_without_keywords_are_untouched() {
        assert_eq!(replace_keywords("size=10*2", &env()).unwrap(), "size=10*2");
    }

    #[test]
    fn overflow_and_deep_nesting_are_errors() {
        let min = format!("-{}-1", i128::MAX);
        assert!(evaluate(&format!("({min})/-1")).is_err());
        assert!(evaluate(&format!("-({min})")).is_err());
        assert!(evaluate(&"(".repeat(10_000)).is_err());
        assert!(evaluate(&"-".repeat(10_000)).is_err());
        assert!(evaluate(&"2^".repeat(10_000)).is_err());
        // Within the limit, the same nesting computes.
        assert_eq!(evaluate(&format!("{}1", "-".repeat(100))).unwrap(), 1);
        assert_eq!(evaluate(&format!("{}2", "1^".repeat(100))).unwrap(), 1);
    }

    #[test]
    fn bad_math_is_an_error_not_a_panic() {
        assert!(replace_keywords("x=$ncpus/0", &env()).is_err());
        assert!(replace_keywords("x=$ncpus*k", &env()).is_err());
        assert!(replace_keywords("x=($ncpus+1", &env()).is_err());
        // Without an operator fio does not call bc: the text stays as it is.
        assert_eq!(replace_keywords("x=($ncpus", &env()).unwrap(), "x=(2");
        assert!(evaluate("99999999999999999999999999999999999999999*99999").is_err());
    }
}
