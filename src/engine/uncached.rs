//! The `uncached` option of io_uring and pvsync2.
//!
//! fio 3.33 asks for buffered I/O that leaves no pages in the cache by
//! setting its own RWF_UNCACHED bit on each buffered read and write (not
//! with direct=1). The bit comes from a kernel patch that was never
//! merged: the kernel later gave the same bit to RWF_ATOMIC (6.11) and
//! named its uncached flag RWF_DONTCACHE (0x80). So on kernels that know
//! RWF_ATOMIC the job's first buffered read or write fails with
//! EOPNOTSUPP, and on older ones with EOPNOTSUPP or EINVAL for an unknown
//! flag. ferrio sends fio's bit unchanged, so whatever this kernel says
//! to fio, it says to ferrio: the same error, err= and exit status.

/// fio's RWF_UNCACHED (RWF_ATOMIC to kernels since 6.11).
pub const RWF_UNCACHED: i32 = 0x40;
