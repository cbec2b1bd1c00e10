//! The navigator loop: observe the page, ask the model, run its actions, report, repeat.

use super::events::{ActionReport, AgentEvent};
use super::loop_guard::{page_fingerprint, LoopGuard};
use super::output::{parse_navigator_output, NavigatorOutput};
use super::planner::{parse_plan, planner_request};
use super::prompt::{navigator_schema, state_message, system_prompt};
use super::validator::{parse_verdict, validator_request};
use crate::actions::{Action, SearchEngine};
use crate::browser::{Browser, BrowserError, Highlight, TabId};
use crate::cancel::CancelToken;
use crate::dom_map::{elements_in_scope, ElementRegistry, MapOptions, PageMap};
use crate::llm::pricing::{cost, Price};
use crate::llm::{ChatMessage, ChatModel, ChatRequest, Image};
use crate::safety::{mentioned_hosts, Finding, PolicyRefusal, Secrets, SitePolicy, Strictness};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

/// Consecutive unusable replies or failed steps after which the task ends.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;

#[derive(Debug, Clone, PartialEq)]
pub struct TaskConfig {
    pub task: String,
    pub tab: TabId,
    pub max_steps: u32,
    pub map: MapOptions,
    /// Draw numbered boxes over the elements the model sees each step.
    pub highlights: bool,
    pub search_engine: SearchEngine,
    /// Click, type and press keys through the debugger (trusted events) where the page allows.
    pub trusted_input: bool,
    /// The sites the agent may visit.
    pub policy: SitePolicy,
    /// How readily consequential actions are put to the user.
    pub strictness: Strictness,
    /// Named secrets the model may type by placeholder.
    pub secrets: Secrets,
    /// The model's price, to report the task's cost as it runs.
    pub price: Option<Price>,
    /// How many times the validator may reject a claimed success before the task ends as not
    /// verified; `None` turns the validator off.
    pub validator_rejections: Option<u32>,
    /// The planner runs at the first step and then every this many steps; `None` turns it off.
    pub planning_interval: Option<u32>,
    /// Show the model a screenshot with each step's state.
    pub vision: bool,
    /// Put each step's actions to the user before they run.
    pub ask_before_acting: bool,
    /// The conversation so far, shared across tasks: a follow-up task continues it, and each
    /// task leaves its history here for the next.
    pub conversation: Rc<RefCell<Vec<ChatMessage>>>,
}

/// The model each agent uses (they may be the same).
pub struct Models<'a, M> {
    pub navigator: &'a M,
    pub planner: &'a M,
    pub validator: &'a M,
}

impl<'a, M> Models<'a, M> {
    /// One model for every agent.
    pub fn single(model: &'a M) -> Self {
        Models { navigator: model, planner: model, validator: model }
    }
}

/// The user, for the actions they must approve.
#[allow(async_fn_in_trait)]
pub trait UserGate {
    /// Waits for the user's answer to approval request `id` (announced by `ApprovalNeeded`).
    async fn approve(&self, id: u32) -> bool;
    /// Waits for the user's decision on a step's actions (announced by `ReviewNeeded`).
    async fn review(&self, id: u32) -> Review;
}

/// The user's decision on a step's actions, in ask-before-acting mode.
#[derive(Debug, Clone, PartialEq)]
pub enum Review {
    Run,
    Skip,
    /// Think again, with the user's feedback.
    Retry(String),
    Cancel,
}

/// How a step ended, for the loop.
enum StepEnd {
    /// `failure` describes, for the user, what went wrong in a step that failed.
    Continue {
        results: Vec<String>,
        failure: Option<String>,
    },
    Finished {
        success: bool,
        text: String,
    },
}

