//! The record of a run: for each step, the URL, what the agents decided (plan, evaluation, memory,
//! next goal, verdict), the actions and their results, the tokens each agent used, the time spent
//! in each phase and the cost. Exported as JSON, with every secret value redacted.

use super::events::{ActionReport, AgentEvent};
use crate::actions::Action;
use crate::dom_map::PageMap;
use crate::llm::pricing::{cost, Price};
use crate::llm::Usage;
use crate::messages::{RequestStyle, TokenSplit};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Who made a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Navigator,
    Planner,
    Validator,
    /// The summary of older steps.
    Memory,
    /// Answering an `extract` action from the page's content.
    Extraction,
    /// Whether the user's words asked for an act that changes something (`agent/critic.rs`).
    Critic,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub calls: u32,
}

/// Milliseconds spent in each phase of a step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timing {
    pub page_map_ms: f64,
    pub model_ms: f64,
    pub actions_ms: f64,
    /// The whole step: its checkpoint, the page map, the model, the actions and the waits for
    /// the page to settle (a pause is left out). What is not the model is the agent's own cost.
    pub step_ms: f64,
}

/// A phase of a step whose time is recorded (model calls are timed with their tokens).
#[derive(Debug, Clone, Copy)]
pub enum Phase {
    PageMap,
    Actions,
    /// The whole step.
    Step,
}

/// The evaluation a step run as recorded (by a replay) reports, instead of the model's.
pub const REPLAYED: &str = "Replayed";

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StepRecord {
    pub step: u32,
    pub url: Option<String>,
    pub plan: Option<Value>,
    pub evaluation: String,
    pub memory: String,
    pub next_goal: String,
    /// The actions as decided, each with the element it targets, for replay.
    pub planned: Vec<PlannedAction>,
    pub actions: Vec<ActionReport>,
    pub validation: Option<Value>,
    /// The summary of older steps made after this one.
    pub summary: Option<String>,
    pub warnings: Vec<String>,
    pub tokens: BTreeMap<Role, Tokens>,
    /// Each request's tokens as counted before it was sent, by what they carry.
    pub requests: Vec<RequestSize>,
    pub timing: Timing,
    /// Dollars, when the model's price is known.
    pub cost: Option<f64>,
}

/// One request's counted tokens and where they went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestSize {
    pub role: Role,
    /// Full or compact instructions.
    pub style: RequestStyle,
    pub tokens: usize,
    pub split: TokenSplit,
    /// What `tokens` is: the model's own encoding (`o200k`, `cl100k`) when counted exactly,
    /// otherwise `estimate`.
    pub counted: &'static str,
}

/// An action as the model gave it, with the element it targeted then.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct PlannedAction {
    pub action: Value,
    pub element: Option<ElementPrint>,
}

/// What identifies an element again on a later visit.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct ElementPrint {
    /// The element's fingerprint (tag, identifying attributes, text), in hex: JSON numbers
    /// cannot hold 64 bits.
    pub fingerprint: String,
    pub description: String,
    /// What the fingerprint was made of, as the map showed it: to find the element outside the
    /// agent (an exported script). Absent in records made before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<PrintParts>,
}

/// An element's tag, identifying attributes (those of its fingerprint that the page's markup
/// holds as shown: a link's `href` is left out, as the map resolves it), label and text. A value
/// cut short in the map ends with `…`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct PrintParts {
    pub tag: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attrs: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

