//! The queue a C library's asynchronous operations complete into: the
//! library calls back on its own threads with a [`ticket`]
//! (CallbackQueue::ticket) as the callback's argument, [`finish`] records
//! the result and wakes the thread reaping, which waits on a condition
//! variable: nothing polls or sleeps. A callback wakes a sleeper only
//! once what it waits for is there: a condition variable's notify is a
//! system call on the library's thread even when nobody waits, and a
//! reaper woken short of its minimum only goes back to sleep. librados',
//! librbd's and libgfapi's callbacks all report here.

use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// A finished asynchronous operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finished {
    pub token: usize,
    /// What the library returned: a byte count, 0, or a negative errno.
    pub result: i64,
}

impl Finished {
    /// The result fio reports for this I/O: an error as returned, any
    /// other return as the whole transfer of `lens[token]` bytes (librbd
    /// returns 0 for writes, librados a short count past an object's end).
    pub fn transferred(&self, lens: &[i64]) -> i64 {
        if self.result < 0 {
            self.result
        } else {
            lens.get(self.token).copied().unwrap_or(0)
        }
    }
}

/// What completion callbacks and the reaping thread share.
struct Shared {
    state: Mutex<QueueState>,
    /// Signalled whenever an operation finishes.
    finished: Condvar,
}

struct QueueState {
    /// Results not yet reaped; room for one per token is reserved, so
    /// callbacks never allocate.
    done: Vec<Finished>,
    /// Operations started whose callback has not run yet.
    outstanding: usize,
    /// How many finished results the reaper sleeps until (0: it is not
    /// sleeping in a reap).
    reaper_wants: usize,
}

impl QueueState {
    /// Whether a thread asleep on the queue may now have what it waits
    /// for: the reaper its minimum, or [`CallbackQueue::wait_idle`] an
    /// empty queue (which happens once per drain, so it needs no flag).
    fn someone_satisfied(&self) -> bool {
        (self.reaper_wants > 0 && self.done.len() >= self.reaper_wants) || self.outstanding == 0
    }
}

/// What a completion callback gets as its argument: which token it
/// finishes, and where to put the result.
struct Ticket {
    token: usize,
    shared: Arc<Shared>,
}

/// Where asynchronous operations complete: up to `capacity` tokens in
/// flight at once (a job's queue depth), each reaped once.
pub struct CallbackQueue {
    shared: Arc<Shared>,
    /// One per token, at fixed addresses for the queue's life.
    tickets: Box<[Ticket]>,
    /// Set when the caller stopped waiting for operations in flight.
    abandoned: bool,
}

