//! Reading the navigator's reply: tolerant of the wrappers models put around JSON, strict about
//! what the JSON must say.

use crate::actions::{name_and_params, Action};
use crate::llm::repair::{outermost_object, parse_lenient};
use serde_json::Value;

pub use crate::actions::MAX_ACTIONS_PER_STEP;

/// The navigator's thinking for one step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentBrain {
    pub evaluation_previous_goal: String,
    pub memory: String,
    pub next_goal: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NavigatorOutput {
    pub brain: AgentBrain,
    pub actions: Vec<Action>,
    /// What `done` gave in its `data` field: the structured answer, when the task asks for one.
    pub answer: Option<Value>,
}

/// Parses a reply, returning a precise reason the model can act on when it cannot be used.
pub fn parse_navigator_output(reply: &str) -> Result<NavigatorOutput, String> {
    let json = outermost_object(reply).ok_or_else(|| "the reply contains no JSON object".to_string())?;
    let value: Value = parse_lenient(json).map_err(|err| format!("the reply is not valid JSON ({err})"))?;
    let state = value.get("current_state").and_then(Value::as_object);
    let field = |name: &str| state.and_then(|s| s.get(name)).and_then(Value::as_str).unwrap_or_default().to_string();
    let brain = AgentBrain {
        evaluation_previous_goal: field("evaluation_previous_goal"),
        memory: field("memory"),
        next_goal: field("next_goal"),
    };
    let actions =
        value.get("action").and_then(Value::as_array).ok_or_else(|| "the reply has no \"action\" list".to_string())?;
    if actions.is_empty() {
        return Err("the \"action\" list is empty; give at least one action".into());
    }
    if actions.len() > MAX_ACTIONS_PER_STEP {
        return Err(format!(
            "the \"action\" list has {} actions; one step takes at most {MAX_ACTIONS_PER_STEP}: give at most {MAX_ACTIONS_PER_STEP} now and the rest at the next step, after seeing the page again",
            crate::text::thousands(actions.len())
        ));
    }
    let actions = actions
        .iter()
        .enumerate()
        .map(|(i, action)| Action::from_json(action).map_err(|err| format!("action {}: {err}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let answer = done_data(&value);
    Ok(NavigatorOutput { brain, actions, answer })
}

/// The `data` of the reply's `done` action, unless it is missing or null.
fn done_data(reply: &Value) -> Option<Value> {
    let actions = reply.get("action").and_then(Value::as_array)?;
    let (_, done) = actions.iter().filter_map(name_and_params).find(|(name, _)| *name == "done")?;
    done.get("data").filter(|data| !data.is_null()).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"current_state":{"evaluation_previous_goal":"Start","memory":"none","next_goal":"Open cart"},"action":[{"do":"click_element","index":3,"click":null}]}"#;

    #[test]
    fn reads_a_clean_reply() {
        let output = parse_navigator_output(GOOD).unwrap();
        assert_eq!(output.brain.next_goal, "Open cart");
        assert_eq!(output.actions, vec![Action::ClickElement { index: 3, click: crate::browser::Click::Single }]);
    }

    #[test]
    fn reads_the_keyed_form_of_browser_use_and_older_records_too() {
        let keyed = r#"{"current_state":{},"action":[{"click_element":{"index":3}},{"go_back":{}},{"done":{"text":"ok","success":true,"data":{"n":1}}}]}"#;
        let output = parse_navigator_output(keyed).unwrap();
        assert_eq!(
            output.actions,
            vec![
                Action::ClickElement { index: 3, click: crate::browser::Click::Single },
                Action::GoBack,
                Action::Done { text: "ok".into(), success: true }
            ]
        );
        assert_eq!(output.answer, Some(serde_json::json!({"n": 1})));
    }

    #[test]
    fn an_action_whose_name_does_not_fit_its_parameters_is_refused_saying_which_actions_take_them() {
        let reply = |action: &str| parse_navigator_output(&format!(r#"{{"current_state":{{}},"action":[{action}]}}"#));
        assert_eq!(
            reply(r#"{"do":"go_forward","url":"https://shop.test/"}"#).unwrap_err(),
            "action 1: go_forward takes no parameter \"url\"; go_to_url, open_tab take it: say in \"do\" the action you mean"
        );
        assert_eq!(
            reply(r#"{"do":"jump","index":3}"#).unwrap_err(),
            format!(
                "action 1: unknown action \"jump\"; the available actions are {}",
                crate::actions::catalog::ACTION_NAMES.join(", ")
            )
        );
        assert!(reply(r#"{"do":3}"#)
            .unwrap_err()
            .starts_with(r#"action 1: each action must be an object naming the action in "do""#));
        // What a strict schema makes the model write: each parameter of its variant, null when left out.
        assert_eq!(reply(r#"{"do":"go_forward"}"#).unwrap().actions, vec![Action::GoForward]);
        assert_eq!(
            reply(r#"{"do":"done","text":"Two mugs","success":true,"data":{"n":2}}"#).unwrap().answer,
            Some(serde_json::json!({"n": 2}))
        );
    }

    #[test]
    fn reads_through_fences_prose_and_reasoning() {
        let wrapped = format!("<think>{{not this}}</think>Sure! Here it is:\n```json\n{GOOD}\n```\nGood luck.");
        assert_eq!(parse_navigator_output(&wrapped).unwrap().actions.len(), 1);
    }

    #[test]
    fn reads_near_json_and_cut_off_replies() {
        let sloppy = "{current_state: {next_goal: 'Open cart',}, action: [{do: 'click_element', 'index': 3},],}";
        assert_eq!(
            parse_navigator_output(sloppy).unwrap().actions,
            vec![Action::ClickElement { index: 3, click: crate::browser::Click::Single }]
        );
        let cut = r#"{"current_state":{"next_goal":"x"},"action":[{"do":"click_element","index":3}"#;
        assert_eq!(
            parse_navigator_output(cut).unwrap().actions,
            vec![Action::ClickElement { index: 3, click: crate::browser::Click::Single }]
        );
    }

    #[test]
    fn says_precisely_what_is_wrong() {
        assert_eq!(parse_navigator_output("I will click the button").unwrap_err(), "the reply contains no JSON object");
        assert!(parse_navigator_output("{oops: }}").unwrap_err().starts_with("the reply is not valid JSON"));
        assert!(parse_navigator_output(r#"{"current_state":{}}"#).unwrap_err().contains("no \"action\" list"));
        assert!(parse_navigator_output(r#"{"action":[]}"#).unwrap_err().contains("empty"));
        assert!(parse_navigator_output(r#"{"action":[{"do":"done","text":"x"},{"do":"jump"}]}"#)
            .unwrap_err()
            .starts_with("action 2: unknown action"));
    }

    #[test]
    fn a_reply_with_more_actions_than_a_step_takes_is_refused_saying_how_many_it_may_have() {
        let reply = |count: usize| {
            let actions = vec![r#"{"do":"scroll","direction":"down"}"#; count].join(",");
            format!(r#"{{"current_state":{{}},"action":[{actions}]}}"#)
        };
        assert_eq!(parse_navigator_output(&reply(MAX_ACTIONS_PER_STEP)).unwrap().actions.len(), MAX_ACTIONS_PER_STEP);
        let error = parse_navigator_output(&reply(1_000)).unwrap_err();
        assert_eq!(
            error,
            "the \"action\" list has 1,000 actions; one step takes at most 20: give at most 20 now and the rest at the next step, after seeing the page again"
        );
        // A bad action among them is not what is reported: the count is checked first.
        let error = parse_navigator_output(&reply(MAX_ACTIONS_PER_STEP + 1).replace("down", "sideways")).unwrap_err();
        assert!(error.contains("has 21 actions"), "{error}");
    }
}
