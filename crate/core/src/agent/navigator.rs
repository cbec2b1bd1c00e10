//! The navigator loop: observe the page, ask the model, run its actions, report, repeat. What a
//! task is run with is `task_config`; the tabs it works in are `navigator/tabs.rs`, the
//! conversation it keeps `navigator/history.rs`, its model calls `navigator/model_calls.rs`, and
//! running the actions `execute`.

use super::checkpoint::Checkpoint;
use super::events::{ActionReport, AgentEvent};
use super::loop_guard::{page_fingerprint, LoopGuard};
use super::output::NavigatorOutput;
use super::planner::{claim_state, parse_plan, planner_prompt, Plan, PlanStage};
use super::prompt::state_message;
use super::record::{redact_strings, Phase, Recorder, Role};
use super::replay::Replayed;
use super::task_config::{Models, Review, TaskConfig, UserGate};
use super::validator::{parse_verdict, validator_prompt};
use crate::browser::{Browser, BrowserError, Highlight, PageOp, Submission, TabId};
use crate::cancel::CancelToken;
use crate::dom_map::{elements_in_scope, ElementRegistry, PageMap};
use crate::files::TaskFiles;
use crate::i18n::{Arg, Message, Text};
use crate::llm::{ChatMessage, ChatModel};
use crate::messages::{History, Kind, Part};
use crate::safety::{mentioned_hosts, DataFlow, Finding, PageScans, PolicyRefusal};
use crate::tabs::{ListedTab, TabAliases, TaskGroup};
use crate::text;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;

/// Consecutive unusable replies or failed steps after which the task ends.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;
/// Pages the firewall stopped that one look passes on to, one after another (a redirect chain).
const MAX_HOPS_PASSED: u32 = 5;

/// The name the navigator's reply schema is sent under.
pub(super) const NAVIGATOR_SCHEMA_NAME: &str = "navigator_output";

