use super::*;
use crate::agent::fakes::{config, reply, run, FakeShop, ScriptedModel};
use crate::agent::task_config::Budgets;
use crate::agent::{Limits, LiveLimits};
use crate::llm::ChatRequest;
use crate::llm::LlmError;
use crate::messages::RequestStyle;
use futures::executor::block_on;
use std::cell::RefCell;
use std::rc::Rc;

#[test]
fn completes_a_task_and_reports_each_step() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"The total is $12.00","success":true}]"#),
    ]);
    let (end, events) = run(&shop, &model, 10);
    assert_eq!(end, AgentEvent::Result { success: true, text: "The total is $12.00".into(), steps: 2 });
    assert_eq!(shop.cart.get(), 1);
    // Each step highlighted what the model saw; the end cleared the boxes.
    assert_eq!(*shop.highlights.borrow(), vec![vec![1, 2, 3, 4], vec![1, 2, 3, 4], vec![]]);
    let Some(AgentEvent::Step { actions, .. }) = events.iter().find(|e| matches!(e, AgentEvent::Step { step: 1, .. }))
    else {
        panic!("no step 1 event in {events:?}");
    };
    assert_eq!(actions[0].target.as_deref(), Some("<button> \"Add blue mug\" [1]"));
    assert_eq!(actions[0].outcome, "Clicked <button> \"Add blue mug\" [1].");
    // Where the element was, for the panel to point it out.
    assert_eq!(actions[0].element.as_ref().map(|e| e.index), Some(1));

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
        reply(r#"[{"do":"input_text","index":2,"text":"gift wrap","clear":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let (_, events) = run(&shop, &model, 5);
    assert_eq!(*shop.note.borrow(), "gift wrap");
    assert!(format!("{events:?}").contains("Typed \\\"gift wrap\\\" into <textarea> [2]."));
}

#[test]
fn a_bad_index_fails_the_action_and_the_model_hears_why() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"click_element","index":99,"click":null}]"#),
        reply(r#"[{"do":"done","text":"gave up","success":false}]"#),
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
        reply(r#"[{"do":"click_element","index":1,"click":null},{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    run(&shop, &model, 5);
    // The first click changed the total text but not the button, so both clicks ran.
    assert_eq!(shop.cart.get(), 2);

    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"go_to_url","url":"http://shop.test/other"},{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    run(&shop, &model, 5);
    assert_eq!(shop.cart.get(), 0, "the click meant for the old page must not run");
    let state = model.requests.borrow()[1].messages.last().unwrap().content.clone();
    assert!(state.contains("The page changed, so the remaining actions (click_element) were not run"), "{state}");
}

#[test]
fn unusable_replies_are_explained_to_the_model_and_end_the_task_when_repeated() {
    let shop = FakeShop::new();
    // Each step asks twice (the second time with the problem explained) before it counts as failed.
    let replies = ["not json", "still not", "{oops", "no", "nope", "{\"x\":1}"];
    // Only a model that nothing holds to the schema (prompt-only mode) can write these.
    let model = ScriptedModel::unconstrained(replies.iter().map(|r| Ok(r.to_string())).collect());
    let (end, events) = run(&shop, &model, 10);
    let AgentEvent::Error { message, steps } = end else { panic!("expected an error, got {end:?}") };
    assert_eq!(steps, 3);
    assert_eq!(model.requests.borrow().len(), 6);
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
fn one_bad_reply_is_corrected_within_the_step_and_forgotten() {
    let shop = FakeShop::new();
    let model = ScriptedModel::unconstrained(vec![
        Ok("Sure! I will click it.".into()),
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let (end, _) = run(&shop, &model, 5);
    assert!(matches!(end, AgentEvent::Result { success: true, steps: 2, .. }), "{end:?}");
    assert_eq!(shop.cart.get(), 1);
    let retry = &model.requests.borrow()[1].messages;
    assert!(retry.iter().any(|m| m.content == "Your reply could not be used: the reply contains no JSON object. Reply with one JSON object in the required format."));
    let next_step = &model.requests.borrow()[2].messages;
    assert!(!next_step.iter().any(|m| m.content.contains("could not be used")), "the failed exchange is dropped");
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
    // A model held to the schema could only say done on the last step; one in prompt-only mode
    // may go on clicking.
    let model = ScriptedModel::unconstrained(vec![
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
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
    let user =
        crate::agent::fakes::FakeUser { approves: false, asked: Default::default(), reviews: Default::default() };
    let end = block_on(run_task(&config(5), &shop, crate::agent::Models::single(&model), &user, &cancel, &|_| {}));
    assert_eq!(end, AgentEvent::Stopped { steps: 0 });
}

#[test]
fn refuses_restricted_urls_without_navigating() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"go_to_url","url":"chrome://settings"}]"#),
        reply(r#"[{"do":"done","text":"x","success":false}]"#),
    ]);
    run(&shop, &model, 5);
    assert_eq!(*shop.url.borrow(), "http://shop.test/");
    let state = model.requests.borrow()[1].messages.last().unwrap().content.clone();
    assert!(state.contains("chrome: pages cannot be opened"), "{state}");
}

#[test]
fn usage_and_cost_are_reported_as_the_task_runs() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let config = TaskConfig {
        price: Some(crate::llm::pricing::Price { input: 2.5, output: 10.0 }),
        ..crate::agent::fakes::config(5)
    };
    let (_, events) = crate::agent::fakes::run_with(&config, &shop, &model);
    let usage: Vec<(u64, u64, Option<f64>)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Usage { input_tokens, output_tokens, cost } => Some((*input_tokens, *output_tokens, *cost)),
            _ => None,
        })
        .collect();
    assert_eq!(usage.len(), 2);
    assert_eq!((usage[1].0, usage[1].1), (200, 40));
    assert!((usage[1].2.unwrap() - 0.0009).abs() < 1e-12);
}

