//! The task manager natively: the agent tests' fake shop as the browser, storage and panels kept
//! in memory, a model server that replies from a script (and holds requests while a test keeps
//! tasks running), and every spawned future run by a local executor until nothing can move.

use super::job::{SavedJob, SavedWaiting};
use super::{Host, Reply, TaskManager};
use crate::agent::fakes::{reply, FakeShop};
use crate::browser::{Browser, BrowserError, GroupId, TabId};
use crate::chats::{Chat, ChatIndex};
use crate::i18n::Message;
use crate::llm::testing::assert_obeys_schema;
use crate::llm::{HttpClient, HttpResponse, Provider};
use crate::messages::History;
use crate::saved::{Key, Store};
use crate::settings::Settings;
use crate::tokens::TokenCounter;
use crate::workflow::{LocalZone, Workflow};
use futures::channel::oneshot;
use futures::executor::{LocalPool, LocalSpawner};
use futures::future::{FutureExt, LocalBoxFuture, Shared};
use futures::task::LocalSpawnExt;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::rc::Rc;

/// A model server speaking OpenAI's chat completions: each request gets the next scripted reply
/// (a `done` once the script is out), checked against the request's schema; while held, requests
/// wait until released.
#[derive(Default)]
struct ModelServer {
    replies: RefCell<VecDeque<String>>,
    held: RefCell<Option<Shared<oneshot::Receiver<()>>>>,
    release: RefCell<Option<oneshot::Sender<()>>>,
}

impl ModelServer {
    /// Requests wait from now on, until [`ModelServer::release`].
    fn hold(&self) {
        let (release, held) = oneshot::channel();
        *self.held.borrow_mut() = Some(held.shared());
        *self.release.borrow_mut() = Some(release);
    }

    fn release(&self) {
        self.held.take();
        if let Some(release) = self.release.take() {
            let _ = release.send(());
        }
    }
}

/// The navigator's answer that ends a task.
fn done(text: &str) -> String {
    reply(&json!([{"do": "done", "text": text, "success": true}]).to_string()).unwrap()
}

#[derive(Clone)]
struct ModelHttp(Rc<ModelServer>);

impl HttpClient for ModelHttp {
    async fn post_json(&self, _url: &str, _headers: &[(String, String)], body: String) -> Result<HttpResponse, String> {
        let held = self.0.held.borrow().clone();
        if let Some(held) = held {
            let _ = held.await;
        }
        let request: Value = serde_json::from_str(&body).unwrap();
        let reply = self.0.replies.borrow_mut().pop_front().unwrap_or_else(|| done("The total is $12.00"));
        assert_obeys_schema(&request["response_format"]["json_schema"]["schema"], &reply);
        let usage = json!({"prompt_tokens": 100, "completion_tokens": 20});
        let body = json!({"choices": [{"message": {"role": "assistant", "content": reply}}], "usage": usage});
        Ok(HttpResponse { status: 200, body: body.to_string(), retry_after: None })
    }

    async fn get(&self, url: &str, _headers: &[(String, String)]) -> Result<HttpResponse, String> {
        Err(format!("nothing is served at {url}"))
    }

    /// Answers whole, as a server that does not stream.
    async fn post_stream(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: String,
        _on_chunk: &dyn Fn(&str),
    ) -> Result<HttpResponse, String> {
        self.post_json(url, headers, body).await
    }

    async fn sleep(&self, _milliseconds: u32) {}

    fn jitter(&self) -> f64 {
        1.0
    }
}

/// The worker around the task manager, in memory. Its timers never fire (no test waits for one),
/// unless `timers_fire`: then each fires at once, as if its time had passed.
struct FakeHost {
    timers_fire: Cell<bool>,
    shop: FakeShop,
    spawner: LocalSpawner,
    model: Rc<ModelServer>,
    settings: RefCell<Settings>,
    /// Every message sent to the panels.
    emitted: RefCell<Vec<Value>>,
    /// Every notification: the workflow, and the event.
    notified: RefCell<Vec<(String, Value)>>,
    saved_tasks: RefCell<BTreeMap<String, Value>>,
    index: RefCell<ChatIndex>,
    chats: RefCell<HashMap<String, Chat>>,
    /// The addresses opened in background tabs.
    opened: RefCell<Vec<String>>,
    shared: RefCell<Vec<TabId>>,
    random: Cell<u32>,
    /// The user's saved things but the settings (kept in `settings`), by name.
    saved: RefCell<HashMap<&'static str, Value>>,
}

/// The settings as the worker stores them (the one record `load_settings` reads too).
impl Store for FakeHost {
    async fn read(&self, key: Key) -> Result<Value, String> {
        Ok(match key {
            Key::Settings => serde_json::to_value(&*self.settings.borrow()).unwrap(),
            key => self.saved.borrow().get(key.name()).cloned().unwrap_or(Value::Null),
        })
    }

