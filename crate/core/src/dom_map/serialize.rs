//! The page map as the model reads it: one line per element, `[index]tag attr=value text`
//! (`*[index]` when new since the previous step), visible text between elements as plain lines
//! (`\` before one that would read as an element), nesting as indentation. Only what is in the viewport plus a margin is listed; what lies above
//! and below is summarised with the scroll position.

use super::{LineKind, MapElement, MapLine, PageMap};
use crate::text::{lower_words, truncate_words};
use std::fmt::Write;

/// Stops the map from growing without bound on huge viewports; what is left out is counted.
const MAX_MAP_CHARS: usize = 40_000;
/// How many elements a summary of the off-screen parts names.
const SUMMARY_NAMES: usize = 5;
const SUMMARY_NAME_CHARS: usize = 30;

#[derive(Debug, Clone, PartialEq)]
pub struct MapOptions {
    /// How far beyond the viewport, in viewport heights, elements are still listed.
    pub margin_pages: f64,
}

impl Default for MapOptions {
    fn default() -> Self {
        Self { margin_pages: 0.5 }
    }
}

/// The elements [`serialize`] lists in full (those in the viewport plus the margin).
pub fn elements_in_scope<'a>(map: &'a PageMap, options: &MapOptions) -> impl Iterator<Item = &'a MapElement> {
    let (height, margin) = scope(map, options);
    let width = map.viewport.width;
    map.lines.iter().filter_map(move |line| match (&line.kind, place(line, width, height, margin)) {
        (LineKind::Element(element), Place::InScope) => Some(element),
        _ => None,
    })
}

/// The viewport height and the margin around it, in pixels; an unknown height lists everything.
fn scope(map: &PageMap, options: &MapOptions) -> (f64, f64) {
    if map.viewport.height > 0.0 {
        (map.viewport.height, options.margin_pages * map.viewport.height)
    } else {
        (f64::INFINITY, 0.0)
    }
}

enum Place {
    Above,
    InScope,
    Below,
    /// Beside the viewport (off-canvas menus, carousel slides): not reachable by scrolling down.
    Aside,
}

fn place(line: &MapLine, viewport_width: f64, viewport_height: f64, margin: f64) -> Place {
    let [x, y, w, h] = line.rect;
    if viewport_width > 0.0 && (x + w <= 0.0 || x >= viewport_width) {
        Place::Aside
    } else if y + h < -margin {
        Place::Above
    } else if y > viewport_height + margin {
        Place::Below
    } else {
        Place::InScope
    }
}

pub fn serialize(map: &PageMap, options: &MapOptions) -> String {
    let (height, margin) = scope(map, options);
    let mut above: Vec<&MapElement> = Vec::new();
    let mut below: Vec<&MapElement> = Vec::new();
    let mut body = String::new();
    let mut omitted = 0usize;
    for line in &map.lines {
        let target = match place(line, map.viewport.width, height, margin) {
            Place::Aside => continue,
            Place::Above => &mut above,
            Place::Below => &mut below,
            Place::InScope => {
                let rendered = render(line);
                if body.len() + rendered.len() > MAX_MAP_CHARS {
                    omitted += 1;
                } else {
                    body.push_str(&rendered);
                    body.push('\n');
                }
                continue;
            }
        };
        if let LineKind::Element(element) = &line.kind {
            target.push(element);
        }
    }

    let mut out = String::new();
    let pages = |px: f64| if height.is_finite() { px.max(0.0) / height } else { 0.0 };
    let pages_above = pages(map.viewport.scroll_y);
    let pages_below = pages(map.viewport.page_height - map.viewport.scroll_y - height);
    if pages_above >= 0.05 || !above.is_empty() {
        let _ = writeln!(
            out,
            "... {pages_above:.1} pages above{}",
            summary(&above, above.len().saturating_sub(SUMMARY_NAMES), "above")
        );
    } else {
        out.push_str("[Start of page]\n");
    }
    out.push_str(&body);
    if omitted > 0 {
        let _ = writeln!(out, "... {omitted} more lines in view not shown (the page is too long to list)");
    }
    if pages_below >= 0.05 || !below.is_empty() {
        let _ = writeln!(out, "... {pages_below:.1} pages below{}", summary(&below, 0, "below"));
    } else {
        out.push_str("[End of page]\n");
    }
    for note in &map.notes {
        let _ = writeln!(out, "Note: {note}");
    }
    out
}

/// `; 14 more interactive elements below: 'Next page', 'Load more', ...` naming the nearest ones.
fn summary(elements: &[&MapElement], start: usize, direction: &str) -> String {
    if elements.is_empty() {
        return String::new();
    }
    // Each name once (a page's header and footer repeat their links).
    let mut names: Vec<String> = Vec::new();
    let mut rest = elements.iter().skip(start).peekable();
    while let Some(element) = rest.next_if(|_| names.len() < SUMMARY_NAMES) {
        let name = format!("'{}'", truncate_words(&element_name(element), SUMMARY_NAME_CHARS));
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let more = if start > 0 || rest.peek().is_some() { ", ..." } else { "" };
    format!("; {} interactive elements {direction}: {}{more}", elements.len(), names.join(", "))
}

fn element_name(element: &MapElement) -> String {
    let described = element.describe();
    // `<tag> "name" [n]` -> name, or the tag when nameless.
    described.split('"').nth(1).map_or_else(|| element.tag.clone(), str::to_string)
}

fn render(line: &MapLine) -> String {
    let mut out = "\t".repeat(line.depth);
    match &line.kind {
        LineKind::Text(text) => {
            if reads_as_element(text) {
                out.push('\\');
            }
            out.push_str(text);
        }
        LineKind::Element(element) => {
            if element.is_new {
                out.push('*');
            }
            // HTML's brackets and closing ` />` cost a model two tokens a line and told it nothing.
            let _ = write!(out, "[{}]{}", element.index, element.tag);
            for (name, value) in shown_attrs(element) {
                let _ = write!(out, " {name}={}", quote(value));
            }
            if !element.text.is_empty() {
                out.push(' ');
                out.push_str(&element.text);
            }
        }
    }
    out
}

/// Whether a line of page text begins like an element's line (`[3]`, `*[3]`: a footnote).
fn reads_as_element(text: &str) -> bool {
    let rest = text.strip_prefix('*').unwrap_or(text);
    rest.strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
        .is_some_and(|(digits, _)| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// The element's attributes less the names that repeat its text or a name already shown (a link
/// whose title is its text, a field whose aria-label is its placeholder): said once.
fn shown_attrs(element: &MapElement) -> impl Iterator<Item = &(String, String)> {
    const NAMES: &[&str] = &["label", "placeholder", "aria-label", "title", "alt"];
    let text = format!(" {} ", same_words(&element.text));
    let mut said: Vec<String> = Vec::new();
    element.attrs.iter().filter(move |(name, value)| {
        if !NAMES.contains(&name.as_str()) {
            return true;
        }
        let words = same_words(value);
        let repeated = text.contains(&format!(" {words} ")) || said.contains(&words);
        said.push(words);
        !repeated
    })
}

/// Text compared for repetition: lower case, words only, one space between them.
fn same_words(text: &str) -> String {
    lower_words(text).join(" ")
}

/// Bare when the value is one word, quoted otherwise, so the line stays unambiguous.
fn quote(value: &str) -> String {
    if !value.is_empty() && !value.contains([' ', '"', '>', '<', '\t']) {
        value.to_string()
    } else {
        format!("\"{}\"", value.replace('"', "'"))
    }
}
