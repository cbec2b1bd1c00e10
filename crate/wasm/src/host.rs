//! The browser as the core sees it, implemented by the service worker's JavaScript host
//! (`extension/background/browser-host.js`).

use agent_core::agent::{AgentEvent, Checkpoint};
use agent_core::browser::trusted_input::InputCommand;
use agent_core::browser::PageOp;
use agent_core::browser::{
    Browser, BrowserError, GroupId, Highlight, HistoryStep, Navigation, OpOutcome, Screenshot, TabId, TabInfo,
};
use agent_core::chats::{Chat, ChatIndex};
use agent_core::dom_map::{ElementRef, RawFrame, RawPage};
use agent_core::i18n::Message;
use agent_core::llm::Image;
use agent_core::protocol::encode_event;
use agent_core::saved::Key;
use agent_core::settings::Settings;
use agent_core::text;
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// The JavaScript object the service worker passes to `new Core(host)`. Failing methods throw
    /// an `Error` whose `code` is `tab_closed`, `restricted`, `navigation` or `script`.
    pub type BrowserHost;

    #[wasm_bindgen(method, catch)]
    async fn observe(this: &BrowserHost, tab: TabId) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = elementUnchanged)]
    async fn element_unchanged(this: &BrowserHost, tab: TabId, element: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn navigate(this: &BrowserHost, tab: TabId, url: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn perform(this: &BrowserHost, tab: TabId, op: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn highlight(this: &BrowserHost, tab: TabId, marks: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn history(this: &BrowserHost, tab: TabId, step: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn tabs(this: &BrowserHost, tab: TabId) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = openTab)]
    async fn open_tab(this: &BrowserHost, tab: TabId, url: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = switchTab)]
    async fn switch_tab(this: &BrowserHost, tab: TabId) -> Result<JsValue, JsValue>;
    /// Opens `url` in a new tab that stays in the background (for a scheduled run, or a task
    /// whose tab another task works in); its id.
    #[wasm_bindgen(method, catch, js_name = openBackgroundTab)]
    async fn open_background_tab(this: &BrowserHost, url: &str) -> Result<JsValue, JsValue>;
    /// Tells the user, in a notification, what a scheduled run of workflow `workflow` needs or
    /// how it ended (`event`, as the panel gets it).
    #[wasm_bindgen(method)]
    fn notify(this: &BrowserHost, workflow: &str, event: JsValue);
    #[wasm_bindgen(method, catch, js_name = closeTab)]
    async fn close_tab(this: &BrowserHost, tab: TabId) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = groupTabs)]
    async fn group_tabs(this: &BrowserHost, tabs: Vec<TabId>, group: Option<GroupId>) -> Result<JsValue, JsValue>;
    /// `title`: a core text (`{key, args}`), which the host words in the user's language.
    #[wasm_bindgen(method, catch, js_name = nameGroup)]
    async fn name_group(this: &BrowserHost, group: GroupId, title: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = ungroupTabs)]
    async fn ungroup_tabs(this: &BrowserHost, tabs: Vec<TabId>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method)]
    async fn sleep(this: &BrowserHost, milliseconds: u32);
    #[wasm_bindgen(method, catch)]
    async fn screenshot(this: &BrowserHost, tab: TabId) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn input(this: &BrowserHost, tab: TabId, commands: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn restrict(this: &BrowserHost, rules: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method)]
    async fn finish(this: &BrowserHost, tabs: Vec<TabId>);
    #[wasm_bindgen(method, catch, js_name = loadSettings)]
    async fn load_settings(this: &BrowserHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = activeTab)]
    async fn active_tab(this: &BrowserHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method)]
    fn emit(this: &BrowserHost, event: JsValue);
    /// Tells the worker that the core panicked (`panic`: what and where), just before this
    /// instance traps (see panic.rs). Not `catch`: whatever it throws leaves this instance as the
    /// trap would, and must not be stored in the fresh one it makes.
    #[wasm_bindgen(method, js_name = corePanicked)]
    pub fn core_panicked(this: &BrowserHost, panic: &str);
    /// Saves the checkpoint of chat `chat`'s task where a restarted worker finds it; `null`
    /// clears it.
    #[wasm_bindgen(method, catch, js_name = saveTask)]
    async fn save_task(this: &BrowserHost, chat: &str, checkpoint: JsValue) -> Result<JsValue, JsValue>;
    /// Every saved checkpoint, as an object from chat id to checkpoint.
    #[wasm_bindgen(method, catch, js_name = loadTasks)]
    async fn load_tasks(this: &BrowserHost) -> Result<JsValue, JsValue>;
    /// The History's index: the stored chats' summaries (an array, or `undefined`).
    #[wasm_bindgen(method, catch, js_name = loadChatIndex)]
    async fn load_chat_index(this: &BrowserHost) -> Result<JsValue, JsValue>;
    /// One stored chat, or `null`.
    #[wasm_bindgen(method, catch, js_name = loadChat)]
    async fn load_chat(this: &BrowserHost, id: &str) -> Result<JsValue, JsValue>;
    /// The user's thing stored under `key` (`agent_core::saved::Key`), or `null`.
    #[wasm_bindgen(method, catch, js_name = readSaved)]
    async fn read_saved(this: &BrowserHost, key: &str) -> Result<JsValue, JsValue>;
    /// Stores the user's thing `key`, then does what follows from the change.
    #[wasm_bindgen(method, catch, js_name = writeSaved)]
    async fn write_saved(this: &BrowserHost, key: &str, value: JsValue) -> Result<JsValue, JsValue>;
    /// Writes the index and a chat (or `null`) together, then removes the chats named in `removed`.
    #[wasm_bindgen(method, catch, js_name = saveChats)]
    async fn save_chats(
        this: &BrowserHost,
        index: JsValue,
        chat: JsValue,
        removed: JsValue,
    ) -> Result<JsValue, JsValue>;
}

