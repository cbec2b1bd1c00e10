//! The messages between the MCP host (crate/native-host, reached over Chrome's native messaging)
//! and the agent: which tool an AI app called and with what, and what the agent tells the app
//! while it works and when it is done. The host only carries them; their meaning is here.
//!
//! From the host: `{"type":"call","id":N,"tool":"click","args":{...},"client":"Claude"}`,
//! `{"type":"cancel","id":N}`, `{"type":"disconnected"}` (the app went away) and
//! `{"type":"error","message":...}` (a message the host could not read). To the host:
//! `progress`, `waiting` and `result`, each with the call's `id`.

use crate::actions::Action;
use crate::agent::{app_name, AgentEvent, DriveCommand, DriveReply};
use crate::answer::OutputSchema;
use crate::files::attach::{decode, Attachment, NewFile};
use crate::tabs::TabAlias;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// The native messaging host the extension connects to (see crate/native-host).
pub const HOST_NAME: &str = "com.rust_browser_agent.mcp";
/// How long a consequential action requested through MCP waits for the user's answer in the
/// side panel before it is refused.
pub const APPROVAL_TIMEOUT_MS: u32 = 120_000;
/// How long a task an AI app asked for waits for the user to take over in the browser (a
/// sign-in, a CAPTCHA) before it ends.
pub const HAND_OVER_TIMEOUT_MS: u32 = 300_000;
/// The most steps an AI app may ask `run_task` for.
pub const MAX_TASK_STEPS: u32 = 100;

/// A message from the host.
#[derive(Debug, Clone, PartialEq)]
pub enum HostMessage {
    Call {
        id: u64,
        client: String,
        /// The token the browser gave this app when the user allowed it "Always", if it has one.
        token: Option<String>,
        tool: Tool,
    },
    Cancel {
        id: u64,
    },
    Disconnected,
    /// The host could not read something the extension sent.
    HostError(String),
}

/// A tool call, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Tool {
    RunTask {
        task: String,
        url: Option<String>,
        max_steps: Option<u32>,
        /// The shape of the answer the app wants back as data (`structuredContent.data`).
        output_schema: Option<OutputSchema>,
        /// The files the app attached (their bytes given inline, never read from a path).
        files: Vec<Attachment>,
    },
    /// A primitive, served by the drive session.
    Drive(DriveCommand),
}

/// A message the host sent that cannot be acted on: the call it concerns (when known), and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub id: Option<u64>,
    pub message: String,
}

impl HostMessage {
    pub fn parse(message: &Value) -> Result<HostMessage, Refusal> {
        let id = message.get("id").and_then(Value::as_u64);
        let refuse = |message: String| Refusal { id, message };
        let text = |field: &str| message.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
        match message.get("type").and_then(Value::as_str) {
            Some("call") => {
                let id = id.ok_or_else(|| refuse("a tool call without an id".into()))?;
                let empty = Map::new();
                let args = match message.get("args") {
                    None | Some(Value::Null) => &empty,
                    Some(Value::Object(args)) => args,
                    Some(_) => return Err(refuse("the tool's arguments must be an object".into())),
                };
                let tool = Tool::parse(&text("tool"), args).map_err(refuse)?;
                let token = Some(text("token")).filter(|token| !token.is_empty());
                Ok(HostMessage::Call { id, client: text("client"), token, tool })
            }
            Some("cancel") => {
                id.map(|id| HostMessage::Cancel { id }).ok_or_else(|| refuse("a cancel without an id".into()))
            }
            Some("disconnected") => Ok(HostMessage::Disconnected),
            Some("error") => Ok(HostMessage::HostError(text("message"))),
            other => Err(refuse(format!("an unknown message from the MCP host ({})", other.unwrap_or("no type")))),
        }
    }
}

/// Checks a tool call's arguments as the agent will read them (the same limits, the same
/// messages), so that the host can refuse a call at once without sending it to the browser.
pub fn check_call(tool: &str, args: &Value) -> Result<(), String> {
    let empty = Map::new();
    let args = match args {
        Value::Null => &empty,
        Value::Object(args) => args,
        _ => return Err("the tool's arguments must be an object".into()),
    };
    Tool::parse(tool, args).map(|_| ())
}

