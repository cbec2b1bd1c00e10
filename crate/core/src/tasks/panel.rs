//! The panels' requests, as the trusted panel port brings them, and what a panel learns when it
//! connects.

use super::host::{Host, Reply};
use super::job::Job;
use super::prepare::agent_counters;
use super::TaskManager;
use super::queue::Task;
use crate::agent::{AgentEvent, HandOver, Replay, Review};
use crate::answer::OutputSchema;
use crate::browser::{Browser, Highlight};
use crate::cancel::CancelToken;
use crate::mcp::Pairing;
use crate::protocol::{self, unusable_schema, PanelRequest};
use crate::saved::Tools;
use crate::settings::Settings;
use crate::tokens::TokenCounter;
use crate::workflow::{self, LocalZone};
use serde_json::Value;
use std::rc::Rc;

impl<H: Host> TaskManager<H> {
    /// Handles one message from a trusted page's port (the panel, the settings). Answers meant
    /// for the asking page alone (the History, the saved things, a request it could not read) go
    /// to `reply`, when given, else to every page.
    pub fn handle_panel_message(&self, message: Result<Value, String>, reply: Option<Reply>) {
        let reply = reply.unwrap_or_else(|| {
            let host = Rc::clone(&self.host);
            Rc::new(move |message: &Value| host.emit(message))
        });
        let request = message.map_err(protocol::malformed).and_then(|value| PanelRequest::parse(&value));
        match request {
            Err(reason) => reply(&protocol::encode_event(&AgentEvent::Error { message: reason, steps: 0 })),
            Ok(PanelRequest::Stop { chat }) => self.stop(chat.as_deref()),
            Ok(PanelRequest::Pause { chat }) => self.control(chat.as_deref(), CancelToken::pause),
            Ok(PanelRequest::Resume { chat }) => self.control(chat.as_deref(), CancelToken::resume),
            Ok(PanelRequest::StartTask { task, tab_id, follow_up, chat_id, output_schema, files }) => {
                let chat = chat_id.unwrap_or_else(|| self.new_chat_id());
                match output_schema.map(OutputSchema::new).transpose() {
                    Ok(output_schema) => {
                        let job_chat = chat.clone();
                        self.start_attached(chat, files, move |files| Job::New {
                            task,
                            tab_id,
                            follow_up,
                            chat: job_chat,
                            app: None,
                            output_schema,
                            files,
                        })
                    }
                    Err(why) => self.emit_to(&chat, AgentEvent::Error { message: unusable_schema(why), steps: 0 }),
                }
            }
            Ok(PanelRequest::Highlight { tab_id, element }) => self.point_out(tab_id, element),
            Ok(PanelRequest::Replay { record, tab_id, chat_id }) => {
                let chat = chat_id.unwrap_or_else(|| self.new_chat_id());
                match Replay::from_record(&record) {
                    Ok(replay) => self.start(Job::Replay { replay, tab_id, chat, scheduled: None }),
                    Err(err) => {
                        self.emit_to(&chat, AgentEvent::Error { message: protocol::not_replayable(err), steps: 0 })
                    }
                }
            }
            Ok(PanelRequest::RunWorkflow { workflow, values, tab_id, chat_id }) => {
                let chat = chat_id.unwrap_or_else(|| self.new_chat_id());
                match workflow::run_with(&workflow, &values) {
                    Ok(replay) => self.start(Job::Replay { replay, tab_id, chat, scheduled: None }),
                    Err(err) => {
                        self.emit_to(&chat, AgentEvent::Error { message: protocol::not_runnable(err), steps: 0 })
                    }
                }
            }
            Ok(PanelRequest::PairApp { decision }) => {
                if let Some(decision) = Pairing::parse(&decision) {
                    self.answer_pairing(decision)
                }
            }
            Ok(PanelRequest::ListChats {}) => self.chats.list(reply),
            Ok(PanelRequest::OpenChat { id }) => self.chats.open(id, reply),
            Ok(PanelRequest::DeleteChat { id }) => self.chats.delete(id, reply),
            Ok(PanelRequest::ClearChats {}) => self.chats.clear(reply),
            Ok(PanelRequest::Approve { id, approved, chat }) => {
                self.answer(chat.as_deref(), id, if approved { Review::Run } else { Review::Skip })
            }
            Ok(PanelRequest::Review { id, decision, feedback, chat }) => self.answer(
                chat.as_deref(),
                id,
                match decision.as_str() {
                    "run" => Review::Run,
                    "skip" => Review::Skip,
                    "retry" => Review::Retry(feedback),
                    _ => Review::Cancel,
                },
            ),
            Ok(PanelRequest::HandOver { id, decision, note, chat }) => {
                let answer = match decision.as_str() {
                    "continue" => HandOver::Continue(Some(note).filter(|note| !note.trim().is_empty())),
                    "stop" => HandOver::Stop,
                    _ => HandOver::Unanswered,
                };
                if let Some(task) = self.asking(chat.as_deref(), id) {
                    task.user.answer_hand_over(id, answer);
                }
            }
            // The rest: the pages' requests about the user's saved things.
            Ok(request) => self.answer_saved(request, reply),
        }
    }

