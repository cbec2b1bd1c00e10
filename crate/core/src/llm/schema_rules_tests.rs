//! Every reply schema the core can send (`agent::request_schemas`), as each provider receives it
//! in a real request body, held to that provider's documented rules:
//! - OpenAI structured outputs, `strict: true`: the root an object; on every object all
//!   properties required and `additionalProperties: false`; only the supported keywords; at most
//!   5,000 properties, 10 levels of nesting, 1,000 enum values and 120,000 characters of names and
//!   enum values.
//! - Anthropic: a tool's `input_schema` is a JSON Schema whose root is an object; the strict
//!   (structured outputs) subset has no numeric or length constraints and `additionalProperties`
//!   only `false`.
//! - Gemini `responseSchema`: its OpenAPI subset: one type per schema (`nullable` for null), enums
//!   of strings, objects with properties, and none of `additionalProperties`, `$ref`, `const`.
//! - Ollama `format` and llama.cpp's server: the keywords llama.cpp's JSON-schema-to-grammar
//!   converter handles (the end-to-end suite compiles each schema with the converter itself).
//!
//! And for all: the schema is valid JSON Schema, and every optional choice can be left out
//! (a field whose type admits null accepts null), so that a model held to it can ask for a
//! plain click, no `clear`, no `seconds`.

use super::anthropic::Anthropic;
use super::gemini::Gemini;
use super::testing::{schema_breaches, CannedHttp};
use super::{ChatMessage, ChatRequest, OpenAiCompatible, OutputMode};
use crate::agent::{request_schemas, RequestSchema};
use serde_json::{json, Value};

fn request(schema: &RequestSchema) -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::system("sys"), ChatMessage::user("state")],
        schema_name: schema.name.clone(),
        schema: schema.schema.clone(),
        strict: schema.strict,
    }
}

/// Each subschema with its path, the root first.
fn walk<'a>(schema: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    out.push((path.clone(), schema));
    let Some(object) = schema.as_object() else { return };
    if let Some(properties) = object.get("properties").and_then(Value::as_object) {
        for (name, sub) in properties {
            walk(sub, format!("{path}/properties/{name}"), out);
        }
    }
    if let Some(items) = object.get("items") {
        walk(items, format!("{path}/items"), out);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for (i, sub) in object.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
            walk(sub, format!("{path}/{key}/{i}"), out);
        }
    }
}

fn subschemas(schema: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    walk(schema, String::new(), &mut out);
    out
}

fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn keyword_breaches(schema: &Value, allowed: &[&str], rule: &str) -> Vec<String> {
    let mut breaches = Vec::new();
    for (path, sub) in subschemas(schema) {
        for key in sub.as_object().map(|o| o.keys()).into_iter().flatten() {
            if !allowed.contains(&key.as_str()) {
                breaches.push(format!("{path}: {rule} does not support \"{key}\""));
            }
        }
    }
    breaches
}

/// Object nesting depth: the root object is 1.
fn object_depth(schema: &Value) -> usize {
    let own = usize::from(types(schema).contains(&"object"));
    let below = [schema.get("items")]
        .into_iter()
        .flatten()
        .chain(schema.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.values()))
        .chain(schema.get("anyOf").and_then(Value::as_array).into_iter().flatten())
        .map(object_depth)
        .max()
        .unwrap_or(0);
    own + below
}

const OPENAI_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "description",
    "title",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

