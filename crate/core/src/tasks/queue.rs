//! The tasks under way, each with its own chat, tab, cancel token and approvals, and those waiting
//! for a place: the user's limit (`Settings::task_limit`) says how many run at once.

use crate::agent::{HandOver, LiveLimits, Review};
use crate::cancel::CancelToken;
use futures::channel::oneshot;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// The user, answering one task's approval requests through the panel; each request waits on a
/// channel that the panel's `approve` (or `review`) message for that task completes.
#[derive(Default)]
pub struct PanelUser {
    pending: RefCell<HashMap<u32, oneshot::Sender<Review>>>,
    /// The hand-overs waiting for the user (answered by the panel's `hand_over` message).
    handing: RefCell<HashMap<u32, oneshot::Sender<HandOver>>>,
}

impl PanelUser {
    pub fn answer(&self, id: u32, decision: Review) {
        if let Some(sender) = self.pending.borrow_mut().remove(&id) {
            let _ = sender.send(decision);
        }
    }

    pub async fn ask(&self, id: u32) -> Option<Review> {
        let (sender, receiver) = oneshot::channel();
        self.pending.borrow_mut().insert(id, sender);
        receiver.await.ok()
    }

    pub fn is_asking(&self, id: u32) -> bool {
        self.pending.borrow().contains_key(&id) || self.handing.borrow().contains_key(&id)
    }

    pub fn answer_hand_over(&self, id: u32, answer: HandOver) {
        if let Some(sender) = self.handing.borrow_mut().remove(&id) {
            let _ = sender.send(answer);
        }
    }

    /// Waits for the user to continue or stop after hand-over `id`; `None` when it is withdrawn.
    pub async fn hand_over(&self, id: u32) -> Option<HandOver> {
        let (sender, receiver) = oneshot::channel();
        self.handing.borrow_mut().insert(id, sender);
        receiver.await.ok()
    }

    /// Withdraws every question (an answer no one waits for any more counts as a refusal).
    pub fn withdraw(&self, id: Option<u32>) {
        match id {
            Some(id) => {
                drop(self.pending.borrow_mut().remove(&id));
                drop(self.handing.borrow_mut().remove(&id));
            }
            None => {
                self.pending.borrow_mut().clear();
                self.handing.borrow_mut().clear();
            }
        }
    }
}

/// Who asked for a task besides the panel.
#[derive(Clone, Copy, PartialEq)]
pub enum Asker {
    Panel,
    /// An AI app's `run_task` call (its MCP request id).
    AppTask(u64),
    /// The session an AI app drives with the primitives.
    AppSession,
}

/// A task under way.
pub struct Task {
    pub chat: String,
    pub cancel: CancelToken,
    pub user: PanelUser,
    /// The tab it works in, which no other task starts in while it runs.
    pub tab: Cell<Option<i32>>,
    pub asker: Asker,
    /// What limits it, which the settings the user saves replace at once.
    pub limits: Rc<LiveLimits>,
}

/// A task waiting for a place, with what starts it.
pub struct Waiting<J> {
    pub chat: String,
    pub task: String,
    pub job: J,
}

pub struct Tasks<J> {
    running: RefCell<Vec<Rc<Task>>>,
    waiting: RefCell<VecDeque<Waiting<J>>>,
}

impl<J> Default for Tasks<J> {
    fn default() -> Self {
        Tasks { running: RefCell::default(), waiting: RefCell::default() }
    }
}

impl<J> Tasks<J> {
    /// Registers a task as running.
    pub fn run(&self, chat: String, asker: Asker) -> Rc<Task> {
        let task = Rc::new(Task {
            chat,
            cancel: CancelToken::new(),
            user: PanelUser::default(),
            tab: Cell::new(None),
            asker,
            limits: Rc::default(),
        });
        self.running.borrow_mut().push(Rc::clone(&task));
        task
    }

    pub fn end(&self, chat: &str) {
        self.running.borrow_mut().retain(|task| task.chat != chat);
    }

    pub fn running_count(&self) -> usize {
        self.running.borrow().len()
    }

    /// The running task of chat `chat`, or every running task when `chat` is `None`.
    pub fn select(&self, chat: Option<&str>) -> Vec<Rc<Task>> {
        self.running.borrow().iter().filter(|task| chat.is_none_or(|chat| task.chat == chat)).cloned().collect()
    }

    pub fn find(&self, matches: impl Fn(&Task) -> bool) -> Option<Rc<Task>> {
        self.running.borrow().iter().find(|task| matches(task)).cloned()
    }

    /// Whether chat `chat` has a task running or waiting.
    pub fn is_busy(&self, chat: &str) -> bool {
        self.select(Some(chat)).len() + self.waiting.borrow().iter().filter(|w| w.chat == chat).count() > 0
    }

    /// The chat whose running task works in `tab`, other than `except`.
    pub fn owner_of(&self, tab: i32, except: &str) -> Option<String> {
        self.find(|task| task.tab.get() == Some(tab) && task.chat != except).map(|task| task.chat.clone())
    }

    /// Puts a task in line; answers its place (1 is next).
    pub fn wait(&self, waiting: Waiting<J>) -> u32 {
        let mut line = self.waiting.borrow_mut();
        line.push_back(waiting);
        line.len() as u32
    }

    /// The next task in line, if any.
    pub fn next_waiting(&self) -> Option<Waiting<J>> {
        self.waiting.borrow_mut().pop_front()
    }

    /// Takes the waiting tasks of chat `chat` (every one when `None`) out of line.
    pub fn leave_line(&self, chat: Option<&str>) -> Vec<Waiting<J>> {
        let mut line = self.waiting.borrow_mut();
        let (leaving, staying) = line.drain(..).partition(|w| chat.is_none_or(|chat| w.chat == chat));
        *line = staying;
        leaving.into()
    }

    /// The waiting tasks' chats and tasks, in line order.
    pub fn line(&self) -> Vec<(String, String)> {
        self.waiting.borrow().iter().map(|w| (w.chat.clone(), w.task.clone())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(chat: &str) -> Waiting<()> {
        Waiting { chat: chat.into(), task: format!("task of {chat}"), job: () }
    }

    #[test]
    fn tasks_run_wait_in_line_and_leave_it() {
        let tasks = Tasks::<()>::default();
        let first = tasks.run("a".into(), Asker::Panel);
        first.tab.set(Some(7));
        tasks.run("b".into(), Asker::AppTask(3));
        assert_eq!(tasks.running_count(), 2);
        assert_eq!(tasks.owner_of(7, "b").as_deref(), Some("a"));
        assert_eq!(tasks.owner_of(7, "a"), None);
        assert_eq!(tasks.select(None).len(), 2);
        assert_eq!(tasks.select(Some("b")).len(), 1);
        assert_eq!(tasks.wait(waiting("c")), 1);
        assert_eq!(tasks.wait(waiting("d")), 2);
        assert!(tasks.is_busy("a") && tasks.is_busy("d") && !tasks.is_busy("e"));
        assert_eq!(tasks.leave_line(Some("c")).len(), 1);
        assert_eq!(tasks.line(), [("d".to_string(), "task of d".to_string())]);
        tasks.end("a");
        assert_eq!(tasks.next_waiting().map(|w| w.chat).as_deref(), Some("d"));
        assert!(tasks.next_waiting().is_none());
        assert!(!tasks.is_busy("a"));
    }
}
