//! A task with an output schema: `done` carries the answer as data in the schema's shape, and
//! a claimed success whose data does not fit is sent back to the model, once, saying what is
//! wrong.

use crate::actions::{Action, NAME_FIELD};
use crate::agent::output::NavigatorOutput;
use crate::answer::{breaches_said, OutputSchema};
use serde_json::{json, Value};

/// The navigator's reply schema with `done` taking the answer as `data` (required): in the form
/// the providers can enforce when the output schema has one (the request stays `strict`), else
/// as the user wrote it, and then the request only outlines the reply.
pub(in crate::agent) fn with_answer(mut schema: Value, output: &OutputSchema, strict: bool) -> (Value, bool) {
    let (data, strict) = match output.held() {
        Some(held) => (held, strict),
        None => (output.schema().clone(), false),
    };
    let variants = schema.pointer_mut("/properties/action/items/anyOf").and_then(Value::as_array_mut);
    let is_done = |variant: &&mut Value| variant["properties"][NAME_FIELD]["enum"] == json!(["done"]);
    for done in variants.into_iter().flatten().filter(is_done) {
        done["properties"]["data"] = data.clone();
        if let Some(required) = done["required"].as_array_mut() {
            required.push(json!("data"));
        }
    }
    (schema, strict)
}

/// Why the reply cannot end the task, if it cannot: a claimed success must carry data that fits
/// the output schema. Said for the model, which is asked again.
pub(super) fn answer_problem(schema: Option<&OutputSchema>, output: &NavigatorOutput) -> Option<String> {
    let schema = schema?;
    if !output.actions.iter().any(|action| matches!(action, Action::Done { success: true, .. })) {
        return None;
    }
    let Some(data) = &output.answer else {
        return Some(
            "done has no \"data\": give the answer in done's \"data\" field, following the output schema".into(),
        );
    };
    let breaches = schema.breaches(&schema.settled(data.clone()));
    (!breaches.is_empty())
        .then(|| format!("done's \"data\" does not fit the output schema: {}", breaches_said(&breaches)))
}

/// The answer the task ends with: `done`'s data when the task has an output schema and the data
/// fits it (a task that gave up may still have gathered some).
pub(super) fn fitting_answer(schema: Option<&OutputSchema>, output: &NavigatorOutput) -> Option<Value> {
    let (schema, data) = (schema?, output.answer.clone()?);
    let data = schema.settled(data);
    schema.breaches(&data).is_empty().then_some(data)
}

#[cfg(test)]
mod tests {
    use crate::agent::fakes::{config, reply, run_with, FakeShop, ScriptedModel};
    use crate::agent::{AgentEvent, TaskConfig};
    use crate::answer::OutputSchema;
    use serde_json::json;