/// Runs one task to its end and returns the final event (also emitted).
pub async fn run_task<B: Browser, M: ChatModel, G: UserGate>(
    config: &TaskConfig,
    browser: &B,
    models: Models<'_, M>,
    gate: &G,
    cancel: &CancelToken,
    emit: &dyn Fn(AgentEvent),
) -> AgentEvent {
    // Nothing leaves the core with a secret's value in it.
    let redact = |text: &str| config.secrets.redact(text);
    let emit = &|event: AgentEvent| emit(event.redacted(&redact));
    let mut navigator = Navigator {
        config,
        browser,
        models,
        gate,
        cancel,
        emit,
        history: config.conversation.borrow().clone(),
        registry: RefCell::default(),
        tab: Cell::new(config.tab),
        focus_frame: Cell::new(0),
        task_tabs: RefCell::default(),
        warned: RefCell::default(),
        tainted_hosts: RefCell::default(),
        approvals: Cell::new(0),
        usage: Cell::new((0, 0)),
        loop_guard: RefCell::default(),
        rejections: Cell::new(0),
        current_step: Cell::new(0),
        nudged: Cell::new(false),
        replan: Cell::new(false),
    };
    let end = match navigator.adopt_tab(config.tab).await {
        Ok(()) => navigator.run().await,
        Err(message) => AgentEvent::Error { message, steps: 0 },
    };
    browser.finish(navigator.tab.get()).await;
    *config.conversation.borrow_mut() = std::mem::take(&mut navigator.history);
    emit(end.clone());
    end
}

