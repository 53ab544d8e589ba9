//! The options that shape how a job's results are reported, read off its
//! plan once, before it runs.

use crate::options::Value;
use crate::plan::{JobSpec, Origin};
use crate::stats::percentile::{DEFAULT_LIST, normalise_list};

/// fio's `unified_rw_reporting`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unified {
    /// Per direction only.
    None,
    /// All directions folded into one `mixed` result.
    Mixed,
    /// Per direction, then the mixed result too.
    Both,
}

/// How one job's results are reported.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    /// The job's engine (for ferrio's own analysis).
    pub engine: String,
    pub description: String,
    /// Sorted, at most 20 entries.
    pub percentile_list: Vec<f64>,
    /// Decimals shown for the percentiles in the normal report.
    pub percentile_precision: usize,
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    /// Digits that num2str keeps (significant_figures).
    pub sig_figs: usize,
    /// 1024 or 1000.
    pub kb_base: u64,
    /// Report rates in bits rather than bytes (unit_base=1).
    pub bits: bool,
    pub unified: Unified,
    /// continue_on_error is set: reports carry the error counts.
    pub continue_on_error: bool,
    /// latency_target in ns, latency_window in µs, latency_percentile.
    pub latency_target_ns: u64,
    pub latency_window_us: u64,
    pub latency_percentile: f64,
    /// block_error_percentiles: the block lifetime lines (see
    /// run/block_errors.rs for why they always show an untouched table).
    pub block_error_hist: bool,
    /// The job's own options as written, for JSON `job options`: fio's
    /// canonical names and the value text, in the order fio applied them.
    pub job_options: Vec<(String, String)>,
    /// Options inherited from `[global]`, for JSON `global options`.
    pub global_options: Vec<(String, String)>,
}

impl ReportOptions {
    pub fn from_spec(job: &JobSpec) -> Self {
        let flag = |name| job.flag(name);
        let (percentile_list, percentile_precision) = match job.value("percentile_list") {
            Some(Value::Floats { values, precision }) => (normalise_list(values), *precision),
            _ => (DEFAULT_LIST.to_vec(), 2),
        };
        let gtod_reduce = flag("gtod_reduce");
        let unified = match job.value("unified_rw_reporting") {
            Some(Value::Word { word, .. }) => match *word {
                "mixed" | "1" => Unified::Mixed,
                "both" | "2" => Unified::Both,
                _ => Unified::None,
            },
            _ => Unified::None,
        };
        let latency_percentile = match job.value("latency_percentile") {
            Some(Value::Floats { values, .. }) => values.first().copied().unwrap_or(100.0),
            _ => 100.0,
        };
        let listed = |global: bool| {
            job.settings
                .iter()
                .filter(|s| {
                    let from_global = matches!(
                        s.origin,
                        Origin::Global { .. } | Origin::CommandLine { global: true, .. }
                    );
                    from_global == global
                })
                .filter_map(|s| {
                    let text = s.text.as_ref().filter(|t| !t.is_empty())?;
                    Some((s.def.name.to_string(), text.clone()))
                })
                .collect::<Vec<_>>()
        };
        ReportOptions {
            engine: job.engine.clone(),
            description: match job.value("description") {
                Some(Value::Text(t)) => t.clone(),
                _ => String::new(),
            },
            percentile_list,
            percentile_precision,
            clat_percentiles: flag("clat_percentiles") && !gtod_reduce,
            lat_percentiles: flag("lat_percentiles") && !gtod_reduce,
            slat_percentiles: flag("slat_percentiles") && !gtod_reduce,
            sig_figs: job.num("significant_figures").unwrap_or(4).clamp(1, 10) as usize,
            kb_base: if job.num("kb_base") == Some(1000) {
                1000
            } else {
                1024
            },
            // Left to decide, fio reports in bits for the engines that
            // say they count bits (net, not netsplice).
            bits: match job.num("unit_base") {
                Some(1) => true,
                Some(8) => false,
                _ => crate::engine::kind(&job.engine)
                    .is_some_and(|k| k.has(crate::engine::caps::BIT_BASED)),
            },
            unified,
            continue_on_error: !matches!(
                job.value("continue_on_error"),
                Some(Value::Word {
                    word: "none" | "0",
                    ..
                }) | None
            ) || ignores_errors(job),
            latency_target_ns: job.num("latency_target").unwrap_or(0) * 1000,
            latency_window_us: job.num("latency_window").unwrap_or(0),
            latency_percentile,
            block_error_hist: flag("block_error_percentiles"),
            job_options: listed(false),
            global_options: listed(true),
        }
    }

    /// Whether numbers are shown with binary prefixes (kb_base=1024).
    pub fn binary(&self) -> bool {
        self.kb_base == 1024
    }
}

/// Whether an ignore_error list turns continue_on_error on for its kind.
fn ignores_errors(job: &JobSpec) -> bool {
    match job.value("ignore_error") {
        Some(Value::ErrorLists(lists)) => lists.iter().any(|l| !l.is_empty()),
        _ => false,
    }
}
