//! The task handing the tab over to the user (see `agent/hand_over.rs`): the pause until they
//! continue, and the guard that keeps the agent from typing a password or code they did not give.

use super::{Navigator, StepError};
use crate::agent::events::AgentEvent;
use crate::agent::hand_over::{HandOver, Reason};
use crate::agent::task_config::UserGate;
use crate::browser::Browser;
use crate::dom_map::MapElement;
use crate::i18n::Message;
use crate::llm::ChatModel;
use crate::text;

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
    pub(in crate::agent) async fn hand_over(
        &self,
        reason: Reason,
        question: Message,
        url: &str,
    ) -> Result<String, StepError> {
        let id = self.approvals.get() + 1;
        self.approvals.set(id);
        let tab = self.tab.get();
        // The model reads what was asked in English; the user, in their language.
        let (english, asked) = (question.to_string(), question.clone());
        // The tab is the user's meanwhile: the firewall does not stop where they go (a sign-in on
        // another site); the site lists still hold.
        let tabs = self.task_tabs.borrow().clone();
        let lifted = self.config.limits.enforce_in(&tabs, None, self.browser).await;
        lifted.map_err(|err| StepError::Fatal(text!("core_task_policy_not_enforced", err.text())))?;
        (self.emit)(AgentEvent::HandOverNeeded { id, reason, question, url: url.to_string(), tab });
        let started = self.browser.now_ms();
        let answer = self.cancel.guard(self.gate.hand_over(id)).await.ok_or(StepError::Cancelled)?;
        // The user's time is not the task's.
        self.recorder.borrow_mut().user_waited(self.browser.now_ms() - started, reason == Reason::Ask);
        // Where the user left the tab is their choice; then the firewall holds again.
        if let Some(left_on) = self.tab_url().await {
            self.data_flow.borrow_mut().choose(&left_on);
        }
        self.sync_tab_rules().await.map_err(StepError::Fatal)?;
        match answer {
            HandOver::Continue(said) => {
                let said = said.map(|said| said.trim().to_string()).filter(|said| !said.is_empty());
                if let Some(said) = &said {
                    self.hand_overs.borrow_mut().said.push(said.clone());
                }
                Ok(continued_note(reason, &english, said.as_deref()))
            }
            HandOver::Stop => Err(StepError::Cancelled),
            HandOver::Unanswered => Err(StepError::Fatal(text!("core_hand_over_unanswered", asked))),
        }
    }

    /// The `ask_user` action: the model's question to the user, and what came of it.
    pub(in crate::agent) async fn ask_user_action(&self, question: &str) -> Result<String, StepError> {
        let url = self.hand_overs.borrow().needs.url.clone();
        self.hand_over(Reason::Ask, Message::from(question), &url).await
    }

    /// At the start of a step, on the page just read: hands over when the page needs a person
    /// (once per page and reason; a sign-in only on a page the task went to, not the one it
    /// started on). Gives the note for the model when the user continued, and then the page is
    /// to be read again.
    pub(in crate::agent) async fn hand_over_if_needed(&self) -> Result<Option<String>, StepError> {
        let (reason, question, url) = {
            let mut watch = self.hand_overs.borrow_mut();
            let mut words = self.conversation_texts().0;
            words.extend(watch.said.iter().cloned());
            let url = watch.needs.url.clone();
            let page = url.split(['?', '#']).next().unwrap_or_default().to_string();
            let started_here = watch.start.get_or_insert_with(|| page.clone()) == &page;
            let Some(reason) = watch.needs.reason(&self.config.limits.now().secrets, &words) else { return Ok(None) };
            if (reason == Reason::Login && started_here) || !watch.asked.insert((reason, page)) {
                return Ok(None);
            }
            (reason, watch.needs.question(reason), url)
        };
        self.hand_over(reason, question.into(), &url).await.map(Some)
    }

    /// Refuses to type into a password or one-time-code field a text the user did not give: not
    /// one of their secrets (`consented`), not in their task or what they said at a hand-over.
    pub(in crate::agent) fn guard_secret_field(
        &self,
        text: &str,
        element: &MapElement,
        consented: bool,
    ) -> Option<String> {
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