/// A task as a restarted worker finds it.
pub enum Saved {
    /// Running, at its checkpoint.
    Running(Box<Checkpoint>),
    /// Waiting in line.
    Waiting(SavedWaiting),
    Unreadable(String),
}

/// A task waiting in line, as saved: what starts it, and since when it waits (its place).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct SavedWaiting {
    pub waiting: SavedJob,
    pub since_ms: f64,
}

/// What starts a waiting task (an AI app's cannot wait for a worker restart: its call is gone).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SavedJob {
    New { task: String, tab_id: Option<i32>, follow_up: bool },
    Replay { replay: agent_core::agent::Replay, tab_id: Option<i32>, scheduled: Option<String> },
}

pub struct HostBrowser {
    host: BrowserHost,
}

impl HostBrowser {
    pub fn new(host: BrowserHost) -> Self {
        Self { host }
    }

    /// The JavaScript host itself, for the methods declared elsewhere (shared_tabs.rs).
    pub fn js(&self) -> &BrowserHost {
        &self.host
    }

    /// The tab's frames as the sensor read them, with how long each part of reading took and how
    /// many frames were read afresh.
    pub async fn observe_timed(&self, tab: TabId) -> Result<(Vec<RawFrame>, Observation), BrowserError> {
        let started = performance_now();
        let value = self.host.observe(tab).await.map_err(browser_error)?;
        let received = performance_now();
        let answers: Vec<FrameAnswer> = serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("the sensor's answers were malformed: {err}")))?;
        // Frames are read side by side: the slowest one is what the wait was for.
        let collect_ms = answers.iter().map(|answer| answer.collect_ms).fold(0.0, f64::max);
        let frames_read = answers.iter().filter(|answer| answer.json.is_some() && !answer.reused).count();
        let frames = answers.into_iter().map(FrameAnswer::into_frame).collect();
        let observation = Observation {
            frames_read,
            collect_ms,
            transfer_ms: (received - started - collect_ms).max(0.0),
            parse_ms: performance_now() - received,
        };
        Ok((frames, observation))
    }

    pub fn emit(&self, event: &AgentEvent) {
        self.emit_value(&encode_event(event));
    }

    /// Sends a message already in its wire form to every open panel.
    pub fn emit_value(&self, message: &serde_json::Value) {
        self.host.emit(super::to_js(message));
    }

    pub async fn load_chat_index(&self) -> Result<ChatIndex, String> {
        let value = self.host.load_chat_index().await.map_err(|err| error_message(&err))?;
        if value.is_null() || value.is_undefined() {
            return Ok(ChatIndex::default());
        }
        let value: serde_json::Value = serde_wasm_bindgen::from_value(value)
            .map_err(|err| format!("the History's index is unreadable ({err})"))?;
        Ok(ChatIndex::from_json(&value))
    }

    pub async fn load_chat(&self, id: &str) -> Result<Option<Chat>, String> {
        let value = self.host.load_chat(id).await.map_err(|err| error_message(&err))?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        serde_wasm_bindgen::from_value(value).map(Some).map_err(|err| format!("the stored chat is unreadable ({err})"))
    }

    pub async fn save_chats(&self, index: &ChatIndex, chat: Option<&Chat>, removed: &[String]) -> Result<(), String> {
        let chat = chat.map_or(JsValue::NULL, super::to_js);
        self.host
            .save_chats(super::to_js(index), chat, super::to_js(&removed))
            .await
            .map(drop)
            .map_err(|err| error_message(&err))
    }

    /// Saves a checkpoint of chat `chat`'s task, or clears it with `None`. A checkpoint that
    /// cannot be saved only costs the ability to resume, so the task goes on.
    pub async fn save_task(&self, chat: &str, checkpoint: Option<&Checkpoint>) {
        let value = checkpoint.map_or(JsValue::NULL, super::to_js);
        let _ = self.host.save_task(chat, value).await;
    }

    /// Saves a task waiting in line where a restarted worker finds it (in place of a checkpoint,
    /// which its start replaces); like a checkpoint, losing it only costs that.
    pub async fn save_waiting(&self, chat: &str, waiting: &SavedWaiting) {
        let _ = self.host.save_task(chat, super::to_js(waiting)).await;
    }

    /// What a worker restart interrupted, by chat: each task's checkpoint (read, or why not), or
    /// its place in line.
    pub async fn load_tasks(&self) -> Result<Vec<(String, Saved)>, String> {
        let value = self.host.load_tasks().await.map_err(|err| error_message(&err))?;
        let saved: std::collections::BTreeMap<String, serde_json::Value> =
            serde_wasm_bindgen::from_value(value).map_err(|err| format!("the saved tasks are unreadable ({err})"))?;
        let read = |value: serde_json::Value| match value.get("waiting") {
            Some(_) => serde_json::from_value(value).map(Saved::Waiting),
            None => serde_json::from_value(value).map(Saved::Running),
        };
        Ok(saved
            .into_iter()
            .map(|(chat, value)| {
                let saved = read(value)
                    .unwrap_or_else(|err| Saved::Unreadable(format!("the saved task is unreadable ({err})")));
                (chat, saved)
            })
            .collect())
    }

    pub async fn open_background_tab(&self, url: &str) -> Result<TabId, Message> {
        let value = self.host.open_background_tab(url).await.map_err(|err| error_message(&err))?;
        Ok(value.as_f64().map(|id| id as TabId).ok_or_else(|| text!("core_no_active_tab"))?)
    }

    pub fn notify(&self, workflow: &str, event: &serde_json::Value) {
        self.host.notify(workflow, super::to_js(event));
    }

    pub async fn load_settings(&self) -> Result<Settings, Message> {
        let value = self.host.load_settings().await.map_err(|err| error_message(&err))?;
        Ok(super::settings_from_js(value)?)
    }

    pub async fn active_tab(&self) -> Result<TabId, Message> {
        let value = self.host.active_tab().await.map_err(|err| error_message(&err))?;
        Ok(value.as_f64().map(|id| id as TabId).ok_or_else(|| text!("core_no_active_tab"))?)
    }
}

