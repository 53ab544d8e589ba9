//! The queue asynchronous operations complete into: librados' and
//! librbd's callbacks record each result and wake the reaping thread.

use std::ffi::{c_int, c_void};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::sys::{RadosApi, RbdApi};
use super::{Apis, CephError, apis, check};

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
}

/// What a completion callback gets as its argument: which token it
/// finishes, and where to put the result.
struct Ticket {
    token: usize,
    shared: Arc<Shared>,
    api: &'static Apis,
}

/// Where asynchronous operations complete: up to `capacity` tokens in
/// flight at once (a job's queue depth), each reaped once.
pub struct CompletionQueue {
    shared: Arc<Shared>,
    /// One per token, at fixed addresses for the queue's life.
    tickets: Box<[Ticket]>,
    /// Set when the caller stopped waiting for operations in flight.
    abandoned: bool,
}

impl CompletionQueue {
    pub fn new(capacity: usize) -> Result<CompletionQueue, CephError> {
        let api = apis()?;
        let shared = Arc::new(Shared {
            state: Mutex::new(QueueState {
                done: Vec::with_capacity(capacity),
                outstanding: 0,
            }),
            finished: Condvar::new(),
        });
        let tickets = (0..capacity)
            .map(|token| Ticket {
                token,
                shared: Arc::clone(&shared),
                api,
            })
            .collect();
        Ok(CompletionQueue {
            shared,
            tickets,
            abandoned: false,
        })
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The callback argument for a token.
    fn ticket(&self, token: usize) -> Result<*mut c_void, CephError> {
        match self.tickets.get(token) {
            Some(ticket) => Ok(std::ptr::from_ref(ticket).cast_mut().cast()),
            None => Err(CephError::Call {
                call: "submit",
                subject: format!("token {token} of a queue of {}", self.tickets.len()),
                errno: libc::EINVAL,
            }),
        }
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
            } else if let Some(d) = deadline {
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

/// How one library makes, reads and frees the completions of its
/// asynchronous operations.
pub(super) trait CompletionCalls: Sized + 'static {
    const CREATE: &'static str;
    fn of(apis: &'static Apis) -> &'static Self;
    /// Makes a completion that calls [`finished`] with `arg`.
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int;
    /// A finished operation's result: a byte count, 0, or a negative errno.
    fn result(&self, completion: *mut c_void) -> i64;
    /// Frees a completion that is finished, or whose operation never
    /// started.
    fn release(&self, completion: *mut c_void);
}

impl CompletionCalls for RbdApi {
    const CREATE: &'static str = "rbd_aio_create_completion";
    fn of(apis: &'static Apis) -> &'static Self {
        &apis.rbd
    }
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int {
        // SAFETY: a valid out pointer; `arg` is a ticket, which outlives
        // the operation (the queue waits for every operation it started).
        unsafe { (self.rbd_aio_create_completion)(arg, finished::<Self>, completion) }
    }
    fn result(&self, completion: *mut c_void) -> i64 {
        // SAFETY: a live completion.
        unsafe { (self.rbd_aio_get_return_value)(completion) as i64 }
    }
    fn release(&self, completion: *mut c_void) {
        // SAFETY: a live completion, released once.
        unsafe { (self.rbd_aio_release)(completion) }
    }
}

impl CompletionCalls for RadosApi {
    const CREATE: &'static str = "rados_aio_create_completion2";
    fn of(apis: &'static Apis) -> &'static Self {
        &apis.rados
    }
    fn create(&self, arg: *mut c_void, completion: &mut *mut c_void) -> c_int {
        // SAFETY: as for librbd's.
        unsafe { (self.rados_aio_create_completion2)(arg, finished::<Self>, completion) }
    }
    fn result(&self, completion: *mut c_void) -> i64 {
        // SAFETY: a live completion.
        i64::from(unsafe { (self.rados_aio_get_return_value)(completion) })
    }
    fn release(&self, completion: *mut c_void) {
        // SAFETY: a live completion, released once.
        unsafe { (self.rados_aio_release)(completion) }
    }
}

impl CompletionQueue {
    /// Starts one operation for `token`: makes its completion, counts it
    /// in flight, and lets `start` hand it to the library, which returns
    /// its code and the call's name; a refused operation is uncounted and
    /// its completion freed.
    pub(super) fn launch<L: CompletionCalls>(
        &self,
        library: &L,
        token: usize,
        subject: &str,
        start: impl FnOnce(*mut c_void) -> (c_int, &'static str),
    ) -> Result<(), CephError> {
        let ticket = self.ticket(token)?;
        let mut completion: *mut c_void = std::ptr::null_mut();
        let made = library.create(ticket, &mut completion);
        check(made.into(), L::CREATE, subject)?;
        self.lock().outstanding += 1;
        let (r, call) = start(completion);
        if r < 0 {
            self.lock().outstanding -= 1;
            library.release(completion);
        }
        check(r.into(), call, subject)
    }
}

impl Drop for CompletionQueue {
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

impl Ticket {
    /// Records a result and wakes the reaper. The ticket is read before
    /// the operation counts as finished, never after: once it does, the
    /// queue may go.
    fn finish(&self, result: i64) {
        let shared = Arc::clone(&self.shared);
        let token = self.token;
        let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.done.push(Finished { token, result });
        state.outstanding -= 1;
        shared.finished.notify_all();
    }
}

/// The completion callback of both libraries: records the operation's
/// result and frees its completion.
unsafe extern "C" fn finished<L: CompletionCalls>(completion: *mut c_void, arg: *mut c_void) {
    // SAFETY: `arg` is the ticket given when the completion was made,
    // alive until `finish` counts this operation as done.
    let ticket = unsafe { &*arg.cast::<Ticket>() };
    let library = L::of(ticket.api);
    let result = library.result(completion);
    // The completion is finished and released once, here: each library
    // holds a reference of its own while the callback runs.
    library.release(completion);
    ticket.finish(result);
}
