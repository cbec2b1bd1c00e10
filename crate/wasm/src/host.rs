//! The browser and the worker as the core sees them ([`Browser`], [`Host`]), implemented by the
//! service worker's JavaScript host (`extension/background/browser-host.js`).

use crate::fetch::FetchClient;
use crate::{to_js, vocabulary};
use agent_core::browser::trusted_input::InputCommand;
use agent_core::browser::PageOp;
use agent_core::browser::{
    Browser, BrowserError, GroupId, Highlight, HistoryStep, Navigation, OpOutcome, Screenshot, TabId, TabInfo,
};
use agent_core::browser::{Download, HeldWrite, WriteHold};
use agent_core::chats::{Chat, ChatIndex};
use agent_core::dom_map::{frames_of, ElementRef, FrameAnswer, Observation, RawFrame};
use agent_core::i18n::Message;
use agent_core::llm::{Image, Provider};
use agent_core::saved::Key;
use agent_core::settings::Settings;
use agent_core::tasks::Host;
use agent_core::text;
use agent_core::tokens::TokenCounter;
use agent_core::workflow::LocalZone;
use futures::future::LocalBoxFuture;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// The JavaScript object the service worker passes to `new Core(host)`: its methods are those
    /// of the core's `Browser` and `Host` (`null` for none). Failing methods throw an `Error`
    /// whose `code` is `tab_closed`, `restricted`, `navigation` or `script`.
    pub type BrowserHost;

    #[wasm_bindgen(method, catch)]
    async fn observe(this: &BrowserHost, tab: TabId) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = elementUnchanged)]
    async fn element_unchanged(this: &BrowserHost, tab: TabId, element: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = frameUrls)]
    async fn frame_urls(this: &BrowserHost, tab: TabId) -> Result<JsValue, JsValue>;
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
    #[wasm_bindgen(method, catch, js_name = openBackgroundTab)]
    async fn open_background_tab(this: &BrowserHost, url: &str) -> Result<JsValue, JsValue>;
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
    async fn restrict(this: &BrowserHost, tabs: Vec<TabId>, rules: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = holdWrites)]
    async fn hold_writes(this: &BrowserHost, tab: TabId, hold: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method)]
    async fn finish(this: &BrowserHost, tabs: Vec<TabId>);
    /// Resolves with a `Uint8Array`.
    #[wasm_bindgen(method, catch, js_name = readFile)]
    async fn read_file(this: &BrowserHost, handle: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    async fn downloads(this: &BrowserHost, tabs: Vec<TabId>, since_ms: f64, max_bytes: f64)
        -> Result<JsValue, JsValue>;
    /// Resolves with a `Uint8Array`.
    #[wasm_bindgen(method, catch, js_name = shownFile)]
    async fn shown_file(this: &BrowserHost, tab: TabId, max_bytes: f64) -> Result<JsValue, JsValue>;
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
    #[wasm_bindgen(method, catch, js_name = saveTask)]
    async fn save_task(this: &BrowserHost, chat: &str, checkpoint: JsValue) -> Result<JsValue, JsValue>;
    /// Resolves with the handle of the file (`{name, mime, bytes}`) now held (task-files.js).
    #[wasm_bindgen(method, catch, js_name = holdFile)]
    async fn hold_file(this: &BrowserHost, file: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = releaseFiles)]
    async fn release_files(this: &BrowserHost, handles: Vec<String>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = loadTasks)]
    async fn load_tasks(this: &BrowserHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = loadChatIndex)]
    async fn load_chat_index(this: &BrowserHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = loadChat)]
    async fn load_chat(this: &BrowserHost, id: &str) -> Result<JsValue, JsValue>;
    /// The user's thing stored under `key` (`agent_core::saved::Key`), or `null`.
    #[wasm_bindgen(method, catch, js_name = readSaved)]
    async fn read_saved(this: &BrowserHost, key: &str) -> Result<JsValue, JsValue>;
    /// Stores the user's thing `key`, then does what follows from the change.
    #[wasm_bindgen(method, catch, js_name = writeSaved)]
    async fn write_saved(this: &BrowserHost, key: &str, value: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = saveChats)]
    async fn save_chats(
        this: &BrowserHost,
        index: JsValue,
        chat: JsValue,
        removed: JsValue,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = sharedTabs)]
    async fn shared_tabs(this: &BrowserHost) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = shareTabs)]
    async fn share_tabs(this: &BrowserHost, tabs: Vec<TabId>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = appRemembered)]
    async fn app_remembered(this: &BrowserHost, client: &str, token: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = rememberApp)]
    async fn remember_app(this: &BrowserHost, client: &str) -> Result<JsValue, JsValue>;
}

pub struct HostBrowser {
    host: BrowserHost,
}

impl HostBrowser {
    pub fn new(host: BrowserHost) -> Self {
        Self { host }
    }