impl ElementPrint {
    pub fn of(element: &crate::dom_map::MapElement) -> Self {
        let attr = |name: &str| element.attrs.iter().find(|(shown, _)| shown == name).map(|(_, value)| value.clone());
        let attrs = crate::dom_map::IDENTIFYING_ATTRS
            .into_iter()
            .filter(|&name| name != "href")
            .filter_map(|name| Some((name.to_string(), attr(name)?)))
            .collect();
        ElementPrint {
            fingerprint: format!("{:016x}", element.fingerprint),
            description: element.describe(),
            parts: Some(PrintParts {
                tag: element.tag.clone(),
                attrs,
                label: attr("label"),
                text: element.text.clone(),
            }),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    pub format: &'static str,
    pub task: String,
    /// The step an interrupted task was resumed at (the steps before it are not in this record).
    pub resumed_at_step: Option<u32>,
    pub steps: Vec<StepRecord>,
    /// How many steps ran as recorded, without a model call (a replay or a workflow).
    pub replayed_steps: usize,
    /// The final event: the result, the error or the stop.
    pub outcome: Value,
    /// The structured answer, when the task had an output schema and finished with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<Value>,
    pub tokens: BTreeMap<Role, Tokens>,
    pub cost: Option<f64>,
    /// The task's own time: what it spent waiting for the user at hand-overs is not in it.
    pub duration_ms: f64,
    /// The run's film among its chat's, when one was made (see `AgentEvent::FilmFrame`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub film: Option<String>,
    /// The time spent waiting for the user at hand-overs.
    #[serde(skip_serializing_if = "is_zero")]
    pub user_wait_ms: f64,
}

fn is_zero(ms: &f64) -> bool {
    *ms == 0.0
}

/// Builds the record as the task runs, from its events and the timings the loop reports.
#[derive(Default)]
pub struct Recorder {
    task: String,
    price: Option<Price>,
    started_ms: f64,
    resumed_at_step: Option<u32>,
    steps: Vec<StepRecord>,
    answer: Option<Value>,
    film: Option<String>,
    /// Time spent waiting for the user at hand-overs: in all, and not yet taken out of the
    /// current step's and its actions' times.
    waited_ms: f64,
    step_wait_ms: f64,
    actions_wait_ms: f64,
}

impl Recorder {
    pub fn new(task: &str, price: Option<Price>, started_ms: f64) -> Self {
        Recorder {
            task: task.to_string(),
            price,
            started_ms,
            resumed_at_step: None,
            steps: Vec::new(),
            answer: None,
            film: None,
            waited_ms: 0.0,
            step_wait_ms: 0.0,
            actions_wait_ms: 0.0,
        }
    }

    /// When the run (or its resumption) started, on the browser's clock.
    pub fn started_ms(&self) -> f64 {
        self.started_ms
    }

    /// The step under way (a step 0 collects what happens before the first).
    fn current(&mut self) -> &mut StepRecord {
        if self.steps.is_empty() {
            self.steps.push(StepRecord::default());
        }
        self.steps.last_mut().expect("a step exists")
    }

    /// Takes in what the task reports.
    pub fn event(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::TaskResumed { step, .. } => self.resumed_at_step = Some(*step),
            AgentEvent::StepStarted { step, .. } => {
                match self.steps.last_mut() {
                    // What came before the first step (a plan) belongs to it.
                    Some(first) if first.step == 0 => first.step = *step,
                    _ => self.steps.push(StepRecord { step: *step, ..StepRecord::default() }),
                }
            }
            AgentEvent::Plan { progress, challenges, next_steps, steps_done } => {
                self.current().plan = Some(serde_json::json!({
                    "progress": progress, "challenges": challenges, "next_steps": next_steps, "steps_done": steps_done
                }));
            }
            AgentEvent::Step { evaluation, memory, next_goal, actions, .. } => {
                let step = self.current();
                step.evaluation = evaluation.clone();
                step.memory = memory.clone();
                step.next_goal = next_goal.clone();
                step.actions.extend(actions.iter().cloned());
            }
            AgentEvent::Validation { valid, reason } => {
                self.current().validation = Some(serde_json::json!({"valid": valid, "reason": reason}));
            }
            AgentEvent::Memory { summary, .. } => self.current().summary = Some(summary.clone()),
            AgentEvent::Warning { message } => self.current().warnings.push(message.to_string()),
            AgentEvent::Answer { data } => self.answer = Some(data.clone()),
            AgentEvent::FilmFrame { film, .. } => self.film = Some(film.clone()),
            _ => {}
        }
    }

    /// The step's actions as decided, with the elements they target on `map`.
    pub fn planned(&mut self, actions: &[Action], map: Option<&PageMap>) {
        self.current().planned = actions
            .iter()
            .map(|action| PlannedAction {
                action: action.to_json(),
                element: action.index().and_then(|index| map?.element(index)).map(ElementPrint::of),
            })
            .collect();
    }

    pub fn url(&mut self, url: &str) {
        self.current().url = Some(url.to_string());
    }

    pub fn phase(&mut self, phase: Phase, milliseconds: f64) {
        let waited = match phase {
            Phase::PageMap => 0.0,
            Phase::Actions => std::mem::take(&mut self.actions_wait_ms),
            Phase::Step => {
                self.actions_wait_ms = 0.0;
                std::mem::take(&mut self.step_wait_ms)
            }
        };
        let timing = &mut self.current().timing;
        let milliseconds = milliseconds - waited;
        match phase {
            Phase::PageMap => timing.page_map_ms += milliseconds,
            Phase::Actions => timing.actions_ms += milliseconds,
            Phase::Step => timing.step_ms += milliseconds,
        }
    }

    /// The task waited `milliseconds` for the user (during an action, or before the step's
    /// decision): the user's time is not the task's, nor the step's.
    pub fn user_waited(&mut self, milliseconds: f64, during_action: bool) {
        self.waited_ms += milliseconds;
        self.step_wait_ms += milliseconds;
        if during_action {
            self.actions_wait_ms += milliseconds;
        }
    }

    /// A request about to be sent, as counted (`counted`: what the count is, see [`RequestSize`]).
    pub fn request(&mut self, role: Role, style: RequestStyle, split: TokenSplit, counted: &'static str) {
        self.current().requests.push(RequestSize { role, style, tokens: split.total(), split, counted });
    }

    pub fn model_call(&mut self, role: Role, usage: Option<Usage>, milliseconds: f64) {
        let price = self.price;
        let step = self.current();
        step.timing.model_ms += milliseconds;
        let tokens = step.tokens.entry(role).or_default();
        tokens.calls += 1;
        if let Some(usage) = usage {
            tokens.input += usage.input_tokens;
            tokens.output += usage.output_tokens;
        }
        step.cost = price.map(|price| {
            let (input, output) = totals(&step.tokens);
            cost(price, input, output)
        });
    }

    pub fn finish(self, outcome: &AgentEvent, finished_ms: f64) -> RunRecord {
        let mut tokens: BTreeMap<Role, Tokens> = BTreeMap::new();
        for step in &self.steps {
            for (role, used) in &step.tokens {
                let sum = tokens.entry(*role).or_default();
                sum.input += used.input;
                sum.output += used.output;
                sum.calls += used.calls;
            }
        }
        let (input, output) = totals(&tokens);
        RunRecord {
            format: "browser-agent-run/1",
            task: self.task,
            resumed_at_step: self.resumed_at_step,
            replayed_steps: self.steps.iter().filter(|step| step.evaluation == REPLAYED).count(),
            steps: self.steps,
            outcome: serde_json::to_value(outcome).unwrap_or_default(),
            answer: self.answer,
            cost: self.price.map(|price| cost(price, input, output)),
            tokens,
            film: self.film,
            duration_ms: finished_ms - self.started_ms - self.waited_ms,
            user_wait_ms: self.waited_ms,
        }
    }
}

impl RunRecord {
    /// The run as a readable markdown report.
    pub fn report(&self) -> String {
        let mut out = format!("# Agent run: {}\n\n", self.task);
        let outcome = match self.outcome["type"].as_str() {
            Some("result") if self.outcome["success"] == true => {
                format!("**Done:** {}", self.outcome["text"].as_str().unwrap_or(""))
            }
            Some("result") => format!("**Not done:** {}", self.outcome["text"].as_str().unwrap_or("")),
            Some("error") => format!("**Error:** {}", self.outcome["message"].as_str().unwrap_or("")),
            _ => "**Stopped** by the user.".to_string(),
        };
        out.push_str(&outcome);
        let (input, output) = totals(&self.tokens);
        out.push_str(&format!(
            "\n\n{} steps · {:.1} s · {input} tokens in, {output} out{}\n",
            self.steps.len(),
            self.duration_ms / 1000.0,
            self.cost.map(|cost| format!(" · ${cost:.4}")).unwrap_or_default()
        ));
        if let Some(step) = self.resumed_at_step {
            out.push_str(&format!("\nResumed at step {step} after the extension's background worker restarted.\n"));
        }
        for step in &self.steps {
            out.push_str(&step.report());
        }
        out
    }
}

impl StepRecord {
    fn report(&self) -> String {
        let mut out = format!("\n## Step {}", self.step);
        if let Some(url) = &self.url {
            out.push_str(&format!(" · {url}"));
        }
        out.push_str("\n\n");
        if let Some(plan) = &self.plan {
            let steps: Vec<&str> =
                plan["next_steps"].as_array().into_iter().flatten().filter_map(|s| s.as_str()).collect();
            out.push_str(&format!("- Plan: {} Next: {}\n", plan["progress"].as_str().unwrap_or(""), steps.join("; ")));
        }
        for (label, text) in
            [("Evaluation", &self.evaluation), ("Memory", &self.memory), ("Next goal", &self.next_goal)]
        {
            if !text.is_empty() {
                out.push_str(&format!("- {label}: {text}\n"));
            }
        }
        for action in &self.actions {
            let mark = if action.ok { "✓" } else { "✗" };
            out.push_str(&format!("- {mark} {}: {}\n", action.name, action.outcome));
        }
        if let Some(validation) = &self.validation {
            let verdict = if validation["valid"] == true { "accepted" } else { "not accepted" };
            out.push_str(&format!("- Validator: {verdict}: {}\n", validation["reason"].as_str().unwrap_or("")));
        }
        if let Some(summary) = &self.summary {
            out.push_str(&format!("- Older steps summarised: {summary}\n"));
        }
        for warning in &self.warnings {
            out.push_str(&format!("- Warning: {warning}\n"));
        }
        let tokens: Vec<String> = self
            .tokens
            .iter()
            .map(|(role, used)| {
                format!(
                    "{} {}/{}",
                    serde_json::to_value(role).unwrap_or_default().as_str().unwrap_or(""),
                    used.input,
                    used.output
                )
            })
            .collect();
        out.push_str(&format!(
            "- Tokens (in/out): {} · Time: step {:.0} ms (page map {:.0} ms, model {:.0} ms, actions {:.0} ms){}\n",
            if tokens.is_empty() { "none".to_string() } else { tokens.join(", ") },
            self.timing.step_ms,
            self.timing.page_map_ms,
            self.timing.model_ms,
            self.timing.actions_ms,
            self.cost.map(|cost| format!(" · ${cost:.4}")).unwrap_or_default()
        ));
        out
    }
}

fn totals(tokens: &BTreeMap<Role, Tokens>) -> (u64, u64) {
    tokens.values().fold((0, 0), |(input, output), used| (input + used.input, output + used.output))
}

/// Every string in `value` passed through `redact`.
pub fn redact_strings(value: Value, redact: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::String(text) => Value::String(redact(&text)),
        Value::Array(items) => Value::Array(items.into_iter().map(|item| redact_strings(item, redact)).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(key, item)| (key, redact_strings(item, redact))).collect())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_collect_their_events_tokens_and_times() {
        let mut recorder = Recorder::new("buy a mug", Some(Price { input: 1.0, output: 2.0 }), 1_000.0);
        recorder.event(&AgentEvent::Plan {
            progress: "start".into(),
            challenges: "none".into(),
            next_steps: vec![],
            steps_done: 0,
        });
        recorder.event(&AgentEvent::StepStarted { step: 1, max_steps: 5 });
        recorder.url("http://shop/");
        recorder.phase(Phase::PageMap, 12.0);
        recorder.model_call(Role::Navigator, Some(Usage { input_tokens: 1_000, output_tokens: 100 }), 800.0);
        recorder.phase(Phase::Actions, 50.0);
        recorder.phase(Phase::Step, 870.0);
        recorder.event(&AgentEvent::StepStarted { step: 2, max_steps: 5 });
        recorder.model_call(Role::Navigator, Some(Usage { input_tokens: 2_000, output_tokens: 100 }), 700.0);
        recorder.model_call(Role::Validator, Some(Usage { input_tokens: 500, output_tokens: 50 }), 300.0);
        recorder.event(&AgentEvent::Validation { valid: true, reason: "shown".into() });
        let end = AgentEvent::Result { success: true, text: "done".into(), steps: 2 };
        let record = recorder.finish(&end, 4_000.0);
        assert_eq!(record.steps.len(), 2);
        let first = &record.steps[0];
        assert_eq!((first.step, first.url.as_deref()), (1, Some("http://shop/")));
        assert_eq!(first.plan.as_ref().unwrap()["progress"], "start");
        assert_eq!(first.timing, Timing { page_map_ms: 12.0, model_ms: 800.0, actions_ms: 50.0, step_ms: 870.0 });
        assert_eq!(first.cost, Some(0.0012));
        assert_eq!(record.steps[1].tokens[&Role::Validator], Tokens { input: 500, output: 50, calls: 1 });
        assert_eq!(record.tokens[&Role::Navigator], Tokens { input: 3_000, output: 200, calls: 2 });
        assert_eq!(record.outcome["type"], "result");
        assert_eq!(record.duration_ms, 3_000.0);
        let json = serde_json::to_value(&record).unwrap();
        assert_eq!(json["steps"][1]["tokens"]["validator"]["input"], 500);
        let report = record.report();
        assert!(
            report.starts_with(
                "# Agent run: buy a mug\n\n**Done:** done\n\n2 steps · 3.0 s · 3500 tokens in, 250 out · $0.0040\n"
            ),
            "{report}"
        );
        assert!(report.contains("\n## Step 1 · http://shop/\n\n- Plan: start Next: \n"), "{report}");
        assert!(
            report.contains(
                "- Tokens (in/out): navigator 1000/100 · Time: step 870 ms (page map 12 ms, model 800 ms, actions 50 ms) · $0.0012\n"
            ),
            "{report}"
        );
        assert!(report.contains("- Validator: accepted: shown\n"), "{report}");
    }

