//! The action catalog: one table from which the prompt's action list and the structured-output
//! schema are both written, so that they cannot disagree.

use serde_json::{json, Map, Value};

#[derive(Clone, Copy)]
enum Kind {
    Text,
    Integer,
    Number,
    Boolean,
    /// One of these words.
    OneOf(&'static [&'static str]),
}

impl Kind {
    fn schema(self) -> Value {
        match self {
            Kind::Text => json!({"type": "string"}),
            Kind::Integer => json!({"type": "integer"}),
            Kind::Number => json!({"type": "number"}),
            Kind::Boolean => json!({"type": "boolean"}),
            Kind::OneOf(words) => json!({"type": "string", "enum": words}),
        }
    }

    /// How the compact action list shows a value of this kind.
    fn compact(self) -> String {
        match self {
            Kind::Text => "text".into(),
            Kind::Integer => "N".into(),
            Kind::Number => "number".into(),
            Kind::Boolean => "true|false".into(),
            Kind::OneOf(words) => words.join("|"),
        }
    }
}

/// A parameter: name, kind, required.
type Param = (&'static str, Kind, bool);

struct Spec {
    name: &'static str,
    params: &'static [Param],
    /// What the full action list says beyond the name and parameters; empty when the name says
    /// it all. `[index]` is the element of the map the `index` parameter names.
    help: &'static str,
}

/// How `done`'s help names its text; a small model copies it, and it is then no answer.
pub(crate) const DONE_EXAMPLE: &str = "the answer for the user";

const INDEX: Param = ("index", Kind::Integer, true);
const TAB: Param = ("tab", Kind::Text, true);
const FILE_NAME: Param = ("name", Kind::Text, true);
const TEXT: Param = ("text", Kind::Text, true);

const CATALOG: &[Spec] = &[
    Spec { name: "go_to_url", params: &[("url", Kind::Text, true)], help: "open the URL in the current tab (max 8,000 chars)" },
    Spec { name: "search", params: &[("query", Kind::Text, true)], help: "search the web in the current tab (max 2,000 chars)" },
    Spec { name: "go_back", params: &[], help: "" },
    Spec { name: "go_forward", params: &[], help: "" },
    Spec { name: "reload", params: &[], help: "" },
    Spec { name: "wait", params: &[("seconds", Kind::Number, false)], help: "for the page (default 2, max 10 s)" },
    Spec {
        name: "click_element",
        params: &[INDEX, ("click", Kind::OneOf(&["double", "right"]), false)],
        help: "",
    },
    Spec {
        name: "input_text",
        params: &[INDEX, TEXT, ("clear", Kind::Boolean, false)],
        help: "type into [index], replacing its text (clear false appends; max 100,000 chars, a longer text in appended parts); a number into a slider or spinner sets its value",
    },
    Spec {
        name: "send_keys",
        params: &[("keys", Kind::Text, true)],
        help: "press keys in the focused element, e.g. Enter, Tab, Escape, ArrowDown, Backspace, Control+A; several separated by spaces (max 1,000 chars; type text with input_text)",
    },
    Spec { name: "hover", params: &[INDEX], help: "" },
    Spec {
        name: "select_option",
        params: &[INDEX, TEXT],
        help: "choose the option with this text (max 1,000 chars) in dropdown [index], native or custom; in a multiple select it adds to the choice, and choosing a selected option deselects it",
    },
    Spec { name: "get_dropdown_options", params: &[INDEX], help: "" },
    Spec {
        name: "scroll",
        params: &[
            ("direction", Kind::OneOf(&["up", "down", "top", "bottom"]), true),
            ("pages", Kind::Number, false),
            ("index", Kind::Integer, false),
        ],
        help: "the page, or the scrollable element [index], by pages (0.1 to 10, default 1)",
    },
    Spec { name: "scroll_to_text", params: &[TEXT], help: "(max 1,000 chars)" },
    Spec {
        name: "find_text",
        params: &[TEXT],
        help: "count the text (max 1,000 chars) on the page, with context, and scroll to the first",
    },
    Spec { name: "open_tab", params: &[("url", Kind::Text, true)], help: "open the URL (max 8,000 chars) in a new tab and switch to it" },
    Spec { name: "switch_tab", params: &[TAB], help: "" },
    Spec { name: "close_tab", params: &[TAB], help: "" },
    Spec {
        name: "extract",
        params: &[("query", Kind::Text, true)],
        help: "answer the query (max 2,000 chars) from the whole page's main content, not only the visible part",
    },
    Spec {
        name: "write_file",
        params: &[FILE_NAME, TEXT],
        help: "write a notebook file (.md, .txt, .csv or .json; max 100,000 chars), replacing its content",
    },
    Spec {
        name: "append_file",
        params: &[FILE_NAME, TEXT],
        help: "add the text as a new line at the end of a notebook file, creating it if need be",
    },
    Spec {
        name: "read_file",
        params: &[FILE_NAME, ("start_line", Kind::Integer, false)],
        help: "read a task's file (notebook, attached or downloaded; text, CSV, JSON, a PDF's text) a page at a time from start_line",
    },
    Spec {
        name: "upload_file",
        params: &[INDEX, FILE_NAME],
        help: "put the task's file of this name (attached by the user, or from your notebook) into the file input or drop zone [index]",
    },
    Spec {
        name: "ask_user",
        params: &[("question", Kind::Text, true)],
        help: "hand the tab to the user and wait: for a sign-in, CAPTCHA or code you were not given, or a question only they can answer",
    },
    Spec {
        name: "done",
        params: &[TEXT, ("success", Kind::Boolean, true)],
        help: "finish with the answer for the user (max 50,000 chars); success false if the task could not be completed",
    },
    Spec {
        name: "drag",
        params: &[INDEX, ("to", Kind::Integer, false), ("dx", Kind::Number, false), ("dy", Kind::Number, false)],
        help: "drag [index] and drop it onto [to], or dx, dy pixels away (from [to]'s centre if given)",
    },
];

pub(crate) const ACTION_NAMES: &[&str] = &[
    "go_to_url",
    "search",
    "go_back",
    "go_forward",
    "reload",
    "wait",
    "click_element",
    "input_text",
    "send_keys",
    "hover",
    "select_option",
    "get_dropdown_options",
    "scroll",
    "scroll_to_text",
    "find_text",
    "open_tab",
    "switch_tab",
    "close_tab",
    "extract",
    "write_file",
    "append_file",
    "read_file",
    "upload_file",
    "ask_user",
    "done",
    "drag",
];

/// Whether the action `name` takes no parameters at all.
pub(crate) fn takes_no_parameters(name: &str) -> bool {
    CATALOG.iter().any(|spec| spec.name == name && spec.params.is_empty())
}

/// The action list for the full system prompt: each action's signature (as in
/// [`compact_actions_prompt`]) and what it does, when its name does not say it all.
pub fn actions_prompt() -> String {
    CATALOG
        .iter()
        .map(|spec| match spec.help {
            "" => signature(spec),
            help => format!("{}: {help}", signature(spec)),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The action list for a compact system prompt: one line per action with only its parameters,
/// the names saying the rest.
pub fn compact_actions_prompt() -> String {
    CATALOG.iter().map(signature).collect::<Vec<_>>().join("\n")
}

/// An action's name and parameters, `?` marking the optional ones: `scroll{direction:
/// up|down|top|bottom, pages?: number, index?: N}`.
fn signature(spec: &Spec) -> String {
    let params: Vec<String> = spec
        .params
        .iter()
        .map(|&(name, kind, required)| {
            let optional = if required { "" } else { "?" };
            match kind {
                // A bare name is text (the prompt says so): ": text" on every text parameter
                // cost a small model's request about 40 tokens.
                Kind::Text => format!("{name}{optional}"),
                kind => format!("{name}{optional}: {}", kind.compact()),
            }
        })
        .collect();
    format!("{}{{{}}}", spec.name, params.join(", "))
}

/// The JSON schema of the action list, for strict structured output: every parameter is listed as
/// required, optional ones accept `null`. With `only_done`, the list may hold nothing but `done`
/// (the last step).
pub fn actions_schema(only_done: bool) -> Value {
    let variants: Vec<Value> = CATALOG
        .iter()
        .filter(|spec| !only_done || spec.name == "done")
        .map(|spec| {
            let mut properties = Map::new();
            for &(name, kind, required) in spec.params {
                let mut schema = kind.schema();
                if !required {
                    let kind = schema["type"].clone();
                    schema["type"] = json!([kind, "null"]);
                    // An enum lists every value allowed: without `null` in it, a strict model
                    // could never leave the choice out (a plain click would be impossible).
                    if let Some(words) = schema.get_mut("enum").and_then(Value::as_array_mut) {
                        words.push(Value::Null);
                    }
                }
                properties.insert(name.to_string(), schema);
            }
            let names: Vec<&str> = spec.params.iter().map(|(name, ..)| *name).collect();
            json!({
                "type": "object",
                "properties": { spec.name: {
                    "type": "object",
                    "properties": properties,
                    "required": names,
                    "additionalProperties": false
                }},
                "required": [spec.name],
                "additionalProperties": false
            })
        })
        .collect();
    // At least one action: an empty list is no step (a small model held to the schema would
    // otherwise answer with one).
    json!({ "type": "array", "items": { "anyOf": variants }, "minItems": 1, "maxItems": super::MAX_ACTIONS_PER_STEP })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_names_every_action_once() {
        let names: Vec<&str> = CATALOG.iter().map(|spec| spec.name).collect();
        assert_eq!(names, ACTION_NAMES);
    }

    #[test]
    fn the_full_list_shows_each_action_with_its_parameters_and_what_the_name_does_not_say() {
        let prompt = actions_prompt();
        assert!(
            prompt.contains("\nscroll{direction: up|down|top|bottom, pages?: number, index?: N}: the page, or the scrollable element [index], by pages (0.1 to 10, default 1)\n"),
            "{prompt}"
        );
        assert!(prompt.contains("\ngo_back{}\n"), "{prompt}");
        assert!(prompt.contains("\nclick_element{index: N, click?: double|right}\n"), "{prompt}");
        assert_eq!(prompt.lines().count(), CATALOG.len());
        // The same signatures as the compact list, each once.
        for (full, compact) in prompt.lines().zip(compact_actions_prompt().lines()) {
            assert!(full.starts_with(compact), "{full} vs {compact}");
        }
    }

    #[test]
    fn the_compact_list_shows_each_action_with_only_its_parameters() {
        let prompt = compact_actions_prompt();
        assert!(prompt.contains("\nclick_element{index: N, click?: double|right}\n"), "{prompt}");
        assert!(prompt.contains("\ngo_back{}\n"), "{prompt}");
        assert!(prompt.starts_with("go_to_url{url}\nsearch{query}\n"), "{prompt}");
        assert!(prompt.contains("\ndone{text, success: true|false}"), "{prompt}");
        assert!(prompt.contains("\ndrag{index: N, to?: N, dx?: number, dy?: number}"), "{prompt}");
        assert_eq!(prompt.lines().count(), CATALOG.len());
    }

    #[test]
    fn the_last_step_offers_only_done() {
        let variants = actions_schema(true)["items"]["anyOf"].as_array().unwrap().clone();
        assert_eq!(variants.len(), 1);
        assert!(variants[0]["properties"]["done"].is_object());
    }

    #[test]
    fn optional_parameters_are_nullable_and_all_are_required_for_strict_mode() {
        let schema = actions_schema(false);
        let scroll = schema["items"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["properties"]["scroll"].is_object())
            .unwrap();
        let params = &scroll["properties"]["scroll"];
        assert_eq!(params["required"], json!(["direction", "pages", "index"]));
        assert_eq!(params["properties"]["index"]["type"], json!(["integer", "null"]));
        assert_eq!(params["properties"]["direction"]["enum"], json!(["up", "down", "top", "bottom"]));
        let click = schema["items"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|v| v["properties"]["click_element"]["properties"].get("click"))
            .unwrap();
        assert_eq!(click, &json!({"type": ["string", "null"], "enum": ["double", "right", null]}));
    }
}