fn openai_strict_breaches(schema: &Value) -> Vec<String> {
    let mut breaches = keyword_breaches(schema, OPENAI_KEYWORDS, "OpenAI strict mode");
    if schema["type"] != "object" {
        breaches.push("the root must be an object (not anyOf)".into());
    }
    let (mut properties, mut enum_values, mut characters) = (0, 0, 0);
    for (path, sub) in subschemas(schema) {
        let declared: Vec<&String> =
            sub.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.keys()).collect();
        properties += declared.len();
        characters += declared.iter().map(|name| name.len()).sum::<usize>();
        if let Some(words) = sub.get("enum").and_then(Value::as_array) {
            enum_values += words.len();
            characters += words.iter().filter_map(Value::as_str).map(str::len).sum::<usize>();
        }
        if !types(sub).contains(&"object") {
            continue;
        }
        if sub.get("additionalProperties") != Some(&json!(false)) {
            breaches.push(format!("{path}: an object must say additionalProperties: false"));
        }
        if sub.get("properties").is_none() {
            breaches.push(format!("{path}: an object must list its properties"));
        }
        let required: Vec<&str> =
            sub.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        for name in &declared {
            if !required.contains(&name.as_str()) {
                breaches.push(format!("{path}: \"{name}\" must be required (an optional field is nullable instead)"));
            }
        }
    }
    breaches.extend(shared_first_keys(schema));
    if properties > 5000 {
        breaches.push(format!("{properties} object properties, over 5,000"));
    }
    if object_depth(schema) > 10 {
        breaches.push(format!("{} levels of nesting, over 10", object_depth(schema)));
    }
    if enum_values > 1000 {
        breaches.push(format!("{enum_values} enum values, over 1,000"));
    }
    if characters > 120_000 {
        breaches.push(format!("{characters} characters of names and enum values, over 120,000"));
    }
    breaches
}

/// OpenAI's strict mode tells the objects of an `anyOf` apart by their first key, which must
/// differ (a discriminator, such as the enum of the action's names, may share its name): "Objects
/// provided via 'anyOf' must not share identical first keys", in `properties` and in `required`.
fn shared_first_keys(schema: &Value) -> Vec<String> {
    let mut breaches = Vec::new();
    for (path, sub) in subschemas(schema) {
        let objects =
            sub.get("anyOf").and_then(Value::as_array).into_iter().flatten().filter(|v| types(v).contains(&"object"));
        let mut firsts: Vec<(&String, &Value)> = Vec::new();
        for (i, variant) in objects.enumerate() {
            let Some(first) = variant.get("properties").and_then(Value::as_object).and_then(|p| p.iter().next()) else {
                continue;
            };
            if variant["required"].get(0).and_then(Value::as_str) != Some(first.0.as_str()) {
                breaches.push(format!(
                    "{path}/anyOf/{i}: the first required key must be the first property, \"{}\"",
                    first.0
                ));
            }
            if firsts.contains(&first) {
                breaches.push(format!(
                    "{path}/anyOf/{i}: its first key, \"{}\", is another object's in the anyOf",
                    first.0
                ));
            }
            firsts.push(first);
        }
    }
    breaches
}

const ANTHROPIC_UNSUPPORTED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "patternProperties",
    "unevaluatedProperties",
    "if",
    "then",
    "else",
    "not",
    "dependentSchemas",
];

fn anthropic_breaches(schema: &Value) -> Vec<String> {
    let mut breaches = Vec::new();
    if schema["type"] != "object" {
        breaches.push("a tool's input_schema must be an object".into());
    }
    for (path, sub) in subschemas(schema) {
        let keys: Vec<&String> = sub.as_object().map(|o| o.keys().collect()).unwrap_or_default();
        for key in keys.iter().filter(|k| ANTHROPIC_UNSUPPORTED.contains(&k.as_str())) {
            breaches.push(format!("{path}: Anthropic's strict tools do not support \"{key}\""));
        }
        if sub.get("additionalProperties").is_some_and(|a| a != &json!(false)) {
            breaches.push(format!("{path}: additionalProperties may only be false"));
        }
    }
    breaches
}

const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

