//! Every reply schema the core can send to a model, in one list: the tests that hold each one to
//! the providers' rules read it, and so does the grammar check of the end-to-end suite (through
//! `cargo run -p agent-core --example request_schemas`).

use super::planner::planner_prompt;
use super::prompt::{extraction_prompt, navigator_schema};
use super::summarizer::summary_prompt;
use super::validator::validator_prompt;
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

/// The navigator's schemas in both request styles, on a step and on the last step, then the
/// planner's, the validator's, the summarizer's and the extraction's.
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
    list.push(RequestSchema::of("planner", planner_prompt(std::iter::empty(), "")));
    list.push(RequestSchema::of("validator", validator_prompt("", "", None, "")));
    list.push(RequestSchema::of("summarizer", summary_prompt("", &[])));
    list.push(RequestSchema::of("extraction", extraction_prompt("", "")));
    list
}