    async fn write(&self, key: Key, value: Value) -> Result<(), String> {
        match key {
            Key::Settings => {
                *self.settings.borrow_mut() = serde_json::from_value(value).map_err(|err| err.to_string())?
            }
            key => drop(self.saved.borrow_mut().insert(key.name(), value)),
        }
        Ok(())
    }

    fn tell_pages(&self, message: &Value) {
        self.emitted.borrow_mut().push(message.clone());
    }
}

/// A worker in UTC.
impl LocalZone for FakeHost {
    fn offset_ms(&self, _utc_ms: f64) -> f64 {
        0.0
    }
}

impl Host for FakeHost {
    type Browser = FakeShop;
    type Http = ModelHttp;

    fn browser(&self) -> &FakeShop {
        &self.shop
    }

    fn spawn(&self, work: LocalBoxFuture<'static, ()>) {
        self.spawner.spawn_local(work).unwrap();
    }

    async fn sleep(&self, _milliseconds: u32) {
        if !self.timers_fire.get() {
            futures::future::pending::<()>().await;
        }
    }

    fn random(&self) -> u32 {
        self.random.set(self.random.get() + 1);
        self.random.get()
    }

    fn http(&self, _timeout_ms: u32) -> ModelHttp {
        ModelHttp(Rc::clone(&self.model))
    }

    async fn token_counter(&self, provider: Provider, model: &str) -> TokenCounter {
        TokenCounter::new(provider, model, None)
    }

    fn emit(&self, message: &Value) {
        self.emitted.borrow_mut().push(message.clone());
    }

    fn notify(&self, workflow: &str, event: &Value) {
        self.notified.borrow_mut().push((workflow.to_string(), event.clone()));
    }

    async fn active_tab(&self) -> Result<TabId, Message> {
        Ok(self.shop.current_tab.get())
    }

    async fn open_background_tab(&self, url: &str) -> Result<TabId, Message> {
        self.opened.borrow_mut().push(url.to_string());
        let (tab, _) = self.shop.open_tab(1, url).await.map_err(|err| err.text())?;
        Ok(tab)
    }

    async fn shared_tabs(&self) -> Vec<TabId> {
        self.shared.borrow().clone()
    }

    async fn share_tabs(&self, tabs: &[TabId]) -> Result<GroupId, BrowserError> {
        self.shared.borrow_mut().extend(tabs);
        Ok(1)
    }

    async fn app_remembered(&self, _client: &str, _token: &str) -> bool {
        false
    }

    async fn remember_app(&self, _client: &str) -> Result<String, String> {
        Ok("token".into())
    }

    async fn load_settings(&self) -> Result<Settings, Message> {
        Ok(self.settings.borrow().clone())
    }

    async fn hold_file(&self, _name: &str, _mime: &str, bytes: &[u8]) -> Result<String, String> {
        let mut held = self.shop.held_files.borrow_mut();
        let handle = format!("h{}", held.len() + 1);
        held.insert(handle.clone(), bytes.to_vec());
        Ok(handle)
    }

    async fn release_files(&self, handles: &[String]) {
        let mut held = self.shop.held_files.borrow_mut();
        for handle in handles {
            held.remove(handle);
        }
    }

    async fn save_task(&self, chat: &str, saved: Option<Value>) {
        let mut tasks = self.saved_tasks.borrow_mut();
        match saved {
            Some(saved) => tasks.insert(chat.to_string(), saved),
            None => tasks.remove(chat),
        };
    }

    async fn load_tasks(&self) -> Result<BTreeMap<String, Value>, String> {
        Ok(self.saved_tasks.borrow().clone())
    }

    async fn load_chat_index(&self) -> Result<ChatIndex, String> {
        Ok(self.index.borrow().clone())
    }

    async fn load_chat(&self, id: &str) -> Result<Option<Chat>, String> {
        Ok(self.chats.borrow().get(id).cloned())
    }

    async fn save_chats(&self, index: &ChatIndex, chat: Option<&Chat>, removed: &[String]) -> Result<(), String> {
        *self.index.borrow_mut() = index.clone();
        let mut chats = self.chats.borrow_mut();
        if let Some(chat) = chat {
            chats.insert(chat.id.clone(), chat.clone());
        }
        for id in removed {
            chats.remove(id);
        }
        Ok(())
    }
}

/// Settings for the scripted server, `limit` tasks at once; only the navigator asks the model.
fn settings(limit: u32) -> Settings {
    Settings {
        provider: Provider::OpenAiCompatible,
        base_url: "http://model.test/v1".into(),
        model: "scripted".into(),
        parallel_tasks: limit,
        validator: false,
        planning_interval: 0,
        memory_interval: 0,
        ..Settings::default()
    }
}

/// A chat's id, as the panel makes them.
fn chat(n: u32) -> String {
    crate::chats::new_id(1_000.0, n)
}

