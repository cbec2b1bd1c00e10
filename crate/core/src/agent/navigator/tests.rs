use super::*;
use crate::browser::{Highlight, OpOutcome};
use crate::dom_map::tests::{node, page};
use crate::dom_map::RawFrame;
use crate::llm::{ChatReply, LlmError};
use futures::executor::block_on;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

/// A one-page shop: a button adds a mug, the total is shown as text, a field holds a note.
#[derive(Default)]
struct FakeShop {
    cart: Cell<u32>,
    note: RefCell<String>,
    url: RefCell<String>,
    ops: RefCell<Vec<PageOp>>,
    closed: Cell<bool>,
    /// The indices highlighted, per call.
    highlights: RefCell<Vec<Vec<u32>>>,
}

impl FakeShop {
    fn new() -> Self {
        let shop = Self::default();
        *shop.url.borrow_mut() = "http://shop.test/".into();
        shop
    }
}

impl Browser for FakeShop {
    async fn observe(&self, _tab: TabId) -> Result<Vec<RawFrame>, BrowserError> {
        if self.closed.get() {
            return Err(BrowserError::TabClosed);
        }
        let mut note = node(3, Some(0), "textarea", "");
        note.value = Some(self.note.borrow().clone());
        let mut raw = page(vec![
            node(1, None, "body", ""),
            node(2, Some(0), "button", "Add blue mug"),
            note,
            node(4, Some(0), "p", &format!("Cart total: ${}.00", self.cart.get() * 12)),
        ]);
        raw.url = self.url.borrow().clone();
        Ok(vec![RawFrame { frame_id: 0, page: Ok(raw) }])
    }

    async fn navigate(&self, _tab: TabId, url: &str) -> Result<(), BrowserError> {
        *self.url.borrow_mut() = url.to_string();
        Ok(())
    }

    async fn highlight(&self, _tab: TabId, marks: &[Highlight]) -> Result<(), BrowserError> {
        self.highlights.borrow_mut().push(marks.iter().map(|mark| mark.index).collect());
        Ok(())
    }

    async fn perform(&self, _tab: TabId, op: &PageOp) -> Result<OpOutcome, BrowserError> {
        self.ops.borrow_mut().push(op.clone());
        match op {
            PageOp::Click { target, .. } if target.id == 2 => self.cart.set(self.cart.get() + 1),
            PageOp::Type { target, text, .. } if target.id == 3 => *self.note.borrow_mut() = text.clone(),
            _ => return Ok(OpOutcome { ok: false, message: "not clickable".into(), value: None }),
        }
        Ok(OpOutcome {
            ok: true,
            message: String::new(),
            value: matches!(op, PageOp::Type { .. }).then(|| self.note.borrow().clone()),
        })
    }
}

/// Replies from a queue and records every request.
struct ScriptedModel {
    replies: RefCell<VecDeque<Result<String, LlmError>>>,
    requests: RefCell<Vec<ChatRequest>>,
}

impl ScriptedModel {
    fn new(replies: Vec<Result<String, LlmError>>) -> Self {
        Self { replies: RefCell::new(replies.into()), requests: RefCell::new(Vec::new()) }
    }
}

impl ChatModel for ScriptedModel {
    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        self.requests.borrow_mut().push(request.clone());
        let reply = self.replies.borrow_mut().pop_front().expect("the script ran out of replies");
        reply.map(|content| ChatReply { content, usage: None })
    }
}

fn reply(actions: &str) -> Result<String, LlmError> {
    Ok(format!(
        r#"{{"current_state":{{"evaluation_previous_goal":"ok","memory":"m","next_goal":"g"}},"action":{actions}}}"#
    ))
}

fn config(max_steps: u32) -> TaskConfig {
    TaskConfig {
        task: "add the blue mug and tell me the total".into(),
        tab: 1,
        max_steps,
        map: MapOptions::default(),
        highlights: true,
    }
}

fn run(shop: &FakeShop, model: &ScriptedModel, max_steps: u32) -> (AgentEvent, Vec<AgentEvent>) {
    let events = RefCell::new(Vec::new());
    let emit = |event: AgentEvent| events.borrow_mut().push(event);
    let end = block_on(run_task(&config(max_steps), shop, model, &CancelToken::new(), &emit));
    (end, events.into_inner())
}

#[test]
fn completes_a_task_and_reports_each_step() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"click_element":{"index":1}}]"#),
        reply(r#"[{"done":{"text":"The total is $12.00","success":true}}]"#),
    ]);
    let (end, events) = run(&shop, &model, 10);
    assert_eq!(end, AgentEvent::Result { success: true, text: "The total is $12.00".into(), steps: 2 });
    assert_eq!(shop.cart.get(), 1);
    // Each step highlighted what the model saw; the end cleared the boxes.
    assert_eq!(*shop.highlights.borrow(), vec![vec![1, 2], vec![1, 2], vec![]]);
    let Some(AgentEvent::Step { actions, .. }) = events.iter().find(|e| matches!(e, AgentEvent::Step { step: 1, .. }))
    else {
        panic!("no step 1 event in {events:?}");
    };
    assert_eq!(actions[0].target.as_deref(), Some("<button> \"Add blue mug\" [1]"));
    assert_eq!(actions[0].outcome, "Clicked <button> \"Add blue mug\" [1].");

    // The second request saw the updated page and the first step's result, and only one system message.
    let requests = model.requests.borrow();
    let second = &requests[1].messages;
    let state = &second.last().unwrap().content;
    assert!(state.contains("Cart total: $12.00"), "{state}");
    assert!(state.contains("click_element: Clicked"), "{state}");
    assert_eq!(second.iter().filter(|m| m.role == crate::llm::Role::System).count(), 1);
    // The first step's state message was dropped; its compact output was kept.
    assert_eq!(second.iter().filter(|m| m.content.starts_with("Current step:")).count(), 1);
    assert!(second.iter().any(|m| m.role == crate::llm::Role::Assistant && m.content.contains("click_element")));
}

