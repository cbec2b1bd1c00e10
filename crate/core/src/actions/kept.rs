//! How the conversation keeps an action the model asked for.

use super::Action;
use crate::text::{thousands, truncate_chars};
use serde_json::Value;

/// A text written to a file is kept in the conversation only by its start: the file holds it, and
/// the conversation, which every step sends, does not grow with the notebook.
const KEPT_WRITTEN_CHARS: usize = 120;

/// An action as the conversation keeps it: a file action's text cut to its start.
pub fn kept_in_history(action: &Action) -> Value {
    let (Action::WriteFile { name, text } | Action::AppendFile { name, text }) = action else {
        return action.to_json();
    };
    let length = text.chars().count();
    if length <= KEPT_WRITTEN_CHARS {
        return action.to_json();
    }
    let kept =
        format!("{} ({} characters in all, in {name})", truncate_chars(text, KEPT_WRITTEN_CHARS), thousands(length));
    let mut kept_action = action.to_json();
    kept_action["text"] = Value::from(kept);
    kept_action
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_conversation_keeps_only_the_start_of_a_long_text_written() {
        let rows: String = (0..20).map(|n| format!("item {n},{n}\n")).collect();
        let append = Action::AppendFile { name: "rows.csv".into(), text: rows.clone() };
        let kept = kept_in_history(&append);
        assert_eq!(kept["do"], "append_file");
        let text = kept["text"].as_str().unwrap();
        assert!(
            text.starts_with("item 0,0\nitem 1,1")
                && text.ends_with(&format!("… ({} characters in all, in rows.csv)", rows.len()))
        );
        let short = Action::WriteFile { name: "todo.md".into(), text: "- [ ] a".into() };
        assert_eq!(kept_in_history(&short), short.to_json());
    }
}
