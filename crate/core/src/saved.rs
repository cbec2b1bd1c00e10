//! The user's saved things: the settings, the workflows and their schedules, the saved tasks and
//! the AI apps allowed "Always". The worker alone writes them, at the pages' request (the page
//! requests of [`crate::protocol::PanelRequest`]): each request is checked here before anything
//! is written, and answered with what the asking page shows. Every write is then told to every
//! page (`changed`), so that a page showing the thing can show it anew.

use crate::agent::AgentEvent;
use crate::i18n::Text;
use crate::llm::local::find_local_servers;
use crate::llm::HttpClient;
use crate::protocol::{encode_event, malformed, message, PanelRequest};
use crate::safety::{Secret, Secrets};
use crate::settings::{Settings, SettingsError};
use crate::text;
use crate::tokens::TokenCounter;
use crate::workflow::{self, LocalZone, Schedule, Workflow};
use futures::lock::Mutex;
use serde_json::{json, Value};

/// At most this many saved tasks are kept.
pub const MAX_SAVED_TASKS: usize = 50;
/// A saved task's length, in characters.
const MAX_TASK_CHARS: usize = 4000;
/// Finding the model servers on this computer: nothing listening is refused at once, and a server
/// that hangs should not hold the first-run setup up.
const LOCAL_SERVER_TIMEOUT_MS: u32 = 3000;

/// What is stored, each under its own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Settings,
    Workflows,
    Schedules,
    SavedTasks,
    McpApps,
}

impl Key {
    /// The name it is stored under, and told to the pages by.
    pub fn name(self) -> &'static str {
        match self {
            Key::Settings => "settings",
            Key::Workflows => "workflows",
            Key::Schedules => "schedules",
            Key::SavedTasks => "savedTasks",
            Key::McpApps => "mcpApps",
        }
    }
}

/// Where the user's things are kept (the extension's storage, through the worker's host).
#[allow(async_fn_in_trait)] // The core runs on one thread (wasm); futures need not be Send.
pub trait Store {
    /// The value stored under `key`, `Null` when there is none.
    async fn read(&self, key: Key) -> Result<Value, String>;
    /// Stores `value` under `key` in place of what was there.
    async fn write(&self, key: Key, value: Value) -> Result<(), String>;
    /// Sends `message` to every open page.
    fn tell_pages(&self, message: &Value);
}

/// What the queries need beside the store: HTTP to ask a provider, each model's token counter,
/// and the time.
/// Also the browser's local time zone, for when each schedule runs next.
#[allow(async_fn_in_trait)]
pub trait Tools: LocalZone {
    type Http: HttpClient + Clone;
    /// An HTTP client whose requests give up after `timeout_ms`.
    fn http(&self, timeout_ms: u32) -> Self::Http;
    /// Each agent's model name ([`Settings::model_names`]) with its token counter.
    async fn token_counters(&self, settings: &Settings) -> Vec<(String, TokenCounter)>;
    fn now_ms(&self) -> f64;
}

/// The pages' way to the saved things: one change at a time, so that two pages saving at once
/// do not write over each other's change.
#[derive(Default)]
pub struct UserData {
    one_change_at_a_time: Mutex<()>,
}

/// A problem for the page to show: its English, and the text to translate when the core wrote it.
fn problem(text: Text) -> Value {
    json!({"message": text.english(), "localizable": text})
}

/// A problem in words from elsewhere (a workflow's check, a provider), shown as they are.
fn problem_in_english(english: impl Into<String>) -> Value {
    json!({"message": english.into()})
}

/// Storage that failed, and what to do.
fn storage_failed(why: String) -> Value {
    problem(text!("core_store_failed", why))
}

/// A setting at fault: the field, the English, the text to translate; for the secrets, which of
/// them is wrong (by its place in `secrets`) and whether in its name or its value.
fn settings_problem(settings: &Settings, err: &SettingsError) -> Value {
    let mut found = problem(err.text());
    found["field"] = Value::from(err.field());
    if matches!(err, SettingsError::BadSecret(_)) {
        found["secrets"] = Value::from(bad_secrets(settings));
    }
    found
}

