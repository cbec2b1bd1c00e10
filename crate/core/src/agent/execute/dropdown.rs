//! Custom dropdowns (listboxes, menus, trees, grids): opening one, listing its options, and
//! choosing the option whose text matches.

use super::report::{quote_list, report, Done, Outcome};
use super::values::multiple_sentence;
use crate::agent::navigator::{Look, Navigator, StepError};
use crate::agent::task_config::UserGate;
use crate::browser::{Browser, Click, PageOp};
use crate::dom_map::{MapElement, PageMap};
use crate::llm::ChatModel;
/// Roles of the entries of a custom dropdown (listbox, menu, tree, grid).
pub(super) const OPTION_ROLES: &[&str] =
    &["option", "menuitem", "menuitemradio", "menuitemcheckbox", "treeitem", "gridcell"];

pub(super) fn option_label(option: &MapElement) -> String {
    if option.text.is_empty() {
        option.attrs.iter().find(|(k, _)| k == "aria-label").map(|(_, v)| v.clone()).unwrap_or_default()
    } else {
        option.text.clone()
    }
}

pub(super) fn contains_ci(haystack: &str, needle: &str) -> bool {
    !needle.is_empty() && haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// The option whose label matches best: exactly, then as a prefix, then anywhere (ignoring case).
pub(super) fn best_match<'a>(options: &'a [MapElement], wanted: &str) -> Option<&'a MapElement> {
    let wanted = wanted.trim().to_lowercase();
    let label = |o: &MapElement| option_label(o).trim().to_lowercase();
    options
        .iter()
        .find(|o| label(o) == wanted)
        .or_else(|| options.iter().find(|o| label(o).starts_with(&wanted)))
        .or_else(|| options.iter().find(|o| label(o).contains(&wanted)))
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Opens a custom dropdown (one open already, as a multiple list stays open between choices,
    /// is not clicked shut) and returns the visible options, as the map now shows them.
    pub(super) async fn open_dropdown(
        &self,
        element: &MapElement,
    ) -> Result<Result<Vec<MapElement>, String>, StepError> {
        let target = element.describe();
        if has_attr(element, "expanded", "true") {
            if let Ok(now) = self.observe(Look::Peek).await? {
                let options = options_in(&now, element);
                if !options.is_empty() {
                    return Ok(Ok(options));
                }
            }
        }
        let op = PageOp::Click { target: element.target.clone(), tag: element.tag.clone(), click: Click::Single };
        let outcome = self.perform(&op).await?;
        if !outcome.ok {
            return Ok(Err(format!("Could not open {target}: {}.", outcome.message)));
        }
        let now = match self.observe(Look::Peek).await? {
            Ok(map) => map,
            Err(reason) => return Ok(Err(format!("After opening {target} the page could not be read ({reason})."))),
        };
        let options = options_in(&now, element);
        if options.is_empty() {
            return Ok(Err(format!("Clicked {target}, but no list of options appeared.")));
        }
        Ok(Ok(options))
    }

    pub(super) async fn list_custom_options(&self, element: &MapElement) -> Outcome {
        let name = "get_dropdown_options";
        let target = element.describe();
        Ok(match self.open_dropdown(element).await? {
            Err(problem) => report(name, Some(&target), false, problem),
            Ok(options) => {
                let listed: Vec<String> =
                    options.iter().map(|o| format!("[{}] {}", o.index, option_label(o))).collect();
                report(
                    name,
                    Some(&target),
                    true,
                    format!(
                        "{target} is open; its options are: {}. Use select_option or click one.",
                        listed.join(", ")
                    ),
                )
            }
        })
    }

    /// A custom dropdown: open it, click the option whose text matches, check that it took.
    pub(super) async fn select_custom(&self, element: &MapElement, wanted: &str) -> Outcome {
        let name = "select_option";
        let target = element.describe();
        let options = match self.open_dropdown(element).await? {
            Err(problem) => return Ok(report(name, Some(&target), false, problem)),
            Ok(options) => options,
        };
        let Some(option) = best_match(&options, wanted) else {
            if let Some(taken_out) = self.take_out_chosen(element, wanted).await? {
                return Ok(taken_out);
            }
            let labels: Vec<String> = options.iter().map(option_label).collect();
            return Ok(report(
                name,
                Some(&target),
                false,
                format!("{target} has no option \"{wanted}\"; its options are: {}.", quote_list(&labels)),
            ));
        };
        let label = option_label(option);
        let op = PageOp::Click { target: option.target.clone(), tag: option.tag.clone(), click: Click::Single };
        let outcome = self.perform(&op).await?;
        if !outcome.ok {
            return Ok(report(
                name,
                Some(&target),
                false,
                format!("Could not choose \"{label}\": {}.", outcome.message),
            ));
        }
        // Verify: the control now shows the choice, or the option says it is selected; in a
        // multiple list still open, the option's state changed (a click on a chosen one takes it out).
        let now = self.observe(Look::Peek).await?;
        if let Ok(now) = &now {
            if let Some(done) = multiple_choice(now, element, option, &label) {
                return Ok(done);
            }
        }
        let shows = match now {
            Ok(now) => {
                let control_shows = now.element(element.index).is_some_and(|e| {
                    contains_ci(&e.text, &label) || e.attrs.iter().any(|(k, v)| k == "value" && contains_ci(v, &label))
                });
                let option_selected = now
                    .element(option.index)
                    .is_some_and(|o| o.attrs.iter().any(|(k, v)| (k == "selected" || k == "checked") && v == "true"));
                control_shows || option_selected || shown_as_chosen(&now, option, &label)
            }
            Err(_) => false,
        };
        Ok(if shows {
            report(name, Some(&target), true, format!("Selected \"{label}\" in {target}."))
        } else {
            report(
                name,
                Some(&target),
                false,
                format!(
                    "Clicked the option \"{label}\", but {target} does not show it as chosen; look at the page map."
                ),
            )
        })
    }
}