/// The task manager in its fake worker, and the executor that runs what it spawns.
struct Worker {
    pool: LocalPool,
    host: Rc<FakeHost>,
    tasks: TaskManager<FakeHost>,
}

impl Worker {
    fn new(settings: Settings) -> Worker {
        let pool = LocalPool::new();
        let host = Rc::new(FakeHost {
            timers_fire: Cell::new(false),
            shop: FakeShop::new(),
            spawner: pool.spawner(),
            model: Rc::default(),
            settings: RefCell::new(settings),
            emitted: RefCell::default(),
            notified: RefCell::default(),
            saved_tasks: RefCell::default(),
            index: RefCell::default(),
            chats: RefCell::default(),
            opened: RefCell::default(),
            shared: RefCell::default(),
            random: Cell::new(0),
            saved: RefCell::default(),
        });
        let tasks = TaskManager::new(Rc::clone(&host));
        Worker { pool, host, tasks }
    }

    /// A panel's message, and everything it sets going until nothing can move.
    fn panel(&mut self, mut message: Value) {
        message["v"] = json!(1);
        self.tasks.handle_panel_message(Ok(message), None);
        self.pool.run_until_stalled();
    }

    fn start(&mut self, chat: &str, task: &str) {
        self.panel(json!({"type": "start_task", "task": task, "chatId": chat}));
    }

    /// The panels' events of this type, in order.
    fn events(&self, kind: &str) -> Vec<Value> {
        self.host.emitted.borrow().iter().filter(|event| event["type"] == kind).cloned().collect()
    }

    /// The chats of the panels' events of this type, in order.
    fn chats_of(&self, kind: &str) -> Vec<String> {
        self.events(kind).iter().map(|event| event["chat"].as_str().unwrap_or_default().to_string()).collect()
    }

    /// The chats `hello` lists in this state, in order.
    fn in_hello(&self, state: &str) -> Vec<String> {
        let hello = self.tasks.hello();
        let tasks = hello["tasks"].as_array().unwrap().iter();
        tasks.filter(|task| task["state"] == state).map(|task| task["chat"].as_str().unwrap().to_string()).collect()
    }

    fn release_model(&mut self) {
        self.host.model.release();
        self.pool.run_until_stalled();
    }
}

#[test]
fn tasks_past_the_limit_wait_in_line_and_start_in_order_as_places_free_up() {
    let mut worker = Worker::new(settings(1));
    worker.host.model.hold();
    for n in 1..=3 {
        worker.start(&chat(n), &format!("task {n}"));
    }
    assert_eq!(worker.chats_of("task_started"), [chat(1)]);
    let queued = worker.events("task_queued");
    let places: Vec<(Value, Value)> = queued.iter().map(|e| (e["chat"].clone(), e["position"].clone())).collect();
    assert_eq!(places, [(json!(chat(2)), json!(1)), (json!(chat(3)), json!(2))]);
    assert_eq!(worker.in_hello("running"), [chat(1)]);
    assert_eq!(worker.in_hello("queued"), [chat(2), chat(3)]);
    // A restarted worker would find the waiting tasks' places.
    let saved = worker.host.saved_tasks.borrow().clone();
    assert!(saved[&chat(2)]["waiting"]["kind"] == "new" && saved[&chat(3)]["since_ms"].is_number());

    worker.release_model();
    assert_eq!(worker.chats_of("task_started"), [chat(1), chat(2), chat(3)]);
    assert_eq!(worker.chats_of("result"), [chat(1), chat(2), chat(3)]);
    assert!(worker.host.saved_tasks.borrow().is_empty(), "{:?}", worker.host.saved_tasks.borrow());
    assert!(worker.in_hello("running").is_empty() && worker.in_hello("queued").is_empty());
    // Each chat is in the History.
    assert_eq!(worker.host.index.borrow().ids().len(), 3);
}

#[test]
fn as_many_tasks_run_at_once_as_the_limit_allows_each_in_its_own_tab() {
    let mut worker = Worker::new(settings(2));
    worker.host.model.hold();
    for n in 1..=3 {
        worker.start(&chat(n), &format!("task {n}"));
    }
    assert_eq!(worker.chats_of("task_started"), [chat(1), chat(2)]);
    assert_eq!(worker.chats_of("task_queued"), [chat(3)]);
    // The second task found the active tab taken and works in a background tab of the same page.
    assert_eq!(*worker.host.opened.borrow(), ["http://shop.test/"]);
    let warnings = worker.events("warning");
    assert!(warnings.iter().any(|w| w["chat"] == chat(2) && w["localizable"]["key"] == "core_task_own_tab"));

    worker.release_model();
    assert_eq!(worker.chats_of("result"), [chat(1), chat(2), chat(3)]);
}

