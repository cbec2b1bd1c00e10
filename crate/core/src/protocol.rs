//! The named, versioned messages between the side panel (or the runner) and the service worker.
//!
//! The panel connects a port named [`PANEL_PORT_NAME`] and sends [`PanelRequest`]s; the worker
//! answers with [`AgentEvent`]s. Every message carries `"v": PROTOCOL_VERSION`.

use crate::agent::{step_limit_reached, AgentEvent};
use crate::chats::{self, Chat, ChatSummary};
use crate::i18n::Message;
use crate::text;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub const PROTOCOL_VERSION: u64 = 1;
pub const PANEL_PORT_NAME: &str = "agent-panel";
/// Extension pages allowed to drive the agent, relative to the extension's root: the side panel,
/// and the settings page (which saves the settings through the worker).
const PANEL_PAGES: &[&str] = &["extension/panel/panel.html", "extension/options/options.html"];

/// The types of what the worker sends besides the tasks' events ([`AgentEvent`]): the answers to
/// a page's requests and the notices to every page, each built by [`message`]; `app_pairing`
/// comes from [`crate::mcp::pairing_question`] and `trimmed` from [`crate::chats`].
pub const SENT_TYPES: &[&str] = &[
    "hello",
    "chats",
    "chat",
    "app_pairing",
    "trimmed",
    "changed",
    "settings",
    "settings_validated",
    "settings_saved",
    "models",
    "local_servers",
    "workflows",
    "workflow_proposed",
    "workflow_saved",
    "workflow_deleted",
    "script",
    "schedule_set",
    "schedule_removed",
    "saved_tasks",
    "saved_tasks_checked",
    "saved_tasks_saved",
    "mcp_apps",
];

