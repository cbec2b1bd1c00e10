//! The sensor's raw records, exactly as `extension/page/sensor.js` sends them.

use serde::Deserialize;
use std::collections::BTreeMap;

/// One page as the sensor saw it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct RawPage {
    pub url: String,
    pub title: String,
    pub viewport: Viewport,
    pub nodes: Vec<RawNode>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct Viewport {
    pub width: f64,
    pub height: f64,
    #[serde(rename = "scrollY")]
    pub scroll_y: f64,
    #[serde(rename = "pageHeight")]
    pub page_height: f64,
}

/// One element, in document order.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct RawNode {
    /// Stable per element for as long as it stays in the document.
    pub id: u32,
    /// Position of the parent element in the node list (`None` for the root).
    pub parent: Option<u32>,
    pub tag: String,
    /// The attributes the sensor reads (a fixed list), when present.
    pub attrs: BTreeMap<String, String>,
    /// The element's own text nodes, whitespace collapsed.
    pub text: String,
    /// x, y, width, height in CSS pixels relative to the viewport.
    pub rect: [f64; 4],
    /// Rendered, per `checkVisibility` with opacity and visibility checks.
    pub visible: bool,
    /// Has an inline click handler or an `onclick` property.
    pub listener: bool,
    pub editable: bool,
    pub inert: bool,
    /// The live value of a form control.
    pub value: Option<String>,
    pub checked: Option<bool>,
}

impl RawNode {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.get(name).map(String::as_str)
    }
}
