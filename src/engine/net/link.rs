//! fio's UDP link protocol: the control messages that open and close a
//! datagram link, and the sequence trailer from which a reader counts the
//! messages it missed.

use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, RawFd};

use super::Net;
use super::socket::{RawAddr, context, last, retry};

/// fio's control-message magic and commands.
const LINK_MAGIC: u32 = 0x6c69_6e6b;
const LINK_OPEN: u32 = 0x98;
pub(super) const LINK_CLOSE: u32 = 0x89;
/// The magic of the sequence trailer on UDP messages.
const SEQ_MAGIC: u64 = 0x6573_7571_6e55_6563;
/// The trailer: magic, message size, sequence number.
const SEQ_LEN: usize = 24;

impl Net {
    /// One of fio's link control messages, in its byte order (network
    /// order for open, little-endian for close).
    pub(super) fn control(cmd: u32) -> [u8; 8] {
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

    /// Writes the sequence trailer into the end of an outgoing datagram
    /// large enough to carry it.
    pub(super) fn stamp_seq(&mut self, buf: &mut [u8]) {
        if self.o.proto.udp() && buf.len() >= SEQ_LEN {
            let (t, len) = (buf.len() - SEQ_LEN, buf.len() as u64);
            buf[t..t + 8].copy_from_slice(&SEQ_MAGIC.to_le_bytes());
            buf[t + 8..t + 16].copy_from_slice(&len.to_le_bytes());
            buf[t + 16..].copy_from_slice(&self.send_seq.to_le_bytes());
            self.send_seq += 1;
        }
    }

    /// Counts datagrams missed, by the trailer fio's senders add.
    pub(super) fn check_seq(&mut self, msg: &[u8]) {
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

    /// Opens a datagram link as fio does: the sender sends the open
    /// message; the reader waits for it and keeps the sender's address
    /// for replies.
    pub(super) fn open_link(&mut self, raw: RawFd) -> io::Result<()> {
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
        Ok(())
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