/// The secrets refused on their own, each as `{index, part}`: `part` is `name` when a value would
/// not make it right, else `value`.
fn bad_secrets(settings: &Settings) -> Vec<Value> {
    let refused = |secret: &Secret| Secrets::new(vec![secret.clone()]).is_err();
    let bad = settings.secrets.iter().enumerate().filter(|(_, secret)| refused(secret));
    bad.map(|(index, secret)| {
        let with_value = Secret { value: "a value".into(), ..secret.clone() };
        json!({"index": index, "part": if refused(&with_value) { "name" } else { "value" }})
    })
    .collect()
}

/// Settings from a page or the store; none stored reads as the defaults.
fn settings_from(value: &Value) -> Result<Settings, Value> {
    if value.is_null() {
        return Ok(Settings::default());
    }
    serde_json::from_value(value.clone()).map_err(|err| {
        let mut found = problem(text!("core_settings_unreadable", err.to_string()));
        found["field"] = Value::from("baseUrl");
        found
    })
}

/// The checks of the settings page: valid settings, or the first problem.
fn check_settings(value: &Value) -> Result<Settings, Value> {
    let settings = settings_from(value)?;
    settings.validate().map_err(|err| settings_problem(&settings, &err))?;
    Ok(settings)
}

/// The checks of the settings page, and with `token_budget` that the budget holds every agent's
/// requests, counted as each model counts: valid settings, or the first problem.
async fn validate_settings(tools: &impl Tools, value: &Value, token_budget: bool) -> Result<Settings, Value> {
    let settings = check_settings(value)?;
    if token_budget {
        let counters = tools.token_counters(&settings).await;
        settings.check_token_budget(&counters).map_err(|err| settings_problem(&settings, &err))?;
    }
    Ok(settings)
}

/// What makes `tasks` unfit to be the saved tasks, or the tasks as stored (trimmed).
fn saved_tasks_from(tasks: &Value) -> Result<Vec<String>, Text> {
    let texts: Option<Vec<&str>> = tasks.as_array().and_then(|tasks| tasks.iter().map(Value::as_str).collect());
    let texts = texts.filter(|texts| texts.iter().all(|text| !text.trim().is_empty()));
    let texts = texts.ok_or_else(|| text!("core_saved_tasks_not_texts"))?;
    if texts.len() > MAX_SAVED_TASKS {
        return Err(text!("core_saved_tasks_too_many", MAX_SAVED_TASKS));
    }
    if texts.iter().any(|text| text.chars().count() > MAX_TASK_CHARS) {
        return Err(text!("core_saved_tasks_too_long", MAX_TASK_CHARS));
    }
    Ok(texts.iter().map(|text| text.trim().to_string()).collect())
}

/// `Some(problem)`, for the replies that carry one (or null).
fn outcome(result: Result<(), Value>) -> Value {
    json!({"problem": result.err()})
}