fn gemini_breaches(schema: &Value) -> Vec<String> {
    let mut breaches = keyword_breaches(schema, GEMINI_KEYWORDS, "Gemini's responseSchema");
    for (path, sub) in subschemas(schema) {
        match sub.get("type") {
            Some(Value::String(t)) if t != "null" => {}
            Some(other) => breaches.push(format!("{path}: the type must be one name other than null, not {other}")),
            None if sub.get("anyOf").is_some() => {}
            None => breaches.push(format!("{path}: every schema needs a type")),
        }
        if let Some(words) = sub.get("enum").and_then(Value::as_array) {
            if sub["type"] != "string" || !words.iter().all(Value::is_string) {
                breaches.push(format!("{path}: an enum must be of type string and list strings only"));
            }
        }
        if sub["type"] == "object" && sub.get("properties").and_then(Value::as_object).is_none_or(|p| p.is_empty()) {
            breaches.push(format!("{path}: an object must have properties"));
        }
    }
    breaches
}

/// The keywords llama.cpp's json-schema-to-grammar converts (Ollama's `format` uses it too).
const LLAMA_CPP_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "anyOf",
    "oneOf",
    "allOf",
    "enum",
    "const",
    "pattern",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "$schema",
];

/// Every field whose type admits null accepts null: the choice can be left out.
fn unexpressible_choices(schema: &Value) -> Vec<String> {
    subschemas(schema)
        .into_iter()
        .filter(|(_, sub)| types(sub).contains(&"null"))
        .filter(|(_, sub)| schema_breaches(sub, "null").is_some())
        .map(|(path, _)| {
            format!("{path}: the type admits null but the schema refuses it, so the choice cannot be left out")
        })
        .collect()
}

fn assert_none(what: &str, label: &str, breaches: Vec<String>) {
    assert!(breaches.is_empty(), "{label}, as {what} receives it:\n{}", breaches.join("\n"));
}

#[test]
fn every_schema_is_valid_json_schema_and_leaves_every_choice_open() {
    for schema in request_schemas() {
        assert!(jsonschema::meta::is_valid(&schema.schema), "{}: not valid JSON Schema", schema.label);
        assert_none("any provider", &schema.label, unexpressible_choices(&schema.schema));
    }
}

#[test]
fn openai_receives_schemas_its_strict_mode_accepts() {
    let http = CannedHttp::new(Err("unused".into()));
    let openai = OpenAiCompatible::new("https://api.openai.com/v1", "gpt", "k", &http);
    for schema in request_schemas() {
        let body = openai.request_body(&request(&schema), OutputMode::JsonSchema);
        let format = &body["response_format"]["json_schema"];
        assert_eq!(format["strict"], json!(schema.strict), "{}", schema.label);
        assert!(!format["name"].as_str().unwrap_or_default().is_empty(), "{}: json_schema needs a name", schema.label);
        if schema.strict {
            assert_none("OpenAI strict mode", &schema.label, openai_strict_breaches(&format["schema"]));
        }
        let call = openai.request_body(&request(&schema), OutputMode::FunctionCall);
        assert_eq!(call["tools"][0]["function"]["parameters"]["type"], "object", "{}", schema.label);
    }
}

#[test]
fn anthropic_receives_tool_input_schemas_it_accepts() {
    let http = CannedHttp::new(Err("unused".into()));
    let anthropic = Anthropic::new("", "claude", "k", &http);
    for schema in request_schemas() {
        let body = anthropic.request_body(&request(&schema));
        assert_eq!(body["tool_choice"]["name"], body["tools"][0]["name"], "{}", schema.label);
        assert_none("Anthropic", &schema.label, anthropic_breaches(&body["tools"][0]["input_schema"]));
    }
}

#[test]
fn gemini_receives_response_schemas_in_its_openapi_subset() {
    let http = CannedHttp::new(Err("unused".into()));
    let gemini = Gemini::new("", "gemini", "k", &http);
    for schema in request_schemas() {
        let body = gemini.request_body(&request(&schema));
        let sent = &body["generationConfig"]["responseSchema"];
        match schema.strict {
            true => assert_none("Gemini", &schema.label, gemini_breaches(sent)),
            false => assert!(sent.is_null(), "{}: an outline goes as JSON mode, without a schema", schema.label),
        }
    }
}

