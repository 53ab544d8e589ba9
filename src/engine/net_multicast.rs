//! UDP multicast for the net engine, as fio 3.33 sets it up.
//!
//! A UDP job whose hostname is an IPv4 multicast group (224.0.0.0 to
//! 239.255.255.255) sends to that group, with `interface` as the outgoing
//! interface and `ttl` as the hop limit; a reading job joins the group on
//! `interface` (any, if unset) and binds to the group's address. IPv6
//! multicast is not supported by fio, which says so.

use std::io;
use std::mem::size_of;
use std::net::Ipv4Addr;
use std::os::fd::RawFd;

/// The IPv4 multicast group a hostname names, if it is one.
pub fn group(host: &str) -> Option<Ipv4Addr> {
    host.parse::<Ipv4Addr>().ok().filter(Ipv4Addr::is_multicast)
}

fn refuse(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message.to_string())
}

/// `interface`, which fio takes only as an IPv4 address.
fn interface(name: Option<&str>) -> io::Result<Option<Ipv4Addr>> {
    name.map(|n| {
        n.parse::<Ipv4Addr>()
            .map_err(|_| refuse("interface not valid interface IP"))
    })
    .transpose()
}

fn in_addr(a: Ipv4Addr) -> libc::in_addr {
    libc::in_addr {
        s_addr: u32::from(a).to_be(),
    }
}

fn setopt<T>(fd: RawFd, name: i32, value: &T, what: &str) -> io::Result<()> {
    // SAFETY: `value` is a plain value of the size passed.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_IP,
            name,
            (value as *const T).cast(),
            size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(())
    }
}

/// A sender's socket `fd` to `group`: the outgoing interface, then the
/// hop limit.
pub fn sender(fd: RawFd, v6: bool, iface: Option<&str>, ttl: u32) -> io::Result<()> {
    if v6 {
        return Err(refuse("multicast not supported on IPv6"));
    }
    if let Some(addr) = interface(iface)? {
        setopt(
            fd,
            libc::IP_MULTICAST_IF,
            &in_addr(addr),
            "setsockopt IP_MULTICAST_IF",
        )?;
    }
    setopt(
        fd,
        libc::IP_MULTICAST_TTL,
        &ttl,
        "setsockopt IP_MULTICAST_TTL",
    )
}

/// A reader's socket `fd`, before it binds: joins `group` on the
/// interface. Returns the address to bind to (the group's).
pub fn join(fd: RawFd, group: Ipv4Addr, v6: bool, iface: Option<&str>) -> io::Result<Ipv4Addr> {
    if v6 {
        return Err(refuse("IPv6 not supported for multicast network IO"));
    }
    let request = libc::ip_mreq {
        imr_multiaddr: in_addr(group),
        imr_interface: in_addr(interface(iface)?.unwrap_or(Ipv4Addr::UNSPECIFIED)),
    };
    setopt(
        fd,
        libc::IP_ADD_MEMBERSHIP,
        &request,
        "setsockopt IP_ADD_MEMBERSHIP",
    )?;
    Ok(group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_fios_multicast_range() {
        assert!(group("224.0.0.0").is_some());
        assert!(group("239.255.255.255").is_some());
        assert!(group("240.0.0.1").is_none());
        assert!(group("127.0.0.1").is_none());
        assert!(group("localhost").is_none());
    }

    #[test]
    fn interfaces_must_be_addresses() {
        assert!(interface(Some("lo")).is_err());
        assert_eq!(
            interface(Some("127.0.0.1")).unwrap(),
            Some(Ipv4Addr::LOCALHOST)
        );
        assert_eq!(interface(None).unwrap(), None);
    }
}