#[test]
fn types_and_reports_the_final_value() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"input_text":{"index":2,"text":"gift wrap"}}]"#),
        reply(r#"[{"done":{"text":"ok","success":true}}]"#),
    ]);
    let (_, events) = run(&shop, &model, 5);
    assert_eq!(*shop.note.borrow(), "gift wrap");
    assert!(format!("{events:?}").contains("Typed \\\"gift wrap\\\" into <textarea> [2]."));
}

#[test]
fn a_bad_index_fails_the_action_and_the_model_hears_why() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"click_element":{"index":99}}]"#),
        reply(r#"[{"done":{"text":"gave up","success":false}}]"#),
    ]);
    let (end, _) = run(&shop, &model, 5);
    assert!(matches!(end, AgentEvent::Result { success: false, .. }));
    let state = model.requests.borrow()[1].messages.last().unwrap().content.clone();
    assert!(state.contains("There is no element [99]"), "{state}");
    assert!(shop.ops.borrow().is_empty());
}

#[test]
fn stops_remaining_actions_when_the_page_changes_under_them() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"click_element":{"index":1}},{"click_element":{"index":1}}]"#),
        reply(r#"[{"done":{"text":"ok","success":true}}]"#),
    ]);
    run(&shop, &model, 5);
    // The first click changed the total text but not the button, so both clicks ran.
    assert_eq!(shop.cart.get(), 2);

    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"go_to_url":{"url":"http://shop.test/other"}},{"click_element":{"index":1}}]"#),
        reply(r#"[{"done":{"text":"ok","success":true}}]"#),
    ]);
    run(&shop, &model, 5);
    assert_eq!(shop.cart.get(), 0, "the click meant for the old page must not run");
    let state = model.requests.borrow()[1].messages.last().unwrap().content.clone();
    assert!(state.contains("The page changed to http://shop.test/other"), "{state}");
}

#[test]
fn unusable_replies_are_explained_to_the_model_and_end_the_task_when_repeated() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![Ok("not json".into()), Ok("still not".into()), Ok("{\"x\":1}".into())]);
    let (end, events) = run(&shop, &model, 10);
    let AgentEvent::Error { message, steps } = end else { panic!("expected an error, got {end:?}") };
    assert_eq!(steps, 3);
    assert!(
        message.contains("3 failed steps")
            && message.contains("reply could not be used (the reply has no \"action\" list)"),
        "{message}"
    );
    assert!(message.contains("supports structured JSON output"), "{message}");
    let second = &model.requests.borrow()[1].messages;
    assert!(second
        .iter()
        .any(|m| m.content.contains("Your reply could not be used: the reply contains no JSON object")));
    assert!(format!("{events:?}").contains("supports structured JSON output"));
}

#[test]
fn a_provider_error_ends_the_task_with_its_message() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![Err(LlmError::Unauthorized { status: 401, detail: "bad key".into() })]);
    let (end, _) = run(&shop, &model, 10);
    let AgentEvent::Error { message, .. } = end else { panic!("{end:?}") };
    assert!(message.contains("refused the API key"), "{message}");
}

#[test]
fn the_last_step_asks_for_done_and_the_limit_ends_the_task() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"click_element":{"index":1}}]"#),
        reply(r#"[{"click_element":{"index":1}}]"#),
    ]);
    let (end, _) = run(&shop, &model, 2);
    assert_eq!(
        end,
        AgentEvent::Result {
            success: false,
            text: "The task was not finished within the limit of 2 steps.".into(),
            steps: 2
        }
    );
    assert!(model.requests.borrow()[1].messages.last().unwrap().content.contains("This is the last step"));
}

#[test]
fn a_closed_tab_ends_the_task_clearly() {
    let shop = FakeShop::new();
    shop.closed.set(true);
    let (end, _) = run(&shop, &ScriptedModel::new(vec![]), 5);
    let AgentEvent::Error { message, .. } = end else { panic!("{end:?}") };
    assert!(message.contains("has been closed"), "{message}");
}

#[test]
fn stopping_before_a_step_ends_the_task_as_stopped() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![]);
    let cancel = CancelToken::new();
    cancel.cancel();
    let end = block_on(run_task(&config(5), &shop, &model, &cancel, &|_| {}));
    assert_eq!(end, AgentEvent::Stopped { steps: 0 });
}

#[test]
fn refuses_restricted_urls_without_navigating() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"go_to_url":{"url":"chrome://settings"}}]"#),
        reply(r#"[{"done":{"text":"x","success":false}}]"#),
    ]);
    run(&shop, &model, 5);
    assert_eq!(*shop.url.borrow(), "http://shop.test/");
    let state = model.requests.borrow()[1].messages.last().unwrap().content.clone();
    assert!(state.contains("chrome: pages cannot be opened"), "{state}");
}
