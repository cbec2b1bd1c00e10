use super::*;
use crate::llm::testing::replies_obeying;
use proptest::prelude::*;
use serde_json::json;

fn schema(value: Value) -> OutputSchema {
    OutputSchema::new(value).unwrap()
}

fn jobs() -> OutputSchema {
    schema(json!({
        "type": "object",
        "properties": {
            "jobs": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "minLength": 2},
                    "salary": {"type": "number", "minimum": 0},
                    "remote": {"type": "boolean"},
                    "level": {"enum": ["junior", "senior"]}
                },
                "required": ["title", "salary"],
                "additionalProperties": false
            }}
        },
        "required": ["jobs"]
    }))
}

#[test]
fn an_answer_that_fits_has_no_breaches() {
    let answer = json!({"jobs": [{"title": "Baker", "salary": 3000, "remote": false}, {"title": "Cook", "salary": 2.5, "level": "senior"}]});
    assert_eq!(jobs().breaches(&answer), Vec::<String>::new());
}

#[test]
fn each_breach_says_where_and_what() {
    let answer = json!({"jobs": [{"title": "B", "salary": "3000", "bonus": 1}, {"salary": -1, "level": "boss"}]});
    assert_eq!(
        jobs().breaches(&answer),
        vec![
            "at /jobs/0/title: the text is 1 characters long, shorter than 2",
            "at /jobs/0/salary: expected number, got a string (\"3000\")",
            "at /jobs/0: \"bonus\" is not allowed here",
            "at /jobs/1: \"title\" is missing",
            "at /jobs/1/salary: -1 is less than 0",
            "at /jobs/1/level: \"boss\" is not one of [\"junior\",\"senior\"]",
        ]
    );
    assert_eq!(jobs().breaches(&json!({"jobs": []})), vec!["at /jobs: the list has 0 items, fewer than 1"]);
    assert_eq!(jobs().breaches(&json!([1])), vec!["at /: expected object, got a list ([1])"]);
}

#[test]
fn a_schema_the_core_cannot_check_is_refused_saying_what_to_change() {
    let refused =
        OutputSchema::new(json!({"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]+$"}}}));
    assert_eq!(
        refused.unwrap_err(),
        "the output schema uses \"pattern\" (at /properties/zip), which the agent cannot check: leave it out"
    );
    assert!(OutputSchema::new(json!({"$ref": "#/$defs/missing"})).unwrap_err().contains("points to nothing"));
    assert!(OutputSchema::new(json!({"type": "text"})).unwrap_err().contains("not a JSON Schema type"));
    assert!(OutputSchema::new(json!("object")).is_err());
    let huge = json!({"type": "object", "description": "x".repeat(20_000)});
    assert_eq!(
        OutputSchema::new(huge).unwrap_err(),
        "the output schema is 20,034 characters long, at most 20,000: make it smaller"
    );
    assert!(serde_json::from_value::<OutputSchema>(json!({"type": "strng"})).is_err());
}

#[test]
fn settling_drops_the_nulls_of_fields_left_out_and_keeps_every_other() {
    let sent = json!({"jobs": [{"title": "Baker", "salary": 1, "remote": null, "level": null}]});
    assert_eq!(jobs().settled(sent), json!({"jobs": [{"title": "Baker", "salary": 1}]}));
    let nullable = schema(json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}));
    assert_eq!(nullable.settled(json!({"a": null})), json!({"a": null}), "null is an answer where it is allowed");
}

#[test]
fn the_held_form_requires_every_field_and_leaves_the_optional_ones_nullable() {
    let held = jobs().held().unwrap();
    let row = &held["properties"]["jobs"]["items"];
    assert_eq!(row["required"], json!(["title", "salary", "remote", "level"]));
    assert_eq!(row["properties"]["remote"]["type"], json!(["boolean", "null"]));
    assert_eq!(row["properties"]["level"], json!({"type": ["string", "null"], "enum": ["junior", "senior", null]}));
    assert_eq!(row["properties"]["title"], json!({"type": "string"}), "bounds are the check's");
    assert_eq!(held["additionalProperties"], json!(false));
    // What no provider can hold goes as an outline.
    for loose in [
        json!({"type": "object"}),
        json!({"type": ["string", "number"]}),
        json!({"oneOf": [{"type": "string"}, {"type": "null"}]}),
        json!({"enum": [1, 2]}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}),
    ] {
        assert_eq!(schema(loose.clone()).held(), None, "{loose}");
    }
}

/// The schemas the differential test checks answers against.
fn schemas() -> Vec<Value> {
    vec![
        jobs().schema().clone(),
        json!({"anyOf": [{"type": "integer", "maximum": 3}, {"type": "string", "maxLength": 2}], "not": {"const": 2}}),
        json!({"type": "array", "uniqueItems": true, "maxItems": 2, "items": {"oneOf": [{"type": "number", "multipleOf": 0.5}, {"type": "null"}]}}),
        json!({"$defs": {"cell": {"type": ["string", "null"]}}, "type": "object", "minProperties": 1, "additionalProperties": {"$ref": "#/$defs/cell"}}),
    ]
}

/// Small JSON values of every kind.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-4i64..5).prop_map(Value::from),
        (-8i32..8).prop_map(|n| Value::from(f64::from(n) / 4.0)),
        "[a-z]{0,3}".prop_map(Value::from),
        Just(json!("junior")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("title".to_string()),
                    Just("salary".to_string()),
                    Just("jobs".to_string()),
                    "[a-z]{1,2}"
                ],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The check agrees with the `jsonschema` crate on what fits.
    #[test]
    fn the_check_agrees_with_a_full_validator(index in 0..4usize, value in any_json()) {
        let schema = &schemas()[index];
        let fits = OutputSchema::new(schema.clone()).unwrap().breaches(&value).is_empty();
        prop_assert_eq!(fits, jsonschema::is_valid(schema, &value), "{} against {}", value, schema);
    }

    /// Whatever a model held to the held form sends, with null for the fields it leaves out,
    /// has the user's shape once settled: only the bounds the held form leaves to the check can
    /// be broken.
    #[test]
    fn a_reply_to_the_held_form_settles_into_the_users_shape(reply in replies_obeying(&jobs().held().unwrap())) {
        let settled = jobs().settled(reply.clone());
        for breach in jobs().breaches(&settled) {
            prop_assert!(["shorter than", "fewer than", "less than"].iter().any(|b| breach.contains(b)), "{} in {}", breach, settled);
        }
    }
}
