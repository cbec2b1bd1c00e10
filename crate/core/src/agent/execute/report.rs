//! What an action reports: its outcome in a sentence the model can use, and whether the page the
//! remaining actions were chosen for is gone.

use super::navigation;
use crate::actions::{ScrollDirection, MAX_SCROLL_PAGES};
use crate::agent::events::ActionReport;
use crate::agent::navigator::StepError;
use crate::browser::ScrollState;
use crate::text;
/// The outcome of one action: what the step reports, and whether the page the remaining actions
/// were chosen for is gone.
pub(super) struct Done {
    pub(super) report: ActionReport,
    pub(super) page_left: bool,
}

pub(super) type Outcome = Result<Done, StepError>;

pub(super) fn report(name: &str, target: Option<&str>, ok: bool, outcome: String) -> Done {
    Done {
        report: ActionReport { name: name.to_string(), target: target.map(str::to_string), element: None, ok, outcome },
        page_left: false,
    }
}

/// The report of an action that navigated, as `navigation` words it.
pub(super) fn said(name: &str, target: Option<&str>, said: navigation::Said) -> Done {
    Done { page_left: said.left_page, ..report(name, target, said.ok, said.text) }
}

/// The report of an action whose effect (`done`, in words) led to a navigation `said` words.
pub(super) fn said_after(name: &str, target: Option<&str>, done: &str, said: navigation::Said) -> Done {
    let text = format!("{done} {}", said.text);
    Done { page_left: said.left_page, ..report(name, target, said.ok, text) }
}

pub(super) fn left_page(mut done: Done) -> Done {
    done.page_left = true;
    done
}

pub(super) fn typed_sentence(text: &str, target: &str, value: Option<&str>) -> String {
    let typed = quoted(text);
    match value {
        // An editable area emptied keeps the browser's line break.
        Some(value) if text.is_empty() && value.trim().is_empty() => format!("Emptied {target}."),
        Some(value) if value == text => format!("Typed {typed} into {target}."),
        Some("") => format!("Typed {typed} into {target}, but the field is empty now: it rejected the value (date fields need YYYY-MM-DD, number fields digits)."),
        Some(value) => format!("Typed {typed} into {target}; its value is now {}.", quoted(value)),
        None => format!("Typed {typed} into {target}."),
    }
}

/// Longest text an outcome quotes whole; a longer one is shown by its length, start and end.
pub(super) const QUOTED_CHARS: usize = 300;

/// `text` in quotes; a long one as `12,345 characters ("Its start … its end")`, so that an
/// outcome stays short whatever was typed.
pub(super) fn quoted(text: &str) -> String {
    let length = text.chars().count();
    if length <= QUOTED_CHARS {
        return format!("\"{text}\"");
    }
    let start: String = text.chars().take(100).collect();
    let end: String = text.chars().skip(length - 60).collect();
    format!("{} characters (\"{start} … {end}\")", text::thousands(length))
}

pub(super) fn scroll_sentence(
    direction: ScrollDirection,
    pages: f64,
    what: &str,
    state: Option<&ScrollState>,
) -> String {
    let Some(state) = state else { return format!("Scrolled {what} {}.", direction.as_str()) };
    let edge = if matches!(direction, ScrollDirection::Up | ScrollDirection::Top) { "top" } else { "bottom" };
    if (state.after - state.before).abs() < 1.0 {
        return capitalize(&format!("{what} is already at the {edge}; nothing moved."));
    }
    let position = if state.max > 0.0 { (state.after / state.max * 100.0).round() } else { 100.0 };
    let moved = match direction {
        ScrollDirection::Top | ScrollDirection::Bottom => format!("to the {edge}"),
        _ => format!(
            "{} by {pages} page{}{}",
            direction.as_str(),
            if (pages - 1.0).abs() < f64::EPSILON { "" } else { "s" },
            // A longer scroll asked for was cut to the bound: the model is told so.
            if pages >= MAX_SCROLL_PAGES { " (the most one scroll moves; \"bottom\" goes to the end)" } else { "" }
        ),
    };
    format!("Scrolled {what} {moved}; now {position}% of the way down.")
}

pub(super) fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

pub(super) fn quote_list(items: &[String]) -> String {
    items.iter().map(|item| format!("\"{item}\"")).collect::<Vec<_>>().join(", ")
}
