//! Stopping and pausing a running task: noticed between steps and actions, and while waiting for
//! the model (whose request is then abandoned, and made again on resume).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// Shared between the task and whoever may stop it. Cloning shares the same state.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Rc<Inner>,
}

#[derive(Default)]
struct Inner {
    cancelled: Cell<bool>,
    paused: Cell<bool>,
    wakers: RefCell<Vec<Waker>>,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.inner.cancelled.set(true);
        self.wake();
    }

    pub fn pause(&self) {
        self.inner.paused.set(true);
        self.wake();
    }

    pub fn resume(&self) {
        self.inner.paused.set(false);
        self.wake();
    }

    pub fn is_paused(&self) -> bool {
        self.inner.paused.get() && !self.is_cancelled()
    }

    fn wake(&self) {
        for waker in self.inner.wakers.borrow_mut().drain(..) {
            waker.wake();
        }
    }

    /// Resolves when the task is stopped or paused.
    pub fn interrupted(&self) -> Until {
        Until { token: self.clone(), done: |token| token.is_cancelled() || token.is_paused() }
    }

    /// Resolves when the task is resumed or stopped.
    pub fn resumed(&self) -> Until {
        Until { token: self.clone(), done: |token| !token.is_paused() }
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.get()
    }

    /// Resolves once [`cancel`](Self::cancel) has been called.
    pub fn cancelled(&self) -> Cancelled {
        Cancelled { token: self.clone() }
    }

    /// Runs `work` unless cancelled first; `None` means cancelled.
    pub async fn guard<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        use futures::future::{select, Either};
        let work = std::pin::pin!(work);
        match select(work, self.cancelled()).await {
            Either::Left((value, _)) => Some(value),
            Either::Right(_) => None,
        }
    }
}

pub struct Cancelled {
    token: CancelToken,
}

/// Resolves once `done` holds for the token.
pub struct Until {
    token: CancelToken,
    done: fn(&CancelToken) -> bool,
}

impl Future for Until {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if (self.done)(&self.token) {
            Poll::Ready(())
        } else {
            self.token.inner.wakers.borrow_mut().push(cx.waker().clone());
            Poll::Pending
        }
    }
}

impl Future for Cancelled {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.token.is_cancelled() {
            Poll::Ready(())
        } else {
            self.token.inner.wakers.borrow_mut().push(cx.waker().clone());
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_returns_none_when_cancelled_during_work() {
        let token = CancelToken::new();
        let pending_forever = futures::future::pending::<u32>();
        let canceller = token.clone();
        let result = futures::executor::block_on(async {
            let guarded = token.guard(pending_forever);
            let cancel_soon = async {
                canceller.cancel();
            };
            futures::join!(guarded, cancel_soon).0
        });
        assert_eq!(result, None);
    }

    #[test]
    fn guard_returns_the_value_when_not_cancelled() {
        let token = CancelToken::new();
        assert_eq!(futures::executor::block_on(token.guard(async { 5 })), Some(5));
    }
}