pub(super) struct Navigator<'a, B, M, G> {
    pub(super) config: &'a TaskConfig,
    pub(super) browser: &'a B,
    pub(super) models: Models<'a, M>,
    pub(super) gate: &'a G,
    pub(super) cancel: &'a CancelToken,
    pub(super) emit: &'a dyn Fn(AgentEvent),
    /// The conversation without system prompt and state messages.
    history: Vec<ChatMessage>,
    /// Keeps element indices stable from step to step.
    registry: RefCell<ElementRegistry>,
    /// The tab the agent works in; actions may switch it.
    pub(super) tab: Cell<TabId>,
    /// The frame of the element last acted on, where keys go.
    pub(super) focus_frame: Cell<i32>,
    /// Every tab the task has worked in: the site policy's browser rules cover them all.
    task_tabs: RefCell<Vec<TabId>>,
    /// Warnings already shown to the user.
    warned: RefCell<HashSet<String>>,
    /// Hosts named by page text that tried to instruct the agent: never visited on its word.
    pub(super) tainted_hosts: RefCell<HashSet<String>>,
    /// Approval requests made so far (their ids).
    pub(super) approvals: Cell<u32>,
    /// Input and output tokens used so far.
    usage: Cell<(u64, u64)>,
    /// Notices the agent going round in circles.
    loop_guard: RefCell<LoopGuard>,
    /// Times the validator rejected a claimed success.
    rejections: Cell<u32>,
    /// The step under way, for pause reports.
    current_step: Cell<u32>,
    /// The previous step was called out as going round in circles.
    nudged: Cell<bool>,
    /// The planner runs at the next step whatever its interval.
    replan: Cell<bool>,
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Makes `tab` the one the agent works in, extending the site policy's browser rules to it.
    pub(super) async fn adopt_tab(&self, tab: TabId) -> Result<(), String> {
        self.tab.set(tab);
        self.focus_frame.set(0);
        if self.config.policy.is_open() || self.task_tabs.borrow().contains(&tab) {
            return Ok(());
        }
        self.task_tabs.borrow_mut().push(tab);
        let rules = self.config.policy.blocking_rules(&self.task_tabs.borrow());
        self.browser.restrict(&rules).await.map_err(|err| {
            format!("The site settings could not be enforced in the browser ({err}), so the task did not start. Reload the extension and try again.")
        })
    }

    async fn run(&mut self) -> AgentEvent {
        let max_steps = self.config.max_steps;
        (self.emit)(AgentEvent::TaskStarted { task: self.config.task.clone() });
        let task = &self.config.task;
        self.history.push(ChatMessage::user(if self.history.is_empty() {
            format!("Your task: {task}")
        } else {
            format!("Your follow-up task, in the same conversation (earlier tasks are above): {task}")
        }));
        let mut results = Vec::new();
        let mut failures = 0;
        for step in 1..=max_steps {
            self.current_step.set(step);
            self.wait_while_paused().await;
            if self.cancel.is_cancelled() {
                return AgentEvent::Stopped { steps: step - 1 };
            }
            (self.emit)(AgentEvent::StepStarted { step, max_steps });
            match self.step(step, &results).await {
                Ok(StepEnd::Finished { success, text }) => return AgentEvent::Result { success, text, steps: step },
                Ok(StepEnd::Continue { results: next, failure }) => {
                    results = next;
                    let Some(failure) = failure else {
                        failures = 0;
                        continue;
                    };
                    failures += 1;
                    if failures >= MAX_CONSECUTIVE_FAILURES {
                        return AgentEvent::Error {
                            message: format!(
                                "The task stopped after {failures} failed steps in a row. Last problem: {failure}"
                            ),
                            steps: step,
                        };
                    }
                }
                Err(StepError::Cancelled) => return AgentEvent::Stopped { steps: step },
                Err(StepError::Fatal(message)) => return AgentEvent::Error { message, steps: step },
            }
        }
        AgentEvent::Result {
            success: false,
            text: format!("The task was not finished within the limit of {max_steps} steps."),
            steps: max_steps,
        }
    }

    async fn step(&mut self, step: u32, previous_results: &[String]) -> Result<StepEnd, StepError> {
        let max_steps = self.config.max_steps;
        let page = self.observe(Look::Step).await?;
        if let Ok(map) = &page {
            self.warn_about(&map.warnings);
        }
        if let (true, Ok(map)) = (self.config.highlights, &page) {
            let marks: Vec<Highlight> = elements_in_scope(map, &self.config.map)
                .map(|element| Highlight { target: element.target.clone(), index: element.index })
                .collect();
            let _ = self.browser.highlight(self.tab.get(), &marks).await; // Cosmetic; never fails a step.
        }
        let tabs = self.browser.tabs(self.tab.get()).await.unwrap_or_default();
        let state = state_message(
            step,
            max_steps,
            page.as_ref().map_err(Clone::clone),
            previous_results,
            (&tabs, self.tab.get()),
            &self.config.map,
        );
        // The screenshot goes with this step's state message only, and leaves the history with it.
        let images = match self.config.vision {
            true => match self.browser.screenshot(self.tab.get()).await {
                Ok(image) => vec![image],
                Err(err) => {
                    self.warn_once(format!("Vision is on, but no screenshot could be taken this step: {err}."));
                    Vec::new()
                }
            },
            false => Vec::new(),
        };
        if let Some(answer) = self.plan(step, &state).await? {
            return Ok(StepEnd::Finished { success: true, text: answer });
        }
        let page_seen = page_fingerprint(state_page_part(&state));
        let output = match self.ask_for_output(state, images, step == max_steps).await? {
            Ok(output) => output,
            Err((reason, problem)) => {
                let failure = format!("the model's reply could not be used ({reason}). If this keeps happening, choose a model that supports structured JSON output.");
                (self.emit)(AgentEvent::Step {
                    step,
                    max_steps,
                    evaluation: String::new(),
                    memory: String::new(),
                    next_goal: String::new(),
                    actions: vec![ActionReport {
                        name: "reply".into(),
                        target: None,
                        ok: false,
                        outcome: failure.clone(),
                    }],
                });
                return Ok(StepEnd::Continue { results: vec![problem], failure: Some(failure) });
            }
        };
        self.history.push(ChatMessage::assistant(compact_output(&output)));
        if let Some(reviewed) = self.review(step, &output).await? {
            return Ok(reviewed);
        }
        let page = page.ok();
        let (reports, finished) = self.run_actions(&output.actions, page.as_ref()).await?;
        let failure = reports.iter().find(|report| !report.ok).map(|report| report.outcome.clone());
        let mut results: Vec<String> = reports.iter().map(result_line).collect();
        let actions_taken = output.actions.iter().map(|a| a.to_json().to_string()).collect::<Vec<_>>().join(",");
        let nudge = self.loop_guard.borrow_mut().record(page_seen, actions_taken);
        // A loop that persists after the model was told brings the planner in at once.
        self.replan.set(nudge.is_some() && self.nudged.get());
        self.nudged.set(nudge.is_some());
        if let Some(nudge) = nudge {
            results.push(nudge);
        }
        (self.emit)(AgentEvent::Step {
            step,
            max_steps,
            evaluation: output.brain.evaluation_previous_goal,
            memory: output.brain.memory,
            next_goal: output.brain.next_goal,
            actions: reports,
        });
        Ok(match finished {
            Some((true, text)) => self.validated(step, text).await?,
            Some((false, text)) => StepEnd::Finished { success: false, text },
            None => StepEnd::Continue { results, failure },
        })
    }

    /// In ask-before-acting mode, puts the step's actions to the user. `None` means run them.
    async fn review(&mut self, step: u32, output: &NavigatorOutput) -> Result<Option<StepEnd>, StepError> {
        if !self.config.ask_before_acting {
            return Ok(None);
        }
        let id = self.approvals.get() + 1;
        self.approvals.set(id);
        let actions = output.actions.iter().map(|a| a.to_json().to_string()).collect();
        (self.emit)(AgentEvent::ReviewNeeded { id, step, next_goal: output.brain.next_goal.clone(), actions });
        let decision = self.cancel.guard(self.gate.review(id)).await.ok_or(StepError::Cancelled)?;
        let (note, retry) = match decision {
            Review::Run => return Ok(None),
            Review::Cancel => return Err(StepError::Cancelled),
            Review::Skip => ("The user skipped these actions; choose what to do next.".to_string(), false),
            Review::Retry(feedback) => {
                (format!("The user did not run these actions and asks you to reconsider: {feedback}"), true)
            }
        };
        if retry {
            self.history.push(ChatMessage::user(note.clone()));
        }
        Ok(Some(StepEnd::Continue { results: vec![note], failure: None }))
    }

    /// Runs the planner when it is due; its plan joins the history just before the state message.
    /// Returns the planner's own answer for a task that needs no browser (at the first step).
    async fn plan(&mut self, step: u32, state: &str) -> Result<Option<String>, StepError> {
        let Some(interval) = self.config.planning_interval.filter(|&n| n > 0) else { return Ok(None) };
        if (step - 1) % interval != 0 && !self.replan.replace(false) {
            return Ok(None);
        }
        let request = planner_request(&self.history, &self.config.secrets.redact(state));
        let Some(plan) = parse_plan(&self.complete(self.models.planner, &request, false).await?) else {
            return Ok(None);
        };
        if step == 1 && !plan.web_task && !plan.answer.trim().is_empty() {
            return Ok(Some(plan.answer));
        }
        (self.emit)(AgentEvent::Plan {
            progress: plan.progress.clone(),
            challenges: plan.challenges.clone(),
            next_steps: plan.next_steps.clone(),
        });
        self.history.push(ChatMessage::user(plan.for_navigator()));
        Ok(None)
    }

    /// A claimed success, put to the validator: confirmed, sent back to the navigator with the
    /// reason, or, once the rejections allowed are used up, ended honestly as not verified.
    async fn validated(&mut self, step: u32, claimed: String) -> Result<StepEnd, StepError> {
        let Some(allowed) = self.config.validator_rejections else {
            return Ok(StepEnd::Finished { success: true, text: claimed });
        };
        let page = self.observe(Look::Peek).await?;
        let state = state_message(
            step,
            self.config.max_steps,
            page.as_ref().map_err(Clone::clone),
            &[],
            (&[], self.tab.get()),
            &self.config.map,
        );
        let request = validator_request(&self.config.task, &claimed, &self.config.secrets.redact(&state));
        let Some(verdict) = parse_verdict(&self.complete(self.models.validator, &request, false).await?) else {
            // An unusable verdict cannot overrule the navigator; the claim stands.
            return Ok(StepEnd::Finished { success: true, text: claimed });
        };
        (self.emit)(AgentEvent::Validation { valid: verdict.valid, reason: verdict.reason.clone() });
        if verdict.valid {
            let text = if verdict.answer.trim().is_empty() { claimed } else { verdict.answer };
            return Ok(StepEnd::Finished { success: true, text });
        }
        let rejections = self.rejections.get() + 1;
        self.rejections.set(rejections);
        if rejections > allowed {
            return Ok(StepEnd::Finished {
                success: false,
                text: format!("{claimed}\n\n(Not verified: {})", verdict.reason),
            });
        }
        let feedback = format!(
            "The validator did not accept your answer: {}. The task is not done yet; continue, then use done again.",
            verdict.reason
        );
        self.history.push(ChatMessage::user(feedback.clone()));
        Ok(StepEnd::Continue { results: vec![feedback], failure: None })
    }

    /// The page map, or why the page cannot be read (the model may still navigate away).
    pub(super) async fn observe(&self, look: Look) -> Result<Result<PageMap, String>, StepError> {
        let frames = match self.browser.observe(self.tab.get()).await {
            Ok(frames) => frames,
            Err(BrowserError::TabClosed) => {
                return Err(StepError::Fatal(format!(
                    "{}. Start the task again on an open tab.",
                    BrowserError::TabClosed
                )))
            }
            Err(err) => {
                let Some(blocked) = self.blocked_page_reason().await else { return Ok(Err(err.to_string())) };
                if matches!(look, Look::Step) && self.warned.borrow_mut().insert(blocked.clone()) {
                    (self.emit)(AgentEvent::Warning {
                        message: format!("Your site settings stopped a page: {blocked}."),
                    });
                }
                return Ok(Err(blocked));
            }
        };
        let mut registry = self.registry.borrow_mut();
        Ok(match look {
            Look::Step => PageMap::build(&frames, &mut registry),
            // A look between actions must not change what the next step marks as new.
            Look::Peek => PageMap::build(&frames, &mut registry.clone()),
        })
    }

    /// The model's output for this step. A reply that cannot be used is explained to the model,
    /// which gets one more try at once; `Err` gives the reason and what the model was told.
    async fn ask_for_output(
        &mut self,
        state: String,
        images: Vec<Image>,
        last_step: bool,
    ) -> Result<Result<NavigatorOutput, (String, String)>, StepError> {
        let mut reply = self.ask_model(state.clone(), images.clone(), last_step).await?;
        for attempt in 0..2 {
            let reason = match parse_navigator_output(&reply) {
                Ok(output) => {
                    if attempt > 0 {
                        // The failed exchange taught what it had to; it need not stay in the history.
                        self.history.truncate(self.history.len() - 2);
                    }
                    return Ok(Ok(output));
                }
                Err(reason) => reason,
            };
            let problem =
                format!("Your reply could not be used: {reason}. Reply with one JSON object in the required format.");
            self.history.push(ChatMessage::assistant(reply.clone()));
            self.history.push(ChatMessage::user(problem.clone()));
            if attempt == 1 {
                return Ok(Err((reason, problem)));
            }
            reply = self.ask_model(state.clone(), images.clone(), last_step).await?;
        }
        unreachable!("the loop returns on its second pass")
    }

    /// Why the current page cannot be read when the site policy blocked it.
    async fn blocked_page_reason(&self) -> Option<String> {
        let tabs = self.browser.tabs(self.tab.get()).await.ok()?;
        let url = tabs.into_iter().find(|tab| tab.id == self.tab.get())?.url;
        match self.config.policy.check(&url) {
            Err(refusal @ (PolicyRefusal::Denied { .. } | PolicyRefusal::NotAllowed { .. })) => {
                Some(format!("the browser blocked this page: {refusal}. Go back or choose another way"))
            }
            _ => None,
        }
    }

    /// Tells the user something, once per task.
    fn warn_once(&self, message: String) {
        if self.warned.borrow_mut().insert(message.clone()) {
            (self.emit)(AgentEvent::Warning { message });
        }
    }

    /// Tells the user, once per task, about page text that tried to instruct the agent, and
    /// remembers the hosts it named (unless the user's own task names them).
    fn warn_about(&self, findings: &[Finding]) {
        let trusted_hosts = mentioned_hosts(&self.config.task);
        for finding in findings {
            let new_hosts = finding.hosts.iter().filter(|host| !trusted_hosts.contains(host));
            self.tainted_hosts.borrow_mut().extend(new_hosts.cloned());
            self.warn_once(format!(
                "This page contains text that tries to instruct the agent; it was treated as page content, not as a command: \"{}\"",
                finding.excerpt
            ));
        }
    }

    async fn ask_model(&self, state: String, images: Vec<Image>, last_step: bool) -> Result<String, StepError> {
        let mut messages = Vec::with_capacity(self.history.len() + 2);
        messages.push(ChatMessage::system(system_prompt(self.config.secrets.prompt().as_deref())));
        messages.extend(self.history.iter().cloned());
        messages.push(ChatMessage::user(state).with_images(images));
        // The model never sees a secret's value, whatever the page shows.
        for message in &mut messages {
            message.content = self.config.secrets.redact(&message.content);
        }
        let request =
            ChatRequest { messages, schema_name: "navigator_output".into(), schema: navigator_schema(last_step) };
        self.complete(self.models.navigator, &request, true).await
    }

    /// Waits, if the user paused the task, until they resume or stop it.
    pub(super) async fn wait_while_paused(&self) {
        if !self.cancel.is_paused() {
            return;
        }
        let step = self.current_step.get();
        (self.emit)(AgentEvent::Paused { step });
        self.cancel.resumed().await;
        if !self.cancel.is_cancelled() {
            (self.emit)(AgentEvent::Resumed { step });
        }
    }

    /// One model call, cancellable, its usage added to the task's and reported; with `stream`, the
    /// reply is shown to the user as it arrives. A pause abandons the call, which is made again
    /// on resume.
    pub(super) async fn complete(&self, model: &M, request: &ChatRequest, stream: bool) -> Result<String, StepError> {
        const SHOW_EVERY_CHARS: usize = 24;
        let shown = Cell::new(0usize);
        let on_text = |text: &str| {
            if stream && text.len() >= shown.get() + SHOW_EVERY_CHARS {
                shown.set(text.len());
                (self.emit)(AgentEvent::ModelOutput { text: text.to_string() });
            }
        };
        let outcome = loop {
            // The call is dropped (and its request aborted) before any wait for resume.
            let finished = {
                let call = std::pin::pin!(model.complete_streaming(request, &on_text));
                match futures::future::select(call, self.cancel.interrupted()).await {
                    futures::future::Either::Left((outcome, _)) => Some(outcome),
                    futures::future::Either::Right(_) => None,
                }
            };
            if let Some(outcome) = finished {
                break outcome;
            }
            if !self.cancel.is_cancelled() {
                self.wait_while_paused().await;
            }
            if self.cancel.is_cancelled() {
                return Err(StepError::Cancelled);
            }
            shown.set(0);
        };
        match outcome {
            Err(err) => Err(StepError::Fatal(err.to_string())),
            Ok(reply) => {
                if let Some(usage) = reply.usage {
                    let (input, output) = self.usage.get();
                    let total = (input + usage.input_tokens, output + usage.output_tokens);
                    self.usage.set(total);
                    (self.emit)(AgentEvent::Usage {
                        input_tokens: total.0,
                        output_tokens: total.1,
                        cost: self.config.price.map(|price| cost(price, total.0, total.1)),
                    });
                }
                Ok(reply.content)
            }
        }
    }
}

/// Whether a look at the page starts a step (and so defines what the next step calls new).
#[derive(Clone, Copy)]
pub(super) enum Look {
    Step,
    Peek,
}

pub(super) enum StepError {
    Cancelled,
    /// Ends the task; the text is shown to the user.
    Fatal(String),
}

/// The assistant turn kept in the history: the model's output, re-serialized without noise.
fn compact_output(output: &NavigatorOutput) -> String {
    serde_json::json!({
        "current_state": {
            "evaluation_previous_goal": output.brain.evaluation_previous_goal,
            "memory": output.brain.memory,
            "next_goal": output.brain.next_goal,
        },
        "action": output.actions.iter().map(Action::to_json).collect::<Vec<_>>(),
    })
    .to_string()
}

/// The part of a state message that shows the page (what changes when the page does).
fn state_page_part(state: &str) -> &str {
    state.find("<page_content>").map_or(state, |start| &state[start..])
}

fn result_line(report: &ActionReport) -> String {
    format!("{}: {}", report.name, report.outcome)
}

#[cfg(test)]
mod tests;
