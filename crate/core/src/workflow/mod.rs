//! Workflows: a run that worked, kept to run again with new inputs.
//!
//! A workflow is a recorded run ([`Replay`]) whose literal inputs (text typed, options chosen,
//! addresses opened, searches) are named parameters. Run with new values, the recorded steps run
//! again without the model where the page still matches; the model decides only where it changed,
//! and gives the final answer from the page as it is then. The core proposes the parameters from
//! the run; the user may rename or drop them before saving.
//!
//! A stored workflow is JSON read back through [`Workflow::from_json`], which checks it whole:
//! imported files and old stores are untrusted input.

mod playwright;
mod schedule;

pub use playwright::playwright_script;
pub use schedule::{set_schedule, Alarm, LocalZone, Repeat, Schedule};

use crate::agent::Replay;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The format of a stored or exported workflow.
pub const FORMAT: &str = "browser-agent-workflow/1";
/// At most this many workflows are kept (a user's own, so none is dropped to make room).
pub const MAX_WORKFLOWS: usize = 50;
const MAX_PARAMS: usize = 20;
const MAX_STEPS: usize = 100;
const MAX_NAME_CHARS: usize = 80;
const MAX_PARAM_NAME_CHARS: usize = 32;
const MAX_VALUE_CHARS: usize = 2000;

/// One named input of a workflow, with the value the recorded run used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workflow {
    pub format: String,
    pub name: String,
    /// The task, each parameter's value written `{name}` where the task mentions it.
    pub task: String,
    pub params: Vec<Param>,
    pub replay: Replay,
}

impl Workflow {
    /// A workflow from a successful run's record, with a parameter for each distinct literal
    /// input the run gave (secrets excepted: they stay placeholders).
    pub fn propose(record: &Value) -> Result<Workflow, String> {
        let outcome = &record["outcome"];
        if outcome["type"] != "result" || outcome["success"] != true {
            return Err("only a run that succeeded can become a workflow".into());
        }
        let replay = Replay::from_record(record)?;
        let mut params: Vec<Param> = Vec::new();
        for literal in replay.literals() {
            if literal.value.trim().is_empty()
                || literal.value.contains("<secret>")
                || params.iter().any(|param| param.value == literal.value)
            {
                continue;
            }
            let name = unique_name(&param_name(&literal.label), &params);
            params.push(Param { name, value: literal.value.clone() });
            if params.len() == MAX_PARAMS {
                break;
            }
        }
        let task = params
            .iter()
            .fold(replay.task.clone(), |task, param| task.replacen(&param.value, &format!("{{{}}}", param.name), 1));
        let name = crate::text::truncate_words(&replay.task, MAX_NAME_CHARS);
        Ok(Workflow { format: FORMAT.into(), name, task, params, replay })
    }

    /// Reads a stored or imported workflow, checking every field and bound.
    pub fn from_json(value: &Value) -> Result<Workflow, String> {
        let workflow: Workflow =
            serde_json::from_value(value.clone()).map_err(|err| format!("this is not a workflow ({err})"))?;
        workflow.check()?;
        Ok(workflow)
    }

    fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("the workflow's format \"{}\" is not {FORMAT}", self.format));
        }
        if self.name.trim().is_empty() || self.name.chars().count() > MAX_NAME_CHARS {
            return Err(format!("a workflow needs a name of at most {MAX_NAME_CHARS} characters"));
        }
        if self.replay.is_empty() || self.replay.len() > MAX_STEPS {
            return Err(format!("a workflow has between 1 and {MAX_STEPS} steps, not {}", self.replay.len()));
        }
        if self.params.len() > MAX_PARAMS {
            return Err(format!("a workflow has at most {MAX_PARAMS} parameters, not {}", self.params.len()));
        }
        for (i, param) in self.params.iter().enumerate() {
            if !is_param_name(&param.name) {
                return Err(format!(
                    "the parameter name \"{}\" is not usable: use at most {MAX_PARAM_NAME_CHARS} lowercase letters, digits and _ starting with a letter",
                    param.name
                ));
            }
            if self.params[..i].iter().any(|other| other.name == param.name) {
                return Err(format!("the parameter name \"{}\" is used twice", param.name));
            }
            if param.value.chars().count() > MAX_VALUE_CHARS {
                return Err(format!("the value of \"{}\" is longer than {MAX_VALUE_CHARS} characters", param.name));
            }
        }
        Ok(())
    }

    /// Renames or drops parameters: `names` holds, per parameter, its new name or `None` to drop
    /// it (its recorded value is then used as it was).
    pub fn rename(mut self, names: &[Option<String>]) -> Result<Workflow, String> {
        if names.len() != self.params.len() {
            return Err(format!("expected {} parameter names, got {}", self.params.len(), names.len()));
        }
        let mut kept = Vec::new();
        for (param, name) in self.params.into_iter().zip(names) {
            let placeholder = format!("{{{}}}", param.name);
            match name {
                Some(name) => {
                    self.task = self.task.replace(&placeholder, &format!("{{{name}}}"));
                    kept.push(Param { name: name.clone(), ..param });
                }
                None => self.task = self.task.replace(&placeholder, &param.value),
            }
        }
        self.params = kept;
        self.check()?;
        Ok(self)
    }

    /// The run to make with `values` (by parameter name; a parameter left out keeps its recorded
    /// value): the task and every recorded input carry the new values.
    pub fn instantiate<'a>(&'a self, values: &'a [(String, String)]) -> Result<Replay, String> {
        for (name, value) in values {
            if !self.params.iter().any(|param| &param.name == name) {
                let known: Vec<&str> = self.params.iter().map(|param| param.name.as_str()).collect();
                return Err(format!("the workflow has no parameter \"{name}\" (it has: {})", known.join(", ")));
            }
            if value.chars().count() > MAX_VALUE_CHARS {
                return Err(format!("the value of \"{name}\" is longer than {MAX_VALUE_CHARS} characters"));
            }
        }
        let value_of = |param: &'a Param| -> &'a str {
            values.iter().find(|(name, _)| name == &param.name).map_or(param.value.as_str(), |(_, value)| value)
        };
        let task = self
            .params
            .iter()
            .fold(self.task.clone(), |task, param| task.replace(&format!("{{{}}}", param.name), value_of(param)));
        let replacements: Vec<(&str, &str)> =
            self.params.iter().map(|param| (param.value.as_str(), value_of(param))).collect();
        Ok(self.replay.with_inputs(&task, &replacements))
    }
}

/// The run a stored workflow makes with `values` (by parameter name).
pub fn run_with(workflow: &Value, values: &BTreeMap<String, String>) -> Result<Replay, String> {
    let values: Vec<(String, String)> = values.iter().map(|(name, value)| (name.clone(), value.clone())).collect();
    Workflow::from_json(workflow)?.instantiate(&values)
}

