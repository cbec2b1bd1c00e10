//! Checking an answer against a JSON Schema: the keywords that say what a value must be (types,
//! enums, lengths, bounds, objects, lists, choices and local `$ref`s), each breach said with
//! where it is (a JSON pointer into the answer). Schemas that use anything else are refused up
//! front (`pattern` and the like), so that no part of a schema goes unchecked unnoticed.
//!
//! Why not the `jsonschema` crate (0.61, which the tests check this against): it builds for wasm
//! without its default features, but more than doubles the extension's wasm (2.55 MB to 5.29 MB
//! after `./build.sh`, 0.96 to 1.86 MB gzipped: regular expressions, formats, big numbers),
//! where structured answers as a whole, this checker included, add 56 KB.

use serde_json::{Map, Value};

/// Keywords that describe and do not constrain, or hold definitions.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "format",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$defs",
    "definitions",
];

/// Keywords the check applies.
const CHECKED: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minProperties",
    "maxProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "$ref",
];

const TYPES: &[&str] = &["null", "boolean", "object", "array", "number", "integer", "string"];

/// Nested `$ref`s deeper than this are a schema that refers to itself without end.
const MAX_DEPTH: usize = 64;

/// `Ok` when every part of `schema` (at `path` within `root`) is one the check can apply.
pub(super) fn readable(root: &Value, schema: &Value, path: &str) -> Result<(), String> {
    let at = |path: &str| if path.is_empty() { "its root".to_string() } else { path.to_string() };
    let object = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(object) => object,
        other => return Err(format!("the output schema at {} is {other}, not a schema (an object)", at(path))),
    };
    for (key, value) in object {
        let here = format!("{path}/{key}");
        if !CHECKED.contains(&key.as_str()) && !ANNOTATIONS.contains(&key.as_str()) {
            return Err(format!(
                "the output schema uses \"{key}\" (at {}), which the agent cannot check: leave it out",
                at(path)
            ));
        }
        match key.as_str() {
            "properties" | "$defs" | "definitions" => {
                let Some(members) = value.as_object() else { return Err(format!("{here} must be an object")) };
                for (name, sub) in members {
                    readable(root, sub, &format!("{here}/{name}"))?;
                }
            }
            "additionalProperties" | "items" | "not" => readable(root, value, &here)?,
            "anyOf" | "oneOf" | "allOf" => match value.as_array() {
                Some(list) if !list.is_empty() => {
                    for (i, sub) in list.iter().enumerate() {
                        readable(root, sub, &format!("{here}/{i}"))?;
                    }
                }
                _ => return Err(format!("{here} must be a list of schemas")),
            },
            "type" => {
                let names: Vec<&Value> = match value {
                    Value::Array(names) => names.iter().collect(),
                    one => vec![one],
                };
                if let Some(bad) = names.iter().find(|name| name.as_str().is_none_or(|n| !TYPES.contains(&n))) {
                    return Err(format!("{here}: {bad} is not a JSON Schema type ({})", TYPES.join(", ")));
                }
            }
            "required" if !value.as_array().is_some_and(|names| names.iter().all(Value::is_string)) => {
                return Err(format!("{here} must be a list of property names"))
            }
            "enum" if !value.is_array() => return Err(format!("{here} must be a list of values")),
            "$ref" => {
                resolve(root, value)?;
            }
            "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties" | "maxProperties"
                if !value.is_u64() =>
            {
                return Err(format!("{here} must be a whole number"))
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" if !value.is_number() => {
                return Err(format!("{here} must be a number"))
            }
            "multipleOf" if !value.as_f64().is_some_and(|m| m > 0.0) => {
                return Err(format!("{here} must be a number above 0"))
            }
            "uniqueItems" if !value.is_boolean() => return Err(format!("{here} must be true or false")),
            _ => {}
        }
    }
    Ok(())
}

