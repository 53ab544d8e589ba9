//! The shape of one entry in the option table.
//!
//! The table mirrors fio's own option list so that every job file fio
//! accepts is accepted here with the same meaning. Each entry is built with
//! `const fn` builders so the whole table is a `static` slice: no start-up
//! cost, and adding an option is one entry.

/// How the raw text of an option is read. The variants follow fio's value
/// types one for one, because the same text must be accepted or refused
/// exactly as fio does (size suffixes on integers, `,`-separated
/// per-direction values, prefix matching of words, ...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// One word out of a fixed list, matched on its prefix up to the first
    /// `,` or `:` (fio's FIO_OPT_STR). A `check` may read a tail after `:`.
    /// An empty list means the `check` alone reads the value.
    Choice(&'static [Word]),
    /// Free text kept as written (fio's FIO_OPT_STR_STORE). Listed words are
    /// suggestions only: other text is accepted too.
    Text(&'static [Word]),
    /// 32-bit integer that accepts size suffixes and hex (fio's FIO_OPT_INT).
    Int,
    /// 64-bit integer that accepts size suffixes, `%` and hex
    /// (fio's FIO_OPT_ULL and FIO_OPT_STR_VAL).
    Size,
    /// A duration with an optional unit suffix (fio's FIO_OPT_STR_VAL_TIME);
    /// the value is kept in microseconds.
    Time,
    /// 0 or 1; a value is required (fio's FIO_OPT_BOOL).
    Bool,
    /// Present alone means 1; `=0`/`=1` also accepted (fio's FIO_OPT_STR_SET).
    Flag,
    /// `lo-hi` or `lo:hi` size ranges, up to one per direction (FIO_OPT_RANGE).
    Range,
    /// `:`-separated floating point numbers (FIO_OPT_FLOAT_LIST).
    FloatList { max_len: u8, min: f64, max: f64 },
    /// Accepted and ignored with a "deprecated" notice that still fails the
    /// job, as fio does (FIO_OPT_DEPRECATED).
    Deprecated,
    /// Accepted and ignored with a "deprecated" notice (FIO_OPT_SOFT_DEPRECATED).
    SoftDeprecated,
    /// Known to fio but not built into fio 3.33 on this platform: using it is
    /// an error (FIO_OPT_UNSUPPORTED).
    Unsupported,
}

/// One allowed word of a `Choice` or `Text` option, with its help text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Word {
    pub word: &'static str,
    pub help: &'static str,
}

/// Shorthand for building a `Word` in the table.
pub const fn w(word: &'static str, help: &'static str) -> Word {
    Word { word, help }
}

/// A coarse grouping used by `--cmdhelp` and `--explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Description,
    Files,
    Io,
    IoType,
    BlockSize,
    Buffers,
    Random,
    Rate,
    Timing,
    Verify,
    Latency,
    Stats,
    Logging,
    Process,
    Ioengine,
    Zones,
    SteadyState,
    Misc,
}

/// Extra validation or structured reading that a value needs beyond its
/// `Kind`, like fio's per-option callbacks. Each variant is implemented once
/// in `options::check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    None,
    /// `rw`: the word may be followed by `:N` or `:size` (offset modifier).
    RwMode,
    /// `bssplit`: `bs/pct:bs/pct,...` per direction.
    BsSplit,
    /// CPU list such as `0-3,5` (`cpus_allowed`, `numa_cpu_nodes`...).
    CpuList,
    /// `random_distribution`: a word with an optional `:value[:value]` tail.
    Distribution,
    /// `filename`: `:`-separated names with `\:` escapes.
    FileNames,
    /// `ioengine`: a built-in name or `external:path`.
    Engine,
    /// `ignore_error`: `,`-separated lists of errno names or numbers.
    ErrorList,
    /// `buffer_pattern`/`verify_pattern`: hex, quoted text, `%o` and mixes.
    Pattern,
    /// `cpumask`: a number whose bits select CPUs.
    CpuMask,
    /// `steadystate`: `iops`, `iops_slope`, `bw`, `bw_slope` with a limit.
    SteadyState,
    /// `numa_mem_policy`: `policy[:nodes]`.
    NumaPolicy,
    /// `numa_cpu_nodes`: a NUMA node list such as `0-1` or `all`.
    NumaNodes,
    /// `cmdprio_bssplit`: bssplit entries with priority class and level.
    CmdprioBsSplit,
    /// `zonemode`/`zoneskip` style zone values with a `z` suffix.
    Zone,
}

/// Whether ferrio can run a job that sets this option yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Parsed and honoured by the executors.
    Runs,
    /// Parsed and planned; a job setting it is refused before any I/O.
    ParseOnly,
}