impl CallbackQueue {
    pub fn new(capacity: usize) -> CallbackQueue {
        let shared = Arc::new(Shared {
            state: Mutex::new(QueueState {
                done: Vec::with_capacity(capacity),
                outstanding: 0,
                reaper_wants: 0,
            }),
            finished: Condvar::new(),
        });
        let tickets = (0..capacity)
            .map(|token| Ticket {
                token,
                shared: Arc::clone(&shared),
            })
            .collect();
        CallbackQueue {
            shared,
            tickets,
            abandoned: false,
        }
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// How many tokens it has room for.
    pub fn capacity(&self) -> usize {
        self.tickets.len()
    }

    /// The callback argument for a token, to hand to [`finish`] when the
    /// operation ends; `None` past the queue's capacity. Call
    /// [`started`](Self::started) before the library may call back.
    pub fn ticket(&self, token: usize) -> Option<*mut c_void> {
        self.tickets
            .get(token)
            .map(|ticket| std::ptr::from_ref(ticket).cast_mut().cast())
    }

    /// Counts an operation in flight, before it is handed to the library.
    pub fn started(&self) {
        self.lock().outstanding += 1;
    }

    /// Uncounts an operation the library refused (its callback never
    /// runs).
    pub fn refused(&self) {
        self.lock().outstanding -= 1;
    }

    /// Waits until every started operation has finished (its result
    /// stays to be reaped).
    pub fn wait_idle(&self) {
        let mut state = self.lock();
        while state.outstanding > 0 {
            state = self
                .shared
                .finished
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Operations started and not reaped yet.
    pub fn in_flight(&self) -> usize {
        let state = self.lock();
        state.outstanding + state.done.len()
    }

    /// Waits until at least `min` operations have finished (spinning
    /// rather than sleeping when `busy_poll`), then moves up to `max`
    /// finished ones into `out`. With a `deadline`, it stops waiting
    /// there: `Err` holds how many operations were still in flight (what
    /// had finished is moved into `out` all the same).
    pub fn reap(
        &self,
        min: usize,
        max: usize,
        busy_poll: bool,
        deadline: Option<Instant>,
        out: &mut Vec<Finished>,
    ) -> Result<(), usize> {
        let mut state = self.lock();
        let mut late = false;
        while state.done.len() < min {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                late = true;
                break;
            }
            if busy_poll {
                drop(state);
                std::hint::spin_loop();
                state = self.lock();
                continue;
            }
            state.reaper_wants = min;
            if let Some(d) = deadline {
                let wait = d.saturating_duration_since(Instant::now());
                state = self
                    .shared
                    .finished
                    .wait_timeout(state, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            } else {
                state = self
                    .shared
                    .finished
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        }
        state.reaper_wants = 0;
        let take = state.done.len().min(max);
        out.extend(state.done.drain(..take));
        if late {
            return Err(state.outstanding);
        }
        Ok(())
    }

    /// Gives up on the operations in flight: the queue no longer waits
    /// for them when dropped, and its tickets (which their callbacks will
    /// still read) stay allocated for the rest of the process.
    pub fn abandon(&mut self) {
        self.abandoned = true;
    }

    /// Whether [`abandon`](Self::abandon) was called.
    pub fn abandoned(&self) -> bool {
        self.abandoned
    }
}

impl Drop for CallbackQueue {
    /// Waits for every started operation's callback, which reads its
    /// ticket, before the tickets go.
    /// An abandoned queue leaks its tickets instead: a late callback
    /// must still find its ticket.
    fn drop(&mut self) {
        if self.abandoned {
            std::mem::forget(std::mem::take(&mut self.tickets));
            return;
        }
        self.wait_idle();
    }
}

/// Records an operation's result and wakes the reaper: what a completion
/// callback calls. The ticket is read before the operation counts as
/// finished, never after: once it does, the queue may go.
///
/// # Safety
///
/// `ticket` must be what [`CallbackQueue::ticket`] gave for an operation
/// counted [started](CallbackQueue::started) and not yet finished, each
/// operation finished once.
pub unsafe fn finish(ticket: *mut c_void, result: i64) {
    // SAFETY: the caller's contract: a live ticket of a started
    // operation, which keeps its queue's tickets allocated until then.
    let ticket = unsafe { &*ticket.cast::<Ticket>() };
    let shared = Arc::clone(&ticket.shared);
    let token = ticket.token;
    let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
    state.done.push(Finished { token, result });
    state.outstanding -= 1;
    if state.someone_satisfied() {
        // The reaper and a thread waiting for idle may both be asleep.
        shared.finished.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_finished_on_another_thread_is_reaped_once() {
        let queue = CallbackQueue::new(2);
        let ticket = queue.ticket(1).unwrap() as usize;
        queue.started();
        std::thread::spawn(move || {
            // SAFETY: the ticket of the operation just started.
            unsafe { finish(ticket as *mut c_void, 4096) }
        });
        let mut out = Vec::new();
        queue.reap(1, 8, false, None, &mut out).unwrap();
        assert_eq!(
            out,
            vec![Finished {
                token: 1,
                result: 4096
            }]
        );
        assert_eq!(queue.in_flight(), 0);
        assert!(queue.ticket(2).is_none());
    }

    #[test]
    fn a_reaper_waiting_for_several_wakes_with_one_still_out_and_idle_waits_end() {
        let mut queue = CallbackQueue::new(4);
        let tickets: Vec<usize> = (0..4).map(|t| queue.ticket(t).unwrap() as usize).collect();
        for _ in 0..4 {
            queue.started();
        }
        let finish_later = |ticket: usize| {
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(5));
                // SAFETY: the ticket of an operation started above.
                unsafe { finish(ticket as *mut c_void, 1) }
            })
        };
        let first: Vec<_> = tickets[..3].iter().map(|&t| finish_later(t)).collect();
        let mut out = Vec::new();
        // The fourth operation is still out, so only the reaper's own
        // minimum can wake it: without that wake the reap sleeps to its
        // deadline (30 s against the finishers' 5 ms), and the test fails
        // there rather than hanging.
        let later = Instant::now() + std::time::Duration::from_secs(30);
        queue.reap(3, 4, false, Some(later), &mut out).unwrap();
        let woke = Instant::now() < later;
        if !woke {
            // The fourth operation never finishes then: dropping the
            // queue must not wait for it.
            queue.abandon();
        }
        assert!(woke, "the third completion never woke the reaper");
        assert_eq!(out.len(), 3);
        let last = finish_later(tickets[3]);
        queue.wait_idle();
        queue.reap(1, 4, false, None, &mut out).unwrap();
        assert_eq!(out.len(), 4);
        first
            .into_iter()
            .chain([last])
            .for_each(|f| f.join().unwrap());
    }

    #[test]
    fn a_deadline_ends_the_wait_with_what_is_still_out() {
        let queue = CallbackQueue::new(1);
        queue.started();
        let mut out = Vec::new();
        let late = queue.reap(1, 1, false, Some(Instant::now()), &mut out);
        assert_eq!(late, Err(1));
        queue.refused();
    }
}