    /// Answers a page's request about the user's saved things ([`crate::saved`]).
    fn answer_saved(&self, request: PanelRequest, reply: Reply) {
        let (saved, host) = (Rc::clone(&self.saved), Rc::clone(&self.host));
        self.spawn(async move { reply(&saved.answer(&*host, &HostTools(&*host), request).await) });
    }

    /// What a panel learns when it connects: the tasks under way, each with its chat's events so
    /// far, and those waiting for a place.
    pub fn hello(&self) -> Value {
        let mut tasks: Vec<Value> = self
            .tasks
            .select(None)
            .iter()
            .map(|task| {
                let events = self.chats.open_chat(&task.chat).map(|chat| chat.events()).unwrap_or_default();
                let state = if task.cancel.is_paused() { "paused" } else { "running" };
                serde_json::json!({"chat": task.chat, "state": state, "events": events})
            })
            .collect();
        for (chat, place) in self.places() {
            let queued = protocol::encode_chat_event(&chat, &place);
            tasks.push(serde_json::json!({"chat": chat, "state": "queued", "events": [queued]}));
        }
        protocol::encode_hello(tasks)
    }

    /// Answers the question `id` of chat `chat`'s task (without a chat, of the task asking it).
    fn answer(&self, chat: Option<&str>, id: u32, decision: Review) {
        if let Some(task) = self.asking(chat, id) {
            task.user.answer(id, decision);
        }
    }

    /// The task of chat `chat` (without a chat, the task asking question `id`).
    fn asking(&self, chat: Option<&str>, id: u32) -> Option<Rc<Task>> {
        match chat {
            Some(chat) => self.tasks.select(Some(chat)).pop(),
            None => self.tasks.find(|task| task.user.is_asking(id)),
        }
    }

    /// Shows an element a step acted on for a few seconds, unless a task works in its tab (its
    /// own boxes stay).
    fn point_out(&self, tab_id: Option<i32>, element: Highlight) {
        let host = Rc::clone(&self.host);
        let tasks = Rc::clone(&self.tasks);
        self.spawn(async move {
            const SHOWN_MS: u32 = 3000;
            let Ok(tab) = (match tab_id {
                Some(tab) => Ok(tab),
                None => host.active_tab().await,
            }) else {
                return;
            };
            if tasks.owner_of(tab, "").is_some() {
                return;
            }
            // An element no longer there is simply not shown.
            let browser = host.browser();
            if browser.highlight(tab, &[element]).await.is_ok() {
                host.sleep(SHOWN_MS).await;
                let _ = browser.highlight(tab, &[]).await;
            }
        });
    }
}

/// What answering the pages about their saved things needs of the worker: its HTTP clients, the
/// models' token counters, the clock and the time zone.
struct HostTools<'a, H>(&'a H);

impl<H: Host> LocalZone for HostTools<'_, H> {
    fn offset_ms(&self, utc_ms: f64) -> f64 {
        self.0.offset_ms(utc_ms)
    }
}

impl<H: Host> Tools for HostTools<'_, H> {
    type Http = H::Http;

    fn http(&self, timeout_ms: u32) -> H::Http {
        self.0.http(timeout_ms)
    }

    async fn token_counters(&self, settings: &Settings) -> Vec<(String, TokenCounter)> {
        agent_counters(settings, |provider, name| async move { self.0.token_counter(provider, &name).await }).await
    }

    fn now_ms(&self) -> f64 {
        self.0.browser().now_ms()
    }
}