fn has_attr(element: &MapElement, name: &str, value: &str) -> bool {
    element.attrs.iter().any(|(k, v)| k == name && v == value)
}

/// The options of a custom dropdown `control` that the map `now` shows, in its own document: a
/// list opens where its control is, and a click on another frame's option lands on that frame's
/// site, which was not judged.
fn options_in(now: &PageMap, control: &MapElement) -> Vec<MapElement> {
    now.elements()
        .filter(|e| e.index != control.index && e.same_document(control))
        .filter(|e| e.tag == "option" || e.attrs.iter().any(|(k, v)| k == "role" && OPTION_ROLES.contains(&v.as_str())))
        .cloned()
        .collect()
}

/// What choosing `option` did in a multiple list that is still open after the click (the map
/// marks it `multiple=true`): the option added or taken out, and all the options selected now.
/// `None` for a single choice, or a list that closed (its options then say nothing).
fn multiple_choice(now: &PageMap, control: &MapElement, option: &MapElement, label: &str) -> Option<Done> {
    let multiple = has_attr(control, "multiple", "true") || now.elements().any(|e| has_attr(e, "multiple", "true"));
    let after = now.element(option.index).filter(|_| multiple)?;
    let selected = |o: &MapElement| has_attr(o, "selected", "true") || has_attr(o, "checked", "true");
    let chosen: Vec<String> = options_in(now, control).iter().filter(|o| selected(o)).map(option_label).collect();
    let target = control.describe();
    Some(if selected(after) != selected(option) {
        report("select_option", Some(&target), true, multiple_sentence(&target, label, &chosen))
    } else {
        report(
            "select_option",
            Some(&target),
            false,
            format!("Clicked the option \"{label}\" in {target}, but it did not change; look at the page map."),
        )
    })
}

