//! The task manager: the worker's tasks, each in its own chat and tab, and what starts, queues,
//! stops and resumes them. The panels ask through [`crate::protocol`] ([`TaskManager::handle_panel_message`]),
//! AI apps through [`crate::mcp`] ([`TaskManager::handle_host_message`]); the worker's schedules
//! start workflows ([`TaskManager::run_scheduled`]), and a restarted worker resumes what the
//! last one left ([`TaskManager::resume_interrupted`]).
//!
//! Everything outside is behind two interfaces: the [`Browser`] tasks act in, and the [`Host`]
//! (storage, the panels, notifications, the runtime). One thread: futures are spawned locally.
//!
//! - `queue`: the running tasks and those waiting for a place (the user's limit).
//! - `job`: what starts a task, and what of it is saved for a restart.
//! - `run`: a task's run, from its chat and tab to its end.
//! - `prepare`: an agent from the settings (models, token counters, budgets, prices).
//! - `panel`: the panels' requests, one `match`.
//! - `chats`: the History as tasks record it.
//! - `serial`: storage operations one at a time, in order.
//! - `apps`: AI apps (MCP): pairing, their tasks, the session one drives.
//! - `shared_tabs`: the browser as an app sees it (the tabs shared with apps).
//! - `resume` and `scheduled`: the tasks no panel asked for just now.

mod app_call;
mod apps;
mod attached;
mod built_in_note;
mod chats;
mod gate;
mod host;
mod job;
mod panel;
mod prepare;
mod queue;
mod resume;
mod run;
mod scheduled;
mod serial;
mod shared_tabs;
#[cfg(test)]
mod tests;

pub use host::{Host, Reply};

use crate::agent::AgentEvent;
use crate::browser::Browser;
use crate::cancel::CancelToken;
use crate::i18n::Message;
use crate::mcp;
use crate::protocol;
use crate::saved::UserData;
use crate::settings::DEFAULT_PARALLEL_TASKS;
use crate::text;
use apps::Apps;
use chats::Chats;
use futures::FutureExt;
use job::{Job, SavedWaiting};
use queue::{Tasks, Waiting};
use serial::Serial;
use std::future::Future;
use std::rc::Rc;

/// The agent as the service worker sees it: one per worker, running several tasks at once, each
/// in its own chat and tab.
pub struct TaskManager<H: Host> {
    host: Rc<H>,
    /// The tasks under way and those waiting for a place.
    tasks: Rc<Tasks<Job>>,
    /// The History: the running tasks' chats, and the stored chats.
    chats: Rc<Chats<H>>,
    /// Every write of the History and of the tasks' records, in order.
    storage: Rc<Serial<H>>,
    /// What AI apps (through MCP) have under way.
    apps: Rc<Apps>,
    /// The pages' way to the user's saved things.
    saved: Rc<UserData>,
}

impl<H: Host> TaskManager<H> {
    pub fn new(host: Rc<H>) -> Self {
        let storage = Serial::new(Rc::clone(&host));
        let chats = Chats::new(Rc::clone(&host), Rc::clone(&storage));
        TaskManager { host, tasks: Rc::default(), chats, storage, apps: Rc::default(), saved: Rc::default() }
    }

    pub fn host(&self) -> &Rc<H> {
        &self.host
    }

    /// Another handle on the same manager, for work that outlives the call that started it.
    fn share(&self) -> Self {
        TaskManager {
            host: Rc::clone(&self.host),
            tasks: Rc::clone(&self.tasks),
            chats: Rc::clone(&self.chats),
            storage: Rc::clone(&self.storage),
            apps: Rc::clone(&self.apps),
            saved: Rc::clone(&self.saved),
        }
    }

    fn spawn(&self, work: impl Future<Output = ()> + 'static) {
        self.host.spawn(work.boxed_local());
    }

    fn now_ms(&self) -> f64 {
        self.host.browser().now_ms()
    }

    /// A new chat's id, for a task that did not name its chat.
    fn new_chat_id(&self) -> String {
        crate::chats::new_id(self.now_ms(), self.host.random())
    }

    /// Stores a chat in the History as a finished task would, bounds included (for tests and the
    /// benchmark).
    pub fn store_chat(&self, chat: crate::chats::Chat) -> impl Future<Output = Result<(), String>> {
        self.chats.store(chat)
    }

    /// Saves what a restarted worker needs of chat `chat`'s task (clears it with `None`), after
    /// every storage operation asked for before.
    fn save_task(&self, chat: &str, saved: Option<serde_json::Value>) -> impl Future<Output = ()> {
        let (host, chat) = (Rc::clone(&self.host), chat.to_string());
        self.storage.run(async move { host.save_task(&chat, saved).await }).map(drop)
    }

