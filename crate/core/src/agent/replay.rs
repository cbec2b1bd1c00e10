//! Replay: a recorded run's actions, run again without asking the model, each element found
//! again by its fingerprint. Where the page changed (an element is gone), and for the final
//! answer (which must describe the page as it is now), the model decides that step, told what
//! the recorded run did there.

use super::output::{AgentBrain, NavigatorOutput};
use super::record::{PlannedAction, REPLAYED};
use crate::actions::{name_and_params, Action};
use crate::dom_map::PageMap;
use serde_json::Value;

/// The steps of a recorded run, in order.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Replay {
    /// The task the run carried out.
    pub task: String,
    /// Where the run started, when it was a web page.
    pub start_url: Option<String>,
    steps: Vec<Vec<PlannedAction>>,
}

/// Where an action's parameter holds something the user gave: typed text, a chosen option, an
/// address, a search.
const INPUT_FIELDS: &[(&str, &str)] = &[
    ("input_text", "text"),
    ("select_option", "text"),
    ("go_to_url", "url"),
    ("open_tab", "url"),
    ("search", "query"),
];

/// One literal input of a recorded run, with what it went into.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    pub value: String,
    /// The element's description (`<input> "Filter" [3]`), or the parameter's name.
    pub label: String,
}

/// How a recorded step goes on the page as it is now.
#[derive(Debug, Clone, PartialEq)]
pub enum Replayed {
    /// Its actions, bound to the current page's elements.
    Actions(NavigatorOutput),
    /// The model decides this step; the text tells it why and what the recorded run did.
    AskModel(String),
}

impl Replay {
    /// The replayable steps of a run record (see `record::RunRecord`); steps that decided
    /// nothing (an unusable reply) are left out.
    pub fn from_record(record: &Value) -> Result<Replay, String> {
        let steps = record["steps"].as_array().ok_or("the record has no steps")?;
        let start_url = steps
            .first()
            .and_then(|step| step["url"].as_str())
            .filter(|url| url.starts_with("http://") || url.starts_with("https://"))
            .map(str::to_string);
        let task = record["task"].as_str().unwrap_or_default().to_string();
        let steps: Vec<Vec<PlannedAction>> = steps
            .iter()
            .map(|step| serde_json::from_value(step["planned"].clone()).map_err(|err| err.to_string()))
            .collect::<Result<_, _>>()
            .map_err(|err| format!("the record's steps are unreadable ({err})"))?;
        let steps: Vec<_> = steps.into_iter().filter(|actions| !actions.is_empty()).collect();
        if steps.is_empty() {
            return Err("the record has no actions to replay".into());
        }
        Ok(Replay { task, start_url, steps })
    }

    /// The literal inputs of the recorded actions, in order.
    pub fn literals(&self) -> Vec<Literal> {
        let mut found = Vec::new();
        for recorded in self.steps.iter().flatten() {
            let Some((name, params)) = name_and_params(&recorded.action) else { continue };
            for &(_, field) in INPUT_FIELDS.iter().filter(|(action, _)| *action == name) {
                if let Some(value) = params[field].as_str() {
                    let label = recorded.element.as_ref().map_or_else(|| field.to_string(), |e| e.description.clone());
                    found.push(Literal { value: value.to_string(), label });
                }
            }
        }
        found
    }

    /// The same run for `task`, each literal input equal to a `replacements` key given its value.
    pub fn with_inputs(&self, task: &str, replacements: &[(&str, &str)]) -> Replay {
        let mut replay = Replay { task: task.to_string(), ..self.clone() };
        for recorded in replay.steps.iter_mut().flatten() {
            // Rewritten in the form the model writes, whichever form the record holds; an action
            // that cannot be read is left for the model, as it is.
            let Ok(action) = Action::from_json(&recorded.action) else { continue };
            let mut written = action.to_json();
            for &(_, field) in INPUT_FIELDS.iter().filter(|(name, _)| *name == action.name()) {
                let old = written[field].as_str().unwrap_or_default().to_string();
                if let Some((_, new)) = replacements.iter().find(|(from, _)| *from == old.as_str()) {
                    written[field] = Value::from(*new);
                }
            }
            recorded.action = written;
        }
        replay
    }

