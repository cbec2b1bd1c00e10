//! Consequences judged by what an act does. Before it, the form a click or Enter would post and,
//! as a first signal, the words of what is acted on ("Pay now", a page that calls itself
//! public); during it, the requests it really makes that would change something on a site
//! (POST, PUT, PATCH, DELETE), held back by the browser. Either way the act goes ahead only when
//! the user's own words ask for it (their words, or the critic: a model that reads only those
//! words and the act's description) or the user allows it. A held act changed nothing on the
//! site: the page is reloaded to show it as it is, and, allowed, the model does the act again,
//! which then goes through once (doing it again in its place could undo a toggle, or find a
//! dragged card already moved and send nothing).

use super::{report, Done, Outcome};
use crate::actions::{asked_in_words, assess, describe_body, describe_request, Action, Consequence, Kind, Strictness};
use crate::agent::critic::{critic_prompt, parse_asked};
use crate::agent::navigator::{Navigator, StepError};
use crate::agent::record::Role;
use crate::agent::task_config::UserGate;
use crate::browser::{Browser, BrowserError, HeldWrite, HistoryStep, PageOp, Submission, TabId, WriteHold};
use crate::dom_map::{MapElement, PageMap};
use crate::llm::ChatModel;
use crate::safety::{neutralize, Site};
use crate::text;
use std::future::Future;

/// How much of a request's body or a form's fields the critic and the user are shown.
const SHOWN_BODY_CHARS: usize = 160;
/// How long the restored page must send nothing more for its hold to end, and how many such
/// waits at most (a page that keeps sending is let go after them: docs/security.md).
const QUIET_MS: u32 = 500;
const QUIET_CHECKS: u32 = 8;

/// What was found before an act.
pub(super) enum Before {
    /// It runs as it is, nothing held: allowed already as it was held (its changes seen), or
    /// nothing is judged.
    Allowed,
    /// The user's words, the critic or the user allowed the change seen before it, on the page's
    /// site: it runs with what it sends to the task's other sites held (a page it opens that
    /// changes something on another of the user's sites was never allowed).
    AllowedHere,
    /// Nothing seen before it: it runs with its changes held.
    Unseen,
    /// The user refused it: the report.
    Refused(Done),
}

/// An act as the critic and the user are told of it.
pub(super) struct Act<'a> {
    pub action: &'a Action,
    /// The element acted on (and, for a drag, the one dropped on), described.
    pub target: String,
    /// What the element says, for the user's words to be matched with.
    pub label: String,
    /// The page's address.
    pub url: &'a str,
    /// Where the act's own change is made: the page, or where the link it follows leads (what
    /// the user's words allow there is not allowed on the sites it passes on to).
    pub lands: &'a str,
    /// The same act on the same elements, after a reload too (their fingerprints, not indexes).
    pub key: String,
    /// What is held while it runs.
    pub hold: WriteHold,
}

/// An act on the page at `url` holds every change its tab sends, to any site.
pub(super) fn on_page(url: &str) -> WriteHold {
    WriteHold { sites: host_of(url).into_iter().collect(), everywhere: true }
}

/// A hold of the changes sent to `hosts` (each once), not to any site.
fn holding_sites(hosts: impl Iterator<Item = String>) -> WriteHold {
    let mut sites: Vec<String> = Vec::new();
    for host in hosts {
        if !sites.contains(&host) {
            sites.push(host);
        }
    }
    WriteHold { sites, everywhere: false }
}

/// A host as the browser's hold rules name it (browser-host.js `siteOfHost`): its last two labels
/// (`api.bank.test` is `bank.test`), an IP address itself.
fn held_as(host: &str) -> String {
    if host.contains(':') || host.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return host.to_string();
    }
    let labels: Vec<&str> = host.split('.').collect();
    labels[labels.len().saturating_sub(2)..].join(".")
}

fn host_of(url: &str) -> Option<String> {
    url::Url::parse(url).ok().and_then(|url| url.host_str().map(str::to_string))
}

