//! The endpoint's HTTP side: one poll(2) loop over the non-blocking
//! listener and every client socket, so that no client can hold up
//! another. A client that trickles its request, or opens a connection and
//! says nothing, only holds its own slot, and only until its deadline;
//! the slots are bounded, the oldest client giving way to a new one. The
//! loop wakes at least every [`TICK_MS`] to see whether the run is over,
//! then answers what it holds for at most [`DRAIN`], so the endpoint
//! never holds the run's end for longer than those two.

use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{Sources, exposition};

/// Clients served at once; a client accepted beyond them drops the oldest.
const MAX_CLIENTS: usize = 64;

/// The whole request and response of a client, from its accept: a
/// Prometheus scrape takes milliseconds, so a client still there after
/// this is stalled or hostile.
const DEADLINE: Duration = Duration::from_secs(2);

/// The longest the loop sleeps before it looks at the run's end again.
const TICK_MS: i32 = 20;

/// How long, once the run is over, the endpoint goes on answering the
/// clients it already holds or that wait in the listener's backlog: a
/// scrape that reached the kernel before the end gets the final counters
/// instead of a reset connection.
const DRAIN: Duration = Duration::from_millis(100);

/// The most of a request's head read; past it the request line is taken
/// from what came.
const MAX_HEAD: usize = 16 << 10;

/// One connection: its request as read so far, then its response as sent
/// so far.
struct Client {
    stream: TcpStream,
    accepted: Instant,
    head: Vec<u8>,
    /// Empty while the request is still coming.
    reply: Vec<u8>,
    sent: usize,
}

/// Whether a client stays for the next turn of the loop.
#[derive(PartialEq)]
enum Next {
    Stay,
    Close,
}

/// Answers scrapes until `done` is set (the run is over), then returns
/// within [`TICK_MS`] plus [`DRAIN`], whatever the clients are doing.
pub fn serve(listener: TcpListener, from: &Sources<'_>, done: &AtomicBool) {
    let mut clients: VecDeque<Client> = VecDeque::with_capacity(MAX_CLIENTS);
    let mut fds: Vec<libc::pollfd> = Vec::with_capacity(MAX_CLIENTS + 1);
    while !done.load(Ordering::Relaxed) {
        fds.clear();
        fds.push(pollfd(&listener, libc::POLLIN));
        fds.extend(clients.iter().map(|c| pollfd(&c.stream, c.wants())));
        // SAFETY: `fds` is a live, initialised array of `fds.len()`
        // pollfds, which poll only reads and writes within.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, TICK_MS) };
        if ready < 0 {
            // EINTR from a signal meant for the run; anything else is
            // not expected of poll on valid sockets, but must not spin.
            if std::io::Error::last_os_error().kind() != ErrorKind::Interrupted {
                std::thread::sleep(Duration::from_millis(TICK_MS as u64));
            }
            continue;
        }
        let now = Instant::now();
        let mut slot = 0;
        clients.retain_mut(|c| {
            slot += 1;
            let moved = fds[slot].revents != 0 && c.turn(from) == Next::Close;
            !moved && now.duration_since(c.accepted) < DEADLINE
        });
        if fds[0].revents != 0 {
            accept_all(&listener, &mut clients, now);
        }
    }
    drain(&listener, clients, from);
}

/// Answers, for at most [`DRAIN`], the clients held and those waiting to
/// be accepted; whoever has not finished by then is closed.
fn drain(listener: &TcpListener, mut clients: VecDeque<Client>, from: &Sources<'_>) {
    let end = Instant::now() + DRAIN;
    accept_all(listener, &mut clients, Instant::now());
    let mut fds: Vec<libc::pollfd> = Vec::with_capacity(clients.len());
    while !clients.is_empty() {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        fds.clear();
        fds.extend(clients.iter().map(|c| pollfd(&c.stream, c.wants())));
        // SAFETY: as in `serve`, a live array of `fds.len()` pollfds.
        let ready = unsafe {
            libc::poll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                left.as_millis().max(1) as i32,
            )
        };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        let mut slot = 0;
        clients.retain_mut(|c| {
            slot += 1;
            fds[slot - 1].revents == 0 || c.turn(from) == Next::Stay
        });
    }
}

fn pollfd(socket: &impl AsRawFd, events: libc::c_short) -> libc::pollfd {
    libc::pollfd {
        fd: socket.as_raw_fd(),
        events,
        revents: 0,
    }
}

/// Takes every connection waiting on the listener, each non-blocking,
/// dropping the oldest clients to make room.
fn accept_all(listener: &TcpListener, clients: &mut VecDeque<Client>, now: Instant) {
    while let Ok((stream, _)) = listener.accept() {
        if stream.set_nonblocking(true).is_err() {
            continue;
        }
        if clients.len() == MAX_CLIENTS {
            clients.pop_front();
        }
        clients.push_back(Client {
            stream,
            accepted: now,
            head: Vec::new(),
            reply: Vec::new(),
            sent: 0,
        });
    }
}

impl Client {
    /// What the client waits on: its request to come, then its socket to
    /// take the response.
    fn wants(&self) -> libc::c_short {
        if self.reply.is_empty() {
            libc::POLLIN
        } else {
            libc::POLLOUT
        }
    }

    /// Reads what has come of the request and, once it is whole, sends
    /// what the socket takes of the response.
    fn turn(&mut self, from: &Sources<'_>) -> Next {
        if self.reply.is_empty() {
            if self.read(from) == Next::Close {
                return Next::Close;
            }
            if self.reply.is_empty() {
                return Next::Stay;
            }
        }
        self.send()
    }

    /// Reads until the socket has no more; the response is made once the
    /// head is whole, the client has finished sending, or the head is too
    /// long to wait for.
    fn read(&mut self, from: &Sources<'_>) -> Next {
        let mut buf = [0u8; 1024];
        loop {
            match self.stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    self.head.extend_from_slice(&buf[..n]);
                    if self.head.len() > MAX_HEAD || whole(&self.head) {
                        break;
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Next::Stay,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return Next::Close,
            }
        }
        self.reply = respond(&self.head, from);
        Next::Stay
    }

    /// Sends what the socket takes; closes once all is sent.
    fn send(&mut self) -> Next {
        while self.sent < self.reply.len() {
            match self.stream.write(&self.reply[self.sent..]) {
                Ok(0) => return Next::Close,
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Next::Stay,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return Next::Close,
            }
        }
        Next::Close
    }
}

/// Whether a request's head has come to its blank line.
fn whole(head: &[u8]) -> bool {
    head.windows(4).any(|w| w == b"\r\n\r\n")
}

/// The response to one request: GET (or HEAD) of `/metrics` or `/` gets
/// the exposition; any other path 404, any other method 405.
fn respond(head: &[u8], from: &Sources<'_>) -> Vec<u8> {
    let head = String::from_utf8_lossy(head);
    let request = head.lines().next().unwrap_or("");
    let mut words = request.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    let (status, kind, body) = match (method, path) {
        ("GET" | "HEAD", "/metrics" | "/") => (
            "200 OK",
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
            exposition(from),
        ),
        ("GET" | "HEAD", _) => ("404 Not Found", "text/plain", "not found\n".to_string()),
        _ => (
            "405 Method Not Allowed",
            "text/plain",
            "only GET\n".to_string(),
        ),
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if method != "HEAD" {
        response += &body;
    }
    response.into_bytes()
}
