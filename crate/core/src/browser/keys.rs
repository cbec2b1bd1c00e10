//! Key presses as the model writes them ("Enter", "Control+A", "Shift+Tab ArrowDown") turned into
//! the key events the page-side sensor dispatches.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyPress {
    /// The `KeyboardEvent.key` value.
    pub key: String,
    /// The `KeyboardEvent.code` value.
    pub code: String,
    /// The legacy `keyCode` (and `which`) that older scripts and widget libraries still read;
    /// 0 for a character no US-layout key types.
    pub key_code: u32,
    pub ctrl: bool,
    pub shift: bool,
    pub alt: bool,
    pub meta: bool,
}

/// Reads a space-separated list of key combinations; a combination joins modifiers with `+`.
pub fn parse_keys(keys: &str) -> Result<Vec<KeyPress>, String> {
    let presses: Vec<KeyPress> = keys.split_whitespace().map(parse_combo).collect::<Result<_, _>>()?;
    if presses.is_empty() {
        return Err("send_keys needs at least one key, such as Enter or Control+A".into());
    }
    Ok(presses)
}

fn parse_combo(combo: &str) -> Result<KeyPress, String> {
    let parts: Vec<&str> = combo.split('+').collect();
    let (main, modifiers) = match parts.split_last() {
        // "Control++" means Control and the plus key.
        Some((&"", rest)) if combo.ends_with("++") => ("+", &rest[..rest.len().saturating_sub(1)]),
        Some((main, rest)) => (*main, rest),
        None => return Err(format!("\"{combo}\" is not a key")),
    };
    let mut press = named_key(main).ok_or_else(|| {
        format!("\"{main}\" is not a key name; use names such as Enter, Tab, Escape, ArrowDown, Backspace, a, 1")
    })?;
    for modifier in modifiers {
        match modifier.to_ascii_lowercase().as_str() {
            "control" | "ctrl" => press.ctrl = true,
            "shift" => press.shift = true,
            "alt" | "option" => press.alt = true,
            "meta" | "command" | "cmd" => press.meta = true,
            other => return Err(format!("\"{other}\" is not a modifier; use Control, Shift, Alt or Meta")),
        }
    }
    Ok(press)
}

fn named_key(name: &str) -> Option<KeyPress> {
    const NAMED: &[(&str, &str, &str, u32)] = &[
        ("enter", "Enter", "Enter", 13),
        ("return", "Enter", "Enter", 13),
        ("tab", "Tab", "Tab", 9),
        ("escape", "Escape", "Escape", 27),
        ("esc", "Escape", "Escape", 27),
        ("delete", "Delete", "Delete", 46),
        ("space", " ", "Space", 32),
        ("arrowup", "ArrowUp", "ArrowUp", 38),
        ("arrowdown", "ArrowDown", "ArrowDown", 40),
        ("arrowleft", "ArrowLeft", "ArrowLeft", 37),
        ("arrowright", "ArrowRight", "ArrowRight", 39),
        ("up", "ArrowUp", "ArrowUp", 38),
        ("down", "ArrowDown", "ArrowDown", 40),
        ("left", "ArrowLeft", "ArrowLeft", 37),
        ("right", "ArrowRight", "ArrowRight", 39),
        ("home", "Home", "Home", 36),
        ("end", "End", "End", 35),
        ("pageup", "PageUp", "PageUp", 33),
        ("pagedown", "PageDown", "PageDown", 34),
    ];
    let lower = name.to_ascii_lowercase();
    if lower == "backspace" {
        return Some(backspace());
    }
    if let Some(&(_, key, code, key_code)) = NAMED.iter().find(|(alias, ..)| *alias == lower) {
        return Some(press(key, code, key_code));
    }
    let mut chars = name.chars();
    let ch = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    Some(char_press(ch))
}

/// Backspace, which erases the selected text (or the character before the caret).
pub fn backspace() -> KeyPress {
    press("Backspace", "Backspace", 8)
}

/// The key presses that type `text` on a US keyboard, one per character (a line break is Enter).
pub fn typing_presses(text: &str) -> Vec<KeyPress> {
    text.chars().filter(|&ch| ch != '\r').map(char_press).collect()
}

