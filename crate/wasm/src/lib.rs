//! The service worker's entry into the core: a thin shim that turns the extension's JavaScript
//! host into the core's [`agent_core::browser::Browser`], `fetch` into its HTTP client, and the
//! core's events into plain JavaScript objects for the panel port.

mod apps;
mod chats;
mod fetch;
mod host;
mod panic;
mod shared_tabs;
mod tasks;
mod vocabulary;

use agent_core::agent::{run_task, AgentEvent, Budgets, Checkpoint, Models, Replay, Review, TaskConfig, UserGate};
use agent_core::browser::{Browser, Highlight};
use agent_core::cancel::CancelToken;
use agent_core::dom_map::{serialize, ElementRegistry, MapOptions, PageMap};
use agent_core::i18n::{Message, Text};
use agent_core::llm::context::input_budget;
use agent_core::llm::AnyModel;
use agent_core::mcp;
use agent_core::messages::{Budget, History};
use agent_core::protocol::{self, PanelRequest};
use agent_core::saved::{Tools, UserData};
use agent_core::settings::{Settings, DEFAULT_PARALLEL_TASKS};
use agent_core::text;
use agent_core::tokens::{estimate_tokens, TokenCounter};
use agent_core::workflow;
use apps::{AppCall, Apps};
use chats::{Chats, Reply, Start};
use fetch::FetchClient;
use host::{BrowserHost, HostBrowser, Saved, SavedJob, SavedWaiting};
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use tasks::{Asker, PanelUser, Task, Tasks, Waiting};
use wasm_bindgen::prelude::*;

/// The agent as the service worker sees it: one per worker, running several tasks at once, each
/// in its own chat and tab.
#[wasm_bindgen]
pub struct Core {
    browser: Rc<HostBrowser>,
    /// The tasks under way and those waiting for a place.
    tasks: Rc<Tasks<Job>>,
    /// The History: the running tasks' chats, and the stored chats.
    chats: Rc<Chats>,
    /// What AI apps (through MCP) have under way.
    apps: Rc<Apps>,
    /// The pages' way to the user's saved things.
    saved: Rc<UserData>,
}

/// The user as a task asks them: through the panel, within a time limit for the tasks AI apps
/// asked for (no answer in time refuses the action, so that an app cannot wait on a closed panel
/// forever).
struct TimedGate<'a> {
    user: &'a PanelUser,
    browser: &'a HostBrowser,
    /// Where a warning of an unanswered question goes.
    emit: &'a dyn Fn(AgentEvent),
    time_limit_ms: Option<u32>,
}

impl TimedGate<'_> {
    async fn ask(&self, id: u32) -> Option<Review> {
        let Some(limit) = self.time_limit_ms else { return self.user.ask(id).await };
        let answer = std::pin::pin!(self.user.ask(id));
        let timeout = std::pin::pin!(self.browser.sleep(limit));
        match futures::future::select(answer, timeout).await {
            futures::future::Either::Left((answer, _)) => answer,
            futures::future::Either::Right(_) => {
                self.user.withdraw(Some(id));
                (self.emit)(AgentEvent::Warning { message: mcp::unanswered(limit).into() });
                None
            }
        }
    }
}

impl UserGate for TimedGate<'_> {
    async fn approve(&self, id: u32) -> bool {
        // A request abandoned (panel closed, task stopped, no answer in time) counts as refused.
        self.ask(id).await == Some(Review::Run)
    }

    async fn review(&self, id: u32) -> Review {
        self.ask(id).await.unwrap_or(Review::Cancel)
    }
}

#[wasm_bindgen]
impl Core {
    #[wasm_bindgen(constructor)]
    pub fn new(host: BrowserHost) -> Core {
        panic::install(&host);
        let browser = Rc::new(HostBrowser::new(host));
        let chats = Chats::new(Rc::clone(&browser));
        Core { browser, tasks: Rc::default(), chats, apps: Rc::default(), saved: Rc::default() }
    }

