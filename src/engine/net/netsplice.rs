//! netsplice's data path: TCP data moved between the user's buffer and
//! the socket through a pipe, with vmsplice(2) and splice(2).

use std::os::fd::{AsRawFd, RawFd};

use super::Net;
use super::socket::{last, neg, retry};

impl Net {
    pub(super) fn splice_out(&mut self, fd: RawFd, buf: &[u8]) -> i64 {
        let Some((out, inn)) = &self.pipe else {
            return -i64::from(libc::EINVAL);
        };
        let (out, inn) = (out.as_raw_fd(), inn.as_raw_fd());
        let mut done = 0;
        while done < buf.len() {
            let mut n = match crate::engine::splice::user_to_pipe(inn, &buf[done..]) {
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

    pub(super) fn splice_in(&mut self, fd: RawFd, buf: &mut [u8]) -> i64 {
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
            if let Err(e) = crate::engine::splice::pipe_to_user(out, &mut buf[done..done + n]) {
                return e;
            }
            done += n;
        }
        if done == 0 {
            self.ended = true;
        }
        done as i64
    }
}
