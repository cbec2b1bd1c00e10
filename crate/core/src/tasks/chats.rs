//! The History in the worker: records each running task's chat as its events go to the panels,
//! and keeps the stored chats ([`crate::chats`], through the host's storage, one operation at a
//! time).

use super::host::{Host, Reply};
use super::serial::Serial;
use crate::agent::AgentEvent;
use crate::browser::Browser;
use crate::chats::{self, Chat, ChatIndex, MAX_CHAT_BYTES};
use crate::files::{TaskFile, TaskFiles};
use crate::i18n::{Message, Text};
use crate::messages::History;
use crate::protocol::{encode_chat, encode_chat_event, encode_chats, encode_trimmed};
use crate::text;
use crate::tokens::TokenCounter;
use futures::future::FutureExt;
use serde_json::Value;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

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

pub struct Chats<H> {
    host: Rc<H>,
    /// The chats whose tasks are under way, each recording its task's events.
    open: RefCell<Vec<Rc<OpenChat<H>>>>,
    storage: Rc<Serial<H>>,
}

/// The chat of a task under way: its events so far, and the conversation the task continues.
pub struct OpenChat<H> {
    chats: Rc<Chats<H>>,
    chat: RefCell<Chat>,
    pub conversation: Rc<RefCell<History>>,
}

impl<H: Host> Chats<H> {
    pub fn new(host: Rc<H>, storage: Rc<Serial<H>>) -> Rc<Chats<H>> {
        Rc::new(Chats { host, open: RefCell::default(), storage })
    }

    /// The ids of the chats whose tasks are under way.
    pub fn open_ids(&self) -> Vec<String> {
        self.open.borrow().iter().map(|chat| chat.id()).collect()
    }

    /// The open chat `id`, if its task is under way.
    pub fn open_chat(&self, id: &str) -> Option<Rc<OpenChat<H>>> {
        self.open.borrow().iter().find(|chat| chat.id() == id).cloned()
    }

    /// Opens the chat a task belongs to, with the conversation it continues.
    pub async fn begin(self: &Rc<Self>, task: &str, start: Start<'_>) -> Result<Rc<OpenChat<H>>, Message> {
        let id = start.id().to_string();
        let stored = match start {
            Start::New(_) => None,
            Start::Chat(_) | Start::Resume(_) => {
                let host = Rc::clone(&self.host);
                let key = id.clone();
                let loaded = self.storage.run(async move { host.load_chat(&key).await }).await.unwrap_or(Ok(None));
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
        let chat = stored.unwrap_or_else(|| Chat::new(id, task, self.host.browser().now_ms()));
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
        let host = Rc::clone(&self.host);
        self.storage.run(async move { store(host.as_ref(), chat).await }).map(|done| done.unwrap_or(Ok(())))
    }

    /// Answers `list_chats`.
    pub fn list(self: &Rc<Self>, reply: Reply) {
        self.answer_with_list(reply, |_| None);
    }

    /// Answers `open_chat` with the chat, or with the list saying why it cannot be opened.
    pub fn open(self: &Rc<Self>, id: String, reply: Reply) {
        let this = Rc::clone(self);
        let host = Rc::clone(&self.host);
        self.host.spawn(
            async move {
                let loaded = this.storage.run(async move { host.load_chat(&id).await }).await.unwrap_or(Ok(None));
                match loaded {
                    Ok(Some(chat)) => reply(&encode_chat(&chat)),
                    Ok(None) => this.answer_with_list(reply, |_| Some(gone().english())),
                    Err(problem) => {
                        this.answer_with_list(reply, move |_| Some(format!("The chat could not be read: {problem}.")))
                    }
                }
            }
            .boxed_local(),
        );
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
        let work = self.storage.run(async move {
            let (stored, mut message) = match this.host.load_chat_index().await {
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
                if let Err(problem) = this.host.save_chats(&listing.stored, None, &listing.remove).await {
                    message = Some(format!("The History could not be changed: {problem}."));
                    listing.stored = this.host.load_chat_index().await.unwrap_or_default();
                }
            }
            encode_chats(listing.stored.summaries(), &listing.running, message.as_deref())
        });
        self.host.spawn(
            async move {
                if let Some(answer) = work.await {
                    reply(&answer);
                }
            }
            .boxed_local(),
        );
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

impl<H: Host> OpenChat<H> {
    pub fn id(&self) -> String {
        self.chat.borrow().id.clone()
    }

    /// The chat's events so far, for a panel that connects while its task runs.
    pub fn events(&self) -> Vec<Value> {
        self.chat.borrow().events.clone()
    }

    /// The notebook the chat's last task left, for a follow-up task to go on with.
    pub fn notebook(&self) -> TaskFiles {
        let chat = self.chat.borrow();
        let last = chat.events.iter().rev().find(|event| event.get("type").and_then(Value::as_str) == Some("files"));
        let files = last.and_then(|event| serde_json::from_value::<Vec<TaskFile>>(event["files"].clone()).ok());
        TaskFiles::notebook_of(files.unwrap_or_default())
    }

    /// Sends an event of the chat's task to the panels, recording it in the chat.
    pub fn emit(&self, event: &AgentEvent) {
        let message = encode_chat_event(&self.id(), event);
        // A started task's chat is listed at once, and saved after every step, so that a worker
        // restart loses none of it (and saved again, whole, when the task ends).
        let save_now =
            matches!(event, AgentEvent::TaskStarted { .. } | AgentEvent::TaskResumed { .. } | AgentEvent::Step { .. });
        let host = &self.chats.host;
        self.chat.borrow_mut().record(message.clone(), host.browser().now_ms());
        host.emit(&message);
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
        let host = Rc::clone(&self.chats.host);
        let chat = snapshot.id.clone();
        drop(self.chats.storage.run(async move {
            if let Err(problem) = store(host.as_ref(), snapshot).await {
                let message = text!("core_warning_chat_not_saved", problem).into();
                host.emit(&encode_chat_event(&chat, &AgentEvent::Warning { message }));
            }
        }));
    }
}

/// Writes a chat and the index with its summary, dropping the chats the bounds leave out.
async fn store(host: &impl Host, mut chat: Chat) -> Result<(), String> {
    if !chats::is_valid_id(&chat.id) {
        return Err(format!("\"{}\" is not a chat id", chat.id));
    }
    chat.cap(MAX_CHAT_BYTES, &encode_trimmed());
    let mut index = host.load_chat_index().await.unwrap_or_default();
    index.upsert(chat.summary());
    let removed = index.bound(&chat.id);
    host.save_chats(&index, Some(&chat), &removed).await
}