impl agent_core::saved::Store for HostBrowser {
    async fn read(&self, key: Key) -> Result<serde_json::Value, String> {
        let value = self.host.read_saved(key.name()).await.map_err(|err| error_message(&err))?;
        if value.is_null() || value.is_undefined() {
            return Ok(serde_json::Value::Null);
        }
        serde_wasm_bindgen::from_value(value).map_err(|err| format!("the stored {} are unreadable ({err})", key.name()))
    }

    async fn write(&self, key: Key, value: serde_json::Value) -> Result<(), String> {
        self.host.write_saved(key.name(), super::to_js(&value)).await.map(drop).map_err(|err| error_message(&err))
    }

    fn tell_pages(&self, message: &serde_json::Value) {
        self.emit_value(message);
    }
}

impl Browser for HostBrowser {
    async fn observe(&self, tab: TabId) -> Result<Vec<RawFrame>, BrowserError> {
        Ok(self.observe_timed(tab).await?.0)
    }

    async fn element_unchanged(&self, tab: TabId, element: &ElementRef) -> Result<bool, BrowserError> {
        let value = self.host.element_unchanged(tab, super::to_js(element)).await.map_err(browser_error)?;
        Ok(value.as_bool() == Some(true))
    }

    async fn navigate(&self, tab: TabId, url: &str) -> Result<Navigation, BrowserError> {
        navigation(self.host.navigate(tab, url).await.map_err(browser_error)?)
    }

