//! Actions with consequences the user must approve: buying or paying, sending or posting,
//! publishing (a profile, a review, a form the page calls public), deleting, changing account or
//! security settings, entering payment or password data. Decided in
//! code from the element, its form and the page, never left to the model's judgement.

use super::Action;
use crate::dom_map::{MapElement, PageMap};
use crate::i18n::{Message, Text};
use crate::text;
use serde::{Deserialize, Serialize};

/// How readily the agent asks before acting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strictness {
    /// Never asks (the user takes the risk).
    Off,
    /// Asks before the consequential actions listed here.
    #[default]
    Normal,
    /// Also asks before any submit or confirm on payment, account and checkout pages.
    Strict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Purchase,
    Send,
    Publish,
    Delete,
    Account,
    SensitiveData,
    /// Seen by what it does, not by its words: a request that changes something on a site.
    Change,
}

impl Kind {
    fn describe(self) -> Text {
        match self {
            Kind::Purchase => text!("core_consequence_purchase"),
            Kind::Send => text!("core_consequence_send"),
            Kind::Publish => text!("core_consequence_publish"),
            Kind::Delete => text!("core_consequence_delete"),
            Kind::Account => text!("core_consequence_account"),
            Kind::SensitiveData => text!("core_consequence_sensitive_data"),
            Kind::Change => text!("core_consequence_change"),
        }
    }
}

/// Why an action needs the user's approval.
#[derive(Debug, Clone, PartialEq)]
pub struct Consequence {
    pub kind: Kind,
    /// In words, for the user: what the action would do and what gave it away.
    pub reason: Text,
}

const PURCHASE: &[&str] = &[
    "buy",
    "purchase",
    "place order",
    "place your order",
    "pay",
    "checkout",
    "check out",
    "complete order",
    "confirm order",
    "submit order",
    "subscribe",
    "donate",
    "book now",
    "reserve now",
    "add payment",
];
const SEND: &[&str] = &["send", "post", "publish", "tweet", "share", "reply", "submit review", "comment"];
/// Buttons that put something where others see it.
const PUBLISH: &[&str] = &[
    "save profile",
    "update profile",
    "save bio",
    "update bio",
    "post review",
    "add review",
    "publish review",
    "add comment",
    "post comment",
    "make public",
    "share publicly",
];
/// Pages whose forms are seen by others: a profile, a review, a comment.
const PUBLIC_PAGES: &[&str] = &["profile", "bio", "review", "comment"];
/// What a page says of a form whose content everyone may see.
const PUBLIC_WORDS: &[&str] = &[
    "is public",
    "are public",
    "be public",
    "publicly",
    "public profile",
    "visible to everyone",
    "visible to anyone",
    "anyone can see",
    "everyone can see",
    "shown on your profile",
];
/// Buttons that submit what a form holds.
const SUBMITS: &[&str] = &["submit", "save", "update", "post", "send", "confirm", "done", "ok"];
const DELETE: &[&str] =
    &["delete", "remove account", "erase", "destroy", "empty trash", "cancel subscription", "unsubscribe"];
const ACCOUNT: &[&str] = &[
    "change password",
    "update password",
    "reset password",
    "two-factor",
    "2fa",
    "security settings",
    "close account",
    "deactivate",
    "change email",
    "update email",
    "save changes",
];
const SENSITIVE_FIELDS: &[&str] = &[
    "card number",
    "credit card",
    "cardnumber",
    "cc-number",
    "cc-csc",
    "cc-exp",
    "cvc",
    "cvv",
    "security code",
    "expiry",
    "expiration",
    "iban",
    "account number",
    "routing number",
    "password",
    "passcode",
];
const SENSITIVE_PAGES: &[&str] = &["checkout", "payment", "billing", "account", "settings", "security", "cart"];
const STRICT_SUBMITS: &[&str] = &["submit", "confirm", "continue", "next", "save", "ok", "yes"];