/// How a step ended, for the loop.
enum StepEnd {
    /// `failure` describes, for the user, what went wrong in a step that failed.
    Continue {
        results: Vec<String>,
        failure: Option<Arg>,
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
    let redact = |text: &str| config.limits.now().secrets.redact(text);
    let recorder = RefCell::new(Recorder::new(&config.task, config.price, browser.now_ms()));
    let emit = &|event: AgentEvent| {
        let event = event.redacted(&redact);
        recorder.borrow_mut().event(&event);
        emit(event)
    };
    let mut navigator = Navigator::new(config, browser, models, gate, cancel, emit, &recorder);
    let resumed = match &config.resume {
        Some(checkpoint) => navigator.restore(checkpoint),
        None => Ok(()),
    };
    let end = match resumed.and(navigator.adopt_tab(config.tab).await) {
        Ok(()) => navigator.run().await,
        Err(text) => AgentEvent::Error { message: text.into(), steps: 0 },
    };
    if let (AgentEvent::Result { .. }, Some(data)) = (&end, navigator.answer.take()) {
        emit(AgentEvent::Answer { data: redact_strings(data, &redact) });
    }
    navigator.release_group().await;
    config.limits.release();
    browser.finish(&navigator.worked_tabs()).await;
    if let Some(on_end_tab) = &config.on_end_tab {
        on_end_tab(navigator.tab.get());
    }
    *config.conversation.borrow_mut() = std::mem::take(&mut navigator.history);
    let record = recorder.take().finish(&end, browser.now_ms());
    let report = redact(&record.report());
    let record = redact_strings(serde_json::to_value(record).unwrap_or_default(), &redact);
    emit(AgentEvent::RunRecorded { record, report });
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
    /// Where each step's time and tokens are written down.
    pub(super) recorder: &'a RefCell<Recorder>,
    /// The conversation without system prompt and state messages.
    history: History,
    /// Keeps element indices stable from step to step.
    registry: RefCell<ElementRegistry>,
    /// The tab the agent works in; actions may switch it.
    pub(super) tab: Cell<TabId>,
    /// The frame of the element last acted on, where keys go.
    pub(super) focus_frame: Cell<i32>,
    /// The address of that frame when it is of another site than the page: keys go there.
    pub(super) focus_frame_url: RefCell<Option<String>>,
    /// Tab has moved the focus since an element was last acted on: keys may go to any frame.
    pub(super) focus_moved: Cell<bool>,
    /// Every tab the task has worked in: the site policy's browser rules cover them all.
    pub(super) task_tabs: RefCell<Vec<TabId>>,
    /// Pages the firewall stopped and the guard did not pass, with why: not asked about again.
    pub(super) stopped_hops: RefCell<Vec<(String, String)>>,
    /// The names (`t1`, `t2`, ...) the model knows the task's tabs by.
    pub(super) tab_aliases: RefCell<TabAliases>,
    /// The tab group the task's tabs are kept in.
    group: RefCell<TaskGroup>,
    /// Warnings already shown to the user.
    warned: RefCell<HashSet<String>>,
    /// Hosts named by page text that tried to instruct the agent: never visited on its word.
    pub(super) tainted_hosts: RefCell<HashSet<String>>,
    /// Where the user's data may go, and the data seen so far.
    pub(super) data_flow: RefCell<DataFlow>,
    /// What the data flow found in the page texts read so far (not saved: scanned again after a resume).
    page_scans: RefCell<PageScans>,
    /// The task's files: the notebook, the attached and the downloaded ones.
    pub(super) files: RefCell<TaskFiles>,
    /// The files as the user was last shown them.
    shown_files: RefCell<TaskFiles>,
    /// Approval requests made so far (their ids).
    pub(super) approvals: Cell<u32>,
    /// Acts whose held change the user's words or the user allowed, to be done again once
    /// (`execute/consequences.rs`), by their key.
    pub(super) allowed_acts: RefCell<Vec<String>>,
    /// The form the action being run would submit, as read for its first check: its checks
    /// all ask before it touches the page, so the page is read once. Forgotten as each starts.
    pub(super) probed_form: RefCell<Option<(PageOp, Option<Submission>)>>,
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
    /// The next recorded step to replay.
    replay_cursor: Cell<usize>,
    /// The small picture of the page the model saw this step, for the panel.
    thumbnail: RefCell<Option<String>>,
    /// This step's screenshot for the run's film, when the film is on.
    film_shot: RefCell<Option<crate::llm::Image>>,
    /// The page was read again (a peek) since the map the model saw: what the sensor knows of
    /// changes since its last read no longer tells what changed since that map.
    pub(super) peeked: Cell<bool>,
    /// The structured answer the task ends with (see `navigator/answer.rs`).
    answer: RefCell<Option<serde_json::Value>>,
    /// What the page asks of a person, and the hand-overs so far (see `hand_over`).
    pub(super) hand_overs: RefCell<super::hand_over::Watch>,
}

impl<'a, B: Browser, M: ChatModel, G: UserGate> Navigator<'a, B, M, G> {
    pub(super) fn new(
        config: &'a TaskConfig,
        browser: &'a B,
        models: Models<'a, M>,
        gate: &'a G,
        cancel: &'a CancelToken,
        emit: &'a dyn Fn(AgentEvent),
        recorder: &'a RefCell<Recorder>,
    ) -> Self {
        Navigator {
            config,
            browser,
            models,
            gate,
            cancel,
            emit,
            recorder,
            history: {
                let mut history = config.conversation.borrow().clone();
                history.recount(&config.budgets.navigator.counter);
                history
            },
            registry: RefCell::default(),
            tab: Cell::new(config.tab),
            focus_frame: Cell::new(0),
            focus_frame_url: RefCell::default(),
            focus_moved: Cell::new(false),
            task_tabs: RefCell::default(),
            stopped_hops: RefCell::default(),
            tab_aliases: RefCell::default(),
            group: RefCell::default(),
            warned: RefCell::default(),
            tainted_hosts: RefCell::default(),
            data_flow: RefCell::default(),
            files: RefCell::new(config.files.clone()),
            shown_files: RefCell::default(),
            page_scans: RefCell::default(),
            approvals: Cell::new(0),
            allowed_acts: RefCell::default(),
            probed_form: RefCell::default(),
            usage: Cell::new((0, 0)),
            loop_guard: RefCell::default(),
            rejections: Cell::new(0),
            current_step: Cell::new(0),
            nudged: Cell::new(false),
            replan: Cell::new(false),
            replay_cursor: Cell::new(0),
            thumbnail: RefCell::default(),
            film_shot: RefCell::default(),
            peeked: Cell::new(false),
            answer: RefCell::default(),
            hand_overs: RefCell::default(),
        }
    }
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Takes up an interrupted task where its checkpoint left it.
    fn restore(&mut self, checkpoint: &Checkpoint) -> Result<(), Text> {
        self.history = History::from_json(&checkpoint.history, &self.config.budgets.navigator.counter)
            .map_err(|err| text!("core_task_not_resumable", err))?;
        *self.task_tabs.borrow_mut() =
            checkpoint.task_tabs.iter().copied().filter(|&tab| tab != checkpoint.tab).collect();
        *self.tab_aliases.borrow_mut() = checkpoint.tab_aliases.clone();
        *self.group.borrow_mut() = checkpoint.group.clone();
        self.usage.set(checkpoint.usage);
        self.rejections.set(checkpoint.rejections);
        self.replan.set(checkpoint.replan);
        *self.data_flow.borrow_mut() = checkpoint.data_flow.clone();
        *self.files.borrow_mut() = checkpoint.files.clone();
        if let Some((_, next)) = &checkpoint.replay {
            self.replay_cursor.set(*next);
        }
        Ok(())
    }

