//! I/O engines: one trait, in the spirit of fio's ioengine_ops, one file
//! per engine, and one table ([`kind`]) of what each engine is, how it
//! is made and which function decodes its options. The runner owns the
//! buffers; how long an engine may hold on to one is the `# Safety`
//! section of [`Engine::queue`] and [`Engine::register_buffers`].

#[macro_use]
mod shared_methods;

pub mod api;
pub mod ceph_inflight;
pub(super) mod ceph_options;
pub mod cpuio;
pub mod e4defrag;
pub mod exec;
pub mod falloc;
pub mod file_table;
pub mod fileops;
pub mod fio_names;
pub mod ftruncate;
pub mod gfapi;
pub mod io_uring;
pub mod kind;
pub mod libaio;
pub mod libpmem;
pub mod mmap;
pub mod nbd;
pub mod net;
pub mod net_multicast;
pub mod net_options;
pub mod null;
pub mod posixaio;
pub mod psync;
pub mod rados;
pub mod rbd;
pub mod splice;
pub mod uncached;

pub use api::*;
pub use fio_names::{FIO_ENGINES, fio_name, fio_refuses_offload};
pub use kind::{EngineOptions, KINDS, Kind, caps, kind};

/// Whether the engine of this name moves no data (see [`caps::NO_IO`]):
/// for the job lines, printed from the job's options alone.
pub fn moves_no_data(name: &str) -> bool {
    kind(name).is_some_and(|k| k.has(caps::NO_IO))
}
