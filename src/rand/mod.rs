//! fio's random number generators (tausworthe, lfsr), bit-exact with
//! fio's draws: shared by the run, the engines and the planner.

pub mod fio_rand;
pub mod lfsr;