/// The schema a local `$ref` (`#/$defs/row`) points to.
fn resolve<'a>(root: &'a Value, reference: &Value) -> Result<&'a Value, String> {
    let pointer = reference
        .as_str()
        .and_then(|r| r.strip_prefix('#'))
        .ok_or_else(|| format!("the output schema's $ref {reference} is not within the schema (\"#/...\")"))?;
    root.pointer(pointer).ok_or_else(|| format!("the output schema's $ref {reference} points to nothing"))
}

/// Adds to `found` each breach of `schema` by `data`, which is at `path` in the answer.
pub(super) fn check(root: &Value, schema: &Value, data: &Value, path: &str, depth: usize, found: &mut Vec<String>) {
    let at = if path.is_empty() { "/" } else { path };
    let object = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => return found.push(format!("at {at}: nothing may be here")),
        Value::Object(object) => object,
        _ => return,
    };
    if depth > MAX_DEPTH {
        return found.push(format!("at {at}: the schema refers to itself without end"));
    }
    if let Some(target) = object.get("$ref").and_then(|r| resolve(root, r).ok()) {
        check(root, target, data, path, depth + 1, found);
    }
    if let Some(types) = object.get("type") {
        let names: Vec<&str> = match types {
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            one => one.as_str().into_iter().collect(),
        };
        if !names.iter().any(|name| is_of_type(data, name)) {
            // Nothing else about a value of the wrong type is worth saying.
            return found.push(format!("at {at}: expected {}, got {}", names.join(" or "), described(data)));
        }
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        if !values.iter().any(|value| same(value, data)) {
            found.push(format!("at {at}: {} is not one of {}", shown(data), shown(&Value::from(values.clone()))));
        }
    }
    if let Some(value) = object.get("const") {
        if !same(value, data) {
            found.push(format!("at {at}: expected {}, got {}", shown(value), shown(data)));
        }
    }
    match data {
        Value::String(text) => check_string(object, text, at, found),
        Value::Number(_) => check_number(object, data.as_f64().unwrap_or_default(), at, found),
        Value::Array(items) => check_array(root, object, items, path, depth, found),
        Value::Object(members) => check_object(root, object, members, path, depth, found),
        _ => {}
    }
    check_choices(root, object, data, path, depth, found);
}

fn check_string(schema: &Map<String, Value>, text: &str, at: &str, found: &mut Vec<String>) {
    let length = text.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64).filter(|&min| length < min) {
        found.push(format!("at {at}: the text is {length} characters long, shorter than {min}"));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64).filter(|&max| length > max) {
        found.push(format!("at {at}: the text is {length} characters long, longer than {max}"));
    }
}

/// A bound's keyword, whether a number keeps it, and what a number that breaks it is.
type NumberRule = (&'static str, fn(f64, f64) -> bool, &'static str);

fn check_number(schema: &Map<String, Value>, number: f64, at: &str, found: &mut Vec<String>) {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let rules: [NumberRule; 4] = [
        ("minimum", |n, b| n >= b, "less than"),
        ("maximum", |n, b| n <= b, "more than"),
        ("exclusiveMinimum", |n, b| n > b, "not more than"),
        ("exclusiveMaximum", |n, b| n < b, "not less than"),
    ];
    for (key, holds, broken) in rules {
        if let Some(limit) = bound(key).filter(|&limit| !holds(number, limit)) {
            found.push(format!("at {at}: {number} is {broken} {limit}"));
        }
    }
    if let Some(step) = bound("multipleOf") {
        let ratio = number / step;
        if (ratio - ratio.round()).abs() > 1e-9 {
            found.push(format!("at {at}: {number} is not a multiple of {step}"));
        }
    }
}