    #[test]
    fn an_elements_print_keeps_the_parts_of_its_fingerprint_shown_in_the_map() {
        use crate::dom_map::tests::{node, page, with_attrs};
        let body = node(0, None, "body", "");
        let label = node(1, Some(0), "label", "Filter");
        let filter = with_attrs(
            node(2, Some(1), "input", ""),
            &[("type", "search"), ("placeholder", "Filter mugs"), ("class", "wide"), ("title", "f")],
        );
        let add = with_attrs(node(3, Some(0), "button", "Add to cart"), &[("aria-label", "Add Blue mug to cart")]);
        let link = with_attrs(node(4, Some(0), "a", "Mugs"), &[("href", "/mugs")]);
        let map = PageMap::from_page(&page(vec![body, label, filter, add, link]));
        let parts = |text: &str| {
            let element = map.elements().find(|e| e.describe().contains(text)).unwrap();
            serde_json::to_value(ElementPrint::of(element).parts).unwrap()
        };
        assert_eq!(
            parts("Filter"),
            serde_json::json!({"tag": "input", "attrs": {"type": "search", "placeholder": "Filter mugs"}, "label": "Filter"})
        );
        assert_eq!(
            parts("Add Blue"),
            serde_json::json!({"tag": "button", "attrs": {"aria-label": "Add Blue mug to cart"}, "text": "Add to cart"})
        );
        assert_eq!(
            parts("Mugs"),
            serde_json::json!({"tag": "a", "text": "Mugs"}),
            "a link's href is the map's, resolved"
        );
    }

    #[test]
    fn redaction_reaches_every_string() {
        let value = serde_json::json!({"a": ["hunter2", {"b": "x hunter2 y"}], "n": 1});
        let redacted = redact_strings(value, &|text: &str| text.replace("hunter2", "<secret:pw>"));
        assert_eq!(redacted, serde_json::json!({"a": ["<secret:pw>", {"b": "x <secret:pw> y"}], "n": 1}));
    }
}
