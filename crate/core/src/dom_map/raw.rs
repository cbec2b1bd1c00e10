//! The sensor's raw records, exactly as `extension/page/sensor.js` sends them (one per frame).

use serde::Deserialize;
use std::sync::Arc;

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
#[serde(from = "WirePage")]
pub struct RawPage {
    /// Identifies the document; element ids are only meaningful within it.
    pub doc: String,
    /// For a frame's document: `"<parent doc>:<iframe id>"`, naming the iframe that shows it.
    pub host: String,
    pub url: String,
    /// The document's serialized origin (`self.origin`): `"null"` for an opaque one (a `data:`
    /// or sandboxed frame); empty in records from before the sensor sent it.
    pub origin: String,
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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawNode {
    /// Stable per element for as long as it stays in the document.
    pub id: u32,
    /// Position of the nearest recorded ancestor in the node list (`None` for the root).
    pub parent: Option<u32>,
    pub tag: String,
    /// The attributes the sensor reads (a fixed list), when present.
    pub attrs: Attrs,
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
    /// `pointer-events: none`: clicks pass through it (its words still show).
    pub pass_through: bool,
    /// The live value of a form control (for a select, the selected option's text).
    pub value: Option<String>,
    pub checked: Option<bool>,
    /// A select's option texts.
    pub options: Option<Vec<String>>,
    /// For an iframe: where its content starts in the frame's viewport.
    pub frame_origin: Option<[f64; 2]>,
    /// For an element with text, as CSS computes them: its text colour ("rgb(0, 0, 0)"), the
    /// colour of the background behind it, and its font size ("16px").
    /// Shared: a page uses a handful of looks for thousands of texts.
    pub ink: Option<Arc<str>>,
    pub paper: Option<Arc<str>>,
    pub font_size: Option<Arc<str>>,
}

impl RawNode {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.get(name)
    }
}

/// An element's attributes, as few as the sensor reads: a list searched in place is faster to
/// build and to ask than a map, and a page has thousands of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attrs(Vec<(String, String)>);

impl Attrs {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// Sets `name`, replacing its earlier value.
    pub fn insert(&mut self, name: String, value: String) {
        match self.0.iter_mut().find(|(key, _)| *key == name) {
            Some(entry) => entry.1 = value,
            None => self.0.push((name, value)),
        }
    }
}

impl FromIterator<(String, String)> for Attrs {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Self {
        let mut attrs = Attrs::default();
        for (name, value) in pairs {
            attrs.insert(name, value);
        }
        attrs
    }
}

impl<'de> Deserialize<'de> for Attrs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Pairs;
        impl<'de> serde::de::Visitor<'de> for Pairs {
            type Value = Attrs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of attribute names and values")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Attrs, M::Error> {
                let mut attrs = Vec::with_capacity(map.size_hint().unwrap_or(2));
                while let Some(pair) = map.next_entry::<String, String>()? {
                    attrs.push(pair);
                }
                Ok(Attrs(attrs))
            }
        }
        deserializer.deserialize_map(Pairs)
    }
}

/// A page as the sensor sends it: compact, as it is written and parsed on every step.
#[derive(Deserialize, Default)]
#[serde(default)]
struct WirePage {
    doc: String,
    host: String,
    url: String,
    origin: String,
    title: String,
    viewport: Viewport,
    nodes: Vec<WireNode>,
    /// The distinct text colours and sizes: `[ink, paper, font size]`, named by index.
    looks: Vec<(String, String, String)>,
    truncated: String,
}

/// One record: `[id, parent, tag, x, y, width, height, flags, text, slot, look, attrs, extra]`,
/// where -1 stands for "none" and trailing defaults are left off.
#[derive(Deserialize)]
struct WireNode(
    u32,
    i64,
    String,
    f64,
    f64,
    f64,
    f64,
    u32,
    #[serde(default)] String,
    #[serde(default = "none")] i64,
    #[serde(default = "none")] i64,
    #[serde(default)] Option<Attrs>,
    #[serde(default)] Option<WireExtra>,
);

fn none() -> i64 {
    -1
}

/// The fields few elements have.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct WireExtra {
    value: Option<String>,
    checked: Option<bool>,
    options: Option<Vec<String>>,
    frame_origin: Option<[f64; 2]>,
    hint: Option<String>,
}

/// Bits of a record's flags.
mod flag {
    pub const VISIBLE: u32 = 1;
    pub const LISTENER: u32 = 2;
    pub const POINTER: u32 = 4;
    pub const EDITABLE: u32 = 8;
    pub const INERT: u32 = 16;
    pub const COVERED: u32 = 32;
    pub const INLINE: u32 = 64;
    pub const GAP: u32 = 128;
    pub const PASS_THROUGH: u32 = 256;
}

impl From<WirePage> for RawPage {
    fn from(wire: WirePage) -> RawPage {
        let looks: Vec<[Arc<str>; 3]> =
            wire.looks.into_iter().map(|(ink, paper, size)| [ink.into(), paper.into(), size.into()]).collect();
        let nodes = wire
            .nodes
            .into_iter()
            .map(|WireNode(id, parent, tag, x, y, width, height, flags, text, slot, look, attrs, extra)| {
                let extra = extra.unwrap_or_default();
                let look = usize::try_from(look).ok().and_then(|i| looks.get(i));
                let has = |bit: u32| flags & bit != 0;
                RawNode {
                    id,
                    parent: u32::try_from(parent).ok(),
                    tag,
                    attrs: attrs.unwrap_or_default(),
                    text,
                    slot: u32::try_from(slot).ok(),
                    inline: has(flag::INLINE),
                    gap: has(flag::GAP),
                    hint: extra.hint,
                    rect: [x, y, width, height],
                    visible: has(flag::VISIBLE),
                    listener: has(flag::LISTENER),
                    pointer: has(flag::POINTER),
                    editable: has(flag::EDITABLE),
                    inert: has(flag::INERT),
                    covered: has(flag::COVERED),
                    pass_through: has(flag::PASS_THROUGH),
                    value: extra.value,
                    checked: extra.checked,
                    options: extra.options,
                    frame_origin: extra.frame_origin,
                    ink: look.map(|[ink, _, _]| Arc::clone(ink)),
                    paper: look.map(|[_, paper, _]| Arc::clone(paper)),
                    font_size: look.map(|[_, _, size]| Arc::clone(size)),
                }
            })
            .collect();
        RawPage {
            doc: wire.doc,
            host: wire.host,
            url: wire.url,
            origin: wire.origin,
            title: wire.title,
            viewport: wire.viewport,
            nodes,
            truncated: wire.truncated,
        }
    }
}
