//! The page map: which elements of a page a person could use, indexed, and how the model reads them.
//!
//! The page-side sensor (`extension/page/sensor.js`) sends [`RawPage`]: one mechanical record per
//! element, in document order. Everything that needs judgement happens here: which elements are
//! interactive and visible, what text belongs to each, and the compact text the model reads.

mod raw;
mod serialize;

pub use raw::{RawNode, RawPage, Viewport};
pub use serialize::serialize;

use crate::text::{truncate_chars, truncate_words};
use std::collections::HashMap;

/// Tags a person can operate without any script help.
const NATIVE_INTERACTIVE: &[&str] = &["a", "button", "input", "select", "textarea", "summary", "details", "option"];

/// ARIA roles that promise an interactive widget.
const INTERACTIVE_ROLES: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "switch",
    "combobox",
    "textbox",
    "searchbox",
    "slider",
    "spinbutton",
    "treeitem",
    "gridcell",
];

/// Longest text kept for one element or one text line; longer text is cut at a word boundary.
const MAX_TEXT_CHARS: usize = 100;

/// One interactive element as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct MapElement {
    /// The sensor's id for the element; stable for as long as the element lives in the document.
    pub index: u32,
    pub tag: String,
    /// Allow-listed attributes in display order.
    pub attrs: Vec<(String, String)>,
    /// The element's visible text, including that of non-interactive descendants.
    pub text: String,
    /// Identifies the element's kind and content, so that an action can refuse to act on an
    /// element that has been replaced by another one.
    pub fingerprint: u64,
}

impl MapElement {
    /// A short human description such as `<button> "Add to cart" [5]`, for step reports. An
    /// accessible name is preferred to the text, as it is often the more specific of the two.
    pub fn describe(&self) -> String {
        let attr = |wanted: &str| self.attrs.iter().find(|(name, _)| name == wanted).map(|(_, value)| value.as_str());
        let label = attr("aria-label")
            .or((!self.text.is_empty()).then_some(self.text.as_str()))
            .or_else(|| ["placeholder", "name", "title", "alt"].into_iter().find_map(attr))
            .unwrap_or("");
        if label.is_empty() {
            format!("<{}> [{}]", self.tag, self.index)
        } else {
            format!("<{}> \"{}\" [{}]", self.tag, label, self.index)
        }
    }
}

/// A line of the map: an interactive element, or visible text between elements.
#[derive(Debug, Clone, PartialEq)]
pub enum MapLine {
    Element(MapElement),
    Text(String),
}

/// The indexed map of one page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageMap {
    pub url: String,
    pub title: String,
    pub viewport: Viewport,
    pub lines: Vec<MapLine>,
}

impl PageMap {
    /// Builds the map from the sensor's raw records.
    pub fn build(raw: &RawPage) -> PageMap {
        let nodes = &raw.nodes;
        let shown: Vec<bool> = nodes.iter().map(is_shown).collect();
        // Hiding and inertness pass to descendants; a zero size does not (children may overflow).
        let mut hidden_by_ancestor = vec![false; nodes.len()];
        let mut inert = vec![false; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            inert[i] = node.inert;
            if let Some(p) = parent_of(node, i) {
                hidden_by_ancestor[i] = hidden_by_ancestor[p] || hides_subtree(&nodes[p]);
                inert[i] |= inert[p];
            }
        }
        let interactive: Vec<bool> =
            (0..nodes.len()).map(|i| shown[i] && !inert[i] && is_interactive(&nodes[i])).collect();
        // Each node's text goes to its nearest interactive ancestor, else stands on its own line.
        let mut owner: Vec<Option<usize>> = vec![None; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            if let Some(p) = parent_of(node, i) {
                owner[i] = if interactive[p] { Some(p) } else { owner[p] };
            }
        }

        let mut element_text: HashMap<usize, Vec<&str>> = HashMap::new();
        let mut lines = Vec::new();
        let mut element_line: HashMap<usize, usize> = HashMap::new();
        for (i, node) in nodes.iter().enumerate() {
            if hidden_by_ancestor[i] || !shown[i] {
                continue;
            }
            if interactive[i] {
                element_line.insert(i, lines.len());
                lines.push(MapLine::Element(MapElement {
                    index: node.id,
                    tag: node.tag.clone(),
                    attrs: Vec::new(),
                    text: String::new(),
                    fingerprint: 0,
                }));
                if !node.text.is_empty() {
                    element_text.entry(i).or_default().push(&node.text);
                }
            } else if !node.text.is_empty() {
                match owner[i] {
                    Some(o) => element_text.entry(o).or_default().push(&node.text),
                    None => lines.push(MapLine::Text(truncate_words(&node.text, MAX_TEXT_CHARS))),
                }
            }
        }
        for (i, line) in element_line {
            if let MapLine::Element(element) = &mut lines[line] {
                let text = element_text.get(&i).map(|parts| parts.join(" ")).unwrap_or_default();
                element.text = truncate_words(&text, MAX_TEXT_CHARS);
                element.attrs = display_attrs(&nodes[i], &raw.url);
                element.fingerprint = fingerprint(&nodes[i], &element.text);
            }
        }
        PageMap { url: raw.url.clone(), title: raw.title.clone(), viewport: raw.viewport.clone(), lines }
    }