#[test]
fn a_waiting_task_stopped_leaves_the_line_and_those_behind_move_up() {
    let mut worker = Worker::new(settings(1));
    worker.host.model.hold();
    for n in 1..=3 {
        worker.start(&chat(n), &format!("task {n}"));
    }
    worker.panel(json!({"type": "stop", "chat": chat(2)}));
    let stopped = worker.events("stopped");
    assert_eq!(stopped.len(), 1);
    assert_eq!((&stopped[0]["chat"], &stopped[0]["steps"]), (&json!(chat(2)), &json!(0)));
    let last_place = worker.events("task_queued").pop().unwrap();
    assert_eq!((&last_place["chat"], &last_place["position"]), (&json!(chat(3)), &json!(1)));
    assert!(!worker.host.saved_tasks.borrow().contains_key(&chat(2)));
    assert_eq!(worker.in_hello("queued"), [chat(3)]);

    worker.release_model();
    assert_eq!(worker.chats_of("task_started"), [chat(1), chat(3)]);
}

#[test]
fn a_chat_whose_task_runs_takes_no_second_task() {
    let mut worker = Worker::new(settings(3));
    worker.host.model.hold();
    worker.start(&chat(1), "first");
    worker.start(&chat(1), "second");
    let errors = worker.events("error");
    assert_eq!(errors.len(), 1);
    assert_eq!((&errors[0]["chat"], &errors[0]["localizable"]["key"]), (&json!(chat(1)), &json!("core_chat_busy")));
    assert_eq!(worker.chats_of("task_started"), [chat(1)]);
}

/// A running task's checkpoint at step 1, saved at `saved_at_ms`.
fn checkpoint(task: &str, saved_at_ms: f64) -> Value {
    json!({
        "task": task, "tab": 1, "taskTabs": [1], "step": 1, "results": [], "failures": 0, "rejections": 0,
        "usage": [0, 0], "history": History::default().to_json(), "replan": false, "savedAtMs": saved_at_ms,
    })
}

fn waiting(task: &str, since_ms: f64) -> Value {
    let job = SavedJob::New {
        task: task.into(),
        tab_id: Some(1),
        follow_up: false,
        output_schema: None,
        files: Default::default(),
    };
    serde_json::to_value(SavedWaiting { waiting: job, since_ms }).unwrap()
}

#[test]
fn a_restarted_worker_resumes_running_tasks_ends_stale_ones_and_keeps_the_line() {
    let mut worker = Worker::new(settings(1));
    let (running, stale, later, earlier) = (chat(1), chat(2), chat(3), chat(4));
    worker.host.saved_tasks.borrow_mut().extend([
        (running.clone(), checkpoint("running task", 0.0)),
        (stale.clone(), checkpoint("stale task", -11.0 * 60_000.0)),
        (later.clone(), waiting("waiting since 20", 20.0)),
        (earlier.clone(), waiting("waiting since 10", 10.0)),
    ]);
    worker.host.model.hold();
    let resumed = worker.tasks.resume_interrupted();
    worker.pool.run_until(resumed);
    worker.pool.run_until_stalled();

    assert_eq!(worker.chats_of("task_resumed"), std::slice::from_ref(&running));
    let errors = worker.events("error");
    assert_eq!(errors.len(), 1);
    assert_eq!(
        (&errors[0]["chat"], &errors[0]["localizable"]["key"]),
        (&json!(stale), &json!("core_task_too_old_to_resume"))
    );
    assert!(!worker.host.saved_tasks.borrow().contains_key(&stale));
    // The running task resumed at once, whatever the limit; the line kept its order.
    assert_eq!(worker.in_hello("running"), std::slice::from_ref(&running));
    assert_eq!(worker.in_hello("queued"), [earlier.clone(), later.clone()]);

    worker.release_model();
    assert_eq!(worker.chats_of("task_started"), [earlier, later]);
    assert_eq!(worker.chats_of("result").first(), Some(&running));
    assert!(worker.host.saved_tasks.borrow().is_empty(), "{:?}", worker.host.saved_tasks.borrow());
}

/// A stored workflow from a recorded run that only answered on the shop's page.
fn stored_workflow() -> Value {
    let done = json!({"action": {"do": "done", "text": "The total is $12.00", "success": true}, "element": null});
    let record = json!({
        "task": "tell me the cart total",
        "outcome": {"type": "result", "success": true, "text": "The total is $12.00", "steps": 1},
        "steps": [{"url": "http://shop.test/", "planned": [done]}],
    });
    let mut workflow = Workflow::propose(&record).unwrap();
    workflow.name = "Cart total".into();
    serde_json::to_value(workflow).unwrap()
}