/// The US-layout key that types `ch`, with Shift held where the layout needs it. A character no
/// key types (accents, other scripts, emoji) keeps its `key` with an empty code and keyCode 0, as
/// an input method delivers it.
fn char_press(ch: char) -> KeyPress {
    /// Punctuation keys: the unshifted and shifted character, the code, the keyCode.
    const PUNCTUATION: &[(char, char, &str, u32)] = &[
        (';', ':', "Semicolon", 186),
        ('=', '+', "Equal", 187),
        (',', '<', "Comma", 188),
        ('-', '_', "Minus", 189),
        ('.', '>', "Period", 190),
        ('/', '?', "Slash", 191),
        ('`', '~', "Backquote", 192),
        ('[', '{', "BracketLeft", 219),
        ('\\', '|', "Backslash", 220),
        (']', '}', "BracketRight", 221),
        ('\'', '"', "Quote", 222),
    ];
    const SHIFTED_DIGITS: &str = ")!@#$%^&*(";
    let key = ch.to_string();
    match ch {
        'a'..='z' | 'A'..='Z' => {
            let upper = ch.to_ascii_uppercase();
            KeyPress { shift: ch.is_ascii_uppercase(), ..press(&key, &format!("Key{upper}"), u32::from(upper)) }
        }
        '0'..='9' => press(&key, &format!("Digit{ch}"), u32::from(ch)),
        ' ' => press(" ", "Space", 32),
        '\n' => press("Enter", "Enter", 13),
        '\t' => press("Tab", "Tab", 9),
        _ => {
            if let Some(digit) = SHIFTED_DIGITS.find(ch) {
                return KeyPress { shift: true, ..press(&key, &format!("Digit{digit}"), 48 + digit as u32) };
            }
            match PUNCTUATION.iter().find(|(plain, shifted, ..)| *plain == ch || *shifted == ch) {
                Some(&(plain, _, code, key_code)) => KeyPress { shift: ch != plain, ..press(&key, code, key_code) },
                None => press(&key, "", 0),
            }
        }
    }
}

fn press(key: &str, code: &str, key_code: u32) -> KeyPress {
    KeyPress { key: key.into(), code: code.into(), key_code, ctrl: false, shift: false, alt: false, meta: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_named_keys_characters_and_combinations() {
        let presses = parse_keys("Enter control+a Shift+Tab esc 7").unwrap();
        assert_eq!(presses[0], press("Enter", "Enter", 13));
        assert_eq!(presses[1], KeyPress { ctrl: true, ..press("a", "KeyA", 65) });
        assert_eq!(presses[2], KeyPress { shift: true, ..press("Tab", "Tab", 9) });
        assert_eq!(presses[3].key, "Escape");
        assert_eq!(presses[3].key_code, 27);
        assert_eq!(presses[4], press("7", "Digit7", 55));
        assert_eq!(parse_keys("ArrowDown").unwrap()[0].key_code, 40);
        assert_eq!(
            parse_keys("Control++").unwrap()[0],
            KeyPress { ctrl: true, shift: true, ..press("+", "Equal", 187) }
        );
    }

    #[test]
    fn typing_uses_the_us_layout_keys_with_shift_where_needed() {
        let presses = typing_presses("aZ3!?é\n");
        let summary: Vec<(&str, &str, u32, bool)> =
            presses.iter().map(|p| (p.key.as_str(), p.code.as_str(), p.key_code, p.shift)).collect();
        assert_eq!(
            summary,
            [
                ("a", "KeyA", 65, false),
                ("Z", "KeyZ", 90, true),
                ("3", "Digit3", 51, false),
                ("!", "Digit1", 49, true),
                ("?", "Slash", 191, true),
                ("é", "", 0, false),
                ("Enter", "Enter", 13, false),
            ]
        );
        assert_eq!(typing_presses("a\r\nb").len(), 3);
    }

    #[test]
    fn explains_unknown_keys_and_modifiers() {
        assert!(parse_keys("Hyper+A").unwrap_err().contains("\"hyper\" is not a modifier"));
        assert!(parse_keys("Entr").unwrap_err().contains("\"Entr\" is not a key name"));
        assert!(parse_keys("  ").unwrap_err().contains("at least one key"));
    }
}
