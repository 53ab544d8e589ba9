//! The listening side: sockets bound before the group starts (as fio's
//! init binds them), and the connection a listener job accepts as it
//! opens its file.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Mutex;

use super::socket::{RawAddr, context, last, patient, setopt, socket, tune, wait};
use super::{Net, NetOptions, Proto};

/// Listening sockets bound before the group's threads start, by
/// (protocol, port or path).
type Key = (Proto, u32, Option<String>);
static BOUND: Mutex<Option<HashMap<Key, OwnedFd>>> = Mutex::new(None);

fn key(o: &NetOptions) -> Key {
    (
        o.proto,
        o.port,
        o.host.clone().filter(|_| o.proto == Proto::Unix),
    )
}

/// Binds the listening socket of a listener job ahead of the group's
/// start, as fio's init does before any job opens its files. Errors are
/// left for the job's own setup to meet and report.
pub fn prebind(o: &NetOptions) {
    if o.check().is_err() || !o.listens() {
        return;
    }
    if let Ok(fd) = bind_listener(o) {
        let mut map = BOUND.lock().unwrap_or_else(|p| p.into_inner());
        map.get_or_insert_with(HashMap::new).insert(key(o), fd);
    }
}

/// A listener job's socket: the one bound ahead of the group's start, or
/// (when that failed) one bound now, so the job meets the error itself.
pub(super) fn listener_for(o: &NetOptions) -> io::Result<OwnedFd> {
    let taken = BOUND
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_mut()
        .and_then(|m| m.remove(&key(o)));
    match taken {
        Some(fd) => Ok(fd),
        None => bind_listener(o),
    }
}

/// The listening socket of a listener job (bound; listening for TCP and
/// unix).
fn bind_listener(o: &NetOptions) -> io::Result<OwnedFd> {
    let (domain, kind) = o.proto.socket_kind();
    let fd = socket(domain, kind)?;
    let raw = fd.as_raw_fd();
    patient(raw)?;
    let addr = if o.proto == Proto::Unix {
        let path = o.host.as_deref().unwrap_or_default();
        // fio replaces a stale socket file.
        let _ = std::fs::remove_file(path);
        RawAddr::unix(path)?
    } else {
        setopt(
            raw,
            libc::SOL_SOCKET,
            libc::SO_REUSEADDR,
            1i32,
            "setsockopt",
        )?;
        setopt(
            raw,
            libc::SOL_SOCKET,
            libc::SO_REUSEPORT,
            1i32,
            "setsockopt",
        )?;
        tune(raw, o)?;
        // A multicast reader joins its group and takes the group's address.
        let at = match o.group() {
            Some(group) => IpAddr::V4(crate::engine::net_multicast::join(
                raw,
                group,
                o.proto.v6(),
                o.interface.as_deref(),
            )?),
            None if o.proto.v6() => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
            None => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        };
        RawAddr::inet(SocketAddr::new(at, o.port as u16))
    };
    // SAFETY: `addr` holds a valid address of `addr.len` bytes.
    if unsafe { libc::bind(raw, addr.ptr(), addr.len) } < 0 {
        return Err(context(last(), "bind"));
    }
    // SAFETY: listen on our bound socket.
    if !o.proto.udp() && unsafe { libc::listen(raw, 10) } < 0 {
        return Err(context(last(), "listen"));
    }
    Ok(fd)
}

impl Net {
    /// The connection a listener job's file is: a TCP or unix peer it
    /// waits for, or (UDP) its bound socket itself.
    pub(super) fn accept(&mut self) -> io::Result<OwnedFd> {
        let listener = self
            .listener
            .as_ref()
            .expect("a listener job has its socket");
        if self.o.proto.udp() {
            return listener.try_clone();
        }
        // fio logs this on its standard output, before any report.
        println!("fio: waiting for connection");
        wait(listener.as_raw_fd(), libc::POLLIN)?;
        // SAFETY: accept on our listening socket; the peer is not kept.
        let fd = unsafe {
            libc::accept4(
                listener.as_raw_fd(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                libc::SOCK_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(context(last(), "accept"));
        }
        // SAFETY: the descriptor is new and ours.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        patient(fd.as_raw_fd())?;
        if self.o.nodelay && self.o.proto.tcp() {
            setopt(
                fd.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_NODELAY,
                1i32,
                "TCP_NODELAY",
            )?;
        }
        Ok(fd)
    }
}
