//! Handing the tab over to the user: when the model asks (`ask_user`), or when the page needs a
//! person (a sign-in the task gave no credentials for, a CAPTCHA, a one-time code), the task
//! pauses, the user takes over in the tab and presses Continue, and the agent reads the page
//! afresh. Also the guard that keeps the agent from typing a password or code the user did not
//! give it.

use super::events::AgentEvent;
use super::navigator::{Navigator, StepError};
use super::task_config::UserGate;
use crate::browser::{Browser, TabId};
use crate::dom_map::{ElementRef, MapElement, RawFrame, RawNode, RawPage};
use crate::i18n::{Message, Text};
use crate::llm::ChatModel;
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
    ("reCAPTCHA", &["/recaptcha/api2/anchor", "/recaptcha/enterprise/anchor", "/recaptcha/api2/bframe"], &["recaptcha"]),
    ("hCaptcha", &["hcaptcha.com/captcha/", "/hcaptcha.html"], &["hcaptcha"]),
    ("Cloudflare Turnstile", &["challenges.cloudflare.com/", "/cdn-cgi/challenge-platform/"], &["cloudflare security challenge"]),
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
const OTHER_CODES: &[&str] = &["zip", "postal", "post", "promo", "coupon", "discount", "voucher", "gift", "area", "country"];

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
            url: frames.iter().find(|f| f.frame_id == 0).and_then(|f| f.page.as_ref().ok()).map_or_else(String::new, |p| p.url.clone()),
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
    fn question(&self, reason: Reason) -> Text {
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
    let names = ["name", "aria-label", "placeholder", "id"]
        .iter()
        .filter_map(|attr| node.attr(attr))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let numeric = node.attr("inputmode") == Some("numeric");
    CODE_WORDS.iter().any(|word| names.contains(word))
        || (numeric && names.contains("code") && !OTHER_CODES.iter().any(|other| names.contains(other)))
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
    start: Option<String>,
    /// The pages (reason and address) already handed over: the user is not asked twice.
    asked: HashSet<(Reason, String)>,
    /// What the user said when they continued: their words, as the task's are.
    said: Vec<String>,
}

/// The note for the model after the user continued.
fn continued_note(reason: Reason, question: &str, said: Option<&str>) -> String {
    let what = match reason {
        Reason::Ask => format!("You asked the user: \"{question}\"."),
        _ => format!("The page needed the user ({question})."),
    };
    let said = match said {
        Some(said) => format!(" They said: \"{said}\"."),
        None => String::new(),
    };
    format!("{what} The user took over and pressed Continue.{said} The page may have changed: read it afresh.")
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Pauses the task until the user continues: announces what is needed and waits. Gives the
    /// note for the model; a stop or no answer ends the task.
    pub(super) async fn hand_over(&self, reason: Reason, question: Message, url: &str) -> Result<String, StepError> {
        let id = self.approvals.get() + 1;
        self.approvals.set(id);
        let tab: TabId = self.tab.get();
        let english = question.to_string();
        (self.emit)(AgentEvent::HandOverNeeded { id, reason, question, url: url.to_string(), tab });
        let started = self.browser.now_ms();
        let answer = self.cancel.guard(self.gate.hand_over(id)).await.ok_or(StepError::Cancelled)?;
        // The user's time is not the task's.
        self.recorder.borrow_mut().user_waited(self.browser.now_ms() - started, reason == Reason::Ask);
        match answer {
            HandOver::Continue(said) => {
                let said = said.map(|said| said.trim().to_string()).filter(|said| !said.is_empty());
                if let Some(said) = &said {
                    self.hand_overs.borrow_mut().said.push(said.clone());
                }
                Ok(continued_note(reason, &english, said.as_deref()))
            }
            HandOver::Stop => Err(StepError::Cancelled),
            HandOver::Unanswered => Err(StepError::Fatal(text!("core_hand_over_unanswered", english))),
        }
    }

    /// The `ask_user` action: the model's question to the user, and what came of it.
    pub(super) async fn ask_user_action(&self, question: &str) -> Result<String, StepError> {
        let url = self.hand_overs.borrow().needs.url.clone();
        self.hand_over(Reason::Ask, Message::from(question), &url).await
    }

    /// At the start of a step, on the page just read: hands over when the page needs a person
    /// (once per page and reason; a sign-in only on a page the task went to, not the one it
    /// started on). Gives the note for the model when the user continued, and then the page is
    /// to be read again.
    pub(super) async fn hand_over_if_needed(&self) -> Result<Option<String>, StepError> {
        let (reason, question, url) = {
            let mut watch = self.hand_overs.borrow_mut();
            let mut words = self.conversation_texts().0;
            words.extend(watch.said.iter().cloned());
            let url = watch.needs.url.clone();
            let page = url.split(['?', '#']).next().unwrap_or_default().to_string();
            let started_here = watch.start.get_or_insert_with(|| page.clone()) == &page;
            let Some(reason) = watch.needs.reason(&self.config.secrets, &words) else { return Ok(None) };
            if (reason == Reason::Login && started_here) || !watch.asked.insert((reason, page)) {
                return Ok(None);
            }
            (reason, watch.needs.question(reason), url)
        };
        self.hand_over(reason, question.into(), &url).await.map(Some)
    }

    /// Refuses to type into a password or one-time-code field a text the user did not give: not
    /// one of their secrets (`consented`), not in their task or what they said at a hand-over.
    pub(super) fn guard_secret_field(&self, text: &str, element: &MapElement, consented: bool) -> Option<String> {
        let watch = self.hand_overs.borrow();
        let password = element.attrs.iter().any(|(name, value)| name == "type" && value == "password");
        if consented || text.trim().is_empty() || !(password || watch.needs.is_secret_field(&element.target)) {
            return None;
        }
        let given = self.conversation_texts().0.iter().chain(&watch.said).any(|words| words.contains(text.trim()));
        (!given).then(|| {
            format!(
                "Did not type into {}: it is a password or one-time-code field, and this text is not one the user gave you. Never guess or make up a password or code: use ask_user to have the user enter it in the tab.",
                element.describe()
            )
        })
    }
}

#[cfg(test)]
mod tests;