#[test]
fn a_scheduled_run_opens_a_background_tab_and_notifies_its_questions_and_its_end() {
    let mut worker = Worker::new(Settings { ask_before_acting: true, ..settings(1) });
    worker.tasks.run_scheduled(&stored_workflow(), &BTreeMap::new()).unwrap();
    worker.pool.run_until_stalled();
    assert_eq!(*worker.host.opened.borrow(), ["http://shop.test/"]);
    let started = worker.events("task_started");
    assert_eq!(started.len(), 1);
    let chat = started[0]["chat"].as_str().unwrap().to_string();

    // The user, away, hears of the question; answered, the run ends and they hear how.
    let notified = |worker: &Worker| -> Vec<(String, Value)> {
        let notified = worker.host.notified.borrow();
        notified.iter().map(|(workflow, event)| (workflow.clone(), event["type"].clone())).collect()
    };
    assert_eq!(notified(&worker), [("Cart total".to_string(), json!("review_needed"))]);
    let question = worker.events("review_needed").pop().unwrap();
    worker.panel(json!({"type": "review", "id": question["id"], "decision": "run", "chat": chat}));
    assert_eq!(worker.chats_of("result"), [chat]);
    assert_eq!(notified(&worker).last().unwrap(), &("Cart total".to_string(), json!("result")));
}

#[test]
fn a_workflow_that_cannot_run_is_refused_before_anything_opens() {
    let mut worker = Worker::new(settings(1));
    let mut damaged = stored_workflow();
    damaged["replay"] = json!(null);
    assert!(worker.tasks.run_scheduled(&damaged, &BTreeMap::new()).is_err());
    worker.pool.run_until_stalled();
    assert!(worker.host.opened.borrow().is_empty() && worker.host.emitted.borrow().is_empty());
}

/// What an AI app's server hears: every message to it.
fn app_server() -> (Reply, Rc<RefCell<Vec<Value>>>) {
    let heard = Rc::new(RefCell::new(Vec::new()));
    let into = Rc::clone(&heard);
    (Rc::new(move |message: &Value| into.borrow_mut().push(message.clone())), heard)
}

fn run_task_call(id: u64) -> Value {
    json!({"type": "call", "id": id, "tool": "run_task", "args": {"task": "tell me the cart total"}, "client": "Claude"})
}

#[test]
fn an_app_allowed_once_runs_a_task_in_a_shared_tab_and_hears_its_result() {
    let mut worker = Worker::new(Settings { mcp: true, ..settings(2) });
    worker.host.shared.borrow_mut().push(1);
    let (reply, heard) = app_server();
    worker.tasks.handle_host_message(Ok(run_task_call(7)), reply);
    worker.pool.run_until_stalled();
    // The user is asked in the panel; the app hears that it waits.
    assert_eq!(worker.tasks.pairing_question().unwrap()["client"], "Claude");
    assert_eq!(heard.borrow().last().unwrap()["type"], "waiting");

    worker.panel(json!({"type": "pair_app", "decision": "once"}));
    assert!(worker.tasks.pairing_question().is_none());
    assert_eq!(worker.events("app_driving").len(), 1);
    let result = heard.borrow().last().unwrap().clone();
    assert_eq!((&result["type"], &result["id"], &result["ok"]), (&json!("result"), &json!(7), &json!(true)));
    assert_eq!(result["data"]["answer"], "The total is $12.00");
    // Its task worked in the shared tab, not in a new one.
    assert!(worker.host.opened.borrow().is_empty());
}

#[test]
fn an_app_the_user_refuses_is_refused_again_without_asking() {
    let mut worker = Worker::new(Settings { mcp: true, ..settings(2) });
    worker.host.shared.borrow_mut().push(1);
    let (reply, heard) = app_server();
    worker.tasks.handle_host_message(Ok(run_task_call(1)), Rc::clone(&reply));
    worker.pool.run_until_stalled();
    worker.panel(json!({"type": "pair_app", "decision": "deny"}));
    let refused = heard.borrow().last().unwrap().clone();
    assert_eq!((&refused["id"], &refused["ok"]), (&json!(1), &json!(false)));
    let questions = worker.events("app_pairing").len();

    worker.tasks.handle_host_message(Ok(run_task_call(2)), reply);
    worker.pool.run_until_stalled();
    let refused = heard.borrow().last().unwrap().clone();
    assert_eq!((&refused["id"], &refused["ok"]), (&json!(2), &json!(false)));
    assert_eq!(worker.events("app_pairing").len(), questions, "the user was asked again");
    assert!(worker.events("task_started").is_empty());
}

#[test]
fn apps_are_refused_while_the_setting_is_off() {
    let mut worker = Worker::new(settings(2));
    let (reply, heard) = app_server();
    worker.tasks.handle_host_message(Ok(run_task_call(3)), reply);
    worker.pool.run_until_stalled();
    let refused = heard.borrow().last().unwrap().clone();
    assert_eq!((&refused["id"], &refused["ok"]), (&json!(3), &json!(false)));
    assert!(worker.tasks.pairing_question().is_none());
}

