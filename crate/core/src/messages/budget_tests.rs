//! Property tests: whatever the history, no fitted request exceeds the budget, nothing that must
//! stay is lost, and shrinking follows its order.

use super::budget::{cut_page_lines, fit, omission_marker, Budget, Part};
use super::Kind;
use crate::llm::{ChatMessage, Image, Role};
use crate::tokens::TokenCounter;
use proptest::prelude::*;
use serde_json::json;

fn screenshot() -> Image {
    Image { media_type: "image/jpeg".into(), base64: "/9j/4AAQSkZJRgABAQ".into() }
}

fn state(page_lines: usize, with_image: bool) -> ChatMessage {
    let mut text = String::from("Current step: 3 of 25\nCurrent URL: http://127.0.0.1/shop\n<page_content>\n");
    for i in 0..page_lines {
        text.push_str(&format!("[{i}]button Add item number {i} to the cart\n"));
    }
    text.push_str("</page_content>\n");
    let message = ChatMessage::user(text);
    if with_image {
        message.with_images(vec![screenshot()])
    } else {
        message
    }
}

fn history_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Task),
        Just(Kind::Memory),
        Just(Kind::Output),
        Just(Kind::Results),
        Just(Kind::Plan),
        Just(Kind::Note)
    ]
}

prop_compose! {
    fn history_part()(kind in history_kind(), words in 1usize..400, image in proptest::bool::weighted(0.1)) -> Part {
        let text = format!("{kind:?} ") + &"word ".repeat(words);
        let message = if kind == Kind::Output { ChatMessage::assistant(text) } else { ChatMessage::user(text) };
        let message = if image { message.with_images(vec![screenshot()]) } else { message };
        Part::new(kind, message)
    }
}

prop_compose! {
    fn request()(
        history in proptest::collection::vec(history_part(), 0..40),
        page_lines in 0usize..600,
        image in any::<bool>(),
    ) -> Vec<Part> {
        let mut parts = vec![Part::new(Kind::System, ChatMessage::system("You are a browser agent. ".repeat(20)))];
        // Each message distinct, so that the test can tell which ones were kept.
        parts.extend(history.into_iter().enumerate().map(|(i, mut part)| {
            part.message.content = format!("#{i} {}", part.message.content);
            part
        }));
        parts.push(Part::new(Kind::State, state(page_lines, image)));
        parts
    }
}

fn schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"action": {"type": "array"}}})
}

fn count(counter: &TokenCounter, messages: &[ChatMessage]) -> usize {
    messages.iter().map(|message| counter.message(message)).sum::<usize>() + counter.text(&schema().to_string()) + 3
}

fn kept(parts: &[Part], kinds: &[Kind]) -> Vec<String> {
    parts.iter().filter(|p| kinds.contains(&p.kind)).map(|p| p.message.content.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn no_fitted_request_exceeds_the_budget_and_nothing_essential_is_lost(
        parts in request(),
        limit in 200usize..20_000,
    ) {
        let counter = TokenCounter::estimate();
        let budget = Budget { counter: counter.clone(), max_input_tokens: limit };
        let untouched = count(&counter, &parts.iter().map(|p| p.message.clone()).collect::<Vec<_>>());
        match fit(&budget, &schema(), parts.clone()) {
            Ok(fitted) => {
                let recounted = count(&counter, &fitted.messages);
                prop_assert!(recounted <= limit, "{recounted} > {limit}");
                prop_assert_eq!(recounted, fitted.tokens);
                prop_assert_eq!(fitted.split.total(), fitted.tokens);
                prop_assert_eq!(fitted.shrunk, untouched > limit);
                if !fitted.shrunk {
                    prop_assert_eq!(fitted.messages.len(), parts.len());
                }
                // One system message, first; the state last; every task and summary kept, in order.
                prop_assert_eq!(fitted.messages.iter().filter(|m| m.role == Role::System).count(), 1);
                prop_assert_eq!(fitted.messages[0].role, Role::System);
                prop_assert!(fitted.messages.last().unwrap().content.starts_with("Current step: 3 of 25"));
                let essential = kept(&parts, &[Kind::Task, Kind::Memory]);
                let contents: Vec<&String> = fitted.messages.iter().map(|m| &m.content).collect();
                let mut at = 0;
                for text in &essential {
                    let found = contents[at..].iter().position(|c| *c == text);
                    prop_assert!(found.is_some(), "lost: {text}");
                    at += found.unwrap() + 1;
                }
                // The order: results go before other history, and history before the page lines.
                let left_out = |kinds: &[Kind]| kept(&parts, kinds).iter().filter(|t| !contents.contains(t)).count();
                let history_lost = left_out(&[Kind::Output, Kind::Plan, Kind::Note]);
                if history_lost > 0 {
                    prop_assert_eq!(left_out(&[Kind::Results]), kept(&parts, &[Kind::Results]).len());
                }
                // Page lines are cut only when all other history is gone but the latest output.
                if fitted.messages.last().unwrap().content.contains("more lines of the page were cut") {
                    let others = kept(&parts, &[Kind::Output, Kind::Plan, Kind::Note]).len();
                    let has_output = parts.iter().any(|p| p.kind == Kind::Output);
                    prop_assert!(history_lost + usize::from(has_output) >= others);
                }
            }
            Err(over) => {
                // Refused only when the irreducible part alone is too big.
                prop_assert!(over.needed > limit);
                let mut minimal: Vec<ChatMessage> = parts
                    .iter()
                    .filter(|p| matches!(p.kind, Kind::System | Kind::Task | Kind::Memory))
                    .map(|p| ChatMessage { images: Vec::new(), ..p.message.clone() })
                    .collect();
                let page_lines = parts.last().unwrap().message.content.lines().count() - 4;
                minimal.push(cut_page_lines(&counter, &state(page_lines, false), 0).unwrap().0);
                let history = parts.iter().filter(|p| p.kind.is_history()).count();
                let marker = if history > 0 { counter.message(&omission_marker(history)) } else { 0 };
                prop_assert!(count(&counter, &minimal) + marker > limit);
            }
        }
    }
}

#[test]
fn a_tight_budget_leaves_out_old_results_first_and_marks_the_gap() {
    let counter = TokenCounter::estimate();
    let parts = vec![
        Part::new(Kind::System, ChatMessage::system("You are a browser agent.")),
        Part::new(Kind::Task, ChatMessage::user("Your task: buy a mug")),
        Part::new(Kind::Output, ChatMessage::assistant("clicked mugs")),
        Part::new(Kind::Results, ChatMessage::user(format!("extracted: {}", "mug ".repeat(500)))),
        Part::new(Kind::Output, ChatMessage::assistant("clicked blue")),
        Part::new(Kind::State, state(10, false)),
    ];
    let full = count(&counter, &parts.iter().map(|p| p.message.clone()).collect::<Vec<_>>());
    let budget = Budget { counter: counter.clone(), max_input_tokens: full - 300 };
    let fitted = fit(&budget, &schema(), parts).unwrap();
    let contents: Vec<&str> = fitted.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents[2], "clicked mugs");
    assert!(contents[3].starts_with("(1 earlier messages"), "{contents:?}");
    assert_eq!(contents[4], "clicked blue");
    assert!(fitted.shrunk);
}

