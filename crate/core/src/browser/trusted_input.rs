//! Trusted input through the Chrome DevTools Protocol (`Input` domain), for pages that ignore
//! synthetic events (they check `isTrusted`). Used only when the user turns it on; the host sends
//! these commands through `chrome.debugger`.

use super::{Click, KeyPress};
use serde::Serialize;
use serde_json::{json, Value};

/// One DevTools Protocol command.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputCommand {
    pub method: &'static str,
    pub params: Value,
}

/// A click at a point of the top frame's viewport: move, then press and release (twice for a
/// double click, the second with a click count of 2; with the right button for a right click).
pub fn click_at(x: f64, y: f64, click: Click) -> Vec<InputCommand> {
    let (button, pressed) = if click == Click::Right { ("right", 2) } else { ("left", 1) };
    let mouse = |kind: &str, buttons: u8, count: u8| InputCommand {
        method: "Input.dispatchMouseEvent",
        params: json!({ "type": kind, "x": x, "y": y, "button": button, "buttons": buttons, "clickCount": count }),
    };
    let mut commands = vec![InputCommand {
        method: "Input.dispatchMouseEvent",
        params: json!({ "type": "mouseMoved", "x": x, "y": y, "button": "none", "buttons": 0 }),
    }];
    let presses = if click == Click::Double { 2 } else { 1 };
    for count in 1..=presses {
        commands.push(mouse("mousePressed", pressed, count));
        commands.push(mouse("mouseReleased", 0, count));
    }
    commands
}

/// Text typed at the caret, as an input method would insert it.
pub fn insert_text(text: &str) -> Vec<InputCommand> {
    vec![InputCommand { method: "Input.insertText", params: json!({ "text": text }) }]
}

/// A trusted insertion takes this many characters at most, so that a stop is noticed between two
/// (the browser inserts them natively: larger pieces than synthetic typing's).
pub const INSERT_PIECE_CHARS: usize = 25_000;

/// `text` typed at the caret in pieces of at most [`INSERT_PIECE_CHARS`] characters, each piece
/// its own commands.
pub fn insert_pieces(text: &str) -> Vec<Vec<InputCommand>> {
    let mut pieces = Vec::new();
    let mut rest = text;
    loop {
        let cut = rest.char_indices().nth(INSERT_PIECE_CHARS).map_or(rest.len(), |(at, _)| at);
        let (piece, after) = rest.split_at(cut);
        pieces.push(insert_text(piece));
        if after.is_empty() {
            return pieces;
        }
        rest = after;
    }
}

/// Key down and up for each press, with the text a printable key produces.
pub fn key_presses(presses: &[KeyPress]) -> Vec<InputCommand> {
    presses
        .iter()
        .flat_map(|press| {
            let modifiers = u8::from(press.alt)
                | u8::from(press.ctrl) << 1
                | u8::from(press.meta) << 2
                | u8::from(press.shift) << 3;
            let text = match press.key.as_str() {
                "Enter" => Some("\r".to_string()),
                key if key.chars().count() == 1 && !press.ctrl && !press.meta => Some(key.to_string()),
                _ => None,
            };
            let mut down = json!({
                "type": if text.is_some() { "keyDown" } else { "rawKeyDown" },
                "key": press.key,
                "code": press.code,
                "modifiers": modifiers,
                "windowsVirtualKeyCode": press.key_code,
            });
            if let Some(text) = text {
                down["text"] = json!(text);
                down["unmodifiedText"] = down["text"].clone();
            }
            let up = json!({
                "type": "keyUp",
                "key": press.key,
                "code": press.code,
                "modifiers": modifiers,
                "windowsVirtualKeyCode": press.key_code,
            });
            [
                InputCommand { method: "Input.dispatchKeyEvent", params: down },
                InputCommand { method: "Input.dispatchKeyEvent", params: up },
            ]
        })
        .collect()
}