#[test]
fn the_pages_requests_about_saved_things_are_answered_to_the_asker_and_written_once_checked() {
    let mut worker = Worker::new(settings(1));
    let answers = Rc::new(RefCell::new(Vec::new()));
    let to_asker: Reply = {
        let answers = Rc::clone(&answers);
        Rc::new(move |answer: &Value| answers.borrow_mut().push(answer.clone()))
    };
    let ask = |worker: &mut Worker, request: Value| {
        worker.tasks.handle_panel_message(Ok(request), Some(Rc::clone(&to_asker)));
        worker.pool.run_until_stalled();
        answers.borrow_mut().pop().expect("an answer to the asking page")
    };
    let mut changed = serde_json::to_value(settings(1)).unwrap();
    changed["maxSteps"] = json!(7);
    let saved = ask(&mut worker, json!({"v": 1, "type": "save_settings", "settings": changed}));
    assert_eq!((saved["type"].clone(), saved["problem"].clone()), (json!("settings_saved"), Value::Null), "{saved}");
    assert_eq!(worker.host.settings.borrow().max_steps, 7);
    assert_eq!(worker.events("changed"), [json!({"v": 1, "type": "changed", "what": "settings"})]);

    // Refused settings are not written.
    changed["maxSteps"] = json!(0);
    let refused = ask(&mut worker, json!({"v": 1, "type": "save_settings", "settings": changed}));
    assert!(refused["problem"]["field"].is_string(), "{refused}");
    assert_eq!(worker.host.settings.borrow().max_steps, 7);

    // A request the worker cannot read is answered to its page, not to every panel.
    let unread = ask(&mut worker, json!({"v": 1, "type": "no_such_request"}));
    assert_eq!(unread["type"], "error", "{unread}");
    assert!(worker.events("error").is_empty());
}