impl UserData {
    /// Answers a page's request about the saved things (those from `get_settings` on in
    /// [`PanelRequest`]), writing what it asks when it is right; the reply is for the asking page
    /// alone.
    pub async fn answer(&self, store: &impl Store, tools: &impl Tools, request: PanelRequest) -> Value {
        match request {
            PanelRequest::GetSettings {} => match store.read(Key::Settings).await {
                Ok(settings) => message("settings", json!({"settings": settings, "problem": null})),
                Err(why) => message("settings", json!({"settings": null, "problem": storage_failed(why)})),
            },
            PanelRequest::ValidateSettings { settings, token_budget } => message(
                "settings_validated",
                outcome(validate_settings(tools, &settings, token_budget).await.map(drop)),
            ),
            PanelRequest::SaveSettings { settings } => {
                message("settings_saved", outcome(self.save_settings(store, tools, settings).await))
            }
            PanelRequest::ListModels { settings } => message("models", list_models(tools, &settings).await),
            PanelRequest::FindLocalServers {} => {
                let servers = find_local_servers(tools.http(LOCAL_SERVER_TIMEOUT_MS)).await;
                message("local_servers", json!({"servers": servers}))
            }
            PanelRequest::ListWorkflows {} => message("workflows", list_workflows(store, tools.now_ms(), tools).await),
            PanelRequest::ProposeWorkflow { record } => message(
                "workflow_proposed",
                match Workflow::propose(&record) {
                    Ok(workflow) => json!({"workflow": workflow, "problem": null}),
                    Err(why) => json!({"workflow": null, "problem": problem_in_english(why)}),
                },
            ),
            PanelRequest::SaveWorkflow { workflow, name, names } => {
                let saved = self.change(store, Key::Workflows, |stored| {
                    let kept = workflow::save(&list(stored), &workflow, &name, names.as_deref());
                    kept.map(|kept| json!(kept)).map_err(problem_in_english)
                });
                message("workflow_saved", outcome(saved.await))
            }
            PanelRequest::DeleteWorkflow { name } => {
                message("workflow_deleted", outcome(self.delete_workflow(store, &name).await))
            }
            PanelRequest::WorkflowScript { workflow } => message(
                "script",
                match Workflow::from_json(&workflow) {
                    Ok(workflow) => json!({"script": workflow::playwright_script(&workflow), "problem": null}),
                    Err(why) => json!({"script": null, "problem": problem_in_english(why)}),
                },
            ),
            PanelRequest::SetSchedule { schedule } => {
                message("schedule_set", outcome(self.set_schedule(store, &schedule).await))
            }
            PanelRequest::RemoveSchedule { workflow } => {
                let removed = self.change(store, Key::Schedules, |stored| {
                    let kept = list(stored).into_iter().filter(|schedule| schedule["workflow"] != workflow.as_str());
                    Ok(Value::from_iter(kept))
                });
                message("schedule_removed", outcome(removed.await))
            }
            PanelRequest::GetSavedTasks {} => message(
                "saved_tasks",
                match store.read(Key::SavedTasks).await {
                    Ok(tasks) => {
                        let texts: Vec<Value> = list(tasks).into_iter().filter(Value::is_string).collect();
                        json!({"tasks": texts, "problem": null})
                    }
                    Err(why) => json!({"tasks": [], "problem": storage_failed(why)}),
                },
            ),
            PanelRequest::CheckSavedTasks { tasks } => {
                message("saved_tasks_checked", outcome(saved_tasks_from(&tasks).map(drop).map_err(problem)))
            }
            PanelRequest::SaveSavedTasks { tasks } => {
                let tasks = saved_tasks_from(&tasks).map(Value::from).map_err(problem);
                let saved = self.change(store, Key::SavedTasks, |_| tasks);
                message("saved_tasks_saved", outcome(saved.await))
            }
            PanelRequest::ListMcpApps {} => message("mcp_apps", self.revoke_app(store, None).await),
            PanelRequest::RevokeMcpApp { name } => message("mcp_apps", self.revoke_app(store, Some(&name)).await),
            // A task's request, which the worker handles itself.
            other => {
                let message = malformed(format!("{other:?} is not a request about saved things"));
                encode_event(&AgentEvent::Error { message, steps: 0 })
            }
        }
    }

    /// Writes what `change` makes of the stored value under `key`, unless it refuses (its
    /// problem), one change at a time; then tells the pages.
    async fn change(
        &self,
        store: &impl Store,
        key: Key,
        change: impl FnOnce(Value) -> Result<Value, Value>,
    ) -> Result<(), Value> {
        let _turn = self.one_change_at_a_time.lock().await;
        let stored = store.read(key).await.map_err(storage_failed)?;
        let value = change(stored)?;
        write(store, key, value).await
    }

    /// Stores settings once they pass the settings page's checks and their token budget holds
    /// every agent's requests, counted as each model counts.
    async fn save_settings(&self, store: &impl Store, tools: &impl Tools, value: Value) -> Result<(), Value> {
        validate_settings(tools, &value, true).await?;
        let _turn = self.one_change_at_a_time.lock().await;
        write(store, Key::Settings, value).await
    }

