//! The socket calls the net engines make, as thin wrappers over libc:
//! options, addresses in C form, and waits bounded so that a stopped run
//! is not held by a peer that never comes.

use std::io;
use std::mem::{size_of, zeroed};
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use super::{NetOptions, Proto};
use crate::sys::signals::stop_requested;

pub(super) fn last() -> io::Error {
    io::Error::last_os_error()
}

pub(super) fn context(e: io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

pub(super) fn setopt<T>(fd: RawFd, level: i32, name: i32, value: T, what: &str) -> io::Result<()> {
    // SAFETY: `value` is a plain value of the size passed.
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const T).cast(),
            size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        Err(context(last(), what))
    } else {
        Ok(())
    }
}

pub(super) fn socket(domain: i32, kind: i32) -> io::Result<OwnedFd> {
    // SAFETY: socket returns a new descriptor or -1.
    let fd = unsafe { libc::socket(domain, kind | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(context(last(), "socket"));
    }
    // SAFETY: the descriptor is new and ours.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Socket buffer sizes and segment size, as fio sets them.
pub(super) fn tune(fd: RawFd, o: &NetOptions) -> io::Result<()> {
    if o.window_size != 0 {
        let listener = o.listens();
        if listener || o.pingpong {
            setopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVBUF,
                o.window_size,
                "rcvbuf window size",
            )?;
        }
        if !listener || o.pingpong {
            setopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                o.window_size,
                "sndbuf window size",
            )?;
        }
    }
    if o.mss != 0 && o.proto.tcp() {
        setopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            o.mss,
            "setsockopt TCP_MAXSEG",
        )?;
    }
    Ok(())
}

/// A socket address in C form.
pub(super) struct RawAddr {
    pub(super) storage: libc::sockaddr_storage,
    pub(super) len: libc::socklen_t,
}

impl RawAddr {
    pub(super) fn inet(addr: SocketAddr) -> Self {
        // SAFETY: an all-zero sockaddr_storage is valid.
        let mut storage: libc::sockaddr_storage = unsafe { zeroed() };
        let len = match addr {
            SocketAddr::V4(a) => {
                let sin = libc::sockaddr_in {
                    sin_family: libc::AF_INET as libc::sa_family_t,
                    sin_port: a.port().to_be(),
                    sin_addr: libc::in_addr {
                        s_addr: u32::from(*a.ip()).to_be(),
                    },
                    sin_zero: [0; 8],
                };
                // SAFETY: sockaddr_storage is larger than sockaddr_in.
                unsafe { std::ptr::write(&mut storage as *mut _ as *mut libc::sockaddr_in, sin) };
                size_of::<libc::sockaddr_in>()
            }
            SocketAddr::V6(a) => {
                let sin6 = libc::sockaddr_in6 {
                    sin6_family: libc::AF_INET6 as libc::sa_family_t,
                    sin6_port: a.port().to_be(),
                    sin6_flowinfo: 0,
                    sin6_addr: libc::in6_addr {
                        s6_addr: a.ip().octets(),
                    },
                    sin6_scope_id: 0,
                };
                // SAFETY: sockaddr_storage is larger than sockaddr_in6.
                unsafe { std::ptr::write(&mut storage as *mut _ as *mut libc::sockaddr_in6, sin6) };
                size_of::<libc::sockaddr_in6>()
            }
        };
        RawAddr {
            storage,
            len: len as libc::socklen_t,
        }
    }

    pub(super) fn unix(path: &str) -> io::Result<Self> {
        // SAFETY: an all-zero sockaddr_storage is valid.
        let mut storage: libc::sockaddr_storage = unsafe { zeroed() };
        // SAFETY: sockaddr_storage is larger than sockaddr_un.
        let un = unsafe { &mut *(&mut storage as *mut _ as *mut libc::sockaddr_un) };
        let bytes = path.as_bytes();
        if bytes.len() >= un.sun_path.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "unix socket path too long",
            ));
        }
        un.sun_family = libc::AF_UNIX as libc::sa_family_t;
        for (d, s) in un.sun_path.iter_mut().zip(bytes) {
            *d = *s as libc::c_char;
        }
        Ok(RawAddr {
            storage,
            len: (size_of::<libc::sa_family_t>() + bytes.len() + 1) as libc::socklen_t,
        })
    }

    pub(super) fn ptr(&self) -> *const libc::sockaddr {
        (&self.storage as *const libc::sockaddr_storage).cast()
    }
}

/// The address a sender connects or sends to.
pub(super) fn peer(o: &NetOptions) -> io::Result<RawAddr> {
    let host = o.host.as_deref().unwrap_or_default();
    if o.proto == Proto::Unix {
        return RawAddr::unix(host);
    }
    let port = o.port as u16;
    let ip: Option<IpAddr> = host.parse().ok();
    let addr = match ip {
        Some(ip) => SocketAddr::new(ip, port),
        None => (host, port)
            .to_socket_addrs()
            .map_err(|e| context(e, "getaddrinfo"))?
            .find(|a| a.is_ipv6() == o.proto.v6())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "getaddrinfo: no address"))?,
    };
    Ok(RawAddr::inet(addr))
}

/// Waits until `fd` is ready for `events`.
pub(super) fn wait(fd: RawFd, events: i16) -> io::Result<()> {
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    loop {
        // SAFETY: one pollfd.
        let r = unsafe { libc::poll(&mut p, 1, PATIENCE_MS) };
        if r < 0 {
            let e = last();
            if e.kind() == io::ErrorKind::Interrupted && !stop_requested() {
                continue;
            }
            return Err(context(e, "poll"));
        }
        if r > 0 {
            return Ok(());
        }
        if stop_requested() {
            return Err(context(io::Error::from_raw_os_error(libc::EINTR), "poll"));
        }
    }
}

/// How long a socket call blocks before the engine looks whether the run
/// was stopped (a peer that never comes must not hold a job forever
/// against SIGINT/SIGTERM).
const PATIENCE_MS: i32 = 50;

/// Bounds each blocking call on the socket to [`PATIENCE_MS`].
pub(super) fn patient(fd: RawFd) -> io::Result<()> {
    let t = libc::timeval {
        tv_sec: 0,
        tv_usec: libc::suseconds_t::from(PATIENCE_MS) * 1000,
    };
    setopt(fd, libc::SOL_SOCKET, libc::SO_RCVTIMEO, t, "setsockopt")?;
    setopt(fd, libc::SOL_SOCKET, libc::SO_SNDTIMEO, t, "setsockopt")
}

/// Whether a failed socket call is worth another try: interrupted, or
/// timed out while the run goes on.
pub(super) fn retry(e: &io::Error) -> bool {
    match e.kind() {
        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => !stop_requested(),
        _ => false,
    }
}

pub(super) fn neg(e: io::Error) -> i64 {
    -i64::from(e.raw_os_error().unwrap_or(libc::EIO))
}
