//! Consequences judged by what an act does. Before it, the words of what is acted on (a first
//! signal: "Pay now") and the form a click or Enter would post; during it, the requests it
//! really makes that would change something on a site (POST, PUT, PATCH, DELETE), held back by
//! the browser. Either way the act goes ahead only when the user's own words asked for it (their
//! words, or the critic, a model that reads only those words and the act's description) or the
//! user allows it; a held act is then done again, its requests let through.

use super::{report, Done, Outcome};
use crate::actions::{asked_in_words, assess, changes, describe_write, Action, Consequence, Kind, Strictness};
use crate::agent::critic::{critic_prompt, parse_asked};
use crate::agent::navigator::{Navigator, StepError};
use crate::agent::record::Role;
use crate::agent::task_config::UserGate;
use crate::browser::{Browser, BrowserError, HeldWrite, HistoryStep, PageOp};
use crate::dom_map::{MapElement, PageMap};
use crate::llm::ChatModel;
use crate::safety::Site;
use crate::text;
use std::future::Future;

/// What was found before an act.
pub(super) enum Before {
    /// The act would have consequences, and the user's words or the user allowed them: it runs
    /// as it is, nothing held.
    Allowed,
    /// Nothing seen before it: it runs with its changes held.
    Unseen,
    /// The user refused it: the report.
    Refused(Done),
}

/// How an act is described to the critic and the user: what is done, to what, on which site.
pub(super) struct Act<'a> {
    pub action: &'a Action,
    /// The element acted on (and, for a drag, the one dropped on), described.
    pub target: String,
    /// What the element says, for the user's words to be matched with.
    pub label: String,
    /// The page's address.
    pub url: &'a str,
}

