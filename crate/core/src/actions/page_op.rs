//! The primitive operations the page-side sensor performs, each in one frame: on one element, or
//! on the frame as a whole.

use super::{keys::typing_presses, Click, KeyPress};
use crate::dom_map::ElementRef;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum PageOp {
    /// Scroll into view, hit-test, and click with the full pointer and mouse event sequence.
    Click {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        #[serde(skip_serializing_if = "Click::is_single")]
        click: Click,
    },
    /// Focus, then type as a keyboard does (replacing or appending): per character the key
    /// events of `keys`, with the value set the way frameworks notice; report the value.
    Type {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        text: String,
        clear: bool,
        /// One key press per character of `text`.
        keys: Vec<KeyPress>,
    },
    /// Pointer enter and move events over the element.
    Hover {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
    },
    /// Choose an option of a native select by its text.
    Select {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        text: String,
    },
    /// The option texts of a native select.
    Options {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
    },
    /// Scroll the element's scroll container (`direction`: up, down, top, bottom).
    ScrollElement {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        direction: &'static str,
        pages: f64,
    },
    /// Scroll the frame's main scroller.
    ScrollPage { frame: i32, direction: &'static str, pages: f64 },
    /// Key events to the frame's focused element, with the default actions pages rely on.
    Keys { frame: i32, keys: Vec<KeyPress> },
    /// Find text: how many times it appears, with context; scroll to the first when `reveal`.
    Find { frame: i32, text: String, reveal: bool },
    /// The frame's text with its structure and links, for extraction.
    Content { frame: i32 },
    /// Scroll into view and hit-test, reporting the point to click (for trusted input).
    Locate {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
    },
    /// Focus a text field (selecting its text when `clear`), for trusted typing.
    Focus {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        clear: bool,
    },
    /// Read a field's value.
    Value {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
    },
    /// The form a click on the element would submit: where, how, and its fields.
    Submission {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
    },
    /// The form Enter in the frame's focused field would submit.
    FocusedSubmission { frame: i32 },
}

impl PageOp {
    /// Typing `text` into the element, key by key.
    pub fn type_text(target: ElementRef, tag: String, text: &str, clear: bool) -> PageOp {
        PageOp::Type { target, tag, text: text.to_string(), clear, keys: typing_presses(text) }
    }

    /// The frame the operation runs in.
    pub fn frame(&self) -> i32 {
        match self {
            PageOp::Click { target, .. }
            | PageOp::Type { target, .. }
            | PageOp::Hover { target, .. }
            | PageOp::Select { target, .. }
            | PageOp::Options { target, .. }
            | PageOp::ScrollElement { target, .. }
            | PageOp::Locate { target, .. }
            | PageOp::Focus { target, .. }
            | PageOp::Value { target, .. }
            | PageOp::Submission { target, .. } => target.frame_id,
            PageOp::ScrollPage { frame, .. }
            | PageOp::Keys { frame, .. }
            | PageOp::Find { frame, .. }
            | PageOp::Content { frame }
            | PageOp::FocusedSubmission { frame } => *frame,
        }
    }

    /// Whether the page may change in response, so the host waits for it to settle.
    /// How long the page must stay quiet before it counts as settled after this operation, in
    /// milliseconds; `None` when it cannot change the page. A hover waits longer: menus open on
    /// hover after an intent delay (jQuery UI's is 300 ms).
    pub fn settle_quiet_ms(&self) -> Option<u32> {
        match self {
            PageOp::Hover { .. } => Some(450),
            _ if self.may_change_page() => Some(150),
            _ => None,
        }
    }

    pub fn may_change_page(&self) -> bool {
        !matches!(
            self,
            PageOp::Options { .. }
                | PageOp::Content { .. }
                | PageOp::Find { reveal: false, .. }
                | PageOp::Locate { .. }
                | PageOp::Focus { .. }
                | PageOp::Value { .. }
                | PageOp::Submission { .. }
                | PageOp::FocusedSubmission { .. }
        )
    }
}