impl Tool {
    /// Reads a tool's arguments; the primitives become the actions the navigator runs, and what
    /// is wrong with them is said in the tool's words (`type.text`, not `input_text.text`).
    fn parse(name: &str, args: &Map<String, Value>) -> Result<Tool, String> {
        let string = |field: &str| args.get(field).and_then(Value::as_str).map(str::to_string);
        let tool = name;
        let action = |name: &str, params: Value| {
            Action::from_json(&json!({ name: params }))
                .map(|action| Tool::Drive(DriveCommand::Act(action)))
                .map_err(|err| format!("bad arguments: {}", in_tool_words(&err, tool, name)))
        };
        let index = args.get("index").cloned().unwrap_or(Value::Null);
        match name {
            "run_task" => {
                let task = string("task").filter(|task| !task.trim().is_empty());
                let task = task.ok_or("run_task needs a task: say what the agent should do")?;
                let max_steps = match args.get("max_steps") {
                    None | Some(Value::Null) => None,
                    Some(value) => Some(
                        value
                            .as_u64()
                            .filter(|n| (1..=MAX_TASK_STEPS as u64).contains(n))
                            .ok_or(format!("max_steps must be a whole number from 1 to {MAX_TASK_STEPS}"))?
                            as u32,
                    ),
                };
                let output_schema = match args.get("output_schema") {
                    None | Some(Value::Null) => None,
                    Some(schema) => Some(
                        OutputSchema::new(schema.clone())
                            .map_err(|why| format!("output_schema cannot be used: {why}"))?,
                    ),
                };
                let files: Vec<NewFile> = match args.get("files") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(files) => serde_json::from_value(files.clone()).map_err(|err| {
                        format!("files must be a list of {{\"name\", \"mime\", \"data\"}} objects, data being the file's bytes in base64 ({err})")
                    })?,
                };
                let files = decode(&files).map_err(|problem| problem.english())?;
                Ok(Tool::RunTask { task, url: string("url"), max_steps, output_schema, files })
            }
            "get_state" => match string("tab") {
                None => Ok(Tool::Drive(DriveCommand::State { tab: None })),
                Some(tab) => TabAlias::parse(&tab)
                    .map(|alias| Tool::Drive(DriveCommand::State { tab: Some(alias) }))
                    .ok_or(format!("\"{tab}\" is not a tab name; use the names list_tabs shows (t1, t2, ...)")),
            },
            "click" => action("click_element", json!({ "index": index })),
            "type" => {
                action("input_text", json!({ "index": index, "text": args.get("text"), "clear": args.get("clear") }))
            }
            "select" => action("select_option", json!({ "index": index, "text": args.get("option") })),
            "scroll" => action("scroll", Value::Object(args.clone())),
            "navigate" => action("go_to_url", json!({ "url": args.get("url") })),
            "go_back" => action("go_back", json!({})),
            "extract" => action("extract", json!({ "query": args.get("query") })),
            "switch_tab" => action("switch_tab", json!({ "tab": args.get("tab") })),
            "list_tabs" => Ok(Tool::Drive(DriveCommand::ListTabs)),
            "screenshot" => Ok(Tool::Drive(DriveCommand::Screenshot)),
            other => Err(format!("the browser agent has no tool \"{other}\"")),
        }
    }
}

/// An action's message as the tool `tool` that stands for it would word it: its name and its
/// parameters' names (`select_option.text` is `select.option`).
fn in_tool_words(message: &str, tool: &str, action: &str) -> String {
    if tool == action {
        return message.to_string();
    }
    let message = match tool {
        "select" => {
            message.replace("select_option.text", "select.option").replace("parameter \"text\"", "parameter \"option\"")
        }
        _ => message.to_string(),
    };
    message
        .replace(&format!("{action}."), &format!("{tool}."))
        .replace(&format!("one {action} "), &format!("one {tool} "))
        .replace(&format!("{action} needs"), &format!("{tool} needs"))
}