    /// The tab's frames as the sensor read them, with how many were read afresh and how long
    /// each part of reading took.
    pub async fn observe_timed(&self, tab: TabId) -> Result<(Vec<RawFrame>, Observation), BrowserError> {
        let started = performance_now();
        let value = self.host.observe(tab).await.map_err(browser_error)?;
        let received = performance_now();
        let answers: Vec<FrameAnswer> = serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("the sensor's answers were malformed: {err}")))?;
        let (frames, read) = frames_of(answers);
        let observation = Observation {
            transfer_ms: (received - started - read.collect_ms).max(0.0),
            parse_ms: performance_now() - received,
            ..read
        };
        Ok((frames, observation))
    }
}

/// A tab id the host answered, or `missing`.
fn tab_id(value: JsValue, missing: Message) -> Result<TabId, Message> {
    value.as_f64().map(|id| id as TabId).ok_or(missing)
}

/// A value the host answered, `null` and `undefined` as `None`.
fn optional<T: serde::de::DeserializeOwned>(value: JsValue, what: &str) -> Result<Option<T>, String> {
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    serde_wasm_bindgen::from_value(value).map(Some).map_err(|err| format!("{what} is unreadable ({err})"))
}

impl Host for HostBrowser {
    type Browser = HostBrowser;
    type Http = FetchClient;

    fn browser(&self) -> &HostBrowser {
        self
    }

    fn spawn(&self, work: LocalBoxFuture<'static, ()>) {
        wasm_bindgen_futures::spawn_local(work);
    }

    async fn sleep(&self, milliseconds: u32) {
        self.host.sleep(milliseconds).await;
    }

    fn random(&self) -> u32 {
        (js_sys::Math::random() * f64::from(u32::MAX)) as u32
    }

    fn http(&self, timeout_ms: u32) -> FetchClient {
        FetchClient { timeout_ms }
    }

    async fn token_counter(&self, provider: Provider, model: &str) -> TokenCounter {
        vocabulary::token_counter(provider, model).await
    }

    fn emit(&self, message: &Value) {
        self.host.emit(to_js(message));
    }

    fn notify(&self, workflow: &str, event: &Value) {
        self.host.notify(workflow, to_js(event));
    }

    async fn active_tab(&self) -> Result<TabId, Message> {
        let value = self.host.active_tab().await.map_err(|err| error_message(&err))?;
        tab_id(value, text!("core_no_active_tab").into())
    }

    async fn open_background_tab(&self, url: &str) -> Result<TabId, Message> {
        let value = self.host.open_background_tab(url).await.map_err(|err| error_message(&err))?;
        tab_id(value, text!("core_no_active_tab").into())
    }

    async fn shared_tabs(&self) -> Vec<TabId> {
        let ids = self.host.shared_tabs().await.ok();
        ids.and_then(|ids| serde_wasm_bindgen::from_value::<Vec<TabId>>(ids).ok()).unwrap_or_default()
    }

    async fn share_tabs(&self, tabs: &[TabId]) -> Result<GroupId, BrowserError> {
        let group =
            self.host.share_tabs(tabs.to_vec()).await.map_err(|err| BrowserError::Script(error_message(&err)))?;
        group.as_f64().map(|id| id as GroupId).ok_or_else(|| BrowserError::Script("no tab group was made".into()))
    }

    async fn app_remembered(&self, client: &str, token: &str) -> bool {
        self.host.app_remembered(client, token).await.ok().and_then(|known| known.as_bool()) == Some(true)
    }

    async fn remember_app(&self, client: &str) -> Result<String, String> {
        let token = self.host.remember_app(client).await.map_err(|err| error_message(&err))?;
        token.as_string().filter(|token| !token.is_empty()).ok_or_else(|| "no token was made".into())
    }

    async fn load_settings(&self) -> Result<Settings, Message> {
        let value = self.host.load_settings().await.map_err(|err| error_message(&err))?;
        Ok(crate::settings_from_js(value)?)
    }

    async fn save_task(&self, chat: &str, saved: Option<Value>) {
        let _ = self.host.save_task(chat, saved.as_ref().map_or(JsValue::NULL, to_js)).await;
    }

    async fn hold_file(&self, name: &str, mime: &str, bytes: &[u8]) -> Result<String, String> {
        let file = js_sys::Object::new();
        for (key, value) in [
            ("name", JsValue::from_str(name)),
            ("mime", JsValue::from_str(mime)),
            ("bytes", js_sys::Uint8Array::from(bytes).into()),
        ] {
            js_sys::Reflect::set(&file, &JsValue::from_str(key), &value).map_err(|err| error_message(&err))?;
        }
        let handle = self.host.hold_file(file.into()).await.map_err(|err| error_message(&err))?;
        handle.as_string().ok_or_else(|| "the worker gave no handle for the file".to_string())
    }

    async fn release_files(&self, handles: &[String]) {
        // A file not let go of stays in the extension's own storage; nothing the task can mend.
        let _ = self.host.release_files(handles.to_vec()).await;
    }