    /// Deletes a workflow and its schedule (a schedule names its workflow).
    async fn delete_workflow(&self, store: &impl Store, name: &str) -> Result<(), Value> {
        let _turn = self.one_change_at_a_time.lock().await;
        let workflows = list(store.read(Key::Workflows).await.map_err(storage_failed)?);
        let schedules = list(store.read(Key::Schedules).await.map_err(storage_failed)?);
        let kept = workflows.into_iter().filter(|workflow| workflow["name"] != name);
        write(store, Key::Workflows, Value::from_iter(kept)).await?;
        let kept = schedules.into_iter().filter(|schedule| schedule["workflow"] != name);
        write(store, Key::Schedules, Value::from_iter(kept)).await
    }

    /// Sets a schedule in place of its workflow's earlier one, checked against the stored workflows.
    async fn set_schedule(&self, store: &impl Store, schedule: &Value) -> Result<(), Value> {
        let _turn = self.one_change_at_a_time.lock().await;
        let workflows = list(store.read(Key::Workflows).await.map_err(storage_failed)?);
        let stored = list(store.read(Key::Schedules).await.map_err(storage_failed)?);
        let kept = workflow::set_schedule(&stored, &workflows, schedule).map_err(problem_in_english)?;
        write(store, Key::Schedules, json!(kept)).await
    }

    /// The AI apps allowed "Always", as the settings page lists them (`{name, since}`: what proves
    /// an app stays in the worker), after revoking `revoked` when given.
    async fn revoke_app(&self, store: &impl Store, revoked: Option<&str>) -> Value {
        let _turn = self.one_change_at_a_time.lock().await;
        let apps = match store.read(Key::McpApps).await {
            Ok(apps) => list(apps),
            Err(why) => return json!({"apps": [], "problem": storage_failed(why)}),
        };
        let (gone, kept): (Vec<Value>, Vec<Value>) =
            apps.into_iter().partition(|app| revoked.is_some_and(|name| app["name"] == name));
        let written = match gone.is_empty() {
            true => Ok(()),
            false => write(store, Key::McpApps, Value::from(kept.clone())).await,
        };
        let listed: Vec<Value> = kept.iter().map(|app| json!({"name": app["name"], "since": app["since"]})).collect();
        json!({"apps": listed, "problem": written.err()})
    }
}

/// A stored list; anything else (nothing stored) reads as empty.
fn list(value: Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items,
        _ => Vec::new(),
    }
}

/// Writes, then tells every page what changed.
async fn write(store: &impl Store, key: Key, value: Value) -> Result<(), Value> {
    store.write(key, value).await.map_err(storage_failed)?;
    store.tell_pages(&message("changed", json!({"what": key.name()})));
    Ok(())
}

/// The models the provider of `settings` offers, or why not.
async fn list_models(tools: &impl Tools, value: &Value) -> Value {
    let settings = match settings_from(value) {
        Ok(settings) => settings,
        Err(problem) => return json!({"models": [], "problem": problem}),
    };
    let http = tools.http(settings.request_timeout_ms());
    let model = settings.model(&settings.model, settings.model_options(), http);
    match model.list_models().await {
        Ok(models) => json!({"models": models, "problem": null}),
        Err(err) => json!({"models": [], "problem": problem(err.text())}),
    }
}

