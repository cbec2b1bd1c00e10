//! Every reply schema the core can send to a model, in one list: the tests that hold each one to
//! the providers' rules read it, and so does the grammar check of the end-to-end suite (through
//! `cargo run -p agent-core --example request_schemas`).

use super::navigator::answer::with_answer;
use super::planner::{planner_prompt, PlanStage};
use super::prompt::{extraction_prompt, navigator_schema};
use super::summarizer::summary_prompt;
use super::validator::validator_prompt;
use crate::answer::OutputSchema;
use crate::messages::{Prompt, RequestStyle};
use serde::Serialize;
use serde_json::Value;

/// One schema as a request carries it.
#[derive(Debug, Clone, Serialize)]
pub struct RequestSchema {
    /// Which request: `navigator`, `navigator (last step)`, `planner`... with the request style.
    pub label: String,
    /// The name the providers are given (`json_schema.name`, the forced tool's name).
    pub name: String,
    pub schema: Value,
    /// Whether it is sent for strict enforcement, or only as an outline (see `ChatRequest`).
    pub strict: bool,
}

impl RequestSchema {
    fn of(label: impl Into<String>, prompt: Prompt) -> Self {
        RequestSchema { label: label.into(), name: prompt.schema_name, schema: prompt.schema, strict: prompt.strict }
    }
}

/// The navigator's schemas in both request styles, on a step and on the last step, and with an
/// output schema's answer in `done`; then the planner's, the validator's, the summarizer's and
/// the extraction's.
pub fn request_schemas() -> Vec<RequestSchema> {
    let mut list = Vec::new();
    for (style, style_name) in [(RequestStyle::Full, "full"), (RequestStyle::Compact, "compact")] {
        for (last_step, step_name) in [(false, "a step"), (true, "the last step")] {
            list.push(RequestSchema {
                label: format!("navigator, {style_name} request, {step_name}"),
                name: super::navigator::NAVIGATOR_SCHEMA_NAME.into(),
                schema: navigator_schema(last_step, style),
                strict: style == RequestStyle::Full,
            });
        }
    }
    let (schema, strict) = with_answer(navigator_schema(false, RequestStyle::Full), &example_output_schema(), true);
    list.push(RequestSchema {
        label: "navigator, full request, with an output schema".into(),
        name: super::navigator::NAVIGATOR_SCHEMA_NAME.into(),
        schema,
        strict,
    });
    for (stage, label) in [(PlanStage::First, "planner, first plan"), (PlanStage::Later, "planner, later plans")] {
        list.push(RequestSchema::of(label, planner_prompt(std::iter::empty(), "", stage, RequestStyle::Full)));
    }
    list.push(RequestSchema::of("validator", validator_prompt("", "", None, "", RequestStyle::Full)));
    list.push(RequestSchema::of("summarizer", summary_prompt("", &[])));
    list.push(RequestSchema::of("extraction", extraction_prompt("", "")));
    list.push(RequestSchema::of("critic", super::critic::critic_prompt(&[], "")));
    list
}

