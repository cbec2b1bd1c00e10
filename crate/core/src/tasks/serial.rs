//! The worker's storage operations, one at a time in the order they were asked for: a chat saved
//! twice keeps the later copy, and a task's last checkpoint cannot land after the task's record
//! was cleared (which would resume a finished task after a restart).

use super::host::Host;
use futures::channel::oneshot;
use futures::future::{FutureExt, LocalBoxFuture, Shared};
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

pub struct Serial<H> {
    host: Rc<H>,
    /// The last operation asked for: each waits for the one before.
    tail: RefCell<Shared<LocalBoxFuture<'static, ()>>>,
}

impl<H: Host> Serial<H> {
    pub fn new(host: Rc<H>) -> Rc<Serial<H>> {
        Rc::new(Serial { host, tail: RefCell::new(futures::future::ready(()).boxed_local().shared()) })
    }

    /// Runs `op` once every operation asked for before it is done (it runs even if the returned
    /// future is dropped).
    pub fn run<T: 'static>(&self, op: impl Future<Output = T> + 'static) -> impl Future<Output = Option<T>> {
        let (sender, receiver) = oneshot::channel();
        let before = self.tail.borrow().clone();
        let next = async move {
            before.await;
            let _ = sender.send(op.await);
        }
        .boxed_local()
        .shared();
        *self.tail.borrow_mut() = next.clone();
        self.host.spawn(next.boxed_local());
        receiver.map(Result::ok)
    }
}
