//! The primitive operations the page-side sensor performs, each in one frame: on one element, or
//! on the frame as a whole.

use super::{keys::typing_presses, Click, KeyPress};
use crate::dom_map::ElementRef;
use serde::Serialize;

/// Text up to this long is typed key by key.
pub const KEYED_CHARS: usize = 1_000;
/// A longer text goes in pieces of this many characters (a stop is noticed between two)...
pub const PIECE_CHARS: usize = 5_000;
/// ...but for its last characters, typed key by key.
pub const KEYED_TAIL_CHARS: usize = 20;

/// `text` in pieces of at most `size` characters.
fn pieces(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = rest.char_indices().nth(size).map_or(rest.len(), |(at, _)| at);
        let (piece, after) = rest.split_at(cut);
        rest = after;
        Some(piece)
    })
}

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
    /// events of `keys`, with the value set the way frameworks notice; report the value. Without
    /// keys, `text` goes in as one edit (as a paste or an input method inserts it).
    Type {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        text: String,
        clear: bool,
        /// One key press per character of `text`, or none.
        keys: Vec<KeyPress>,
        /// More of the same text follows: the field's `change` waits for the last piece, and
        /// the page need not settle in between.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        more: bool,
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
        PageOp::Type { target, tag, text: text.to_string(), clear, keys: typing_presses(text), more: false }
    }

    /// Typing `text` into the element, in as many operations as it takes to stay fast and
    /// interruptible: a text of up to [`KEYED_CHARS`] characters key by key in one; a longer
    /// one in pieces of [`PIECE_CHARS`], each inserted as one edit (a field's value is rewritten
    /// at every key, so key by key a long text costs the square of its length), its last
    /// [`KEYED_TAIL_CHARS`] characters key by key (pages that listen for keys, to suggest or to
    /// save a draft, hear them). Each operation appends to the one before.
    pub fn typing(target: ElementRef, tag: String, text: &str, clear: bool) -> Vec<PageOp> {
        let length = text.chars().count();
        if length <= KEYED_CHARS {
            return vec![PageOp::type_text(target, tag, text, clear)];
        }
        let tail_at = text.char_indices().nth(length - KEYED_TAIL_CHARS).map_or(text.len(), |(at, _)| at);
        let (bulk, tail) = text.split_at(tail_at);
        // As key by key: a carriage return types nothing (a field keeps line feeds only).
        let bulk = bulk.replace('\r', "");
        let mut ops: Vec<PageOp> = pieces(&bulk, PIECE_CHARS)
            .enumerate()
            .map(|(i, piece)| PageOp::Type {
                target: target.clone(),
                tag: tag.clone(),
                text: piece.to_string(),
                clear: clear && i == 0,
                keys: Vec::new(),
                more: true,
            })
            .collect();
        let clear = clear && ops.is_empty();
        ops.push(PageOp::type_text(target, tag, tail, clear));
        ops
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
            PageOp::Type { more: true, .. } => None,
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
