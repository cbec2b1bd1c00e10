//! The output schema in the form the providers' strict structured output accepts (OpenAI strict
//! mode, Anthropic's strict tools, Gemini's response schema, llama.cpp's grammars): every
//! object's fields all required and no others, the optional ones nullable instead; one type per
//! value (or that type or null); enums of strings. Bounds, lengths and the like are left out:
//! the core checks the answer against the user's schema itself.

use serde_json::{json, Map, Value};

/// Objects a user's schema may nest: the navigator's reply holds the answer 2 objects deep
/// (reply, `done`'s action), and OpenAI takes 10.
const MAX_OBJECT_DEPTH: usize = 8;

/// The held form of `schema`, or `None` when it has a part that cannot be put so (a choice of
/// several types, `oneOf`, a `$ref`, an object of any fields, an enum of numbers...).
pub(super) fn held(schema: &Value) -> Option<Value> {
    let out = hold(schema)?;
    (object_depth(&out) <= MAX_OBJECT_DEPTH).then_some(out)
}

fn hold(schema: &Value) -> Option<Value> {
    let object = schema.as_object()?;
    if ["$ref", "oneOf", "allOf", "not"].iter().any(|key| object.contains_key(*key)) {
        return None;
    }
    let mut out = Map::new();
    for key in ["title", "description"] {
        if let Some(text) = object.get(key).filter(|v| v.is_string()) {
            out.insert(key.into(), text.clone());
        }
    }
    if let Some(choices) = object.get("anyOf").and_then(Value::as_array) {
        if object.contains_key("type") {
            return None;
        }
        out.insert("anyOf".into(), choices.iter().map(hold).collect::<Option<Vec<_>>>()?.into());
        return Some(Value::Object(out));
    }
    let (kind, nullable) = single_type(object)?;
    out.insert("type".into(), if nullable { json!([kind, "null"]) } else { json!(kind) });
    let words = object.get("enum").cloned().or_else(|| object.get("const").map(|one| json!([one])));
    if let Some(words) = words {
        let words = words.as_array()?;
        if kind != "string" || !words.iter().all(|w| w.is_string() || (nullable && w.is_null())) {
            return None;
        }
        let mut words = words.clone();
        if nullable && !words.contains(&Value::Null) {
            words.push(Value::Null);
        }
        out.insert("enum".into(), words.into());
    }
    match kind {
        "object" => {
            let properties = object.get("properties").and_then(Value::as_object).filter(|p| !p.is_empty())?;
            if object.get("additionalProperties").is_some_and(|extra| extra != &json!(false)) {
                return None;
            }
            let required = required_names(object.get("required"));
            let mut held_properties = Map::new();
            for (name, sub) in properties {
                let sub = hold(sub)?;
                let sub = if required.contains(&name.as_str()) { sub } else { nullable_form(sub) };
                held_properties.insert(name.clone(), sub);
            }
            let names: Vec<&String> = properties.keys().collect();
            out.insert("properties".into(), held_properties.into());
            out.insert("required".into(), json!(names));
            out.insert("additionalProperties".into(), json!(false));
        }
        "array" => {
            out.insert("items".into(), hold(object.get("items")?)?);
        }
        _ => {}
    }
    Some(Value::Object(out))
}

/// The one type a schema says, and whether it also allows null; `None` for none or several.
fn single_type(object: &Map<String, Value>) -> Option<(&str, bool)> {
    match object.get("type") {
        Some(Value::String(kind)) => Some((kind, false)),
        Some(Value::Array(kinds)) => {
            let named: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
            let concrete: Vec<&str> = named.iter().copied().filter(|k| *k != "null").collect();
            match concrete[..] {
                [kind] => Some((kind, named.len() > 1)),
                _ => None,
            }
        }
        // An enum or a const of strings says its type.
        _ => {
            let words = object.get("enum").and_then(Value::as_array).cloned();
            let words = words.or_else(|| object.get("const").map(|one| vec![one.clone()]))?;
            words.iter().all(Value::is_string).then_some(("string", false))
        }
    }
}

/// The held schema of a field that may be left out: it takes null as well.
fn nullable_form(mut schema: Value) -> Value {
    if let Some(choices) = schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        choices.push(json!({"type": "null"}));
        return schema;
    }
    if let Some(kind) = schema.get("type").and_then(Value::as_str).map(str::to_string) {
        schema["type"] = json!([kind, "null"]);
    }
    if let Some(words) = schema.get_mut("enum").and_then(Value::as_array_mut) {
        if !words.contains(&Value::Null) {
            words.push(Value::Null);
        }
    }
    schema
}

/// How many objects deep the schema goes (an object is 1).
fn object_depth(schema: &Value) -> usize {
    let own = match &schema["type"] {
        Value::String(kind) => usize::from(kind == "object"),
        Value::Array(kinds) => usize::from(kinds.iter().any(|k| k == "object")),
        _ => 0,
    };
    let below = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values())
        .chain(schema.get("items"))
        .chain(schema.get("anyOf").and_then(Value::as_array).into_iter().flatten())
        .map(object_depth)
        .max()
        .unwrap_or(0);
    own + below
}

/// `data` without the nulls the held form wrote for optional fields that do not take null.
pub(super) fn settled(schema: &Value, data: Value) -> Value {
    match data {
        Value::Object(members) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let required = required_names(schema.get("required"));
            let members = members.into_iter().filter_map(|(name, value)| {
                let property = properties.and_then(|p| p.get(&name));
                let left_out =
                    value.is_null() && !required.contains(&name.as_str()) && !property.is_some_and(takes_null);
                match (left_out, property) {
                    (true, _) => None,
                    (false, Some(property)) => Some((name, settled(property, value))),
                    (false, None) => Some((name, value)),
                }
            });
            Value::Object(members.collect())
        }
        Value::Array(items) => match schema.get("items") {
            Some(item) => Value::Array(items.into_iter().map(|value| settled(item, value)).collect()),
            None => Value::Array(items),
        },
        other => other,
    }
}

/// Whether the schema admits null of itself (its type, its enum or one of its choices).
/// The names a schema's `required` lists.
fn required_names(required: Option<&Value>) -> Vec<&str> {
    required.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

fn takes_null(schema: &Value) -> bool {
    let typed = match &schema["type"] {
        Value::String(kind) => kind == "null",
        Value::Array(kinds) => kinds.iter().any(|k| k == "null"),
        _ => false,
    };
    let listed = schema.get("enum").and_then(Value::as_array).is_some_and(|words| words.contains(&Value::Null));
    let chosen = schema.get("anyOf").and_then(Value::as_array).is_some_and(|choices| choices.iter().any(takes_null));
    typed || listed || chosen
}
