//! Running the navigator's actions: each element action is checked against the element the model
//! saw, each outcome is reported in a sentence the model can use (`report`), and a step's actions
//! stop early when the page changes under them. Its parts: custom dropdowns (`dropdown`), the
//! `extract` action (`extract`), the tab actions (`tabs`), typing and trusted input (`input`),
//! navigations as the model is told of them (`navigation`) and where the user's data may go
//! (`flow`).

use super::events::ActionReport;
use super::navigator::{Look, Navigator, StepError};
use super::task_config::UserGate;
use crate::actions::{label, search_url, Action, MAX_WAIT_SECONDS};
use crate::browser::{
    parse_keys, trusted_input, Browser, BrowserError, Highlight, HistoryStep, OpOutcome, PageOp, Submission,
};
use crate::dom_map::{MapElement, PageMap};
use crate::llm::ChatModel;
use crate::safety::Carried;
use crate::text;
use consequences::{on_page, Act, Before};

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
            let mut done = self.run_action(action, seen, latest.take()).await?;
            self.note_downloads(&mut done.report).await;
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
        self.probed_form.take();
        // Acts that move the whole page land on every frame of it: a reload reloads them all, back
        // and forward may move inside a frame's own history, and a scroll by an element that
        // cannot scroll scrolls the page.
        if matches!(
            action,
            Action::Scroll { .. }
                | Action::ScrollToText { .. }
                | Action::FindText { .. }
                | Action::Reload
                | Action::GoBack
                | Action::GoForward
        ) {
            let page_url = seen.map(|map| map.url.as_str()).unwrap_or_default();
            if let Some(refused) = self.guard_page_act(name, page_url, seen).await? {
                return Ok(refused);
            }
        }
        match action {
            Action::GoToUrl { url } => {
                let act = self.navigation(action, seen, url);
                self.holding_changes(&act, Before::Unseen, || self.open(name, &act.target)).await
            }
            Action::Search { query } => {
                // The page left may send a change as it goes: held, as any navigation's.
                let act = self.navigation(action, seen, &search_url(self.config.search_engine, query));
                self.holding_changes(&act, Before::Unseen, || self.open(name, &act.target)).await
            }
            Action::GoBack | Action::GoForward | Action::Reload => {
                let step = match action {
                    Action::GoBack => HistoryStep::Back,
                    Action::GoForward => HistoryStep::Forward,
                    _ => HistoryStep::Reload,
                };
                // The page left, or loaded again, may post as it goes: held, as a navigation's.
                let url = seen.map(|map| map.url.as_str()).unwrap_or_default();
                let (key, hold) = (format!("{name}|{url}"), self.between(url, url));
                let act = Act { action, target: url.to_string(), label: String::new(), url, lands: url, key, hold };
                self.holding_changes(&act, Before::Unseen, || self.history(name, step)).await
            }
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
                if let Some(refused) = self.guard_keys(keys, &keys_parsed, page_url, seen).await? {
                    return Ok(refused);
                }
                if let Some(refused) = self.guard_enter(keys, &keys_parsed).await? {
                    return Ok(refused);
                }
                let action = Action::SendKeys { keys: keys.clone() };
                let key = format!("send_keys|{keys}|{page_url}");
                let act = Act {
                    action: &action,
                    target: format!("\"{keys}\""),
                    label: String::new(),
                    url: page_url,
                    lands: page_url,
                    key,
                    hold: on_page(page_url),
                };
                // Any key may press what has the focus or be a page's shortcut ("#" deletes).
                let before = self.keys_before(&act, keys).await?;
                self.holding_changes(&act, before, || async {
                    let outcome = if self.config.limits.now().trusted_input {
                        self.input(&trusted_input::key_presses(&keys_parsed)).await?
                    } else {
                        self.perform(&PageOp::Keys { frame: self.focus_frame.get(), keys: keys_parsed.clone() }).await?
                    };
                    self.after_op(name, None, outcome, format!("Pressed {keys}."), "Could not press the keys").await
                })
                .await
            }
            Action::Scroll { direction, pages, index: None } => {
                // A page may act on being read to its end ("accept the terms"): held too.
                let url = seen.map(|map| map.url.as_str()).unwrap_or_default();
                let (key, hold) = (format!("scroll|{url}|{}", direction.as_str()), on_page(url));
                let act = Act { action, target: "the page".into(), label: String::new(), url, lands: url, key, hold };
                self.holding_changes(&act, Before::Unseen, || async {
                    let op = PageOp::ScrollPage { frame: 0, direction: direction.as_str(), pages: *pages };
                    let outcome = self.perform(&op).await?;
                    let text = scroll_sentence(*direction, *pages, "the page", outcome.scroll.as_ref());
                    self.after_op(name, None, outcome, text, "Could not scroll").await
                })
                .await
            }
            Action::ScrollToText { text } | Action::FindText { text } => {
                // Reaching a part of the page may make it act, as a scroll may.
                let url = seen.map(|map| map.url.as_str()).unwrap_or_default();
                let (key, hold) = (format!("{name}|{url}|{text}"), on_page(url));
                let act =
                    Act { action, target: format!("\"{text}\""), label: String::new(), url, lands: url, key, hold };
                self.holding_changes(&act, Before::Unseen, || self.find(action, text)).await
            }
            Action::OpenTab { url } => {
                let act = self.navigation(action, seen, url);
                self.holding_changes(&act, Before::Unseen, || self.open_tab(name, &act.target)).await
            }
            Action::AskUser { question } => {
                let said = self.ask_user_action(question).await?;
                // The user may have changed the page: the step's other actions no longer apply.
                Ok(Done { page_left: true, ..report(name, None, true, said) })
            }
            Action::SwitchTab { tab } => self.switch_tab(name, *tab).await,
            Action::CloseTab { tab } => self.close_tab(action, *tab).await,
            Action::Extract { query } => self.extract(query).await,
            Action::WriteFile { name: file, text } => self.write_file(name, file, text, false),
            Action::AppendFile { name: file, text } => self.write_file(name, file, text, true),
            Action::ReadFile { name, start_line } => self.read_file(name, *start_line).await,
            Action::Drag { index, to, dx, dy } => self.drag((*index, *to, *dx, *dy), seen, latest).await,
            Action::ClickElement { index, .. }
            | Action::InputText { index, .. }
            | Action::Hover { index }
            | Action::SelectOption { index, .. }
            | Action::GetDropdownOptions { index }
            | Action::UploadFile { index, .. }
            | Action::Scroll { index: Some(index), .. } => {
                let element = match self.verified_element(*index, seen, latest).await? {
                    Ok(element) => element,
                    Err(problem) => return Ok(report(name, None, false, problem)),
                };
                // An element out of view is scrolled to first: the act moves the whole page, which
                // every frame on it sees, as a scroll does.
                let page_url = seen.map(|map| map.url.as_str()).unwrap_or_default();
                if !seen.is_some_and(|map| map.in_view(&element)) {
                    if let Some(refused) = self.guard_page_act(name, page_url, seen).await? {
                        return Ok(refused);
                    }
                }
                self.focus_frame.set(element.target.frame_id);
                self.focus_moved.set(false);
                self.focus_frame_url.replace(element.frame_url.clone());
                let url = seen.map(|map| map.url.as_str()).unwrap_or_default();
                let (action, consented) = match self.fill_secrets(action, url) {
                    Ok(filled) => filled,
                    Err(problem) => {
                        self.warn_once(text!("core_warning_secret_stopped", url, &problem));
                        return Ok(report(name, None, false, format!("Did not type: {problem}.")));
                    }
                };
                if let Action::InputText { text, .. } = &action {
                    if let Some(refused) = self.guard_secret_field(text, &element, consented) {
                        return Ok(report(name, Some(&element.describe()), false, refused));
                    }
                    // A tab moves the focus, and a line break in a one-line field is Enter: keys,
                    // whose checks are send_keys'.
                    if text.contains('\t') || (text.contains(['\n', '\r']) && element.tag == "input") {
                        let refused = "Not typed: the text holds a tab or, for this one-line field, a line break, which would press Tab or Enter. Type the text without it; to submit, use send_keys \"Enter\".";
                        return Ok(report(name, Some(&element.describe()), false, refused.into()));
                    }
                }
                if let Some(refused) = self.guard_element(&action, &element, url).await? {
                    return Ok(refused);
                }
                if let (Action::InputText { text, .. }, true) = (&action, self.trusted_here(&element)) {
                    if let Some(refused) = self.guard_trusted_typing(text, url, seen).await? {
                        return Ok(refused);
                    }
                }
                let said = match &action {
                    Action::SelectOption { text, .. } => text.clone(),
                    _ => label(&element),
                };
                let key = format!("{}|{}|{said}", action.name(), element.fingerprint);
                let act = Act {
                    action: &action,
                    target: element.describe(),
                    label: said,
                    url,
                    lands: element.link.as_deref().unwrap_or(url),
                    key,
                    hold: on_page(url),
                };
                // A secret typed on its own site needs no approval to be typed, but the user's
                // consent to type it is no consent to what the page then sends (a PIN box that
                // approves a payment once it is full): that is held as any act's.
                let before = match consented {
                    true => Before::Unseen,
                    false => self.consequences_before(&act, &element, seen).await?,
                };
                // Every act on an element may make the page send a change, typing too (a field
                // that saves as it is typed) and an upload (a file input that sends at once).
                // The panel can point the user at the element acted on, while it is still there.
                let mut done = self.holding_changes(&act, before, || self.element_action(&action, &element)).await?;
                if let (Action::InputText { text, .. }, true, false) = (&action, done.report.ok, consented) {
                    // Secrets are followed as such, never kept as typed values.
                    self.note_typed(
                        &element,
                        element.frame_url.as_deref().unwrap_or(url),
                        &self.config.limits.now().secrets.redact(text),
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
                let (text, consented) = self.config.limits.now().secrets.fill(text, url)?;
                Ok((Action::InputText { index: *index, text, clear: *clear }, consented))
            }
            other => Ok((other.clone(), false)),
        }
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
        // A number for a slider or spinner: the control is brought to it.
        if let Action::InputText { text, .. } = action {
            if let Some((control, wanted)) = NumberControl::of(element).zip(values::number_in(text)) {
                return self.input_number(element, control, text, wanted).await;
            }
        }
        match action {
            Action::ClickElement { .. }
                if element.link.as_deref().is_some_and(|link| self.config.limits.now().policy.check(link).is_err()) =>
            {
                let refusal =
                    self.config.limits.now().policy.check(element.link.as_deref().unwrap_or_default()).unwrap_err();
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
                let outcome = self.type_text(element, text, *clear).await?;
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
                if let (true, Some(selected)) = (outcome.ok, &outcome.selected) {
                    return Ok(report(
                        name,
                        Some(&target),
                        true,
                        values::multiple_sentence(&target, &chosen, selected),
                    ));
                }
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
            Action::UploadFile { name, .. } => self.upload(element, name).await,
            _ => unreachable!("only element actions reach here"),
        }
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

    /// Performs an operation in the current tab; a closed tab ends the task.
    async fn perform(&self, op: &PageOp) -> Result<OpOutcome, StepError> {
        match self.browser.perform(self.tab.get(), op).await {
            Ok(outcome) => Ok(outcome),
            Err(BrowserError::TabClosed) => Err(tab_closed()),
            Err(err) => Ok(OpOutcome { ok: false, message: err.to_string(), ..OpOutcome::default() }),
        }
    }

    /// Opening `typed` (go_to_url, open_tab, in the tab or a new one) from the page `seen`, as an
    /// act: a page may post as it loads, or as it is left, so it holds the changes sent to the site
    /// it leaves and to the one it opens, named by the address as it will be opened.
    fn navigation<'s>(&self, action: &'s Action, seen: Option<&'s PageMap>, typed: &str) -> Act<'s> {
        let (from, to) = (seen.map(|map| map.url.as_str()).unwrap_or_default(), full_address(seen, typed));
        let opened = self.allowed_url(&to).unwrap_or_default();
        self.data_flow.borrow_mut().opening(&opened);
        let hold = self.between(from, &opened);
        Act {
            action,
            key: format!("{}|{to}", action.name()),
            target: to,
            label: String::new(),
            url: from,
            lands: from,
            hold,
        }
    }

    /// The form `op` (a click's or Enter's, `PageOp::Submission`) would submit, read from the
    /// page once per action (`probed_form`).
    async fn submission(&self, op: &PageOp) -> Result<Option<Submission>, StepError> {
        if let Some((probed, form)) = self.probed_form.borrow().as_ref() {
            if probed == op {
                return Ok(form.clone());
            }
        }
        let form = self.perform(op).await?.submission;
        *self.probed_form.borrow_mut() = Some((op.clone(), form.clone()));
        Ok(form)
    }

    /// The URL to open, if the user's site lists allow it and no page text that tried to instruct
    /// the agent asked for its host.
    fn allowed_url(&self, url: &str) -> Result<String, String> {
        let url = self.config.limits.now().policy.check(url).map_err(|refusal| refusal.to_string())?;
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

/// The address the model means by `typed`: a link's full address when it typed the link as the
/// map it saw shows it (short), else what it typed.
fn full_address(seen: Option<&PageMap>, typed: &str) -> String {
    seen.and_then(|map| map.full_address(typed)).unwrap_or_else(|| typed.to_string())
}

fn tab_closed() -> StepError {
    StepError::Fatal(text!("core_task_tab_closed"))
}

mod consequences;
mod downloads;
mod drag;
mod dropdown;
mod extract;
mod files;
mod flow;
mod input;
mod navigation;
mod report;
mod tabs;
mod upload;
mod values;
use flow::Outbound;
use report::{left_page, quote_list, report, said, scroll_sentence, typed_sentence, Done, Outcome};
use values::NumberControl;
#[cfg(test)]
mod tests;
