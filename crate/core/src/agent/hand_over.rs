//! Handing the tab over to the user: when the model asks (`ask_user`), or when the page needs a
//! person (a sign-in the task gave no credentials for, a CAPTCHA, a one-time code), the task
//! pauses, the user takes over in the tab and presses Continue, and the agent reads the page
//! afresh. Here, what the page asks of a person; the pause itself, and the guard that keeps the
//! agent from typing a password or code the user did not give it, are the navigator's
//! (`navigator/hand_over.rs`).

use crate::dom_map::{ElementRef, RawFrame, RawNode, RawPage};
use crate::i18n::Text;
use crate::safety::Secrets;
use crate::text;
use serde::Serialize;
use std::collections::HashSet;

/// Why the task waits for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The model asked (`ask_user`).
    Ask,
    /// A sign-in the task gave no credentials for.
    Login,
    Captcha,
    /// A one-time code (two-factor, an emailed code).
    Code,
}

/// The user's answer to a hand-over.
#[derive(Debug, Clone, PartialEq)]
pub enum HandOver {
    /// The user did what was needed (or answered) and the task goes on; what they said, if anything.
    Continue(Option<String>),
    /// The user stopped the task.
    Stop,
    /// No one answered: no one is there (a headless run), or not within the time limit.
    Unanswered,
}

/// The CAPTCHA widgets recognised: their name, marks of their frame's address (host and path, or
/// the path alone: a copy served from elsewhere, as in the tests, is the same widget) and of
/// their iframe's title (when the frame itself could not be read).
const CAPTCHAS: &[(&str, &[&str], &[&str])] = &[
    (
        "reCAPTCHA",
        &["/recaptcha/api2/anchor", "/recaptcha/enterprise/anchor", "/recaptcha/api2/bframe"],
        &["recaptcha"],
    ),
    ("hCaptcha", &["hcaptcha.com/captcha/", "/hcaptcha.html"], &["hcaptcha"]),
    (
        "Cloudflare Turnstile",
        &["challenges.cloudflare.com/", "/cdn-cgi/challenge-platform/"],
        &["cloudflare security challenge"],
    ),
];

/// Words of a field's name or label that make it a one-time-code field.
const CODE_WORDS: &[&str] = &[
    "otp",
    "one-time",
    "one time",
    "onetime",
    "2fa",
    "two-factor",
    "mfa",
    "totp",
    "verification code",
    "security code",
    "authentication code",
    "auth code",
    "login code",
    "sign-in code",
];

/// Codes that are not one-time codes, for a numeric field named only "code".
const OTHER_CODES: &[&str] =
    &["zip", "postal", "post", "promo", "coupon", "discount", "voucher", "gift", "area", "country"];

/// What a page asks of a person, as the sensor's records of its frames show it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageNeeds {
    /// The top page's address.
    pub url: String,
    /// A password field is shown.
    pub password: bool,
    /// The CAPTCHA widget shown, by name.
    pub captcha: Option<&'static str>,
    /// A one-time-code field is shown.
    pub code: bool,
    /// The password and one-time-code fields, shown or not (document and sensor id).
    secret_fields: HashSet<(String, u32)>,
}

impl PageNeeds {
    pub fn read(frames: &[RawFrame]) -> PageNeeds {
        let pages: Vec<&RawPage> = frames.iter().filter_map(|frame| frame.page.as_ref().ok()).collect();
        let mut needs = PageNeeds {
            url: frames
                .iter()
                .find(|f| f.frame_id == 0)
                .and_then(|f| f.page.as_ref().ok())
                .map_or_else(String::new, |p| p.url.clone()),
            ..PageNeeds::default()
        };
        for page in &pages {
            for node in &page.nodes {
                let (password, code) = (is_password(node), is_one_time_code(node));
                if password || code {
                    needs.secret_fields.insert((page.doc.clone(), node.id));
                }
                needs.password |= password && shown(node);
                needs.code |= code && shown(node);
                if node.tag == "iframe" && shown(node) && needs.captcha.is_none() {
                    // The frame the iframe shows, when the sensor could read it.
                    let host = format!("{}:{}", page.doc, node.id);
                    let frame_url = pages.iter().find(|child| child.host == host).map(|child| child.url.as_str());
                    needs.captcha = captcha_widget(frame_url, node.attr("title"));
                }
            }
        }
        needs
    }

    /// Whether `target` is a password or one-time-code field.
    pub fn is_secret_field(&self, target: &ElementRef) -> bool {
        self.secret_fields.contains(&(target.doc.clone(), target.id))
    }