    /// Handles one message from a trusted page's port. Answers meant for the asking page alone
    /// (the History, the saved things, a request it could not read) go to `reply`, when given.
    #[wasm_bindgen(js_name = handlePanelMessage)]
    pub fn handle_panel_message(&self, message: JsValue, reply: Option<js_sys::Function>) {
        let reply = Reply { to: reply, browser: Rc::clone(&self.browser) };
        let request = serde_wasm_bindgen::from_value::<serde_json::Value>(message)
            .map_err(|err| protocol::malformed(err.to_string()))
            .and_then(|value| PanelRequest::parse(&value));
        match request {
            Err(reason) => reply.send(&protocol::encode_event(&AgentEvent::Error { message: reason, steps: 0 })),
            Ok(PanelRequest::Stop { chat }) => self.stop(chat.as_deref()),
            Ok(PanelRequest::Pause { chat }) => self.control(chat.as_deref(), CancelToken::pause),
            Ok(PanelRequest::Resume { chat }) => self.control(chat.as_deref(), CancelToken::resume),
            Ok(PanelRequest::StartTask { task, tab_id, follow_up, chat_id }) => {
                let chat = chat_id.unwrap_or_else(new_chat_id);
                self.start(Job::New { task, tab_id, follow_up, chat, app: None })
            }
            Ok(PanelRequest::Highlight { tab_id, element }) => self.point_out(tab_id, element),
            Ok(PanelRequest::Replay { record, tab_id, chat_id }) => {
                let chat = chat_id.unwrap_or_else(new_chat_id);
                match Replay::from_record(&record) {
                    Ok(replay) => self.start(Job::Replay { replay, tab_id, chat, scheduled: None }),
                    Err(err) => {
                        self.emit_to(&chat, AgentEvent::Error { message: protocol::not_replayable(err), steps: 0 })
                    }
                }
            }
            Ok(PanelRequest::RunWorkflow { workflow, values, tab_id, chat_id }) => {
                let chat = chat_id.unwrap_or_else(new_chat_id);
                match workflow::run_with(&workflow, &values) {
                    Ok(replay) => self.start(Job::Replay { replay, tab_id, chat, scheduled: None }),
                    Err(err) => {
                        self.emit_to(&chat, AgentEvent::Error { message: protocol::not_runnable(err), steps: 0 })
                    }
                }
            }
            Ok(PanelRequest::PairApp { decision }) => {
                if let Some(decision) = agent_core::mcp::Pairing::parse(&decision) {
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
            // The rest: the pages' requests about the user's saved things.
            Ok(request) => self.answer_saved(request, reply),
        }
    }

    /// Whether a port or message comes from our own panel page.
    #[wasm_bindgen(js_name = isTrustedSender)]
    pub fn is_trusted_sender(extension_id: &str, sender_id: Option<String>, sender_url: Option<String>) -> bool {
        protocol::is_trusted_sender(extension_id, sender_id.as_deref(), sender_url.as_deref())
    }

    /// The page map of a tab as the navigator would see it, with its size and where the time
    /// went: for the runner, the benchmark, the tests and anyone debugging what the agent sees.
    /// Resolves to `{ elements, indexed, tokens, text, frames_read, timing: { collect_ms, transfer_ms,
    /// parse_ms, build_ms, serialize_ms } }`.
    #[wasm_bindgen(js_name = describePage)]
    pub fn describe_page(&self, tab: i32) -> js_sys::Promise {
        let browser = Rc::clone(&self.browser);
        wasm_bindgen_futures::future_to_promise(async move {
            let (frames, observed) =
                browser.observe_timed(tab).await.map_err(|err| JsValue::from_str(&err.to_string()))?;
            let started = host::performance_now();
            let map = PageMap::build(&frames, &mut ElementRegistry::new()).map_err(|err| JsValue::from_str(&err))?;
            let built = host::performance_now();
            let text = serialize(&map, &MapOptions::default());
            let serialized = host::performance_now();
            let elements: usize =
                frames.iter().filter_map(|frame| frame.page.as_ref().ok()).map(|page| page.nodes.len()).sum();
            Ok(to_js(&serde_json::json!({
                "elements": elements,
                "indexed": map.elements().count(),
                "tokens": estimate_tokens(&text),
                "text": text,
                "frames_read": observed.frames_read,
                "timing": {
                    "collect_ms": observed.collect_ms,
                    "transfer_ms": observed.transfer_ms,
                    "parse_ms": observed.parse_ms,
                    "build_ms": built - started,
                    "serialize_ms": serialized - built,
                },
            })))
        })
    }

    /// Stores a chat (`{id, title, created, updated, events, conversation}`) in the History as a
    /// finished task would, bounds included: for tests. Resolves once it is written.
    #[wasm_bindgen(js_name = storeChat)]
    pub fn store_chat(&self, chat: JsValue) -> js_sys::Promise {
        let chat = serde_wasm_bindgen::from_value(chat);
        let stored = chat.map(|chat| self.chats.store(chat));
        wasm_bindgen_futures::future_to_promise(async move {
            let stored = stored.map_err(|err| JsValue::from_str(&format!("not a chat: {err}")))?;
            stored.await.map(|()| JsValue::UNDEFINED).map_err(|err| JsValue::from_str(&err))
        })
    }

    /// What a panel learns when it connects: the tasks under way, each with its chat's events so
    /// far, and those waiting for a place.
    pub fn hello(&self) -> JsValue {
        let mut tasks: Vec<serde_json::Value> = self
            .tasks
            .select(None)
            .iter()
            .map(|task| {
                let events = self.chats.open_chat(&task.chat).map(|chat| chat.events()).unwrap_or_default();
                let paused = task.cancel.is_paused();
                serde_json::json!({"chat": task.chat, "state": if paused { "paused" } else { "running" }, "events": events})
            })
            .collect();
        for (chat, place) in self.places() {
            let queued = protocol::encode_chat_event(&chat, &place);
            tasks.push(serde_json::json!({"chat": chat, "state": "queued", "events": [queued]}));
        }
        to_js(&protocol::encode_hello(tasks))
    }

    /// Runs a stored workflow (`workflow`, as stored) with `values`, as its schedule asks: in a new
    /// background tab at its start page, as a task of its own chat. Throws why it cannot run.
    #[wasm_bindgen(js_name = runScheduled)]
    pub fn run_scheduled(&self, workflow: JsValue, values: JsValue) -> Result<(), JsValue> {
        let workflow: serde_json::Value = from_js(workflow)?;
        let values: std::collections::BTreeMap<String, String> = from_js(values)?;
        let replay = workflow::run_with(&workflow, &values).map_err(|err| JsValue::from_str(&err))?;
        let name = workflow["name"].as_str().unwrap_or_default().to_string();
        let core = self.share();
        wasm_bindgen_futures::spawn_local(async move {
            let chat = new_chat_id();
            let url = replay.start_url.clone().unwrap_or_else(|| "about:blank".into());
            match core.browser.open_background_tab(&url).await {
                Ok(tab) => core.start(Job::Replay { replay, tab_id: Some(tab), chat, scheduled: Some(name) }),
                Err(message) => {
                    let error = AgentEvent::Error { message, steps: 0 };
                    core.browser.notify(&name, &protocol::encode_chat_event(&chat, &error));
                    core.emit_to(&chat, error);
                }
            }
        });
        Ok(())
    }

    /// Resumes the tasks a stopped worker left, if any: called once when the worker starts.
    /// Resolves once they are running again (or were ended with the user told why).
    #[wasm_bindgen(js_name = resumeInterrupted)]
    pub async fn resume_interrupted(&self) {
        let saved = match self.browser.load_tasks().await {
            Ok(saved) => saved,
            Err(problem) => {
                let message = text!("core_task_resume_failed", problem).into();
                return self.browser.emit(&AgentEvent::Error { message, steps: 0 });
            }
        };
        let mut line = Vec::new();
        for (chat, saved) in saved {
            let ended = match saved {
                Saved::Unreadable(problem) => Some((text!("core_task_resume_failed", problem).into(), 0)),
                Saved::Waiting(waiting) => {
                    line.push((waiting.since_ms, chat.clone(), waiting.waiting));
                    None
                }
                Saved::Running(checkpoint) => match checkpoint.stale(js_sys::Date::now()) {
                    Some(message) => Some((message, checkpoint.step.saturating_sub(1))),
                    // Running before, so running again at once, whatever the line.
                    None => {
                        self.launch(chat.clone(), Job::Resume { checkpoint, chat: chat.clone() });
                        None
                    }
                },
            };
            if let Some((message, steps)) = ended {
                self.browser.save_task(&chat, None).await;
                self.emit_to(&chat, AgentEvent::Error { message, steps });
            }
        }
        // The waiting tasks keep their places, and start as places free up.
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (_, chat, saved) in line {
            let job = Job::from_saved(saved, chat.clone());
            self.tasks.wait(Waiting { chat, task: job.task().to_string(), job });
        }
        self.start_waiting();
    }
}

/// What of a scheduled run the user hears in a notification: a question, and the end.
fn needs_notice(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::ApprovalNeeded { .. }
            | AgentEvent::ReviewNeeded { .. }
            | AgentEvent::Result { .. }
            | AgentEvent::Error { .. }
            | AgentEvent::Stopped { .. }
    )
}

/// A new chat's id, for a task that did not name its chat.
fn new_chat_id() -> String {
    agent_core::chats::new_id(js_sys::Date::now(), (js_sys::Math::random() * f64::from(u32::MAX)) as u32)
}

/// A task to run: a new one from the panel (or an AI app), a recorded one replayed (or a
/// workflow), or one interrupted by a worker restart; each in its chat `chat`.
enum Job {
    /// `app` is the AI app that asked for the task through MCP, if one did.
    New {
        task: String,
        tab_id: Option<i32>,
        follow_up: bool,
        chat: String,
        app: Option<Rc<AppCall>>,
    },
    /// `scheduled` is the workflow's name when its schedule started it: the user, perhaps away,
    /// hears through notifications what it needs and how it ended.
    Replay {
        replay: Replay,
        tab_id: Option<i32>,
        chat: String,
        scheduled: Option<String>,
    },
    Resume {
        checkpoint: Box<Checkpoint>,
        chat: String,
    },
}

impl Job {
    fn task(&self) -> &str {
        match self {
            Job::New { task, .. } => task,
            Job::Replay { replay, .. } => &replay.task,
            Job::Resume { checkpoint, .. } => &checkpoint.task,
        }
    }