/// A call's outcome for the host.
pub fn result(id: u64, ok: bool, text: &str) -> Value {
    json!({"type": "result", "id": id, "ok": ok, "text": text})
}

/// A refusal for the host, on the call it concerns.
pub fn refusal(refusal: &Refusal) -> Value {
    let mut value =
        json!({"type": "error", "message": format!("The browser agent refused the request: {}.", refusal.message)});
    if let Some(id) = refusal.id {
        value["id"] = Value::from(id);
    }
    value
}

/// A primitive's answer for the host.
pub fn drive_result(id: u64, reply: DriveReply) -> Value {
    match reply {
        DriveReply::Text(text) => result(id, true, &text),
        DriveReply::Failed(text) => result(id, false, &text),
        DriveReply::Image { media_type, base64 } => json!({
            "type": "result", "id": id, "ok": true, "text": "A screenshot of the current tab.",
            "image": {"mediaType": media_type, "base64": base64},
        }),
    }
}

/// The task a session driven step by step is shown as, in the panel and the History.
pub fn session_task(client: &str) -> String {
    format!("{}: step-by-step control of this browser", app_name(client))
}

/// Why an action an app asked for was refused without the user's answer.
pub fn unanswered(limit_ms: u32) -> String {
    format!(
        "No answer came from the side panel within {} s, so the action the AI app asked for was refused. Open the side panel to answer the next one.",
        limit_ms / 1000
    )
}

/// What to say when the user has not allowed AI apps to use the agent.
pub fn turned_off() -> String {
    "The user has not allowed AI apps to use the browser agent: in the extension's settings, \"Let AI apps use the agent (MCP)\" is off. Ask the user to turn it on.".into()
}

/// The user's answer when an app connects for the first time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// For this connection only: the app is asked again when it connects again.
    Once,
    /// Remembered with a token the app's server keeps, until the user revokes it in the settings.
    Always,
    Deny,
}

impl Pairing {
    pub fn parse(decision: &str) -> Option<Pairing> {
        match decision {
            "once" => Some(Pairing::Once),
            "always" => Some(Pairing::Always),
            "deny" => Some(Pairing::Deny),
            _ => None,
        }
    }
}

/// Told to an app while the user is asked whether it may use the agent.
pub fn pairing_waiting(client: &str) -> String {
    format!(
        "Waiting for the user to allow {} in the browser's side panel (Allow once, Always or Deny; refused after {} s without an answer). Ask the user to open the side panel of the Rust Browser Agent extension.",
        app_name(client),
        APPROVAL_TIMEOUT_MS / 1000
    )
}

/// Why an app's calls are refused after the user chose Deny.
pub fn pairing_denied(client: &str) -> String {
    format!(
        "The user did not allow {} to use the browser agent (they chose Deny in the browser's side panel), so nothing was done. Do not try again on your own. If the user wants you to use their browser, ask them to restart your connection to the browser agent (its MCP server) and to choose Allow once or Always in the side panel when it asks.",
        app_name(client)
    )
}

/// Why a call was refused when the user did not answer whether the app may use the agent.
pub fn pairing_unanswered(client: &str) -> String {
    format!(
        "No answer came from the browser's side panel within {} s, so {} may not use the browser agent yet and nothing was done. Ask the user to open the extension's side panel, then call the tool again: the panel asks them to allow you.",
        APPROVAL_TIMEOUT_MS / 1000,
        app_name(client)
    )
}

/// How a user shares a tab with apps: said in every refusal about tabs.
pub const HOW_TO_SHARE: &str = "Ask the user to open the tab, then click \"Share this tab with AI apps\" in the browser agent's side panel (or drag the tab into the tab group \"Shared with AI apps\").";

/// Why a call found no tab to act in: the user shared none.
pub fn no_shared_tab() -> String {
    format!("No tab is shared with AI apps, so the browser agent shows and acts in none. {HOW_TO_SHARE}")
}

/// Why a call was refused in a tab the user has not shared (or no longer shares).
pub fn not_shared(tab: &str) -> String {
    format!("{tab} is not shared with AI apps, so the browser agent does not show it or act in it. {HOW_TO_SHARE}")
}

