//! Property tests: no reply a model or a server sends, however broken, panics the core.

use agent_core::actions::Action;
use agent_core::agent::parse_navigator_output;
use agent_core::llm::{anthropic, gemini, parse_openai_reply, repair};
use proptest::prelude::*;

/// Text that is often almost JSON: fragments of the shapes the parsers look for.
fn near_json() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\"action\"",
        "\"current_state\"",
        "\"click_element\"",
        "\"do\"",
        "\"index\"",
        "\"choices\"",
        "\"message\"",
        "\"content\"",
        "\"tool_use\"",
        "\"input\"",
        "\"candidates\"",
        "\"parts\"",
        "\"text\"",
        "null",
        "true",
        "-1",
        "1e999",
        "4294967296",
        "\"\\u0000\"",
        "<think>",
        "</think>",
        "```json",
        "```",
        " ",
        "é",
        "🦀",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|parts| parts.concat())
}

fn arbitrary_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(|f| serde_json::json!(f)),
        ".{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::hash_map("[a-z_]{1,14}", inner, 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn reply_parsers_never_panic(text in prop_oneof![".*", near_json()]) {
        let _ = parse_navigator_output(&text);
        let _ = parse_openai_reply(&text);
        let _ = anthropic::parse_reply(&text);
        let _ = gemini::parse_reply(&text);
        let _ = repair::parse_lenient(&text);
    }

    #[test]
    fn actions_are_read_from_any_json_without_panicking(value in arbitrary_json()) {
        let _ = Action::from_json(&value);
        let _ = Action::from_json(&serde_json::json!({ "click_element": value.clone() }));
        let _ = Action::from_json(&serde_json::json!({ "scroll": value.clone() }));
        let _ = Action::from_json(&serde_json::json!({ "do": "scroll", "index": value.clone() }));
        let _ = Action::from_json(&serde_json::json!({ "do": value }));
    }
}