    /// The chat the task belongs to.
    fn chat(&self) -> Start<'_> {
        match self {
            Job::New { chat, follow_up: true, .. } => Start::Chat(chat),
            Job::New { chat, .. } | Job::Replay { chat, .. } => Start::New(chat),
            Job::Resume { chat, .. } => Start::Resume(chat),
        }
    }

    fn app(&self) -> Option<Rc<AppCall>> {
        match self {
            Job::New { app, .. } => app.clone(),
            _ => None,
        }
    }

    /// The job as a restarted worker can start it, if it can.
    fn saved(&self) -> Option<SavedJob> {
        Some(match self {
            Job::New { app: Some(_), .. } | Job::Resume { .. } => return None,
            Job::New { task, tab_id, follow_up, .. } => {
                SavedJob::New { task: task.clone(), tab_id: *tab_id, follow_up: *follow_up }
            }
            Job::Replay { replay, tab_id, scheduled, .. } => {
                SavedJob::Replay { replay: replay.clone(), tab_id: *tab_id, scheduled: scheduled.clone() }
            }
        })
    }

    fn from_saved(saved: SavedJob, chat: String) -> Job {
        match saved {
            SavedJob::New { task, tab_id, follow_up } => Job::New { task, tab_id, follow_up, chat, app: None },
            SavedJob::Replay { replay, tab_id, scheduled } => Job::Replay { replay, tab_id, chat, scheduled },
        }
    }