/// The panel's question whether an app may use the agent (`client`), or, without one, that the
/// question is over.
pub fn pairing_question(client: Option<&str>) -> Value {
    match client {
        Some(client) => json!({"v": 1, "type": "app_pairing", "client": app_name(client)}),
        None => json!({"v": 1, "type": "app_pairing", "client": null}),
    }
}

/// Follows a `run_task` call's events: each step becomes a progress message, each approval a
/// waiting message, and the final event the call's result with a short summary of the steps.
#[derive(Debug, Default)]
pub struct TaskReport {
    steps: Vec<StepSummary>,
    /// The structured answer, which comes just before the result.
    answer: Option<Value>,
}

#[derive(Debug, Serialize)]
struct StepSummary {
    step: u32,
    goal: String,
    /// Each action's name and whether it worked: `click_element ok`.
    actions: Vec<String>,
}

impl TaskReport {
    /// The message for the host that `event` calls for, if any.
    pub fn on_event(&mut self, id: u64, event: &AgentEvent) -> Option<Value> {
        match event {
            AgentEvent::Step { step, max_steps, next_goal, actions, .. } => {
                let outcomes: Vec<String> =
                    actions.iter().map(|a| format!("{} {}", a.name, if a.ok { "ok" } else { "failed" })).collect();
                let message = format!("Step {step}: {next_goal} ({})", outcomes.join(", "));
                self.steps.push(StepSummary { step: *step, goal: next_goal.clone(), actions: outcomes });
                Some(json!({"type": "progress", "id": id, "progress": step, "total": max_steps, "message": message}))
            }
            AgentEvent::ApprovalNeeded { question, .. } => Some(json!({
                "type": "waiting", "id": id,
                "message": format!("Waiting for the user's answer in the browser's side panel (refused after {} s without one): {question}", APPROVAL_TIMEOUT_MS / 1000),
            })),
            AgentEvent::HandOverNeeded { question, url, .. } => Some(json!({
                "type": "waiting", "id": id,
                "message": format!("Waiting for the user to take over in the browser ({url}); the task ends if no one does within {} s: {question}", HAND_OVER_TIMEOUT_MS / 1000),
            })),
            AgentEvent::Result { success, text, steps } => {
                let summary = self.summary();
                let outcome = if *success { "succeeded" } else { "did not succeed" };
                let mut value =
                    result(id, *success, &format!("{text}\n\n(The task {outcome} in {steps} steps.)\n{summary}"));
                value["data"] = json!({"answer": text, "success": success, "steps": self.steps});
                if let Some(data) = self.answer.take() {
                    value["data"]["data"] = data;
                }
                Some(value)
            }
            AgentEvent::Answer { data } => {
                self.answer = Some(data.clone());
                None
            }
            AgentEvent::Error { message, .. } => Some(result(id, false, &format!("The task failed: {message}"))),
            AgentEvent::Stopped { steps } => Some(result(
                id,
                false,
                &format!("The task was stopped after {steps} steps (by the user, or the client cancelled it)."),
            )),
            _ => None,
        }
    }

