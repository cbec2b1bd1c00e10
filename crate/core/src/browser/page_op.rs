//! The primitive operations the page-side sensor performs, each in one frame: on one element, or
//! on the frame as a whole.

use super::drag::DropOn;
use super::keys::{backspace, typing_presses, KeyPress};
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

/// Which click: most are single left clicks; a grid cell may want a double click, a context
/// menu a right click.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Click {
    #[default]
    Single,
    Double,
    Right,
}

impl Click {
    pub fn is_single(&self) -> bool {
        *self == Click::Single
    }

    /// "Clicked", "Double-clicked", "Right-clicked", for reports.
    pub fn verb(&self) -> &'static str {
        match self {
            Click::Single => "Clicked",
            Click::Double => "Double-clicked",
            Click::Right => "Right-clicked",
        }
    }
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
    /// Puts files into a file input (as the user's choice in the file picker would), or drops
    /// them onto a drop zone (the drag events a drop from the desktop makes).
    Upload {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        files: Vec<UploadedFile>,
    },
    /// Set an input's value (a range, a number, a spinner) as an edit that ends sets it, and
    /// report the control's number.
    SetValue {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        value: String,
    },
    /// Press `key` `times` in a slider or spinner (or its one thumb inside), the page rendering
    /// after each, and report its number; `times` 0 only reads it.
    Step {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        key: KeyPress,
        times: u32,
    },
    /// Drag the element and drop it on `to`'s centre moved by (`dx`, `dy`), or (`dx`, `dy`) CSS
    /// pixels from where it is taken, with the pointer, mouse and (for a natively draggable
    /// element) HTML5 drag events a person's drag makes; report what changed. With `aim_only`,
    /// only bring both into view and report the two points (for trusted input), remembering the
    /// page as it was for `Dragged`.
    Drag {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
        to: Option<DropOn>,
        dx: f64,
        dy: f64,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        aim_only: bool,
    },
    /// What the drag last aimed at the element changed (once trusted input has performed it).
    Dragged {
        #[serde(flatten)]
        target: ElementRef,
        tag: String,
    },
}

/// A file for the page, its bytes in base64 (operations travel as JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UploadedFile {
    pub name: String,
    pub mime: String,
    pub data: String,
}

