//! Every way of reading what an action would send: each part as written and decoded (URL
//! encoding, base64, hex, nested), and all the parts run together (data split across
//! parameters), in a form that ignores case and punctuation.

use crate::text::lower_words;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use base64::Engine;
use std::collections::HashSet;

/// Decoding inside decoding goes this deep (base64 of URL-encoded hex, say).
const MAX_DEPTH: usize = 3;
/// Shorter runs are not tried as base64 or hex (they decode into noise that matches nothing).
const MIN_ENCODED_CHARS: usize = 6;
/// At most this many readings of one part.
const MAX_READINGS: usize = 24;

/// One piece of what is sent: a path segment, a parameter's name or value, a form field, a typed text.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub text: String,
    /// A parameter's name: read on its own but not run together with the values.
    pub name: bool,
}

impl Part {
    pub fn value(text: impl Into<String>) -> Part {
        Part { text: text.into(), name: false }
    }

    pub fn name(text: impl Into<String>) -> Part {
        Part { text: text.into(), name: true }
    }
}

/// The readings of an outbound payload.
pub struct Readings {
    /// Each reading with only its letters and digits, lower case.
    compact: Vec<String>,
    /// Each reading as its words, lower case, joined by single spaces.
    words: Vec<Vec<String>>,
}

impl Readings {
    pub fn of(parts: &[Part]) -> Readings {
        let decoded: Vec<Vec<String>> = parts.iter().map(|part| decodings(&part.text)).collect();
        let mut texts: Vec<String> = decoded.iter().flatten().cloned().collect();
        let values: Vec<&Vec<String>> = parts.iter().zip(&decoded).filter(|(p, _)| !p.name).map(|(_, d)| d).collect();
        // The values run together: as written, and each decoded where it decodes.
        texts.push(values.iter().map(|d| d[0].as_str()).collect::<Vec<_>>().join(" "));
        texts.push(values.iter().map(|d| d.get(1).unwrap_or(&d[0]).as_str()).collect::<Vec<_>>().join(" "));
        let mut seen = HashSet::new();
        texts.retain(|text| seen.insert(text.clone()));
        Readings {
            compact: texts.iter().map(|t| compact(t)).collect(),
            words: texts.iter().map(|t| lower_words(t)).collect(),
        }
    }

    /// Whether a reading holds `key` (a value in [`compact`] form); digits at its edges must not
    /// continue into more digits (482913 is not in 1482913).
    pub fn holds(&self, key: &str) -> bool {
        !key.is_empty() && self.compact.iter().any(|reading| holds_at_boundary(reading, key))
    }

    /// A run of `length` words of some reading that appears in `among`, if any.
    pub fn shared_words(&self, among: &HashSet<String>, length: usize) -> Option<String> {
        self.words
            .iter()
            .flat_map(|words| words.windows(length))
            .map(|window| window.join(" "))
            .find(|w| among.contains(w))
    }
}

fn holds_at_boundary(reading: &str, key: &str) -> bool {
    let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
    let (digit_start, digit_end) = (digit(key.chars().next()), digit(key.chars().next_back()));
    reading.match_indices(key).any(|(at, _)| {
        let runs_on_before = digit_start && digit(reading[..at].chars().next_back());
        let runs_on_after = digit_end && digit(reading[at + key.len()..].chars().next());
        !runs_on_before && !runs_on_after
    })
}

/// Letters and digits only, lower case: "Ada@Example.org" and "ada example org" read the same.
pub fn compact(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// `text` as written (URL-decoded), then every decoding of it and of its pieces, nested.
pub fn decodings(text: &str) -> Vec<String> {
    let mut out = vec![url_decoded(text)];
    let mut layer = out.clone();
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for decoded in layer.iter().flat_map(|text| decode_once(text)).map(|text| url_decoded(&text)) {
            if out.len() < MAX_READINGS && !out.contains(&decoded) {
                out.push(decoded.clone());
                next.push(decoded);
            }
        }
        layer = next;
    }
    out
}

/// Percent-decoding repeated until nothing changes (double encoding), `+` read as a space.
fn url_decoded(text: &str) -> String {
    let mut text = text.to_string();
    for _ in 0..MAX_DEPTH {
        let decoded = percent_encoding::percent_decode_str(&text.replace('+', " ")).decode_utf8_lossy().into_owned();
        if decoded == text {
            break;
        }
        text = decoded;
    }
    text
}

/// The base64 and hex readings of `text` as a whole and of each run of encoding characters in it.
fn decode_once(text: &str) -> Vec<String> {
    let mut runs: Vec<&str> = vec![text.trim()];
    // Runs of the standard alphabet, then of the URL-safe one (each may border on the other's).
    runs.extend(text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))));
    runs.extend(text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '='))));
    let mut out = Vec::new();
    for run in runs.into_iter().filter(|run| run.len() >= MIN_ENCODED_CHARS) {
        for decoded in [from_base64(run), from_hex(run)].into_iter().flatten() {
            if !out.contains(&decoded) {
                out.push(decoded);
            }
        }
    }
    out
}

fn from_base64(run: &str) -> Option<String> {
    let trimmed = run.trim_end_matches('=');
    let bytes = STANDARD_NO_PAD.decode(trimmed).or_else(|_| URL_SAFE_NO_PAD.decode(trimmed)).ok()?;
    printable(bytes)
}

fn from_hex(run: &str) -> Option<String> {
    let run = run.strip_prefix("0x").unwrap_or(run);
    if run.len() % 2 != 0 || !run.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let bytes =
        (0..run.len()).step_by(2).map(|i| u8::from_str_radix(&run[i..i + 2], 16).ok()).collect::<Option<Vec<u8>>>()?;
    printable(bytes)
}

/// Decoded bytes that read as text (UTF-8 without control characters), else noise.
fn printable(bytes: Vec<u8>) -> Option<String> {
    let text = String::from_utf8(bytes).ok()?;
    let readable = !text.trim().is_empty() && text.chars().all(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\r'));
    readable.then_some(text)
}
