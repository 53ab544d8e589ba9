//! A net job's settings and the checks fio makes of them in its init.

use std::io;
use std::net::Ipv4Addr;

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
    pub(super) fn udp(self) -> bool {
        matches!(self, Proto::Udp | Proto::UdpV6)
    }
    pub(super) fn tcp(self) -> bool {
        matches!(self, Proto::Tcp | Proto::TcpV6)
    }
    pub(super) fn v6(self) -> bool {
        matches!(self, Proto::TcpV6 | Proto::UdpV6)
    }
    /// The socket domain and type for this protocol, shared by the
    /// listening and the connecting side so that the two always agree.
    pub(super) fn socket_kind(self) -> (libc::c_int, libc::c_int) {
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
    pub(super) fn group(&self) -> Option<Ipv4Addr> {
        self.host
            .as_deref()
            .filter(|_| self.proto.udp())
            .and_then(crate::engine::net_multicast::group)
    }

    /// Whether this job takes the listening side: TCP `listen`, or the
    /// reader of a datagram or unix link (fio decides so in its init).
    pub(super) fn listens(&self) -> bool {
        if self.proto.tcp() {
            self.listen
        } else {
            self.reads
        }
    }

    /// Checks what fio checks in its init, with its messages.
    pub(super) fn check(&self) -> io::Result<()> {
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
}
