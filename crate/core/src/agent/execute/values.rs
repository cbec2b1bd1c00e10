//! Controls that hold a number or more than one choice: bringing a slider, a range input or a
//! spinner to a number (`input_text` with a number), judged by the number the control then
//! shows; and what a multiple select holds after `select_option` added or took out an option.

use super::report::{quote_list, quoted, report, Done, Outcome};
use crate::agent::navigator::{Look, Navigator, StepError};
use crate::agent::task_config::UserGate;
use crate::browser::{parse_keys, Browser, Click, NumberState, OpOutcome, PageOp};
use crate::dom_map::MapElement;
use crate::llm::ChatModel;

/// How a control that holds a number takes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NumberControl {
    /// `<input type=range>`: its value is set.
    Range,
    /// A number field or spinner that is an input: typed into, then set, then stepped.
    Field,
    /// An ARIA slider or spinbutton that is no input (a thumb): stepped with the keys.
    Keyed,
}

impl NumberControl {
    pub(super) fn of(element: &MapElement) -> Option<NumberControl> {
        let attr = |name: &str| element.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        let numeric_role = matches!(attr("role"), Some("slider" | "spinbutton"));
        match (element.tag.as_str(), attr("type")) {
            ("input", Some("range")) => Some(NumberControl::Range),
            ("input", Some("number")) => Some(NumberControl::Field),
            ("input", _) if numeric_role => Some(NumberControl::Field),
            _ if numeric_role => Some(NumberControl::Keyed),
            _ => None,
        }
    }
}

