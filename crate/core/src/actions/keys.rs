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
    const NAMED: &[(&str, &str, &str)] = &[
        ("enter", "Enter", "Enter"),
        ("return", "Enter", "Enter"),
        ("tab", "Tab", "Tab"),
        ("escape", "Escape", "Escape"),
        ("esc", "Escape", "Escape"),
        ("backspace", "Backspace", "Backspace"),
        ("delete", "Delete", "Delete"),
        ("space", " ", "Space"),
        ("arrowup", "ArrowUp", "ArrowUp"),
        ("arrowdown", "ArrowDown", "ArrowDown"),
        ("arrowleft", "ArrowLeft", "ArrowLeft"),
        ("arrowright", "ArrowRight", "ArrowRight"),
        ("up", "ArrowUp", "ArrowUp"),
        ("down", "ArrowDown", "ArrowDown"),
        ("left", "ArrowLeft", "ArrowLeft"),
        ("right", "ArrowRight", "ArrowRight"),
        ("home", "Home", "Home"),
        ("end", "End", "End"),
        ("pageup", "PageUp", "PageUp"),
        ("pagedown", "PageDown", "PageDown"),
    ];
    let lower = name.to_ascii_lowercase();
    if let Some((_, key, code)) = NAMED.iter().find(|(alias, ..)| *alias == lower) {
        return Some(press(key, code));
    }
    let mut chars = name.chars();
    let ch = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    let code = match ch {
        'a'..='z' | 'A'..='Z' => format!("Key{}", ch.to_ascii_uppercase()),
        '0'..='9' => format!("Digit{ch}"),
        _ => String::new(),
    };
    Some(press(&ch.to_string(), &code))
}

fn press(key: &str, code: &str) -> KeyPress {
    KeyPress { key: key.into(), code: code.into(), ctrl: false, shift: false, alt: false, meta: false }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_named_keys_characters_and_combinations() {
        let presses = parse_keys("Enter control+a Shift+Tab esc 7").unwrap();
        assert_eq!(presses[0], press("Enter", "Enter"));
        assert_eq!(presses[1], KeyPress { ctrl: true, ..press("a", "KeyA") });
        assert_eq!(presses[2], KeyPress { shift: true, ..press("Tab", "Tab") });
        assert_eq!(presses[3].key, "Escape");
        assert_eq!(presses[4], press("7", "Digit7"));
        assert_eq!(parse_keys("Control++").unwrap()[0], KeyPress { ctrl: true, ..press("+", "") });
    }

    #[test]
    fn explains_unknown_keys_and_modifiers() {
        assert!(parse_keys("Hyper+A").unwrap_err().contains("\"hyper\" is not a modifier"));
        assert!(parse_keys("Entr").unwrap_err().contains("\"Entr\" is not a key name"));
        assert!(parse_keys("  ").unwrap_err().contains("at least one key"));
    }
}
