//! The data-flow check where actions land: before the agent opens a page or a tab, follows a
//! link, submits a form, types, or acts at all on an element (a click, a choice, a drag, keys),
//! the site where that lands (the page's, a frame's, the link's or form's) is judged with what
//! the act would send (`safety::data_flow`). Outside the task's sites, data of the user's, what
//! the agent wrote, or any act while the task holds the user's data waits for the user's
//! approval; a secret outside its sites is never sent; where no site can be known, the act
//! waits. The site plan (a setting) then shows or asks about sites outside the task's plan.

use super::consequences::{Act, Before};
use super::{report, Done};
use crate::actions::{search_url, Action};
use crate::agent::navigator::{Navigator, StepError};
use crate::agent::task_config::UserGate;
use crate::browser::{Browser, BrowserError, KeyPress, PageOp};
use crate::dom_map::{MapElement, PageMap};
use crate::files::Source as FileSource;
use crate::i18n::{Arg, Text};
use crate::llm::ChatModel;
use crate::safety::{normalize_url, Carried, Cause, Conversation, Firewall, SearchPage, Site, SitePlan, Verdict};
use crate::text;
use std::collections::BTreeSet;

/// Words in a field's type, role, name or label that make it a search or filter box.
const SEARCH_WORDS: &[&str] = &["search", "filter", "query", "find"];
const SEARCH_NAMES: &[&str] = &["q", "s", "k", "query", "keywords", "term"];

