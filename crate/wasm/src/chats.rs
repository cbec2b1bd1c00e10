//! The History in the worker: records each running task's chat as its events go to the panel, and
//! keeps the stored chats (`agent_core::chats`, in `chrome.storage.local` through the host) one
//! storage operation at a time, in the order they were asked for.

use crate::host::HostBrowser;
use agent_core::agent::AgentEvent;
use agent_core::chats::{self, Chat, ChatIndex, MAX_CHAT_BYTES};
use agent_core::i18n::{Message, Text};
use agent_core::messages::History;
use agent_core::protocol::{encode_chat, encode_chat_event, encode_chats, encode_trimmed};
use agent_core::text;
use agent_core::tokens::TokenCounter;
use futures::channel::oneshot;
use futures::future::{FutureExt, LocalBoxFuture, Shared};
use serde_json::Value;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A chat that is no longer stored.
fn gone() -> Text {
    text!("core_chat_gone")
}

/// Where a task's chat comes from.
pub enum Start<'a> {
    /// A new chat under this id.
    New(&'a str),
    /// A stored chat, continued (a follow-up, or a chat reopened from the History).
    Chat(&'a str),
    /// A task resumed after a worker restart: the chat it was recorded in, if still stored.
    Resume(&'a str),
}

impl Start<'_> {
    pub fn id(&self) -> &str {
        match self {
            Start::New(id) | Start::Chat(id) | Start::Resume(id) => id,
        }
    }
}

/// Where an answer to one panel's request goes: that panel's port, or every panel.
pub struct Reply {
    pub to: Option<js_sys::Function>,
    pub browser: Rc<HostBrowser>,
}

impl Reply {
    pub fn send(&self, message: &Value) {
        match &self.to {
            // A panel that closed meanwhile needs no answer.
            Some(port) => drop(port.call1(&JsValue::NULL, &crate::to_js(message))),
            None => self.browser.emit_value(message),
        }
    }
}

pub struct Chats {
    browser: Rc<HostBrowser>,
    /// The chats whose tasks are under way, each recording its task's events.
    open: RefCell<Vec<Rc<OpenChat>>>,
    /// The last storage operation asked for: each waits for the one before.
    tail: RefCell<Shared<LocalBoxFuture<'static, ()>>>,
}

/// The chat of a task under way: its events so far, and the conversation the task continues.
pub struct OpenChat {
    chats: Rc<Chats>,
    chat: RefCell<Chat>,
    pub conversation: Rc<RefCell<History>>,
}

impl Chats {
    pub fn new(browser: Rc<HostBrowser>) -> Rc<Chats> {
        Rc::new(Chats {
            browser,
            open: RefCell::default(),
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

    /// The ids of the chats whose tasks are under way.
    pub fn open_ids(&self) -> Vec<String> {
        self.open.borrow().iter().map(|chat| chat.id()).collect()
    }

    /// The open chat `id`, if its task is under way.
    pub fn open_chat(&self, id: &str) -> Option<Rc<OpenChat>> {
        self.open.borrow().iter().find(|chat| chat.id() == id).cloned()
    }

    /// Opens the chat a task belongs to, with the conversation it continues.
    pub async fn begin(self: &Rc<Self>, task: &str, start: Start<'_>) -> Result<Rc<OpenChat>, Message> {
        let id = start.id().to_string();
        let stored = match start {
            Start::New(_) => None,
            Start::Chat(_) | Start::Resume(_) => {
                let browser = Rc::clone(&self.browser);
                let key = id.clone();
                let loaded = self.serial(async move { browser.load_chat(&key).await }).await.unwrap_or(Ok(None));
                match (loaded, &start) {
                    (Ok(chat), Start::Resume(_)) => chat,
                    (Ok(Some(chat)), _) => Some(chat),
                    (Ok(None), _) => return Err(gone().into()),
                    (Err(problem), Start::Chat(_)) => return Err(text!("core_chat_unreadable", problem).into()),
                    (Err(_), _) => None,
                }
            }
        };
        let conversation = match &stored {
            Some(chat) if !matches!(start, Start::Resume(_)) && !chat.conversation.is_null() => {
                History::from_json(&chat.conversation, &TokenCounter::estimate())?
            }
            _ => History::default(),
        };
        let chat = stored.unwrap_or_else(|| Chat::new(id, task, js_sys::Date::now()));
        let open = Rc::new(OpenChat {
            chats: Rc::clone(self),
            chat: RefCell::new(chat),
            conversation: Rc::new(conversation.into()),
        });
        self.open.borrow_mut().push(Rc::clone(&open));
        Ok(open)
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
        self.answer_with_list(reply, move |listing| {
            if listing.running.contains(&id) {
                return Some("This chat's task is running: stop it before deleting the chat.".into());
            }
            listing.remove.push(id.clone());
            None
        });
    }

    /// Answers `clear_chats`: every chat is deleted but those whose tasks are running.
    pub fn clear(self: &Rc<Self>, reply: Reply) {
        self.answer_with_list(reply, |listing| {
            listing.remove = listing.stored.ids().into_iter().filter(|id| !listing.running.contains(id)).collect();
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
            let mut listing = Listing { stored, running: this.open_ids(), remove: Vec::new() };
            if message.is_none() {
                message = change(&mut listing);
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
            encode_chats(listing.stored.summaries(), &listing.running, message.as_deref())
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
    /// The chats whose tasks are under way, which stay.
    running: Vec<String>,
    /// The chats to delete.
    remove: Vec<String>,
}

impl OpenChat {
    pub fn id(&self) -> String {
        self.chat.borrow().id.clone()
    }

    /// The chat's events so far, for a panel that connects while its task runs.
    pub fn events(&self) -> Vec<Value> {
        self.chat.borrow().events.clone()
    }

    /// Sends an event of the chat's task to the panels, recording it in the chat.
    pub fn emit(&self, event: &AgentEvent) {
        let message = encode_chat_event(&self.id(), event);
        // A started task's chat is listed at once, and saved after every step, so that a worker
        // restart loses none of it (and saved again, whole, when the task ends).
        let save_now =
            matches!(event, AgentEvent::TaskStarted { .. } | AgentEvent::TaskResumed { .. } | AgentEvent::Step { .. });
        self.chat.borrow_mut().record(message.clone(), js_sys::Date::now());
        self.chats.browser.emit_value(&message);
        if save_now {
            self.save();
        }
    }

    /// The task is over: its conversation joins the chat, which is saved and no longer open.
    pub fn finish(&self) {
        self.chat.borrow_mut().conversation = self.conversation.borrow().to_json();
        self.save();
        let id = self.id();
        self.chats.open.borrow_mut().retain(|chat| chat.id() != id);
    }

    /// Saves the chat, if a task of it started (bounded, as every stored chat is).
    fn save(&self) {
        let snapshot = {
            let mut chat = self.chat.borrow_mut();
            if !chat.has_task() {
                return;
            }
            chat.cap(MAX_CHAT_BYTES, &encode_trimmed());
            chat.clone()
        };
        let browser = Rc::clone(&self.chats.browser);
        let chat = snapshot.id.clone();
        drop(self.chats.serial(async move {
            if let Err(problem) = store(&browser, snapshot).await {
                let message = text!("core_warning_chat_not_saved", problem).into();
                browser.emit_value(&encode_chat_event(&chat, &AgentEvent::Warning { message }));
            }
        }));
    }
}

/// Writes a chat and the index with its summary, dropping the chats the bounds leave out.
async fn store(browser: &HostBrowser, mut chat: Chat) -> Result<(), String> {
    if !chats::is_valid_id(&chat.id) {
        return Err(format!("\"{}\" is not a chat id", chat.id));
    }
    chat.cap(MAX_CHAT_BYTES, &encode_trimmed());
    let mut index = browser.load_chat_index().await.unwrap_or_default();
    index.upsert(chat.summary());
    let removed = index.bound(&chat.id);
    browser.save_chats(&index, Some(&chat), &removed).await
}