    /// The recorded steps, each with its actions.
    pub fn steps(&self) -> &[Vec<PlannedAction>] {
        &self.steps
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Recorded step `i` (from 0) on `map`, the page as it is now.
    pub fn step(&self, i: usize, map: Option<&PageMap>) -> Option<Replayed> {
        let planned = self.steps.get(i)?;
        let told = describe(planned);
        let ask = |why: String| {
            Replayed::AskModel(format!(
                "You are replaying a recorded run of this task. At this point the recorded run did: {told}. {why} Decide this step yourself from the current page."
            ))
        };
        let mut actions = Vec::with_capacity(planned.len());
        for recorded in planned {
            let action = match Action::from_json(&recorded.action) {
                Ok(action) => action,
                Err(err) => return Some(ask(format!("That action could not be read again ({err})."))),
            };
            // Only the dragged element is recorded: where it was dropped cannot be found again.
            if let Action::Drag { to: Some(to), .. } = action {
                return Some(ask(format!(
                    "The element it was dropped on, [{to}] then, was not recorded, so it cannot be found on the page as it is now."
                )));
            }
            if matches!(action, Action::Done { .. }) {
                return Some(ask(
                    "It finished there: check the page as it is now and give the user the answer with done.".into(),
                ));
            }
            match bind(action, recorded.element.as_ref().map(|e| e.fingerprint.as_str()), map) {
                Ok(bound) => actions.push(bound),
                Err(why) => return Some(ask(why)),
            }
        }
        Some(Replayed::Actions(NavigatorOutput {
            brain: AgentBrain {
                evaluation_previous_goal: REPLAYED.into(),
                memory: String::new(),
                next_goal: format!("Replay step {} of the recorded run: {told}", i + 1),
            },
            actions,
            answer: None,
        }))
    }
}

/// The recorded action with its element's index on the current page, found by fingerprint (the
/// same index when it still holds the element, else the first element with that fingerprint).
fn bind(action: Action, fingerprint: Option<&str>, map: Option<&PageMap>) -> Result<Action, String> {
    let (Some(index), Some(fingerprint)) = (action.index(), fingerprint) else { return Ok(action) };
    let map = map.ok_or("The page cannot be read now.")?;
    let matches = |element: &&crate::dom_map::MapElement| format!("{:016x}", element.fingerprint) == fingerprint;
    let found = map
        .element(index)
        .filter(matches)
        .or_else(|| map.elements().find(matches))
        .ok_or_else(|| "The page changed: that element is no longer on it.".to_string())?;
    let mut rebound = action.to_json();
    rebound["index"] = Value::from(found.index);
    Action::from_json(&rebound).map_err(|err| format!("That action could not be read again ({err})."))
}

fn describe(planned: &[PlannedAction]) -> String {
    planned
        .iter()
        .map(|recorded| match &recorded.element {
            Some(element) => format!("{} on {}", recorded.action, element.description),
            None => recorded.action.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", then ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom_map::tests::{node, page};
    use crate::dom_map::{ElementRegistry, RawFrame};
    use serde_json::json;

    fn map_of(buttons: &[&str]) -> PageMap {
        let mut nodes = vec![node(0, None, "body", "")];
        for (i, text) in buttons.iter().enumerate() {
            nodes.push(node(i as u32 + 1, Some(0), "button", text));
        }
        let frame = RawFrame { frame_id: 0, page: Ok(page(nodes)) };
        PageMap::build(&[frame], &mut ElementRegistry::new()).unwrap()
    }

    fn record_of(map: &PageMap, steps: &[Vec<Value>]) -> Value {
        let steps: Vec<Value> = steps
            .iter()
            .map(|actions| {
                let planned: Vec<Value> = actions
                    .iter()
                    .map(|action| {
                        let action = Action::from_json(action).unwrap();
                        let element =
                            action.index().and_then(|i| map.element(i)).map(super::super::record::ElementPrint::of);
                        json!({"action": action.to_json(), "element": element})
                    })
                    .collect();
                json!({"planned": planned})
            })
            .collect();
        json!({"task": "t", "steps": steps})
    }

    #[test]
    fn elements_are_found_again_by_fingerprint_even_at_another_index() {
        let then = map_of(&["Mugs", "Add Blue mug"]);
        let add = then.elements().find(|e| e.text == "Add Blue mug").unwrap().index;
        let record = record_of(
            &then,
            &[vec![json!({"click_element": {"index": add}})], vec![json!({"done": {"text": "ok", "success": true}})]],
        );
        let replay = Replay::from_record(&record).unwrap();
        assert_eq!(replay.len(), 2);

        // The same page: the same element.
        let Some(Replayed::Actions(output)) = replay.step(0, Some(&then)) else { panic!() };
        assert_eq!(output.actions, vec![Action::ClickElement { index: add, click: crate::browser::Click::Single }]);
        assert!(output.brain.next_goal.contains("<button> \"Add Blue mug\""));

        // A page with more before it: the element moved, and is found by what it is.
        let now = map_of(&["Sale!", "Mugs", "Add Blue mug"]);
        let moved = now.elements().find(|e| e.text == "Add Blue mug").unwrap().index;
        let Some(Replayed::Actions(output)) = replay.step(0, Some(&now)) else { panic!() };
        assert_eq!(output.actions, vec![Action::ClickElement { index: moved, click: crate::browser::Click::Single }]);

        // Gone: the model decides, told what the recorded run did.
        let Some(Replayed::AskModel(note)) = replay.step(0, Some(&map_of(&["Mugs"]))) else { panic!() };
        assert!(note.contains("Add Blue mug") && note.contains("no longer on it"), "{note}");

        // The final answer is always the model's, from the page as it is now.
        let Some(Replayed::AskModel(note)) = replay.step(1, Some(&now)) else { panic!() };
        assert!(note.contains("give the user the answer with done"), "{note}");
        assert_eq!(replay.step(2, Some(&now)), None);
    }

    #[test]
    fn tabs_are_replayed_by_their_names_and_an_old_record_s_tab_ids_go_to_the_model() {
        let switch = json!({"steps": [{"planned": [{"action": {"switch_tab": {"tab": "t2"}}, "element": null}]}]});
        let Some(Replayed::Actions(output)) = Replay::from_record(&switch).unwrap().step(0, None) else { panic!() };
        assert_eq!(output.actions, vec![Action::SwitchTab { tab: crate::tabs::TabAlias(2) }]);
        // A record from before tabs had names holds a browser tab id, which means nothing now.
        let old = json!({"steps": [{"planned": [{"action": {"switch_tab": {"tab_id": 123456789}}, "element": null}]}]});
        let Some(Replayed::AskModel(note)) = Replay::from_record(&old).unwrap().step(0, None) else { panic!() };
        assert!(note.contains("could not be read again"), "{note}");
    }

    #[test]
    fn a_drop_onto_an_element_goes_to_the_model_and_a_drag_by_an_offset_is_replayed() {
        let drag = |to: Value| json!({"steps": [{"planned": [{"action": {"drag": {"index": 3, "to": to, "dx": 0, "dy": 40}}, "element": null}]}]});
        let Some(Replayed::AskModel(note)) = Replay::from_record(&drag(json!(5))).unwrap().step(0, None) else {
            panic!()
        };
        assert!(note.contains("dropped on, [5] then, was not recorded"), "{note}");
        let Some(Replayed::Actions(output)) = Replay::from_record(&drag(Value::Null)).unwrap().step(0, None) else {
            panic!()
        };
        assert_eq!(output.actions, vec![Action::Drag { index: 3, to: None, dx: 0.0, dy: 40.0 }]);
    }

    #[test]
    fn a_record_without_actions_cannot_be_replayed() {
        assert!(Replay::from_record(&json!({"steps": [{"planned": []}]})).is_err());
        assert!(Replay::from_record(&json!({"nothing": 1})).is_err());
        let go =
            json!({"steps": [{"planned": [{"action": {"go_to_url": {"url": "https://a.test/"}}, "element": null}]}]});
        let replay = Replay::from_record(&go).unwrap();
        let Some(Replayed::Actions(output)) = replay.step(0, None) else { panic!() };
        assert_eq!(output.actions, vec![Action::GoToUrl { url: "https://a.test/".into() }]);
    }
}