/// The stored workflows (`stored`, as kept) with `workflow` added under `name`, its parameters
/// renamed or dropped by `names` when given (see [`Workflow::rename`]): everything checked, the
/// bound kept.
pub fn save(
    stored: &[Value],
    workflow: &Value,
    name: &str,
    names: Option<&[Option<String>]>,
) -> Result<Vec<Workflow>, String> {
    let mut kept = stored
        .iter()
        .map(|stored| Workflow::from_json(stored).map_err(|err| format!("a stored workflow is damaged ({err})")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut workflow = Workflow::from_json(workflow)?;
    workflow.name = name.trim().to_string();
    let workflow = match names {
        Some(names) => workflow.rename(names)?,
        None => {
            workflow.check()?;
            workflow
        }
    };
    add(&mut kept, workflow)?;
    Ok(kept)
}

/// Adds `workflow` to the stored ones, refusing past [`MAX_WORKFLOWS`] and a name taken (a
/// schedule names its workflow).
pub fn add(stored: &mut Vec<Workflow>, workflow: Workflow) -> Result<(), String> {
    if stored.len() >= MAX_WORKFLOWS {
        return Err(format!("at most {MAX_WORKFLOWS} workflows can be kept: delete one first"));
    }
    if stored.iter().any(|kept| kept.name == workflow.name) {
        return Err(format!("a workflow named \"{}\" is already kept: choose another name", workflow.name));
    }
    stored.push(workflow);
    Ok(())
}

/// A name usable as is in a script too: a lowercase letter, then letters, digits and `_`.
fn is_param_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.len() <= MAX_PARAM_NAME_CHARS
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// A parameter name from what labels an input: `<input> "Filter mugs" [3]` gives `filter_mugs`.
fn param_name(label: &str) -> String {
    let quoted = label.split('"').nth(1).unwrap_or(label);
    let words: Vec<String> = quoted
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| word.to_lowercase().chars().filter(char::is_ascii_alphanumeric).collect::<String>())
        .filter(|word| !word.is_empty())
        .take(3)
        .collect();
    let name = match words.join("_") {
        name if name.is_empty() => return "value".into(),
        name if name.starts_with(|c: char| c.is_ascii_lowercase()) => name,
        name => format!("value_{name}"),
    };
    name.chars().take(MAX_PARAM_NAME_CHARS - 3).collect()
}

fn unique_name(base: &str, taken: &[Param]) -> String {
    (1..)
        .map(|n| if n == 1 { base.to_string() } else { format!("{base}_{n}") })
        .find(|name| !taken.iter().any(|param| &param.name == name))
        .expect("an unused name")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The shop run: open the mugs page, filter for blue, add the blue mug, answer.
    fn shop_record() -> Value {
        let step = |url: &str, actions: Value| json!({"url": url, "planned": actions});
        json!({
            "task": "add the blue mug to the cart, then tell me the cart total",
            "outcome": {"type": "result", "success": true, "text": "The total is $14.50", "steps": 4},
            "steps": [
                step("http://shop.test/", json!([{"action": {"go_to_url": {"url": "http://shop.test/mugs.html"}}, "element": null}])),
                step("http://shop.test/mugs.html", json!([{"action": {"input_text": {"index": 3, "text": "blue"}},
                    "element": {"fingerprint": "00000000000000aa", "description": "<input> \"Filter mugs\" [3]",
                        "parts": {"tag": "input", "attrs": {"placeholder": "Filter mugs", "type": "search"}, "label": "Filter"}}}])),
                step("http://shop.test/mugs.html", json!([{"action": {"click_element": {"index": 7}},
                    "element": {"fingerprint": "00000000000000bb", "description": "<button> \"Add Blue mug to cart\" [7]",
                        "parts": {"tag": "button", "attrs": {"aria-label": "Add Blue mug to cart"}, "text": "Add to cart"}}}])),
                step("http://shop.test/mugs.html", json!([{"action": {"done": {"text": "The total is $14.50", "success": true}}, "element": null}])),
            ]
        })
    }

    #[test]
    fn proposes_a_parameter_for_each_literal_input_named_by_its_field() {
        let workflow = Workflow::propose(&shop_record()).unwrap();
        assert_eq!(
            workflow.params,
            vec![
                Param { name: "url".into(), value: "http://shop.test/mugs.html".into() },
                Param { name: "filter_mugs".into(), value: "blue".into() },
            ]
        );
        assert_eq!(workflow.task, "add the {filter_mugs} mug to the cart, then tell me the cart total");
        assert_eq!(workflow.replay.len(), 4);
        assert_eq!(Workflow::from_json(&serde_json::to_value(&workflow).unwrap()), Ok(workflow));
    }

    #[test]
    fn a_failed_run_secrets_and_repeated_values_make_no_parameters() {
        let mut failed = shop_record();
        failed["outcome"]["success"] = json!(false);
        assert!(Workflow::propose(&failed).unwrap_err().contains("succeeded"));
        let mut record = shop_record();
        record["steps"][1]["planned"][0]["action"]["input_text"]["text"] = json!("<secret>pin</secret>");
        record["steps"][2]["planned"] =
            json!([{"action": {"input_text": {"index": 4, "text": "http://shop.test/mugs.html"}}, "element": null}]);
        let names: Vec<String> = Workflow::propose(&record).unwrap().params.into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["url"]);
    }

    #[test]
    fn runs_again_with_new_values_in_the_task_and_the_inputs() {
        let workflow = Workflow::propose(&shop_record()).unwrap();
        let replay = workflow.instantiate(&[("filter_mugs".into(), "red".into())]).unwrap();
        assert_eq!(replay.task, "add the red mug to the cart, then tell me the cart total");
        let typed: Vec<String> = replay.literals().into_iter().map(|literal| literal.value).collect();
        assert_eq!(typed, ["http://shop.test/mugs.html", "red"]);
        let unknown = workflow.instantiate(&[("colour".into(), "red".into())]).unwrap_err();
        assert_eq!(unknown, "the workflow has no parameter \"colour\" (it has: url, filter_mugs)");
    }

    #[test]
    fn renamed_and_dropped_parameters_update_the_task() {
        let workflow = Workflow::propose(&shop_record()).unwrap();
        let renamed = workflow.clone().rename(&[None, Some("colour".into())]).unwrap();
        assert_eq!(renamed.params, vec![Param { name: "colour".into(), value: "blue".into() }]);
        assert_eq!(renamed.task, "add the {colour} mug to the cart, then tell me the cart total");
        assert!(workflow.clone().rename(&[None, Some("Colour!".into())]).unwrap_err().contains("not usable"));
        assert!(workflow.clone().rename(&[Some("a".into()), Some("a".into())]).unwrap_err().contains("used twice"));
        assert!(workflow.rename(&[None]).unwrap_err().contains("expected 2"));
    }

    #[test]
    fn saving_checks_the_store_the_name_and_the_parameters() {
        let workflow = serde_json::to_value(Workflow::propose(&shop_record()).unwrap()).unwrap();
        let names = [None, Some("colour".to_string())];
        let saved = save(&[], &workflow, " Buy a mug ", Some(&names)).unwrap();
        assert_eq!(
            (saved[0].name.as_str(), saved[0].task.as_str()),
            ("Buy a mug", "add the {colour} mug to the cart, then tell me the cart total")
        );
        let stored = serde_json::to_value(&saved).unwrap();
        let imported = save(stored.as_array().unwrap(), &workflow, "Imported", None).unwrap();
        assert_eq!(imported.len(), 2);
        assert_eq!(imported[1].params, Workflow::propose(&shop_record()).unwrap().params, "imported as it was");
        assert!(save(&[json!({"format": 1})], &workflow, "x", Some(&names))
            .unwrap_err()
            .starts_with("a stored workflow is damaged"));
        assert!(save(&[], &workflow, "  ", None).unwrap_err().contains("needs a name"));
    }

    #[test]
    fn a_workflow_becomes_a_playwright_script_with_its_parameters() {
        let script = playwright_script(&Workflow::propose(&shop_record()).unwrap());
        assert!(
            script.contains("const params = {\n  url: \"http://shop.test/mugs.html\",\n  filter_mugs: \"blue\",\n};\n")
        );
        let steps: Vec<&str> =
            script.lines().filter(|line| line.starts_with("  await") || line.starts_with("  //")).collect();
        assert_eq!(
            steps,
            [
                "  await page.goto(\"http://shop.test/\");",
                "  // Step 1",
                "  await page.goto(params.url);",
                "  // Step 2",
                "  await find(page, { tag: \"input\", attrs: { \"placeholder\": \"Filter mugs\", \"type\": \"search\" }, label: \"Filter\" }).fill(params.filter_mugs);",
                "  // Step 3",
                "  await find(page, { tag: \"button\", attrs: { \"aria-label\": `Add ${params.filter_mugs} mug to cart` }, text: \"Add to cart\" }).click();",
                "  // Step 4",
                "  // The agent answered here; the page's text follows.",
                "  await page.waitForLoadState();",
                "  await browser.close();",
            ]
        );
    }

    #[test]
    fn stored_workflows_are_checked_whole_and_bounded() {
        let workflow = Workflow::propose(&shop_record()).unwrap();
        let stored = serde_json::to_value(&workflow).unwrap();
        let broken = |field: &str, value: Value| {
            let mut copy = stored.clone();
            copy[field] = value;
            Workflow::from_json(&copy).unwrap_err()
        };
        assert!(broken("format", json!("other/1")).contains("format"));
        assert!(broken("name", json!("")).contains("name"));
        assert!(broken("params", json!([{"name": "x y", "value": "1"}])).contains("not usable"));
        assert!(broken("params", json!("none")).starts_with("this is not a workflow"));
        assert!(broken("params", json!([{"name": "v", "value": "x".repeat(MAX_VALUE_CHARS + 1)}])).contains("longer"));
        let mut kept = Vec::new();
        for n in 0..MAX_WORKFLOWS {
            add(&mut kept, Workflow { name: format!("buy {n}"), ..workflow.clone() }).unwrap();
        }
        assert!(add(&mut kept, workflow.clone()).unwrap_err().contains("delete one first"));
        kept.pop();
        let taken = add(&mut kept, Workflow { name: "buy 3".into(), ..workflow }).unwrap_err();
        assert_eq!(taken, "a workflow named \"buy 3\" is already kept: choose another name");
    }
}