    /// The first step to run, the results it reports and the failures so far.
    fn begin(&mut self) -> (u32, Vec<String>, u32) {
        if let Some(checkpoint) = &self.config.resume {
            (self.emit)(AgentEvent::TaskResumed { task: checkpoint.task.clone(), step: checkpoint.step });
            return (checkpoint.step, checkpoint.results.clone(), checkpoint.failures);
        }
        (self.emit)(AgentEvent::TaskStarted { task: self.config.task.clone() });
        let task = self.config.task_for_models();
        let task = if self.history.is_empty() {
            format!("Your task: {task}")
        } else {
            format!("Your follow-up task, in the same conversation (earlier tasks are above): {task}")
        };
        self.keep(Kind::Task, ChatMessage::user(task));
        (1, Vec::new(), 0)
    }

    /// A replay starts where the recorded run started.
    async fn go_to_replay_start(&self) -> Result<(), StepError> {
        let Some(url) = self.config.replay.as_ref().and_then(|replay| replay.start_url.as_deref()) else {
            return Ok(());
        };
        let tabs = self.browser.tabs(self.tab.get()).await.unwrap_or_default();
        if tabs.iter().any(|tab| tab.id == self.tab.get() && tab.url == url) {
            return Ok(());
        }
        if let Err(refusal) = self.config.limits.now().policy.check(url) {
            return Err(StepError::Fatal(text!("core_replay_start_not_allowed", url, refusal.text())));
        }
        match self.browser.navigate(self.tab.get(), url).await {
            Err(BrowserError::TabClosed) => Err(StepError::Fatal(text!("core_replay_tab_closed"))),
            // The first step will show the model where the tab is.
            Err(err) => {
                self.warn_once(text!("core_replay_start_not_opened", url, err.text()));
                Ok(())
            }
            Ok(_) => Ok(()),
        }
    }

    /// The site the user starts the task on (or shares with an app) is one they chose; a
    /// search engine's results page is in the task's sites as that page only, never its whole
    /// site, where anyone can publish a form.
    pub(super) async fn choose_start_site(&self) {
        let tabs = self.browser.tabs(self.tab.get()).await.unwrap_or_default();
        if let Some(tab) = tabs.iter().find(|tab| tab.id == self.tab.get()) {
            let results = url::Url::parse(&tab.url).is_ok_and(|url| self.search_page().is_some_and(|s| s.holds(&url)));
            if !results {
                self.data_flow.borrow_mut().choose(&tab.url);
            }
        }
    }

    /// Puts a question to the user (Allow / Don't allow) and waits for the answer.
    pub(super) async fn ask_user(&self, question: Message, url: &str, data: Vec<String>) -> Result<bool, StepError> {
        let id = self.approvals.get() + 1;
        self.approvals.set(id);
        (self.emit)(AgentEvent::ApprovalNeeded { id, question, url: url.to_string(), data });
        self.cancel.guard(self.gate.approve(id)).await.ok_or(StepError::Cancelled)
    }

