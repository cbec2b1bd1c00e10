//! Consequences judged by what an act really does: the requests it made that would change
//! something on a site (held back by the browser until allowed, `Browser::hold_writes`), and
//! whether the user's own words asked for the act. Only the user's words and the act's
//! description are read here, never the page's text around it.

use crate::dom_map::MapElement;

/// Words of a button's label that say nothing of what it does.
const FILLER: &[&str] = &[
    "a", "an", "the", "my", "your", "our", "this", "that", "it", "to", "for", "of", "in", "on", "at", "with", "and",
    "or", "now", "here", "me", "please", "all", "new",
];
/// A label of more words than this is not a button's: the critic reads it instead.
const MAX_LABEL_WORDS: usize = 6;
/// Words that turn a request around or make it hang on something: with one of them anywhere in
/// the user's words, only the critic reads them ("Don't pay invoice 88 yet").
const NOT_ASKING: &[&str] = &[
    "not", "don't", "dont", "doesn't", "never", "no", "without", "avoid", "stop", "cancel", "unless", "if", "whether",
];
/// Words a question starts with ("Am I on the Premium plan").
const QUESTION_STARTS: &[&str] = &[
    "what", "which", "who", "why", "how", "when", "where", "is", "are", "am", "do", "does", "did", "can", "could",
    "should", "would", "will", "have", "has",
];

/// Whether the user's words plainly ask for the act whose button says `label`: they ask nothing
/// and deny nothing (no question, no "not", no "if"), and every word the label uses for what it
/// does is one of theirs, as written ("Subscribe" when the user said "subscribe me"; "Pay invoice
/// #88" when they said "pay invoice 88"). Only a clear yes: anything else goes to the critic, a
/// model that reads the same two things (`agent/critic.rs`).
pub fn asked_in_words(user_words: &[String], label: &str) -> bool {
    let texts = user_words.iter().map(|words| words.strip_prefix("Your task: ").unwrap_or(words));
    let sentences: Vec<&str> = texts.flat_map(|text| text.split_inclusive(['.', '!', '?', ';', '\n'])).collect();
    let question = |sentence: &&str| {
        sentence.trim_end().ends_with('?')
            || words_of(sentence).first().is_some_and(|first| QUESTION_STARTS.contains(&first.as_str()))
    };
    let said: Vec<String> = sentences.iter().flat_map(|sentence| words_of(sentence)).collect();
    if sentences.iter().any(question) || said.iter().any(|word| NOT_ASKING.contains(&word.as_str())) {
        return false;
    }
    let wanted: Vec<String> = words_of(label).into_iter().filter(|word| !FILLER.contains(&word.as_str())).collect();
    !wanted.is_empty() && wanted.len() <= MAX_LABEL_WORDS && wanted.iter().all(|word| said.contains(word))
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

/// A request (its method and address) in words for the user and the critic: `POST shop.test/api/cart` (no query string,
/// which may hold the user's data; the port when the address names one).
pub fn describe(method: &str, address: &str) -> String {
    let address = url::Url::parse(address).ok().map_or_else(
        || address.chars().take(80).collect(),
        |url| match url.port() {
            Some(port) => format!("{}:{port}{}", url.host_str().unwrap_or_default(), url.path()),
            None => format!("{}{}", url.host_str().unwrap_or_default(), url.path()),
        },
    );
    format!("{method} {address}")
}

/// What a request's body carries, in words for the user and the critic: a multipart form's
/// fields as `name=value`, a file as its name (`document=portfolio.pdf (a file)`), rather than
/// its boundaries and headers; any other body as it is.
pub fn describe_body(body: &str) -> String {
    let Some(boundary) = body.lines().next().filter(|line| line.starts_with("--") && line.len() > 2) else {
        return body.to_string();
    };
    let fields: Vec<String> = body
        .split(boundary.trim_end())
        .filter_map(|part| {
            let (head, content) = part.split_once("\r\n\r\n").or_else(|| part.split_once("\n\n"))?;
            let disposition =
                head.lines().find(|line| line.to_ascii_lowercase().starts_with("content-disposition:"))?;
            let name = quoted_param(disposition, "name")?;
            Some(match quoted_param(disposition, "filename") {
                Some(file) => format!("{name}={file} (a file)"),
                None => format!("{name}={}", content.lines().next().unwrap_or_default()),
            })
        })
        .collect();
    match fields.is_empty() {
        true => body.to_string(),
        false => fields.join("&"),
    }
}

/// The value of `param="..."` in a header line.
fn quoted_param<'h>(header: &'h str, param: &str) -> Option<&'h str> {
    header.split(';').map(str::trim).find_map(|pair| pair.strip_prefix(param)?.strip_prefix("=\"")?.strip_suffix('"'))
}

fn words_of(text: &str) -> Vec<String> {
    let words = text.split(|c: char| !c.is_alphanumeric() && c != '\'').map(|word| word.trim_matches('\''));
    words.filter(|word| !word.is_empty()).map(str::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::HeldWrite;

    fn asked(task: &str, label: &str) -> bool {
        asked_in_words(&[format!("Your task: {task}")], label)
    }

    #[test]
    fn a_multipart_body_is_told_by_its_fields_and_file_names() {
        let body = "------WebKitFormBoundaryVA1M\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nMy CV\r\n------WebKitFormBoundaryVA1M\r\nContent-Disposition: form-data; name=\"document\"; filename=\"portfolio.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 binary";
        assert_eq!(describe_body(body), "title=My CV&document=portfolio.pdf (a file)");
        assert_eq!(describe_body("item=blue"), "item=blue");
        assert_eq!(describe_body("--\nnot a form"), "--\nnot a form");
    }

    #[test]
    fn the_users_words_ask_for_a_button_that_says_what_they_asked() {
        assert!(asked("Subscribe me to the Mug Club newsletter", "Subscribe"));
        assert!(asked("Pay my electricity bill", "Pay now"));
        assert!(asked("pay invoice 88", "Pay invoice #88"));
        assert!(asked("Move the card 'Pay invoice #88' to Done", "Pay invoice #88"));
        assert!(asked("Transfer $50 to Bob", "Transfer"));
        // A statement may say "is" and "what".
        assert!(asked("Pay invoice #88 with my bank; the e-mail about it is in this inbox", "Pay"));
    }

    #[test]
    fn anything_less_than_every_word_plainly_asked_is_not() {
        assert!(!asked("Check my balance", "Transfer now"));
        assert!(!asked("pay invoice 87", "Pay invoice #88"));
        assert!(!asked("Sign me up for the newsletter", "Subscribe"));
        assert!(!asked("subscribing to the weekly letter, please", "Subscribe"), "words as written");
        assert!(!asked("List my recent transfers", "Transfer"));
        assert!(!asked("Read my mail", "Create rule"));
        // A request turned around, or a question, is the critic's to read.
        assert!(!asked("Don't pay invoice 88 yet", "Pay invoice #88"));
        assert!(!asked("Am I on the Premium plan", "Premium"));
        assert!(!asked("Premium plan: what does it cost? Subscribe me", "Subscribe"));
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
    fn a_request_is_described_without_its_query_string() {
        let sent = write("POST", "https://bank.test/api/transfer?to=ada@example.org", "");
        assert_eq!(describe(&sent.method, &sent.url), "POST bank.test/api/transfer");
    }
}