/// One entry of the option table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OptDef {
    /// Canonical name, as fio prints it in JSON `job options`.
    pub name: &'static str,
    /// Other accepted spellings.
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    /// The default as fio would print it in `--cmdhelp`, if it has one.
    pub default: Option<&'static str>,
    /// Smallest accepted integer value, when checked.
    pub min: Option<i64>,
    /// Largest accepted integer value, when checked.
    pub max: Option<u64>,
    pub help: &'static str,
    pub category: Category,
    /// The option this one refines, for `--cmdhelp` indentation.
    pub parent: Option<&'static str>,
    /// Options with a higher priority are applied first within a section,
    /// whatever their place in the file (fio's `prio`).
    pub prio: i8,
    /// How many comma-separated per-direction values (read, write, trim)
    /// the option takes: 1 for a single value, 2 or 3 for lists.
    pub per_dir: u8,
    /// A bare number for a `Time` option is in seconds rather than µs.
    pub seconds: bool,
    /// A `Size`/`Int` option whose numbers are durations (`Time` rules).
    pub time: bool,
    /// The value must be a power of two.
    pub pow2: bool,
    /// fio types this size as a string value (FIO_OPT_STR_VAL or
    /// FIO_OPT_STR_VAL_ZONE) rather than an integer: it gets no implied
    /// upper bound and `--cmdhelp` names its type differently.
    pub str_val: bool,
    /// fio hands each piece of the value (split at `,`, `:` or `-`) to
    /// the option's callback, so the last piece that reads is the value
    /// (`size=-1m` is 1 MiB); other options keep the first piece.
    pub each_piece: bool,
    /// A share above 100% is an error (io_size) rather than, as for the
    /// other sizes, a byte count near 2^64.
    pub shares_to_100: bool,
    /// The built-in fio profile that adds this option (`tiobench`, `act`);
    /// fio's help leaves such options out.
    pub profile: Option<&'static str>,
    /// Engines that own this option; empty means it applies to every job.
    pub engines: &'static [&'static str],
    pub check: Check,
    pub support: Support,
}

impl OptDef {
    /// The names a job may set the option by: its name, then its aliases.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
    }

    /// Starts an entry with the given name, kind, category and help text;
    /// everything else takes its most common value.
    pub const fn new(
        name: &'static str,
        kind: Kind,
        category: Category,
        help: &'static str,
    ) -> Self {
        OptDef {
            name,
            aliases: &[],
            kind,
            default: None,
            min: None,
            max: None,
            help,
            category,
            parent: None,
            prio: 0,
            per_dir: 1,
            seconds: false,
            time: false,
            pow2: false,
            str_val: false,
            each_piece: false,
            shares_to_100: false,
            profile: None,
            engines: &[],
            check: Check::None,
            support: Support::ParseOnly,
        }
    }
    pub const fn alias(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }
    pub const fn def(mut self, default: &'static str) -> Self {
        self.default = Some(default);
        self
    }
    pub const fn min(mut self, min: i64) -> Self {
        self.min = Some(min);
        self
    }
    pub const fn max(mut self, max: u64) -> Self {
        self.max = Some(max);
        self
    }
    pub const fn parent(mut self, parent: &'static str) -> Self {
        self.parent = Some(parent);
        self
    }
    pub const fn prio(mut self, prio: i8) -> Self {
        self.prio = prio;
        self
    }
    pub const fn per_dir(mut self, n: u8) -> Self {
        self.per_dir = n;
        self
    }
    pub const fn seconds(mut self) -> Self {
        self.seconds = true;
        self
    }
    pub const fn time(mut self) -> Self {
        self.time = true;
        self
    }
    pub const fn pow2(mut self) -> Self {
        self.pow2 = true;
        self
    }
    pub const fn profile(mut self, profile: &'static str) -> Self {
        self.profile = Some(profile);
        self
    }
    pub const fn str_val(mut self) -> Self {
        self.str_val = true;
        self
    }
    pub const fn each_piece(mut self) -> Self {
        self.each_piece = true;
        self
    }
    pub const fn shares_to_100(mut self) -> Self {
        self.shares_to_100 = true;
        self
    }
    pub const fn engines(mut self, engines: &'static [&'static str]) -> Self {
        self.engines = engines;
        self
    }
    pub const fn check(mut self, check: Check) -> Self {
        self.check = check;
        self
    }
    pub const fn runs(mut self) -> Self {
        self.support = Support::Runs;
        self
    }
    /// The bounds fio enforces, including those it adds to generic options
    /// at start-up: booleans are 0..1, integers at most `u32::MAX`, 64-bit
    /// integers at most `u64::MAX` (engine options get none of these).
    pub fn limits(&self) -> (Option<i64>, Option<u64>) {
        if !self.engines.is_empty() {
            return (self.min, self.max);
        }
        match self.kind {
            Kind::Bool => (Some(0), Some(1)),
            Kind::Int => (self.min, self.max.or(Some(u32::MAX as u64))),
            Kind::Size if !self.str_val => (self.min, self.max.or(Some(u64::MAX))),
            _ => (self.min, self.max),
        }
    }
    /// True when `name` is this option's name or one of its aliases.
    pub fn matches(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}
