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

/// A parameter: name, kind, required, how the prompt shows it.
type Param = (&'static str, Kind, bool, &'static str);

struct Spec {
    name: &'static str,
    params: &'static [Param],
    help: &'static str,
}

/// How the prompt shows `done`'s text; a small model copies it, and it is then no answer.
pub(crate) const DONE_EXAMPLE: &str = "\"the answer for the user\"";

const INDEX: Param = ("index", Kind::Integer, true, "N");
const TAB: Param = ("tab", Kind::Text, true, "\"t2\"");
const FILE_NAME: Param = ("name", Kind::Text, true, "\"results.csv\"");

const CATALOG: &[Spec] = &[
    Spec { name: "go_to_url", params: &[("url", Kind::Text, true, "\"https://...\"")], help: "open a URL (at most 8,000 characters) in the current tab" },
    Spec { name: "search", params: &[("query", Kind::Text, true, "\"...\"")], help: "search the web in the current tab (at most 2,000 characters)" },
    Spec { name: "go_back", params: &[], help: "go back in the tab's history" },
    Spec { name: "go_forward", params: &[], help: "go forward in the tab's history" },
    Spec { name: "reload", params: &[], help: "reload the page" },
    Spec { name: "wait", params: &[("seconds", Kind::Number, false, "2")], help: "wait for the page (at most 10 s)" },
    Spec {
        name: "click_element",
        params: &[INDEX, ("click", Kind::OneOf(&["double", "right"]), false, "\"double\"")],
        help: "click the element [N] (click: \"double\" or \"right\" for a double or right click)",
    },
    Spec {
        name: "input_text",
        params: &[INDEX, ("text", Kind::Text, true, "\"...\""), ("clear", Kind::Boolean, false, "true")],
        help: "type into the field [N], replacing its text (clear: false appends); at most 100,000 characters at a time, a longer text in parts that append; a number into a slider or spinner sets it to that value",
    },
    Spec {
        name: "send_keys",
        params: &[("keys", Kind::Text, true, "\"Enter\"")],
        help: "press keys in the focused element: Enter, Tab, Escape, ArrowDown, Backspace, or shortcuts such as Control+A; several separated by spaces (at most 1,000 characters; type text with input_text)",
    },
    Spec { name: "hover", params: &[INDEX], help: "move the pointer over the element [N]" },
    Spec {
        name: "select_option",
        params: &[INDEX, ("text", Kind::Text, true, "\"...\"")],
        help: "choose the option with this text (at most 1,000 characters) in the dropdown [N] (native or custom); in a multiple select it is added to the choice, and choosing a selected option again deselects it",
    },
    Spec { name: "get_dropdown_options", params: &[INDEX], help: "list the options of the dropdown [N]" },
    Spec {
        name: "scroll",
        params: &[
            ("direction", Kind::OneOf(&["up", "down", "top", "bottom"]), true, "\"down\""),
            ("pages", Kind::Number, false, "1"),
            ("index", Kind::Integer, false, "null"),
        ],
        help: "scroll the page, or the scrollable element [index], up or down by pages (0.1 to 10), or to the top or bottom",
    },
    Spec { name: "scroll_to_text", params: &[("text", Kind::Text, true, "\"...\"")], help: "scroll to where this text (at most 1,000 characters) appears" },
    Spec {
        name: "find_text",
        params: &[("text", Kind::Text, true, "\"...\"")],
        help: "find this text (at most 1,000 characters) on the page: how often it appears, with context, scrolling to the first",
    },
    Spec { name: "open_tab", params: &[("url", Kind::Text, true, "\"https://...\"")], help: "open a URL (at most 8,000 characters) in a new tab and switch to it" },
    Spec { name: "switch_tab", params: &[TAB], help: "switch to the open tab t2 (tabs are named as in the list of open tabs)" },
    Spec { name: "close_tab", params: &[TAB], help: "close the tab t2" },
    Spec {
        name: "extract",
        params: &[("query", Kind::Text, true, "\"what to find\"")],
        help: "read the whole page's main content (not only the visible part) and answer the query (at most 2,000 characters) from it",
    },
    Spec {
        name: "write_file",
        params: &[FILE_NAME, ("text", Kind::Text, true, "\"...\"")],
        help: "write a text file of the task's notebook (a name ending in .md, .txt, .csv or .json; at most 100,000 characters), replacing what it held",
    },
    Spec {
        name: "append_file",
        params: &[FILE_NAME, ("text", Kind::Text, true, "\"...\"")],
        help: "add text at the end of a notebook file, on a new line, creating the file if need be: keep long lists here (rows of a CSV, page after page) rather than in memory",
    },
    Spec {
        name: "read_file",
        params: &[FILE_NAME, ("start_line", Kind::Integer, false, "1")],
        help: "read one of the task's files (the notebook's, attached or downloaded; text, CSV, JSON, and a PDF's text) a page at a time, from line start_line",
    },
    Spec {
        name: "upload_file",
        params: &[INDEX, ("name", Kind::Text, true, "\"cv.pdf\"")],
        help: "put the task's file of this name (one the user attached, or your own notebook file) into the file input or drop zone [N]",
    },
    Spec {
        name: "ask_user",
        params: &[("question", Kind::Text, true, "\"...\"")],
        help: "hand the tab to the user and wait: for a sign-in, CAPTCHA or code you were not given, or a question only they can answer",
    },
    Spec {
        name: "done",
        params: &[("text", Kind::Text, true, DONE_EXAMPLE), ("success", Kind::Boolean, true, "true")],
        help: "finish with the answer (at most 50,000 characters); success false when the task could not be completed",
    },
    Spec {
        name: "drag",
        params: &[INDEX, ("to", Kind::Integer, false, "N"), ("dx", Kind::Number, false, "0"), ("dy", Kind::Number, false, "0")],
        help: "drag the element [index] and drop it onto [to], or dx, dy pixels away (from [to]'s centre if given)",
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

/// The action list for the system prompt, one line per action.
pub fn actions_prompt() -> String {
    CATALOG
        .iter()
        .map(|spec| {
            let params: Vec<String> =
                spec.params.iter().map(|(name, _, _, example)| format!("\"{name}\": {example}")).collect();
            format!("- {{\"{}\": {{{}}}}}: {}.", spec.name, params.join(", "), spec.help)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The action list for a compact system prompt: one line per action with only its parameters
/// (`?` marks the optional ones), the names saying the rest.
pub fn compact_actions_prompt() -> String {
    CATALOG
        .iter()
        .map(|spec| {
            let params: Vec<String> = spec
                .params
                .iter()
                .map(|&(name, kind, required, _)| {
                    let optional = if required { "" } else { "?" };
                    match kind {
                        // A bare name is text (the prompt says so): ": text" on every text
                        // parameter cost a small model's request about 40 tokens.
                        Kind::Text => format!("{name}{optional}"),
                        kind => format!("{name}{optional}: {}", kind.compact()),
                    }
                })
                .collect();
            format!("{}{{{}}}", spec.name, params.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
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
            for &(name, kind, required, _) in spec.params {
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
    fn the_prompt_shows_each_action_with_its_parameters() {
        let prompt = actions_prompt();
        assert!(
            prompt.contains(
                "- {\"click_element\": {\"index\": N, \"click\": \"double\"}}: click the element [N] (click: \"double\" or \"right\" for a double or right click)."
            ),
            "{prompt}"
        );
        assert!(prompt.contains("- {\"go_back\": {}}: go back in the tab's history."), "{prompt}");
        assert_eq!(prompt.lines().count(), CATALOG.len());
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