    fn scheduled(&self) -> Option<String> {
        match self {
            Job::Replay { scheduled, .. } => scheduled.clone(),
            _ => None,
        }
    }
}

impl Core {
    /// Answers a page's request about the user's saved things (`agent_core::saved`).
    fn answer_saved(&self, request: PanelRequest, reply: Reply) {
        let (saved, browser) = (Rc::clone(&self.saved), Rc::clone(&self.browser));
        wasm_bindgen_futures::spawn_local(
            async move { reply.send(&saved.answer(&*browser, &WorkerTools, request).await) },
        );
    }

    /// Sends an event to the panels as chat `chat`'s, without recording it (the chat is not open).
    fn emit_to(&self, chat: &str, event: AgentEvent) {
        self.browser.emit_value(&protocol::encode_chat_event(chat, &event));
    }

    /// Shows an element a step acted on for a few seconds, unless a task works in its tab (its
    /// own boxes stay).
    fn point_out(&self, tab_id: Option<i32>, element: Highlight) {
        let browser = Rc::clone(&self.browser);
        let tasks = Rc::clone(&self.tasks);
        wasm_bindgen_futures::spawn_local(async move {
            const SHOWN_MS: u32 = 3000;
            let Ok(tab) = (match tab_id {
                Some(tab) => Ok(tab),
                None => browser.active_tab().await,
            }) else {
                return;
            };
            if tasks.owner_of(tab, "").is_some() {
                return;
            }
            // An element no longer there is simply not shown.
            if browser.highlight(tab, &[element]).await.is_ok() {
                browser.sleep(SHOWN_MS).await;
                let _ = browser.highlight(tab, &[]).await;
            }
        });
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
            let browser = Rc::clone(&self.browser);
            wasm_bindgen_futures::spawn_local(async move { browser.save_task(&waiting.chat, None).await });
        }
        self.tell_places();
    }

    /// Answers the question `id` of chat `chat`'s task (without a chat, of the task asking it).
    fn answer(&self, chat: Option<&str>, id: u32, decision: Review) {
        let asking = match chat {
            Some(chat) => self.tasks.select(Some(chat)).pop(),
            None => self.tasks.find(|task| task.user.is_asking(id)),
        };
        if let Some(task) = asking {
            task.user.answer(id, decision);
        }
    }

    /// Starts a task, or puts it in line when as many run as the user allows.
    fn start(&self, job: Job) {
        let core = self.share();
        wasm_bindgen_futures::spawn_local(async move {
            let limit = core.task_limit().await;
            // Checked, decided and registered at once, so that tasks started together (or twice)
            // count each other.
            let chat = job.chat().id().to_string();
            if core.tasks.is_busy(&chat) {
                let message: Message = text!("core_chat_busy").into();
                return match job.app() {
                    Some(app) => app.send(&mcp::result(app.id, false, &message)),
                    None => core.emit_to(&chat, AgentEvent::Error { message, steps: 0 }),
                };
            }
            if core.tasks.running_count() >= limit {
                let task = job.task().to_string();
                let saved = job.saved();
                let position = core.tasks.wait(Waiting { chat: chat.clone(), task: task.clone(), job });
                core.emit_to(&chat, AgentEvent::TaskQueued { task, position });
                if let Some(waiting) = saved {
                    core.browser.save_waiting(&chat, &SavedWaiting { waiting, since_ms: js_sys::Date::now() }).await;
                }
                return;
            }
            core.launch(chat, job);
        });
    }

    /// How many tasks may run at once (the default when the settings cannot be read).
    async fn task_limit(&self) -> usize {
        self.browser.load_settings().await.map_or(DEFAULT_PARALLEL_TASKS as usize, |settings| settings.task_limit())
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
        let core = self.share();
        wasm_bindgen_futures::spawn_local(async move {
            let limit = core.task_limit().await;
            while core.tasks.running_count() < limit {
                let Some(waiting) = core.tasks.next_waiting() else { break };
                core.launch(waiting.chat, waiting.job);
            }
            core.tell_places();
        });
    }

    /// Runs a task now, in its chat.
    fn launch(&self, chat: String, job: Job) {
        let app = job.app();
        let scheduled = job.scheduled();
        let asker = app.as_ref().map_or(Asker::Panel, |app| Asker::AppTask(app.id));
        let task = self.tasks.run(chat.clone(), asker);
        let core = self.share();
        wasm_bindgen_futures::spawn_local(async move {
            let Core { browser, tasks, chats, .. } = &core;
            match chats.begin(job.task(), job.chat()).await {
                // Not the chat's: it stays as it was.
                Err(message) => {
                    let error = AgentEvent::Error { message, steps: 0 };
                    if let Some(app) = &app {
                        app.on_event(&error);
                    }
                    core.emit_to(&chat, error);
                }
                Ok(open) => {
                    // The events go to the panels and the chat, and those an app follows to the app.
                    let emit = |event: AgentEvent| {
                        if let Some(app) = &app {
                            app.on_event(&event);
                        }
                        if let Some(workflow) = scheduled.as_deref().filter(|_| needs_notice(&event)) {
                            browser.notify(workflow, &protocol::encode_chat_event(&chat, &event));
                        }
                        open.emit(&event);
                    };
                    if let Some(app) = &app {
                        open.emit(&AgentEvent::AppDriving { client: app.client.clone() });
                    }
                    let time_limit_ms = app.as_ref().map(|_| mcp::APPROVAL_TIMEOUT_MS);
                    let gate = TimedGate { user: &task.user, browser, emit: &emit, time_limit_ms };
                    let conversation = Rc::clone(&open.conversation);
                    if let Err(message) = run(&core, &task, &gate, conversation, job, &emit).await {
                        emit(AgentEvent::Error { message, steps: 0 });
                    }
                    open.finish();
                }
            }
            browser.save_task(&chat, None).await;
            task.user.withdraw(None);
            tasks.end(&chat);
            core.start_waiting();
        });
    }

    /// Another handle on the same agent, for work that outlives the call that started it.
    fn share(&self) -> Core {
        Core {
            browser: Rc::clone(&self.browser),
            tasks: Rc::clone(&self.tasks),
            chats: Rc::clone(&self.chats),
            apps: Rc::clone(&self.apps),
            saved: Rc::clone(&self.saved),
        }
    }
}