    fn summary(&self) -> String {
        self.steps.iter().map(|s| format!("{}. {} ({})\n", s.step, s.goal, s.actions.join(", "))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::ScrollDirection;
    use crate::agent::ActionReport;
    use crate::browser::Click;

    fn call(tool: &str, args: Value) -> Result<Tool, String> {
        let message = json!({"type": "call", "id": 7, "tool": tool, "args": args, "client": "claude-code"});
        match HostMessage::parse(&message) {
            Ok(HostMessage::Call { id: 7, client, token: None, tool }) if client == "claude-code" => Ok(tool),
            Ok(other) => panic!("not a call: {other:?}"),
            Err(refusal) => {
                assert_eq!(refusal.id, Some(7));
                Err(refusal.message)
            }
        }
    }

    fn act(tool: &str, args: Value) -> Action {
        match call(tool, args) {
            Ok(Tool::Drive(DriveCommand::Act(action))) => action,
            other => panic!("{tool} is not an action: {other:?}"),
        }
    }

    #[test]
    fn primitives_become_the_navigators_actions() {
        assert_eq!(act("click", json!({"index": 4})), Action::ClickElement { index: 4, click: Click::Single });
        assert_eq!(
            act("type", json!({"index": 2, "text": "blue"})),
            Action::InputText { index: 2, text: "blue".into(), clear: true }
        );
        assert_eq!(
            act("select", json!({"index": 3, "option": "Large"})),
            Action::SelectOption { index: 3, text: "Large".into() }
        );
        assert_eq!(
            act("scroll", json!({"direction": "down", "pages": 2})),
            Action::Scroll { direction: ScrollDirection::Down, pages: 2.0, index: None }
        );
        assert_eq!(
            act("navigate", json!({"url": "https://shop.test/"})),
            Action::GoToUrl { url: "https://shop.test/".into() }
        );
        assert_eq!(act("go_back", json!({})), Action::GoBack);
        assert_eq!(act("extract", json!({"query": "the price"})), Action::Extract { query: "the price".into() });
        assert_eq!(act("switch_tab", json!({"tab": "t2"})), Action::SwitchTab { tab: TabAlias(2) });
        assert_eq!(call("get_state", json!({})), Ok(Tool::Drive(DriveCommand::State { tab: None })));
        assert_eq!(
            call("get_state", json!({"tab": "t3"})),
            Ok(Tool::Drive(DriveCommand::State { tab: Some(TabAlias(3)) }))
        );
        assert_eq!(call("list_tabs", Value::Null), Ok(Tool::Drive(DriveCommand::ListTabs)));
        assert_eq!(call("screenshot", json!({})), Ok(Tool::Drive(DriveCommand::Screenshot)));
    }

    #[test]
    fn a_primitive_over_a_limit_is_refused_at_once_in_the_tool_s_words_saying_what_to_do() {
        use crate::actions::{MAX_LOOKUP_CHARS, MAX_QUERY_CHARS, MAX_TYPED_CHARS, MAX_URL_CHARS};
        let long = |chars: usize| "x".repeat(chars);
        let typed = call("type", json!({"index": 1, "text": long(MAX_TYPED_CHARS + 1)})).unwrap_err();
        assert!(
            typed.starts_with("bad arguments: type.text is 100,001 characters long; one type takes at most 100,000: type the text in parts"),
            "{typed}"
        );
        assert!(typed.contains("\"clear\": false, which appends"), "{typed}");
        // The host asks the same before it sends a call to the browser.
        let args = json!({"index": 1, "text": long(MAX_TYPED_CHARS + 1)});
        assert_eq!(check_call("type", &args), Err(typed.clone()));
        assert_eq!(check_call("type", &json!({"index": 1, "text": long(MAX_TYPED_CHARS)})), Ok(()));
        assert_eq!(check_call("list_tabs", &Value::Null), Ok(()));
        let chosen = call("select", json!({"index": 1, "option": long(MAX_LOOKUP_CHARS + 1)})).unwrap_err();
        assert!(
            chosen
                .starts_with("bad arguments: select.option is 1,001 characters long; one select takes at most 1,000: "),
            "{chosen}"
        );
        let opened = call("navigate", json!({"url": long(MAX_URL_CHARS + 1)})).unwrap_err();
        assert!(
            opened.starts_with(
                "bad arguments: navigate.url is 8,001 characters long; one navigate takes at most 8,000: "
            ),
            "{opened}"
        );
        let asked = call("extract", json!({"query": long(MAX_QUERY_CHARS + 1)})).unwrap_err();
        assert!(
            asked.starts_with(
                "bad arguments: extract.query is 2,001 characters long; one extract takes at most 2,000: "
            ),
            "{asked}"
        );
        assert_eq!(call("click", json!({})).unwrap_err(), "bad arguments: click needs an \"index\" parameter");
        assert_eq!(
            call("select", json!({"index": 1})).unwrap_err(),
            "bad arguments: select needs a string parameter \"option\""
        );
        // A long text goes in parts: each after the first appends.
        assert_eq!(
            act("type", json!({"index": 2, "text": "more", "clear": false})),
            Action::InputText { index: 2, text: "more".into(), clear: false }
        );
    }

    #[test]
    fn run_task_reads_its_task_url_and_steps() {
        assert_eq!(
            call("run_task", json!({"task": "buy a mug", "url": "https://shop.test/", "max_steps": 5})),
            Ok(Tool::RunTask {
                task: "buy a mug".into(),
                url: Some("https://shop.test/".into()),
                max_steps: Some(5),
                output_schema: None,
                files: Vec::new()
            })
        );
        assert!(call("run_task", json!({"task": "  "})).unwrap_err().contains("needs a task"));
        assert!(call("run_task", json!({"task": "x", "max_steps": 0})).unwrap_err().contains("1 to 100"));
        assert!(call("run_task", json!({"task": "x", "max_steps": 101})).unwrap_err().contains("1 to 100"));
    }

    #[test]
    fn run_task_takes_files_given_inline_never_a_path() {
        let file = json!({"name": "cv.pdf", "mime": "application/pdf", "data": "JVBERi0xLjQ="});
        let Ok(Tool::RunTask { files, .. }) = call("run_task", json!({"task": "apply", "files": [file]})) else {
            panic!("refused")
        };
        assert_eq!(
            (files[0].name.as_str(), files[0].mime.as_str(), &files[0].bytes[..]),
            ("cv.pdf", "application/pdf", &b"%PDF-1.4"[..])
        );
        let path = json!({"task": "apply", "files": [{"name": "cv.pdf", "path": "/home/ada/cv.pdf"}]});
        assert!(call("run_task", path)
            .unwrap_err()
            .starts_with("files must be a list of {\"name\", \"mime\", \"data\"} objects"));
        let broken = json!({"task": "apply", "files": [{"name": "cv.pdf", "data": "%%"}]});
        assert!(call("run_task", broken).unwrap_err().starts_with("The attached file cv.pdf could not be read"));
    }

    #[test]
    fn malformed_calls_are_refused_with_the_reason() {
        assert!(call("click", json!({})).unwrap_err().contains("index"));
        assert!(call("click", json!({"index": "three"})).unwrap_err().starts_with("bad arguments"));
        assert!(call("type", json!({"index": 1})).unwrap_err().contains("text"));
        assert!(call("get_state", json!({"tab": "window 2"})).unwrap_err().contains("not a tab name"));
        assert!(call("scroll", json!({"direction": "sideways"})).unwrap_err().contains("up, down, top or bottom"));
        assert!(call("rm_rf", json!({})).unwrap_err().contains("no tool \"rm_rf\""));
        assert!(call("click", json!([1])).unwrap_err().contains("must be an object"));
        let no_id = HostMessage::parse(&json!({"type": "call", "tool": "click"})).unwrap_err();
        assert_eq!(no_id.id, None);
        assert!(HostMessage::parse(&json!({"type": "hello"})).unwrap_err().message.contains("unknown message"));
        assert!(HostMessage::parse(&json!(42)).is_err());
        let answer = refusal(&Refusal { id: Some(3), message: "bad arguments: x".into() });
        assert_eq!(
            answer,
            json!({"type": "error", "id": 3, "message": "The browser agent refused the request: bad arguments: x."})
        );
    }

    #[test]
    fn the_host_says_when_the_app_left_or_a_message_was_unreadable() {
        assert_eq!(HostMessage::parse(&json!({"type": "cancel", "id": 2})), Ok(HostMessage::Cancel { id: 2 }));
        assert_eq!(HostMessage::parse(&json!({"type": "disconnected"})), Ok(HostMessage::Disconnected));
        assert_eq!(
            HostMessage::parse(&json!({"type": "error", "message": "too large"})),
            Ok(HostMessage::HostError("too large".into()))
        );
    }

    #[test]
    fn a_task_reports_each_step_each_wait_and_its_summary() {
        let mut report = TaskReport::default();
        let action = |name: &str, ok| ActionReport {
            name: name.into(),
            target: None,
            element: None,
            ok,
            outcome: String::new(),
        };
        let step = AgentEvent::Step {
            step: 1,
            max_steps: 10,
            evaluation: String::new(),
            memory: String::new(),
            next_goal: "Open the mugs page".into(),
            actions: vec![action("go_to_url", true)],
            screenshot: None,
        };
        assert_eq!(
            report.on_event(9, &step),
            Some(
                json!({"type": "progress", "id": 9, "progress": 1, "total": 10, "message": "Step 1: Open the mugs page (go_to_url ok)"})
            )
        );
        let approval =
            AgentEvent::ApprovalNeeded { id: 1, question: "Place the order?".into(), url: String::new(), data: vec![] };
        let waiting = report.on_event(9, &approval).unwrap();
        assert_eq!(waiting["type"], "waiting");
        assert!(waiting["message"]
            .as_str()
            .unwrap()
            .contains("side panel (refused after 120 s without one): Place the order?"));
        assert_eq!(report.on_event(9, &AgentEvent::Usage { input_tokens: 1, output_tokens: 1, cost: None }), None);
        let done =
            report.on_event(9, &AgentEvent::Result { success: true, text: "Total $14.50".into(), steps: 2 }).unwrap();
        assert_eq!(done["ok"], true);
        assert_eq!(
            done["text"],
            "Total $14.50\n\n(The task succeeded in 2 steps.)\n1. Open the mugs page (go_to_url ok)\n"
        );
        assert_eq!(done["data"]["steps"][0]["goal"], "Open the mugs page");
        let stopped = report.on_event(9, &AgentEvent::Stopped { steps: 1 }).unwrap();
        assert_eq!((stopped["ok"].as_bool(), stopped["type"].as_str()), (Some(false), Some("result")));
        let failed =
            report.on_event(9, &AgentEvent::Error { message: "The tab was closed.".into(), steps: 1 }).unwrap();
        assert_eq!(failed["text"], "The task failed: The tab was closed.");
    }

    #[test]
    fn a_call_carries_the_app_s_token_when_it_has_one() {
        let message = json!({"type": "call", "id": 1, "tool": "list_tabs", "client": "Cursor", "token": "abc"});
        let Ok(HostMessage::Call { token, .. }) = HostMessage::parse(&message) else { panic!() };
        assert_eq!(token.as_deref(), Some("abc"));
        let message = json!({"type": "call", "id": 1, "tool": "list_tabs", "client": "Cursor", "token": ""});
        let Ok(HostMessage::Call { token, .. }) = HostMessage::parse(&message) else { panic!() };
        assert_eq!(token, None);
    }

    #[test]
    fn pairing_answers_and_refusals_say_what_to_do() {
        assert_eq!(Pairing::parse("once"), Some(Pairing::Once));
        assert_eq!(Pairing::parse("always"), Some(Pairing::Always));
        assert_eq!(Pairing::parse("deny"), Some(Pairing::Deny));
        assert_eq!(Pairing::parse("yes"), None);
        assert!(pairing_denied("Cursor").starts_with("The user did not allow Cursor to use the browser agent"));
        assert!(pairing_denied("").contains("An AI app") && pairing_denied("").contains("Allow once or Always"));
        assert!(pairing_waiting("Cursor").contains("side panel") && pairing_unanswered("Cursor").contains("120 s"));
        assert!(no_shared_tab().contains("Share this tab with AI apps"));
        assert!(not_shared("The active tab").starts_with("The active tab is not shared with AI apps"));
        assert_eq!(pairing_question(Some(" ")), json!({"v": 1, "type": "app_pairing", "client": "An AI app"}));
        assert_eq!(pairing_question(None)["client"], Value::Null);
    }

    #[test]
    fn a_primitives_answer_carries_text_or_a_picture() {
        assert_eq!(drive_result(4, DriveReply::Text("ok".into())), result(4, true, "ok"));
        assert_eq!(drive_result(4, DriveReply::Failed("gone".into()))["ok"], false);
        let shot = drive_result(4, DriveReply::Image { media_type: "image/jpeg".into(), base64: "AA==".into() });
        assert_eq!(shot["image"], json!({"mediaType": "image/jpeg", "base64": "AA=="}));
    }
}