/// The stored workflows, and their schedules each with its next run (`next`, null when it has
/// none left or its workflow is gone).
async fn list_workflows(store: &impl Store, now_ms: f64, zone: &impl LocalZone) -> Value {
    let read = async {
        let workflows = list(store.read(Key::Workflows).await.map_err(storage_failed)?);
        let schedules = list(store.read(Key::Schedules).await.map_err(storage_failed)?);
        Ok::<_, Value>((workflows, schedules))
    };
    let (workflows, schedules) = match read.await {
        Ok(stored) => stored,
        Err(problem) => return json!({"workflows": [], "schedules": [], "problem": problem}),
    };
    let next_run = |schedule: &Value| {
        let alarm = Schedule::from_json(schedule, &workflows).ok().and_then(|schedule| schedule.alarm(now_ms, zone));
        alarm.map(|alarm| alarm.when)
    };
    let schedules: Vec<Value> = schedules
        .iter()
        .map(|schedule| {
            let mut shown = schedule.clone();
            shown["next"] = json!(next_run(schedule));
            shown
        })
        .collect();
    json!({"workflows": workflows, "schedules": schedules, "problem": null})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::testing::{ok, CannedHttp};
    use crate::llm::Provider;
    use futures::executor::block_on;
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// The extension's storage: what is stored by name, what the pages were told; `broken` makes
    /// every read and write fail.
    #[derive(Default)]
    struct FakeStore {
        stored: RefCell<HashMap<&'static str, Value>>,
        told: RefCell<Vec<Value>>,
        writes: RefCell<usize>,
        broken: bool,
    }

    impl Store for FakeStore {
        async fn read(&self, key: Key) -> Result<Value, String> {
            if self.broken {
                return Err("quota exceeded".into());
            }
            let value = self.stored.borrow().get(key.name()).cloned().unwrap_or(Value::Null);
            // As the browser's storage: the answer comes later, and others may go on meanwhile.
            YieldOnce(false).await;
            Ok(value)
        }

        async fn write(&self, key: Key, value: Value) -> Result<(), String> {
            if self.broken {
                return Err("quota exceeded".into());
            }
            *self.writes.borrow_mut() += 1;
            self.stored.borrow_mut().insert(key.name(), value);
            Ok(())
        }

        fn tell_pages(&self, message: &Value) {
            self.told.borrow_mut().push(message.clone());
        }
    }

    /// A future that lets the others run once before it is ready.
    struct YieldOnce(bool);

    impl std::future::Future for YieldOnce {
        type Output = ();

        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
            if self.0 {
                return std::task::Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }

    impl FakeStore {
        fn with(stored: &[(Key, Value)]) -> FakeStore {
            let store = FakeStore::default();
            store.stored.borrow_mut().extend(stored.iter().map(|(key, value)| (key.name(), value.clone())));
            store
        }

        fn get(&self, key: Key) -> Value {
            self.stored.borrow().get(key.name()).cloned().unwrap_or(Value::Null)
        }
    }

    struct FakeTools<'a> {
        http: &'a CannedHttp,
    }

    impl LocalZone for FakeTools<'_> {
        fn offset_ms(&self, _utc_ms: f64) -> f64 {
            0.0
        }
    }

    impl<'a> Tools for FakeTools<'a> {
        type Http = &'a CannedHttp;

        fn http(&self, _timeout_ms: u32) -> &'a CannedHttp {
            self.http
        }

        async fn token_counters(&self, settings: &Settings) -> Vec<(String, TokenCounter)> {
            let counter = |name: String| (name.clone(), TokenCounter::new(Provider::OpenAi, &name, None));
            settings.model_names().into_iter().map(counter).collect()
        }

        fn now_ms(&self) -> f64 {
            NOW_MS
        }
    }

    const NOW_MS: f64 = 1_700_000_000_000.0;

    /// Answers `request` (wire JSON, as a page sends it) with a fresh [`UserData`].
    fn ask(store: &FakeStore, request: Value) -> Value {
        let http = CannedHttp::new(Err("nothing listens".into()));
        ask_with(store, &http, request)
    }

    fn ask_with(store: &FakeStore, http: &CannedHttp, mut request: Value) -> Value {
        request["v"] = json!(1);
        let request = PanelRequest::parse(&request).expect("a page request");
        block_on(UserData::default().answer(store, &FakeTools { http }, request))
    }

    fn valid_settings() -> Value {
        json!({"provider": "openai-compatible", "baseUrl": "http://127.0.0.1:11434/v1", "model": "llama3.1"})
    }

    #[test]
    fn settings_are_saved_only_once_valid_and_the_pages_are_told() {
        let store = FakeStore::default();
        let refused = ask(&store, json!({"type": "save_settings", "settings": {"baseUrl": "http://x.test/v1"}}));
        assert_eq!(refused["type"], "settings_saved");
        assert_eq!(refused["problem"]["field"], "model");
        assert_eq!(refused["problem"]["localizable"]["key"], "core_settings_missing_model");
        assert_eq!(*store.writes.borrow(), 0, "nothing is written");
        assert!(store.told.borrow().is_empty());

        let saved = ask(&store, json!({"type": "save_settings", "settings": valid_settings()}));
        assert_eq!(saved, json!({"v": 1, "type": "settings_saved", "problem": null}));
        assert_eq!(store.get(Key::Settings), valid_settings(), "stored as the page sent them");
        assert_eq!(*store.told.borrow(), [json!({"v": 1, "type": "changed", "what": "settings"})]);
        let read = ask(&store, json!({"type": "get_settings"}));
        assert_eq!(read["settings"], valid_settings());
    }

    #[test]
    fn a_token_budget_too_small_for_the_requests_is_refused_on_save_and_when_asked() {
        let store = FakeStore::default();
        let mut settings = valid_settings();
        settings["maxInputTokens"] = json!(300);
        let checked = ask(&store, json!({"type": "validate_settings", "settings": settings}));
        assert_eq!(checked["problem"], Value::Null);
        let checked = ask(&store, json!({"type": "validate_settings", "settings": settings, "tokenBudget": true}));
        assert_eq!(checked["problem"]["field"], "maxInputTokens");
        let refused = ask(&store, json!({"type": "save_settings", "settings": settings}));
        assert_eq!(refused["problem"]["field"], "maxInputTokens");
        assert!(refused["problem"]["message"].as_str().unwrap().contains("300"));
        assert_eq!(store.get(Key::Settings), Value::Null);
    }

    #[test]
    fn a_refused_secret_is_named_by_its_place_and_the_part_to_fix() {
        let mut settings = valid_settings();
        settings["secrets"] = json!([
            {"name": "pin", "value": "1234"},
            {"name": "card number", "value": "4111"},
            {"name": "password", "value": " "},
        ]);
        let checked = ask(&FakeStore::default(), json!({"type": "validate_settings", "settings": settings}));
        assert_eq!(checked["type"], "settings_validated");
        assert_eq!(checked["problem"]["field"], "secrets");
        assert_eq!(checked["problem"]["secrets"], json!([{"index": 1, "part": "name"}, {"index": 2, "part": "value"}]));
        let unreadable =
            ask(&FakeStore::default(), json!({"type": "validate_settings", "settings": {"maxSteps": "x"}}));
        assert_eq!(unreadable["problem"]["field"], "baseUrl");
        assert_eq!(unreadable["problem"]["localizable"]["key"], "core_settings_unreadable");
    }

    #[test]
    fn models_are_listed_from_the_provider_or_why_not() {
        let http = CannedHttp::new(ok(r#"{"object":"list","data":[{"id":"llama3.1"},{"id":"qwen2.5"}]}"#));
        let listed =
            ask_with(&FakeStore::default(), &http, json!({"type": "list_models", "settings": valid_settings()}));
        assert_eq!(listed, json!({"v": 1, "type": "models", "models": ["llama3.1", "qwen2.5"], "problem": null}));
        assert_eq!(http.sent.borrow()[0].url, "http://127.0.0.1:11434/v1/models");
        let refused = ask(&FakeStore::default(), json!({"type": "list_models", "settings": valid_settings()}));
        assert_eq!(refused["models"], json!([]));
        assert_eq!(refused["problem"]["localizable"]["key"], "core_llm_unreachable");
        let found = ask(&FakeStore::default(), json!({"type": "find_local_servers"}));
        assert_eq!(found, json!({"v": 1, "type": "local_servers", "servers": []}), "nothing listens");
    }

    fn record() -> Value {
        json!({"task": "find blue", "outcome": {"type": "result", "success": true}, "steps": [{"planned": [
            {"action": {"input_text": {"index": 2, "text": "blue"}}, "element": {"fingerprint": "00000000000000aa", "description": "<input> \"Search\" [2]"}}
        ]}]})
    }

    #[test]
    fn a_workflow_is_proposed_saved_scheduled_and_deleted_with_its_schedule() {
        let store = FakeStore::default();
        let proposed = ask(&store, json!({"type": "propose_workflow", "record": record()}));
        assert_eq!(proposed["type"], "workflow_proposed");
        let workflow = proposed["workflow"].clone();
        assert_eq!(workflow["params"][0]["name"], "search");

        let saved = ask(
            &store,
            json!({"type": "save_workflow", "workflow": workflow, "name": " Colours ", "names": ["colour"]}),
        );
        assert_eq!(saved, json!({"v": 1, "type": "workflow_saved", "problem": null}));
        let again = ask(&store, json!({"type": "save_workflow", "workflow": workflow, "name": "Colours"}));
        assert!(again["problem"]["message"].as_str().unwrap().contains("already kept"));

        let schedule = json!({"workflow": "Colours", "values": {"colour": "red"}, "repeat": "daily", "first_ms": NOW_MS + 60_000.0});
        assert_eq!(ask(&store, json!({"type": "set_schedule", "schedule": schedule}))["problem"], Value::Null);
        let wrong = json!({"workflow": "Colours", "values": {"size": "L"}, "repeat": "daily", "first_ms": NOW_MS});
        let refused = ask(&store, json!({"type": "set_schedule", "schedule": wrong}));
        assert!(refused["problem"]["message"].as_str().unwrap().contains("no parameter \"size\""));

        let listed = ask(&store, json!({"type": "list_workflows"}));
        assert_eq!(listed["workflows"][0]["name"], "Colours");
        assert_eq!(listed["workflows"][0]["params"][0]["name"], "colour");
        assert_eq!(listed["schedules"][0]["values"], json!({"colour": "red"}));
        assert_eq!(listed["schedules"][0]["next"], json!(NOW_MS + 60_000.0));

        let script = ask(&store, json!({"type": "workflow_script", "workflow": listed["workflows"][0]}));
        assert!(script["script"].as_str().unwrap().contains("colour"));

        let deleted = ask(&store, json!({"type": "delete_workflow", "name": "Colours"}));
        assert_eq!(deleted["problem"], Value::Null);
        assert_eq!((store.get(Key::Workflows), store.get(Key::Schedules)), (json!([]), json!([])));
        let told: Vec<Value> = store.told.borrow().iter().map(|message| message["what"].clone()).collect();
        assert_eq!(told, ["workflows", "schedules", "workflows", "schedules"]);
    }

    #[test]
    fn two_changes_at_once_both_hold() {
        let store = FakeStore::default();
        let http = CannedHttp::new(Err("nothing listens".into()));
        let (data, tools) = (UserData::default(), FakeTools { http: &http });
        let workflow = serde_json::to_value(Workflow::propose(&record()).unwrap()).unwrap();
        let save = |name: &str| {
            let request = json!({"v": 1, "type": "save_workflow", "workflow": workflow, "name": name});
            data.answer(&store, &tools, PanelRequest::parse(&request).unwrap())
        };
        let (first, second) = block_on(futures::future::join(save("One"), save("Two")));
        assert_eq!((&first["problem"], &second["problem"]), (&Value::Null, &Value::Null));
        let names: Vec<Value> = list(store.get(Key::Workflows)).iter().map(|w| w["name"].clone()).collect();
        assert_eq!(names, ["One", "Two"], "neither wrote over the other");
    }

    #[test]
    fn a_schedule_is_removed_by_its_workflow() {
        let kept = json!({"workflow": "B", "repeat": "once", "first_ms": 1.0});
        let store =
            FakeStore::with(&[(Key::Schedules, json!([{"workflow": "A", "repeat": "once", "first_ms": 1.0}, kept]))]);
        let removed = ask(&store, json!({"type": "remove_schedule", "workflow": "A"}));
        assert_eq!(removed, json!({"v": 1, "type": "schedule_removed", "problem": null}));
        assert_eq!(store.get(Key::Schedules), json!([kept]));
    }

    #[test]
    fn saved_tasks_are_checked_then_stored_trimmed() {
        let store = FakeStore::with(&[(Key::SavedTasks, json!(["a", 3, "b"]))]);
        assert_eq!(ask(&store, json!({"type": "get_saved_tasks"}))["tasks"], json!(["a", "b"]));
        let too_many = vec!["task"; MAX_SAVED_TASKS + 1];
        let refused = ask(&store, json!({"type": "save_saved_tasks", "tasks": too_many}));
        assert_eq!(refused["problem"]["message"], "at most 50 tasks can be saved: delete one first");
        let checked = ask(&store, json!({"type": "check_saved_tasks", "tasks": ["ok", " "]}));
        assert_eq!(checked["problem"]["localizable"]["key"], "core_saved_tasks_not_texts");
        let long = "x".repeat(MAX_TASK_CHARS + 1);
        assert_eq!(
            ask(&store, json!({"type": "check_saved_tasks", "tasks": [long]}))["problem"]["localizable"]["key"],
            "core_saved_tasks_too_long"
        );
        assert_eq!(*store.writes.borrow(), 0);
        let saved = ask(&store, json!({"type": "save_saved_tasks", "tasks": [" find {shop} "]}));
        assert_eq!(saved, json!({"v": 1, "type": "saved_tasks_saved", "problem": null}));
        assert_eq!(store.get(Key::SavedTasks), json!(["find {shop}"]));
    }

    #[test]
    fn an_app_allowed_always_is_listed_without_its_proof_and_revoked() {
        let apps = json!([{"name": "Claude", "tokenHash": "ab12", "since": 5}, {"name": "Cursor", "tokenHash": "cd34", "since": 6}]);
        let store = FakeStore::with(&[(Key::McpApps, apps)]);
        let listed = ask(&store, json!({"type": "list_mcp_apps"}));
        assert_eq!(listed["apps"], json!([{"name": "Claude", "since": 5}, {"name": "Cursor", "since": 6}]));
        assert_eq!(*store.writes.borrow(), 0);
        let revoked = ask(&store, json!({"type": "revoke_mcp_app", "name": "Claude"}));
        assert_eq!(
            revoked,
            json!({"v": 1, "type": "mcp_apps", "apps": [{"name": "Cursor", "since": 6}], "problem": null})
        );
        assert_eq!(store.get(Key::McpApps), json!([{"name": "Cursor", "tokenHash": "cd34", "since": 6}]));
        assert_eq!(store.told.borrow()[0]["what"], "mcpApps");
    }

    #[test]
    fn storage_that_fails_is_said_in_the_reply() {
        let store = FakeStore { broken: true, ..FakeStore::default() };
        let saved = ask(&store, json!({"type": "save_settings", "settings": valid_settings()}));
        assert_eq!(saved["problem"]["localizable"], json!({"key": "core_store_failed", "args": ["quota exceeded"]}));
        assert_eq!(saved["problem"]["message"], "The extension's storage failed (quota exceeded): try again.");
        let listed = ask(&store, json!({"type": "list_workflows"}));
        assert_eq!(listed["problem"]["localizable"]["key"], "core_store_failed");
        assert!(store.told.borrow().is_empty());
    }

    #[test]
    fn the_tasks_requests_are_not_answered_here() {
        let request = PanelRequest::Stop { chat: None };
        let http = CannedHttp::new(Err("nothing listens".into()));
        let answer = block_on(UserData::default().answer(&FakeStore::default(), &FakeTools { http: &http }, request));
        assert_eq!(answer["type"], "error");
    }
}