#[test]
fn ollama_and_llama_cpp_receive_keywords_their_grammar_converter_handles() {
    for schema in request_schemas() {
        assert_none("llama.cpp", &schema.label, keyword_breaches(&schema.schema, LLAMA_CPP_KEYWORDS, "llama.cpp"));
    }
}

#[test]
fn the_rules_catch_what_the_providers_refuse() {
    // The navigator's click as it was: nullable, but with an enum that refuses null.
    let forced = json!({"type": "object", "properties": {"click": {"type": ["string", "null"], "enum": ["double", "right"]}}, "required": ["click"], "additionalProperties": false});
    assert_eq!(unexpressible_choices(&forced).len(), 1);
    let loose = json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}, "b": {"type": "object"}}, "required": ["a"]});
    let said = openai_strict_breaches(&loose).join("\n");
    for breach in [
        "does not support \"maxLength\"",
        "additionalProperties: false",
        "\"b\" must be required",
        "must list its properties",
    ] {
        assert!(said.contains(breach), "{said}");
    }
    assert!(openai_strict_breaches(&json!({"anyOf": [{"type": "object"}]})).iter().any(|b| b.contains("root")));
    // Two actions told apart only after their first key, and one whose required keys start elsewhere.
    let variant = |name: &str, first: &str| json!({"type": "object", "properties": {"do": {"type": "string"}, name: {"type": "string"}}, "required": [first, name], "additionalProperties": false});
    let shared = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"anyOf": [variant("url", "do"), variant("query", "query")]}}}, "required": ["a"], "additionalProperties": false});
    let said = shared_first_keys(&shared);
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].contains("first required key") && said[1].contains("another object's"), "{said:?}");
    let gemini = json!({"type": ["string", "null"], "enum": ["a", null], "additionalProperties": false});
    assert_eq!(gemini_breaches(&gemini).len(), 3, "{:?}", gemini_breaches(&gemini));
    assert_eq!(
        anthropic_breaches(&json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}})).len(),
        1
    );
    let deep =
        (0..11).fold(json!({"type": "string"}), |inner, _| json!({"type": "object", "properties": {"x": inner}}));
    assert_eq!(object_depth(&deep), 11);
}

#[test]
fn on_gemini_an_action_without_parameters_is_its_name_alone_and_reads_as_that_action() {
    use crate::actions::Action;
    let navigator = &request_schemas()[0];
    let sent = super::gemini::gemini_schema(&navigator.schema);
    let names = |variant: &Value| variant["properties"]["do"]["enum"].as_array().cloned().unwrap_or_default();
    let go_back = sent["properties"]["action"]["items"]["anyOf"]
        .as_array()
        .unwrap()
        .iter()
        .find(|variant| names(variant).contains(&json!("go_back")))
        .unwrap();
    assert_eq!(
        go_back,
        &json!({"type": "object", "properties": {"do": {"type": "string", "enum": ["go_back", "go_forward", "reload"]}}, "required": ["do"]})
    );
    assert_eq!(Action::from_json(&json!({"do": "go_back"})), Ok(Action::GoBack));
    // The keyed form, as models trained on browser-use write it.
    for value in [json!(null), json!({})] {
        assert_eq!(Action::from_json(&json!({ "go_back": value })), Ok(Action::GoBack));
    }
    assert!(Action::from_json(&json!({"go_to_url": "https://x.test"})).is_err());
}

#[test]
fn a_step_holds_one_to_the_most_actions_and_done_must_say_more_than_its_example() {
    use crate::actions::{Action, MAX_ACTIONS_PER_STEP};
    let action = &request_schemas()[0].schema["properties"]["action"];
    assert_eq!(
        (action["minItems"].as_u64(), action["maxItems"].as_u64()),
        (Some(1), Some(MAX_ACTIONS_PER_STEP as u64))
    );
    let copied = Action::from_json(&json!({"do": "done", "text": "the answer for the user", "success": true}));
    assert_eq!(copied, Err("done.text is the example from the instructions: write the answer itself".into()));
    assert!(Action::from_json(&json!({"do": "done", "text": "The total is $12.00.", "success": true})).is_ok());
}
