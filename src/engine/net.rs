//! fio's `net` and `netsplice` engines: a job's "file" is a socket. A
//! listener (TCP `listen`, or any UDP or unix-socket reader) binds in its
//! setup and accepts as it opens its file; a sender connects as it opens
//! its file. Writes send, reads receive; with `pingpong` every message is
//! answered. UDP links are opened and closed with fio's small control
//! messages, so a fio and a ferrio job can talk to each other; UDP
//! messages of 24 bytes or more carry fio's sequence trailer, from which
//! the reader counts dropped messages. `netsplice` moves TCP data through
//! a pipe with splice(2)/vmsplice(2) instead of send/recv.
//!
//! fio binds every listener of a group before any job of the group opens
//! its files; ferrio does the same through [`prebind`], called before the
//! group's threads start.

use std::collections::HashMap;
use std::io;
use std::mem::{size_of, zeroed};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::Mutex;

use super::{Dir, Engine, OpenMode, Queued, Request};

/// fio's control-message magic and commands.
const LINK_MAGIC: u32 = 0x6c69_6e6b;
const LINK_OPEN: u32 = 0x98;
const LINK_CLOSE: u32 = 0x89;
/// The magic of the sequence trailer on UDP messages.
const SEQ_MAGIC: u64 = 0x6573_7571_6e55_6563;
/// The trailer: magic, message size, sequence number.
const SEQ_LEN: usize = 24;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Proto {
    #[default]
    Tcp,
    TcpV6,
    Udp,
    UdpV6,
    Unix,
}

impl Proto {
    fn udp(self) -> bool {
        matches!(self, Proto::Udp | Proto::UdpV6)
    }
    fn tcp(self) -> bool {
        matches!(self, Proto::Tcp | Proto::TcpV6)
    }
    fn v6(self) -> bool {
        matches!(self, Proto::TcpV6 | Proto::UdpV6)
    }
    /// The socket domain and type for this protocol, shared by the
    /// listening and the connecting side so that the two always agree.
    fn socket_kind(self) -> (libc::c_int, libc::c_int) {
        match self {
            Proto::Tcp => (libc::AF_INET, libc::SOCK_STREAM),
            Proto::TcpV6 => (libc::AF_INET6, libc::SOCK_STREAM),
            Proto::Udp => (libc::AF_INET, libc::SOCK_DGRAM),
            Proto::UdpV6 => (libc::AF_INET6, libc::SOCK_DGRAM),
            Proto::Unix => (libc::AF_UNIX, libc::SOCK_STREAM),
        }
    }
}

/// A net job's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetOptions {
    pub proto: Proto,
    /// hostname= (or filename=): where to connect, or the unix socket's
    /// path.
    pub host: Option<String>,
    /// The port, already moved on by the clone's number as fio does.
    pub port: u32,
    pub listen: bool,
    pub nodelay: bool,
    pub pingpong: bool,
    pub window_size: u32,
    pub mss: u32,
    /// netsplice rather than net.
    pub splice: bool,
    /// Whether the job reads, writes (fio's td_read/td_write).
    pub reads: bool,
    pub writes: bool,
    /// Random I/O, which fio refuses for sockets.
    pub random: bool,
    /// The job's size: a TCP sender says MSG_MORE until it is reached.
    pub size: u64,
    /// UDP multicast: the interface's address, and the hop limit.
    pub interface: Option<String>,
    pub ttl: u32,
}

impl NetOptions {
    /// The multicast group of a UDP job, if its hostname names one.
    fn group(&self) -> Option<Ipv4Addr> {
        self.host
            .as_deref()
            .filter(|_| self.proto.udp())
            .and_then(super::net_multicast::group)
    }

    /// Whether this job takes the listening side: TCP `listen`, or the
    /// reader of a datagram or unix link (fio decides so in its init).
    fn listens(&self) -> bool {
        if self.proto.tcp() {
            self.listen
        } else {
            self.reads
        }
    }