    /// Sends an event to the panels as chat `chat`'s, without recording it (the chat is not open).
    fn emit_to(&self, chat: &str, event: AgentEvent) {
        self.host.emit(&protocol::encode_chat_event(chat, &event));
    }

    /// Sends an event to the panels as no chat's.
    fn emit(&self, event: &AgentEvent) {
        self.host.emit(&protocol::encode_event(event));
    }

    /// Applies `control` to the running task of chat `chat` (every one without it).
    fn control(&self, chat: Option<&str>, control: fn(&CancelToken)) {
        for task in self.tasks.select(chat) {
            control(&task.cancel);
        }
    }

    /// Stops the task of chat `chat` (every one without it): a running one is cancelled, a
    /// waiting one leaves the line.
    fn stop(&self, chat: Option<&str>) {
        self.control(chat, CancelToken::cancel);
        for waiting in self.tasks.leave_line(chat) {
            if let Some(app) = waiting.job.app() {
                app.on_event(&AgentEvent::Stopped { steps: 0 });
            }
            self.emit_to(&waiting.chat, AgentEvent::Stopped { steps: 0 });
            self.release_attached(&waiting.job);
            drop(self.save_task(&waiting.chat, None));
        }
        self.tell_places();
    }

    /// The user saved the settings: what limits the agent applies at once to every running task
    /// and every session an app drives, in the browser's rules too. A task the new limits cannot
    /// be applied to is stopped, saying why. Resolves once they apply.
    pub fn settings_saved(&self) -> impl Future<Output = ()> + 'static {
        let manager = self.share();
        async move {
            let limits = manager.host.load_settings().await.and_then(|settings| prepare::limits_of(&settings));
            for task in manager.tasks.select(None) {
                let applied = match &limits {
                    Ok(limits) => {
                        let replaced = task.limits.replace(limits.clone(), manager.host.browser()).await;
                        replaced.map_err(|err| err.text().into())
                    }
                    Err(message) => Err(message.clone()),
                };
                if let Err(why) = applied {
                    let message = text!("core_task_settings_not_applied", why).into();
                    manager.emit_to(&task.chat, AgentEvent::Warning { message });
                    manager.stop(Some(&task.chat));
                }
            }
        }
    }

    /// Starts a task, or puts it in line when as many run as the user allows.
    fn start(&self, job: Job) {
        let manager = self.share();
        self.spawn(async move {
            let limit = manager.task_limit().await;
            // Checked, decided and registered at once, so that tasks started together (or twice)
            // count each other.
            let chat = job.chat().id().to_string();
            if manager.tasks.is_busy(&chat) {
                let message: Message = text!("core_chat_busy").into();
                manager.release_attached(&job);
                return match job.app() {
                    Some(app) => app.send(&mcp::result(app.id, false, &message)),
                    None => manager.emit_to(&chat, AgentEvent::Error { message, steps: 0 }),
                };
            }
            if manager.tasks.running_count() >= limit {
                let task = job.task().to_string();
                let saved = job.saved();
                let position = manager.tasks.wait(Waiting { chat: chat.clone(), task: task.clone(), job });
                manager.emit_to(&chat, AgentEvent::TaskQueued { task, position });
                if let Some(waiting) = saved {
                    let saved = SavedWaiting { waiting, since_ms: manager.now_ms() };
                    manager.save_task(&chat, serde_json::to_value(saved).ok()).await;
                }
                return;
            }
            manager.launch(chat, job);
        });
    }

    /// How many tasks may run at once (the default when the settings cannot be read).
    async fn task_limit(&self) -> usize {
        self.host.load_settings().await.map_or(DEFAULT_PARALLEL_TASKS as usize, |settings| settings.task_limit())
    }

    /// Each waiting task's chat, with its place in line as the panel hears it.
    fn places(&self) -> impl Iterator<Item = (String, AgentEvent)> {
        let line = self.tasks.line().into_iter().enumerate();
        line.map(|(at, (chat, task))| (chat, AgentEvent::TaskQueued { task, position: at as u32 + 1 }))
    }

    /// Tells each waiting task its place in line.
    fn tell_places(&self) {
        for (chat, place) in self.places() {
            self.emit_to(&chat, place);
        }
    }

    /// Starts the tasks waiting in line, as places free up.
    fn start_waiting(&self) {
        let manager = self.share();
        self.spawn(async move {
            let limit = manager.task_limit().await;
            while manager.tasks.running_count() < limit {
                let Some(waiting) = manager.tasks.next_waiting() else { break };
                manager.launch(waiting.chat, waiting.job);
            }
            manager.tell_places();
        });
    }
}
