//! The typed form of option values, what reading one option's text
//! yields, and the settings that change how it reads: the types the
//! option readers (`value.rs`, `check.rs`, `distribution.rs`) produce and
//! the rest of ferrio consumes.

use super::distribution::Shape;
use crate::sys::numa::MemPolicy;
use crate::verify::pattern::DataPattern;

/// A typed option value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A flag or boolean.
    Bool(bool),
    /// One number per direction (read, write, trim); options with a single
    /// value repeat it. Sizes are bytes, times microseconds.
    Nums([u64; 3]),
    /// A size given as a share, `size=50%`.
    Percent(u64),
    /// A word from the option's list, with the text after `:` if any.
    Word {
        word: &'static str,
        tail: Option<String>,
    },
    /// Free text.
    Text(String),
    /// Size ranges per direction (`bsrange=4k-16k,8k-32k`).
    Ranges([(u64, u64); 3]),
    /// Numbers from a `:`-separated list, with the largest count of
    /// decimals written (fio prints percentiles with that precision).
    Floats { values: Vec<f64>, precision: usize },
    /// `bssplit`: each direction's block sizes with their shares, read
    /// with the `kb_base` in force where the option was written.
    BsSplit([Vec<SplitEntry>; 3]),
    /// `ignore_error`: the errnos ignored on reads, writes and verifies.
    ErrorLists([Vec<i32>; 3]),
    /// A CPU list that is not blank (`cpus_allowed=0-3,5`): the CPUs,
    /// sorted, without repeats.
    CpuList(Vec<usize>),
    /// `numa_cpu_nodes`: the nodes, sorted, without repeats.
    NumaNodes(Vec<usize>),
    /// `numa_mem_policy`: the policy, `None` for `default`.
    NumaPolicy(Option<MemPolicy>),
    /// `buffer_pattern` or `verify_pattern`.
    Pattern(DataPattern),
    /// `random_distribution`: the word and its parameters as written (for
    /// traces and --explain), and the shape they describe.
    Distribution {
        word: &'static str,
        tail: Option<String>,
        shape: Shape,
    },
    /// Accepted only to be ignored (deprecated options).
    Ignored,
}

impl Value {
    /// The value as one number: the read direction's for per-direction
    /// values, 0/1 for booleans, and numbers offered as words
    /// (`kb_base=1000`).
    pub fn number(&self) -> Option<u64> {
        match self {
            Value::Nums(v) => Some(v[0]),
            Value::Bool(b) => Some(u64::from(*b)),
            Value::Word { word, .. } => word.parse().ok(),
            _ => None,
        }
    }
}

/// Settings from earlier in the same section that change how a value reads.
#[derive(Debug, Clone, Copy)]
pub struct ParseContext {
    pub kb_base: u64,
    pub ncpus: u64,
    /// fio skips some callback checks under `--parse-only`; so do we.
    pub dry_run: bool,
    /// The option's value before this text (set earlier or its default),
    /// per direction: fio leaves a direction unchanged when its piece of
    /// the text does not parse.
    pub previous: [u64; 3],
}

/// The result of reading one option's text: the value when fio would accept
/// it, and the messages fio prints either way (warnings when accepted).
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub value: Option<Value>,
    pub messages: Vec<String>,
    /// A list of the option's words to show, as fio prints on stdout when a
    /// word is not recognised.
    pub show_words: bool,
    /// Notices fio prints on stdout rather than stderr (deprecations).
    pub notices: Vec<String>,
}

impl Parsed {
    /// A value fio accepts without comment.
    pub fn accept(value: Value) -> Self {
        Parsed {
            value: Some(value),
            messages: vec![],
            show_words: false,
            notices: vec![],
        }
    }

    /// A value fio refuses with one message.
    pub fn fail(message: String) -> Self {
        Parsed {
            value: None,
            messages: vec![message],
            show_words: false,
            notices: vec![],
        }
    }

    /// A word fio does not know: it lists the valid words.
    pub(super) fn unknown_word() -> Self {
        Parsed {
            value: None,
            messages: vec![],
            show_words: true,
            notices: vec![],
        }
    }
}

/// One block size of a `bssplit` and its share of the I/Os, in percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitEntry {
    pub bs: u64,
    pub percent: u32,
}