/// An output schema as users write them: nested, with optional fields, bounds and enums.
fn example_output_schema() -> OutputSchema {
    OutputSchema::new(serde_json::json!({
        "type": "object",
        "properties": {
            "source": {"type": "string", "format": "uri"},
            "jobs": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "minLength": 1},
                    "salary": {"type": "number", "minimum": 0},
                    "remote": {"type": "boolean"},
                    "level": {"enum": ["junior", "senior"]}
                },
                "required": ["title"]
            }}
        },
        "required": ["jobs"]
    }))
    .expect("a schema the core can check")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::Action;
    use crate::browser::Click;
    use crate::llm::testing::{replies_obeying, schema_breaches};
    use proptest::prelude::*;

    fn schema(label: &str) -> Value {
        request_schemas().into_iter().find(|s| s.label == label).unwrap().schema
    }

    /// What the model meant by one action, read from its JSON, as a user would expect it done.
    fn check_action(json: &Value, action: &Action) {
        let (name, params) = crate::actions::name_and_params(json).unwrap();
        let null = |key: &str| params.get(key).is_none_or(Value::is_null);
        match action {
            Action::ClickElement { click, .. } if null("click") => assert_eq!(*click, Click::Single, "{json}"),
            Action::ClickElement { click, .. } => {
                assert_eq!(click.verb() == "Double-clicked", params["click"] == "double")
            }
            Action::InputText { clear, .. } => assert_eq!(*clear, null("clear") || params["clear"] == true, "{json}"),
            Action::Wait { seconds } if null("seconds") => assert_eq!(*seconds, 2.0),
            Action::Scroll { pages, index, .. } => {
                assert!(!null("pages") || *pages == 1.0, "{json}");
                assert_eq!(index.is_none(), null("index"), "{json}");
            }
            Action::Done { text, .. } => assert_eq!(text, params["text"].as_str().unwrap()),
            _ => {}
        }
        assert_eq!(action.name(), name);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn every_navigator_reply_the_schema_allows_is_read_as_meant(
            reply in replies_obeying(&schema("navigator, full request, a step"))
        ) {
            let text = reply.to_string();
            prop_assert!(schema_breaches(&schema("navigator, full request, a step"), &text).is_none());
            match crate::agent::parse_navigator_output(&text) {
                Ok(output) => {
                    let listed = reply["action"].as_array().unwrap();
                    prop_assert_eq!(output.actions.len(), listed.len());
                    for (json, action) in listed.iter().zip(&output.actions) {
                        check_action(json, action);
                    }
                }
                // A value the schema cannot bound (an index past the map, a tab's name, a
                // limit) is refused with a reason the model can act on, naming the action.
                Err(reason) => prop_assert!(reason.starts_with("action ") || reason.contains("at most"), "{}", reason),
            }
        }

        #[test]
        fn every_plan_verdict_memory_and_extraction_the_schemas_allow_is_read(
            plan in replies_obeying(&schema("planner, first plan")),
            later in replies_obeying(&schema("planner, later plans")),
            verdict in replies_obeying(&schema("validator")),
            memory in replies_obeying(&schema("summarizer")),
        ) {
            // A later plan is not asked about the browser, an answer or sites: a web task, none.
            let read = super::super::planner::parse_plan(&later.to_string()).expect("every plan is read");
            prop_assert_eq!((read.web_task, read.answer, read.sites.len()), (true, None, 0));
            prop_assert_eq!(serde_json::json!(read.next_steps), later["next_steps"].clone());
            let read = super::super::planner::parse_plan(&plan.to_string()).expect("every plan is read");
            prop_assert_eq!(read.web_task, plan["web_task"].as_bool().unwrap());
            // Null, empty or a placeholder is no answer; anything else is the answer as written.
            match plan["answer"].as_str().map(str::trim) {
                None | Some("" | "N/A") => prop_assert_eq!(read.answer, None),
                Some(written) => prop_assert!(read.answer.is_none() || read.answer.as_deref() == Some(written)),
            }
            let read = super::super::validator::parse_verdict(&verdict.to_string()).expect("every verdict is read");
            prop_assert_eq!(read.valid, verdict["is_valid"].as_bool().unwrap());
            prop_assert!(read.answer.as_deref() != Some("N/A") && read.answer.as_deref() != Some(""));
            let summary = super::super::summarizer::parse_summary(&memory.to_string());
            prop_assert_eq!(summary.is_some(), !memory["memory"].as_str().unwrap().trim().is_empty());
        }
    }

    #[test]
    fn a_plain_click_no_clear_and_no_seconds_can_be_said() {
        let navigator = schema("navigator, full request, a step");
        let reply = serde_json::json!({
            "current_state": {"evaluation_previous_goal": "", "memory": "", "next_goal": ""},
            "action": [
                {"do": "click_element", "index": 3, "click": null},
                {"do": "input_text", "index": 4, "text": "a", "clear": null},
                {"do": "wait", "seconds": null},
                {"do": "scroll", "direction": "down", "pages": null, "index": null}
            ]
        });
        assert_eq!(schema_breaches(&navigator, &reply.to_string()), None);
        let output = crate::agent::parse_navigator_output(&reply.to_string()).unwrap();
        assert_eq!(output.actions[0], Action::ClickElement { index: 3, click: Click::Single });
        assert_eq!(output.actions[1], Action::InputText { index: 4, text: "a".into(), clear: true });
        let empty = serde_json::json!({"current_state": reply["current_state"], "action": []});
        assert!(schema_breaches(&navigator, &empty.to_string()).is_some(), "a step has at least one action");
    }
}
