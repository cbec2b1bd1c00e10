//! Reading JSON the way models write it: trailing commas, single quotes, unquoted keys, Python's
//! True/False/None, typographic quotes, and replies cut off before their closing brackets.

use serde_json::Value;

/// Parses `text` as JSON, repairing the usual near-misses when strict parsing fails. The error is
/// strict parsing's, which says best what was wrong.
pub fn parse_lenient(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(text).or_else(|strict| serde_json::from_str(&repair(text)).map_err(|_| strict))
}

/// The outermost `{...}` of a model's reply, dropping a reasoning model's `<think>` block and any
/// prose or code fence around it. A reply cut off before its closing brace keeps everything from
/// the opening one, for [`repair`] to close.
pub fn outermost_object(reply: &str) -> Option<&str> {
    let reply = reply.rfind("</think>").map_or(reply, |end| &reply[end + "</think>".len()..]);
    let start = reply.find('{')?;
    Some(match reply.rfind('}') {
        Some(end) if end > start => &reply[start..=end],
        _ => &reply[start..],
    })
}

/// The JSON object a model's reply holds, read leniently; `None` when it holds none.
pub fn object_in(reply: &str) -> Option<Value> {
    parse_lenient(outermost_object(reply)?).ok()
}

/// A text a model was made to write, when it says something: `None` for a missing or null field,
/// an empty one, a placeholder that a model held to a schema writes when it has nothing to say
/// ("N/A", "none", "-"...), or the `example` its instructions gave for the field (which small
/// models copy), so that such a filler never stands in for a real answer.
pub fn meaningful_text(value: Option<&Value>, example: &str) -> Option<String> {
    const PLACEHOLDERS: &[&str] =
        &["", "n/a", "na", "none", "null", "nil", "-", "--", "...", "…", "(none)", "not applicable", "no answer"];
    let text = value?.as_str()?.trim();
    let bare = text.trim_end_matches('.').to_lowercase();
    (!PLACEHOLDERS.contains(&bare.as_str()) && text != example).then(|| text.to_string())
}

/// The text with near-JSON mended; valid JSON comes back unchanged in meaning.
pub fn repair(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut closers: Vec<char> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            match c {
                '\\' => match chars.next() {
                    // JSON has no \' escape: a quote inside a single-quoted string is plain.
                    Some('\'') => out.push('\''),
                    Some(next) => {
                        out.push(c);
                        out.push(next);
                    }
                    None => {}
                },
                c if c == q || (q == '"' && c == '\u{201d}') => {
                    out.push('"');
                    quote = None;
                }
                '"' => out.push_str("\\\""), // a double quote inside a single-quoted string
                '\n' => out.push_str("\\n"),
                _ => out.push(c),
            }
            continue;
        }
        match c {
            '"' | '\'' | '\u{201c}' => {
                out.push('"');
                quote = Some(if c == '\'' { '\'' } else { '"' });
            }
            '{' => {
                out.push(c);
                closers.push('}');
            }
            '[' => {
                out.push(c);
                closers.push(']');
            }
            '}' | ']' => {
                drop_trailing_comma(&mut out);
                if closers.last() == Some(&c) {
                    closers.pop();
                }
                out.push(c);
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut word = String::from(c);
                while let Some(&next) = chars.peek() {
                    if next.is_ascii_alphanumeric() || next == '_' {
                        word.push(next);
                        chars.next();
                    } else {
                        break;
                    }
                }
                let is_key = chars.clone().find(|c| !c.is_whitespace()) == Some(':');
                out.push_str(&match (word.as_str(), is_key) {
                    (_, true) => format!("\"{word}\""),
                    ("True", _) => "true".into(),
                    ("False", _) => "false".into(),
                    ("None", _) => "null".into(),
                    _ => word,
                });
            }
            _ => out.push(c),
        }
    }
    if quote.is_some() {
        out.push('"');
    }
    drop_trailing_comma(&mut out);
    while let Some(closer) = closers.pop() {
        drop_dangling_key(&mut out);
        out.push(closer);
    }
    out
}

fn drop_trailing_comma(out: &mut String) {
    let trimmed = out.trim_end().len();
    if out[..trimmed].ends_with(',') {
        out.truncate(trimmed - 1);
    }
}

/// A reply cut off after `"key":` or `"key"` cannot keep that key.
fn drop_dangling_key(out: &mut String) {
    if let Some(without_colon) = out.trim_end().strip_suffix(':') {
        let without_colon = without_colon.trim_end();
        if let Some(start) = without_colon.strip_suffix('"').and_then(|s| s.rfind('"')) {
            out.truncate(start);
            drop_trailing_comma(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_json_is_read_as_is() {
        assert_eq!(parse_lenient(r#"{"a": [1, "x,]"], "b": null}"#).unwrap(), json!({"a": [1, "x,]"], "b": null}));
    }

    #[test]
    fn mends_what_models_get_wrong() {
        let cases = [
            (r#"{"a": 1, "b": [1, 2,],}"#, json!({"a": 1, "b": [1, 2]})),
            (r#"{'a': 'it\'s', "b": 'say "hi"'}"#, json!({"a": "it's", "b": "say \"hi\""})),
            (
                r#"{action: [{done: {text: "ok", success: True}}]}"#,
                json!({"action": [{"done": {"text": "ok", "success": true}}]}),
            ),
            ("{\u{201c}a\u{201d}: None}", json!({"a": null})),
            ("{\"a\": \"line one\nline two\"}", json!({"a": "line one\nline two"})),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_lenient(text).map_err(|e| format!("{e} in {}", repair(text))), Ok(expected), "{text}");
        }
    }

    #[test]
    fn completes_replies_cut_off_mid_way() {
        assert_eq!(
            parse_lenient(r#"{"current_state": {"memory": "half"}, "action": [{"click_element": {"index": 3}"#)
                .unwrap(),
            json!({"current_state": {"memory": "half"}, "action": [{"click_element": {"index": 3}}]})
        );
        assert_eq!(parse_lenient(r#"{"a": "unfinished"#).unwrap(), json!({"a": "unfinished"}));
        assert_eq!(parse_lenient(r#"{"a": 1, "b":"#).unwrap(), json!({"a": 1}));
    }

    #[test]
    fn hopeless_text_keeps_the_strict_error() {
        let err = parse_lenient("{oops: }}}").unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
    }

    #[test]
    fn finds_the_object_amid_prose_and_after_a_cut() {
        assert_eq!(outermost_object("Sure! ```json\n{\"a\": {\"b\": 1}}\n``` done"), Some(r#"{"a": {"b": 1}}"#));
        assert_eq!(outermost_object(r#"} stray {"a": "cut"#), Some(r#"{"a": "cut"#));
        assert_eq!(outermost_object("no object here"), None);
        assert_eq!(object_in(r#"Verdict: {"ok": True,}"#), Some(serde_json::json!({"ok": true})));
        assert_eq!(object_in("{nonsense: }}}"), None);
    }
}
