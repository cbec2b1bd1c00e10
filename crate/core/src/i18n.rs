//! The core's texts for the user, in the user's language.
//!
//! What the core tells the user (errors, approval questions, warnings) is a [`Text`]: a key of
//! the extension's `_locales/*/messages.json` with its arguments. The panel translates it with
//! `chrome.i18n`; [`Text::english`] renders the English from `_locales/en/messages.json`, built into
//! the core, for everyone who reads English: the run record, the runner, the model and the tests.
//! So each wording is written once, in messages.json, under a key starting `core_`.
//!
//! Messages substitute `$1` to `$9` and write a literal `$` as `$$`, as `chrome.i18n` does when
//! given substitutions. An argument is words from elsewhere (a server's error detail, a URL, an
//! element's text), shown as they are, or a nested text translated in its turn.
//!
//! What the model reads (action outcomes, notes in the conversation) stays English: the prompts
//! are English, and the model is not shown the user's language there.

use serde::{Serialize, Serializer};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// The English messages, as the extension ships them.
const ENGLISH_MESSAGES: &str = include_str!("../../../_locales/en/messages.json");

/// A text for the user: a message key and its arguments (`$1` is the first).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Text {
    pub key: &'static str,
    pub args: Vec<Arg>,
}

/// One argument of a [`Text`]: words shown as they are, or a text translated in its turn.
/// Serialized as a string or as a nested `{key, args}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Arg {
    Plain(String),
    Text(Text),
}

/// A [`Text`] from its key and arguments, each converted with `Arg::from`:
/// `text!("core_browser_tab_closed")`, `text!("core_llm_http", status, detail)`.
#[macro_export]
macro_rules! text {
    ($key:literal $(, $arg:expr)* $(,)?) => {
        $crate::i18n::Text { key: $key, args: vec![$($crate::i18n::Arg::from($arg)),*] }
    };
}

impl Text {
    /// The text in English, as `_locales/en/messages.json` words it. A key missing there shows
    /// as itself, as in the panel (a test keeps every key used defined).
    pub fn english(&self) -> String {
        match english_messages().get(self.key) {
            Some(message) => substitute(message, &self.args),
            None => self.key.to_string(),
        }
    }

    /// The text with every plain argument, nested ones included, passed through `redact`.
    pub fn redacted(self, redact: &dyn Fn(&str) -> String) -> Text {
        let args = self
            .args
            .into_iter()
            .map(|arg| match arg {
                Arg::Plain(words) => Arg::Plain(redact(&words)),
                Arg::Text(text) => Arg::Text(text.redacted(redact)),
            })
            .collect();
        Text { key: self.key, args }
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.english())
    }
}

impl Arg {
    pub fn english(&self) -> String {
        match self {
            Arg::Plain(words) => words.clone(),
            Arg::Text(text) => text.english(),
        }
    }
}

impl From<Text> for Arg {
    fn from(text: Text) -> Arg {
        Arg::Text(text)
    }
}

impl From<String> for Arg {
    fn from(words: String) -> Arg {
        Arg::Plain(words)
    }
}

impl From<&str> for Arg {
    fn from(words: &str) -> Arg {
        Arg::Plain(words.to_string())
    }
}

impl From<&String> for Arg {
    fn from(words: &String) -> Arg {
        Arg::Plain(words.clone())
    }
}

/// Numbers are shown as Rust writes them (no grouping), in every language.
macro_rules! number_args {
    ($($number:ty),*) => {$(
        impl From<$number> for Arg {
            fn from(number: $number) -> Arg {
                Arg::Plain(number.to_string())
            }
        }
    )*};
}
number_args!(u16, u32, u64, usize, f64);

/// What an event tells the user: its English, and the text the panel translates when the core
/// wrote it (words from elsewhere, such as a host's error, have none). Reads, compares and
/// serializes as its English, so that everything reading events as strings goes on doing so.
#[derive(Debug, Clone)]
pub struct Message {
    english: String,
    text: Option<Text>,
}

impl Message {
    pub fn text(&self) -> Option<&Text> {
        self.text.as_ref()
    }

    /// The message with every text passed through `redact` (its English and its arguments).
    pub fn redacted(self, redact: &dyn Fn(&str) -> String) -> Message {
        Message { english: redact(&self.english), text: self.text.map(|text| text.redacted(redact)) }
    }
}

impl From<Message> for Arg {
    fn from(message: Message) -> Arg {
        match message.text {
            Some(text) => Arg::Text(text),
            None => Arg::Plain(message.english),
        }
    }
}

impl PartialEq for Message {
    fn eq(&self, other: &Message) -> bool {
        self.english == other.english
    }
}

impl PartialEq<&str> for Message {
    fn eq(&self, english: &&str) -> bool {
        self.english == *english
    }
}

impl From<Text> for Message {
    fn from(text: Text) -> Message {
        Message { english: text.english(), text: Some(text) }
    }
}

impl From<String> for Message {
    fn from(english: String) -> Message {
        Message { english, text: None }
    }
}

impl From<&str> for Message {
    fn from(english: &str) -> Message {
        Message::from(english.to_string())
    }
}

impl std::ops::Deref for Message {
    type Target = str;

    fn deref(&self) -> &str {
        &self.english
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.english)
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.english)
    }
}

/// `message` with `$1` to `$9` replaced by the arguments' English (nothing for a missing one)
/// and `$$` by `$`.
fn substitute(message: &str, args: &[Arg]) -> String {
    let mut rendered = String::with_capacity(message.len());
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().copied()) {
            ('$', Some('$')) => {
                chars.next();
                rendered.push('$');
            }
            ('$', Some(digit @ '1'..='9')) => {
                chars.next();
                if let Some(arg) = args.get(digit as usize - '1' as usize) {
                    rendered.push_str(&arg.english());
                }
            }
            _ => rendered.push(c),
        }
    }
    rendered
}

/// The English messages by key, read once.
fn english_messages() -> &'static HashMap<String, String> {
    static MESSAGES: OnceLock<HashMap<String, String>> = OnceLock::new();
    MESSAGES.get_or_init(|| messages_of(ENGLISH_MESSAGES))
}

/// The messages of a `messages.json` by key.
fn messages_of(json: &str) -> HashMap<String, String> {
    let parsed: HashMap<String, Value> = serde_json::from_str(json).expect("messages.json is a JSON object");
    parsed.into_iter().filter_map(|(key, entry)| Some((key, entry.get("message")?.as_str()?.to_string()))).collect()
}

#[cfg(test)]
mod tests;
