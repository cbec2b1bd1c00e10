//! Small text helpers shared by the page map and the providers.

/// Keeps at most `max` characters, marking a cut with an ellipsis.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Cuts at the last space before `max` characters when there is one, so words stay whole.
pub fn truncate_words(text: &str, max: usize) -> String {
    let Some((cut, _)) = text.char_indices().nth(max) else {
        return text.to_string();
    };
    let head = &text[..cut];
    let head = head.rfind(' ').filter(|&space| space > cut / 2).map_or(head, |space| &head[..space]);
    format!("{head}…")
}

/// `1234567` as `1,234,567`, for the counts and limits in messages.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The words of a text in lower case: split at anything not a letter or digit.
pub fn lower_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// The words of a name, label or id as written: split at anything not a letter or digit and where
/// a lower-case letter meets an upper-case one (`DeleteOutlineIcon` -> Delete, Outline, Icon;
/// `mfa_code`, `thumbs-up.svg`).
pub fn name_words(name: &str) -> impl Iterator<Item = &str> {
    name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).flat_map(split_camel_case)
}

/// `DeleteOutline` -> `Delete`, `Outline`; `reply` -> `reply`.
fn split_camel_case(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    for pair in chars.windows(2) {
        let ((_, a), (at, b)) = (pair[0], pair[1]);
        if a.is_lowercase() && b.is_uppercase() {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    parts.push(&word[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_characters_and_words() {
        assert_eq!(truncate_chars("héllo", 3), "hél…");
        assert_eq!(truncate_chars("abc", 3), "abc");
        assert_eq!(truncate_words("one two three four", 12), "one two…");
        assert_eq!(truncate_words("short", 12), "short");
    }

    #[test]
    fn splits_texts_and_names_into_words() {
        assert_eq!(lower_words("Add to Cart — now!"), ["add", "to", "cart", "now"]);
        assert_eq!(name_words("DeleteOutlineIcon").collect::<Vec<_>>(), ["Delete", "Outline", "Icon"]);
        assert_eq!(
            name_words("otpInput mfa_code thumbs-up.svg").collect::<Vec<_>>(),
            ["otp", "Input", "mfa", "code", "thumbs", "up", "svg"]
        );
    }

    #[test]
    fn writes_thousands_with_commas() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