/// Whether a multiple select that closed after the click shows the option as one of its chosen
/// ones: a chip of its own (React Select's, MUI Autocomplete's), not in the control's text.
fn shown_as_chosen(now: &PageMap, option: &MapElement, label: &str) -> bool {
    let is_option = |e: &MapElement| {
        e.tag == "option" || e.attrs.iter().any(|(k, v)| k == "role" && OPTION_ROLES.contains(&v.as_str()))
    };
    now.element(option.index).is_none()
        && now.elements().any(|e| !is_option(e) && e.text.trim().eq_ignore_ascii_case(label.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom_map::tests::map_element as element;
    use crate::dom_map::{LineKind, MapLine};

    fn map(elements: Vec<MapElement>) -> PageMap {
        let lines = elements
            .into_iter()
            .map(|e| MapLine { kind: LineKind::Element(e), depth: 0, rect: [0.0; 4], frame_url: None })
            .collect();
        PageMap {
            url: "http://shop.test/".into(),
            title: String::new(),
            viewport: Default::default(),
            lines,
            notes: Vec::new(),
            warnings: Vec::new(),
            frames: Vec::new(),
        }
    }

    fn option(index: u32, text: &str, selected: bool) -> MapElement {
        element(index, "div", text, &[("role", "option"), ("selected", if selected { "true" } else { "false" })])
    }

    #[test]
    fn an_open_multiple_list_tells_what_a_click_added_or_took_out() {
        let button = element(1, "button", "Bug", &[("expanded", "true")]);
        let list = element(2, "div", "", &[("role", "listbox"), ("multiple", "true")]);
        let before = [option(3, "Bug", true), option(4, "Urgent", false)];
        let added = map(vec![button.clone(), list.clone(), option(3, "Bug", true), option(4, "Urgent", true)]);
        let done = multiple_choice(&added, &button, &before[1], "Urgent").unwrap();
        assert!(done.report.ok);
        assert!(done.report.outcome.starts_with("Added \"Urgent\""), "{}", done.report.outcome);
        assert!(done.report.outcome.ends_with("now selected: \"Bug\", \"Urgent\"."), "{}", done.report.outcome);
        let taken_out = map(vec![button.clone(), list.clone(), option(3, "Bug", false), option(4, "Urgent", false)]);
        let done = multiple_choice(&taken_out, &button, &before[0], "Bug").unwrap();
        assert!(done.report.ok && done.report.outcome.starts_with("Took \"Bug\" out"), "{}", done.report.outcome);
        // Nothing changed: a failure.
        let same = map(vec![button.clone(), list, option(3, "Bug", true), option(4, "Urgent", false)]);
        assert!(!multiple_choice(&same, &button, &before[1], "Urgent").unwrap().report.ok);
        // A single list, or one that closed: the usual check.
        let single = map(vec![button.clone(), option(3, "Bug", true), option(4, "Urgent", true)]);
        assert!(multiple_choice(&single, &button, &before[1], "Urgent").is_none());
    }

    #[test]
    fn a_list_s_options_are_those_of_its_control_s_own_document() {
        let button = element(1, "button", "Notify me", &[("expanded", "true")]);
        let mut framed = option(3, "a", false);
        framed.target.frame_id = 7;
        let own = option(2, "Daily", false);
        let found = options_in(&map(vec![button.clone(), own, framed]), &button);
        assert_eq!(
            found.iter().map(|o| o.index).collect::<Vec<_>>(),
            vec![2],
            "another frame's option is not the list's"
        );
    }

    #[test]
    fn a_list_that_closed_shows_a_chosen_option_as_a_chip_of_its_own() {
        let chosen = option(4, "Rome", false);
        let chip = element(9, "div", "Rome", &[("role", "button")]);
        assert!(shown_as_chosen(&map(vec![element(1, "input", "", &[]), chip.clone()]), &chosen, "Rome"));
        // Still listed as an option: not a chip.
        assert!(!shown_as_chosen(&map(vec![chosen.clone(), chip]), &chosen, "Rome"));
        assert!(!shown_as_chosen(&map(vec![element(1, "input", "", &[])]), &chosen, "Rome"));
    }
}