/// A message of type `kind` for the pages: `body`'s fields, with the version and the type.
pub fn message(kind: &'static str, body: Value) -> Value {
    debug_assert!(SENT_TYPES.contains(&kind), "\"{kind}\" is missing from SENT_TYPES");
    let mut value = json!({"v": PROTOCOL_VERSION, "type": kind});
    if let (Some(fields), Value::Object(body)) = (value.as_object_mut(), body) {
        fields.extend(body);
    }
    value
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum PanelRequest {
    /// Starts a task on a tab: the given one, or the active tab of the panel's window. Several
    /// tasks run at once, each in its own chat and tab, up to the user's limit; the rest wait.
    StartTask {
        task: String,
        #[serde(rename = "tabId")]
        tab_id: Option<i32>,
        /// Continue the stored chat `chatId` (its conversation, and its place in the History)
        /// rather than start a new one.
        #[serde(rename = "followUp", default)]
        follow_up: bool,
        /// The chat the task belongs to: a new one under this id (chosen by the panel, which then
        /// knows its events by it), or with `followUp` a stored one. Without it, a new chat.
        #[serde(rename = "chatId", default)]
        chat_id: Option<String>,
        /// A JSON Schema the answer must follow: it then comes as data (an `answer` event).
        #[serde(rename = "outputSchema", default)]
        output_schema: Option<Value>,
        /// The files the user attached to the task, with their bytes (bounded: `files::attach`).
        #[serde(default)]
        files: Vec<crate::files::attach::NewFile>,
    },
    /// Runs a recorded task again (its `run_recorded` record) on a tab, without asking the model
    /// where the page still matches.
    Replay {
        record: Value,
        #[serde(rename = "tabId")]
        tab_id: Option<i32>,
        /// The new chat it runs in, as with `start_task`.
        #[serde(rename = "chatId", default)]
        chat_id: Option<String>,
    },
    /// Runs a workflow (see [`crate::workflow`]) on a tab, with new values for its parameters.
    RunWorkflow {
        workflow: Value,
        #[serde(default)]
        values: BTreeMap<String, String>,
        #[serde(rename = "tabId")]
        tab_id: Option<i32>,
        #[serde(rename = "chatId", default)]
        chat_id: Option<String>,
    },
    /// Points out on the page an element a step acted on (`element` of an action report), for a
    /// few seconds, if it is still there.
    Highlight {
        #[serde(rename = "tabId")]
        tab_id: Option<i32>,
        element: crate::browser::Highlight,
    },
    /// Stops the task of chat `chat` (every task without it), cancelling a model call in flight;
    /// a waiting task leaves the queue.
    Stop {
        #[serde(default)]
        chat: Option<String>,
    },
    /// Pauses the task of chat `chat` (every task without it) at once (a model call in flight is
    /// abandoned, and made again on resume); `resume` continues it.
    Pause {
        #[serde(default)]
        chat: Option<String>,
    },
    Resume {
        #[serde(default)]
        chat: Option<String>,
    },
    /// The user's answer to an `approval_needed` event of chat `chat` (without it, of the task
    /// that asked `id`).
    Approve {
        id: u32,
        approved: bool,
        #[serde(default)]
        chat: Option<String>,
    },
    /// The user's decision on a `review_needed` step: run, skip, retry (with feedback) or cancel.
    Review {
        id: u32,
        decision: String,
        #[serde(default)]
        feedback: String,
        #[serde(default)]
        chat: Option<String>,
    },
    /// The user's answer to a `hand_over_needed` event: `continue` (with what they say, if
    /// anything), `stop`, or `unanswered` (no one is there to take over: the task ends).
    HandOver {
        id: u32,
        decision: String,
        #[serde(default)]
        note: String,
        #[serde(default)]
        chat: Option<String>,
    },
    /// The user's answer to an `app_pairing` question: may the AI app use the agent?
    /// `once`, `always` or `deny`.
    PairApp { decision: String },
    /// The History: answered with `chats`. (Braced, so that unknown fields are refused.)
    ListChats {},
    /// A stored chat, to be shown read-only: answered with `chat`.
    OpenChat { id: String },
    /// Deletes a stored chat (not the running one): answered with `chats`.
    DeleteChat { id: String },
    /// Deletes every stored chat but the running one: answered with `chats`.
    ClearChats {},
    // The pages' requests about the user's saved things (settings, workflows and schedules,
    // saved tasks, the AI apps allowed "Always"), and the queries the pages ask the core: the
    // worker alone writes them. Each is answered to the asking page alone (see `crate::saved`).
    /// The stored settings: answered with `settings`.
    GetSettings {},
    /// Checks settings without saving them (with `tokenBudget`, also that the token budget holds
    /// every agent's requests, as a save does): answered with `settings_validated`.
    ValidateSettings {
        settings: Value,
        #[serde(rename = "tokenBudget", default)]
        token_budget: bool,
    },
    /// Stores settings in place of the stored ones once they are valid and their token budget
    /// holds: answered with `settings_saved`.
    SaveSettings { settings: Value },
    /// The models the provider of `settings` offers: answered with `models`.
    ListModels { settings: Value },
    /// The model servers running on this computer: answered with `local_servers`.
    FindLocalServers {},
    /// The stored workflows and their schedules: answered with `workflows`.
    ListWorkflows {},
    /// A workflow from a successful run's record: answered with `workflow_proposed`.
    ProposeWorkflow { record: Value },
    /// Stores `workflow` as `name`, its parameters renamed by `names` (null in it drops one;
    /// without `names` they are kept, as for an import): answered with `workflow_saved`.
    SaveWorkflow {
        workflow: Value,
        name: String,
        #[serde(default)]
        names: Option<Vec<Option<String>>>,
    },
    /// Deletes the workflow `name` and its schedule: answered with `workflow_deleted`.
    DeleteWorkflow { name: String },
    /// A stored workflow as a Playwright script: answered with `script`.
    WorkflowScript { workflow: Value },
    /// Sets a workflow's schedule in place of its earlier one: answered with `schedule_set`.
    SetSchedule { schedule: Value },
    /// Removes the schedule of workflow `workflow`: answered with `schedule_removed`.
    RemoveSchedule { workflow: String },
    /// The saved tasks: answered with `saved_tasks`.
    GetSavedTasks {},
    /// Checks a list of saved tasks without storing it: answered with `saved_tasks_checked`.
    CheckSavedTasks { tasks: Value },
    /// Stores `tasks` as the saved tasks: answered with `saved_tasks_saved`.
    SaveSavedTasks { tasks: Value },
    /// The AI apps allowed "Always": answered with `mcp_apps`.
    ListMcpApps {},
    /// Forgets the AI app `name` allowed "Always" (it is asked again): answered with `mcp_apps`.
    RevokeMcpApp { name: String },
}

impl PanelRequest {
    /// Reads a message from the panel, refusing other versions with a clear reason.
    pub fn parse(message: &Value) -> Result<PanelRequest, Message> {
        let version = message.get("v").and_then(Value::as_u64);
        if version != Some(PROTOCOL_VERSION) {
            let version = version.map_or("missing".to_string(), |v| v.to_string());
            return Err(text!("core_protocol_version", version, PROTOCOL_VERSION).into());
        }
        let mut body = message.clone();
        // `ref` is the asking page's, for matching the answer to its request (the worker's port
        // puts it back on each answer).
        body.as_object_mut().map(|fields| (fields.remove("v"), fields.remove("ref")));
        let request: PanelRequest = serde_json::from_value(body).map_err(|err| malformed(err.to_string()))?;
        let bad_id = |id: &String| (!chats::is_valid_id(id)).then(|| malformed(format!("\"{id}\" is not a chat id")));
        let problem = match &request {
            PanelRequest::StartTask { task, .. } if task.trim().is_empty() => Some(text!("core_task_empty").into()),
            PanelRequest::StartTask { chat_id: Some(id), .. }
            | PanelRequest::Replay { chat_id: Some(id), .. }
            | PanelRequest::RunWorkflow { chat_id: Some(id), .. } => bad_id(id),
            PanelRequest::StartTask { follow_up: true, chat_id: None, .. } => {
                Some(malformed("a follow-up names the chat it continues (chatId)".into()))
            }
            PanelRequest::Stop { chat: Some(id) }
            | PanelRequest::Pause { chat: Some(id) }
            | PanelRequest::Resume { chat: Some(id) }
            | PanelRequest::Approve { chat: Some(id), .. }
            | PanelRequest::Review { chat: Some(id), .. }
            | PanelRequest::HandOver { chat: Some(id), .. } => bad_id(id),
            PanelRequest::OpenChat { id } | PanelRequest::DeleteChat { id } => bad_id(id),
            PanelRequest::PairApp { decision } if crate::mcp::Pairing::parse(decision).is_none() => {
                Some(malformed(format!("\"{decision}\" is not an answer: once, always or deny")))
            }
            PanelRequest::Replay { record, .. } => crate::agent::Replay::from_record(record).err().map(not_replayable),
            PanelRequest::RunWorkflow { workflow, values, .. } => {
                crate::workflow::run_with(workflow, values).err().map(not_runnable)
            }
            _ => None,
        };
        problem.map_or(Ok(request), Err)
    }
}

/// A message from the panel that cannot be read, and why (a developer's concern, in English).
pub fn malformed(why: String) -> Message {
    text!("core_protocol_malformed", why).into()
}

/// A recorded run that cannot be replayed, and why.
pub fn not_replayable(why: String) -> Message {
    text!("core_replay_impossible", why).into()
}

/// An output schema the core cannot check an answer against, and why.
pub fn unusable_schema(why: String) -> Message {
    text!("core_output_schema_unusable", why).into()
}

/// A workflow that cannot run with the values given, and why.
pub fn not_runnable(why: String) -> Message {
    text!("core_workflow_impossible", why).into()
}

/// Puts the protocol version on an event for the wire; a result also carries its text as safe
/// HTML (rendered from the model's markdown) for the panel to show. What the core wrote for the
/// user (an error, a warning, an approval question, the answer of a task out of steps) also goes
/// as `localizable`, its key and arguments (`{"key": "core_...", "args": ["...", {"key": ...}]}`),
/// for the panel to show in the user's language; `message` or `question` keep the English.
pub fn encode_event(event: &AgentEvent) -> Value {
    let mut value = serde_json::to_value(event).expect("events serialize");
    value["v"] = Value::from(PROTOCOL_VERSION);
    let localizable = match event {
        AgentEvent::Result { text, success, steps } => {
            value["html"] = Value::from(crate::markdown::to_safe_html(text).trim_end());
            // The answer is the model's, but for the one the core writes when the steps ran out.
            let step_limit = step_limit_reached(*steps);
            (!success && *text == step_limit.english()).then_some(step_limit)
        }
        AgentEvent::Error { message, .. } => {
            let field = message.text().and_then(crate::settings::setting_to_fix);
            if let Some(field) = field {
                value["setting"] = Value::from(field);
            }
            message.text().cloned()
        }
        AgentEvent::Warning { message } => message.text().cloned(),
        AgentEvent::ApprovalNeeded { question, .. } => question.text().cloned(),
        _ => None,
    };
    if let Some(text) = localizable {
        value["localizable"] = serde_json::to_value(text).expect("texts serialize");
    }
    value
}

/// An event of chat `chat`'s task, for the wire (see [`encode_event`]).
pub fn encode_chat_event(chat: &str, event: &AgentEvent) -> Value {
    let mut value = encode_event(event);
    value["chat"] = Value::from(chat);
    value
}

/// The History for the panel: the stored chats, newest first; `running` are the chats with a
/// task under way or waiting; `message` says why a request was not carried out.
pub fn encode_chats(chats: &[ChatSummary], running: &[String], refusal: Option<&str>) -> Value {
    let list: Vec<Value> = chats
        .iter()
        .map(|chat| json!({"id": chat.id, "title": chat.title, "created": chat.created, "updated": chat.updated}))
        .collect();
    let mut value = message("chats", json!({"chats": list, "running": running}));
    if let Some(refusal) = refusal {
        value["message"] = Value::from(refusal);
    }
    value
}

/// What a panel learns when it connects: each task under way or waiting, with its chat's events
/// so far (`running` says whether there is any, for the runner).
pub fn encode_hello(tasks: Vec<Value>) -> Value {
    message("hello", json!({"running": !tasks.is_empty(), "tasks": tasks}))
}

/// A stored chat for the panel to show read-only: its events as they were sent.
pub fn encode_chat(chat: &Chat) -> Value {
    message("chat", json!({"id": chat.id, "title": chat.title, "events": chat.events}))
}

/// The marker a stored chat keeps where events were cut out of it (see `Chat::cap`).
pub fn encode_trimmed() -> Value {
    message("trimmed", json!({}))
}

/// Only our own pages (the panel, the settings), inside our own extension, may connect.
pub fn is_trusted_sender(extension_id: &str, sender_id: Option<&str>, sender_url: Option<&str>) -> bool {
    let origin = format!("chrome-extension://{extension_id}/");
    let page =
        sender_url.and_then(|url| url.strip_prefix(&origin)).map(|rest| rest.split(['?', '#']).next().unwrap_or(""));
    sender_id == Some(extension_id) && page.is_some_and(|page| PANEL_PAGES.contains(&page))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_start_and_stop() {
        assert_eq!(
            PanelRequest::parse(&json!({"v": 1, "type": "start_task", "task": "buy a mug", "tabId": 4})),
            Ok(PanelRequest::StartTask {
                task: "buy a mug".into(),
                tab_id: Some(4),
                follow_up: false,
                chat_id: None,
                output_schema: None,
                files: Vec::new()
            })
        );
        assert_eq!(PanelRequest::parse(&json!({"v": 1, "type": "stop"})), Ok(PanelRequest::Stop { chat: None }));
        assert_eq!(
            PanelRequest::parse(&json!({"v": 1, "type": "pause", "chat": "18bc-0a1b"})),
            Ok(PanelRequest::Pause { chat: Some("18bc-0a1b".into()) })
        );
        assert_eq!(
            PanelRequest::parse(&json!({"v": 1, "type": "approve", "id": 3, "approved": false})),
            Ok(PanelRequest::Approve { id: 3, approved: false, chat: None })
        );
        assert!(PanelRequest::parse(&json!({"v": 1, "type": "stop", "chat": "a/b"}))
            .unwrap_err()
            .contains("not a chat id"));
    }

    #[test]
    fn refuses_other_versions_unknown_types_and_empty_tasks() {
        assert!(PanelRequest::parse(&json!({"v": 2, "type": "stop"})).unwrap_err().contains("version 2"));
        assert!(PanelRequest::parse(&json!({"type": "stop"})).unwrap_err().contains("version missing"));
        assert!(PanelRequest::parse(&json!({"v": 1, "type": "eval", "code": "x"})).unwrap_err().contains("malformed"));
        assert!(PanelRequest::parse(&json!({"v": 1, "type": "start_task", "task": "  "}))
            .unwrap_err()
            .contains("empty"));
        assert_eq!(
            PanelRequest::parse(&json!({"v": 1, "type": "pair_app", "decision": "always"})),
            Ok(PanelRequest::PairApp { decision: "always".into() })
        );
        assert!(PanelRequest::parse(&json!({"v": 1, "type": "pair_app", "decision": "maybe"}))
            .unwrap_err()
            .contains("not an answer"));
    }

    #[test]
    fn reads_the_history_requests() {
        assert_eq!(
            PanelRequest::parse(
                &json!({"v": 1, "type": "start_task", "task": "and a plate", "followUp": true, "chatId": "18bc-0a1b"})
            ),
            Ok(PanelRequest::StartTask {
                task: "and a plate".into(),
                tab_id: None,
                follow_up: true,
                chat_id: Some("18bc-0a1b".into()),
                output_schema: None,
                files: Vec::new()
            })
        );
        assert_eq!(PanelRequest::parse(&json!({"v": 1, "type": "list_chats"})), Ok(PanelRequest::ListChats {}));
        assert_eq!(PanelRequest::parse(&json!({"v": 1, "type": "clear_chats"})), Ok(PanelRequest::ClearChats {}));
        assert_eq!(
            PanelRequest::parse(&json!({"v": 1, "type": "open_chat", "id": "abc-1"})),
            Ok(PanelRequest::OpenChat { id: "abc-1".into() })
        );
        assert_eq!(
            PanelRequest::parse(&json!({"v": 1, "type": "delete_chat", "id": "abc-1"})),
            Ok(PanelRequest::DeleteChat { id: "abc-1".into() })
        );
    }

    #[test]
    fn refuses_malformed_history_requests() {
        let refused = |message: Value| PanelRequest::parse(&message).unwrap_err();
        assert!(refused(json!({"v": 1, "type": "open_chat"})).contains("missing field `id`"));
        assert!(refused(json!({"v": 1, "type": "open_chat", "id": 3})).contains("malformed"));
        assert!(refused(json!({"v": 1, "type": "delete_chat", "id": "chat:1"})).contains("not a chat id"));
        assert!(refused(json!({"v": 1, "type": "delete_chat", "id": ""})).contains("not a chat id"));
        assert!(refused(json!({"v": 1, "type": "list_chats", "all": true})).contains("unknown field"));
        assert!(refused(json!({"v": 1, "type": "clear_chats", "id": "a"})).contains("unknown field"));
        assert!(refused(json!({"v": 1, "type": "start_task", "task": "x", "chatId": "../settings"}))
            .contains("not a chat id"));
        assert!(refused(json!({"v": 1, "type": "start_task", "task": "x", "chatId": 5})).contains("malformed"));
        assert!(refused(json!({"v": 1, "type": "start_task", "task": "x", "followUp": true})).contains("chatId"));
        assert!(refused(json!({"v": 2, "type": "list_chats"})).contains("version 2"));
    }

    #[test]
    fn the_history_goes_to_the_panel_as_summaries_and_chats() {
        let summary =
            ChatSummary { id: "c1".into(), title: "buy a mug".into(), created: 1.0, updated: 2.0, bytes: 300 };
        assert_eq!(
            encode_chats(&[summary], &["c1".into()], None),
            json!({"v": 1, "type": "chats", "chats": [{"id": "c1", "title": "buy a mug", "created": 1.0, "updated": 2.0}], "running": ["c1"]})
        );
        let refused = encode_chats(&[], &[], Some("This chat's task is running"));
        assert_eq!(refused["running"], json!([]));
        assert_eq!(refused["message"], "This chat's task is running");
        let mut chat = Chat::new("c1".into(), "buy a mug", 1.0);
        chat.record(json!({"v": 1, "type": "task_started", "task": "buy a mug"}), 2.0);
        chat.conversation = json!([{"kind": "task", "assistant": false, "content": "Your task: buy a mug"}]);
        assert_eq!(
            encode_chat(&chat),
            json!({"v": 1, "type": "chat", "id": "c1", "title": "buy a mug", "events": [{"v": 1, "type": "task_started", "task": "buy a mug"}]})
        );
    }

    #[test]
    fn trusts_only_our_pages() {
        let id = "abcdef";
        assert!(is_trusted_sender(id, Some(id), Some("chrome-extension://abcdef/extension/panel/panel.html?tab=3")));
        assert!(!is_trusted_sender(id, Some("other"), Some("chrome-extension://abcdef/extension/panel/panel.html")));
        assert!(is_trusted_sender(id, Some(id), Some("chrome-extension://abcdef/extension/options/options.html")));
        assert!(!is_trusted_sender(id, Some(id), Some("chrome-extension://abcdef/extension/shared/dom.js")));
        assert!(!is_trusted_sender(id, Some(id), Some("https://evil.test/extension/panel/panel.html")));
        assert!(!is_trusted_sender(id, Some(id), None));
    }

    #[test]
    fn a_highlight_names_an_element() {
        let request =
            json!({"v": 1, "type": "highlight", "tabId": 2, "element": {"frame": 0, "doc": "d1", "id": 7, "index": 5}});
        let Ok(PanelRequest::Highlight { tab_id: Some(2), element }) = PanelRequest::parse(&request) else { panic!() };
        assert_eq!((element.target.id, element.index), (7, 5));
        assert!(PanelRequest::parse(&json!({"v": 1, "type": "highlight", "element": {"index": 5}})).is_err());
    }

    #[test]
    fn a_replay_carries_a_replayable_record() {
        let record = json!({"task": "t", "steps": [{"planned": [{"action": {"go_back": {}}, "element": null}]}]});
        let request = PanelRequest::parse(&json!({"v": 1, "type": "replay", "record": record, "tabId": 3}));
        assert_eq!(request, Ok(PanelRequest::Replay { record, tab_id: Some(3), chat_id: None }));
        let empty = PanelRequest::parse(&json!({"v": 1, "type": "replay", "record": {"steps": []}}));
        assert_eq!(empty, Err("This run cannot be replayed: the record has no actions to replay.".into()));
    }

    #[test]
    fn a_workflow_runs_only_when_it_and_its_values_are_usable() {
        let record = json!({"task": "find blue", "outcome": {"type": "result", "success": true}, "steps": [{"planned": [
            {"action": {"input_text": {"index": 2, "text": "blue"}}, "element": {"fingerprint": "00000000000000aa", "description": "<input> \"Search\" [2]"}}
        ]}]});
        let workflow = serde_json::to_value(crate::workflow::Workflow::propose(&record).unwrap()).unwrap();
        let run = |values: Value| {
            PanelRequest::parse(
                &json!({"v": 1, "type": "run_workflow", "workflow": workflow, "values": values, "tabId": 3}),
            )
        };
        assert_eq!(
            run(json!({"search": "red"})),
            Ok(PanelRequest::RunWorkflow {
                workflow: workflow.clone(),
                values: BTreeMap::from([("search".to_string(), "red".to_string())]),
                tab_id: Some(3),
                chat_id: None
            })
        );
        assert_eq!(
            run(json!({"colour": "red"})),
            Err("This workflow cannot run: the workflow has no parameter \"colour\" (it has: search).".into())
        );
        let broken = PanelRequest::parse(&json!({"v": 1, "type": "run_workflow", "workflow": {"format": "x"}}));
        assert!(broken.unwrap_err().starts_with("This workflow cannot run: this is not a workflow"));
    }

    #[test]
    fn a_result_carries_its_answer_as_safe_html() {
        let event = AgentEvent::Result { success: true, text: "**$14.50** <b>x</b>".into(), steps: 4 };
        assert_eq!(encode_event(&event)["html"], "<p><strong>$14.50</strong> &lt;b&gt;x&lt;/b&gt;</p>");
    }

    #[test]
    fn an_error_a_setting_fixes_names_it() {
        let message = crate::settings::SettingsError::MissingModel.text().into();
        let event = encode_event(&AgentEvent::Error { message, steps: 0 });
        assert_eq!(event["setting"], "model");
        let other = encode_event(&AgentEvent::Error { message: "The tab was closed.".into(), steps: 1 });
        assert!(other.get("setting").is_none());
    }

    #[test]
    fn what_the_core_writes_goes_with_its_key_and_arguments() {
        let refused = crate::llm::LlmError::Unauthorized { status: 401, detail: "bad key".into() };
        let event = encode_event(&AgentEvent::Error { message: refused.text().into(), steps: 0 });
        assert_eq!(event["message"], refused.to_string());
        assert_eq!(event["localizable"], json!({"key": "core_llm_unauthorized", "args": ["401", "bad key"]}));
        assert_eq!(event["setting"], "apiKey");
        // Nested texts go as objects.
        let stopped = crate::text!("core_task_failed_steps", 3u32, crate::browser::BrowserError::TabClosed.text());
        let event = encode_event(&AgentEvent::Error { message: stopped.into(), steps: 3 });
        assert_eq!(
            event["localizable"],
            json!({"key": "core_task_failed_steps", "args": ["3", {"key": "core_browser_tab_closed", "args": []}]})
        );
        assert!(event.get("setting").is_none());
        let question = crate::text!("core_question_plan_sites_ask", "shop.test").into();
        let event = encode_event(&AgentEvent::ApprovalNeeded { id: 1, question, url: "u".into(), data: vec![] });
        assert_eq!(event["localizable"]["key"], "core_question_plan_sites_ask");
        assert!(event["question"].as_str().unwrap().starts_with("The plan for this task uses these sites: shop.test."));
        // Words from elsewhere have no key: the panel shows the English.
        let warning = encode_event(&AgentEvent::Warning { message: "This chat could not be saved".into() });
        assert!(warning.get("localizable").is_none());
    }

    #[test]
    fn the_answer_of_a_task_out_of_steps_is_the_core_s_and_is_translated() {
        let limit = step_limit_reached(5);
        let event = encode_event(&AgentEvent::Result { success: false, text: limit.english(), steps: 5 });
        assert_eq!(event["localizable"], json!({"key": "core_task_step_limit", "args": ["5"]}));
        let answer = encode_event(&AgentEvent::Result { success: false, text: "No mug left.".into(), steps: 5 });
        assert!(answer.get("localizable").is_none());
    }

    #[test]
    fn events_carry_the_version_and_their_chat() {
        let event = AgentEvent::Stopped { steps: 2 };
        assert_eq!(encode_event(&event), json!({"v": 1, "type": "stopped", "steps": 2}));
        assert_eq!(encode_chat_event("c1", &event), json!({"v": 1, "type": "stopped", "steps": 2, "chat": "c1"}));
        let queued = encode_chat_event("c2", &AgentEvent::TaskQueued { task: "t".into(), position: 1 });
        assert_eq!(queued, json!({"v": 1, "type": "task_queued", "task": "t", "position": 1, "chat": "c2"}));
        assert_eq!(encode_hello(vec![])["running"], false);
    }

    #[test]
    fn what_is_sent_outside_message_is_listed_too() {
        let pairing = crate::mcp::pairing_question(Some("Claude"));
        for kind in [pairing["type"].as_str().unwrap(), encode_trimmed()["type"].as_str().unwrap()] {
            assert!(SENT_TYPES.contains(&kind), "{kind}");
        }
        assert_eq!(
            message("changed", json!({"what": "settings"})),
            json!({"v": 1, "type": "changed", "what": "settings"})
        );
    }

    #[test]
    fn a_page_s_ref_is_not_part_of_the_request() {
        let request = PanelRequest::parse(&json!({"v": 1, "type": "get_settings", "ref": 7}));
        assert_eq!(request, Ok(PanelRequest::GetSettings {}));
    }
}