#[test]
fn going_round_in_circles_is_called_out_to_the_model() {
    let shop = FakeShop::new();
    let hover = || reply(r#"[{"do":"hover","index":2}]"#);
    let model =
        ScriptedModel::new(vec![hover(), hover(), hover(), reply(r#"[{"do":"done","text":"stuck","success":false}]"#)]);
    run(&shop, &model, 10);
    assert!(!model.state(2).contains("not working"));
    let fourth = model.state(3);
    assert!(fourth.contains("You have now taken the same actions on the same, unchanged page 3 times"), "{fourth}");
}

#[test]
fn the_last_step_offers_only_done_in_the_schema() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"hover","index":2}]"#),
        reply(r#"[{"do":"done","text":"x","success":false}]"#),
    ]);
    run(&shop, &model, 2);
    let requests = model.requests.borrow();
    let variants = |i: usize| requests[i].schema["properties"]["action"]["items"]["anyOf"].as_array().unwrap().len();
    assert!(variants(0) > 1);
    assert_eq!(variants(1), 1);
}

fn with_validator(rejections: u32) -> TaskConfig {
    TaskConfig { validator_rejections: Some(rejections), ..crate::agent::fakes::config(10) }
}

#[test]
fn the_validator_confirms_a_success_with_its_answer() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"done","text":"Total is 0","success":true}]"#),
        Ok(r#"{"is_valid": true, "reason": "the page shows the total", "answer": "The cart total is $0.00."}"#.into()),
    ]);
    let (end, events) = crate::agent::fakes::run_with(&with_validator(1), &shop, &model);
    assert_eq!(end, AgentEvent::Result { success: true, text: "The cart total is $0.00.".into(), steps: 1 });
    assert!(events.contains(&AgentEvent::Validation { valid: true, reason: "the page shows the total".into() }));
    let validation = &model.requests.borrow()[1];
    assert_eq!(validation.schema_name, "validation");
    assert_eq!(validation.messages.len(), 3, "the validator never sees the history");
    assert!(validation.messages[1].content.starts_with("Task: add the blue mug"));
    assert!(validation.messages[2].content.contains("Cart total: $0.00"));
}

#[test]
fn navigator_and_validator_are_asked_for_the_answer_in_the_users_language() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"done","text":"Der Warenkorb ist leer","success":true}]"#),
        Ok(r#"{"is_valid": true, "reason": "leer", "answer": "Der Warenkorb ist leer."}"#.into()),
    ]);
    let config = TaskConfig { answer_language: "de-DE".into(), ..with_validator(1) };
    crate::agent::fakes::run_with(&config, &shop, &model);
    let requests = model.requests.borrow();
    let asks_german = |text: &str| {
        text.ends_with("write the final answer for the user in German, unless the task asks for another language.")
    };
    assert!(requests[0].messages[1].content.starts_with("Your task: add the blue mug"));
    assert!(asks_german(&requests[0].messages[1].content), "{}", requests[0].messages[1].content);
    assert!(requests[1].messages[1].content.contains("write the final answer for the user in German"));
    // In English nothing is added.
    let english = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    crate::agent::fakes::run_with(
        &TaskConfig { answer_language: "en-US".into(), ..crate::agent::fakes::config(5) },
        &shop,
        &english,
    );
    assert!(!english.requests.borrow()[0].messages[1].content.contains("language"));
}

#[test]
fn a_rejection_sends_the_navigator_back_and_repeated_ones_end_honestly() {
    let shop = FakeShop::new();
    let reject = || Ok(r#"{"is_valid": false, "reason": "the cart is still empty", "answer": ""}"#.to_string());
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"done","text":"Added the mug","success":true}]"#),
        reject(),
        reply(r#"[{"do":"done","text":"Added the mug, really","success":true}]"#),
        reject(),
    ]);
    let (end, _) = crate::agent::fakes::run_with(&with_validator(1), &shop, &model);
    assert_eq!(
        end,
        AgentEvent::Result {
            success: false,
            text: "Added the mug, really\n\n(Not verified: the cart is still empty)".into(),
            steps: 2
        }
    );
    assert!(model.state(2).contains("The validator did not accept your answer: the cart is still empty."));
}

