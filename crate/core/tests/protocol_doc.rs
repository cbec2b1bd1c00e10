//! docs/protocol.md lists every message of the protocol: the requests the core accepts
//! (`PanelRequest`, read through serde as the worker reads them), the messages it sends (each
//! `AgentEvent` and `SENT_TYPES`), and nothing else; the pages (extension/panel, extension/options)
//! send and handle only messages listed there.

use agent_core::agent::AgentEvent;
use agent_core::protocol::{PanelRequest, SENT_TYPES};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The message names of a section of docs/protocol.md (from its `## ` heading to the next): the
/// `` ### `name` `` headings.
fn documented(section: &str) -> BTreeSet<String> {
    let doc = std::fs::read_to_string(repository().join("docs/protocol.md")).expect("docs/protocol.md");
    let start = doc.find(&format!("\n## {section}")).unwrap_or_else(|| panic!("no section \"## {section}\""));
    let body = &doc[start + 4..];
    let body = &body[..body.find("\n## ").unwrap_or(body.len())];
    body.lines().filter_map(|line| line.strip_prefix("### `")?.strip_suffix('`')).map(str::to_string).collect()
}

/// The requests the core accepts, as serde names them: an unknown type is refused with the list.
fn accepted() -> BTreeSet<String> {
    let refused = serde_json::from_value::<PanelRequest>(json!({"type": "?"})).unwrap_err().to_string();
    let names = refused.split("expected one of ").nth(1).unwrap_or_else(|| panic!("serde's answer changed: {refused}"));
    names.split(", ").map(|name| name.trim_matches(|c: char| c == '`' || c.is_whitespace()).to_string()).collect()
}

/// One event of each kind; [`kind_index`] keeps the list whole.
fn one_of_each_event() -> Vec<AgentEvent> {
    let text = || "t".to_string();
    vec![
        AgentEvent::AppDriving { client: text() },
        AgentEvent::TaskStarted { task: text() },
        AgentEvent::TaskQueued { task: text(), position: 1 },
        AgentEvent::TaskResumed { task: text(), step: 1 },
        AgentEvent::StepStarted { step: 1, max_steps: 2 },
        AgentEvent::Step {
            step: 1,
            max_steps: 2,
            evaluation: text(),
            memory: text(),
            next_goal: text(),
            actions: vec![],
            screenshot: None,
        },
        AgentEvent::Plan { progress: text(), challenges: text(), next_steps: vec![], steps_done: 0 },
        AgentEvent::Memory { summary: text(), tokens_before: 2, tokens_after: 1 },
        AgentEvent::ReviewNeeded { id: 1, step: 1, next_goal: text(), actions: vec![] },
        AgentEvent::Validation { valid: true, reason: text() },
        AgentEvent::ModelOutput { text: text() },
        AgentEvent::Usage { input_tokens: 1, output_tokens: 1, cost: None },
        AgentEvent::RunRecorded { record: Value::Null, report: text() },
        AgentEvent::Warning { message: "w".into() },
        AgentEvent::ApprovalNeeded { id: 1, question: "q".into(), url: text(), data: vec![] },
        AgentEvent::Result { success: true, text: text(), steps: 1 },
        AgentEvent::Error { message: "e".into(), steps: 1 },
        AgentEvent::Paused { step: 1 },
        AgentEvent::Resumed { step: 1 },
        AgentEvent::Stopped { steps: 1 },
        AgentEvent::Files { files: vec![] },
        AgentEvent::Answer { data: Value::Null },
        AgentEvent::Downloaded { name: text(), mime: text(), size: 1, download_id: Some(1) },
        AgentEvent::FilmFrame { film: text(), step: 1, image: text(), outline: None, masks: vec![], caption: text() },
        AgentEvent::HandOverNeeded {
            id: 1,
            reason: agent_core::agent::HandOverReason::Login,
            question: "q".into(),
            url: text(),
            tab: 1,
        },
    ]
}