impl Act<'_> {
    fn describe(&self) -> String {
        let site = Site::of(self.url).map(|site| site.to_string()).unwrap_or_default();
        format!("{} on {} (on {site})", self.action.name(), self.target)
    }

    fn refused(&self, outcome: String) -> Before {
        Before::Refused(report(self.action.name(), Some(&self.target), false, outcome))
    }
}

/// Who let a held change go.
#[derive(Clone, Copy)]
enum AllowedBy {
    Words,
    User,
}

impl AllowedBy {
    fn says(self) -> &'static str {
        match self {
            AllowedBy::Words => "The user's words ask for it (as the critic read them)",
            AllowedBy::User => "The user allowed it",
        }
    }
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Looks at an act on `element` before it runs: what its words say, and the form it posts.
    pub(super) async fn consequences_before(
        &self,
        act: &Act<'_>,
        element: &MapElement,
        seen: Option<&PageMap>,
    ) -> Result<Before, StepError> {
        let strictness = self.config.limits.now().strictness;
        if strictness == Strictness::Off || self.take_allowed(act) {
            return Ok(Before::Allowed);
        }
        let form = match act.action {
            Action::ClickElement { .. } if matches!(element.tag.as_str(), "button" | "input") => {
                let op = PageOp::Submission { target: element.target.clone(), tag: element.tag.clone() };
                self.posted_form(&op).await?
            }
            _ => None,
        };
        let said = seen.and_then(|page| assess(act.action, element, page, strictness));
        self.judge_before(act, said, form).await
    }

    /// Looks at keys before they are pressed: Enter posts the focused field's form.
    pub(super) async fn keys_before(&self, act: &Act<'_>, keys: &str) -> Result<Before, StepError> {
        if self.config.limits.now().strictness == Strictness::Off || self.take_allowed(act) {
            return Ok(Before::Allowed);
        }
        let form = match keys.contains("Enter") {
            true => self.posted_form(&PageOp::FocusedSubmission { frame: self.focus_frame.get() }).await?,
            false => None,
        };
        self.judge_before(act, None, form).await
    }

    /// Judges what was seen before an act: what its words say and the form it would post.
    async fn judge_before(
        &self,
        act: &Act<'_>,
        said: Option<Consequence>,
        form: Option<Submission>,
    ) -> Result<Before, StepError> {
        let posted = form.as_ref().map(|form| {
            let fields = form.fields.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>();
            format!("{} with {}", describe_request("POST", &form.action), shown(&fields.join("&")))
        });
        let consequence = match (said, &posted) {
            (Some(said), _) => said,
            (None, Some(posted)) => Consequence {
                kind: Kind::Change,
                reason: text!("core_reason_form_posts", &act.target, posted.as_str()),
            },
            (None, None) => return Ok(Before::Unseen),
        };
        let mut description = act.describe();
        if let Some(posted) = &posted {
            description.push_str(&format!("; it sends its form: {posted}"));
        }
        // What everyone may read is judged with what it says, which a label cannot tell.
        let by_words = consequence.kind != Kind::Publish;
        match self.allowed(act, &consequence, &description, by_words).await? {
            Some(_) => Ok(Before::AllowedHere),
            None => Ok(act.refused(format!(
                "Not done: the user did not allow it ({}). Do not try it again another way; finish and tell the user what is left for them to do.",
                consequence.reason
            ))),
        }
    }

    /// Runs `perform` (the act) with the requests it makes that would change something held
    /// back, unless the user's words ask for it. When it made some, the page is reloaded (or,
    /// after a form its script posted, taken back), and the act is allowed once more if the
    /// critic finds it in the user's words or the user allows it.
    pub(super) async fn holding_changes<F, Fut>(&self, act: &Act<'_>, before: Before, perform: F) -> Outcome
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Outcome>,
    {
        if self.config.limits.now().strictness == Strictness::Off {
            return perform().await;
        }
        let hold = match before {
            Before::Refused(done) => return Ok(done),
            Before::Allowed => return perform().await,
            Before::Unseen if self.take_allowed(act) => return perform().await,
            Before::Unseen if self.said_by_user(act) => self.elsewhere(act),
            Before::AllowedHere => self.elsewhere(act),
            Before::Unseen => act.hold.clone(),
        };
        if hold.sites.is_empty() && !hold.everywhere {
            return perform().await;
        }
        let tab = self.tab.get();
        if let Err(err) = self.browser.hold_writes(tab, Some(&hold)).await {
            return self.unheld(act, err, perform).await;
        }
        let first = perform().await;
        // What was held, the hold kept until the page is restored below (what it sends as it
        // reloads is held too, and a request retried at once finds no gap).
        let held = self.browser.hold_writes(tab, Some(&hold)).await.unwrap_or_default();
        if held.is_empty() || first.is_err() {
            let _ = self.browser.hold_writes(tab, None).await;
        }
        let first = first?;
        if held.is_empty() {
            return Ok(first);
        }
        // A query sent by POST (GraphQL's) is judged as any request: its body says what it is,
        // and a page may call anything a query.
        let (sent, allowed) = self.judge_held(act, &held, "the page then sent").await?;
        let closed_tab = self.show_unchanged(tab, &held).await?;
        self.hold_until_quiet(tab, &hold).await;
        let _ = self.browser.hold_writes(tab, None).await;
        let name = act.action.name();
        let restored = match (closed_tab, allowed.is_some()) {
            (true, _) => "the tab it opened was closed",
            (false, true) => "the page was reloaded",
            (false, false) => "the page was reloaded to show it as it is",
        };
        let outcome = match allowed {
            Some(by) => {
                format!(
                    "{name} on {} would change something on the site: {sent}. It was held back, so nothing has changed yet, and {restored}. {}: do the same act again now, on the page as it is, and it will go through.",
                    act.target,
                    by.says()
                )
            }
            None => format!(
                "Not done: {name} on {} would change something on the site ({sent}); the user's words do not ask for it and the user did not allow it. It was held back, so nothing changed, and {restored}. Do not try it again another way; finish and tell the user what is left for them to do.",
                act.target
            ),
        };
        Ok(Done { page_left: true, ..report(name, Some(&act.target), allowed.is_some(), outcome) })
    }

    /// A navigation holds the changes sent to the site it leaves, to the one it opens, and to
    /// every site of the task, where the firewall lets its pages go on to by themselves (a page
    /// that posts as it loads, or as it is left, or sends the tab on to another of the task's
    /// sites that does); others', a page's reports to third parties, go.
    pub(super) fn between(&self, from: &str, to: &str) -> WriteHold {
        let task_sites = self.firewall().sites.into_iter().map(|site| site.host().to_string());
        holding_sites([host_of(from), host_of(to)].into_iter().flatten().chain(task_sites))
    }

    /// What an act allowed where it lands holds: what it sends to the task's other sites. The
    /// browser's rules name a host by its last two labels and no port (`holdWrites`), so a task
    /// site named as the landing one is would hold the act's own change: it is left out.
    fn elsewhere(&self, act: &Act<'_>) -> WriteHold {
        let here = host_of(act.lands).map(|host| held_as(&host));
        let hosts = self.firewall().sites.into_iter().map(|site| site.host().to_string());
        holding_sites(hosts.filter(|host| Some(held_as(host)) != here))
    }

    /// An act whose changes could not be held (the browser's rules failed): fail closed, it waits
    /// for the user, who is told why.
    async fn unheld<F, Fut>(&self, act: &Act<'_>, err: BrowserError, perform: F) -> Outcome
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Outcome>,
    {
        if err == BrowserError::TabClosed {
            return Err(StepError::Fatal(text!("core_task_tab_closed")));
        }
        let question = text!("core_question_unchecked_change", &act.target, err.to_string());
        if self.ask_user(question.into(), act.url, Vec::new()).await? {
            return perform().await;
        }
        let outcome = format!(
            "Not done: what it would change on the site could not be held back for a check ({err}), and the user did not allow it unchecked. Finish and tell the user what is left for them to do."
        );
        Ok(report(act.action.name(), Some(&act.target), false, outcome))
    }

    /// Closes tab `tab` (`close`) with what its page sends as it is left held back (a message
    /// archived or deleted on `pagehide`), unless the user's words ask for closing it. A closed
    /// page cannot be restored, so what it sent is dropped; allowed, the model is told to open the
    /// page again and close it, which then goes through once.
    pub(super) async fn closing_held<F, Fut>(&self, act: &Act<'_>, tab: TabId, close: F) -> Outcome
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Outcome>,
    {
        if self.config.limits.now().strictness == Strictness::Off || self.take_allowed(act) {
            return close().await;
        }
        if let Err(err) = self.browser.hold_writes(tab, Some(&act.hold)).await {
            return self.unheld(act, err, close).await;
        }
        let closed = close().await;
        // What the page sent as it went, the hold then let go (the tab is gone).
        let held = self.browser.hold_writes(tab, Some(&act.hold)).await.unwrap_or_default();
        let _ = self.browser.hold_writes(tab, None).await;
        let closed = closed?;
        if held.is_empty() || !closed.report.ok {
            return Ok(closed);
        }
        let (sent, allowed) = self.judge_held(act, &held, "its page then sent, as it was left").await?;
        let outcome = match allowed {
            Some(by) => {
                format!(
                    "{} Its page sent, as it was left: {sent}. That was held back, so nothing has changed. {}: open {} again and close it, and it will go through.",
                    closed.report.outcome,
                    by.says(),
                    act.url
                )
            }
            None => format!(
                "{} Its page sent, as it was left: {sent}; the user's words do not ask for it and the user did not allow it, so it was held back and nothing changed. Do not try it again another way.",
                closed.report.outcome
            ),
        };
        let mut done = closed;
        done.report.outcome = outcome;
        Ok(done)
    }

    /// Judges the changes `held` while `act` ran (`then` says when the page sent them): what they
    /// were, in words, and who allowed the act, if anyone (the critic, reading the user's words
    /// and the act with them, else the user, asked). An allowed act goes through once when done
    /// again.
    async fn judge_held(
        &self,
        act: &Act<'_>,
        held: &[HeldWrite],
        then: &str,
    ) -> Result<(String, Option<AllowedBy>), StepError> {
        // A secret the page sends (a PIN typed with the user's consent) is named, never shown.
        let sent = held.iter().map(describe_sent).collect::<Vec<_>>().join("; ");
        let sent = self.config.limits.now().secrets.redact(&sent);
        let description = format!("{}; {then}: {sent}", act.describe());
        let consequence = Consequence { kind: Kind::Change, reason: text!("core_reason_act_sent", &act.target, &sent) };
        let allowed = self.allowed(act, &consequence, &description, false).await?;
        if allowed.is_some() {
            self.allowed_acts.borrow_mut().push(act.key.clone());
        }
        Ok((sent, allowed))
    }

    /// Shows the task's tab `tab` as it is after a held act, whose changes are still held: a tab
    /// the act opened (a link's, open_tab) is closed, and `tab` is the current one again (true);
    /// else its page is taken back, or reloaded (a page that moved a card or ticked a box before
    /// its request failed would show what did not happen).
    async fn show_unchanged(&self, tab: TabId, held: &[HeldWrite]) -> Result<bool, StepError> {
        let opened = self.tab.get();
        if opened != tab {
            let _ = self.browser.close_tab(opened).await;
            self.adopt(tab).await?;
            let _ = self.browser.switch_tab(tab).await;
            return Ok(true);
        }
        let step = match held.iter().any(|write| write.kind == "main_frame") {
            true => HistoryStep::Back,
            false => HistoryStep::Reload,
        };
        let _ = self.browser.history(tab, step).await;
        Ok(false)
    }

    /// Keeps the hold while the restored page still sends what the act set going (an observer
    /// that fires as the page comes back where it was scrolled to, a form sent again): ended once
    /// a quiet moment passes with nothing more held, or after a bound. What it held is dropped.
    async fn hold_until_quiet(&self, tab: TabId, hold: &WriteHold) {
        for _ in 0..QUIET_CHECKS {
            self.browser.sleep(QUIET_MS).await;
            match self.browser.hold_writes(tab, Some(hold)).await {
                Ok(held) if !held.is_empty() => continue,
                _ => return,
            }
        }
    }

    /// Whether the user's words plainly say what the act's button says (a verb and its object:
    /// "Subscribe", "Pay invoice #88"). Not an option's, a slider's, a field's or a dragged
    /// card's, whose words name a thing, which a question names too.
    fn said_by_user(&self, act: &Act<'_>) -> bool {
        matches!(act.action, Action::ClickElement { .. }) && asked_in_words(&self.conversation_texts().0, &act.label)
    }

    /// Whether the act was allowed once already (its change held, then allowed): it is then
    /// done once as it is.
    fn take_allowed(&self, act: &Act<'_>) -> bool {
        let mut allowed = self.allowed_acts.borrow_mut();
        let found = allowed.iter().position(|key| *key == act.key);
        found.map(|at| allowed.remove(at)).is_some()
    }

    /// The form that `op` (a click's or Enter's) would submit, when it posts.
    async fn posted_form(&self, op: &PageOp) -> Result<Option<Submission>, StepError> {
        let form = self.submission(op).await?;
        Ok(form.filter(|form| form.method.eq_ignore_ascii_case("post")))
    }

    /// Whether a consequential act may run, and who allowed it: the user's words (its label's
    /// words among theirs, when `by_words`, or the critic), else the user, asked.
    async fn allowed(
        &self,
        act: &Act<'_>,
        consequence: &Consequence,
        description: &str,
        by_words: bool,
    ) -> Result<Option<AllowedBy>, StepError> {
        if by_words && self.said_by_user(act) {
            return Ok(Some(AllowedBy::Words));
        }
        let (words, _) = self.conversation_texts();
        if self.critic_says_asked(&words, description).await? {
            return Ok(Some(AllowedBy::Words));
        }
        let approved = self.ask_user(consequence.question(), act.url, Vec::new()).await?;
        Ok(approved.then_some(AllowedBy::User))
    }

    /// The critic's verdict: whether the user's words ask for the act described. An unusable or
    /// failed verdict is a no (the user is then asked), and so is an act whose page-made words
    /// (its element's label, what it sends) address an AI: the page would be arguing its own case
    /// to the critic, which never hears it.
    async fn critic_says_asked(&self, words: &[String], description: &str) -> Result<bool, StepError> {
        if neutralize(description).1.is_some() {
            return Ok(false);
        }
        let prompt = critic_prompt(words, description);
        let budget = &self.config.budgets.validator;
        match self.complete_within(Role::Critic, self.models.validator, budget, prompt, false).await {
            Ok(reply) => Ok(parse_asked(&reply).unwrap_or(false)),
            Err(StepError::Cancelled) => Err(StepError::Cancelled),
            Err(StepError::Fatal(_)) => Ok(false),
        }
    }
}

/// A held request with the start of what it carries: `POST shop.test/api/cart {"item":"blue"}`.
fn describe_sent(write: &HeldWrite) -> String {
    if write.kind == "websocket" {
        let to = describe_request("", &write.url);
        return format!("a socket opened to{to}, over which it would send what no check can see");
    }
    match write.body.trim() {
        "" => describe_request(&write.method, &write.url),
        body => format!("{} {}", describe_request(&write.method, &write.url), shown(&describe_body(body))),
    }
}

fn shown(text: &str) -> String {
    crate::text::truncate_chars(text, SHOWN_BODY_CHARS)
}