    async fn highlight(&self, tab: TabId, marks: &[Highlight]) -> Result<(), BrowserError> {
        self.host.highlight(tab, super::to_js(&marks)).await.map(drop).map_err(browser_error)
    }

    async fn history(&self, tab: TabId, step: HistoryStep) -> Result<Navigation, BrowserError> {
        let step = match step {
            HistoryStep::Back => "back",
            HistoryStep::Forward => "forward",
            HistoryStep::Reload => "reload",
        };
        navigation(self.host.history(tab, step).await.map_err(browser_error)?)
    }

    async fn tabs(&self, tab: TabId) -> Result<Vec<TabInfo>, BrowserError> {
        let value = self.host.tabs(tab).await.map_err(browser_error)?;
        serde_wasm_bindgen::from_value(value).map_err(|err| BrowserError::Script(format!("unexpected tab list: {err}")))
    }

    async fn open_tab(&self, tab: TabId, url: &str) -> Result<(TabId, Navigation), BrowserError> {
        #[derive(Deserialize)]
        struct Opened {
            id: TabId,
            navigation: Navigation,
        }
        let value = self.host.open_tab(tab, url).await.map_err(browser_error)?;
        let opened: Opened = serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("unexpected new tab: {err}")))?;
        Ok((opened.id, opened.navigation))
    }

    async fn switch_tab(&self, tab: TabId) -> Result<(), BrowserError> {
        self.host.switch_tab(tab).await.map(drop).map_err(browser_error)
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BrowserError> {
        self.host.close_tab(tab).await.map(drop).map_err(browser_error)
    }

    async fn group_tabs(&self, tabs: &[TabId], group: Option<GroupId>) -> Result<GroupId, BrowserError> {
        let value = self.host.group_tabs(tabs.to_vec(), group).await.map_err(browser_error)?;
        value.as_f64().map(|id| id as GroupId).ok_or_else(|| BrowserError::Script("unexpected tab group".into()))
    }

    async fn name_group(&self, group: GroupId, title: &agent_core::i18n::Text) -> Result<(), BrowserError> {
        self.host.name_group(group, super::to_js(title)).await.map(drop).map_err(browser_error)
    }

    async fn ungroup_tabs(&self, tabs: &[TabId]) -> Result<(), BrowserError> {
        self.host.ungroup_tabs(tabs.to_vec()).await.map(drop).map_err(browser_error)
    }

    async fn sleep(&self, milliseconds: u32) {
        self.host.sleep(milliseconds).await;
    }

    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    async fn screenshot(&self, tab: TabId) -> Result<Screenshot, BrowserError> {
        let value = self.host.screenshot(tab).await.map_err(browser_error)?;
        let get = |key: &str| js_sys::Reflect::get(&value, &key.into()).ok().and_then(|v| v.as_string());
        match (get("mediaType"), get("base64")) {
            (Some(media_type), Some(base64)) => {
                Ok(Screenshot { image: Image { media_type, base64 }, thumbnail: get("thumbnail") })
            }
            _ => Err(BrowserError::Script("the screenshot could not be read".into())),
        }
    }

    async fn input(&self, tab: TabId, commands: &[InputCommand]) -> Result<OpOutcome, BrowserError> {
        let value = self.host.input(tab, super::to_js(&commands)).await.map_err(browser_error)?;
        serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("unexpected input result: {err}")))
    }

    async fn restrict(&self, rules: &[serde_json::Value]) -> Result<(), BrowserError> {
        self.host.restrict(super::to_js(&rules)).await.map(drop).map_err(browser_error)
    }

    async fn finish(&self, tabs: &[TabId]) {
        self.host.finish(tabs.to_vec()).await;
    }

    async fn perform(&self, tab: TabId, op: &PageOp) -> Result<OpOutcome, BrowserError> {
        let js_op = super::to_js(op);
        // The host waits for the page to settle (this long without changes) only after
        // operations that may change it.
        let settle = op.settle_quiet_ms().map_or(JsValue::FALSE, JsValue::from);
        let _ = js_sys::Reflect::set(&js_op, &"settle".into(), &settle);
        let value = self.host.perform(tab, js_op).await.map_err(browser_error)?;
        serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("the sensor sent an unexpected result: {err}")))
    }
}