/// What a click or typing would set off, if it needs the user's approval.
pub fn assess(action: &Action, element: &MapElement, page: &PageMap, strictness: Strictness) -> Option<Consequence> {
    if strictness == Strictness::Off {
        return None;
    }
    let attr = |name: &str| element.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.to_lowercase());
    let label = [Some(element.text.to_lowercase()), attr("aria-label"), attr("value"), attr("title"), attr("label")]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let shown = crate::text::truncate_words(&element.describe(), 80);
    match action {
        Action::InputText { .. } => {
            let field = [attr("type"), attr("name"), attr("placeholder"), attr("aria-label"), attr("label")]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            let sensitive = SENSITIVE_FIELDS.iter().find(|word| field.contains(*word));
            sensitive.map(|word| Consequence {
                kind: Kind::SensitiveData,
                reason: text!("core_reason_sensitive_field", &shown, *word),
            })
        }
        // A drop onto a place does what its words say as a click on it would (a "Delete" bin).
        Action::Drag { .. } => says_consequence(&label)
            .map(|(kind, word)| Consequence { kind, reason: text!("core_reason_drop_says", &shown, word) }),
        Action::ClickElement { .. } => {
            if let Some((kind, word)) = says_consequence(&label) {
                return Some(Consequence { kind, reason: text!("core_reason_click_says", &shown, word) });
            }
            let url = page.url.to_lowercase();
            let submits = SUBMITS.iter().any(|w| has_phrase(&label, w)) || attr("type").as_deref() == Some("submit");
            if let Some(reason) = submits.then(|| publishes(page, &shown, &url)).flatten() {
                return Some(Consequence { kind: Kind::Publish, reason });
            }
            let sensitive_page = SENSITIVE_PAGES.iter().find(|w| url.contains(*w));
            let submit = STRICT_SUBMITS.iter().find(|w| has_phrase(&label, w)).is_some()
                || attr("type").as_deref() == Some("submit");
            match (strictness, sensitive_page, submit) {
                (Strictness::Strict, Some(word), true) => Some(Consequence {
                    kind: Kind::Purchase,
                    reason: text!("core_reason_submit_on_page", &shown, *word),
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The kind of consequence an element's words announce, and the words.
fn says_consequence(label: &str) -> Option<(Kind, &'static str)> {
    [
        (Kind::Purchase, PURCHASE),
        (Kind::Delete, DELETE),
        (Kind::Account, ACCOUNT),
        (Kind::Publish, PUBLISH),
        (Kind::Send, SEND),
    ]
    .into_iter()
    .find_map(|(kind, words)| words.iter().find(|w| has_phrase(label, w)).map(|w| (kind, *w)))
}

impl Consequence {
    /// The question put to the user.
    pub fn question(&self) -> Message {
        text!("core_question_consequence", self.kind.describe(), self.reason.clone()).into()
    }
}

/// Why submitting on `page` publishes, if it does: the page says its content is public, or it
/// is a profile, review or comment page.
fn publishes(page: &PageMap, shown: &str, url: &str) -> Option<Text> {
    let said = page.texts().find_map(|text| {
        let text = text.to_lowercase();
        PUBLIC_WORDS.iter().find(|words| has_phrase(&text, words))
    });
    if let Some(words) = said {
        return Some(text!("core_reason_publishes", shown, format!("\"{words}\"")));
    }
    let path = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = path.split_once('/').map_or("", |(_, path)| path);
    PUBLIC_PAGES.iter().find(|w| path.contains(*w)).map(|word| text!("core_reason_submit_on_page", shown, *word))
}

/// `phrase` as whole words in `text` ("pay" in "Pay now", not in "PayPal account" or "display").
fn has_phrase(text: &str, phrase: &str) -> bool {
    let mut start = 0;
    while let Some(found) = text[start..].find(phrase) {
        let at = start + found;
        let end = at + phrase.len();
        let before_ok = text[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let after_ok = text[end..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if before_ok && after_ok {
            return true;
        }
        start = end;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::Click;
    use crate::dom_map::{LineKind, MapLine, Viewport};

    fn element(tag: &str, text: &str, attrs: &[(&str, &str)]) -> MapElement {
        crate::dom_map::tests::map_element(1, tag, text, attrs)
    }

    fn page(url: &str) -> PageMap {
        PageMap {
            url: url.into(),
            title: String::new(),
            viewport: Viewport::default(),
            lines: vec![],
            notes: vec![],
            warnings: vec![],
            frames: Vec::new(),
        }
    }

    fn click(el: &MapElement, url: &str, strictness: Strictness) -> Option<Kind> {
        assess(&Action::ClickElement { index: 1, click: crate::browser::Click::Single }, el, &page(url), strictness)
            .map(|c| c.kind)
    }

    #[test]
    fn consequential_clicks_are_recognised_by_their_words() {
        let shop = "https://shop.test/product";
        assert_eq!(click(&element("button", "Place order", &[]), shop, Strictness::Normal), Some(Kind::Purchase));
        assert_eq!(click(&element("button", "Buy now", &[]), shop, Strictness::Normal), Some(Kind::Purchase));
        assert_eq!(
            click(&element("button", "", &[("aria-label", "Send message")]), shop, Strictness::Normal),
            Some(Kind::Send)
        );
        assert_eq!(click(&element("button", "Delete repository", &[]), shop, Strictness::Normal), Some(Kind::Delete));
        assert_eq!(click(&element("button", "Change password", &[]), shop, Strictness::Normal), Some(Kind::Account));
        assert_eq!(click(&element("button", "Add to cart", &[]), shop, Strictness::Normal), None);
        assert_eq!(click(&element("a", "PayPal help", &[]), shop, Strictness::Normal), None, "whole words only");
        assert_eq!(click(&element("button", "Place order", &[]), shop, Strictness::Off), None);
    }

    #[test]
    fn a_drop_onto_a_place_that_says_delete_is_asked_as_its_click_would_be() {
        let drop = Action::Drag { index: 1, to: Some(2), dx: 0.0, dy: 0.0 };
        let bin = element("div", "Drop here to delete", &[]);
        let asked = assess(&drop, &bin, &page("https://photos.test"), Strictness::Normal).unwrap();
        assert_eq!(asked.kind, Kind::Delete);
        let list = element("li", "Water the plants", &[]);
        assert!(assess(&drop, &list, &page("https://todo.test"), Strictness::Normal).is_none());
    }

    #[test]
    fn publishing_asks_on_any_site() {
        let normal = Strictness::Normal;
        let plain = "https://shop.test/settings/newsletter";
        assert_eq!(click(&element("button", "Save profile", &[]), plain, normal), Some(Kind::Publish));
        assert_eq!(click(&element("button", "Post review", &[]), plain, normal), Some(Kind::Publish));
        let save = element("button", "Save", &[("type", "submit")]);
        assert_eq!(click(&save, plain, normal), None, "a plain save");
        assert_eq!(click(&save, "https://forum.test/u/ada/profile/edit", normal), Some(Kind::Publish));
        let mut public = page(plain);
        public.lines.push(MapLine {
            kind: LineKind::Text("Everything on this page is public: anyone can see it.".into()),
            depth: 0,
            rect: [0.0; 4],
            frame_url: None,
        });
        let consequence = assess(&Action::ClickElement { index: 1, click: Click::Single }, &save, &public, normal);
        let consequence = consequence.expect("a form the page calls public");
        assert_eq!(consequence.kind, Kind::Publish);
        assert_eq!(
            consequence.question(),
            "The agent wants to publish something where others can see it: clicking <button> \"Save\" [1] on a page that says \"is public\". Allow it?"
        );
        assert_eq!(click(&element("button", "Search", &[]), "https://forum.test/u/ada/profile", normal), None);
    }

    #[test]
    fn strict_mode_also_guards_submits_on_payment_pages() {
        let submit = element("button", "Continue", &[("type", "submit")]);
        assert_eq!(click(&submit, "https://shop.test/checkout/step2", Strictness::Normal), None);
        assert_eq!(click(&submit, "https://shop.test/checkout/step2", Strictness::Strict), Some(Kind::Purchase));
        assert_eq!(click(&submit, "https://shop.test/search", Strictness::Strict), None);
    }

    #[test]
    fn typing_payment_or_password_data_is_recognised() {
        let typing = Action::InputText { index: 1, text: "4111".into(), clear: true };
        let card = element("input", "", &[("name", "cardnumber"), ("placeholder", "Card number")]);
        let consequence = assess(&typing, &card, &page("https://shop.test/pay"), Strictness::Normal).unwrap();
        assert_eq!(consequence.kind, Kind::SensitiveData);
        assert_eq!(
            consequence.question(),
            "The agent wants to enter payment or password data: typing into <input> \"Card number\" [1], a field for card number. Allow it?"
        );
        let password = element("input", "", &[("type", "password")]);
        assert!(assess(&typing, &password, &page("https://a.test"), Strictness::Normal).is_some());
        let search = element("input", "", &[("type", "search")]);
        assert!(assess(&typing, &search, &page("https://a.test"), Strictness::Normal).is_none());
    }
}