/// An action about to send something somewhere, for the checks and for its report.
pub(super) struct Outbound<'a> {
    /// The action's name.
    pub name: &'a str,
    /// The element acted on, described.
    pub target: Option<&'a str>,
    /// Where it would send it.
    pub to: &'a str,
    pub carried: Carried<'a>,
    /// How, in words for the user ("opening https://...").
    pub doing: Text,
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Checks what a click, or typing, on `element` would send; the report when it must not run.
    pub(super) async fn guard_element(
        &self,
        action: &Action,
        element: &MapElement,
        page_url: &str,
    ) -> Result<Option<Done>, StepError> {
        let name = action.name();
        let target = element.describe();
        // What is done in a frame of another site lands on that site.
        let lands = element.frame_url.as_deref().unwrap_or(page_url);
        match action {
            Action::InputText { text, .. } => {
                let site = Site::of(lands).map(|site| site.to_string()).unwrap_or_default();
                let doing = text!("core_doing_typing", &target, site);
                let typing = Outbound { name, target: Some(&target), to: lands, carried: Carried::Typed(text), doing };
                self.guard_flow(&typing).await
            }
            Action::UploadFile { name, .. } => self.guard_upload(name, element, page_url).await,
            _ => {
                let doing = text!("core_doing_acting", name, &target);
                let act = Outbound { name, target: Some(&target), to: lands, carried: Carried::Act, doing };
                if let Some(refused) = self.guard_flow(&act).await? {
                    return Ok(Some(refused));
                }
                self.guard_click(action, element, &target).await
            }
        }
    }

    /// Checks where a click on `element` leads: its link, or the form it submits.
    async fn guard_click(
        &self,
        action: &Action,
        element: &MapElement,
        target: &str,
    ) -> Result<Option<Done>, StepError> {
        let name = action.name();
        match action {
            Action::ClickElement { .. } => {
                if let Some(link) = element.link.as_deref() {
                    let doing = text!("core_doing_following_link", target, link);
                    let link = Outbound { name, target: Some(target), to: link, carried: Carried::Link, doing };
                    return self.guard_leaving(&link).await;
                }
                if !matches!(element.tag.as_str(), "button" | "input") {
                    return Ok(None);
                }
                let op = PageOp::Submission { target: element.target.clone(), tag: element.tag.clone() };
                self.guard_submission(name, Some(target), &op, text!("core_doing_clicking", target)).await
            }
            _ => Ok(None),
        }
    }

    /// Checks the characters `presses` would type into the focused field (of the page at
    /// `page_url`, or of the frame of another site it is in), as typing is; trusted keys land on
    /// every frame `seen` shows, as trusted typing does. Tab moves the focus,
    /// into any frame of the page: keys after it, in these keys or later ones until an element is
    /// acted on, land on every frame `seen` shows; and Enter or Space there would press whatever
    /// has the focus, which no check can see, so they are refused (a click names its element).
    pub(super) async fn guard_keys(
        &self,
        keys: &str,
        presses: &[KeyPress],
        page_url: &str,
        seen: Option<&PageMap>,
    ) -> Result<Option<Done>, StepError> {
        let typed: String = presses
            .iter()
            .filter(|press| press.key.chars().count() == 1 && !press.ctrl && !press.alt && !press.meta)
            .map(|press| press.key.as_str())
            .collect();
        // Keys that type nothing still act (arrows pick, Tab moves on, Space presses).
        let carried = if typed.trim().is_empty() { Carried::Act } else { Carried::Typed(&typed) };
        let tab_at = presses.iter().position(|press| press.key == "Tab");
        let moved = self.focus_moved.get();
        // Trusted keys go wherever the focus is when they arrive, which a frame can take (as
        // trusted typing, `guard_trusted_typing`).
        let trusted = self.config.limits.now().trusted_input;
        let lands = if moved || tab_at.is_some() || trusted {
            self.everywhere_on(page_url, seen).await
        } else {
            std::iter::once(self.focus_frame_url.borrow().clone().unwrap_or_else(|| page_url.to_string())).collect()
        };
        // The keys pressed once the focus may be anywhere.
        let unseen_from = if moved { 0 } else { tab_at.map_or(presses.len(), |at| at + 1) };
        if presses[unseen_from..].iter().any(|press| press.key == "Enter" || press.key == " ") {
            return Ok(Some(report(
                "send_keys",
                None,
                false,
                "Not pressed: after Tab the focus may be on anything, in any frame, so Enter or Space would press what no check can see. To press a button or follow a link, click it by its index.".into(),
            )));
        }
        if let Some(refused) = self.guard_each(&lands, "send_keys", carried, text!("core_doing_pressing", keys)).await?
        {
            return Ok(Some(refused));
        }
        if tab_at.is_some() {
            self.focus_moved.set(true);
        }
        Ok(None)
    }

    /// Checks an act on the whole page (scrolling it, finding text in it): every frame of
    /// another site on the page sees where the page scrolls, so the act lands on them all.
    pub(super) async fn guard_page_act(
        &self,
        name: &str,
        page_url: &str,
        seen: Option<&PageMap>,
    ) -> Result<Option<Done>, StepError> {
        let doing = text!("core_doing_acting", name, page_url);
        self.guard_each(&self.everywhere_on(page_url, seen).await, name, Carried::Act, doing).await
    }

    /// The page at `page_url` and every frame on it: those `seen` shows, and those the browser
    /// knows by an address of their own (a frame that never answers the sensor, or keeps it out,
    /// is a frame all the same; one without, `about:blank`, is its creator's, listed already).
    async fn everywhere_on(&self, page_url: &str, seen: Option<&PageMap>) -> BTreeSet<String> {
        let known = self.browser.frame_urls(self.tab.get()).await.unwrap_or_default();
        let known = known.into_iter().filter(|url| url.starts_with("http://") || url.starts_with("https://"));
        let shown = seen.into_iter().flat_map(|map| map.frames.iter().cloned());
        std::iter::once(page_url.to_string()).chain(shown).chain(known).collect()
    }

    /// Checks trusted typing: the debugger's keys go wherever the focus is when they arrive, and
    /// a frame of another site on the page can take it between the focus and the keys (no page
    /// script can stop a frame focusing itself), so what is typed lands on every frame.
    pub(super) async fn guard_trusted_typing(
        &self,
        text: &str,
        page_url: &str,
        seen: Option<&PageMap>,
    ) -> Result<Option<Done>, StepError> {
        let doing = text!("core_doing_acting", "input_text", page_url);
        self.guard_each(&self.everywhere_on(page_url, seen).await, "input_text", Carried::Typed(text), doing).await
    }

    /// Checks an act on a whole tab (switching to it, closing it), which lands on its page's site.
    pub(super) async fn guard_tab_act(&self, name: &str, url: &str) -> Result<Option<Done>, StepError> {
        let doing = text!("core_doing_acting", name, url);
        self.guard_flow(&Outbound { name, target: None, to: url, carried: Carried::Act, doing }).await
    }

    /// Checks an act of no one element that lands on each of `lands`, as [`Self::guard_flow`].
    async fn guard_each(
        &self,
        lands: &BTreeSet<String>,
        name: &str,
        carried: Carried<'_>,
        doing: Text,
    ) -> Result<Option<Done>, StepError> {
        for to in lands {
            let out = Outbound { name, target: None, to, carried, doing: doing.clone() };
            if let Some(refused) = self.guard_flow(&out).await? {
                return Ok(Some(refused));
            }
        }
        Ok(None)
    }

    /// Checks the form Enter (among `presses`) would submit from the focused field.
    pub(super) async fn guard_enter(&self, keys: &str, presses: &[KeyPress]) -> Result<Option<Done>, StepError> {
        if !presses.iter().any(|press| press.key == "Enter") {
            return Ok(None);
        }
        let op = PageOp::FocusedSubmission { frame: self.focus_frame.get() };
        self.guard_submission("send_keys", None, &op, text!("core_doing_pressing", keys)).await
    }

    async fn guard_submission(
        &self,
        name: &str,
        target: Option<&str>,
        op: &PageOp,
        doing: Text,
    ) -> Result<Option<Done>, StepError> {
        let Some(form) = self.submission(op).await? else { return Ok(None) };
        let doing = text!("core_doing_submitting", doing, &form.action);
        let carried = Carried::Form(&form.fields);
        self.guard_leaving(&Outbound { name, target, to: &form.action, carried, doing }).await
    }

    /// Checks a navigation: the data it carries, then the site plan. A strict plan asks about
    /// every site outside it, what the agent wrote included, in its own words.
    pub(super) async fn guard_leaving(&self, out: &Outbound<'_>) -> Result<Option<Done>, StepError> {
        let plan_asks = self.config.limits.now().site_plan == SitePlan::Strict;
        if let Some(refused) = self.guard_flow_unless(out, plan_asks).await? {
            return Ok(Some(refused));
        }
        if let Some(refused) = self.guard_site(out).await? {
            return Ok(Some(refused));
        }
        // Judged: its pages may load in the task's tabs.
        self.data_flow.borrow_mut().reach(out.to);
        self.sync_tab_rules().await.map_err(StepError::Fatal)?;
        Ok(None)
    }

    /// Where pages may load in the task's tabs now.
    pub(in crate::agent) fn firewall(&self) -> Firewall {
        self.with_conversation(|conversation| Firewall {
            sites: self.data_flow.borrow().loadable_sites(conversation),
            search: conversation.search.clone(),
        })
    }

    /// Judges the page at `url` that the browser's firewall stopped in the current tab (a
    /// server's redirect, a page's own navigation), as the agent's own navigations are: passed,
    /// the tab goes there; stopped, why, for the model. `None` when the firewall admits `url`
    /// (something else stopped it).
    pub(in crate::agent) async fn pass_hop(&self, url: &str) -> Result<Option<Result<(), String>>, StepError> {
        if self.firewall().admits(url) {
            return Ok(None);
        }
        if let Some((_, said)) = self.stopped_hops.borrow().iter().find(|(stopped, _)| stopped == url) {
            return Ok(Some(Err(said.clone())));
        }
        let doing = text!("core_doing_going_on", url);
        let hop = Outbound { name: "navigation", target: None, to: url, carried: Carried::Link, doing };
        if let Some(refused) = self.guard_leaving(&hop).await? {
            let why = refused.report.outcome;
            self.warn_once(text!("core_warning_hop_stopped", url));
            let said = format!(
                "The page went on to {url} by itself (a redirect or its own script), and the browser stopped it there: {why} The tab shows the browser's error page; go back, or choose another way."
            );
            self.stopped_hops.borrow_mut().push((url.to_string(), said.clone()));
            return Ok(Some(Err(said)));
        }
        // Loaded as the agent's own navigation is: what the page sends as it loads is held.
        let action = Action::GoToUrl { url: url.to_string() };
        let key = format!("{}|{url}", action.name());
        let act = Act {
            action: &action,
            target: url.to_string(),
            label: String::new(),
            url,
            lands: url,
            key,
            hold: self.between(url, url),
        };
        let loaded = self
            .holding_changes(&act, Before::Unseen, || async {
                Ok(match self.browser.navigate(self.tab.get(), url).await {
                    Ok(_) => report("navigation", Some(url), true, String::new()),
                    Err(BrowserError::TabClosed) => return Err(StepError::Fatal(text!("core_task_tab_closed"))),
                    Err(err) => report("navigation", Some(url), false, err.to_string()),
                })
            })
            .await?;
        let said = loaded.report.outcome;
        Ok(Some(match (loaded.page_left, loaded.report.ok) {
            // What it sent was held, and judged: the model is told.
            (true, _) => Err(format!("The page went on to {url} by itself: {said}")),
            (false, true) => Ok(()),
            (false, false) => Err(format!("The page went on to {url} by itself, which could not be opened: {said}.")),
        }))
    }

    fn with_conversation<T>(&self, use_it: impl FnOnce(&Conversation) -> T) -> T {
        let (mut tasks, rest) = self.conversation_texts();
        // What the user said at a hand-over is their word as the task is.
        tasks.extend(self.hand_overs.borrow().said.iter().cloned());
        let attached: Vec<String> = self
            .files
            .borrow()
            .iter()
            .filter(|file| file.source == FileSource::Attached)
            .map(|file| file.name.clone())
            .collect();
        let limits = self.config.limits.now();
        let conversation = Conversation {
            tasks: &tasks,
            rest: &rest,
            secrets: &limits.secrets,
            policy: &limits.policy,
            search: self.search_page(),
            attached: &attached,
        };
        use_it(&conversation)
    }

    /// The results page of the search engine of the settings.
    pub(in crate::agent) fn search_page(&self) -> Option<SearchPage> {
        SearchPage::of(&search_url(self.config.search_engine, ""))
    }

    /// Asks the user before the user's data goes to a site they did not choose; refuses a secret
    /// outside its sites outright.
    pub(super) async fn guard_flow(&self, out: &Outbound<'_>) -> Result<Option<Done>, StepError> {
        self.guard_flow_unless(out, false).await
    }

    /// As [`Self::guard_flow`]; what the agent wrote goes unasked when `plan_asks` (the site
    /// plan's question follows).
    async fn guard_flow_unless(&self, out: &Outbound<'_>, plan_asks: bool) -> Result<Option<Done>, StepError> {
        let Outbound { name, target, to, ref doing, .. } = *out;
        let verdict =
            self.with_conversation(|conversation| self.data_flow.borrow().check(conversation, to, out.carried));
        match verdict {
            Verdict::Free => Ok(None),
            // The site plan's question covers the site.
            Verdict::Ask(flow) if plan_asks && matches!(flow.cause, Cause::Written | Cause::Holds) => Ok(None),
            Verdict::Never(flow) => {
                let refusal = flow.refusal();
                self.warn_once(text!("core_warning_data_stopped", doing.clone(), refusal.clone()));
                Ok(Some(report(
                    name,
                    target,
                    false,
                    format!("Not done: {refusal}. Do not try to send it there another way."),
                )))
            }
            Verdict::Ask(flow) => {
                if self.ask_user(flow.question(doing.clone()), to, flow.data()).await? {
                    self.data_flow.borrow_mut().choose(to);
                    self.sync_tab_rules().await.map_err(StepError::Fatal)?;
                    return Ok(None);
                }
                let data = flow.data().join(", ");
                let site = &flow.site;
                let said = match flow.cause {
                    Cause::Unknown => format!("The user did not allow acting in {site}, where no site can be known (a frame with no address of its own, or a sandboxed one): what is done there may reach anyone. Do not act in it; go on without it, or finish and tell the user what is left for them to do."),
                    Cause::Holds => format!("The user did not allow acting on {site}, a site outside the task's sites, while the task holds their data. Do not try to reach it another way; stay on the task's sites, or finish and tell the user what is left for them to do."),
                    Cause::Written => format!("The user did not allow sending what you wrote ({data}) to {site}, a site they did not choose. Do not try to reach it another way; use the links pages offer, go on without it, or finish and tell the user what is left for them to do."),
                    Cause::Carries => format!("The user did not allow sending {data} to {site}. Do not try to send it there another way; go on without it, or finish and tell the user what is left for them to do."),
                };
                Ok(Some(report(name, target, false, said)))
            }
        }
    }

    /// Sites outside the task's plan: shown to the user (ask) or waiting for their approval
    /// (strict). The search engine the user chose is always in the plan.
    async fn guard_site(&self, out: &Outbound<'_>) -> Result<Option<Done>, StepError> {
        let Outbound { name, target, to, ref doing, .. } = *out;
        if self.config.limits.now().site_plan == SitePlan::Off {
            return Ok(None);
        }
        let Some(site) = Site::of(to) else { return Ok(None) };
        let to_search =
            url::Url::parse(to).is_ok_and(|url| self.search_page().is_some_and(|search| search.holds(&url)));
        let (chosen, plan) = self.with_conversation(|conversation| {
            let flow = self.data_flow.borrow();
            (flow.is_chosen(conversation, to), flow.plan(conversation))
        });
        if chosen || to_search {
            return Ok(None);
        }
        let planned = if plan.is_empty() { text!("core_plan_no_sites").into() } else { Arg::from(plan.join(", ")) };
        let plan = planned.english();
        if self.config.limits.now().site_plan == SitePlan::Ask {
            self.warn_once(text!("core_warning_unplanned_site", site.to_string(), planned));
            return Ok(None);
        }
        let question = text!("core_question_unplanned_site", site.to_string(), planned, doing.clone());
        if self.ask_user(question.into(), to, Vec::new()).await? {
            self.data_flow.borrow_mut().choose(to);
            return Ok(None);
        }
        Ok(Some(report(
            name,
            target,
            false,
            format!("The user did not allow going to {site}, which is not in the task's plan. Stay on the planned sites ({plan}), or finish and tell the user."),
        )))
    }

    /// With a site plan set, the sites the planner expects at the start of a task are put to the
    /// user; once confirmed they count as chosen.
    pub(in crate::agent) async fn confirm_plan_sites(&self, sites: &[String]) -> Result<(), StepError> {
        if self.config.limits.now().site_plan == SitePlan::Off {
            return Ok(());
        }
        let mut new: Vec<(String, Site)> = Vec::new();
        for url in sites.iter().filter_map(|site| normalize_url(site).ok()) {
            let Some(site) = Site::of(&url) else { continue };
            let chosen = self.with_conversation(|conversation| self.data_flow.borrow().is_chosen(conversation, &url));
            if !chosen && !new.iter().any(|(_, known)| *known == site) {
                new.push((url, site));
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = new.iter().map(|(_, site)| site.to_string()).collect();
        let question = match self.config.limits.now().site_plan {
            SitePlan::Strict => text!("core_question_plan_sites_ask", names.join(", ")),
            _ => text!("core_question_plan_sites_tell", names.join(", ")),
        };
        if self.ask_user(question.into(), &new[0].0, names).await? {
            for (url, _) in &new {
                self.data_flow.borrow_mut().choose(url);
            }
        }
        Ok(())
    }

    /// Remembers a value the agent typed on `page_url`.
    pub(super) fn note_typed(&self, element: &MapElement, page_url: &str, text: &str) {
        self.data_flow.borrow_mut().typed(page_url, text, is_search_field(element));
    }
}

/// A search or filter box: what is typed there is a query, not the user's details.
fn is_search_field(element: &MapElement) -> bool {
    element.attrs.iter().any(|(name, value)| {
        let value = value.to_lowercase();
        match name.as_str() {
            "type" | "role" => value == "search" || value == "searchbox" || value == "combobox",
            "name" => SEARCH_NAMES.contains(&value.as_str()) || SEARCH_WORDS.iter().any(|w| value.contains(w)),
            "placeholder" | "aria-label" | "label" | "title" => SEARCH_WORDS.iter().any(|w| value.contains(w)),
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests;
