use super::*;
use crate::browser::BrowserError;
use crate::llm::LlmError;
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn english_comes_from_the_messages_with_arguments_in_place() {
    let refused = LlmError::Unauthorized { status: 401, detail: "bad key".into() };
    assert_eq!(
        refused.text().english(),
        "The model provider refused the API key (HTTP 401: bad key). Open the settings and enter a valid key for this provider."
    );
    assert_eq!(refused.to_string(), refused.text().english(), "errors display their English");
    assert_eq!(text!("no_such_key", "x").english(), "no_such_key", "a missing key shows as itself");
}

#[test]
fn a_nested_text_is_rendered_in_its_place() {
    let stopped = text!("core_task_failed_steps", 3u32, BrowserError::Navigation("timeout".into()).text());
    assert_eq!(
        stopped.english(),
        "The task stopped after 3 failed steps in a row. Last problem: the page did not load: timeout"
    );
}

#[test]
fn dollars_are_written_twice_and_arguments_stay_as_given() {
    let args = [Arg::from("$5"), Arg::from("$1")];
    assert_eq!(substitute("costs $$$1, not $2 ($$2)", &args), "costs $$5, not $1 ($2)");
    assert_eq!(substitute("trailing $", &[]), "trailing $");
    assert_eq!(substitute("$3 is missing", &args), " is missing");
}

#[test]
fn redaction_reaches_every_argument() {
    let redact = |text: &str| text.replace("hunter2", "<secret:pin>");
    let leaked =
        text!("core_warning_data_stopped", text!("core_doing_opening", "https://a.test/?p=hunter2"), "hunter2");
    let redacted = leaked.redacted(&redact);
    assert!(!format!("{redacted:?}").contains("hunter2"), "{redacted:?}");
    assert!(redacted.english().contains("https://a.test/?p=<secret:pin>"), "{}", redacted.english());
    let message = Message::from(text!("core_llm_http", 500u16, "hunter2")).redacted(&redact);
    assert!(!message.contains("hunter2") && !format!("{:?}", message.text()).contains("hunter2"));
}

#[test]
fn a_message_reads_and_serializes_as_its_english_and_keeps_its_text() {
    let message = Message::from(BrowserError::TabClosed.text());
    assert_eq!(message, "the tab the task was running in has been closed");
    assert_eq!(serde_json::to_value(&message).unwrap(), "the tab the task was running in has been closed");
    assert_eq!(message.text().map(|text| text.key), Some("core_browser_tab_closed"));
    assert_eq!(Message::from("from a host").text(), None);
}

/// The `core_` keys written in the core's and the shim's sources.
fn keys_in_code() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut keys = BTreeSet::new();
    let mut dirs = vec![root.join("core/src"), root.join("wasm/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let source = std::fs::read_to_string(&path).unwrap();
                for quoted in source.split('"').skip(1).step_by(2) {
                    if quoted.starts_with("core_") && quoted.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        keys.insert(quoted.to_string());
                    }
                }
            }
        }
    }
    keys
}

/// The `$1`… a message substitutes.
fn placeholders(message: &str) -> BTreeSet<char> {
    let without_dollars = message.replace("$$", "");
    without_dollars.split('$').skip(1).filter_map(|rest| rest.chars().next().filter(char::is_ascii_digit)).collect()
}

#[test]
fn every_key_in_the_code_is_in_english_and_german_with_the_same_arguments() {
    let german = messages_of(include_str!("../../../../_locales/de/messages.json"));
    let keys = keys_in_code();
    assert!(keys.len() > 50, "{keys:?}");
    for key in &keys {
        let english = english_messages().get(key).unwrap_or_else(|| panic!("{key} is not in en/messages.json"));
        let german = german.get(key).unwrap_or_else(|| panic!("{key} is not in de/messages.json"));
        assert_eq!(placeholders(german), placeholders(english), "{key}: {german}");
    }
}
