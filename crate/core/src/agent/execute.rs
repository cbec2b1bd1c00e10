//! Running the navigator's actions: each element action is checked against the element the model
//! saw, each outcome is reported in a sentence the model can use, and a step's actions stop early
//! when the page changes under them.

use super::events::ActionReport;
use super::navigator::{Look, Navigator, StepError};
use super::prompt::{extraction_prompt, EXTRACTION_REPLY_HINT};
use super::record::Role;
use super::task_config::UserGate;
use crate::actions::{assess, search_url, Action, ScrollDirection, MAX_SCROLL_PAGES, MAX_WAIT_SECONDS};
use crate::browser::{
    parse_keys, trusted_input, Browser, BrowserError, Click, Highlight, HistoryStep, OpOutcome, PageOp, ScrollState,
    TabInfo,
};
use crate::content::{chunks, to_markdown, RawContent};
use crate::dom_map::{ElementRef, MapElement, PageMap};
use crate::llm::repair::{outermost_object, parse_lenient};
use crate::llm::ChatModel;
use crate::safety::{Carried, PolicyRefusal};
use crate::tabs::{hidden_from_model, TabAlias};
use crate::text;
use crate::text::truncate_words;

/// Roles of the entries of a custom dropdown (listbox, menu, tree, grid).
const OPTION_ROLES: &[&str] = &["option", "menuitem", "menuitemradio", "menuitemcheckbox", "treeitem", "gridcell"];
/// Extraction reads at most this many chunks of this size.
const EXTRACT_CHUNK_TOKENS: usize = 6000;
const EXTRACT_MAX_CHUNKS: usize = 4;
/// Longest extraction answer kept in the results.
const EXTRACT_MAX_CHARS: usize = 3000;

/// The outcome of one action: what the step reports, and whether the page the remaining actions
/// were chosen for is gone.
struct Done {
    report: ActionReport,
    page_left: bool,
}