const PLAN: &str = r#"{"analysis":"a","progress":"Just started","challenges":"none","next_steps":["Add the mug"],"steps_done":0,"web_task":true,"answer":null,"sites":["shop.test"]}"#;
/// A plan after the first, which is not asked about the browser, an answer or sites.
const LATER_PLAN: &str =
    r#"{"analysis":"a","progress":"Under way","challenges":"none","next_steps":["Add the mug"],"steps_done":0}"#;

#[test]
fn the_planner_runs_every_few_steps_and_the_navigator_reads_its_plan() {
    let shop = FakeShop::new();
    let hover = || reply(r#"[{"do":"hover","index":2}]"#);
    let model = ScriptedModel::new(vec![
        Ok(PLAN.into()),
        hover(),
        hover(),
        Ok(LATER_PLAN.into()),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let config = TaskConfig { planning_interval: Some(2), ..crate::agent::fakes::config(10) };
    let (end, events) = crate::agent::fakes::run_with(&config, &shop, &model);
    assert!(matches!(end, AgentEvent::Result { success: true, steps: 3, .. }), "{end:?}");
    let requests = model.requests.borrow();
    let names: Vec<&str> = requests.iter().map(|r| r.schema_name.as_str()).collect();
    assert_eq!(names, ["plan", "navigator_output", "navigator_output", "plan", "navigator_output"]);
    assert!(requests[1]
        .messages
        .iter()
        .any(|m| m.content.starts_with("Plan from the planner") && m.content.contains("1. Add the mug")));
    // The task, the first plan, two outputs and the first step's results; then the state.
    assert_eq!(requests[3].messages.len(), 1 + 5 + 1, "the planner sees the whole history and the state");
    assert!(requests[3].messages[4].content.starts_with("Results of step 1:\n- hover:"));
    assert_eq!(events.iter().filter(|e| matches!(e, AgentEvent::Plan { .. })).count(), 2);
}

#[test]
fn a_task_that_needs_no_browser_is_answered_by_the_planner() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![Ok(
        r#"{"analysis":"","progress":"","challenges":"","next_steps":[],"steps_done":0,"web_task":false,"answer":"12 × 12 = 144","sites":[]}"#.into(),
    )]);
    let config = TaskConfig { planning_interval: Some(3), ..crate::agent::fakes::config(10) };
    let (end, _) = crate::agent::fakes::run_with(&config, &shop, &model);
    assert_eq!(end, AgentEvent::Result { success: true, text: "12 × 12 = 144".into(), steps: 1 });
    assert!(shop.ops.borrow().is_empty());
}

/// A task on the shop with each agent on its own model, planning every 3 steps, validated.
fn run_with_own_models(
    shop: &FakeShop,
    navigator: &ScriptedModel,
    planner: &ScriptedModel,
    validator: &ScriptedModel,
) -> AgentEvent {
    let config =
        TaskConfig { planning_interval: Some(3), validator_rejections: Some(1), ..crate::agent::fakes::config(5) };
    let user =
        crate::agent::fakes::FakeUser { approves: false, asked: Default::default(), reviews: Default::default() };
    let models = crate::agent::Models { navigator, planner, validator };
    block_on(run_task(&config, shop, models, &user, &CancelToken::new(), &|_| {}))
}

#[test]
fn each_agent_asks_its_own_model() {
    let shop = FakeShop::new();
    let navigator = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    let replan = LATER_PLAN.replace("Under way", "The task looks done");
    let planner = ScriptedModel::new(vec![Ok(PLAN.into()), Ok(replan)]);
    let validator = ScriptedModel::new(vec![Ok(r#"{"is_valid": true, "reason": "fine", "answer": ""}"#.into())]);
    let end = run_with_own_models(&shop, &navigator, &planner, &validator);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    assert_eq!(planner.requests.borrow()[0].schema_name, "plan");
    assert_eq!(navigator.requests.borrow()[0].schema_name, "navigator_output");
    let validation = &validator.requests.borrow()[0];
    assert_eq!(validation.schema_name, "validation");
    // The claim of success made the planner look again at the conversation, the page left to
    // the validator, which reads the planner's view of the progress (not its next steps).
    let replanned = &planner.requests.borrow()[1];
    assert!(replanned.messages.iter().any(|m| m.content.contains("\"done\"")), "the planner sees the claim");
    let planner_state = &replanned.messages.last().unwrap().content;
    assert!(!planner_state.contains("<page_content>") && planner_state.contains("The validator reads the page"));
    assert!(!planner_state.contains("Results"), "a step of done alone has no results to add: {planner_state}");
    assert!(validation.messages[2].content.contains("<page_content>"), "the validator reads the page");
    assert!(replanned.schema["properties"].get("web_task").is_none(), "a later plan's schema");
    assert!(validation.messages[1]
        .content
        .ends_with("The planner's assessment of the progress:\nProgress: The task looks done\nChallenges: none"));
}

#[test]
fn the_re_plan_on_a_claim_reads_the_last_steps_results_in_place_of_the_page() {
    let shop = FakeShop::new();
    let navigator =
        ScriptedModel::new(vec![reply(r#"[{"do":"hover","index":2},{"do":"done","text":"ok","success":true}]"#)]);
    let planner = ScriptedModel::new(vec![Ok(PLAN.into()), Ok(LATER_PLAN.into())]);
    let validator = ScriptedModel::new(vec![Ok(r#"{"is_valid": true, "reason": "fine", "answer": ""}"#.into())]);
    let end = run_with_own_models(&shop, &navigator, &planner, &validator);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    let replanned = planner.requests.borrow()[1].messages.last().unwrap().content.clone();
    assert!(replanned.contains("Results of the agent's last step:\n- hover: "), "{replanned}");
    assert!(!replanned.contains("- done:"), "the claim is in the conversation already: {replanned}");
    assert!(!validator.requests.borrow()[0].messages[2].content.contains("hover"), "the validator reads the page");
}

#[test]
fn with_vision_each_state_carries_a_screenshot_that_leaves_with_it() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"hover","index":2}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let config = TaskConfig { vision: true, ..crate::agent::fakes::config(5) };
    let (_, events) = crate::agent::fakes::run_with(&config, &shop, &model);
    // The panel gets a small picture of what the model saw, with each step.
    let shown: Vec<Option<&str>> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Step { screenshot, .. } => Some(screenshot.as_deref()),
            _ => None,
        })
        .collect();
    assert_eq!(shown, [Some("data:image/jpeg;base64,BBBB"); 2]);
    let requests = model.requests.borrow();
    let second = &requests[1].messages;
    assert_eq!(second.last().unwrap().images.len(), 1);
    assert_eq!(second.iter().map(|m| m.images.len()).sum::<usize>(), 1, "older screenshots are not kept");
}

#[test]
fn a_follow_up_task_continues_the_conversation() {
    let shop = FakeShop::new();
    let config = crate::agent::fakes::config(5);
    let first = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"Total is $0.00","success":true}]"#)]);
    crate::agent::fakes::run_with(&config, &shop, &first);
    let follow_up = TaskConfig { task: "and now add one".into(), ..config.clone() };
    let second = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    crate::agent::fakes::run_with(&follow_up, &shop, &second);
    let messages = &second.requests.borrow()[0].messages;
    assert!(messages[1].content.starts_with("Your task: add the blue mug"));
    assert!(messages.iter().any(|m| m.content.contains("Total is $0.00")), "the first task's answer is remembered");
    assert!(messages
        .iter()
        .any(|m| m.content.starts_with("Your follow-up task") && m.content.ends_with("and now add one")));
    // A new conversation starts empty.
    config.conversation.borrow_mut().clear();
    let fresh = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    crate::agent::fakes::run_with(&config, &shop, &fresh);
    assert_eq!(fresh.requests.borrow()[0].messages.len(), 3);
}

#[test]
fn a_pause_during_a_model_call_abandons_it_and_resume_asks_again() {
    struct PausesOnFirstCall<'a> {
        inner: ScriptedModel,
        cancel: &'a CancelToken,
        calls: std::cell::Cell<u32>,
    }
    impl ChatModel for PausesOnFirstCall<'_> {
        async fn complete(&self, request: &ChatRequest) -> Result<crate::llm::ChatReply, crate::llm::LlmError> {
            self.calls.set(self.calls.get() + 1);
            if self.calls.get() == 1 {
                self.cancel.pause(); // The user presses Pause while the model thinks.
                futures::future::pending::<()>().await;
            }
            self.inner.complete(request).await
        }
    }
    let shop = FakeShop::new();
    let cancel = CancelToken::new();
    let model = PausesOnFirstCall {
        inner: ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]),
        cancel: &cancel,
        calls: Default::default(),
    };
    let user =
        crate::agent::fakes::FakeUser { approves: false, asked: Default::default(), reviews: Default::default() };
    let events = RefCell::new(Vec::new());
    let emit = |e: AgentEvent| events.borrow_mut().push(e);
    let resume_when_paused = async {
        cancel.interrupted().await;
        cancel.resume();
    };
    let config = crate::agent::fakes::config(5);
    let (end, ()) = block_on(async {
        futures::join!(
            run_task(&config, &shop, crate::agent::Models::single(&model), &user, &cancel, &emit),
            resume_when_paused
        )
    });
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    assert_eq!(model.calls.get(), 2, "the abandoned call was made again");
    let events = events.into_inner();
    assert!(events.contains(&AgentEvent::Paused { step: 1 }) && events.contains(&AgentEvent::Resumed { step: 1 }));
}