    /// Mugs with their prices, which cannot be below zero (a bound the provider does not hold
    /// the model to: only the core's check does).
    fn with_mugs_schema() -> TaskConfig {
        let schema = json!({
            "type": "object",
            "properties": {"mugs": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "price": {"type": "number", "minimum": 0}},
                "required": ["name", "price"],
                "additionalProperties": false
            }}},
            "required": ["mugs"],
            "additionalProperties": false
        });
        TaskConfig { output_schema: Some(OutputSchema::new(schema).unwrap()), ..config(5) }
    }

    fn done_with(data: &str) -> String {
        format!(r#"[{{"do":"done","text":"Two mugs","success":true,"data":{data}}}]"#)
    }

    fn data_events(events: &[AgentEvent]) -> Vec<serde_json::Value> {
        events
            .iter()
            .filter_map(|e| if let AgentEvent::Answer { data } = e { Some(data.clone()) } else { None })
            .collect()
    }

    #[test]
    fn the_answer_comes_as_data_in_the_schemas_shape_and_the_model_is_told_how() {
        let shop = FakeShop::new();
        let data = r#"{"mugs":[{"name":"Blue mug","price":12},{"name":"Red mug","price":9.5}]}"#;
        let model = ScriptedModel::new(vec![reply(&done_with(data))]);
        let (end, events) = run_with(&with_mugs_schema(), &shop, &model);
        assert_eq!(end, AgentEvent::Result { success: true, text: "Two mugs".into(), steps: 1 });
        assert_eq!(data_events(&events), vec![serde_json::from_str::<serde_json::Value>(data).unwrap()]);
        // Just before the result, and in the run's record.
        let at = events.iter().position(|e| matches!(e, AgentEvent::Answer { .. })).unwrap();
        let Some(AgentEvent::RunRecorded { record, .. }) = events.get(at + 1) else { panic!("{events:?}") };
        assert_eq!(record["answer"]["mugs"][1]["price"], json!(9.5));
        let request = &model.requests.borrow()[0];
        assert!(request.strict, "a schema the providers can hold keeps the request strict");
        assert!(request.messages.iter().any(|m| m.content.contains("done's \"data\" field")), "the task says so");
    }

    #[test]
    fn an_answer_that_does_not_fit_is_sent_back_once_saying_what_is_wrong() {
        let shop = FakeShop::new();
        let model = ScriptedModel::new(vec![
            reply(&done_with(r#"{"mugs":[{"name":"Blue mug","price":-12}]}"#)),
            reply(&done_with(r#"{"mugs":[{"name":"Blue mug","price":12}]}"#)),
        ]);
        let (end, events) = run_with(&with_mugs_schema(), &shop, &model);
        assert!(matches!(end, AgentEvent::Result { success: true, steps: 1, .. }), "{end:?}");
        assert_eq!(data_events(&events), vec![json!({"mugs": [{"name": "Blue mug", "price": 12}]})]);
        let told = model.requests.borrow()[1].messages.iter().rev().nth(1).unwrap().content.clone();
        assert_eq!(
            told,
            "Your reply could not be used: done's \"data\" does not fit the output schema: at /mugs/0/price: -12 is less than 0. Reply with one JSON object in the required format."
        );
    }

    #[test]
    fn an_answer_that_still_does_not_fit_ends_the_task_saying_why() {
        let shop = FakeShop::new();
        let wrong = reply(&done_with(r#"{"mugs":[{"name":"Blue mug","price":-12}]}"#));
        let model = ScriptedModel::new(vec![wrong.clone(), wrong]);
        let (end, events) = run_with(&with_mugs_schema(), &shop, &model);
        let AgentEvent::Error { message, steps: 1 } = &end else { panic!("{end:?}") };
        assert_eq!(
            message.to_string(),
            "The answer does not fit the output schema, even after the model was told what was wrong: done's \"data\" does not fit the output schema: at /mugs/0/price: -12 is less than 0. Check that the schema asks for what the pages show (or loosen it), then run the task again."
        );
        assert!(data_events(&events).is_empty());
    }

    #[test]
    fn a_misfit_after_an_unreadable_reply_is_told_before_it_can_end_the_task() {
        let misfit = reply(&done_with(r#"{"mugs":[{"name":"Blue mug","price":-12}]}"#));
        let fitting = reply(&done_with(r#"{"mugs":[{"name":"Blue mug","price":12}]}"#));
        let model = ScriptedModel::unconstrained(vec![Ok("I will answer now".into()), misfit, fitting]);
        let (end, events) = run_with(&with_mugs_schema(), &FakeShop::new(), &model);
        assert!(matches!(end, AgentEvent::Result { success: true, steps: 2, .. }), "{end:?}");
        assert_eq!(data_events(&events), vec![json!({"mugs": [{"name": "Blue mug", "price": 12}]})]);
        assert!(model.state(2).contains("at /mugs/0/price: -12 is less than 0"), "{}", model.state(2));
    }

    #[test]
    fn a_task_given_up_ends_without_data_unless_what_it_gathered_fits() {
        let gave_up = |data: &str| {
            let model = ScriptedModel::new(vec![reply(&format!(
                r#"[{{"do":"done","text":"No more mugs","success":false,"data":{data}}}]"#
            ))]);
            let (end, events) = run_with(&with_mugs_schema(), &FakeShop::new(), &model);
            assert!(matches!(end, AgentEvent::Result { success: false, .. }), "{end:?}");
            data_events(&events)
        };
        assert!(gave_up(r#"{"mugs":[{"name":"Blue mug","price":-1}]}"#).is_empty());
        assert_eq!(gave_up(r#"{"mugs":[]}"#), vec![json!({"mugs": []})]);
    }

    #[test]
    fn an_answer_as_deep_as_can_be_held_keeps_the_reply_within_openais_ten_levels_of_objects() {
        use super::with_answer;
        use crate::agent::prompt::navigator_schema;
        use crate::messages::RequestStyle;
        let nested = |depth: usize| {
            let leaf = json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]});
            let schema = (1..depth)
                .fold(leaf, |inner, _| json!({"type": "object", "properties": {"x": inner}, "required": ["x"]}));
            OutputSchema::new(schema).unwrap()
        };
        let (schema, strict) = with_answer(navigator_schema(false, RequestStyle::Full), &nested(8), true);
        assert!(strict, "8 objects deep are held");
        let variants = schema["properties"]["action"]["items"]["anyOf"].as_array().unwrap();
        let done = variants.iter().find(|variant| variant["properties"]["do"]["enum"] == json!(["done"])).unwrap();
        // The reply and done's action, then the answer's objects.
        let mut depth = 2;
        let mut at = &done["properties"]["data"];
        while at["type"] == "object" {
            depth += 1;
            at = &at["properties"]["x"];
        }
        assert_eq!(depth, 10);
        let (_, strict) = with_answer(navigator_schema(false, RequestStyle::Full), &nested(9), true);
        assert!(!strict, "9 are not: the reply would nest 11");
    }

    #[test]
    fn a_schema_no_provider_can_hold_goes_as_an_outline_and_is_still_checked() {
        let loose = OutputSchema::new(json!({"type": "object", "minProperties": 1})).unwrap();
        let config = TaskConfig { output_schema: Some(loose), ..config(5) };
        // An outline holds the model to nothing.
        let model =
            ScriptedModel::unconstrained(vec![reply(&done_with("{}")), reply(&done_with(r#"{"total":"$12"}"#))]);
        let (end, events) = run_with(&config, &FakeShop::new(), &model);
        assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
        assert_eq!(data_events(&events), vec![json!({"total": "$12"})]);
        assert!(!model.requests.borrow()[0].strict);
    }
}