/// What the host reported of a navigation.
fn navigation(value: JsValue) -> Result<Navigation, BrowserError> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|err| BrowserError::Script(format!("unexpected navigation report: {err}")))
}

fn browser_error(err: JsValue) -> BrowserError {
    let code = js_sys::Reflect::get(&err, &"code".into()).ok().and_then(|code| code.as_string());
    let message = error_message(&err);
    match code.as_deref() {
        Some("tab_closed") => BrowserError::TabClosed,
        Some("restricted") => BrowserError::Restricted { url: message },
        Some("navigation") => BrowserError::Navigation(message),
        _ => BrowserError::Script(message),
    }
}

fn error_message(err: &JsValue) -> String {
    js_sys::Reflect::get(err, &"message".into())
        .ok()
        .and_then(|message| message.as_string())
        .or_else(|| err.as_string())
        .unwrap_or_else(|| "unknown error".to_string())
}

/// What the host returns per frame: the sensor's record as JSON text (parsed here, which is much
/// faster than walking a JavaScript object), or why the frame could not be read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameAnswer {
    frame_id: i32,
    json: Option<String>,
    error: Option<String>,
    /// Time spent reading in the page.
    #[serde(default)]
    collect_ms: f64,
    /// The frame had not changed since it was last read: its last record was used again.
    #[serde(default)]
    reused: bool,
}

/// How reading a page went: how many frames were read afresh (the others had not changed, and
/// their last records were used again), and where the time went, in milliseconds.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Observation {
    pub frames_read: usize,
    /// Reading in the page (the slowest frame).
    pub collect_ms: f64,
    /// The rest of the wait for the host: injection, frame messages, moving the records over.
    pub transfer_ms: f64,
    /// Parsing the records in the core.
    pub parse_ms: f64,
}

/// A high-resolution clock (the worker's `performance.now()`), falling back to the date.
pub fn performance_now() -> f64 {
    let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).unwrap_or(JsValue::UNDEFINED);
    js_sys::Reflect::get(&performance, &"now".into())
        .ok()
        .and_then(|now| now.dyn_into::<js_sys::Function>().ok())
        .and_then(|now| now.call0(&performance).ok())
        .and_then(|value| value.as_f64())
        .unwrap_or_else(js_sys::Date::now)
}

impl FrameAnswer {
    fn into_frame(self) -> RawFrame {
        let page = match (self.json, self.error) {
            (Some(json), _) => serde_json::from_str::<RawPage>(&json)
                .map_err(|err| format!("the sensor's record could not be read ({err})")),
            (None, error) => Err(error.unwrap_or_else(|| "the frame did not answer".into())),
        };
        RawFrame { frame_id: self.frame_id, page }
    }
}