    /// The conversation's texts: the user's tasks, and everything else it holds.
    pub(super) fn conversation_texts(&self) -> (Vec<String>, Vec<String>) {
        let (tasks, rest): (Vec<Part>, Vec<Part>) = self.history.parts().partition(|part| part.kind == Kind::Task);
        let texts = |parts: Vec<Part>| parts.into_iter().map(|part| part.message.content).collect();
        (texts(tasks), texts(rest))
    }

    /// Hands the task's state at the start of `step` to whoever saves it.
    fn checkpoint(&self, step: u32, results: &[String], failures: u32) {
        let Some(save) = &self.config.on_checkpoint else { return };
        save(Checkpoint {
            task: self.config.task.clone(),
            tab: self.tab.get(),
            task_tabs: self.task_tabs.borrow().clone(),
            tab_aliases: self.tab_aliases.borrow().clone(),
            group: self.group.borrow().clone(),
            step,
            results: results.iter().map(|result| self.config.limits.now().secrets.redact(result)).collect(),
            failures,
            rejections: self.rejections.get(),
            usage: self.usage.get(),
            history: self.history.to_json(),
            replan: self.replan.get(),
            replay: self.config.replay.clone().map(|replay| (replay, self.replay_cursor.get())),
            data_flow: self.data_flow.borrow().clone(),
            files: self.files.borrow().clone(),
            saved_at_ms: 0.0,
            output_schema: self.config.output_schema.clone(),
        });
    }

    async fn run(&mut self) -> AgentEvent {
        let max_steps = self.config.max_steps;
        let (first_step, mut results, mut failures) = self.begin();
        // A resumed task is already on its way.
        let replay_start = match self.config.resume {
            None => self.go_to_replay_start().await,
            Some(_) => Ok(()),
        };
        if let Err(StepError::Fatal(text)) = replay_start {
            return AgentEvent::Error { message: text.into(), steps: 0 };
        }
        if self.config.resume.is_none() {
            self.choose_start_site().await;
        }
        for step in first_step..=max_steps {
            self.current_step.set(step);
            let checkpoint_started = self.browser.now_ms();
            self.checkpoint(step, &results, failures);
            let checkpoint_ms = self.browser.now_ms() - checkpoint_started;
            self.wait_while_paused().await;
            if self.cancel.is_cancelled() {
                return AgentEvent::Stopped { steps: step - 1 };
            }
            (self.emit)(AgentEvent::StepStarted { step, max_steps });
            let step_started = self.browser.now_ms();
            let ended = self.step(step, &results).await;
            self.show_files();
            let step_ms = checkpoint_ms + self.browser.now_ms() - step_started;
            self.recorder.borrow_mut().phase(Phase::Step, step_ms);
            match ended {
                Ok(StepEnd::Finished { success, text }) => return AgentEvent::Result { success, text, steps: step },
                Ok(StepEnd::Continue { results: next, failure }) => {
                    results = next;
                    if let Err(err) = self.remember(step).await {
                        return match err {
                            StepError::Cancelled => AgentEvent::Stopped { steps: step },
                            StepError::Fatal(text) => AgentEvent::Error { message: text.into(), steps: step },
                        };
                    }
                    let Some(failure) = failure else {
                        failures = 0;
                        continue;
                    };
                    failures += 1;
                    if failures >= MAX_CONSECUTIVE_FAILURES {
                        let message = text!("core_task_failed_steps", failures, failure).into();
                        return AgentEvent::Error { message, steps: step };
                    }
                }
                Err(StepError::Cancelled) => return AgentEvent::Stopped { steps: step },
                Err(StepError::Fatal(text)) => return AgentEvent::Error { message: text.into(), steps: step },
            }
        }
        AgentEvent::Result { success: false, text: step_limit_reached(max_steps).english(), steps: max_steps }
    }