/// The tab a task starts in: the one asked for, or the active one; when another task works
/// there, a new background tab with the same page, so that each task has its own.
async fn own_tab(core: &Core, task: &Task, tab: i32, emit: &dyn Fn(AgentEvent)) -> Result<i32, Message> {
    if core.tasks.owner_of(tab, &task.chat).is_none() {
        return Ok(tab);
    }
    let browser = &core.browser;
    let tabs = browser.tabs(tab).await.map_err(|err| err.text())?;
    let url = tabs.iter().find(|info| info.id == tab).map_or("about:blank", |info| info.url.as_str());
    // In the background, and opened by no tab: another task's action that opens a tab from
    // `tab` must not take it for its own.
    let opened = browser.open_background_tab(url).await?;
    emit(AgentEvent::Warning { message: text!("core_task_own_tab").into() });
    Ok(opened)
}

/// Prepares and runs one task; `Err` is a problem found before the first step.
async fn run(
    core: &Core,
    task: &Rc<Task>,
    gate: &impl UserGate,
    conversation: Rc<RefCell<History>>,
    job: Job,
    emit: &dyn Fn(AgentEvent),
) -> Result<(), Message> {
    let browser = &core.browser;
    let settings = browser.load_settings().await?;
    let tab_or_active = |tab_id: Option<i32>| async move {
        let tab = match tab_id {
            Some(tab) => tab,
            None => browser.active_tab().await?,
        };
        own_tab(core, task, tab, emit).await
    };
    let mut max_steps = settings.max_steps;
    let for_app = matches!(job, Job::New { app: Some(_), .. });
    let (description, tab, resume, replay) = match job {
        Job::New { task: description, app: Some(app), .. } => {
            max_steps = app.max_steps.unwrap_or(max_steps);
            let tab = match &app.url {
                // A tab of its own, shared with apps.
                Some(url) => apps::open_start_page(browser, &settings, browser.active_tab().await?, url).await?,
                // Only a tab the user shared with apps.
                None => own_tab(core, task, core.app_tab().await?, emit).await?,
            };
            (description, tab, None, None)
        }
        Job::New { task, tab_id, app: None, .. } => (task, tab_or_active(tab_id).await?, None, None),
        Job::Replay { replay, tab_id, .. } => (replay.task.clone(), tab_or_active(tab_id).await?, None, Some(replay)),
        Job::Resume { checkpoint, .. } => {
            let replay = checkpoint.replay.as_ref().map(|(replay, _)| replay.clone());
            (checkpoint.task.clone(), checkpoint.tab, Some(*checkpoint), replay)
        }
    };
    task.tab.set(Some(tab));
    let saver = Rc::clone(browser);
    let chat = task.chat.clone();
    let on_checkpoint = move |mut checkpoint: Checkpoint| {
        checkpoint.saved_at_ms = js_sys::Date::now();
        let (saver, chat) = (Rc::clone(&saver), chat.clone());
        wasm_bindgen_futures::spawn_local(async move { saver.save_task(&chat, Some(&checkpoint)).await });
    };
    let prepared = Prepared::new(&settings, description, tab, conversation).await?;
    let config = TaskConfig {
        max_steps,
        resume,
        on_checkpoint: Some(Rc::new(on_checkpoint)),
        on_end_tab: Some(apps::on_end_tab(&core.apps, task, for_app)),
        replay,
        ..prepared.config.clone()
    };
    match for_app {
        // An app's task sees and acts only in the tabs shared with apps.
        true => {
            let browser = shared_tabs::SharedTabs { browser };
            run_task(&config, &browser, prepared.models(), gate, &task.cancel, emit).await
        }
        false => run_task(&config, browser.as_ref(), prepared.models(), gate, &task.cancel, emit).await,
    };
    Ok(())
}

