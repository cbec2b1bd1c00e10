//! The sensor's raw records, exactly as `extension/page/sensor.js` sends them (one per frame).

use serde::Deserialize;
use std::collections::BTreeMap;

/// Stands in an element's own text for each of its child elements.
pub const SLOT: char = '\u{FFFC}';

/// One frame's record, or why it could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct RawFrame {
    /// Chrome's frame id: 0 for the top frame.
    pub frame_id: i32,
    pub page: Result<RawPage, String>,
}

/// One document as the sensor saw it.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct RawPage {
    /// Identifies the document; element ids are only meaningful within it.
    pub doc: String,
    /// For a frame's document: `"<parent doc>:<iframe id>"`, naming the iframe that shows it.
    pub host: String,
    pub url: String,
    pub title: String,
    pub viewport: Viewport,
    pub nodes: Vec<RawNode>,
    /// Why the sensor stopped early, if it did.
    pub truncated: String,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Viewport {
    pub width: f64,
    pub height: f64,
    pub scroll_x: f64,
    pub scroll_y: f64,
    pub page_width: f64,
    pub page_height: f64,
}

/// One element worth recording, in document order (shadow roots after their host's own children
/// would be, light children after that).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct RawNode {
    /// Stable per element for as long as it stays in the document.
    pub id: u32,
    /// Position of the nearest recorded ancestor in the node list (`None` for the root).
    pub parent: Option<u32>,
    pub tag: String,
    /// The attributes the sensor reads (a fixed list), when present.
    pub attrs: BTreeMap<String, String>,
    /// The element's own text nodes, whitespace collapsed, with [`SLOT`] where each child element
    /// sits among them (only when there are words).
    pub text: String,
    /// Which [`SLOT`] of the parent's text this element's content fills, when the parent's text
    /// has slots (a child of an unrecorded element fills that element's slot).
    pub slot: Option<u32>,
    /// Laid out inline (`display: inline...`).
    pub inline: bool,
    /// Separated from its recorded parent by an unrecorded block element: its text does not flow
    /// in the parent's sentence.
    pub gap: bool,
    /// For a control without text: naming material (class names, ids, icon names, an SVG title, a
    /// picture's file name) from it and its first descendants.
    pub hint: Option<String>,
    /// x, y, width, height in CSS pixels relative to the frame's viewport.
    pub rect: [f64; 4],
    /// Rendered, per `checkVisibility` with opacity and visibility checks (ancestors included).
    pub visible: bool,
    /// Has an inline handler, an `onclick` property or a click-like listener from page scripts.
    pub listener: bool,
    /// `cursor: pointer`, unlike its parent.
    pub pointer: bool,
    /// The root of a contenteditable region.
    pub editable: bool,
    pub inert: bool,
    /// In the viewport, but another element is on top of it at every point tested.
    pub covered: bool,
    /// The live value of a form control (for a select, the selected option's text).
    pub value: Option<String>,
    pub checked: Option<bool>,
    /// A select's option texts.
    pub options: Option<Vec<String>>,
    /// For an iframe: where its content starts in the frame's viewport.
    pub frame_origin: Option<[f64; 2]>,
    /// For an element with text, as CSS computes them: its text colour ("rgb(0, 0, 0)"), the
    /// colour of the background behind it, and its font size ("16px").
    pub ink: Option<String>,
    pub paper: Option<String>,
    pub font_size: Option<String>,
}

impl RawNode {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.get(name).map(String::as_str)
    }
}