    async fn load_tasks(&self) -> Result<BTreeMap<String, Value>, String> {
        let value = self.host.load_tasks().await.map_err(|err| error_message(&err))?;
        Ok(optional(value, "the saved tasks")?.unwrap_or_default())
    }

    async fn load_chat_index(&self) -> Result<ChatIndex, String> {
        let value = self.host.load_chat_index().await.map_err(|err| error_message(&err))?;
        let index: Option<Value> = optional(value, "the History's index")?;
        Ok(index.map(|index| ChatIndex::from_json(&index)).unwrap_or_default())
    }

    async fn load_chat(&self, id: &str) -> Result<Option<Chat>, String> {
        let value = self.host.load_chat(id).await.map_err(|err| error_message(&err))?;
        optional(value, "the stored chat")
    }

    async fn save_chats(&self, index: &ChatIndex, chat: Option<&Chat>, removed: &[String]) -> Result<(), String> {
        let chat = chat.map_or(JsValue::NULL, to_js);
        let saved = self.host.save_chats(to_js(index), chat, to_js(&removed)).await;
        saved.map(drop).map_err(|err| error_message(&err))
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
        self.host.write_saved(key.name(), to_js(&value)).await.map(drop).map_err(|err| error_message(&err))
    }

    fn tell_pages(&self, message: &serde_json::Value) {
        Host::emit(self, message);
    }
}

impl LocalZone for HostBrowser {
    fn offset_ms(&self, utc_ms: f64) -> f64 {
        BrowserZone.offset_ms(utc_ms)
    }
}

/// The browser's time zone: JS `Date` knows its offset from UTC at any instant.
pub struct BrowserZone;

impl LocalZone for BrowserZone {
    fn offset_ms(&self, utc_ms: f64) -> f64 {
        // `getTimezoneOffset` is UTC minus local time, in minutes.
        -js_sys::Date::new(&JsValue::from_f64(utc_ms)).get_timezone_offset() * 60_000.0
    }
}

impl Browser for HostBrowser {
    async fn observe(&self, tab: TabId) -> Result<Vec<RawFrame>, BrowserError> {
        Ok(self.observe_timed(tab).await?.0)
    }

    async fn element_unchanged(&self, tab: TabId, element: &ElementRef) -> Result<bool, BrowserError> {
        let value = self.host.element_unchanged(tab, to_js(element)).await.map_err(browser_error)?;
        Ok(value.as_bool() == Some(true))
    }

    async fn frame_urls(&self, tab: TabId) -> Result<Vec<String>, BrowserError> {
        let value = self.host.frame_urls(tab).await.map_err(browser_error)?;
        serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("unexpected frame list: {err}")))
    }

    async fn navigate(&self, tab: TabId, url: &str) -> Result<Navigation, BrowserError> {
        navigation(self.host.navigate(tab, url).await.map_err(browser_error)?)
    }

    async fn highlight(&self, tab: TabId, marks: &[Highlight]) -> Result<(), BrowserError> {
        self.host.highlight(tab, to_js(&marks)).await.map(drop).map_err(browser_error)
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
        self.host.name_group(group, to_js(title)).await.map(drop).map_err(browser_error)
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
        let value = self.host.input(tab, to_js(&commands)).await.map_err(browser_error)?;
        serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("unexpected input result: {err}")))
    }

    async fn restrict(&self, tabs: &[TabId], rules: &[serde_json::Value]) -> Result<(), BrowserError> {
        self.host.restrict(tabs.to_vec(), to_js(&rules)).await.map(drop).map_err(browser_error)
    }

    async fn hold_writes(&self, tab: TabId, hold: Option<&WriteHold>) -> Result<Vec<HeldWrite>, BrowserError> {
        let value = self.host.hold_writes(tab, to_js(&hold)).await.map_err(browser_error)?;
        serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("unexpected list of held requests: {err}")))
    }

    async fn finish(&self, tabs: &[TabId]) {
        self.host.finish(tabs.to_vec()).await;
    }

    async fn read_file(&self, handle: &str) -> Result<Vec<u8>, BrowserError> {
        let bytes = self.host.read_file(handle).await.map_err(browser_error)?;
        Ok(js_sys::Uint8Array::new(&bytes).to_vec())
    }

    async fn downloads(&self, tabs: &[TabId], since_ms: f64, max_bytes: u64) -> Result<Vec<Download>, BrowserError> {
        let value = self.host.downloads(tabs.to_vec(), since_ms, max_bytes as f64).await.map_err(browser_error)?;
        serde_wasm_bindgen::from_value(value)
            .map_err(|err| BrowserError::Script(format!("unexpected download list: {err}")))
    }

    async fn shown_file(&self, tab: TabId, max_bytes: u64) -> Result<Vec<u8>, BrowserError> {
        let bytes = self.host.shown_file(tab, max_bytes as f64).await.map_err(browser_error)?;
        Ok(js_sys::Uint8Array::new(&bytes).to_vec())
    }

    async fn perform(&self, tab: TabId, op: &PageOp) -> Result<OpOutcome, BrowserError> {
        let js_op = to_js(op);
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
