//! The History in the worker: records the current chat's events as they go to the panel, and
//! keeps the stored chats (`agent_core::chats`, in `chrome.storage.local` through the host) one
//! storage operation at a time, in the order they were asked for.

use crate::host::HostBrowser;
use agent_core::agent::AgentEvent;
use agent_core::chats::{self, Chat, ChatIndex, MAX_CHAT_BYTES};
use agent_core::i18n::{Message, Text};
use agent_core::messages::History;
use agent_core::protocol::{encode_chat, encode_chats, encode_event};
use agent_core::text;
use agent_core::tokens::TokenCounter;
use futures::channel::oneshot;
use futures::future::{FutureExt, LocalBoxFuture, Shared};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A chat that is no longer stored.
fn gone() -> Text {
    text!("core_chat_gone")
}

/// Where a task's chat comes from.
pub enum Start<'a> {
    /// A new chat.
    New,
    /// The current chat (after a worker restart: the one it was working on, if stored).
    FollowUp,
    /// A stored chat, reopened from the History.
    Chat(&'a str),
    /// A task resumed after a worker restart: the chat it was recorded in.
    Resume,
}

/// Where an answer to one panel's request goes: that panel's port, or every panel.
pub struct Reply {
    pub to: Option<js_sys::Function>,
    pub browser: Rc<HostBrowser>,
}

impl Reply {
    fn send(&self, message: &Value) {
        match &self.to {
            // A panel that closed meanwhile needs no answer.
            Some(port) => drop(port.call1(&JsValue::NULL, &crate::to_js(message))),
            None => self.browser.emit_value(message),
        }
    }
}

pub struct Chats {
    browser: Rc<HostBrowser>,
    /// The conversation follow-up tasks continue (the core's).
    conversation: Rc<RefCell<History>>,
    /// The chat of the running or last task, which a follow-up continues.
    current: RefCell<Option<Chat>>,
    /// Whether a task of the current chat is under way (from its start to its final event).
    active: Cell<bool>,
    /// The last storage operation asked for: each waits for the one before.
    tail: RefCell<Shared<LocalBoxFuture<'static, ()>>>,
}

impl Chats {
    pub fn new(browser: Rc<HostBrowser>, conversation: Rc<RefCell<History>>) -> Rc<Chats> {
        Rc::new(Chats {
            browser,
            conversation,
            current: RefCell::default(),
            active: Cell::new(false),
            tail: RefCell::new(futures::future::ready(()).boxed_local().shared()),
        })
    }

