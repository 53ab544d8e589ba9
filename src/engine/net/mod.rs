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

mod link;
mod listener;
mod netsplice;
mod options;
mod socket;

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;

pub use listener::prebind;
pub use options::{NetOptions, Proto};

use super::api::{Dir, Engine, OpenMode, Queued, Request};
use link::LINK_CLOSE;
use socket::{RawAddr, context, last, neg, patient, peer, retry, setopt, socket, tune};

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
            Some(listener::listener_for(&o)?)
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

    /// The connection a sender job's file is: a socket connected to its
    /// peer (UDP: one that sends to the peer's address).
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
        self.stamp_seq(buf);
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
            self.open_link(raw)?;
        }
        Ok(0)
    }

    unsafe fn queue(&mut self, req: Request<'_>) -> Queued {
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

    no_file_data!();

    fn ended(&self) -> bool {
        self.ended
    }

    fn dropped(&self) -> u64 {
        self.dropped
    }
}