impl PageOp {
    /// Typing `text` into the element, key by key. Replacing the field's text (`clear`) with
    /// nothing erases it as a person does: the text selected, then Backspace.
    pub fn type_text(target: ElementRef, tag: String, text: &str, clear: bool) -> PageOp {
        let keys = if clear && text.is_empty() { vec![backspace()] } else { typing_presses(text) };
        PageOp::Type { target, tag, text: text.to_string(), clear, keys, more: false }
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
            | PageOp::Submission { target, .. }
            | PageOp::Upload { target, .. }
            | PageOp::SetValue { target, .. }
            | PageOp::Step { target, .. }
            | PageOp::Drag { target, .. }
            | PageOp::Dragged { target, .. } => target.frame_id,
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
            PageOp::Step { times: 0, .. } => None,
            // Sortable lists animate their items into place (SortableJS for 150 ms).
            PageOp::Drag { aim_only: false, .. } => Some(300),
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
                | PageOp::Dragged { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::parse_keys;
    use serde_json::json;

    #[test]
    fn page_ops_serialize_for_the_sensor() {
        let target = crate::dom_map::ElementRef { frame_id: 3, doc: "d".into(), id: 4 };
        let op = PageOp::type_text(target, "input".into(), "hI", true);
        assert_eq!(op.frame(), 3);
        let key = |key: &str, code: &str, key_code: u32, shift: bool| json!({"key": key, "code": code, "keyCode": key_code, "ctrl": false, "shift": shift, "alt": false, "meta": false});
        assert_eq!(
            serde_json::to_value(op).unwrap(),
            json!({"op": "type", "frame": 3, "doc": "d", "id": 4, "tag": "input", "text": "hI", "clear": true,
                "keys": [key("h", "KeyH", 72, false), key("I", "KeyI", 73, true)]})
        );
        let keys = PageOp::Keys { frame: 0, keys: parse_keys("Enter").unwrap() };
        assert_eq!(
            serde_json::to_value(keys).unwrap(),
            json!({"op": "keys", "frame": 0, "keys": [{"key": "Enter", "code": "Enter", "keyCode": 13, "ctrl": false, "shift": false, "alt": false, "meta": false}]})
        );
    }

    #[test]
    fn a_hover_waits_longer_for_the_page_to_settle_and_reading_waits_not_at_all() {
        let target = crate::dom_map::ElementRef { frame_id: 0, doc: "d".into(), id: 1 };
        let hover = PageOp::Hover { target: target.clone(), tag: "div".into() };
        let click = PageOp::Click { target: target.clone(), tag: "div".into(), click: Click::Single };
        let value = PageOp::Value { target, tag: "input".into() };
        assert!(hover.settle_quiet_ms() > click.settle_quiet_ms());
        assert_eq!(click.settle_quiet_ms(), Some(150));
        assert_eq!(value.settle_quiet_ms(), None);
    }

    #[test]
    fn a_short_text_is_typed_key_by_key_in_one_operation() {
        let target = crate::dom_map::ElementRef { frame_id: 0, doc: "d".into(), id: 4 };
        let text = "x".repeat(KEYED_CHARS);
        let ops = PageOp::typing(target.clone(), "input".into(), &text, true);
        assert_eq!(ops, vec![PageOp::type_text(target, "input".into(), &text, true)]);
        assert_eq!(ops[0].settle_quiet_ms(), Some(150));
    }

    #[test]
    fn a_long_text_goes_in_pieces_that_append_each_one_edit_but_for_its_last_keys() {
        let target = crate::dom_map::ElementRef { frame_id: 0, doc: "d".into(), id: 4 };
        // 12,345 characters, accented (pieces are cut on characters), with lines ending in CR LF.
        let text: String = (0..12_345)
            .map(|i| {
                if i % 100 == 98 {
                    '\r'
                } else if i % 100 == 99 {
                    '\n'
                } else {
                    'é'
                }
            })
            .collect();
        let ops = PageOp::typing(target, "textarea".into(), &text, true);
        let parts: Vec<(&str, bool, usize, bool)> = ops
            .iter()
            .map(|op| match op {
                PageOp::Type { text, clear, keys, more, .. } => (text.as_str(), *clear, keys.len(), *more),
                other => panic!("not typing: {other:?}"),
            })
            .collect();
        assert_eq!(parts.len(), 4, "three pieces of at most 5,000 characters, then the keys");
        let (last, pieces) = parts.split_last().unwrap();
        for (i, &(piece, clear, keys, more)) in pieces.iter().enumerate() {
            assert!(piece.chars().count() <= PIECE_CHARS);
            assert_eq!((clear, keys, more), (i == 0, 0, true), "only the first piece replaces the field's text");
        }
        assert_eq!(
            (last.0.chars().count(), last.1, last.2, last.3),
            (KEYED_TAIL_CHARS, false, KEYED_TAIL_CHARS, false)
        );
        // Together they are the text, less its carriage returns (which no key types).
        let typed: String = parts.iter().map(|part| part.0).collect();
        assert_eq!(typed.replace('\r', ""), text.replace('\r', ""));
        assert!(!pieces.iter().any(|piece| piece.0.contains('\r')));
        // The page settles once, after the last; a piece says more follows.
        let settles: Vec<Option<u32>> = ops.iter().map(PageOp::settle_quiet_ms).collect();
        assert_eq!(settles, [None, None, None, Some(150)]);
        let first = serde_json::to_value(&ops[0]).unwrap();
        assert_eq!((first["more"].clone(), first["keys"].clone()), (json!(true), json!([])));
        assert!(serde_json::to_value(&ops[3]).unwrap().get("more").is_none());
    }

    #[test]
    fn replacing_a_field_s_text_with_nothing_erases_it_with_backspace() {
        let target = crate::dom_map::ElementRef { frame_id: 0, doc: "d".into(), id: 4 };
        let keys = |clear: bool| match PageOp::typing(target.clone(), "input".into(), "", clear).as_slice() {
            [PageOp::Type { keys, clear: cleared, .. }] if *cleared == clear => keys.clone(),
            other => panic!("not one typing: {other:?}"),
        };
        assert_eq!(keys(true), [backspace()]);
        assert!(keys(false).is_empty(), "appending nothing presses nothing");
    }

    #[test]
    fn appending_a_long_text_never_clears_the_field() {
        let target = crate::dom_map::ElementRef { frame_id: 0, doc: "d".into(), id: 4 };
        let ops = PageOp::typing(target, "textarea".into(), &"y".repeat(7_000), false);
        assert!(ops.iter().all(|op| matches!(op, PageOp::Type { clear: false, .. })));
    }
}