/// What a task (or a session an AI app drives) needs from the user's settings: its
/// configuration and each agent's model, checked before anything starts.
struct Prepared {
    config: TaskConfig,
    navigator: AnyModel<FetchClient>,
    planner: AnyModel<FetchClient>,
    validator: AnyModel<FetchClient>,
}

impl Prepared {
    async fn new(
        settings: &Settings,
        task: String,
        tab: i32,
        conversation: Rc<RefCell<History>>,
    ) -> Result<Prepared, Message> {
        settings.validate().map_err(|err| err.text())?;
        let policy = settings.site_policy().map_err(|err| err.text())?;
        let secrets = settings.named_secrets().map_err(|err| err.text())?;
        let names = settings.model_names();
        let model_named = |name: &str, options| {
            let http = FetchClient { timeout_ms: settings.request_timeout_seconds.max(1) * 1000 };
            AnyModel::new(settings.provider, &settings.base_url, name, &settings.api_key, options, http)
        };
        let navigator = model_named(&names[0], settings.model_options());
        let planner = model_named(&names[1], settings.agent_options(true));
        let validator = model_named(&names[2], settings.agent_options(false));
        let counters = agent_counters(settings).await;
        settings.check_token_budget(&counters).map_err(|err| err.text())?;
        let budget_of = |(name, counter): &(String, TokenCounter)| Budget {
            counter: counter.clone(),
            max_input_tokens: input_budget(settings.provider, name, Some(settings.max_input_tokens)),
        };
        let budgets = Budgets {
            navigator: budget_of(&counters[0]),
            planner: budget_of(&counters[1]),
            validator: budget_of(&counters[2]),
        };
        let config = TaskConfig {
            task,
            tab,
            max_steps: settings.max_steps,
            map: MapOptions::default(),
            highlights: settings.highlights,
            search_engine: settings.search_engine,
            trusted_input: settings.trusted_input,
            policy,
            strictness: settings.confirmations,
            site_plan: settings.site_plan,
            secrets,
            price: settings.model_price(),
            validator_rejections: settings.validator_rejections(),
            planning_interval: Some(settings.planning_interval).filter(|&n| n > 0),
            vision: settings.vision,
            ask_before_acting: settings.ask_before_acting,
            memory_interval: Some(settings.memory_interval).filter(|&n| n > 0),
            budgets,
            style: settings.request_style(),
            conversation,
            resume: None,
            on_checkpoint: None,
            on_end_tab: None,
            replay: None,
            answer_language: settings.answer_language.clone(),
        };
        Ok(Prepared { config, navigator, planner, validator })
    }

