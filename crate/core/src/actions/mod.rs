//! The actions the navigator may ask for, how they are read from the model's output, and the
//! primitive page operations they become.

mod url_policy;

pub use url_policy::{normalize_url, UrlRefusal};

use crate::dom_map::ElementRef;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// One action as the model asked for it, already validated.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    GoToUrl { url: String },
    ClickElement { index: u32 },
    InputText { index: u32, text: String },
    Done { text: String, success: bool },
}

impl Action {
    pub fn name(&self) -> &'static str {
        match self {
            Action::GoToUrl { .. } => "go_to_url",
            Action::ClickElement { .. } => "click_element",
            Action::InputText { .. } => "input_text",
            Action::Done { .. } => "done",
        }
    }

    /// The element the action targets, if any.
    pub fn index(&self) -> Option<u32> {
        match self {
            Action::ClickElement { index } | Action::InputText { index, .. } => Some(*index),
            Action::GoToUrl { .. } | Action::Done { .. } => None,
        }
    }

    /// The `{"action_name": {params}}` form the model writes.
    pub fn to_json(&self) -> Value {
        match self {
            Action::GoToUrl { url } => json!({"go_to_url": {"url": url}}),
            Action::ClickElement { index } => json!({"click_element": {"index": index}}),
            Action::InputText { index, text } => json!({"input_text": {"index": index, "text": text}}),
            Action::Done { text, success } => json!({"done": {"text": text, "success": success}}),
        }
    }

    /// Reads one `{"action_name": {params}}` object from the model.
    pub fn from_json(value: &Value) -> Result<Action, String> {
        let object = value.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
            format!("each action must be an object with exactly one key naming the action, got {value}")
        })?;
        let (name, params) = object.iter().next().expect("one entry");
        let params = params.as_object().ok_or_else(|| format!("the parameters of {name} must be an object"))?;
        match name.as_str() {
            "go_to_url" => Ok(Action::GoToUrl { url: string_param(params, name, "url")? }),
            "click_element" => Ok(Action::ClickElement { index: index_param(params, name)? }),
            "input_text" => {
                Ok(Action::InputText { index: index_param(params, name)?, text: string_param(params, name, "text")? })
            }
            "done" => Ok(Action::Done {
                text: string_param(params, name, "text")?,
                success: params.get("success").map_or(Ok(true), |v| {
                    v.as_bool().ok_or_else(|| format!("done.success must be true or false, got {v}"))
                })?,
            }),
            other => Err(format!("unknown action \"{other}\"; the available actions are {}", ACTION_NAMES.join(", "))),
        }
    }
}

const ACTION_NAMES: &[&str] = &["go_to_url", "click_element", "input_text", "done"];

fn string_param(params: &Map<String, Value>, action: &str, key: &str) -> Result<String, String> {
    params
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("{action} needs a string parameter \"{key}\""))
}

fn index_param(params: &Map<String, Value>, action: &str) -> Result<u32, String> {
    let value = params.get("index").ok_or_else(|| format!("{action} needs an \"index\" parameter"))?;
    value
        .as_u64()
        .or_else(|| value.as_str().and_then(|s| s.trim().trim_matches(['[', ']']).parse().ok()))
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("{action}.index must be the number of an element in the page map, got {value}"))
}

/// The JSON schema of the actions, for structured output.
pub fn actions_schema() -> Value {
    let action = |name: &str, properties: Value, required: &[&str]| {
        json!({
            "type": "object",
            "properties": { name: {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false
            }},
            "required": [name],
            "additionalProperties": false
        })
    };
    json!({
        "type": "array",
        "items": { "anyOf": [
            action("go_to_url", json!({"url": {"type": "string"}}), &["url"]),
            action("click_element", json!({"index": {"type": "integer"}}), &["index"]),
            action("input_text", json!({"index": {"type": "integer"}, "text": {"type": "string"}}), &["index", "text"]),
            action("done", json!({"text": {"type": "string"}, "success": {"type": "boolean"}}), &["text", "success"]),
        ]}
    })
}

/// A primitive operation the page-side sensor performs on one element.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum PageOp {
    /// Scroll into view, hit-test, and click with the full pointer and mouse event sequence.
    Click {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
    },
    /// Focus, replace the value the way frameworks notice, and report the final value.
    Type {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        text: String,
    },
}

#[cfg(test)]
mod tests;