#[test]
fn ask_before_acting_runs_skips_retries_or_cancels_as_the_user_says() {
    use crate::agent::Review;
    let shop = FakeShop::new();
    let click = || reply(r#"[{"do":"click_element","index":1,"click":null}]"#);
    let model =
        ScriptedModel::new(vec![click(), click(), click(), reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    let user = crate::agent::fakes::FakeUser {
        approves: false,
        asked: Default::default(),
        reviews: RefCell::new(
            vec![Review::Skip, Review::Retry("use the other button".into()), Review::Run, Review::Run].into(),
        ),
    };
    let config = TaskConfig {
        limits: LiveLimits::new(Limits { ask_before_acting: true, ..Limits::default() }),
        ..crate::agent::fakes::config(10)
    };
    let (end, events) = crate::agent::fakes::run_as(&config, &shop, &model, &user);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    assert_eq!(shop.cart.get(), 1, "only the step the user let run clicked");
    assert!(model.state(1).contains("The user skipped these actions"));
    assert!(model.state(2).contains("asks you to reconsider: use the other button"));
    assert_eq!(events.iter().filter(|e| matches!(e, AgentEvent::ReviewNeeded { .. })).count(), 4);

    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![click()]);
    let user = crate::agent::fakes::FakeUser {
        approves: false,
        asked: Default::default(),
        reviews: RefCell::new(vec![Review::Cancel].into()),
    };
    let (end, _) = crate::agent::fakes::run_as(&config, &shop, &model, &user);
    assert_eq!(end, AgentEvent::Stopped { steps: 1 });
    assert_eq!(shop.cart.get(), 0);
}

#[test]
fn a_loop_that_persists_after_the_nudge_brings_the_planner_in() {
    let shop = FakeShop::new();
    let hover = || reply(r#"[{"do":"hover","index":2}]"#);
    let model = ScriptedModel::new(vec![
        Ok(PLAN.into()),
        hover(),
        hover(),
        hover(), // third time: the model is told
        hover(), // still: the planner comes in before the next step
        Ok(LATER_PLAN.into()),
        reply(r#"[{"do":"done","text":"stuck","success":false}]"#),
    ]);
    let config = TaskConfig { planning_interval: Some(100), ..crate::agent::fakes::config(10) };
    let (end, _) = crate::agent::fakes::run_with(&config, &shop, &model);
    assert!(matches!(end, AgentEvent::Result { steps: 5, .. }), "{end:?}");
    let names: Vec<String> = model.requests.borrow().iter().map(|r| r.schema_name.clone()).collect();
    assert_eq!(names[5], "plan", "{names:?}");
}

#[test]
fn older_steps_are_summarised_into_a_memory_that_replaces_them() {
    let shop = FakeShop::new();
    let hover = || reply(r#"[{"do":"hover","index":2}]"#);
    let model = ScriptedModel::new(vec![
        hover(),
        hover(),
        hover(),
        hover(),
        Ok(r#"{"memory": "Hovered the mug four times; the total is still $0.00."}"#.into()),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let config = TaskConfig { memory_interval: Some(2), ..config(10) };
    let (end, events) = crate::agent::fakes::run_with(&config, &shop, &model);
    assert!(matches!(end, AgentEvent::Result { success: true, steps: 5, .. }), "{end:?}");
    let requests = model.requests.borrow();
    assert_eq!(requests[4].schema_name, "memory", "summarised after step 4, not after step 2");
    // The summary request quotes the first step's output and results: the older history.
    assert!(requests[4].messages[1].content.starts_with("Agent: {"));
    assert!(requests[4].messages.iter().any(|m| m.content.starts_with("Result or feedback: Results of step 1:")));
    let after: Vec<&str> = requests[5].messages.iter().map(|m| m.content.as_str()).collect();
    assert!(after[1].starts_with("Your task:"));
    assert_eq!(
        after[2],
        "Memory of the earlier steps (summarised): Hovered the mug four times; the total is still $0.00."
    );
    // The three latest steps stay verbatim: outputs 2 to 4 with the results between them.
    assert_eq!(after[1..].iter().filter(|m| m.contains("\"current_state\"")).count(), 3);
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::Memory { tokens_before, tokens_after, .. } if tokens_after < tokens_before)));
}

#[test]
fn no_request_exceeds_a_small_budget() {
    use crate::messages::Budget;
    use crate::tokens::TokenCounter;
    let script = || {
        let hover = || reply(r#"[{"do":"hover","index":2}]"#);
        ScriptedModel::new(
            (0..7).map(|_| hover()).chain([reply(r#"[{"do":"done","text":"ok","success":true}]"#)]).collect(),
        )
    };
    let counter = TokenCounter::estimate();
    let request_tokens = |request: &ChatRequest| {
        request.messages.iter().map(|m| counter.message(m)).sum::<usize>()
            + counter.text(&request.schema.to_string())
            + 3
    };
    // Room for the first step and a little more: the history soon outgrows it.
    let unbounded = script();
    crate::agent::fakes::run(&FakeShop::new(), &unbounded, 10);
    let limit = request_tokens(&unbounded.requests.borrow()[0]) + 150;
    assert!(request_tokens(unbounded.requests.borrow().last().unwrap()) > limit);
    let model = script();
    let budget = Budget { counter: counter.clone(), max_input_tokens: limit };
    let config = TaskConfig { budgets: Budgets::single(budget), ..config(10) };
    let (end, events) = crate::agent::fakes::run_with(&config, &FakeShop::new(), &model);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    for request in model.requests.borrow().iter() {
        let tokens = request_tokens(request);
        assert!(tokens <= limit, "{tokens} > {limit}");
        assert!(request.messages[1].content.starts_with("Your task:"), "the task is never left out");
    }
    assert!(events.iter().any(
        |e| matches!(e, AgentEvent::Warning { message } if message.contains(&format!("input budget ({limit} tokens)")))
    ));
}

#[test]
fn a_budget_too_small_for_the_instructions_ends_the_task_saying_what_to_do() {
    use crate::messages::Budget;
    use crate::tokens::TokenCounter;
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![]);
    let budget = Budget { counter: TokenCounter::estimate(), max_input_tokens: 300 };
    let config = TaskConfig { budgets: Budgets::single(budget), ..config(10) };
    let (end, _) = crate::agent::fakes::run_with(&config, &shop, &model);
    let AgentEvent::Error { message, steps: 1 } = end else { panic!("{end:?}") };
    assert!(message.contains("Raise the token budget in the settings"), "{message}");
    assert!(model.requests.borrow().is_empty(), "nothing over the budget was sent");
}

#[test]
fn a_task_resumes_from_its_checkpoint_with_its_history() {
    let hover = || reply(r#"[{"do":"hover","index":2}]"#);
    let saved = Rc::new(RefCell::new(Vec::<crate::agent::Checkpoint>::new()));
    let sink = Rc::clone(&saved);
    let config =
        TaskConfig { on_checkpoint: Some(Rc::new(move |checkpoint| sink.borrow_mut().push(checkpoint))), ..config(10) };
    // The first worker gets through two steps; the third never finishes (the worker stops).
    let first = ScriptedModel::new(vec![
        hover(),
        hover(),
        Err(LlmError::Unreachable { url: "x".into(), detail: "the worker stopped".into() }),
    ]);
    crate::agent::fakes::run_with(&config, &FakeShop::new(), &first);
    let checkpoint = saved.borrow()[2].clone();
    assert_eq!((checkpoint.step, checkpoint.usage), (3, (200, 40)));
    assert!(checkpoint.results[0].starts_with("hover:"));
    let checkpoint: crate::agent::Checkpoint =
        serde_json::from_str(&serde_json::to_string(&checkpoint).unwrap()).unwrap();

    let second = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    let resumed = TaskConfig { resume: Some(checkpoint), on_checkpoint: None, ..config.clone() };
    let (end, events) = crate::agent::fakes::run_with(&resumed, &FakeShop::new(), &second);
    assert_eq!(end, AgentEvent::Result { success: true, text: "ok".into(), steps: 3 });
    assert_eq!(events[0], AgentEvent::TaskResumed { task: config.task.clone(), step: 3 });
    assert!(!events.iter().any(|e| matches!(e, AgentEvent::TaskStarted { .. })));
    let request = &second.requests.borrow()[0];
    let contents: Vec<&str> = request.messages.iter().map(|m| m.content.as_str()).collect();
    // The task once, both earlier outputs, the first step's results; the second's in the state.
    assert_eq!(contents.iter().filter(|c| c.starts_with("Your task:")).count(), 1);
    assert_eq!(contents.iter().filter(|c| c.contains("\"current_state\"")).count(), 3);
    assert!(contents.iter().any(|c| c.starts_with("Results of step 1:")));
    assert!(contents.last().unwrap().starts_with("Current step: 3 of 10\nResults of your previous actions:\n- hover:"));
    assert!(events.contains(&AgentEvent::Usage { input_tokens: 300, output_tokens: 60, cost: None }));
}

#[test]
fn the_run_is_recorded_step_by_step_with_tokens_times_and_no_secret() {
    use crate::safety::{Secret, Secrets};
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"hover","index":2}]"#),
        reply(r#"[{"do":"done","text":"The PIN 9876 worked","success":true}]"#),
        Ok(r#"{"is_valid": true, "reason": "shown", "answer": ""}"#.into()),
    ]);
    let secrets = Secrets::new(vec![Secret { name: "pin".into(), value: "9876".into(), domains: vec![] }]).unwrap();
    let config = TaskConfig {
        limits: LiveLimits::new(Limits { secrets, ..Limits::default() }),
        price: Some(crate::llm::pricing::Price { input: 1.0, output: 2.0 }),
        ..with_validator(1)
    };
    let (end, events) = crate::agent::fakes::run_with(&config, &shop, &model);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    let position = events.iter().position(|e| matches!(e, AgentEvent::RunRecorded { .. })).unwrap();
    assert_eq!(position, events.len() - 2, "the record comes just before the final event");
    let AgentEvent::RunRecorded { record, report } = &events[position] else { unreachable!() };
    assert!(report.contains("- ✓ hover:") && !report.contains("9876"), "{report}");
    assert_eq!(record["format"], "browser-agent-run/1");
    let steps = record["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0]["url"], "http://shop.test/");
    assert_eq!(steps[0]["actions"][0]["name"], "hover");
    assert_eq!(steps[0]["tokens"]["navigator"], serde_json::json!({"input": 100, "output": 20, "calls": 1}));
    assert_eq!(steps[1]["tokens"]["validator"]["calls"], 1);
    assert_eq!(steps[1]["validation"]["valid"], true);
    for phase in ["page_map_ms", "model_ms", "actions_ms"] {
        assert!(steps[0]["timing"][phase].as_f64().unwrap() > 0.0, "{phase}");
    }
    assert_eq!(record["tokens"]["navigator"]["input"], 200);
    // Each request's own count, by what it carries.
    let request = &steps[0]["requests"][0];
    assert_eq!(request["role"], "navigator");
    // Counted without a vocabulary (the fakes' counter): the record says it is an estimate.
    assert_eq!(request["counted"], "estimate");
    let split = request["split"].as_object().unwrap();
    assert_eq!(split.values().map(|n| n.as_u64().unwrap()).sum::<u64>(), request["tokens"].as_u64().unwrap());
    assert!(split["instructions"].as_u64().unwrap() > 500 && split["page_lines"].as_u64().unwrap() > 0, "{split:?}");
    assert_eq!(steps[1]["requests"][1]["role"], "validator");
    assert!((record["cost"].as_f64().unwrap() - 0.00042).abs() < 1e-12, "three calls of 100 in and 20 out");
    let text = record.to_string();
    assert!(!text.contains("9876") && text.contains("<secret>pin</secret>"), "{text}");
}

#[test]
fn compact_requests_carry_the_short_instructions_and_the_outline_schema() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let config = TaskConfig { style: RequestStyle::Compact, ..config(5) };
    let (end, _) = crate::agent::fakes::run_with(&config, &shop, &model);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    let requests = model.requests.borrow();
    let first = &requests[0];
    assert!(!first.strict);
    assert_eq!(first.schema, crate::agent::navigator_schema(false, RequestStyle::Compact));
    assert!(first.messages[0].content.contains("\nclick_element{index: N, click?: double|right}\n"));
    assert!(first.messages.last().unwrap().content.starts_with("Step 1/5\nURL: http://shop.test/\nTitle: "));
}

#[test]
fn a_history_that_takes_half_the_budget_is_summarised_without_waiting_for_the_interval() {
    use crate::messages::Budget;
    use crate::tokens::TokenCounter;
    let wordy = || {
        let memory = "remembered ".repeat(900);
        Ok(format!(
            r#"{{"current_state":{{"evaluation_previous_goal":"ok","memory":"{memory}","next_goal":"g"}},"action":[{{"do":"hover","index":2}}]}}"#
        ))
    };
    let mut script: Vec<_> = (0..4).map(|_| wordy()).collect();
    script.push(Ok(r#"{"memory": "Hovered four times."}"#.into()));
    script.push(reply(r#"[{"do":"done","text":"ok","success":true}]"#));
    let model = ScriptedModel::new(script);
    let budget = Budget { counter: TokenCounter::estimate(), max_input_tokens: 8_000 };
    let config = TaskConfig { memory_interval: None, budgets: Budgets::single(budget), ..config(10) };
    let (end, events) = crate::agent::fakes::run_with(&config, &FakeShop::new(), &model);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    let names: Vec<String> = model.requests.borrow().iter().map(|r| r.schema_name.clone()).collect();
    assert_eq!(names[4], "memory", "{names:?}");
    assert!(events.iter().any(|e| matches!(e, AgentEvent::Memory { .. })));
}

#[test]
fn a_recorded_run_replays_without_the_model_until_the_page_changed_or_the_answer_is_due() {
    let recording = ScriptedModel::new(vec![
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"input_text","index":2,"text":"gift wrap","clear":null}]"#),
        reply(r#"[{"do":"done","text":"The total is $12.00","success":true}]"#),
    ]);
    let (_, events) = run(&FakeShop::new(), &recording, 10);
    let Some(AgentEvent::RunRecorded { record, .. }) =
        events.iter().find(|e| matches!(e, AgentEvent::RunRecorded { .. }))
    else {
        panic!("no record");
    };
    let replay = crate::agent::Replay::from_record(&serde_json::from_str(&record.to_string()).unwrap()).unwrap();
    assert_eq!(replay.len(), 3);

    // On the same shop: both actions replay with no model call; only the answer is asked for.
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"The total is $12.00 now","success":true}]"#)]);
    let replaying = TaskConfig { replay: Some(replay.clone()), ..config(10) };
    let (end, events) = crate::agent::fakes::run_with(&replaying, &shop, &model);
    assert_eq!(end, AgentEvent::Result { success: true, text: "The total is $12.00 now".into(), steps: 3 });
    assert_eq!((shop.cart.get(), shop.note.borrow().as_str()), (1, "gift wrap"));
    let requests = model.requests.borrow();
    assert_eq!(requests.len(), 1, "one model call, for the answer");
    let replayed = events.iter().find_map(|e| match e {
        AgentEvent::RunRecorded { record, .. } => Some(record["replayed_steps"].clone()),
        _ => None,
    });
    assert_eq!(replayed, Some(serde_json::json!(2)), "the record counts the steps run without the model");
    let asked = requests[0].messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n");
    assert!(
        asked.contains("You are replaying a recorded run of this task") && asked.contains("give the user the answer")
    );
    let goals: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Step { next_goal, .. } => Some(next_goal.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        goals[0].starts_with(
            "Replay step 1 of the recorded run: {\"do\":\"click_element\",\"index\":1} on <button> \"Add blue mug\""
        ),
        "{goals:?}"
    );

    // A page where the button was replaced by something else: the model decides that step.
    let changed = FakeShop::new();
    *changed.buy_label.borrow_mut() = Some("Buy now".into());
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"hover","index":2}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let config = TaskConfig { replay: Some(replay), ..config(10) };
    crate::agent::fakes::run_with(&config, &changed, &model);
    let first = model.requests.borrow()[0].messages.iter().map(|m| m.content.clone()).collect::<Vec<_>>().join("\n");
    assert!(first.contains("The page changed: that element is no longer on it."), "{first}");
}

#[test]
fn a_replay_interrupted_by_a_worker_restart_goes_on_replaying() {
    let recording = ScriptedModel::new(vec![
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"input_text","index":2,"text":"gift wrap","clear":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let (_, events) = run(&FakeShop::new(), &recording, 10);
    let Some(AgentEvent::RunRecorded { record, .. }) =
        events.iter().find(|e| matches!(e, AgentEvent::RunRecorded { .. }))
    else {
        panic!("no record");
    };
    let replay = crate::agent::Replay::from_record(record).unwrap();
    let saved = Rc::new(RefCell::new(Vec::<crate::agent::Checkpoint>::new()));
    let sink = Rc::clone(&saved);
    let replaying = TaskConfig {
        replay: Some(replay),
        on_checkpoint: Some(Rc::new(move |checkpoint| sink.borrow_mut().push(checkpoint))),
        ..config(10)
    };
    // A first worker runs the replay (here until the answer's model call fails); it is taken to
    // have stopped during step 2, whose checkpoint it had saved.
    let shop = FakeShop::new();
    let first = ScriptedModel::new(vec![Err(LlmError::Unreachable { url: "x".into(), detail: "stopped".into() })]);
    crate::agent::fakes::run_with(&replaying, &shop, &first);
    let checkpoint: crate::agent::Checkpoint =
        serde_json::from_str(&serde_json::to_string(&saved.borrow()[1]).unwrap()).unwrap();
    assert_eq!(checkpoint.step, 2);
    assert_eq!(checkpoint.replay.as_ref().map(|(_, next)| *next), Some(1));

    // The restarted worker replays step 2 without the model, then asks only for the answer.
    let second = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok again","success":true}]"#)]);
    let resumed = TaskConfig { resume: Some(checkpoint), on_checkpoint: None, replay: None, ..replaying.clone() };
    let resumed =
        TaskConfig { replay: resumed.resume.as_ref().and_then(|c| c.replay.clone()).map(|(r, _)| r), ..resumed };
    let fresh = FakeShop::new();
    let (end, _) = crate::agent::fakes::run_with(&resumed, &fresh, &second);
    assert_eq!(end, AgentEvent::Result { success: true, text: "ok again".into(), steps: 3 });
    assert_eq!(fresh.note.borrow().as_str(), "gift wrap");
    assert_eq!(second.requests.borrow().len(), 1);
}

#[test]
fn the_tab_a_task_ends_in_is_told_even_when_it_moved_to_another() {
    use std::rc::Rc;
    let ended = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&ended);
    let config = TaskConfig { on_end_tab: Some(Rc::new(move |tab| sink.borrow_mut().push(tab))), ..config(10) };
    let stays = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    crate::agent::fakes::run_with(&config, &FakeShop::new(), &stays);
    assert_eq!(*ended.borrow(), [1]);
    let shop = FakeShop::new();
    let moves = ScriptedModel::new(vec![
        reply(r#"[{"do":"open_tab","url":"shop.test/faq"}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    crate::agent::fakes::run_with(&config, &shop, &moves);
    assert_eq!(shop.current_tab.get(), 2, "the task opened tab 2 and worked there");
    assert_eq!(*ended.borrow(), [1, 2]);
}