    fn models(&self) -> Models<'_, AnyModel<FetchClient>> {
        Models { navigator: &self.navigator, planner: &self.planner, validator: &self.validator }
    }
}

/// The alarm for a stored schedule's next run after `now` on the browser's local clock
/// (`{when}`), or `null` when it has no run left or is no longer valid (its workflow gone).
#[wasm_bindgen(js_name = scheduleAlarm)]
pub fn schedule_alarm(schedule: JsValue, workflows: JsValue, now: f64) -> Result<JsValue, JsValue> {
    let schedule: serde_json::Value = from_js(schedule)?;
    let workflows: Vec<serde_json::Value> = from_js(workflows)?;
    let schedule = workflow::Schedule::from_json(&schedule, &workflows).ok();
    let alarm = schedule.and_then(|schedule| schedule.alarm(now, &BrowserZone));
    Ok(alarm.map_or(JsValue::NULL, |alarm| to_js(&alarm)))
}

/// The browser's time zone: JS `Date` knows its offset from UTC at any instant.
struct BrowserZone;

impl workflow::LocalZone for BrowserZone {
    fn offset_ms(&self, utc_ms: f64) -> f64 {
        // `getTimezoneOffset` is UTC minus local time, in minutes.
        -js_sys::Date::new(&JsValue::from_f64(utc_ms)).get_timezone_offset() * 60_000.0
    }
}

