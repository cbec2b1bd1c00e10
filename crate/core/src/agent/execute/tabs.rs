//! The tab actions: opening a tab (the model's, or one a link of the page asked for), switching
//! to one of the task's tabs, and closing one.

use super::consequences::{on_page, Act};
use super::flow::Outbound;
use super::navigation::{self, NewTab};
use super::report::{left_page, report, said, said_after, Outcome};
use crate::actions::Action;
use crate::agent::navigator::{Navigator, StepError};
use crate::agent::task_config::UserGate;
use crate::browser::{Browser, TabId, TabInfo};
use crate::llm::ChatModel;
use crate::safety::{Carried, PolicyRefusal};
use crate::tabs::{hidden_from_model, TabAlias};
use crate::text;
impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    pub(super) async fn open_tab(&self, name: &str, url: &str) -> Outcome {
        let url = match self.allowed_url(url) {
            Ok(url) => url,
            Err(refusal) => return Ok(report(name, None, false, format!("Did not open {url}: {refusal}."))),
        };
        let doing = text!("core_doing_opening_tab", &url);
        if let Some(refused) = self
            .guard_leaving(&Outbound { name, target: Some(&url), to: &url, carried: Carried::Address, doing })
            .await?
        {
            return Ok(refused);
        }
        Ok(match self.open_new_tab(&url).await? {
            Ok(opened) => said(name, Some(&url), opened),
            Err(problem) => report(name, Some(&url), false, problem),
        })
    }

    /// Opens `url` in a new tab next to the current one, which becomes the current tab; what
    /// happened, in words.
    pub(super) async fn open_new_tab(&self, url: &str) -> Result<Result<navigation::Said, String>, StepError> {
        let (id, navigation) = match self.browser.open_tab(self.tab.get(), url).await {
            Ok(opened) => opened,
            Err(err) => return Ok(Err(format!("Could not open a tab for {url}: {err}."))),
        };
        // The browser closes a tab it opened only for what turned out to be a download.
        if navigation::may_close_new_tab(&navigation) {
            let tabs = self.browser.tabs(self.tab.get()).await.unwrap_or_default();
            if !tabs.iter().any(|tab| tab.id == id) {
                let current = self.tab_aliases.borrow_mut().alias(self.tab.get()).to_string();
                return Ok(Ok(navigation::opened_in_new_tab(url, &navigation, &NewTab::ClosedAgain(current))));
            }
        }
        self.adopt(id).await?;
        let alias = self.tab_aliases.borrow_mut().alias(id).to_string();
        Ok(Ok(navigation::opened_in_new_tab(url, &navigation, &NewTab::Open(alias))))
    }

    /// Opens the tab a link of the page asked for (target=_blank), once the site policy and the
    /// data-flow check allow where it leads as the page's handlers left it: nothing reaches that
    /// address before they have.
    pub(super) async fn open_page_tab(&self, name: &str, target: Option<&str>, clicked: String, url: &str) -> Outcome {
        let url = match self.allowed_url(url) {
            Ok(url) => url,
            Err(refusal) => {
                let text = format!("{clicked} The page asked for a new tab at {url}, which was not opened: {refusal}.");
                return Ok(report(name, target, false, text));
            }
        };
        let doing = text!("core_doing_opening_tab", &url);
        if let Some(refused) =
            self.guard_leaving(&Outbound { name, target, to: &url, carried: Carried::Link, doing }).await?
        {
            return Ok(refused);
        }
        Ok(match self.open_new_tab(&url).await? {
            Ok(opened) => said_after(name, target, &clicked, opened),
            Err(problem) => report(name, target, false, format!("{clicked} {problem}")),
        })
    }

    /// The open tab the model means by `alias`, and whether it is one of the task's tabs now;
    /// or what to tell the model when there is none.
    pub(super) async fn tab_named(&self, alias: TabAlias) -> Result<(TabInfo, bool), String> {
        let (own, window) = self.own_tabs().await;
        let tab = self.tab_aliases.borrow().resolve(alias, &window)?.clone();
        let mine = own.iter().any(|listed| listed.id == tab.id);
        Ok((tab, mine))
    }

    /// Switches to the task's tab `alias`. A tab that is not the task's (the user took it out of
    /// the task's group) is the user's: the user is asked first, and the model learns nothing of
    /// it unless they allow it.
    pub(super) async fn switch_tab(&self, name: &str, alias: TabAlias) -> Outcome {
        let (tab, mine) = match self.tab_named(alias).await {
            Ok(found) => found,
            Err(problem) => return Ok(report(name, None, false, problem)),
        };
        let refusal = match self.config.limits.now().policy.check(&tab.url) {
            Err(refusal @ (PolicyRefusal::Denied { .. } | PolicyRefusal::NotAllowed { .. })) => Some(refusal),
            _ => None,
        };
        if !mine {
            let not_mine = format!("Did not switch to tab {alias}: it is not one of the task's tabs");
            if refusal.is_some() {
                return Ok(report(name, None, false, format!("{not_mine}.")));
            }
            let site = url::Url::parse(&tab.url).ok().and_then(|url| url.host_str().map(str::to_string));
            let site = site.unwrap_or_else(|| tab.url.clone());
            let question = text!("core_question_outside_tab", &tab.title, site);
            if !self.ask_user(question.into(), &tab.url, Vec::new()).await? {
                return Ok(report(name, None, false, format!("{not_mine}, and the user did not allow it.")));
            }
        }
        if let Some(refusal) = refusal {
            return Ok(report(name, None, false, format!("Did not switch to tab {alias}: {refusal}.")));
        }
        // The page shown hears it (when, and how often): an act on its site.
        if let Some(refused) = self.guard_tab_act(name, &tab.url).await? {
            return Ok(refused);
        }
        Ok(match self.browser.switch_tab(tab.id).await {
            Ok(()) => {
                self.adopt(tab.id).await?;
                left_page(report(name, None, true, format!("Switched to tab {alias}.")))
            }
            Err(err) => report(name, None, false, format!("Could not switch to tab {alias}: {err}.")),
        })
    }

    /// Closes the task's tab `alias` (`action`, the model's close_tab); never one of the user's
    /// others.
    pub(super) async fn close_tab(&self, action: &Action, alias: TabAlias) -> Outcome {
        let name = action.name();
        let tab = match self.tab_named(alias).await {
            Ok((tab, true)) => tab,
            Ok((_, false)) => {
                let text = format!("Did not close tab {alias}: it is not one of the task's tabs.");
                return Ok(report(name, None, false, text));
            }
            Err(problem) => return Ok(report(name, None, false, problem)),
        };
        // The page closed hears it (when): an act on its site.
        if let Some(refused) = self.guard_tab_act(name, &tab.url).await? {
            return Ok(refused);
        }
        // Never onto a page the model is not shown (the extension's own panel, the user's tabs).
        let (own, _) = self.own_tabs().await;
        let Some(next) = own.into_iter().find(|other| other.id != tab.id && !hidden_from_model(&other.url)) else {
            let text = "That is the task's only tab; open another before closing it.";
            return Ok(report(name, None, false, text.into()));
        };
        // What its page sends as it is left is held, as any act's changes.
        let (target, key) = (format!("tab {alias}"), format!("{name}|{}", tab.url));
        let act =
            Act { action, target, label: String::new(), url: &tab.url, lands: &tab.url, key, hold: on_page(&tab.url) };
        self.closing_held(&act, tab.id, || self.close_and_move_on(name, alias, tab.id, &next)).await
    }

    /// Closes the task's tab `tab` (`alias` to the model), moving the task to `next` if it was the
    /// current one.
    async fn close_and_move_on(&self, name: &str, alias: TabAlias, tab: TabId, next: &TabInfo) -> Outcome {
        if let Err(err) = self.browser.close_tab(tab).await {
            return Ok(report(name, None, false, format!("Could not close tab {alias}: {err}.")));
        }
        if tab != self.tab.get() {
            return Ok(report(name, None, true, format!("Closed tab {alias}.")));
        }
        self.adopt(next.id).await?;
        let _ = self.browser.switch_tab(next.id).await;
        let next_alias = self.tab_aliases.borrow_mut().alias(next.id);
        Ok(left_page(report(
            name,
            None,
            true,
            format!("Closed tab {alias}; the current tab is now {next_alias} ({}).", next.url),
        )))
    }
}
