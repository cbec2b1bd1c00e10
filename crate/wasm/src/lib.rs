//! The service worker's entry into the core: a shim that translates between JavaScript and the
//! core. The extension's JavaScript host becomes the core's [`agent_core::browser::Browser`] and
//! [`agent_core::tasks::Host`] (host.rs), `fetch` its HTTP client (fetch.rs); the task manager
//! ([`agent_core::tasks::TaskManager`]) makes every decision.

mod fetch;
mod film;
mod host;
mod panic;
mod vocabulary;

use agent_core::dom_map::describe;
use agent_core::i18n::Text;
use agent_core::llm::Provider;
use agent_core::mcp;
use agent_core::protocol;
use agent_core::settings::Settings;
use agent_core::tasks::{Reply, TaskManager};
use agent_core::text;
use agent_core::tokens::TokenCounter;
use agent_core::workflow;
use host::{BrowserHost, HostBrowser};
use serde::Serialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The agent as the service worker sees it: one per worker (see [`TaskManager`]).
#[wasm_bindgen]
pub struct Core {
    tasks: TaskManager<HostBrowser>,
}

#[wasm_bindgen]
impl Core {
    #[wasm_bindgen(constructor)]
    pub fn new(host: BrowserHost) -> Core {
        panic::install(&host);
        Core { tasks: TaskManager::new(Rc::new(HostBrowser::new(host))) }
    }

    /// Handles one message from a trusted page's port (the panel, the settings). Answers meant
    /// for the asking page alone (the History, the saved things, a request it could not read) go
    /// to `reply`, when given.
    #[wasm_bindgen(js_name = handlePanelMessage)]
    pub fn handle_panel_message(&self, message: JsValue, reply: Option<js_sys::Function>) {
        self.tasks.handle_panel_message(from_js(message).map_err(js_text), reply.map(reply_to));
    }

    /// Whether a port or message comes from our own panel page.
    #[wasm_bindgen(js_name = isTrustedSender)]
    pub fn is_trusted_sender(extension_id: &str, sender_id: Option<String>, sender_url: Option<String>) -> bool {
        protocol::is_trusted_sender(extension_id, sender_id.as_deref(), sender_url.as_deref())
    }

    /// The page map of a tab as the navigator would see it, with its size and where the time
    /// went: for the runner, the benchmark, the tests and anyone debugging what the agent sees.
    /// Resolves to `{ elements, indexed, text, timing: { collect_ms, transfer_ms, parse_ms,
    /// build_ms, serialize_ms } }`.
    #[wasm_bindgen(js_name = describePage)]
    pub fn describe_page(&self, tab: i32) -> js_sys::Promise {
        let browser = Rc::clone(self.tasks.host());
        wasm_bindgen_futures::future_to_promise(async move {
            let (frames, observed) =
                browser.observe_timed(tab).await.map_err(|err| JsValue::from_str(&err.to_string()))?;
            let description = describe(&frames, observed, host::performance_now);
            description.map(|description| to_js(&description)).map_err(|err| JsValue::from_str(&err))
        })
    }

    /// The vocabulary-free estimates of `text`'s tokens, `{ o200k, cl100k }`: what the core counts
    /// for a gpt-4o-like and a gpt-4-like model when no vocabulary is loaded, and the basis of
    /// every other model's estimate. For the benchmarks that check them against real tokenizers.
    #[wasm_bindgen(js_name = estimateTokens)]
    pub fn estimate_tokens(&self, text: &str) -> JsValue {
        let o200k = TokenCounter::estimate().text(text);
        let cl100k = TokenCounter::new(Provider::OpenAi, "gpt-4", None).text(text);
        to_js(&serde_json::json!({ "o200k": o200k, "cl100k": cl100k }))
    }

    /// Stores a chat (`{id, title, created, updated, events, conversation}`) in the History as a
    /// finished task would, bounds included: for tests. Resolves once it is written.
    #[wasm_bindgen(js_name = storeChat)]
    pub fn store_chat(&self, chat: JsValue) -> js_sys::Promise {
        let stored = from_js(chat).map(|chat| self.tasks.store_chat(chat));
        wasm_bindgen_futures::future_to_promise(async move {
            stored?.await.map(|()| JsValue::UNDEFINED).map_err(|err| JsValue::from_str(&err))
        })
    }

