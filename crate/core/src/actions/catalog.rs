//! The action catalog: one table from which the prompt's action list and the structured-output
//! schema are both written, so that they cannot disagree.

use serde_json::{json, Map, Value};

#[derive(Clone, Copy, PartialEq)]
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

/// The help leaves out the length limits: a text past one is refused with the limit and what to
/// do instead, and every request would otherwise carry them (about 90 tokens).
struct Spec {
    name: &'static str,
    params: &'static [Param],
    /// What the full action list says beyond the name and parameters; empty when the name says
    /// it all. `[index]` is the element of the map the `index` parameter names.
    help: &'static str,
}

/// The field of an action that names it: `{"do": "click_element", "index": 5}`. No parameter is
/// called so.
pub const NAME_FIELD: &str = "do";

/// How `done`'s help names its text; a small model copies it, and it is then no answer.
pub(crate) const DONE_EXAMPLE: &str = "the answer for the user";

const INDEX: Param = ("index", Kind::Integer, true);
const TAB: Param = ("tab", Kind::Text, true);
const FILE_NAME: Param = ("name", Kind::Text, true);
const TEXT: Param = ("text", Kind::Text, true);

const CATALOG: &[Spec] = &[
    Spec { name: "go_to_url", params: &[("url", Kind::Text, true)], help: "open the URL in the current tab" },
    Spec { name: "search", params: &[("query", Kind::Text, true)], help: "search the web in the current tab" },
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
        help: "type into [index], replacing its text (clear false appends); a number into a slider or spinner sets its value",
    },
    Spec {
        name: "send_keys",
        params: &[("keys", Kind::Text, true)],
        help: "press keys in the focused element, e.g. Enter, Tab, Escape, ArrowDown, Backspace, Control+A; several separated by spaces (type text with input_text)",
    },
    Spec { name: "hover", params: &[INDEX], help: "" },
    Spec {
        name: "select_option",
        params: &[INDEX, TEXT],
        help: "choose the option with this text in dropdown [index], native or custom; in a multiple select it adds to the choice, and choosing a selected option deselects it",
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
    Spec { name: "scroll_to_text", params: &[TEXT], help: "" },
    Spec {
        name: "find_text",
        params: &[TEXT],
        help: "count the text on the page, with context, and scroll to the first",
    },
    Spec { name: "open_tab", params: &[("url", Kind::Text, true)], help: "open the URL in a new tab and switch to it" },
    Spec { name: "switch_tab", params: &[TAB], help: "" },
    Spec { name: "close_tab", params: &[TAB], help: "" },
    Spec {
        name: "extract",
        params: &[("query", Kind::Text, true)],
        help: "answer the query from the whole page's main content, not only the visible part",
    },
    Spec {
        name: "write_file",
        params: &[FILE_NAME, TEXT],
        help: "write a notebook file (.md, .txt, .csv or .json), replacing its content",
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
        help: "finish with the answer for the user; success false if the task could not be completed",
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

/// What is wrong when an action written with its name in [`NAME_FIELD`] gives a parameter that
/// action does not take (a model that named one action and wrote another's parameters); `None`
/// when each one it gives is its own, or left null. `done` also takes `data`, the answer in the
/// task's output schema.
pub(crate) fn foreign_parameter(name: &str, params: &Map<String, Value>) -> Option<String> {
    let spec = CATALOG.iter().find(|spec| spec.name == name)?;
    let takes = |spec: &Spec, key: &str| spec.params.iter().any(|(param, ..)| *param == key);
    let its_own = |key: &str| key == NAME_FIELD || takes(spec, key) || (name == "done" && key == "data");
    let (key, _) = params.iter().find(|&(key, value)| !value.is_null() && !its_own(key))?;
    let owners: Vec<&str> = CATALOG.iter().filter(|spec| takes(spec, key)).map(|spec| spec.name).collect();
    Some(match owners.is_empty() {
        true => format!("{name} takes no parameter \"{key}\""),
        false => format!(
            "{name} takes no parameter \"{key}\"; {} take it: say in \"{NAME_FIELD}\" the action you mean",
            owners.join(", ")
        ),
    })
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

/// The JSON schema of the action list, for strict structured output: each action one object
/// whose [`NAME_FIELD`] names it, first, with its parameters beside it, every one listed as
/// required, optional ones accepting `null`. Actions that take the same parameters share one
/// variant, which names them in an enum (`go_back`, `go_forward`, `reload`): the list says each
/// parameter once per shape. With `only_done`, the list may hold nothing but `done` (the last step).
pub fn actions_schema(only_done: bool) -> Value {
    let mut shapes: Vec<(Vec<&str>, &[Param])> = Vec::new();
    for spec in CATALOG.iter().filter(|spec| !only_done || spec.name == "done") {
        match shapes.iter_mut().find(|(_, params)| *params == spec.params) {
            Some((names, _)) => names.push(spec.name),
            None => shapes.push((vec![spec.name], spec.params)),
        }
    }
    let variants: Vec<Value> = shapes.iter().map(|(names, params)| variant(names, params)).collect();
    // At least one action: an empty list is no step (a small model held to the schema would
    // otherwise answer with one).
    json!({ "type": "array", "items": { "anyOf": variants }, "minItems": 1, "maxItems": super::MAX_ACTIONS_PER_STEP })
}

/// The schema of an action named by one of `names`, taking `params`.
fn variant(names: &[&str], params: &[Param]) -> Value {
    let mut properties = Map::new();
    // An enum, not `const`, which Gemini's schemas do not know.
    properties.insert(NAME_FIELD.into(), json!({"type": "string", "enum": names}));
    for &(name, kind, required) in params {
        let mut schema = kind.schema();
        if !required {
            let kind = schema["type"].clone();
            schema["type"] = json!([kind, "null"]);
            // An enum lists every value allowed: without `null` in it, a strict model could
            // never leave the choice out (a plain click would be impossible).
            if let Some(words) = schema.get_mut("enum").and_then(Value::as_array_mut) {
                words.push(Value::Null);
            }
        }
        properties.insert(name.to_string(), schema);
    }
    let required: Vec<&str> = std::iter::once(NAME_FIELD).chain(params.iter().map(|(name, ..)| *name)).collect();
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
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

    fn variants(schema: &Value) -> Vec<Value> {
        schema["items"]["anyOf"].as_array().unwrap().clone()
    }

    /// The variant that names `action`.
    fn variant_of(schema: &Value, action: &str) -> Value {
        variants(schema)
            .into_iter()
            .find(|v| v["properties"][NAME_FIELD]["enum"].as_array().unwrap().contains(&json!(action)))
            .unwrap()
    }

    #[test]
    fn no_parameter_is_called_as_the_field_naming_the_action() {
        for spec in CATALOG {
            assert!(spec.params.iter().all(|(name, ..)| *name != NAME_FIELD), "{}", spec.name);
        }
        assert_eq!(NAME_FIELD, "do");
    }

    #[test]
    fn the_last_step_offers_only_done() {
        let variants = variants(&actions_schema(true));
        assert_eq!(variants.len(), 1);
        assert_eq!(variants[0]["properties"][NAME_FIELD], json!({"type": "string", "enum": ["done"]}));
        assert_eq!(variants[0]["required"], json!(["do", "text", "success"]));
    }

    #[test]
    fn actions_taking_the_same_parameters_share_one_variant_naming_them_all() {
        let schema = actions_schema(false);
        let names = |v: &Value| v["properties"][NAME_FIELD]["enum"].clone();
        let shared: Vec<Value> =
            variants(&schema).iter().map(names).filter(|n| n.as_array().unwrap().len() > 1).collect();
        assert_eq!(
            shared,
            vec![
                json!(["go_to_url", "open_tab"]),
                json!(["search", "extract"]),
                json!(["go_back", "go_forward", "reload"]),
                json!(["hover", "get_dropdown_options"]),
                json!(["scroll_to_text", "find_text"]),
                json!(["switch_tab", "close_tab"]),
                json!(["write_file", "append_file"]),
            ]
        );
        // Every action is named once, in the catalog's order within each variant.
        let mut named: Vec<String> = variants(&schema)
            .iter()
            .flat_map(|v| {
                names(v).as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect::<Vec<_>>()
            })
            .collect();
        named.sort();
        let mut all: Vec<&str> = ACTION_NAMES.to_vec();
        all.sort();
        assert_eq!(named, all);
        assert_eq!(variants(&schema).len(), 18);
        // An action without parameters is the name alone.
        assert_eq!(
            variant_of(&schema, "reload"),
            json!({"type": "object", "properties": {"do": {"type": "string", "enum": ["go_back", "go_forward", "reload"]}}, "required": ["do"], "additionalProperties": false})
        );
    }

    #[test]
    fn optional_parameters_are_nullable_and_all_are_required_for_strict_mode() {
        let schema = actions_schema(false);
        for variant in variants(&schema) {
            let properties = variant["properties"].as_object().unwrap();
            assert_eq!(
                properties.keys().next().map(String::as_str),
                Some(NAME_FIELD),
                "the name comes first: {variant}"
            );
            let declared: Vec<&String> = properties.keys().collect();
            assert_eq!(variant["required"], json!(declared), "{variant}");
            assert_eq!(variant["additionalProperties"], json!(false));
        }
        let scroll = variant_of(&schema, "scroll");
        assert_eq!(scroll["required"], json!(["do", "direction", "pages", "index"]));
        assert_eq!(scroll["properties"]["index"]["type"], json!(["integer", "null"]));
        assert_eq!(scroll["properties"]["direction"]["enum"], json!(["up", "down", "top", "bottom"]));
        let click = &variant_of(&schema, "click_element")["properties"]["click"];
        assert_eq!(click, &json!({"type": ["string", "null"], "enum": ["double", "right", null]}));
    }

    #[test]
    fn a_parameter_of_another_action_is_named_with_the_actions_that_take_it() {
        let params = |value: Value| value.as_object().unwrap().clone();
        assert_eq!(
            foreign_parameter("go_back", &params(json!({"do": "go_back", "url": "https://a.test/"}))).as_deref(),
            Some("go_back takes no parameter \"url\"; go_to_url, open_tab take it: say in \"do\" the action you mean")
        );
        assert_eq!(
            foreign_parameter("click_element", &params(json!({"do": "click_element", "index": 3, "xpath": "//a"})))
                .as_deref(),
            Some("click_element takes no parameter \"xpath\"")
        );
        // Its own parameters, nulls, and done's data are all fine.
        assert_eq!(
            foreign_parameter("scroll", &params(json!({"do": "scroll", "direction": "down", "url": null}))),
            None
        );
        assert_eq!(
            foreign_parameter("done", &params(json!({"do": "done", "text": "x", "success": true, "data": {}}))),
            None
        );
    }
}