/// A drag with the left button from one point of the top frame's viewport to another, in three
/// parts sent one after the other (the page settles between them, as it would between a person's
/// moves): press and a first small move, which starts a drag in libraries that wait for some
/// distance (dnd-kit, jQuery UI); the moves along the path, the button held; the release. Drags
/// are intercepted meanwhile (`Input.setInterceptDrags`): an HTML5 drag that the press lets begin
/// (SortableJS makes its item draggable then) goes on as the drag events the host sends in place
/// of the moves and the release (extension/background/trusted-drags.js), as the browser's own drag
/// loop, which the debugger cannot drive, would.
pub fn drag_between(from: [f64; 2], to: [f64; 2]) -> [Vec<InputCommand>; 3] {
    let mouse = |kind: &str, [x, y]: [f64; 2], buttons: u8| InputCommand {
        method: "Input.dispatchMouseEvent",
        params: json!({ "type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1 }),
    };
    let [dx, dy] = [to[0] - from[0], to[1] - from[1]];
    let steps = ((dx.hypot(dy) / 20.0).round() as usize).clamp(8, 30);
    let along = |i: usize| [from[0] + dx * i as f64 / steps as f64, from[1] + dy * i as f64 / steps as f64];
    let intercept =
        |enabled: bool| InputCommand { method: "Input.setInterceptDrags", params: json!({ "enabled": enabled }) };
    let start = [
        intercept(true),
        InputCommand {
            method: "Input.dispatchMouseEvent",
            params: json!({ "type": "mouseMoved", "x": from[0], "y": from[1], "button": "none", "buttons": 0 }),
        },
        mouse("mousePressed", from, 1),
        mouse("mouseMoved", along(1), 1),
    ];
    let path = (2..=steps).map(along).chain([to]).map(|point| mouse("mouseMoved", point, 1)).collect();
    [start.to_vec(), path, vec![mouse("mouseReleased", to, 0), intercept(false)]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::parse_keys;

    #[test]
    fn a_click_moves_presses_and_releases_at_the_point() {
        let commands = click_at(10.5, 20.0, Click::Single);
        let kinds: Vec<&str> = commands.iter().map(|c| c.params["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["mouseMoved", "mousePressed", "mouseReleased"]);
        assert_eq!(commands[1].params["x"], 10.5);
        assert_eq!(commands[1].params["clickCount"], 1);
        let double = click_at(1.0, 2.0, Click::Double);
        assert_eq!(double.len(), 5);
        assert_eq!(double[3].params["clickCount"], 2);
        let right = click_at(1.0, 2.0, Click::Right);
        assert_eq!((right[1].params["button"].as_str(), right[1].params["buttons"].as_u64()), (Some("right"), Some(2)));
    }

    #[test]
    fn a_long_text_is_inserted_in_pieces_that_make_it_whole() {
        assert_eq!(insert_pieces(""), vec![insert_text("")]);
        assert_eq!(insert_pieces("héllo"), vec![insert_text("héllo")]);
        let text: String = "é".repeat(INSERT_PIECE_CHARS * 2 + 7);
        let pieces = insert_pieces(&text);
        assert_eq!(pieces.len(), 3);
        let joined: String = pieces.iter().map(|piece| piece[0].params["text"].as_str().unwrap()).collect();
        assert_eq!(joined, text);
        assert_eq!(pieces[0][0].params["text"].as_str().unwrap().chars().count(), INSERT_PIECE_CHARS);
    }

    #[test]
    fn keys_carry_codes_modifiers_and_text() {
        let commands = key_presses(&parse_keys("Enter Control+a b").unwrap());
        assert_eq!(commands.len(), 6);
        assert_eq!(commands[0].params["type"], "keyDown");
        assert_eq!(commands[0].params["text"], "\r");
        assert_eq!(commands[0].params["windowsVirtualKeyCode"], 13);
        assert_eq!(commands[2].params["type"], "rawKeyDown");
        assert_eq!(commands[2].params["modifiers"], 2);
        assert_eq!(commands[2].params["windowsVirtualKeyCode"], 65);
        assert!(commands[2].params.get("text").is_none());
        assert_eq!(commands[4].params["text"], "b");
        assert_eq!(commands[5].params["type"], "keyUp");
    }

    #[test]
    fn a_drag_presses_moves_with_the_button_held_and_releases_at_the_end() {
        let [start, path, end] = drag_between([10.0, 20.0], [410.0, 20.0]);
        assert_eq!((start[0].method, &start[0].params), ("Input.setInterceptDrags", &json!({"enabled": true})));
        let kinds: Vec<&str> = start[1..].iter().map(|c| c.params["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["mouseMoved", "mousePressed", "mouseMoved"]);
        assert_eq!((start[2].params["x"].as_f64(), start[2].params["buttons"].as_u64()), (Some(10.0), Some(1)));
        // 400 px in steps of 20: the first (to 30) taken with the press, the last repeated at the end.
        assert_eq!(path.len(), 20);
        assert!(path.iter().all(|c| c.params["type"] == "mouseMoved" && c.params["buttons"] == 1));
        let xs: Vec<f64> = path.iter().map(|c| c.params["x"].as_f64().unwrap()).collect();
        assert!(xs.windows(2).all(|w| w[0] <= w[1]), "{xs:?}");
        assert_eq!((xs[0], *xs.last().unwrap()), (50.0, 410.0));
        assert_eq!(end[0].params["type"], "mouseReleased");
        assert_eq!((end[0].params["x"].as_f64(), end[0].params["buttons"].as_u64()), (Some(410.0), Some(0)));
        assert_eq!((end[1].method, &end[1].params), ("Input.setInterceptDrags", &json!({"enabled": false})));
        // A short drag still moves in several steps (libraries need some distance, then moves).
        let [_, short, _] = drag_between([0.0, 0.0], [0.0, 5.0]);
        assert_eq!(short.len(), 8);
    }
}