impl Act<'_> {
    fn describe(&self) -> String {
        let site = Site::of(self.url).map(|site| site.to_string()).unwrap_or_default();
        format!("{} on {} (on {site})", self.action.name(), self.target)
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
        if strictness == Strictness::Off {
            return Ok(Before::Allowed);
        }
        let said = seen.and_then(|page| assess(act.action, element, page, strictness));
        let posted = match (said.is_some(), act.action) {
            (false, Action::ClickElement { .. }) if matches!(element.tag.as_str(), "button" | "input") => {
                let op = PageOp::Submission { target: element.target.clone(), tag: element.tag.clone() };
                self.posted_form(&op, &act.target).await?
            }
            _ => None,
        };
        match said.or(posted) {
            Some(consequence) => self.allowed(act, consequence, &act.describe()).await,
            None => Ok(Before::Unseen),
        }
    }

    /// Looks at keys before they are pressed: Enter posts the focused field's form.
    pub(super) async fn keys_before(&self, keys: &str, page_url: &str) -> Result<Before, StepError> {
        if self.config.limits.now().strictness == Strictness::Off {
            return Ok(Before::Allowed);
        }
        if !keys.contains("Enter") {
            return Ok(Before::Unseen);
        }
        let action = Action::SendKeys { keys: keys.to_string() };
        let act = Act { action: &action, target: format!("\"{keys}\""), label: String::new(), url: page_url };
        let op = PageOp::FocusedSubmission { frame: self.focus_frame.get() };
        match self.posted_form(&op, &act.target).await? {
            Some(consequence) => self.allowed(&act, consequence, &act.describe()).await,
            None => Ok(Before::Unseen),
        }
    }

    /// Runs `perform` (the act) with the requests it makes that would change something held
    /// back, unless the user's words ask for it; when it made some, they go ahead only if the
    /// critic finds the act in the user's words or the user allows it, and the act is then done
    /// again (a drag done again may not redo what the page saves: its report says what it shows).
    pub(super) async fn holding_changes<F, Fut>(&self, act: &Act<'_>, before: Before, perform: F) -> Outcome
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Outcome>,
    {
        match before {
            Before::Refused(done) => return Ok(done),
            Before::Allowed => return perform().await,
            Before::Unseen => {}
        }
        // What the user's words ask for runs as it is: nothing to hold, nothing to do again.
        if asked_in_words(&self.conversation_texts().0, &act.label) {
            return perform().await;
        }
        let tab = self.tab.get();
        if let Err(err) = self.browser.hold_writes(tab, true).await {
            return match err {
                BrowserError::TabClosed => Err(StepError::Fatal(text!("core_task_tab_closed"))),
                err => Ok(report(
                    act.action.name(),
                    Some(&act.target),
                    false,
                    format!("Not done: what it would change on the site could not be held back for a check ({err}). Try again."),
                )),
            };
        }
        let first = perform().await;
        let held = self.browser.hold_writes(tab, false).await.unwrap_or_default();
        let first = first?;
        if held.is_empty() {
            return Ok(first);
        }
        let changed = changes(&held);
        if changed.is_empty() {
            // Only reads sent by POST were held: the act is done again with them let through.
            return self
                .again(act, perform, "It sent queries, which were held for a check and are let through now")
                .await;
        }
        if held.iter().any(|write| write.kind == "main_frame") {
            // A form the page posted by its own script: the tab shows the browser's error page.
            let _ = self.browser.history(tab, HistoryStep::Back).await;
        }
        let sent = changed.iter().map(|write| describe_write(write)).collect::<Vec<_>>().join(", ");
        let description = format!("{}; the page then sent: {sent}", act.describe());
        let reason = text!("core_reason_act_sent", &act.target, &sent);
        match self.allowed(act, Consequence { kind: Kind::Change, reason }, &description).await? {
            Before::Refused(mut done) => {
                done.report.outcome =
                    format!("{} (The page's request {sent} was held back: nothing changed.)", done.report.outcome);
                Ok(done)
            }
            _ => {
                self.again(act, perform, &format!("It sent {sent}, which was held until allowed, then let through"))
                    .await
            }
        }
    }

    /// The act done again, its requests let through; its report says why it ran twice.
    async fn again<F, Fut>(&self, act: &Act<'_>, perform: F, why: &str) -> Outcome
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Outcome>,
    {
        let mut done = perform().await?;
        let outcome = &mut done.report.outcome;
        *outcome = format!("{why}: {} was done again. {outcome}", act.action.name());
        Ok(done)
    }

    /// The consequence of posting the form that `op` (a click's or Enter's) would submit.
    async fn posted_form(&self, op: &PageOp, target: &str) -> Result<Option<Consequence>, StepError> {
        let Some(form) = self.perform(op).await?.submission else { return Ok(None) };
        if !form.method.eq_ignore_ascii_case("post") {
            return Ok(None);
        }
        let write = HeldWrite { method: "POST".into(), url: form.action, ..HeldWrite::default() };
        Ok(Some(Consequence {
            kind: Kind::Change,
            reason: text!("core_reason_form_posts", target, describe_write(&write)),
        }))
    }

    /// Whether a consequential act may run: asked for in the user's words, else by the user.
    async fn allowed(&self, act: &Act<'_>, consequence: Consequence, description: &str) -> Result<Before, StepError> {
        if self.user_asked_for(&act.label, description).await? {
            return Ok(Before::Allowed);
        }
        if self.ask_user(consequence.question(), act.url, Vec::new()).await? {
            return Ok(Before::Allowed);
        }
        Ok(Before::Refused(report(
            act.action.name(),
            Some(&act.target),
            false,
            format!(
                "The user did not allow {}. Do not try it again another way; finish and tell the user what is left for them to do.",
                consequence.reason
            ),
        )))
    }

    /// Whether the user's own words ask for the act: its label's words all among theirs, or the
    /// critic says so. An unusable or failed verdict is a no (the user is then asked).
    async fn user_asked_for(&self, label: &str, description: &str) -> Result<bool, StepError> {
        let (words, _) = self.conversation_texts();
        if asked_in_words(&words, label) {
            return Ok(true);
        }
        let prompt = critic_prompt(&words, description);
        let budget = &self.config.budgets.validator;
        match self.complete_within(Role::Critic, self.models.validator, budget, prompt, false).await {
            Ok(reply) => Ok(parse_asked(&reply).unwrap_or(false)),
            Err(StepError::Cancelled) => Err(StepError::Cancelled),
            Err(StepError::Fatal(_)) => Ok(false),
        }
    }
}