#[test]
fn each_request_tells_where_its_tokens_went() {
    let counter = TokenCounter::estimate();
    let system = ChatMessage::system("You are a browser agent.");
    let task = ChatMessage::user("Your task: buy a mug");
    let plan = ChatMessage::user("Plan: open mugs");
    let output = ChatMessage::assistant("clicked mugs");
    let state = state(10, true);
    let parts = vec![
        Part::new(Kind::System, system.clone()),
        Part::new(Kind::Task, task.clone()),
        Part::new(Kind::Plan, plan.clone()),
        Part::new(Kind::Output, output.clone()),
        Part::new(Kind::State, state.clone()),
    ];
    let budget = Budget { counter: counter.clone(), max_input_tokens: 100_000 };
    let split = fit(&budget, &schema(), parts).unwrap().split;
    assert_eq!(split.instructions, counter.message(&system));
    assert_eq!(split.schema, counter.text(&schema().to_string()) + 3);
    assert_eq!(
        (split.task, split.plan, split.history),
        (counter.message(&task), counter.message(&plan), counter.message(&output))
    );
    assert_eq!(split.screenshot, counter.image(&screenshot()));
    let header = ChatMessage::user(
        "Current step: 3 of 25\nCurrent URL: http://127.0.0.1/shop\n<page_content>\n</page_content>\n",
    );
    assert_eq!(split.state_header, counter.message(&header));
    assert_eq!(split.page_lines, counter.message(&state) - split.screenshot - split.state_header);
    assert!(split.page_lines > 100, "{split:?}");
}

#[test]
fn page_lines_are_cut_from_the_end_with_a_note() {
    let counter = TokenCounter::estimate();
    let parts = vec![
        Part::new(Kind::System, ChatMessage::system("You are a browser agent.")),
        Part::new(Kind::State, state(400, true)),
    ];
    let budget = Budget { counter, max_input_tokens: 1500 };
    let fitted = fit(&budget, &schema(), parts).unwrap();
    let state = fitted.messages.last().unwrap();
    assert!(state.images.is_empty());
    assert!(state.content.contains("[0]button Add item number 0"));
    assert!(!state.content.contains("[399]"));
    assert!(state.content.contains("more lines of the page were cut to fit the token budget"));
    assert!(state.content.ends_with("</page_content>\n"));
}

#[test]
fn long_page_text_is_shortened_before_any_line_is_cut() {
    let counter = TokenCounter::estimate();
    let paragraph = "The quick brown fox jumps over the lazy dog again and again. ".repeat(30);
    let page = format!(
        "Current URL: http://shop.test/\n<page_content>\n[0]button Buy\n{paragraph}\n[1]a Next\n</page_content>\n"
    );
    let message = ChatMessage::user(page);
    let whole = counter.message(&message);
    let (fitted, tokens) = cut_page_lines(&counter, &message, whole * 2 / 3).unwrap();
    assert!(tokens <= whole * 2 / 3);
    let lines: Vec<&str> = fitted.content.lines().collect();
    assert_eq!(lines[2], "[0]button Buy");
    assert!(lines[3].ends_with('…') && lines[3].chars().count() < paragraph.len(), "{}", lines[3]);
    assert_eq!(lines[4], "[1]a Next", "no line was cut while shortening was enough");
    assert!(fitted.content.contains("long text lines were shortened"));
    assert!(!fitted.content.contains("more lines of the page were cut"));
}

#[test]
fn an_irreducible_request_over_the_budget_says_what_to_do() {
    let budget = Budget { counter: TokenCounter::estimate(), max_input_tokens: 50 };
    let parts = vec![Part::new(Kind::System, ChatMessage::system("You are a browser agent. ".repeat(40)))];
    let error = fit(&budget, &schema(), parts).unwrap_err();
    assert!(error.needed > 50);
    assert!(error.to_string().contains("Raise the token budget in the settings"));
}
