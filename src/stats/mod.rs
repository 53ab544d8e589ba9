//! Statistics collected while jobs run, in the forms fio reports them.

pub mod histogram;
pub mod moments;

pub use histogram::Histogram;
pub use moments::Moments;