    /// What a panel learns when it connects: the tasks under way, each with its chat's events so
    /// far, and those waiting for a place.
    pub fn hello(&self) -> JsValue {
        to_js(&self.tasks.hello())
    }

    /// Runs a stored workflow (`workflow`, as stored) with `values`, as its schedule asks: in a new
    /// background tab at its start page, as a task of its own chat. Throws why it cannot run.
    #[wasm_bindgen(js_name = runScheduled)]
    pub fn run_scheduled(&self, workflow: JsValue, values: JsValue) -> Result<(), JsValue> {
        self.tasks.run_scheduled(&from_js(workflow)?, &from_js(values)?).map_err(|err| JsValue::from_str(&err))
    }

    /// Resumes the tasks a stopped worker left, if any: called once when the worker starts.
    /// Resolves once they are running again (or were ended with the user told why).
    #[wasm_bindgen(js_name = resumeInterrupted)]
    pub async fn resume_interrupted(&self) {
        self.tasks.resume_interrupted().await;
    }

    /// Handles one message from the MCP host; answers go to `reply`.
    #[wasm_bindgen(js_name = handleHostMessage)]
    pub fn handle_host_message(&self, message: JsValue, reply: js_sys::Function) {
        self.tasks.handle_host_message(from_js(message).map_err(js_text), reply_to(reply));
    }

    /// The name of the native messaging host to connect to.
    #[wasm_bindgen(js_name = mcpHostName)]
    pub fn mcp_host_name() -> String {
        mcp::HOST_NAME.to_string()
    }

    /// The host went away (the setting was turned off, or it ended): what apps started ends.
    #[wasm_bindgen(js_name = hostDisconnected)]
    pub fn host_disconnected(&self) {
        self.tasks.host_disconnected();
    }

    /// The question whether an app may use the agent, while it is asked (for a panel that opens
    /// meanwhile); `null` when none is.
    #[wasm_bindgen(js_name = pairingQuestion)]
    pub fn pairing_question(&self) -> JsValue {
        self.tasks.pairing_question().map_or(JsValue::NULL, |question| to_js(&question))
    }

    /// The user saved the settings: what limits the agent applies to the running tasks and the
    /// session an app drives from now on. Resolves once it does (in the browser's rules too).
    #[wasm_bindgen(js_name = settingsSaved)]
    pub fn settings_saved(&self) -> js_sys::Promise {
        let applied = self.tasks.settings_saved();
        wasm_bindgen_futures::future_to_promise(async move {
            applied.await;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The user revoked remembered apps in the settings: an app let in by its "Always" is asked
    /// again on its next call.
    #[wasm_bindgen(js_name = appsRevoked)]
    pub fn apps_revoked(&self) {
        self.tasks.apps_revoked();
    }
}

/// Where answers to a request go: a JavaScript function (a port's `postMessage`, guarded).
fn reply_to(function: js_sys::Function) -> Reply {
    Rc::new(move |message| drop(function.call1(&JsValue::NULL, &to_js(message))))
}

/// A JavaScript error's text.
fn js_text(err: JsValue) -> String {
    err.as_string().unwrap_or_else(|| format!("{err:?}"))
}

/// The alarm for a stored schedule's next run after `now` on the browser's local clock
/// (`{when}`), or `null` when it has no run left or is no longer valid (its workflow gone).
#[wasm_bindgen(js_name = scheduleAlarm)]
pub fn schedule_alarm(schedule: JsValue, workflows: JsValue, now: f64) -> Result<JsValue, JsValue> {
    let schedule: serde_json::Value = from_js(schedule)?;
    let workflows: Vec<serde_json::Value> = from_js(workflows)?;
    let schedule = workflow::Schedule::from_json(&schedule, &workflows).ok();
    let alarm = schedule.and_then(|schedule| schedule.alarm(now, &host::BrowserZone));
    Ok(alarm.map_or(JsValue::NULL, |alarm| to_js(&alarm)))
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