/// Each agent's model name with its token counter (its vocabulary loaded).
async fn agent_counters(settings: &Settings) -> Vec<(String, TokenCounter)> {
    let mut counters = Vec::with_capacity(3);
    for name in settings.model_names() {
        let counter = vocabulary::token_counter(settings.provider, &name).await;
        counters.push((name, counter));
    }
    counters
}

/// What answering the pages needs of the worker: `fetch`, the models' vocabularies, the clock.
struct WorkerTools;

impl workflow::LocalZone for WorkerTools {
    fn offset_ms(&self, utc_ms: f64) -> f64 {
        BrowserZone.offset_ms(utc_ms)
    }
}

impl Tools for WorkerTools {
    type Http = FetchClient;

    fn http(&self, timeout_ms: u32) -> FetchClient {
        FetchClient { timeout_ms }
    }

    async fn token_counters(&self, settings: &Settings) -> Vec<(String, TokenCounter)> {
        agent_counters(settings).await
    }

    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }
}

/// Converts to a plain JavaScript object (maps as objects, not `Map`s).
/// A value from JavaScript, or why it is not one (as a JavaScript error).
fn from_js<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|err| JsValue::from_str(&err.to_string()))
}

fn to_js<T: Serialize>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or_else(|err| JsValue::from_str(&format!("unserializable value: {err}")))
}

/// Reads the user's settings, treating a missing record as empty.
fn settings_from_js(value: JsValue) -> Result<Settings, Text> {
    if value.is_undefined() || value.is_null() {
        return Ok(Settings::default());
    }
    serde_wasm_bindgen::from_value(value).map_err(|err| text!("core_settings_unreadable", err.to_string()))
}
