//! Consequences judged by what an act really does: the requests it made that would change
//! something on a site (held back by the browser until allowed, `Browser::hold_writes`), and
//! whether the user's own words asked for the act. Only the user's words and the act's
//! description are read here, never the page's text around it.

use crate::browser::HeldWrite;
use crate::dom_map::MapElement;

/// Words of a button's label that say nothing of what it does.
const FILLER: &[&str] = &[
    "a", "an", "the", "my", "your", "our", "this", "that", "it", "to", "for", "of", "in", "on", "at", "with", "and",
    "or", "now", "here", "me", "please", "all", "new",
];
/// A label of more words than this is not a button's: the critic reads it instead.
const MAX_LABEL_WORDS: usize = 6;
/// Endings taken off a word before it is looked for in the user's words ("subscribing").
const ENDINGS: &[&str] = &["ments", "ment", "ings", "ing", "ions", "ion", "ed", "es", "e", "s"];

/// Whether the user's words ask for the act whose element says `label`: every word the label
/// uses for what it does appears in them ("Subscribe" when the user asked to subscribe; "Pay
/// invoice #88" when they asked to pay invoice 88). Only a clear yes: anything else goes to the
/// critic, a model that reads the same two things (`agent/critic.rs`).
pub fn asked_in_words(user_words: &[String], label: &str) -> bool {
    let said: Vec<String> = user_words.iter().flat_map(|words| words_of(words)).collect();
    let wanted: Vec<String> = words_of(label).into_iter().filter(|word| !FILLER.contains(&word.as_str())).collect();
    if wanted.is_empty() || wanted.len() > MAX_LABEL_WORDS {
        return false;
    }
    wanted.iter().all(|word| {
        let stem = stem(word);
        said.iter()
            .any(|user| if word.chars().all(|c| c.is_ascii_digit()) { user == word } else { user.starts_with(stem) })
    })
}

/// What an element says it does: its accessible name, else its text, else its value or title.
pub fn label(element: &MapElement) -> String {
    let attr = |name: &str| element.attrs.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
    attr("aria-label")
        .filter(|name| !name.trim().is_empty())
        .or_else(|| Some(element.text.clone()).filter(|text| !text.trim().is_empty()))
        .or_else(|| attr("value"))
        .or_else(|| attr("title"))
        .unwrap_or_default()
}

/// The requests among `held` that change something: all but queries sent by POST (a GraphQL
/// `query`, which reads).
pub fn changes(held: &[HeldWrite]) -> Vec<&HeldWrite> {
    held.iter().filter(|write| !is_query(write)).collect()
}

/// A request in words for the user and the critic: `POST shop.test/api/cart` (no query string,
/// which may hold the user's data).
pub fn describe(write: &HeldWrite) -> String {
    let address = url::Url::parse(&write.url).ok().map_or_else(
        || write.url.chars().take(80).collect(),
        |url| format!("{}{}", url.host_str().unwrap_or_default(), url.path()),
    );
    format!("{} {address}", write.method)
}

/// A GraphQL read sent by POST: a JSON body whose `query` holds no mutation.
fn is_query(write: &HeldWrite) -> bool {
    let Ok(body) = serde_json::from_str::<serde_json::Value>(&write.body) else { return false };
    let operations = match &body {
        serde_json::Value::Array(batch) => batch.iter().collect(),
        one => vec![one],
    };
    !operations.is_empty()
        && operations.iter().all(|operation| {
            operation.get("query").and_then(|query| query.as_str()).is_some_and(|query| {
                let query = query.trim_start();
                !query.contains("mutation") && !query.contains("subscription") && !query.is_empty()
            })
        })
}

fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).map(str::to_lowercase).collect()
}

/// `word` without its ending, never shorter than three letters.
fn stem(word: &str) -> &str {
    ENDINGS.iter().find_map(|ending| word.strip_suffix(ending).filter(|stem| stem.chars().count() >= 3)).unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(task: &str, label: &str) -> bool {
        asked_in_words(&[format!("Your task: {task}")], label)
    }

    #[test]
    fn the_users_words_ask_for_a_button_that_says_what_they_asked() {
        assert!(asked("Subscribe me to the Mug Club newsletter", "Subscribe"));
        assert!(asked("subscribing to the weekly letter, please", "Subscribe now"));
        assert!(asked("Pay my electricity bill", "Pay now"));
        assert!(asked("pay invoice 88", "Pay invoice #88"));
        assert!(asked("Move the card 'Pay invoice #88' to Done", "Pay invoice #88"));
        assert!(asked("Transfer $50 to Bob", "Transfer"));
    }

    #[test]
    fn anything_less_than_every_word_is_not_asked() {
        assert!(!asked("Check my balance", "Transfer now"));
        assert!(!asked("What is invoice #88's amount?", "Pay invoice #88"));
        assert!(!asked("pay invoice 87", "Pay invoice #88"));
        assert!(!asked("Sign me up for the newsletter", "Subscribe"));
        assert!(!asked("Read my mail", "Create rule"));
        // Words that say nothing are no answer; a sentence is not a button.
        assert!(!asked("now", "Now"));
        let sentence = "send the weekly sales report to the whole team by today";
        assert!(!asked(sentence, sentence));
        assert!(!asked("anything", ""));
    }

    fn write(method: &str, url: &str, body: &str) -> HeldWrite {
        HeldWrite { method: method.into(), url: url.into(), kind: "xmlhttprequest".into(), body: body.into() }
    }

    #[test]
    fn a_graphql_query_reads_and_a_mutation_changes() {
        let query = write("POST", "https://shop.test/graphql", r#"{"query":"query Products { products { id } }"}"#);
        let short = write("POST", "https://shop.test/graphql", r#"[{"query":"{ cart { id } }"}]"#);
        let mutation = write("POST", "https://shop.test/graphql", r#"{"query":"mutation { transfer(amount: 50) }"}"#);
        let form = write("POST", "https://bank.test/api/transfer", "to=bob&amount=50");
        let delete = write("DELETE", "https://mail.test/api/rules/3", "");
        let held = [query, short, mutation.clone(), form.clone(), delete.clone()];
        assert_eq!(changes(&held), vec![&mutation, &form, &delete]);
    }

    #[test]
    fn a_request_is_described_without_its_query_string() {
        let sent = write("POST", "https://bank.test/api/transfer?to=ada@example.org", "");
        assert_eq!(describe(&sent), "POST bank.test/api/transfer");
    }
}