    /// The interactive elements, in document order.
    pub fn elements(&self) -> impl Iterator<Item = &MapElement> {
        self.lines.iter().filter_map(|line| match line {
            MapLine::Element(element) => Some(element),
            MapLine::Text(_) => None,
        })
    }

    pub fn element(&self, index: u32) -> Option<&MapElement> {
        self.elements().find(|element| element.index == index)
    }
}

/// The parent's position, trusting only parents that come earlier in document order.
fn parent_of(node: &RawNode, position: usize) -> Option<usize> {
    node.parent.map(|p| p as usize).filter(|&p| p < position)
}

/// Rendered, with a size, and not hidden by style or by the page's own markup.
fn is_shown(node: &RawNode) -> bool {
    node.rect[2] > 0.0 && node.rect[3] > 0.0 && !hides_subtree(node)
}

/// Hidden by style, by the `hidden` attribute or from assistive technology: so is all inside it.
fn hides_subtree(node: &RawNode) -> bool {
    !node.visible || node.attr("hidden").is_some() || node.attr("aria-hidden") == Some("true")
}

fn is_interactive(node: &RawNode) -> bool {
    if node.attr("disabled").is_some() || node.attr("aria-disabled") == Some("true") {
        return false;
    }
    if node.tag == "input" && node.attr("type") == Some("hidden") {
        return false;
    }
    if node.tag == "a" && node.attr("href").is_none() && node.attr("role").is_none() && !node.listener {
        return false;
    }
    NATIVE_INTERACTIVE.contains(&node.tag.as_str())
        || node.attr("role").is_some_and(|role| INTERACTIVE_ROLES.contains(&role))
        || node.editable
        || node.listener
        || node.attr("tabindex").and_then(|t| t.trim().parse::<i32>().ok()).is_some_and(|t| t >= 0)
}

/// Attributes that help a model decide, in a fixed order; the current value replaces the markup's.
fn display_attrs(node: &RawNode, page_url: &str) -> Vec<(String, String)> {
    const SHOWN: &[&str] = &["role", "type", "name", "placeholder", "aria-label", "title", "alt", "href"];
    let mut attrs: Vec<(String, String)> = SHOWN
        .iter()
        .filter_map(|&name| {
            let value = node.attr(name)?.trim();
            if value.is_empty() {
                return None;
            }
            let value =
                if name == "href" { short_href(value, page_url) } else { truncate_words(value, MAX_TEXT_CHARS) };
            Some((name.to_string(), value))
        })
        .collect();
    let is_password = node.attr("type") == Some("password");
    if let Some(value) = node.value.as_deref().filter(|v| !v.is_empty() && !is_password) {
        attrs.push(("value".into(), truncate_words(value, MAX_TEXT_CHARS)));
    }
    if node.checked == Some(true) {
        attrs.push(("checked".into(), "true".into()));
    }
    attrs
}

/// A link relative to the page when it stays on the same origin, else the full URL, capped.
fn short_href(href: &str, page_url: &str) -> String {
    const MAX_HREF_CHARS: usize = 120;
    let shown = match (url::Url::parse(page_url), url::Url::parse(page_url).and_then(|base| base.join(href))) {
        (Ok(base), Ok(target)) if target.origin() == base.origin() => {
            let mut path = target.path().to_string();
            if let Some(query) = target.query() {
                path.push('?');
                path.push_str(query);
            }
            path
        }
        (_, Ok(target)) => target.to_string(),
        _ => href.to_string(),
    };
    truncate_chars(&shown, MAX_HREF_CHARS)
}

/// FNV-1a over the element's tag, identifying attributes and text.
fn fingerprint(node: &RawNode, text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |s: &str| {
        for byte in s.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    feed(&node.tag);
    for name in ["type", "name", "role", "href", "aria-label", "placeholder"] {
        feed(node.attr(name).unwrap_or(""));
    }
    feed(text);
    hash
}

#[cfg(test)]
pub(crate) mod tests;