    /// Reads the page as a step sees it (its untrusted text noted, its elements marked) and
    /// lists the tabs by the names the model knows them by.
    pub(super) async fn look(&self) -> Result<(Result<PageMap, String>, Vec<ListedTab>), StepError> {
        let started = self.browser.now_ms();
        let page = self.observe(Look::Step).await?;
        self.recorder.borrow_mut().phase(Phase::PageMap, self.browser.now_ms() - started);
        if let Ok(map) = &page {
            self.recorder.borrow_mut().url(&map.url);
            self.warn_about(&map.warnings);
            let mut flow = self.data_flow.borrow_mut();
            flow.read_page(&map.url, map.shown_texts(), &mut self.page_scans.borrow_mut());
            flow.offered_links(map.elements().filter_map(|element| element.link.as_deref()));
        }
        // What the task holds may have changed what its tabs may load.
        self.sync_tab_rules().await.map_err(StepError::Fatal)?;
        if let (true, Ok(map)) = (self.config.highlights, &page) {
            let marks: Vec<Highlight> = elements_in_scope(map, &self.config.map)
                .map(|element| Highlight { target: element.target.clone(), index: element.index })
                .collect();
            let _ = self.browser.highlight(self.tab.get(), &marks).await; // Cosmetic; never fails a step.
        }
        let tabs = self.listed_tabs().await;
        // The model reads every listed tab's title and address too: each is read on its page's
        // site (a webmail's title names its account).
        for tab in &tabs {
            let texts = [(None, tab.title.as_str())].into_iter();
            self.data_flow.borrow_mut().read_page(&tab.url, texts, &mut PageScans::default());
        }
        Ok((page, tabs))
    }

    /// The task's tabs, by the names the model knows them by: never the user's others.
    pub(super) async fn listed_tabs(&self) -> Vec<ListedTab> {
        let (own, _) = self.own_tabs().await;
        self.tab_aliases.borrow_mut().list(&own, self.tab.get())
    }

    async fn step(&mut self, step: u32, previous_results: &[String]) -> Result<StepEnd, StepError> {
        let max_steps = self.config.max_steps;
        let (mut page, mut tabs) = self.look().await?;
        // The page needs a person: once they continue, it is read afresh, and the model told.
        let handed_over = self.hand_over_if_needed().await?;
        if handed_over.is_some() {
            (page, tabs) = self.look().await?;
        }
        let previous_results = &previous_results.iter().cloned().chain(handed_over).collect::<Vec<_>>()[..];
        let state = state_message(
            step,
            max_steps,
            page.as_ref().map_err(Clone::clone),
            previous_results,
            &tabs,
            &self.files.borrow(),
            &self.config.map,
            self.config.style,
        );
        // The previous step's results are in this state message; they join the history once it
        // is gone, before anything this step adds.
        let results_at = self.history.len();
        let page_seen = page_fingerprint(state_page_part(&state));
        let output = match self.replayed(page.as_ref().ok()) {
            Some(Replayed::Actions(output)) => {
                self.keep_results(results_at, step, previous_results);
                output
            }
            replayed => {
                if let Some(Replayed::AskModel(note)) = replayed {
                    self.keep(Kind::Note, ChatMessage::user(note));
                }
                match self.decide(step, state, results_at, previous_results).await? {
                    Ok(output) => output,
                    Err(end) => return Ok(end),
                }
            }
        };
        self.keep(Kind::Output, ChatMessage::assistant(compact_output(&output)));
        let answer = answer::fitting_answer(self.config.output_schema.as_ref(), &output);
        if let Some(reviewed) = self.review(step, &output).await? {
            return Ok(reviewed);
        }
        let page = page.ok();
        self.recorder.borrow_mut().planned(&output.actions, page.as_ref());
        let started = self.browser.now_ms();
        let (reports, finished) = self.run_actions(&output.actions, page.as_ref()).await?;
        self.recorder.borrow_mut().phase(Phase::Actions, self.browser.now_ms() - started);
        let failure = reports.iter().find(|report| !report.ok).map(|report| Arg::from(&report.outcome));
        let mut results: Vec<String> = reports.iter().map(result_line).collect();
        // What the actions told the model (text found on the page, an extract) stays held after
        // the history that carries it is summarized away.
        for result in &results {
            self.data_flow.borrow_mut().told(result);
        }
        // What the actions before a `done` did (its own report is the claim, said already).
        let before_done = results.len() - usize::from(finished.is_some());
        let actions_taken = output.actions.iter().map(|a| a.to_json().to_string()).collect::<Vec<_>>().join(",");
        let nudge = self.loop_guard.borrow_mut().record(page_seen, actions_taken);
        // A loop that persists after the model was told brings the planner in at once.
        self.replan.set(nudge.is_some() && self.nudged.get());
        self.nudged.set(nudge.is_some());
        if let Some(nudge) = nudge {
            results.push(nudge);
        }
        self.film_frame(step, &output.brain.next_goal, &output.actions, page.as_ref());
        // Before the step, whose event has the chat saved.
        self.show_files();
        (self.emit)(AgentEvent::Step {
            step,
            max_steps,
            evaluation: output.brain.evaluation_previous_goal,
            memory: output.brain.memory,
            next_goal: output.brain.next_goal,
            actions: reports,
            screenshot: self.thumbnail.take(),
        });
        let end = match finished {
            Some((true, text)) => self.validated(step, text, &results[..before_done]).await?,
            Some((false, text)) => StepEnd::Finished { success: false, text },
            None => StepEnd::Continue { results, failure },
        };
        if let StepEnd::Finished { .. } = end {
            *self.answer.borrow_mut() = answer;
        }
        Ok(end)
    }