    /// Runs `op` once every storage operation asked for before it is done (it runs even if the
    /// returned future is dropped).
    fn serial<T: 'static>(&self, op: impl Future<Output = T> + 'static) -> impl Future<Output = Option<T>> {
        let (sender, receiver) = oneshot::channel();
        let before = self.tail.borrow().clone();
        let next = async move {
            before.await;
            let _ = sender.send(op.await);
        }
        .boxed_local()
        .shared();
        *self.tail.borrow_mut() = next.clone();
        wasm_bindgen_futures::spawn_local(next);
        receiver.map(Result::ok)
    }

    fn current_id(&self) -> Option<String> {
        self.current.borrow().as_ref().map(|chat| chat.id.clone())
    }

    /// Sends an event of the running task to the panels, recording it in the current chat.
    pub fn emit(self: &Rc<Self>, event: &AgentEvent) {
        let message = encode_event(event);
        // A started task's chat is listed at once, and saved after every step, so that a worker
        // restart loses none of it (and saved again, whole, when the task ends).
        let save_now =
            matches!(event, AgentEvent::TaskStarted { .. } | AgentEvent::TaskResumed { .. } | AgentEvent::Step { .. });
        if let Some(chat) = self.current.borrow_mut().as_mut() {
            chat.record(message.clone(), js_sys::Date::now());
        }
        self.browser.emit_value(&message);
        if save_now {
            self.save();
        }
    }

    /// Makes the chat a task belongs to the current one, and the conversation the one it continues.
    pub async fn begin(self: &Rc<Self>, task: &str, start: Start<'_>) -> Result<(), Message> {
        let current = self.current_id();
        let continues = match start {
            Start::FollowUp => current.is_some(),
            Start::Chat(id) => current.as_deref() == Some(id),
            _ => false,
        };
        if continues {
            self.active.set(true);
            return Ok(());
        }
        let stored_id = match start {
            Start::New => None,
            Start::Chat(id) => Some(id.to_string()),
            Start::FollowUp | Start::Resume => self.browser.load_current_chat().await,
        };
        let stored = match stored_id {
            Some(id) => {
                let browser = Rc::clone(&self.browser);
                let loaded = self.serial(async move { browser.load_chat(&id).await }).await.unwrap_or(Ok(None));
                match (loaded, &start) {
                    (Ok(Some(chat)), _) => Some(chat),
                    (Ok(None), Start::Chat(_)) => return Err(gone().into()),
                    (Err(problem), Start::Chat(_)) => return Err(text!("core_chat_unreadable", problem).into()),
                    _ => None,
                }
            }
            None => None,
        };
        let now = js_sys::Date::now();
        let conversation = match &stored {
            Some(chat) if !matches!(start, Start::Resume) && !chat.conversation.is_null() => {
                History::from_json(&chat.conversation, &TokenCounter::estimate())?
            }
            _ => History::default(),
        };
        *self.conversation.borrow_mut() = conversation;
        let chat = stored.unwrap_or_else(|| {
            Chat::new(chats::new_id(now, (js_sys::Math::random() * f64::from(u32::MAX)) as u32), task, now)
        });
        let id = chat.id.clone();
        *self.current.borrow_mut() = Some(chat);
        self.active.set(true);
        self.browser.save_current_chat(Some(&id)).await;
        Ok(())
    }

    /// The task is over: its conversation joins the chat, which is saved.
    pub fn finish(self: &Rc<Self>) {
        self.active.set(false);
        if let Some(chat) = self.current.borrow_mut().as_mut() {
            chat.conversation = self.conversation.borrow().to_json();
        }
        self.save();
    }

    /// Saves the current chat, if a task of it started (bounded, as every stored chat is).
    fn save(self: &Rc<Self>) {
        let snapshot = {
            let mut current = self.current.borrow_mut();
            match current.as_mut() {
                Some(chat) if chat.has_task() => {
                    chat.cap(MAX_CHAT_BYTES);
                    chat.clone()
                }
                _ => return,
            }
        };
        let this = Rc::clone(self);
        drop(self.serial(async move {
            if let Err(problem) = store(&this.browser, snapshot).await {
                let message = text!("core_warning_chat_not_saved", problem).into();
                this.browser.emit(&AgentEvent::Warning { message });
            }
        }));
    }

    /// Stores a chat as a task would have (for tests and the benchmark), bounds included.
    pub fn store(&self, chat: Chat) -> impl Future<Output = Result<(), String>> {
        let browser = Rc::clone(&self.browser);
        self.serial(async move { store(&browser, chat).await }).map(|done| done.unwrap_or(Ok(())))
    }

    /// Answers `list_chats`.
    pub fn list(self: &Rc<Self>, reply: Reply) {
        self.answer_with_list(reply, |_| None);
    }

    /// Answers `open_chat` with the chat, or with the list saying why it cannot be opened.
    pub fn open(self: &Rc<Self>, id: String, reply: Reply) {
        let this = Rc::clone(self);
        let browser = Rc::clone(&self.browser);
        wasm_bindgen_futures::spawn_local(async move {
            let loaded = this.serial(async move { browser.load_chat(&id).await }).await.unwrap_or(Ok(None));
            match loaded {
                Ok(Some(chat)) => reply.send(&encode_chat(&chat)),
                Ok(None) => this.answer_with_list(reply, |_| Some(gone().english())),
                Err(problem) => {
                    this.answer_with_list(reply, move |_| Some(format!("The chat could not be read: {problem}.")))
                }
            }
        });
    }

    /// Answers `delete_chat`: the chat is deleted unless its task is running.
    pub fn delete(self: &Rc<Self>, id: String, reply: Reply) {
        self.answer_with_list(reply, move |index| {
            if index.running && index.current.as_deref() == Some(&id) {
                return Some("This chat's task is running: stop it before deleting the chat.".into());
            }
            index.forget_current_if(|current| current == id);
            index.remove.push(id.clone());
            None
        });
    }

    /// Answers `clear_chats`: every chat is deleted but the running one.
    pub fn clear(self: &Rc<Self>, reply: Reply) {
        self.answer_with_list(reply, |index| {
            let keep = index.current.clone().filter(|_| index.running);
            index.remove = index.stored.ids().into_iter().filter(|id| Some(id) != keep.as_ref()).collect();
            if keep.is_none() {
                index.forget_current_if(|_| true);
            }
            None
        });
    }

    /// Reads the index, lets `change` decide what to remove (and what to tell the panel), removes
    /// it, and answers with the list.
    fn answer_with_list(self: &Rc<Self>, reply: Reply, change: impl FnOnce(&mut Listing) -> Option<String> + 'static) {
        let this = Rc::clone(self);
        let work = self.serial(async move {
            let (stored, mut message) = match this.browser.load_chat_index().await {
                Ok(index) => (index, None),
                Err(problem) => (ChatIndex::default(), Some(format!("The History could not be read: {problem}."))),
            };
            let mut listing = Listing {
                stored,
                current: this.current_id(),
                running: this.active.get(),
                remove: Vec::new(),
                forget: false,
            };
            if message.is_none() {
                message = change(&mut listing);
            }
            if listing.forget {
                this.current.borrow_mut().take();
                this.conversation.borrow_mut().clear();
                listing.current = None;
                this.browser.save_current_chat(None).await;
            }
            if !listing.remove.is_empty() {
                for id in &listing.remove {
                    listing.stored.remove(id);
                }
                if let Err(problem) = this.browser.save_chats(&listing.stored, None, &listing.remove).await {
                    message = Some(format!("The History could not be changed: {problem}."));
                    listing.stored = this.browser.load_chat_index().await.unwrap_or_default();
                }
            }
            encode_chats(listing.stored.summaries(), listing.current.as_deref(), listing.running, message.as_deref())
        });
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(answer) = work.await {
                reply.send(&answer);
            }
        });
    }
}

/// The History as a request to change it sees it.
struct Listing {
    stored: ChatIndex,
    current: Option<String>,
    running: bool,
    /// The chats to delete.
    remove: Vec<String>,
    /// Whether the current chat goes too (then a follow-up starts a new chat).
    forget: bool,
}

impl Listing {
    fn forget_current_if(&mut self, condition: impl Fn(&str) -> bool) {
        if !self.running && self.current.as_deref().is_some_and(condition) {
            self.forget = true;
        }
    }
}

/// Writes a chat and the index with its summary, dropping the chats the bounds leave out.
async fn store(browser: &HostBrowser, mut chat: Chat) -> Result<(), String> {
    if !chats::is_valid_id(&chat.id) {
        return Err(format!("\"{}\" is not a chat id", chat.id));
    }
    chat.cap(MAX_CHAT_BYTES);
    let mut index = browser.load_chat_index().await.unwrap_or_default();
    index.upsert(chat.summary());
    let removed = index.bound(&chat.id);
    browser.save_chats(&index, Some(&chat), &removed).await
}