fn check_array(
    root: &Value,
    schema: &Map<String, Value>,
    items: &[Value],
    path: &str,
    depth: usize,
    found: &mut Vec<String>,
) {
    let at = if path.is_empty() { "/" } else { path };
    let count = items.len() as u64;
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64).filter(|&min| count < min) {
        found.push(format!("at {at}: the list has {count} items, fewer than {min}"));
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64).filter(|&max| count > max) {
        found.push(format!("at {at}: the list has {count} items, more than {max}"));
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        let repeated = items.iter().enumerate().find(|(i, item)| items[..*i].iter().any(|earlier| same(earlier, item)));
        if let Some((i, item)) = repeated {
            found.push(format!("at {at}: item {i} ({}) repeats an earlier one", shown(item)));
        }
    }
    if let Some(item_schema) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            check(root, item_schema, item, &format!("{path}/{i}"), depth + 1, found);
        }
    }
}

fn check_object(
    root: &Value,
    schema: &Map<String, Value>,
    members: &Map<String, Value>,
    path: &str,
    depth: usize,
    found: &mut Vec<String>,
) {
    let at = if path.is_empty() { "/" } else { path };
    for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        if !members.contains_key(name) {
            found.push(format!("at {at}: \"{name}\" is missing"));
        }
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, value) in members {
        let here = format!("{path}/{}", name.replace('~', "~0").replace('/', "~1"));
        match (properties.and_then(|p| p.get(name)), schema.get("additionalProperties")) {
            (Some(property), _) => check(root, property, value, &here, depth + 1, found),
            (None, Some(Value::Bool(false))) => found.push(format!("at {at}: \"{name}\" is not allowed here")),
            (None, Some(other)) => check(root, other, value, &here, depth + 1, found),
            (None, None) => {}
        }
    }
    let count = members.len() as u64;
    if let Some(min) = schema.get("minProperties").and_then(Value::as_u64).filter(|&min| count < min) {
        found.push(format!("at {at}: {count} fields, fewer than {min}"));
    }
    if let Some(max) = schema.get("maxProperties").and_then(Value::as_u64).filter(|&max| count > max) {
        found.push(format!("at {at}: {count} fields, more than {max}"));
    }
}

/// `anyOf`, `oneOf`, `allOf` and `not`.
fn check_choices(
    root: &Value,
    schema: &Map<String, Value>,
    data: &Value,
    path: &str,
    depth: usize,
    found: &mut Vec<String>,
) {
    let at = if path.is_empty() { "/" } else { path };
    let breaches_of = |sub: &Value| {
        let mut own = Vec::new();
        check(root, sub, data, path, depth + 1, &mut own);
        own
    };
    let list = |key: &str| schema.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    let any = list("anyOf");
    if !any.is_empty() {
        let tried: Vec<Vec<String>> = any.iter().map(breaches_of).collect();
        if tried.iter().all(|breaches| !breaches.is_empty()) {
            let closest = tried.iter().min_by_key(|breaches| breaches.len()).expect("not empty");
            found.push(format!("at {at}: fits none of the choices (the closest: {})", closest.join("; ")));
        }
    }
    let one = list("oneOf");
    if !one.is_empty() {
        let fitting = one.iter().filter(|sub| breaches_of(sub).is_empty()).count();
        if fitting != 1 {
            found.push(format!("at {at}: fits {fitting} of the oneOf choices, not exactly one"));
        }
    }
    for sub in list("allOf") {
        found.extend(breaches_of(&sub));
    }
    if let Some(sub) = schema.get("not") {
        if breaches_of(sub).is_empty() {
            found.push(format!("at {at}: fits a schema it must not fit ({sub})"));
        }
    }
}

fn is_of_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "string" => value.is_string(),
        _ => false,
    }
}

/// JSON equality, with numbers equal by value (1 and 1.0 are the same).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, value)| y.get(key).is_some_and(|other| same(value, other)))
        }
        _ => a == b,
    }
}

/// A value's kind, with the value when short: `a string ("abc")`.
fn described(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    };
    format!("{kind} ({})", shown(value))
}

/// The value as JSON, cut short.
fn shown(value: &Value) -> String {
    const MAX_CHARS: usize = 60;
    let text = value.to_string();
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