type Outcome = Result<Done, StepError>;

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Runs actions in order; stops at `done`, at a failure, or when the page the later actions
    /// were chosen for has changed. Returns the reports and, for `done`, its success and text.
    pub(super) async fn run_actions(
        &self,
        actions: &[Action],
        seen: Option<&PageMap>,
    ) -> Result<(Vec<ActionReport>, Option<(bool, String)>), StepError> {
        let mut reports = Vec::new();
        // A fresh look taken right after the previous action, reused to check the next one.
        let mut latest: Option<PageMap> = None;
        for (i, action) in actions.iter().enumerate() {
            self.wait_while_paused().await;
            if self.cancel.is_cancelled() {
                return Err(StepError::Cancelled);
            }
            if let Action::Done { text, success } = action {
                reports.push(ActionReport {
                    name: "done".into(),
                    target: None,
                    element: None,
                    ok: true,
                    outcome: text.clone(),
                });
                return Ok((reports, Some((*success, text.clone()))));
            }
            let done = self.run_action(action, seen, latest.take()).await?;
            let ok = done.report.ok;
            reports.push(done.report);
            let rest = &actions[i + 1..];
            if !ok || rest.is_empty() {
                break;
            }
            let reason = if done.page_left {
                Some("The page changed".to_string())
            } else {
                let (reason, look) = self.page_changed_under(rest, seen).await?;
                latest = look;
                reason
            };
            if let Some(reason) = reason {
                let skipped: Vec<&str> = rest.iter().map(Action::name).collect();
                reports.push(ActionReport {
                    name: "skipped".into(),
                    target: None,
                    element: None,
                    ok: true,
                    outcome: format!(
                        "{reason}, so the remaining actions ({}) were not run; look at the new page map.",
                        skipped.join(", ")
                    ),
                });
                break;
            }
        }
        Ok((reports, None))
    }

    /// Why the remaining actions no longer apply, if the page changed under them, with the look
    /// taken to find out.
    async fn page_changed_under(
        &self,
        rest: &[Action],
        seen: Option<&PageMap>,
    ) -> Result<(Option<String>, Option<PageMap>), StepError> {
        let Some(next_index) = rest.iter().find_map(Action::index) else {
            return Ok((None, None));
        };
        if let Some(next) = seen.and_then(|map| map.element(next_index)) {
            if self.still_as_seen(next).await {
                return Ok((None, None));
            }
        }
        let now = match self.observe(Look::Peek).await? {
            Ok(map) => map,
            Err(reason) => return Ok((Some(format!("The page can no longer be read ({reason})")), None)),
        };
        if seen.is_none_or(|map| map.url != now.url) {
            return Ok((Some(format!("The page changed to {}", now.url)), Some(now)));
        }
        let before = seen.and_then(|map| map.element(next_index)).map(|e| e.fingerprint);
        let after = now.element(next_index).map(|e| e.fingerprint);
        let reason = (before != after).then(|| format!("Element [{next_index}] changed or disappeared"));
        Ok((reason, Some(now)))
    }

    async fn run_action(&self, action: &Action, seen: Option<&PageMap>, latest: Option<PageMap>) -> Outcome {
        let name = action.name();
        match action {
            Action::GoToUrl { url } => self.open(name, url).await,
            Action::Search { query } => self.open(name, &search_url(self.config.search_engine, query)).await,
            Action::GoBack => self.history(name, HistoryStep::Back).await,
            Action::GoForward => self.history(name, HistoryStep::Forward).await,
            Action::Reload => self.history(name, HistoryStep::Reload).await,
            Action::Wait { seconds } => {
                let waited = self.cancel.guard(self.browser.sleep((seconds * 1000.0) as u32)).await;
                waited.ok_or(StepError::Cancelled)?;
                // A longer wait asked for was cut to the bound: the model is told so.
                let bound = if *seconds >= MAX_WAIT_SECONDS {
                    ", the longest one wait lasts; wait again if the page needs longer"
                } else {
                    ""
                };
                Ok(report(name, None, true, format!("Waited {seconds} s{bound}.")))
            }
            Action::SendKeys { keys } => {
                let keys_parsed = match parse_keys(keys) {
                    Ok(keys) => keys,
                    Err(problem) => return Ok(report(name, None, false, format!("{problem}."))),
                };
                let page_url = seen.map(|map| map.url.as_str()).unwrap_or_default();
                if let Some(refused) = self.guard_keys(keys, &keys_parsed, page_url).await? {
                    return Ok(refused);
                }
                if let Some(refused) = self.guard_enter(keys, &keys_parsed).await? {
                    return Ok(refused);
                }
                let outcome = if self.config.trusted_input {
                    self.input(&trusted_input::key_presses(&keys_parsed)).await?
                } else {
                    self.perform(&PageOp::Keys { frame: self.focus_frame.get(), keys: keys_parsed }).await?
                };
                self.after_op(name, None, outcome, format!("Pressed {keys}."), "Could not press the keys").await
            }
            Action::Scroll { direction, pages, index: None } => {
                let op = PageOp::ScrollPage { frame: 0, direction: direction.as_str(), pages: *pages };
                let outcome = self.perform(&op).await?;
                let text = scroll_sentence(*direction, *pages, "the page", outcome.scroll.as_ref());
                self.after_op(name, None, outcome, text, "Could not scroll").await
            }
            Action::ScrollToText { text } | Action::FindText { text } => self.find(action, text).await,
            Action::OpenTab { url } => self.open_tab(name, url).await,
            Action::SwitchTab { tab } => self.switch_tab(name, *tab).await,
            Action::CloseTab { tab } => self.close_tab(name, *tab).await,
            Action::Extract { query } => self.extract(query).await,
            Action::ClickElement { index, .. }
            | Action::InputText { index, .. }
            | Action::Hover { index }
            | Action::SelectOption { index, .. }
            | Action::GetDropdownOptions { index }
            | Action::Scroll { index: Some(index), .. } => {
                let element = match self.verified_element(*index, seen, latest).await? {
                    Ok(element) => element,
                    Err(problem) => return Ok(report(name, None, false, problem)),
                };
                self.focus_frame.set(element.target.frame_id);
                self.focus_frame_url.replace(element.frame_url.clone());
                let url = seen.map(|map| map.url.as_str()).unwrap_or_default();
                let (action, consented) = match self.fill_secrets(action, url) {
                    Ok(filled) => filled,
                    Err(problem) => {
                        self.warn_once(text!("core_warning_secret_stopped", url, &problem));
                        return Ok(report(name, None, false, format!("Did not type: {problem}.")));
                    }
                };
                if let Some(refused) = self.guard_element(&action, &element, url).await? {
                    return Ok(refused);
                }
                if !consented {
                    if let Some(refused) = self.ask_if_consequential(&action, &element, seen).await? {
                        return Ok(refused);
                    }
                }
                // The panel can point the user at the element acted on, while it is still there.
                let mut done = self.element_action(&action, &element).await?;
                if let (Action::InputText { text, .. }, true, false) = (&action, done.report.ok, consented) {
                    // Secrets are followed as such, never kept as typed values.
                    self.note_typed(
                        &element,
                        element.frame_url.as_deref().unwrap_or(url),
                        &self.config.secrets.redact(text),
                    );
                }
                done.report.element = Some(Highlight { target: element.target.clone(), index: element.index });
                Ok(done)
            }
            Action::Done { .. } => unreachable!("done ends the step before it runs"),
        }
    }

    /// The action with secret placeholders filled in for `url`, and whether it only types
    /// secrets the user allowed there (their consent, so no approval is asked).
    fn fill_secrets(&self, action: &Action, url: &str) -> Result<(Action, bool), String> {
        match action {
            Action::InputText { index, text, clear } => {
                let (text, consented) = self.config.secrets.fill(text, url)?;
                Ok((Action::InputText { index: *index, text, clear: *clear }, consented))
            }
            other => Ok((other.clone(), false)),
        }
    }

    /// Puts a consequential action to the user; returns the report when they refuse it.
    async fn ask_if_consequential(
        &self,
        action: &Action,
        element: &MapElement,
        seen: Option<&PageMap>,
    ) -> Result<Option<Done>, StepError> {
        let Some(page) = seen else { return Ok(None) };
        let Some(consequence) = assess(action, element, page, self.config.strictness) else { return Ok(None) };
        let approved = self.ask_user(consequence.question(), &page.url, Vec::new()).await?;
        Ok((!approved).then(|| {
            report(
                action.name(),
                Some(&element.describe()),
                false,
                format!(
                    "The user did not allow {}. Do not try it again another way; finish and tell the user what is left for them to do.",
                    consequence.reason
                ),
            )
        }))
    }

    /// Whether `element`, from the map the model saw, is known to be as it was without reading the
    /// whole page again (a read of a large page takes hundreds of milliseconds; this, a few).
    async fn still_as_seen(&self, element: &MapElement) -> bool {
        !self.peeked.get() && self.browser.element_unchanged(self.tab.get(), &element.target).await.unwrap_or(false)
    }

    /// The element at `index` as it is now, if it is still the one the model saw.
    async fn verified_element(
        &self,
        index: u32,
        seen: Option<&PageMap>,
        latest: Option<PageMap>,
    ) -> Result<Result<MapElement, String>, StepError> {
        let Some(was) = seen.and_then(|map| map.element(index)) else {
            return Ok(Err(format!(
                "There is no element [{index}] in the page map; use an index from the current map."
            )));
        };
        let now = match latest {
            Some(map) => map,
            None if self.still_as_seen(was).await => return Ok(Ok(was.clone())),
            None => match self.observe(Look::Peek).await? {
                Ok(map) => map,
                Err(reason) => return Ok(Err(format!("The page can no longer be read ({reason})."))),
            },
        };
        Ok(match now.element(index) {
            None => Err(format!(
                "Element [{index}] ({}) is no longer on the page: it was removed or replaced. Look at the new page map.",
                was.describe()
            )),
            Some(element) if element.fingerprint != was.fingerprint => Err(format!(
                "Element [{index}] changed since the page was read: it was {}, it is now {}. Check the new page map before acting on it.",
                was.describe(),
                element.describe()
            )),
            Some(element) => Ok(element.clone()),
        })
    }

    async fn element_action(&self, action: &Action, element: &MapElement) -> Outcome {
        let name = action.name();
        let target = element.describe();
        let at = element.target.clone();
        let tag = element.tag.clone();
        match action {
            Action::ClickElement { .. }
                if element.link.as_deref().is_some_and(|link| self.config.policy.check(link).is_err()) =>
            {
                let refusal = self.config.policy.check(element.link.as_deref().unwrap_or_default()).unwrap_err();
                Ok(report(name, Some(&target), false, format!("Did not click {target}: it leads to {refusal}.")))
            }
            Action::ClickElement { click, .. } => {
                let outcome = if self.trusted_here(element) {
                    self.trusted_click(at, tag, *click).await?
                } else {
                    self.perform(&PageOp::Click { target: at, tag, click: *click }).await?
                };
                self.after_op(
                    name,
                    Some(&target),
                    outcome,
                    format!("{} {target}.", click.verb()),
                    &format!("Could not click {target}"),
                )
                .await
            }
            Action::Hover { .. } => {
                let outcome = self.perform(&PageOp::Hover { target: at, tag }).await?;
                self.after_op(
                    name,
                    Some(&target),
                    outcome,
                    format!("Moved the pointer over {target}."),
                    &format!("Could not hover over {target}"),
                )
                .await
            }
            Action::InputText { text, clear, .. } => {
                let outcome = if self.trusted_here(element) {
                    self.trusted_type(at, tag, text, *clear).await?
                } else {
                    self.type_into(at, tag, text, *clear).await?
                };
                let typed = typed_sentence(text, &target, outcome.value.as_deref());
                self.after_op(name, Some(&target), outcome, typed, &format!("Could not type into {target}")).await
            }
            Action::Scroll { direction, pages, .. } => {
                let op = PageOp::ScrollElement { target: at, tag, direction: direction.as_str(), pages: *pages };
                let outcome = self.perform(&op).await?;
                let text = scroll_sentence(
                    *direction,
                    *pages,
                    &format!("the scroll area of {target}"),
                    outcome.scroll.as_ref(),
                );
                self.after_op(name, Some(&target), outcome, text, &format!("Could not scroll {target}")).await
            }
            Action::SelectOption { text, .. } if element.tag == "select" => {
                let outcome = self.perform(&PageOp::Select { target: at, tag, text: text.clone() }).await?;
                if let (false, Some(options)) = (outcome.ok, &outcome.options) {
                    let listed =
                        format!("{target} has no option \"{text}\"; its options are: {}.", quote_list(options));
                    return Ok(report(name, Some(&target), false, listed));
                }
                let chosen = outcome.value.clone().unwrap_or_default();
                self.after_op(
                    name,
                    Some(&target),
                    outcome,
                    format!("Selected \"{chosen}\" in {target}."),
                    &format!("Could not select \"{text}\" in {target}"),
                )
                .await
            }
            Action::GetDropdownOptions { .. } if element.tag == "select" => {
                let outcome = self.perform(&PageOp::Options { target: at, tag }).await?;
                let options = outcome.options.clone().unwrap_or_default();
                let listed = format!(
                    "The options of {target} are: {}. Use select_option with one of these texts.",
                    quote_list(&options)
                );
                self.after_op(name, Some(&target), outcome, listed, &format!("Could not read the options of {target}"))
                    .await
            }
            Action::SelectOption { text, .. } => self.select_custom(element, text).await,
            Action::GetDropdownOptions { .. } => self.list_custom_options(element).await,
            _ => unreachable!("only element actions reach here"),
        }
    }

    /// Opens a custom dropdown and returns the visible options, as the map now shows them.
    async fn open_dropdown(&self, element: &MapElement) -> Result<Result<Vec<MapElement>, String>, StepError> {
        let target = element.describe();
        let op = PageOp::Click { target: element.target.clone(), tag: element.tag.clone(), click: Click::Single };
        let outcome = self.perform(&op).await?;
        if !outcome.ok {
            return Ok(Err(format!("Could not open {target}: {}.", outcome.message)));
        }
        let now = match self.observe(Look::Peek).await? {
            Ok(map) => map,
            Err(reason) => return Ok(Err(format!("After opening {target} the page could not be read ({reason})."))),
        };
        let options: Vec<MapElement> = now
            .elements()
            .filter(|e| e.index != element.index)
            .filter(|e| {
                e.tag == "option" || e.attrs.iter().any(|(k, v)| k == "role" && OPTION_ROLES.contains(&v.as_str()))
            })
            .cloned()
            .collect();
        if options.is_empty() {
            return Ok(Err(format!("Clicked {target}, but no list of options appeared.")));
        }
        Ok(Ok(options))
    }

    async fn list_custom_options(&self, element: &MapElement) -> Outcome {
        let name = "get_dropdown_options";
        let target = element.describe();
        Ok(match self.open_dropdown(element).await? {
            Err(problem) => report(name, Some(&target), false, problem),
            Ok(options) => {
                let listed: Vec<String> =
                    options.iter().map(|o| format!("[{}] {}", o.index, option_label(o))).collect();
                report(
                    name,
                    Some(&target),
                    true,
                    format!(
                        "{target} is open; its options are: {}. Use select_option or click one.",
                        listed.join(", ")
                    ),
                )
            }
        })
    }

    /// A custom dropdown: open it, click the option whose text matches, check that it took.
    async fn select_custom(&self, element: &MapElement, wanted: &str) -> Outcome {
        let name = "select_option";
        let target = element.describe();
        let options = match self.open_dropdown(element).await? {
            Err(problem) => return Ok(report(name, Some(&target), false, problem)),
            Ok(options) => options,
        };
        let Some(option) = best_match(&options, wanted) else {
            let labels: Vec<String> = options.iter().map(option_label).collect();
            return Ok(report(
                name,
                Some(&target),
                false,
                format!("{target} has no option \"{wanted}\"; its options are: {}.", quote_list(&labels)),
            ));
        };
        let label = option_label(option);
        let op = PageOp::Click { target: option.target.clone(), tag: option.tag.clone(), click: Click::Single };
        let outcome = self.perform(&op).await?;
        if !outcome.ok {
            return Ok(report(
                name,
                Some(&target),
                false,
                format!("Could not choose \"{label}\": {}.", outcome.message),
            ));
        }
        // Verify: the control now shows the choice, or the option says it is selected.
        let shows = match self.observe(Look::Peek).await? {
            Ok(now) => {
                let control_shows = now.element(element.index).is_some_and(|e| {
                    contains_ci(&e.text, &label) || e.attrs.iter().any(|(k, v)| k == "value" && contains_ci(v, &label))
                });
                let option_selected = now
                    .element(option.index)
                    .is_some_and(|o| o.attrs.iter().any(|(k, v)| (k == "selected" || k == "checked") && v == "true"));
                control_shows || option_selected
            }
            Err(_) => false,
        };
        Ok(if shows {
            report(name, Some(&target), true, format!("Selected \"{label}\" in {target}."))
        } else {
            report(
                name,
                Some(&target),
                false,
                format!(
                    "Clicked the option \"{label}\", but {target} does not show it as chosen; look at the page map."
                ),
            )
        })
    }

    async fn find(&self, action: &Action, text: &str) -> Outcome {
        let name = action.name();
        let op = PageOp::Find { frame: 0, text: text.to_string(), reveal: true };
        let outcome = self.perform(&op).await?;
        let found = outcome.found.clone().unwrap_or_default();
        if !outcome.ok {
            return Ok(report(name, None, false, format!("Could not search the page: {}.", outcome.message)));
        }
        Ok(match (found.count, action) {
            (0, _) => report(name, None, false, format!("\"{text}\" does not appear on the page.")),
            (count, Action::ScrollToText { .. }) => {
                report(name, None, true, format!("Scrolled to \"{text}\" ({count} on the page)."))
            }
            (count, _) => {
                let snippets: Vec<String> = found.snippets.iter().map(|s| format!("\"…{s}…\"")).collect();
                report(
                    name,
                    None,
                    true,
                    format!(
                        "\"{text}\" appears {count} times; scrolled to the first. Context: {}.",
                        snippets.join("; ")
                    ),
                )
            }
        })
    }

    async fn extract(&self, query: &str) -> Outcome {
        let name = "extract";
        let outcome = self.perform(&PageOp::Content { frame: 0 }).await?;
        let content: RawContent = match outcome.content.as_deref().map(serde_json::from_str) {
            Some(Ok(content)) => content,
            _ => {
                return Ok(report(
                    name,
                    None,
                    false,
                    format!("Could not read the page's content: {}.", outcome.message),
                ))
            }
        };
        let markdown = to_markdown(&content);
        // A chunk and the instructions fit the model's budget with room to spare.
        let budget = &self.config.budgets.navigator;
        let pieces = chunks(&markdown, EXTRACT_CHUNK_TOKENS.min(budget.max_input_tokens / 2));
        let mut answers = Vec::new();
        for piece in pieces.iter().take(EXTRACT_MAX_CHUNKS) {
            let prompt = extraction_prompt(query, &self.config.secrets.redact(piece));
            let reply = self.complete_within(Role::Extraction, self.models.navigator, budget, prompt, false).await?;
            match parse_extraction(&reply) {
                Some((true, answer)) => answers.push(answer),
                Some((false, _)) => {}
                None => {
                    return Ok(report(
                        name,
                        None,
                        false,
                        format!("The extraction reply could not be read; {EXTRACTION_REPLY_HINT}"),
                    ))
                }
            }
        }
        let skipped = pieces.len().saturating_sub(EXTRACT_MAX_CHUNKS);
        let tail = if skipped > 0 {
            format!(" (the last {skipped} parts of this very long page were not read)")
        } else {
            String::new()
        };
        Ok(if answers.is_empty() {
            report(name, None, true, format!("The page does not say anything about \"{query}\"{tail}."))
        } else {
            let answer = truncate_words(&answers.join("\n"), EXTRACT_MAX_CHARS);
            self.data_flow.borrow_mut().read_passage(&content.url, &answer);
            report(name, None, true, format!("Extracted for \"{query}\"{tail}: {answer}"))
        })
    }

    async fn open(&self, name: &str, url: &str) -> Outcome {
        let url = match self.allowed_url(url) {
            Ok(url) => url,
            Err(refusal) => return Ok(report(name, None, false, format!("Did not open {url}: {refusal}."))),
        };
        if let Some(refused) = self
            .guard_leaving(&Outbound {
                name,
                target: Some(&url),
                to: &url,
                carried: Carried::Address,
                doing: text!("core_doing_opening", &url),
            })
            .await?
        {
            return Ok(refused);
        }
        Ok(match self.browser.navigate(self.tab.get(), &url).await {
            Ok(navigation) => said(name, Some(&url), navigation::opened(&url, &navigation)),
            Err(BrowserError::TabClosed) => return Err(tab_closed()),
            Err(err) => report(name, Some(&url), false, format!("Could not open {url}: {err}.")),
        })
    }

    async fn history(&self, name: &str, step: HistoryStep) -> Outcome {
        Ok(match self.browser.history(self.tab.get(), step).await {
            Ok(navigation) => said(name, None, navigation::moved(step, &navigation)),
            Err(BrowserError::TabClosed) => return Err(tab_closed()),
            Err(BrowserError::Navigation(detail)) => report(name, None, false, format!("Could not do that: {detail}.")),
            Err(err) => report(name, None, false, format!("Could not do that: {err}.")),
        })
    }

    async fn open_tab(&self, name: &str, url: &str) -> Outcome {
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
    async fn open_new_tab(&self, url: &str) -> Result<Result<navigation::Said, String>, StepError> {
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
    async fn open_page_tab(&self, name: &str, target: Option<&str>, clicked: String, url: &str) -> Outcome {
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
    async fn tab_named(&self, alias: TabAlias) -> Result<(TabInfo, bool), String> {
        let (own, window) = self.own_tabs().await;
        let tab = self.tab_aliases.borrow().resolve(alias, &window)?.clone();
        let mine = own.iter().any(|listed| listed.id == tab.id);
        Ok((tab, mine))
    }

    /// Switches to the task's tab `alias`. A tab that is not the task's (the user took it out of
    /// the task's group) is the user's: the user is asked first, and the model learns nothing of
    /// it unless they allow it.
    async fn switch_tab(&self, name: &str, alias: TabAlias) -> Outcome {
        let (tab, mine) = match self.tab_named(alias).await {
            Ok(found) => found,
            Err(problem) => return Ok(report(name, None, false, problem)),
        };
        let refusal = match self.config.policy.check(&tab.url) {
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
        Ok(match self.browser.switch_tab(tab.id).await {
            Ok(()) => {
                self.adopt(tab.id).await?;
                left_page(report(name, None, true, format!("Switched to tab {alias}.")))
            }
            Err(err) => report(name, None, false, format!("Could not switch to tab {alias}: {err}.")),
        })
    }

    /// Closes the task's tab `alias`; never one of the user's others.
    async fn close_tab(&self, name: &str, alias: TabAlias) -> Outcome {
        let tab = match self.tab_named(alias).await {
            Ok((tab, true)) => tab.id,
            Ok((_, false)) => {
                let text = format!("Did not close tab {alias}: it is not one of the task's tabs.");
                return Ok(report(name, None, false, text));
            }
            Err(problem) => return Ok(report(name, None, false, problem)),
        };
        // Never onto a page the model is not shown (the extension's own panel, the user's tabs).
        let (own, _) = self.own_tabs().await;
        let Some(next) = own.into_iter().find(|other| other.id != tab && !hidden_from_model(&other.url)) else {
            let text = "That is the task's only tab; open another before closing it.";
            return Ok(report(name, None, false, text.into()));
        };
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

    /// Performs an operation in the current tab; a closed tab ends the task.
    async fn perform(&self, op: &PageOp) -> Result<OpOutcome, StepError> {
        match self.browser.perform(self.tab.get(), op).await {
            Ok(outcome) => Ok(outcome),
            Err(BrowserError::TabClosed) => Err(tab_closed()),
            Err(err) => Ok(OpOutcome { ok: false, message: err.to_string(), ..OpOutcome::default() }),
        }
    }

    /// The URL to open, if the user's site lists allow it and no page text that tried to instruct
    /// the agent asked for its host.
    fn allowed_url(&self, url: &str) -> Result<String, String> {
        let url = self.config.policy.check(url).map_err(|refusal| refusal.to_string())?;
        let host =
            url::Url::parse(&url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).unwrap_or_default();
        if self.tainted_hosts.borrow().contains(&host) {
            return Err(format!(
                "{host} was named by page text that tried to instruct the agent, so the agent does not go there on the page's word; if the user's task needs it, ask the user"
            ));
        }
        Ok(url)
    }

    /// Works in `tab` from now on; a policy that cannot be enforced there ends the task.
    async fn adopt(&self, tab: i32) -> Result<(), StepError> {
        self.adopt_tab(tab).await.map_err(StepError::Fatal)
    }

    /// Whether trusted input applies to the element: the user turned it on, and the element is in
    /// the top frame (the debugger's coordinates are the top frame's).
    fn trusted_here(&self, element: &MapElement) -> bool {
        self.config.trusted_input && element.target.frame_id == 0
    }

    /// A click through the debugger at the point the sensor finds unobstructed.
    async fn trusted_click(&self, target: ElementRef, tag: String, click: Click) -> Result<OpOutcome, StepError> {
        let located = self.perform(&PageOp::Locate { target, tag }).await?;
        match (located.ok, located.point) {
            (true, Some([x, y])) => self.input(&trusted_input::click_at(x, y, click)).await,
            _ => Ok(located),
        }
    }

    /// Typing into the element in the operations [`PageOp::typing`] makes of the text; between
    /// two, a stop ends the task at once and a pause holds it. Gives the last one's outcome (the
    /// field's value), or the first that failed.
    async fn type_into(
        &self,
        target: ElementRef,
        tag: String,
        text: &str,
        clear: bool,
    ) -> Result<OpOutcome, StepError> {
        let mut outcome = OpOutcome::default();
        for (i, op) in PageOp::typing(target, tag, text, clear).iter().enumerate() {
            if i > 0 {
                self.between_pieces().await?;
            }
            outcome = self.perform(op).await?;
            if !outcome.ok {
                break;
            }
        }
        Ok(outcome)
    }

    /// Between two pieces of a long typing: held while paused; a stop ends the task.
    async fn between_pieces(&self) -> Result<(), StepError> {
        self.wait_while_paused().await;
        match self.cancel.is_cancelled() {
            true => Err(StepError::Cancelled),
            false => Ok(()),
        }
    }

    /// Typing through the debugger: focus (selecting the text to replace), insert, read the value.
    /// A long text is inserted in pieces, each after focusing the field again with its caret at
    /// the end, so that a stop is noticed between two.
    async fn trusted_type(
        &self,
        target: ElementRef,
        tag: String,
        text: &str,
        clear: bool,
    ) -> Result<OpOutcome, StepError> {
        let mut typed = OpOutcome::default();
        for (i, piece) in trusted_input::insert_pieces(text).into_iter().enumerate() {
            if i > 0 {
                self.between_pieces().await?;
            }
            let clear = clear && i == 0;
            let focused = self.perform(&PageOp::Focus { target: target.clone(), tag: tag.clone(), clear }).await?;
            if !focused.ok {
                return Ok(focused);
            }
            typed = self.input(&piece).await?;
            if !typed.ok {
                return Ok(typed);
            }
        }
        let value = self.perform(&PageOp::Value { target, tag }).await?.value;
        Ok(OpOutcome { value, ..typed })
    }

    /// Sends trusted input to the current tab; a closed tab ends the task.
    async fn input(&self, commands: &[trusted_input::InputCommand]) -> Result<OpOutcome, StepError> {
        match self.browser.input(self.tab.get(), commands).await {
            Ok(outcome) => Ok(outcome),
            Err(BrowserError::TabClosed) => Err(tab_closed()),
            Err(err) => Ok(OpOutcome { ok: false, message: err.to_string(), ..OpOutcome::default() }),
        }
    }

    /// Reports an operation's outcome; follows a tab the operation opened.
    async fn after_op(
        &self,
        name: &str,
        target: Option<&str>,
        outcome: OpOutcome,
        success: String,
        failure: &str,
    ) -> Outcome {
        if !outcome.ok {
            return Ok(report(name, target, false, format!("{failure}: {}.", outcome.message)));
        }
        if let (None, Some(url)) = (outcome.opened_tab, &outcome.new_tab_url) {
            return self.open_page_tab(name, target, success, url).await;
        }
        let Some(opened) = outcome.opened_tab else {
            return Ok(report(name, target, true, success));
        };
        self.adopt(opened).await?;
        let alias = self.tab_aliases.borrow_mut().alias(opened);
        let url = self
            .browser
            .tabs(opened)
            .await
            .ok()
            .and_then(|tabs| tabs.into_iter().find(|t| t.id == opened))
            .map(|t| t.url);
        let text = format!(
            "{success} It opened a new tab, {alias} ({}), which is now the current tab.",
            url.unwrap_or_default()
        );
        Ok(left_page(report(name, target, true, text)))
    }
}

fn report(name: &str, target: Option<&str>, ok: bool, outcome: String) -> Done {
    Done {
        report: ActionReport { name: name.to_string(), target: target.map(str::to_string), element: None, ok, outcome },
        page_left: false,
    }
}

/// The report of an action that navigated, as `navigation` words it.
fn said(name: &str, target: Option<&str>, said: navigation::Said) -> Done {
    Done { page_left: said.left_page, ..report(name, target, said.ok, said.text) }
}

/// The report of an action whose effect (`done`, in words) led to a navigation `said` words.
fn said_after(name: &str, target: Option<&str>, done: &str, said: navigation::Said) -> Done {
    let text = format!("{done} {}", said.text);
    Done { page_left: said.left_page, ..report(name, target, said.ok, text) }
}

fn left_page(mut done: Done) -> Done {
    done.page_left = true;
    done
}

fn tab_closed() -> StepError {
    StepError::Fatal(text!("core_task_tab_closed"))
}

fn typed_sentence(text: &str, target: &str, value: Option<&str>) -> String {
    let typed = quoted(text);
    match value {
        Some(value) if value == text => format!("Typed {typed} into {target}."),
        Some("") => format!("Typed {typed} into {target}, but the field is empty now: it rejected the value (date fields need YYYY-MM-DD, number fields digits)."),
        Some(value) => format!("Typed {typed} into {target}; its value is now {}.", quoted(value)),
        None => format!("Typed {typed} into {target}."),
    }
}

/// Longest text an outcome quotes whole; a longer one is shown by its length, start and end.
const QUOTED_CHARS: usize = 300;

/// `text` in quotes; a long one as `12,345 characters ("Its start … its end")`, so that an
/// outcome stays short whatever was typed.
fn quoted(text: &str) -> String {
    let length = text.chars().count();
    if length <= QUOTED_CHARS {
        return format!("\"{text}\"");
    }
    let start: String = text.chars().take(100).collect();
    let end: String = text.chars().skip(length - 60).collect();
    format!("{} characters (\"{start} … {end}\")", text::thousands(length))
}

fn scroll_sentence(direction: ScrollDirection, pages: f64, what: &str, state: Option<&ScrollState>) -> String {
    let Some(state) = state else { return format!("Scrolled {what} {}.", direction.as_str()) };
    let edge = if matches!(direction, ScrollDirection::Up | ScrollDirection::Top) { "top" } else { "bottom" };
    if (state.after - state.before).abs() < 1.0 {
        return capitalize(&format!("{what} is already at the {edge}; nothing moved."));
    }
    let position = if state.max > 0.0 { (state.after / state.max * 100.0).round() } else { 100.0 };
    let moved = match direction {
        ScrollDirection::Top | ScrollDirection::Bottom => format!("to the {edge}"),
        _ => format!(
            "{} by {pages} page{}{}",
            direction.as_str(),
            if (pages - 1.0).abs() < f64::EPSILON { "" } else { "s" },
            // A longer scroll asked for was cut to the bound: the model is told so.
            if pages >= MAX_SCROLL_PAGES { " (the most one scroll moves; \"bottom\" goes to the end)" } else { "" }
        ),
    };
    format!("Scrolled {what} {moved}; now {position}% of the way down.")
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

fn option_label(option: &MapElement) -> String {
    if option.text.is_empty() {
        option.attrs.iter().find(|(k, _)| k == "aria-label").map(|(_, v)| v.clone()).unwrap_or_default()
    } else {
        option.text.clone()
    }
}

fn contains_ci(haystack: &str, needle: &str) -> bool {
    !needle.is_empty() && haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// The option whose label matches best: exactly, then as a prefix, then anywhere (ignoring case).
fn best_match<'a>(options: &'a [MapElement], wanted: &str) -> Option<&'a MapElement> {
    let wanted = wanted.trim().to_lowercase();
    let label = |o: &MapElement| option_label(o).trim().to_lowercase();
    options
        .iter()
        .find(|o| label(o) == wanted)
        .or_else(|| options.iter().find(|o| label(o).starts_with(&wanted)))
        .or_else(|| options.iter().find(|o| label(o).contains(&wanted)))
}

fn quote_list(items: &[String]) -> String {
    items.iter().map(|item| format!("\"{item}\"")).collect::<Vec<_>>().join(", ")
}

/// Reads `{"found": bool, "answer": "..."}`, tolerating the wrappers models put around JSON.
fn parse_extraction(reply: &str) -> Option<(bool, String)> {
    // Unlike other replies, a cut-off one is refused: it would report a truncated answer as found.
    let json = outermost_object(reply).filter(|json| json.ends_with('}'))?;
    let value = parse_lenient(json).ok()?;
    Some((value.get("found")?.as_bool()?, value.get("answer")?.as_str().unwrap_or_default().to_string()))
}

mod flow;
mod navigation;
use flow::Outbound;
use navigation::NewTab;
#[cfg(test)]
mod tests;