    /// The model's decision for this step, with the planner first when it is due; `Err` ends the
    /// step early (the planner answered the task, or the reply could not be used).
    async fn decide(
        &mut self,
        step: u32,
        state: String,
        results_at: usize,
        previous_results: &[String],
    ) -> Result<Result<NavigatorOutput, StepEnd>, StepError> {
        let max_steps = self.config.max_steps;
        // The screenshot goes with this step's state message only, and leaves the history with it.
        let images = match self.wants_screenshot() {
            true => match self.browser.screenshot(self.tab.get()).await {
                Ok(shot) if self.config.vision => {
                    if let Some(url) = self.tab_url().await {
                        self.data_flow.borrow_mut().saw_picture(&url);
                    }
                    *self.thumbnail.borrow_mut() = shot.thumbnail;
                    self.keep_film_shot(&shot.image);
                    vec![shot.image]
                }
                // Only the film's.
                Ok(shot) => {
                    self.keep_film_shot(&shot.image);
                    Vec::new()
                }
                Err(err) if self.config.vision => {
                    self.warn_once(text!("core_vision_no_screenshot", err.text()));
                    Vec::new()
                }
                Err(err) => {
                    self.warn_once(text!("core_film_no_screenshot", err.text()));
                    Vec::new()
                }
            },
            false => Vec::new(),
        };
        if let Some(answer) = self.plan(step, &state).await? {
            return Ok(Err(StepEnd::Finished { success: true, text: answer }));
        }
        let output = self.ask_for_output(state, images, step == max_steps).await;
        self.keep_results(results_at, step, previous_results);
        Ok(match output? {
            Ok(output) => Ok(output),
            Err((reason, problem)) => {
                let failure = text!("core_reply_unusable", reason);
                (self.emit)(AgentEvent::Step {
                    step,
                    max_steps,
                    evaluation: String::new(),
                    memory: String::new(),
                    next_goal: String::new(),
                    actions: vec![ActionReport {
                        name: "reply".into(),
                        target: None,
                        element: None,
                        ok: false,
                        outcome: failure.english(),
                    }],
                    screenshot: self.thumbnail.take(),
                });
                Err(StepEnd::Continue { results: vec![problem], failure: Some(failure.into()) })
            }
        })
    }

    /// The next recorded step of a replay, on the page as it is now.
    fn replayed(&self, page: Option<&PageMap>) -> Option<Replayed> {
        let replay = self.config.replay.as_ref()?;
        let next = self.replay_cursor.get();
        self.replay_cursor.set(next + 1);
        replay.step(next, page)
    }