/// The place of an event's kind in [`one_of_each_event`]: a new kind does not compile here until
/// it has a place, and the test below fails until the list has an event of it there.
fn kind_index(event: &AgentEvent) -> usize {
    match event {
        AgentEvent::AppDriving { .. } => 0,
        AgentEvent::TaskStarted { .. } => 1,
        AgentEvent::TaskQueued { .. } => 2,
        AgentEvent::TaskResumed { .. } => 3,
        AgentEvent::StepStarted { .. } => 4,
        AgentEvent::Step { .. } => 5,
        AgentEvent::Plan { .. } => 6,
        AgentEvent::Memory { .. } => 7,
        AgentEvent::ReviewNeeded { .. } => 8,
        AgentEvent::Validation { .. } => 9,
        AgentEvent::ModelOutput { .. } => 10,
        AgentEvent::Usage { .. } => 11,
        AgentEvent::RunRecorded { .. } => 12,
        AgentEvent::Warning { .. } => 13,
        AgentEvent::ApprovalNeeded { .. } => 14,
        AgentEvent::Result { .. } => 15,
        AgentEvent::Error { .. } => 16,
        AgentEvent::Paused { .. } => 17,
        AgentEvent::Resumed { .. } => 18,
        AgentEvent::Stopped { .. } => 19,
        AgentEvent::Files { .. } => 20,
        AgentEvent::Answer { .. } => 21,
        AgentEvent::Downloaded { .. } => 22,
        AgentEvent::FilmFrame { .. } => 23,
        AgentEvent::HandOverNeeded { .. } => 24,
    }
}

/// Every type the worker sends: each event's, as it goes on the wire, and the others.
fn sent() -> BTreeSet<String> {
    let events = one_of_each_event();
    for (at, event) in events.iter().enumerate() {
        assert_eq!(kind_index(event), at, "one_of_each_event lists each kind of event once, in kind_index's order");
    }
    let types =
        events.iter().map(|event| agent_core::protocol::encode_event(event)["type"].as_str().unwrap().to_string());
    types.chain(SENT_TYPES.iter().map(|name| name.to_string())).collect()
}

/// Says what one side has that the other lacks.
fn compare(what: &str, documented: &BTreeSet<String>, code: &BTreeSet<String>) {
    let undocumented: Vec<&String> = code.difference(documented).collect();
    let unknown: Vec<&String> = documented.difference(code).collect();
    assert!(
        undocumented.is_empty() && unknown.is_empty(),
        "docs/protocol.md and the code differ on {what}: the code has {undocumented:?} which the doc lacks; the doc lists {unknown:?} which the code does not have"
    );
}

#[test]
fn the_doc_lists_every_request_the_core_accepts_and_no_other() {
    compare("the requests", &documented("Requests"), &accepted());
}

#[test]
fn the_doc_lists_every_message_the_worker_sends_and_no_other() {
    compare("the messages the worker sends", &documented("Messages"), &sent());
}

/// The pages' scripts, each as text.
fn page_scripts() -> Vec<String> {
    let mut scripts = Vec::new();
    for folder in ["extension/panel", "extension/options", "extension/shared"] {
        for entry in std::fs::read_dir(repository().join(folder)).expect(folder) {
            let path = entry.expect("a file").path();
            if path.extension().is_some_and(|ext| ext == "js") {
                scripts.push(std::fs::read_to_string(&path).expect("a script"));
            }
        }
    }
    scripts
}

/// The names quoted right after each `pattern` in `text`: `type: 'stop'` gives `stop`.
fn quoted_after(text: &str, pattern: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for piece in text.split(pattern).skip(1) {
        let name: String = piece.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
        if piece[name.len()..].starts_with('\'') {
            found.insert(name);
        }
    }
    found
}

/// The blocks of the `switch (event.type)` statements in `script`, by their braces.
fn event_switches(script: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    for (start, _) in script.match_indices("switch (event.type) {") {
        let body = &script[start..];
        let mut depth = 0;
        let end = body.char_indices().find_map(|(at, c)| {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            (c == '}' && depth == 0).then_some(at)
        });
        blocks.push(&body[..end.expect("a closed switch")]);
    }
    blocks
}

#[test]
fn the_pages_send_and_handle_only_listed_messages() {
    let scripts = page_scripts();
    let requests = documented("Requests");
    let sent_by_pages: BTreeSet<String> = scripts.iter().flat_map(|script| quoted_after(script, "type: '")).collect();
    let unlisted: Vec<&String> = sent_by_pages.difference(&requests).collect();
    assert!(unlisted.is_empty(), "the pages send {unlisted:?}, which docs/protocol.md does not list as requests");
    let unsent: Vec<&String> = requests.difference(&sent_by_pages).collect();
    assert!(unsent.is_empty(), "docs/protocol.md lists {unsent:?} as requests, which no page sends");

    let messages = documented("Messages");
    let switches: Vec<&str> = scripts.iter().flat_map(|script| event_switches(script)).collect();
    assert!(!switches.is_empty(), "the panel reads the worker's messages in a switch (event.type)");
    let handled: BTreeSet<String> = switches.iter().flat_map(|block| quoted_after(block, "case '")).collect();
    let unknown: Vec<&String> = handled.difference(&messages).collect();
    assert!(unknown.is_empty(), "the panel handles {unknown:?}, which docs/protocol.md does not list as messages");
}