    /// Checks what fio checks in its init, with its messages.
    fn check(&self) -> io::Result<()> {
        let bad = |m: &str| Err(io::Error::new(io::ErrorKind::InvalidInput, m.to_string()));
        if self.random {
            return bad("network IO can't be random");
        }
        if self.proto == Proto::Unix && self.port != 0 {
            return bad("network IO port not valid with unix socket");
        }
        if self.proto != Proto::Unix && self.port == 0 {
            return bad("network IO requires port for tcp or udp");
        }
        if !self.proto.tcp() {
            if self.listen {
                return bad("listen only valid for TCP proto IO");
            }
            if self.reads && self.writes {
                return bad("datagram network connections must be read OR write");
            }
            if self.proto == Proto::Unix && self.host.is_none() {
                return bad("UNIX sockets need host/filename");
            }
        }
        if self.listens()
            && self.proto != Proto::Unix
            && self.host.is_some()
            && self.group().is_none()
        {
            return bad("hostname not valid for non-multicast inbound network IO");
        }
        if !self.listens() && self.host.is_none() {
            return bad("connect with no host to connect to (no hostname= set)");
        }
        Ok(())
    }
}

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

fn last() -> io::Error {
    io::Error::last_os_error()
}

fn context(e: io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

fn setopt<T>(fd: RawFd, level: i32, name: i32, value: T, what: &str) -> io::Result<()> {
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

fn socket(domain: i32, kind: i32) -> io::Result<OwnedFd> {
    // SAFETY: socket returns a new descriptor or -1.
    let fd = unsafe { libc::socket(domain, kind | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(context(last(), "socket"));
    }
    // SAFETY: the descriptor is new and ours.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Socket buffer sizes and segment size, as fio sets them.
fn tune(fd: RawFd, o: &NetOptions) -> io::Result<()> {
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
struct RawAddr {
    storage: libc::sockaddr_storage,
    len: libc::socklen_t,
}

impl RawAddr {
    fn inet(addr: SocketAddr) -> Self {
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

    fn unix(path: &str) -> io::Result<Self> {
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

    fn ptr(&self) -> *const libc::sockaddr {
        (&self.storage as *const libc::sockaddr_storage).cast()
    }
}

/// The address a sender connects or sends to.
fn peer(o: &NetOptions) -> io::Result<RawAddr> {
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
            Some(group) => IpAddr::V4(super::net_multicast::join(
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

/// Waits until `fd` is ready for `events`.
fn wait(fd: RawFd, events: i16) -> io::Result<()> {
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
            if e.kind() == io::ErrorKind::Interrupted && !stopped() {
                continue;
            }
            return Err(context(e, "poll"));
        }
        if r > 0 {
            return Ok(());
        }
        if stopped() {
            return Err(context(io::Error::from_raw_os_error(libc::EINTR), "poll"));
        }
    }
}

/// How long a socket call blocks before the engine looks whether the run
/// was stopped (a peer that never comes must not hold a job forever
/// against SIGINT/SIGTERM).
const PATIENCE_MS: i32 = 200;

fn stopped() -> bool {
    crate::run::signals::STOP.load(std::sync::atomic::Ordering::Relaxed)
}

/// Bounds each blocking call on the socket to [`PATIENCE_MS`].
fn patient(fd: RawFd) -> io::Result<()> {
    let t = libc::timeval {
        tv_sec: 0,
        tv_usec: libc::suseconds_t::from(PATIENCE_MS) * 1000,
    };
    setopt(fd, libc::SOL_SOCKET, libc::SO_RCVTIMEO, t, "setsockopt")?;
    setopt(fd, libc::SOL_SOCKET, libc::SO_SNDTIMEO, t, "setsockopt")
}

/// Whether a failed socket call is worth another try: interrupted, or
/// timed out while the run goes on.
fn retry(e: &io::Error) -> bool {
    match e.kind() {
        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => !stopped(),
        _ => false,
    }
}

fn neg(e: io::Error) -> i64 {
    -i64::from(e.raw_os_error().unwrap_or(libc::EIO))
}

pub struct Net {
    o: NetOptions,
    listener: Option<OwnedFd>,
    conn: Option<OwnedFd>,
    /// Where datagrams go (a sender) or came from (a reader).
    to: Option<RawAddr>,
    pipe: Option<(OwnedFd, OwnedFd)>,
    /// Bytes written so far (for MSG_MORE).
    sent: u64,
    send_seq: u64,
    recv_seq: u64,
    /// The trailer did not match the message size: stop checking.
    seq_off: bool,
    /// Datagrams missed, by the sequence numbers seen.
    dropped: u64,
    /// The link was closed by the other side.
    ended: bool,
}

impl Net {
    pub fn new(o: NetOptions) -> io::Result<Self> {
        o.check()?;
        let pipe = if o.splice {
            Some(super::splice::make_pipe()?)
        } else {
            None
        };
        let listener = if o.listens() {
            let taken = BOUND
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .as_mut()
                .and_then(|m| m.remove(&key(&o)));
            Some(match taken {
                Some(fd) => fd,
                None => bind_listener(&o)?,
            })
        } else {
            None
        };
        Ok(Net {
            o,
            listener,
            conn: None,
            to: None,
            pipe,
            sent: 0,
            send_seq: 0,
            recv_seq: 0,
            seq_off: false,
            dropped: 0,
            ended: false,
        })
    }

    fn accept(&mut self) -> io::Result<OwnedFd> {
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

    fn connect(&mut self) -> io::Result<OwnedFd> {
        let (domain, kind) = self.o.proto.socket_kind();
        let fd = socket(domain, kind)?;
        let raw = fd.as_raw_fd();
        patient(raw)?;
        if self.o.nodelay && self.o.proto.tcp() {
            setopt(
                raw,
                libc::IPPROTO_TCP,
                libc::TCP_NODELAY,
                1i32,
                "TCP_NODELAY",
            )?;
        }
        tune(raw, &self.o)?;
        if self.o.group().is_some() {
            super::net_multicast::sender(
                raw,
                self.o.proto.v6(),
                self.o.interface.as_deref(),
                self.o.ttl,
            )?;
        }
        let addr = peer(&self.o)?;
        if self.o.proto.udp() {
            self.to = Some(addr);
            return Ok(fd);
        }
        // SAFETY: `addr` holds a valid address of `addr.len` bytes.
        if unsafe { libc::connect(raw, addr.ptr(), addr.len) } < 0 {
            return Err(context(last(), "connect"));
        }
        Ok(fd)
    }

    /// One of fio's link control messages, in its byte order (network
    /// order for open, little-endian for close).
    fn control(cmd: u32) -> [u8; 8] {
        let mut m = [0; 8];
        if cmd == LINK_OPEN {
            m[..4].copy_from_slice(&LINK_MAGIC.to_be_bytes());
            m[4..].copy_from_slice(&cmd.to_be_bytes());
        } else {
            m[..4].copy_from_slice(&LINK_MAGIC.to_le_bytes());
            m[4..].copy_from_slice(&cmd.to_le_bytes());
        }
        m
    }

    fn send_to(&self, fd: RawFd, data: &[u8], flags: i32) -> isize {
        match &self.to {
            // SAFETY: `data` and the address are valid for the call.
            Some(a) => unsafe {
                libc::sendto(fd, data.as_ptr().cast(), data.len(), flags, a.ptr(), a.len)
            },
            // SAFETY: `data` is valid for the call.
            None => unsafe { libc::send(fd, data.as_ptr().cast(), data.len(), flags) },
        }
    }

    fn send(&mut self, fd: RawFd, buf: &mut [u8]) -> i64 {
        if self.o.proto.udp() && buf.len() >= SEQ_LEN {
            let (t, len) = (buf.len() - SEQ_LEN, buf.len() as u64);
            buf[t..t + 8].copy_from_slice(&SEQ_MAGIC.to_le_bytes());
            buf[t + 8..t + 16].copy_from_slice(&len.to_le_bytes());
            buf[t + 16..].copy_from_slice(&self.send_seq.to_le_bytes());
            self.send_seq += 1;
        }
        let mut flags = libc::MSG_NOSIGNAL;
        if !self.o.proto.udp() && !self.o.pingpong && self.sent + (buf.len() as u64) < self.o.size {
            flags |= libc::MSG_MORE;
        }
        let mut done = 0;
        while done < buf.len() {
            let n = self.send_to(fd, &buf[done..], flags);
            if n < 0 {
                let e = last();
                if retry(&e) {
                    continue;
                }
                return neg(e);
            }
            done += n as usize;
            // A datagram goes whole or not at all.
            if self.o.proto.udp() {
                break;
            }
        }
        self.sent += done as u64;
        done as i64
    }

    /// One receive, as fio makes it: a datagram is a message of its own,
    /// and a stream receive takes what has come, which may be short of
    /// the buffer (fio counts that as a short I/O and asks for the rest).
    fn recv(&mut self, fd: RawFd, buf: &mut [u8]) -> i64 {
        let done = loop {
            // SAFETY: `buf` is valid for writing.
            let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
            if n >= 0 {
                break n as usize;
            }
            let e = last();
            if !retry(&e) {
                return neg(e);
            }
        };
        if done == 8 && buf[..8] == Self::control(LINK_CLOSE) {
            self.ended = true;
            return 0;
        }
        if done == 0 {
            self.ended = true;
        }
        if self.o.proto.udp() {
            self.check_seq(&buf[..done]);
        }
        done as i64
    }

    /// Counts datagrams missed, by the trailer fio's senders add.
    fn check_seq(&mut self, msg: &[u8]) {
        if msg.len() < SEQ_LEN || self.seq_off {
            return;
        }
        let t = msg.len() - SEQ_LEN;
        let word =
            |i: usize| u64::from_le_bytes(msg[t + i..t + i + 8].try_into().unwrap_or([0; 8]));
        if word(0) != SEQ_MAGIC {
            return;
        }
        if word(8) != msg.len() as u64 {
            self.seq_off = true;
            return;
        }
        let seq = word(16);
        if seq != self.recv_seq {
            self.dropped += seq.wrapping_sub(self.recv_seq);
        }
        self.recv_seq = seq + 1;
    }

    fn splice_out(&mut self, fd: RawFd, buf: &[u8]) -> i64 {
        let Some((out, inn)) = &self.pipe else {
            return -i64::from(libc::EINVAL);
        };
        let (out, inn) = (out.as_raw_fd(), inn.as_raw_fd());
        let mut done = 0;
        while done < buf.len() {
            let mut n = match super::splice::user_to_pipe(inn, &buf[done..]) {
                Ok(n) => n,
                Err(e) => return e,
            };
            while n > 0 {
                let null = std::ptr::null_mut();
                // SAFETY: splice from our pipe into the socket.
                let m = unsafe { libc::splice(out, null, fd, null, n, libc::SPLICE_F_MOVE) };
                if m < 0 {
                    let e = last();
                    if retry(&e) {
                        continue;
                    }
                    return neg(e);
                }
                n -= m as usize;
                done += m as usize;
            }
        }
        self.sent += done as u64;
        done as i64
    }

    fn splice_in(&mut self, fd: RawFd, buf: &mut [u8]) -> i64 {
        let Some((out, inn)) = &self.pipe else {
            return -i64::from(libc::EINVAL);
        };
        let (out, inn) = (out.as_raw_fd(), inn.as_raw_fd());
        let mut done = 0;
        while done < buf.len() {
            // SAFETY: splice from the socket into our pipe.
            let n = unsafe {
                libc::splice(
                    fd,
                    std::ptr::null_mut(),
                    inn,
                    std::ptr::null_mut(),
                    buf.len() - done,
                    libc::SPLICE_F_MOVE,
                )
            };
            if n < 0 {
                let e = last();
                if retry(&e) {
                    continue;
                }
                return neg(e);
            }
            if n == 0 {
                break;
            }
            let n = n as usize;
            if let Err(e) = super::splice::pipe_to_user(out, &mut buf[done..done + n]) {
                return e;
            }
            done += n;
        }
        if done == 0 {
            self.ended = true;
        }
        done as i64
    }

    fn transfer(&mut self, dir: Dir, buf: &mut [u8]) -> i64 {
        let Some(fd) = self.conn.as_ref().map(|c| c.as_raw_fd()) else {
            return -i64::from(libc::EBADF);
        };
        let spliced = self.pipe.is_some() && self.o.proto.tcp();
        match (dir, spliced) {
            (Dir::Write, false) => self.send(fd, buf),
            (Dir::Write, true) => self.splice_out(fd, buf),
            (Dir::Read, false) => self.recv(fd, buf),
            (Dir::Read, true) => self.splice_in(fd, buf),
            (Dir::Trim, _) => -i64::from(libc::EINVAL),
        }
    }
}

impl Engine for Net {
    fn name(&self) -> &'static str {
        if self.o.splice { "netsplice" } else { "net" }
    }

    fn open(&mut self, _path: &Path, _mode: OpenMode) -> io::Result<usize> {
        let fd = if self.o.listens() {
            self.accept()?
        } else {
            self.connect()?
        };
        let raw = fd.as_raw_fd();
        self.conn = Some(fd);
        if self.o.proto.udp() {
            if self.o.writes {
                let m = Self::control(LINK_OPEN);
                if self.send_to(raw, &m, 0) < 0 {
                    return Err(context(last(), "sendto udp link open"));
                }
            } else {
                let mut m = [0u8; 8];
                // SAFETY: the sender's address is stored for replies.
                let mut st: libc::sockaddr_storage = unsafe { zeroed() };
                let mut len = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
                loop {
                    // SAFETY: `m` and `st` are valid for the call.
                    let n = unsafe {
                        libc::recvfrom(
                            raw,
                            m.as_mut_ptr().cast(),
                            m.len(),
                            libc::MSG_WAITALL,
                            (&mut st as *mut libc::sockaddr_storage).cast(),
                            &mut len,
                        )
                    };
                    if n >= 0 {
                        break;
                    }
                    let e = last();
                    if !retry(&e) {
                        return Err(context(e, "recvfrom udp link open"));
                    }
                }
                if m != Self::control(LINK_OPEN) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "bad udp open magic",
                    ));
                }
                self.to = Some(RawAddr { storage: st, len });
            }
        }
        Ok(0)
    }

    fn queue(&mut self, req: Request<'_>) -> Queued {
        if self.ended {
            return Queued::Done(0);
        }
        // A datagram link only goes one way.
        if self.o.proto.udp()
            && ((self.o.listens() && req.dir == Dir::Write)
                || (!self.o.listens() && req.dir == Dir::Read))
        {
            return Queued::Done(-i64::from(libc::EINVAL));
        }
        let r = self.transfer(req.dir, req.buf);
        if r <= 0 || !self.o.pingpong {
            return Queued::Done(r);
        }
        // pingpong: the answer travels back in the same buffer.
        let back = match req.dir {
            Dir::Read if self.o.reads => Dir::Write,
            Dir::Write if self.o.writes => Dir::Read,
            _ => return Queued::Done(r),
        };
        Queued::Done(self.transfer(back, req.buf))
    }

    fn sync(&mut self, _file: usize, _data_only: bool) -> io::Result<()> {
        Ok(())
    }

    fn invalidate(&mut self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn commits(&self) -> bool {
        false
    }

    fn ended(&self) -> bool {
        self.ended
    }

    fn dropped(&self) -> u64 {
        self.dropped
    }
}

impl Drop for Net {
    /// Tells a datagram reader that the link is closing, as fio does as
    /// it closes the file.
    fn drop(&mut self) {
        if self.o.proto.udp()
            && self.o.writes
            && let Some(c) = &self.conn
        {
            let m = Self::control(LINK_CLOSE);
            self.send_to(c.as_raw_fd(), &m, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp_sender() -> NetOptions {
        NetOptions {
            host: Some("127.0.0.1".into()),
            port: 8888,
            writes: true,
            ..NetOptions::default()
        }
    }

    #[test]
    fn fio_init_checks() {
        let refused = |o: NetOptions| o.check().unwrap_err().to_string();
        assert!(tcp_sender().check().is_ok());
        let o = NetOptions {
            port: 0,
            ..tcp_sender()
        };
        assert!(refused(o).contains("requires port"));
        let o = NetOptions {
            random: true,
            ..tcp_sender()
        };
        assert!(refused(o).contains("can't be random"));
        let o = NetOptions {
            host: None,
            ..tcp_sender()
        };
        assert!(refused(o).contains("no host"));
        let o = NetOptions {
            listen: true,
            ..tcp_sender()
        };
        assert!(refused(o).contains("hostname not valid"));
        let o = NetOptions {
            proto: Proto::Udp,
            reads: true,
            ..tcp_sender()
        };
        assert!(refused(o).contains("read OR write"));
        // A multicast group is a UDP reader's only hostname.
        let o = NetOptions {
            proto: Proto::Udp,
            host: Some("239.0.0.1".into()),
            reads: true,
            writes: false,
            ..tcp_sender()
        };
        assert!(o.check().is_ok());
        let o = NetOptions {
            proto: Proto::Udp,
            host: Some("127.0.0.1".into()),
            reads: true,
            writes: false,
            ..tcp_sender()
        };
        assert!(refused(o).contains("non-multicast"));
        let o = NetOptions {
            proto: Proto::Unix,
            ..tcp_sender()
        };
        assert!(refused(o).contains("not valid with unix"));
    }

    #[test]
    fn control_messages_in_fio_byte_order() {
        assert_eq!(
            Net::control(LINK_OPEN),
            [0x6c, 0x69, 0x6e, 0x6b, 0, 0, 0, 0x98]
        );
        assert_eq!(
            Net::control(LINK_CLOSE),
            [0x6b, 0x6e, 0x69, 0x6c, 0x89, 0, 0, 0]
        );
    }
}