/// The number a text asks for ("42", " -3.5 ", "1,000", "1,5" as a decimal comma); `None` when it
/// is not one.
pub(super) fn number_in(text: &str) -> Option<f64> {
    let plain: String = text.trim().chars().filter(|c| *c != '_' && !c.is_whitespace()).collect();
    // A comma groups thousands when three digits follow each one; otherwise it is a decimal comma.
    let groups =
        plain.split(',').skip(1).all(|group| group.len() >= 3 && group[..3].bytes().all(|b| b.is_ascii_digit()));
    let plain = if groups || plain.contains('.') { plain.replace(',', "") } else { plain.replacen(',', ".", 1) };
    plain.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// A number as a person writes it: 4, 2.5, -0.1 (no float noise such as 0.30000000000000004).
pub(super) fn shown(number: f64) -> String {
    let rounded = (number * 1e9).round() / 1e9;
    format!("{}", if rounded == 0.0 { 0.0 } else { rounded })
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// What one press of each key was seen to move the control, toward larger numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Learned {
    pub(super) arrow: Option<f64>,
    pub(super) page: Option<f64>,
}

impl Learned {
    /// Notes what `times` presses of `key` moved the control from `before` to `after`.
    fn note(&mut self, key: &str, times: u32, before: f64, after: f64) {
        let toward_larger = if key.ends_with("Up") { 1.0 } else { -1.0 };
        let each = (after - before) * toward_larger / f64::from(times.max(1));
        if key.starts_with("Arrow") {
            // A press clipped at a bound moves less than a step: the first full one counts.
            self.arrow = Some(self.arrow.map_or(each, |known| known.max(each)));
        } else {
            self.page = Some(each);
        }
    }
}

/// Past this many arrow presses, a page key is tried (they move by a tenth or so of the range).
const PAGE_AFTER: u32 = 20;
/// The most presses of one key in one operation, and the most operations, for one value.
const MAX_PRESSES: u32 = 200;
const MAX_ROUNDS: usize = 12;

/// The next presses that bring a control at `value` toward `wanted`, from what the keys were seen
/// to do: one arrow press first, to learn the step; page keys for a long way; `None` once the
/// control is as near as its step allows, or when the arrows do not move it.
pub(super) fn next_press(value: f64, wanted: f64, learned: Learned) -> Option<(&'static str, u32)> {
    let gap = wanted - value;
    if same(value, wanted) {
        return None;
    }
    let (arrow, page) = if gap > 0.0 { ("ArrowUp", "PageUp") } else { ("ArrowDown", "PageDown") };
    let Some(unit) = learned.arrow else { return Some((arrow, 1)) };
    if unit <= 0.0 || gap.abs() <= unit / 2.0 + 1e-9 {
        return None;
    }
    let presses = (gap.abs() / unit).round() as u32;
    if presses > PAGE_AFTER {
        match learned.page {
            None => return Some((page, 1)),
            Some(jump) if jump > unit && gap.abs() >= jump => {
                return Some((page, ((gap.abs() / jump).floor() as u32).min(MAX_PRESSES)));
            }
            _ => {}
        }
    }
    Some((arrow, presses.min(MAX_PRESSES)))
}

/// The bounds and step the page map shows of the control (`min`, `max`, `step`).
fn bounds_shown(element: &MapElement) -> NumberState {
    let number = |name: &str| element.attrs.iter().find(|(k, _)| k == name).and_then(|(_, v)| number_in(v));
    NumberState { value: None, min: number("min"), max: number("max"), step: number("step"), text: String::new() }
}

/// `wanted` within the control's bounds.
fn bounded(wanted: f64, state: &NumberState) -> f64 {
    let low = state.min.map_or(wanted, |min| wanted.max(min));
    state.max.map_or(low, |max| low.min(max))
}

/// " (from 0 to 100, in steps of 5)", as much of it as the control tells.
fn range_words(state: &NumberState, step: Option<f64>) -> String {
    let bounds = match (state.min, state.max) {
        (Some(min), Some(max)) => Some(format!("from {} to {}", shown(min), shown(max))),
        (Some(min), None) => Some(format!("from {}", shown(min))),
        (None, Some(max)) => Some(format!("up to {}", shown(max))),
        (None, None) => None,
    };
    let step = step.filter(|s| *s > 0.0).map(|s| format!("in steps of {}", shown(s)));
    let words: Vec<String> = bounds.into_iter().chain(step).collect();
    if words.is_empty() {
        String::new()
    } else {
        format!(" ({})", words.join(", "))
    }
}

/// What a control asked for `wanted` now holds, in a sentence, and whether that is the value (or
/// the nearest one the control takes: within its bounds, on its step).
pub(super) fn number_outcome(target: &str, wanted: f64, state: &NumberState, unit: Option<f64>) -> (bool, String) {
    let Some(value) = state.value else {
        return (
            false,
            format!("{target} does not tell its value (no aria-valuenow); look at the page to see where it is."),
        );
    };
    // The words only when they say more than the number ("20 °C", not noUiSlider's "65.00").
    let words = if state.text.is_empty() || number_in(&state.text).is_some_and(|n| same(n, value)) {
        String::new()
    } else {
        format!(" (it shows {})", quoted(&state.text))
    };
    if same(value, wanted) {
        return (true, format!("Set {target} to {}{words}.", shown(value)));
    }
    let step = state.step.or(unit);
    let at_bound = same(value, bounded(wanted, state)) && !same(bounded(wanted, state), wanted);
    let on_step = step.is_some_and(|step| (value - wanted).abs() <= step / 2.0 + 1e-9);
    let range = range_words(state, step);
    if at_bound || on_step {
        return (
            true,
            format!(
                "{target} cannot hold {}{range}; it is now at {}{words}, the nearest it takes.",
                shown(wanted),
                shown(value)
            ),
        );
    }
    (
        false,
        format!(
            "{target} is at {}{words}, not {}{range}: it did not move further. Try click_element or drag on it, or send_keys.",
            shown(value),
            shown(wanted)
        ),
    )
}

/// What `select_option` did in a multiple select: `chosen` added or (chosen before) taken out,
/// and all that is chosen now.
pub(super) fn multiple_sentence(target: &str, chosen: &str, selected: &[String]) -> String {
    let now = if selected.is_empty() {
        "now nothing is selected".to_string()
    } else {
        format!("now selected: {}", quote_list(selected))
    };
    if selected.iter().any(|s| s == chosen) {
        format!("Added \"{chosen}\" to the choice in {target}; {now}.")
    } else {
        format!(
            "Took \"{chosen}\" out of the choice in {target} (it was selected; choosing a selected option again deselects it); {now}."
        )
    }
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// `input_text` of a number into a slider, range input or spinner: the control brought to
    /// that number (typed, else set, else stepped with the keys), reported as the control shows it.
    pub(super) async fn input_number(
        &self,
        element: &MapElement,
        control: NumberControl,
        text: &str,
        wanted: f64,
    ) -> Outcome {
        let name = "input_text";
        let target = element.describe();
        // A field takes what it is given, beyond its bounds too: it is given the nearest bound.
        let bounds = bounds_shown(element);
        let goal = bounded(wanted, &bounds);
        let mut first = None;
        if control == NumberControl::Field {
            let typed = self.type_text(element, &shown(goal), true).await?;
            let value = typed.value.as_deref().and_then(number_in);
            if typed.ok && value.is_some_and(|value| same(value, goal)) {
                let (ok, said) = number_outcome(&target, wanted, &NumberState { value, ..bounds }, None);
                return Ok(report(name, Some(&target), ok, said));
            }
            first = Some(match typed.value {
                Some(value) if typed.ok => format!("Typing {} left it at {}; ", quoted(text), quoted(&value)),
                _ => format!("Typing {} did not take ({}); ", quoted(text), typed.message),
            });
        }
        let mut state = None;
        if control != NumberControl::Keyed {
            let value = shown(goal);
            let set = self.number_op(
                element,
                PageOp::SetValue { target: element.target.clone(), tag: element.tag.clone(), value },
            );
            match set.await? {
                Ok(now) if now.value.is_some_and(|value| same(value, goal)) || control == NumberControl::Range => {
                    state = Some(now);
                }
                _ => {}
            }
        }
        let (state, unit) = match state {
            Some(state) => (state, None),
            None => match self.step_to(element, wanted).await? {
                Ok(stepped) => stepped,
                Err(problem) => {
                    return Ok(report(name, Some(&target), false, format!("Could not set {target}: {problem}.")))
                }
            },
        };
        let (ok, said) = number_outcome(&target, wanted, &state, unit);
        Ok(report(name, Some(&target), ok, format!("{}{said}", first.unwrap_or_default())))
    }

    /// Steps the control with the keys toward `wanted`: its state at the end, and the step the
    /// arrows were seen to move it by.
    async fn step_to(
        &self,
        element: &MapElement,
        wanted: f64,
    ) -> Result<Result<(NumberState, Option<f64>), String>, StepError> {
        let press = |key: &str, times: u32| PageOp::Step {
            target: element.target.clone(),
            tag: element.tag.clone(),
            key: parse_keys(key).expect("a named key").remove(0),
            times,
        };
        let mut state = match self.number_op(element, press("ArrowUp", 0)).await? {
            Ok(state) => state,
            Err(problem) => return Ok(Err(problem)),
        };
        let mut learned = Learned::default();
        for _ in 0..MAX_ROUNDS {
            let Some(value) = state.value else { break };
            let Some((key, times)) = next_press(value, bounded(wanted, &state), learned) else { break };
            let now = match self.number_op(element, press(key, times)).await? {
                Ok(now) => now,
                Err(problem) => return Ok(Err(problem)),
            };
            let Some(after) = now.value else { return Ok(Ok((now, learned.arrow))) };
            learned.note(key, times, value, after);
            state = now;
        }
        Ok(Ok((state, learned.arrow)))
    }

    /// A custom multiple select that shows each chosen option with a remove button named after it
    /// ("Remove Nuts", as React Select's): choosing a chosen option again takes it out, as in a
    /// native one. `None` when there is no such button.
    pub(super) async fn take_out_chosen(&self, element: &MapElement, wanted: &str) -> Result<Option<Done>, StepError> {
        let name = "select_option";
        let Ok(now) = self.observe(Look::Peek).await? else { return Ok(None) };
        // Only the control's own document's: a click elsewhere lands on a site not judged.
        let removes = |e: &&MapElement| e.same_document(element) && is_remover_of(e, wanted);
        let Some(remove) = now.elements().find(removes) else { return Ok(None) };
        let target = element.describe();
        let op = PageOp::Click { target: remove.target.clone(), tag: remove.tag.clone(), click: Click::Single };
        let outcome = self.perform(&op).await?;
        let gone = match self.observe(Look::Peek).await? {
            Ok(after) => !after.elements().any(|e| removes(&e)),
            Err(_) => false,
        };
        let wanted = wanted.trim();
        Ok(Some(if outcome.ok && gone {
            report(
                name,
                Some(&target),
                true,
                format!("Took \"{wanted}\" out of the choice in {target} (it was selected; choosing a selected option again deselects it)."),
            )
        } else {
            let why = if outcome.ok { "it is still there".to_string() } else { outcome.message };
            report(
                name,
                Some(&target),
                false,
                format!("Could not take \"{wanted}\" out of the choice in {target}: {why}."),
            )
        }))
    }

    /// Runs a set or step operation: the control's number after it, or why it failed.
    async fn number_op(&self, element: &MapElement, op: PageOp) -> Result<Result<NumberState, String>, StepError> {
        let outcome: OpOutcome = self.perform(&op).await?;
        Ok(match (outcome.ok, outcome.control) {
            (true, Some(state)) => Ok(state),
            (true, None) => Err(format!("{} did not tell its value", element.describe())),
            (false, _) => Err(outcome.message),
        })
    }
}

/// The button that takes `option` out of a custom multiple select's choice: "Remove Nuts".
pub(super) fn is_remover_of(element: &MapElement, option: &str) -> bool {
    let wanted = format!("remove {}", option.trim().to_lowercase());
    element.attrs.iter().any(|(k, v)| k == "aria-label" && v.trim().to_lowercase() == wanted)
}

#[cfg(test)]
#[path = "values_tests.rs"]
mod tests;