    /// In ask-before-acting mode, puts the step's actions to the user. `None` means run them.
    async fn review(&mut self, step: u32, output: &NavigatorOutput) -> Result<Option<StepEnd>, StepError> {
        if !self.config.limits.now().ask_before_acting {
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
            self.keep(Kind::Note, ChatMessage::user(note.clone()));
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
        let stage = if step == 1 { PlanStage::First } else { PlanStage::Later };
        let Some(plan) = self.ask_planner(state, stage).await? else { return Ok(None) };
        // A task with an output schema is answered by the navigator's `done`, which carries the data.
        let may_answer = step == 1 && !plan.web_task && self.config.output_schema.is_none();
        if let Some(answer) = plan.answer.as_ref().filter(|_| may_answer) {
            return Ok(Some(answer.clone()));
        }
        if step == 1 {
            self.confirm_plan_sites(&plan.sites).await?;
        }
        self.adopt_plan(&plan);
        Ok(None)
    }

    /// The planner's view of the history (its latest plan the only one, like the navigator's) and
    /// `state`; `None` when its reply is unusable (the navigator then goes on without a plan).
    async fn ask_planner(&self, state: &str, stage: PlanStage) -> Result<Option<Plan>, StepError> {
        let state = self.config.limits.now().secrets.redact(state);
        let prompt = planner_prompt(self.history.parts_with_latest_plan(), &state, stage, self.config.style);
        let budget = &self.config.budgets.planner;
        let reply = self.complete_within(Role::Planner, self.models.planner, budget, prompt, false).await?;
        Ok(parse_plan(&reply))
    }

    /// Shows the plan to the user and puts it before the navigator's next state.
    fn adopt_plan(&mut self, plan: &Plan) {
        (self.emit)(AgentEvent::Plan {
            progress: plan.progress.clone(),
            challenges: plan.challenges.clone(),
            next_steps: plan.next_steps.clone(),
            steps_done: plan.steps_done,
        });
        self.keep(Kind::Plan, ChatMessage::user(plan.for_navigator()));
        self.plan_into_todo(plan);
    }

    /// A claimed success: the planner re-plans on it (when planning is on) from the conversation,
    /// which the validator never sees, and the validator judges it with the planner's view of the
    /// progress and the page as it is now: confirmed, sent back to the navigator with the reason,
    /// or, once the rejections allowed are used up, ended honestly as not verified.
    async fn validated(&mut self, step: u32, claimed: String, results: &[String]) -> Result<StepEnd, StepError> {
        let Some(allowed) = self.config.validator_rejections else {
            return Ok(StepEnd::Finished { success: true, text: claimed });
        };
        let page = self.observe(Look::Peek).await?;
        let page = page.as_ref().map_err(Clone::clone);
        let (max_steps, map, style) = (self.config.max_steps, &self.config.map, self.config.style);
        let state = state_message(step, max_steps, page, &[], &[], &self.files.borrow(), map, style);
        let plan = match self.config.planning_interval.is_some_and(|n| n > 0) {
            // The page is the validator's to read; the planner says what the conversation shows.
            true => self.ask_planner(&claim_state(&state, results), PlanStage::Later).await?,
            false => None,
        };
        if let Some(plan) = &plan {
            self.adopt_plan(plan);
        }
        let progress = plan.map(|plan| plan.for_validator());
        let state = self.config.limits.now().secrets.redact(&state);
        let task = self.config.task_for_models();
        let prompt = validator_prompt(&task, &claimed, progress.as_deref(), &state, style);
        let budget = &self.config.budgets.validator;
        let reply = self.complete_within(Role::Validator, self.models.validator, budget, prompt, false).await?;
        let Some(verdict) = parse_verdict(&reply) else {
            // An unusable verdict cannot overrule the navigator; the claim stands.
            return Ok(StepEnd::Finished { success: true, text: claimed });
        };
        (self.emit)(AgentEvent::Validation { valid: verdict.valid, reason: verdict.reason.clone() });
        if verdict.valid {
            let text = verdict.answer.unwrap_or(claimed);
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
        self.keep(Kind::Note, ChatMessage::user(feedback.clone()));
        Ok(StepEnd::Continue { results: vec![feedback], failure: None })
    }

    /// The page map, or why the page cannot be read (the model may still navigate away).
    pub(super) async fn observe(&self, look: Look) -> Result<Result<PageMap, String>, StepError> {
        let mut hops_passed = 0;
        let frames = loop {
            match self.browser.observe(self.tab.get()).await {
                Ok(frames) => break frames,
                Err(BrowserError::TabClosed) => return Err(StepError::Fatal(text!("core_task_tab_closed"))),
                Err(err) => {
                    let Some(url) = self.tab_url().await else { return Ok(Err(err.to_string())) };
                    if let Some(blocked) = self.blocked_page_reason(&url) {
                        let seen_by_model = blocked.english();
                        if matches!(look, Look::Step) {
                            self.warn_once(text!("core_warning_page_blocked", blocked));
                        }
                        return Ok(Err(seen_by_model));
                    }
                    if hops_passed == MAX_HOPS_PASSED {
                        return Ok(Err(err.to_string()));
                    }
                    // A page the firewall stopped is judged as the agent's own navigations are.
                    match self.pass_hop(&url).await? {
                        Some(Ok(())) => hops_passed += 1,
                        Some(Err(why)) => return Ok(Err(why)),
                        None => return Ok(Err(err.to_string())),
                    }
                }
            }
        };
        self.peeked.set(matches!(look, Look::Peek));
        self.hand_overs.borrow_mut().needs = super::hand_over::PageNeeds::read(&frames);
        let mut registry = self.registry.borrow_mut();
        Ok(match look {
            Look::Step => PageMap::build(&frames, &mut registry),
            // A look between actions must not change what the next step marks as new.
            Look::Peek => PageMap::build(&frames, &mut registry.clone()),
        })
    }

    /// The current tab's address.
    pub(super) async fn tab_url(&self) -> Option<String> {
        let tabs = self.browser.tabs(self.tab.get()).await.ok()?;
        Some(tabs.into_iter().find(|tab| tab.id == self.tab.get())?.url)
    }

    /// Why the page at `url`, the tab's, cannot be read when the site policy blocked it.
    fn blocked_page_reason(&self, url: &str) -> Option<Text> {
        match self.config.limits.now().policy.check(url) {
            Err(refusal @ (PolicyRefusal::Denied { .. } | PolicyRefusal::NotAllowed { .. })) => {
                Some(text!("core_page_blocked", refusal.text()))
            }
            _ => None,
        }
    }

    /// Tells the user something, once per task.
    pub(super) fn warn_once(&self, warning: Text) {
        if self.warned.borrow_mut().insert(warning.english()) {
            (self.emit)(AgentEvent::Warning { message: warning.into() });
        }
    }

    /// Tells the user, once per task, about page text that tried to instruct the agent, and
    /// remembers the hosts it named (unless the user's own task names them).
    pub(super) fn warn_about(&self, findings: &[Finding]) {
        let trusted_hosts = mentioned_hosts(&self.config.task);
        for finding in findings {
            let new_hosts = finding.hosts.iter().filter(|host| !trusted_hosts.contains(host));
            self.tainted_hosts.borrow_mut().extend(new_hosts.cloned());
            self.warn_once(text!("core_warning_injection", &finding.excerpt));
        }
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
    Fatal(Text),
}

/// The answer of a task that ran out of steps: the one answer the core writes itself (the
/// protocol recognises it, to have the panel translate it).
pub fn step_limit_reached(max_steps: u32) -> Text {
    text!("core_task_step_limit", max_steps)
}

/// The assistant turn kept in the history: the model's output, re-serialized without noise.
fn compact_output(output: &NavigatorOutput) -> String {
    serde_json::json!({
        "current_state": {
            "evaluation_previous_goal": output.brain.evaluation_previous_goal,
            "memory": output.brain.memory,
            "next_goal": output.brain.next_goal,
        },
        "action": output.actions.iter().map(crate::actions::kept_in_history).collect::<Vec<_>>(),
    })
    .to_string()
}

/// The part of a state message that shows the page (what changes when the page does).
fn state_page_part(state: &str) -> &str {
    state.find("<page_content>").map_or(state, |start| &state[start..])
}

pub(super) fn result_line(report: &ActionReport) -> String {
    format!("{}: {}", report.name, report.outcome)
}

pub(super) mod answer;
mod files;
mod film;
mod hand_over;
mod history;
mod model_calls;
mod tabs;
#[cfg(test)]
mod tests;