#[test]
fn a_task_starts_with_the_files_attached_uploads_them_and_lets_them_go_at_its_end() {
    use base64::Engine;
    let mut worker = Worker::new(settings(1));
    worker.host.shop.file_input.set(true);
    let upload = json!([{"do": "upload_file", "index": 5, "name": "cv.pdf"}]).to_string();
    worker.host.model.replies.borrow_mut().push_back(reply(&upload).unwrap());
    worker.host.model.hold();
    let data = base64::engine::general_purpose::STANDARD.encode(b"%PDF-1.4 CV");
    let file = json!({"name": "cv.pdf", "mime": "application/pdf", "data": data});
    worker.panel(json!({"type": "start_task", "task": "apply", "chatId": chat(1), "files": [file]}));
    // Held while the task runs...
    assert_eq!(worker.host.shop.held_files.borrow().values().cloned().collect::<Vec<_>>(), [b"%PDF-1.4 CV".to_vec()]);
    worker.host.model.release();
    worker.pool.run_until_stalled();
    let uploaded: Vec<String> = worker
        .host
        .shop
        .ops
        .borrow()
        .iter()
        .filter_map(|op| match op {
            crate::browser::PageOp::Upload { files, .. } => Some(files[0].data.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(uploaded, [data]);
    assert_eq!(worker.events("result").len(), 1);
    // ...and let go of at its end.
    assert!(worker.host.shop.held_files.borrow().is_empty());
}

#[test]
fn attachments_beyond_the_bounds_are_refused_in_the_task_s_chat() {
    let mut worker = Worker::new(settings(1));
    let file = json!({"name": "a.pdf", "mime": "application/pdf", "data": "%%%"});
    worker.panel(json!({"type": "start_task", "task": "apply", "chatId": chat(1), "files": [file]}));
    let errors = worker.events("error");
    assert_eq!(errors[0]["chat"], json!(chat(1)));
    assert!(
        errors[0]["message"].as_str().unwrap().starts_with("The attached file a.pdf could not be read"),
        "{errors:?}"
    );
    assert!(worker.events("task_started").is_empty() && worker.host.shop.held_files.borrow().is_empty());
}

#[test]
fn the_files_of_a_task_that_never_runs_are_let_go_of() {
    let mut worker = Worker::new(settings(1));
    worker.host.model.hold();
    let file = json!({"name": "cv.pdf", "mime": "application/pdf", "data": "JVBERi0xLjQ="});
    worker.start(&chat(1), "first");
    // Waiting in line with its file, then stopped.
    worker.panel(json!({"type": "start_task", "task": "second", "chatId": chat(2), "files": [file.clone()]}));
    assert_eq!(worker.host.shop.held_files.borrow().len(), 1);
    worker.panel(json!({"type": "stop", "chat": chat(2)}));
    assert!(worker.host.shop.held_files.borrow().is_empty());
    // Refused: its chat already runs a task.
    worker.panel(json!({"type": "start_task", "task": "again", "chatId": chat(1), "files": [file]}));
    assert_eq!(worker.events("error").len(), 1);
    assert!(worker.host.shop.held_files.borrow().is_empty());
    worker.release_model();
}

#[test]
fn a_follow_up_goes_on_with_the_notebook_its_chat_left() {
    let mut worker = Worker::new(settings(1));
    let append =
        |row: &str| reply(&json!([{"do": "append_file", "name": "items.csv", "text": row}]).to_string()).unwrap();
    worker.host.model.replies.borrow_mut().extend([append("a,1"), done("In items.csv"), append("b,2"), done("Added")]);
    worker.start(&chat(1), "collect the items");
    worker.panel(json!({"type": "start_task", "task": "and the next one", "chatId": chat(1), "followUp": true}));
    assert_eq!(worker.chats_of("result"), [chat(1), chat(1)]);
    let files = worker.events("files");
    assert_eq!(files.len(), 2);
    assert_eq!(
        files[1]["files"],
        json!([{"name": "items.csv", "source": "notebook", "mime": "text/csv", "size": 7, "text": "a,1\nb,2"}])
    );
    // The History keeps the file as the follow-up left it.
    let stored = worker.host.chats.borrow()[&chat(1)].clone();
    let kept: Vec<&Value> = stored.events.iter().filter(|event| event["type"] == "files").collect();
    assert_eq!(kept.last().unwrap()["files"][0]["text"], "a,1\nb,2");
}

/// A reCAPTCHA frame on the shop's page: the task hands the tab over to the user at once.
fn captcha_on(shop: &FakeShop) {
    use crate::dom_map::tests::{node, page, with_attrs};
    use crate::dom_map::RawFrame;
    let mut frame = with_attrs(node(30, Some(0), "iframe", ""), &[("title", "reCAPTCHA")]);
    frame.rect = [0.0, 100.0, 304.0, 78.0];
    shop.extra_nodes.borrow_mut().push(frame);
    let mut widget = page(vec![node(1, None, "body", "")]);
    (widget.doc, widget.host, widget.url) =
        ("captcha".into(), "doc-1:30".into(), "https://www.google.com/recaptcha/api2/anchor?k=x".into());
    shop.extra_frames.borrow_mut().push(RawFrame { frame_id: 3, page: Ok(widget) });
}

#[test]
fn a_hand_over_waits_for_the_panels_continue_and_the_task_goes_on() {
    let mut worker = Worker::new(settings(1));
    captcha_on(&worker.host.shop);
    worker.start(&chat(1), "tell me the cart total");
    let asked = worker.events("hand_over_needed");
    assert_eq!(asked.len(), 1);
    assert_eq!((asked[0]["reason"].as_str(), asked[0]["tab"].as_i64()), (Some("captcha"), Some(1)));
    assert!(worker.chats_of("result").is_empty(), "the task waits for the user");
    worker.host.shop.extra_nodes.borrow_mut().clear();
    worker.host.shop.extra_frames.borrow_mut().clear();
    worker.panel(json!({"type": "hand_over", "id": asked[0]["id"], "decision": "continue", "note": "ticked it", "chat": chat(1)}));
    assert_eq!(worker.chats_of("result"), [chat(1)]);
}

#[test]
fn a_scheduled_run_notifies_a_hand_over_and_ends_when_no_one_takes_over_in_time() {
    let mut worker = Worker::new(settings(1));
    captcha_on(&worker.host.shop);
    worker.host.timers_fire.set(true);
    worker.tasks.run_scheduled(&stored_workflow(), &BTreeMap::new()).unwrap();
    worker.pool.run_until_stalled();
    let notified: Vec<Value> = worker.host.notified.borrow().iter().map(|(_, event)| event["type"].clone()).collect();
    assert_eq!(notified, [json!("hand_over_needed"), json!("error")]);
    let warning = worker.events("warning").pop().unwrap();
    assert_eq!(warning["message"], "No one took over within 15 minutes, so the task ends. Next time, open the side panel or the notification when a task asks for you.");
    let error = worker.events("error").pop().unwrap();
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("The task needed you and no one took over, so it ended: shop.test shows a reCAPTCHA check"),
        "{message}"
    );
}

#[test]
fn an_app_task_that_needs_the_user_tells_them_in_a_notification() {
    let mut worker = Worker::new(Settings { mcp: true, ..settings(2) });
    worker.host.shared.borrow_mut().push(1);
    captcha_on(&worker.host.shop);
    let (reply, heard) = app_server();
    worker.tasks.handle_host_message(Ok(run_task_call(7)), reply);
    worker.pool.run_until_stalled();
    worker.panel(json!({"type": "pair_app", "decision": "once"}));
    assert_eq!(worker.events("hand_over_needed").len(), 1);
    // The app hears that the task waits; the user, perhaps in the app, gets a notification
    // named after it (its Take over brings the tab forward).
    assert_eq!(heard.borrow().last().unwrap()["type"], "waiting");
    let notified: Vec<(String, Value)> =
        worker.host.notified.borrow().iter().map(|(from, event)| (from.clone(), event["type"].clone())).collect();
    assert_eq!(notified, [("Claude".to_string(), json!("hand_over_needed"))]);
}

/// The user saves `settings` as the worker saves them: written, then applied to what runs.
fn save_settings(worker: &mut Worker, settings: Settings) {
    *worker.host.settings.borrow_mut() = settings;
    let applied = worker.tasks.settings_saved();
    worker.pool.run_until(applied);
    worker.pool.run_until_stalled();
}

/// The sites the rules of the last `restrict` call block by name (the site lists'; the firewall
/// blocks every page but its own sites'), and the tabs they cover.
fn last_rules(worker: &Worker) -> (Vec<TabId>, Vec<String>) {
    let restricted = worker.host.shop.restricted.borrow();
    let (tabs, rules) = restricted.last().cloned().unwrap_or_default();
    let mut blocked: Vec<String> = rules
        .iter()
        .filter(|rule| rule["action"]["type"] == "block")
        .filter_map(|rule| rule["condition"]["requestDomains"][0].as_str().map(str::to_string))
        .collect();
    blocked.dedup();
    (tabs, blocked)
}

#[test]
fn a_deny_list_saved_while_a_task_runs_holds_at_its_next_action_and_in_the_browser() {
    let mut worker = Worker::new(settings(1));
    let go = json!([{"do": "go_to_url", "url": "http://blocked.test/page"}]).to_string();
    worker.host.model.replies.borrow_mut().push_back(reply(&go).unwrap());
    worker.host.model.hold();
    worker.start(&chat(1), "read the page");
    assert!(last_rules(&worker).1.is_empty(), "no lists, no site blocked by name");
    // While the model thinks, the user denies the site.
    save_settings(&mut worker, Settings { deny_list: vec!["blocked.test".into()], ..settings(1) });
    assert_eq!(last_rules(&worker), (vec![1], vec!["blocked.test".to_string()]));

    worker.release_model();
    let step = worker.events("step").remove(0);
    assert_eq!(
        step["actions"][0]["outcome"],
        "Did not open http://blocked.test/page: http://blocked.test/page is on the list of sites the user does not allow (\"blocked.test\")."
    );
    assert_eq!(*worker.host.shop.url.borrow(), "http://shop.test/", "nothing was opened");
    assert!(worker.events("approval_needed").is_empty());
    // The task ended: later settings write no rules in its tab.
    let calls = worker.host.shop.restricted.borrow().len();
    save_settings(&mut worker, Settings { deny_list: vec!["other.test".into()], ..settings(1) });
    assert_eq!(worker.host.shop.restricted.borrow().len(), calls);
}

#[test]
fn a_deny_list_saved_while_an_app_is_connected_refuses_its_next_call_there() {
    let mut worker = Worker::new(Settings { mcp: true, ..settings(2) });
    worker.host.shared.borrow_mut().push(1);
    let (reply, heard) = app_server();
    let call = |id: u64, tool: &str, args: Value| json!({"type": "call", "id": id, "tool": tool, "args": args, "client": "Claude"});
    worker.tasks.handle_host_message(Ok(call(1, "list_tabs", json!({}))), Rc::clone(&reply));
    worker.pool.run_until_stalled();
    worker.panel(json!({"type": "pair_app", "decision": "once"}));
    assert_eq!(heard.borrow().last().unwrap()["ok"], true, "the session serves the app");

    save_settings(&mut worker, Settings { mcp: true, deny_list: vec!["blocked.test".into()], ..settings(2) });
    assert_eq!(last_rules(&worker), (vec![1], vec!["blocked.test".to_string()]));
    worker.tasks.handle_host_message(Ok(call(2, "navigate", json!({"url": "http://blocked.test/"}))), reply);
    worker.pool.run_until_stalled();
    let refused = heard.borrow().last().unwrap().clone();
    assert_eq!((&refused["id"], &refused["ok"]), (&json!(2), &json!(false)));
    assert_eq!(
        refused["text"],
        "go_to_url: Did not open http://blocked.test/: http://blocked.test/ is on the list of sites the user does not allow (\"blocked.test\")."
    );
    assert_eq!(*worker.host.shop.url.borrow(), "http://shop.test/", "nothing was opened");
}

#[test]
fn asking_before_each_step_turned_on_while_a_task_runs_holds_its_next_step_for_the_user() {
    let mut worker = Worker::new(settings(1));
    worker.host.model.hold();
    worker.start(&chat(1), "tell me the cart total");
    save_settings(&mut worker, Settings { ask_before_acting: true, ..settings(1) });
    worker.release_model();
    assert_eq!(worker.chats_of("review_needed"), [chat(1)]);
    assert!(worker.chats_of("result").is_empty(), "the step waits for the user");
}
