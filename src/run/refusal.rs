//! Why a job cannot run: the one error every config part's `from_spec`
//! returns, kept apart so that the parts need not import the whole
//! config to refuse a job.

/// Why a job cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);