    /// Why the user must take over on this page, if they must: a CAPTCHA, a one-time code the
    /// user's words do not hold, a sign-in the task gave no credentials for (no secret usable on
    /// the site, no password in the user's words).
    pub fn reason(&self, secrets: &Secrets, user_words: &[String]) -> Option<Reason> {
        let words = user_words.join("\n");
        if self.captcha.is_some() {
            return Some(Reason::Captcha);
        }
        let host = url::Url::parse(&self.url).ok().and_then(|url| url.host_str().map(str::to_ascii_lowercase));
        let host = host.unwrap_or_default();
        let has_secret = secrets.list().iter().any(|secret| secret.allowed_on_host(&host));
        if self.code && !has_secret && !has_digit_run(&words, 4) {
            return Some(Reason::Code);
        }
        let gave_password = words.to_lowercase().contains("password");
        (self.password && !has_secret && !gave_password).then_some(Reason::Login)
    }

    /// What the user is asked to do for `reason` (not `Ask`, whose question is the model's).
    pub(super) fn question(&self, reason: Reason) -> Text {
        let site = url::Url::parse(&self.url).ok().and_then(|url| url.host_str().map(str::to_string));
        let site = site.unwrap_or_else(|| self.url.clone());
        match reason {
            Reason::Captcha => text!("core_hand_over_captcha", self.captcha.unwrap_or("CAPTCHA"), site),
            Reason::Code => text!("core_hand_over_code", site),
            Reason::Login | Reason::Ask => text!("core_hand_over_login", site),
        }
    }
}

/// Shown on the page, with a size a person can see.
fn shown(node: &RawNode) -> bool {
    node.visible && node.rect[2] >= 10.0 && node.rect[3] >= 10.0
}

fn is_password(node: &RawNode) -> bool {
    node.tag == "input" && node.attr("type").is_some_and(|kind| kind.eq_ignore_ascii_case("password"))
}

/// An input for a one-time code: so marked for the browser's autofill, or named as one.
fn is_one_time_code(node: &RawNode) -> bool {
    if node.tag != "input" || node.attr("type").is_some_and(|kind| !matches!(kind, "text" | "tel" | "number" | "")) {
        return false;
    }
    if node.attr("autocomplete").is_some_and(|value| value.contains("one-time-code")) {
        return true;
    }
    let numeric = node.attr("inputmode") == Some("numeric");
    ["name", "aria-label", "placeholder", "id"].iter().filter_map(|attr| node.attr(attr)).map(words).any(|words| {
        CODE_WORDS.iter().any(|phrase| holds_phrase(&words, phrase))
            || (numeric && holds_phrase(&words, "code") && !OTHER_CODES.iter().any(|other| holds_phrase(&words, other)))
    })
}

/// The words of a name, label or id, lowercased: split at anything not a letter or digit and
/// where a lower-case letter meets an upper-case one (`otpInput`, `mfa_code`, "Verification code").
fn words(text: &str) -> Vec<String> {
    crate::text::name_words(text).map(str::to_lowercase).collect()
}

/// Whether `words` hold the phrase's words one after another: whole words, so that a placeholder
/// "a time zone" beside an id "timezone" is not "one time".
fn holds_phrase(words: &[String], phrase: &str) -> bool {
    let phrase = self::words(phrase);
    !phrase.is_empty() && words.windows(phrase.len()).any(|window| window == phrase.as_slice())
}

/// The CAPTCHA widget a frame at `frame_url` (or, unread, an iframe titled `title`) is.
fn captcha_widget(frame_url: Option<&str>, title: Option<&str>) -> Option<&'static str> {
    match frame_url {
        // An invisible reCAPTCHA only shows its badge; it asks nothing of a person.
        Some(url) if url.contains("size=invisible") => None,
        Some(url) => {
            let url = url.to_ascii_lowercase();
            CAPTCHAS.iter().find(|(_, marks, _)| marks.iter().any(|mark| url.contains(mark))).map(|(name, ..)| *name)
        }
        None => {
            let title = title?.to_lowercase();
            CAPTCHAS.iter().find(|(_, _, marks)| marks.iter().any(|mark| title.contains(mark))).map(|(name, ..)| *name)
        }
    }
}

/// Whether `text` has a run of at least `len` digits (a code the user gave).
fn has_digit_run(text: &str, len: usize) -> bool {
    text.split(|c: char| !c.is_ascii_digit()).any(|run| run.len() >= len)
}

/// What the navigator keeps of hand-overs during a task.
#[derive(Default)]
pub(super) struct Watch {
    /// What the page last read asks of a person.
    pub(super) needs: PageNeeds,
    /// The page the task started on (its address without query and fragment): a sign-in form
    /// there is one the user chose to start on, not a wall the task ran into.
    pub(super) start: Option<String>,
    /// The pages (reason and address) already handed over: the user is not asked twice.
    pub(super) asked: HashSet<(Reason, String)>,
    /// What the user said when they continued: their words, as the task's are.
    pub(super) said: Vec<String>,
}

#[cfg(test)]
mod tests;
