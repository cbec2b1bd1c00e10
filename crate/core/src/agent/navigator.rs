//! The navigator loop: observe the page, ask the model, run its actions, report, repeat.

use super::checkpoint::Checkpoint;
use super::events::{ActionReport, AgentEvent};
use super::loop_guard::{page_fingerprint, LoopGuard};
use super::output::{parse_navigator_output, NavigatorOutput};
use super::planner::{parse_plan, planner_prompt, Plan};
use super::prompt::{answer_language_instruction, navigator_schema, state_message, system_prompt};
use super::record::{redact_strings, Phase, Recorder, Role};
use super::replay::{Replay, Replayed};
use super::summarizer::{parse_summary, summary_prompt, KEEP_RECENT_STEPS};
use super::validator::{parse_verdict, validator_prompt};
use crate::actions::{Action, SearchEngine, Strictness};
use crate::browser::{Browser, BrowserError, Highlight, TabId, TabInfo};
use crate::cancel::CancelToken;
use crate::dom_map::{elements_in_scope, ElementRegistry, MapOptions, PageMap};
use crate::i18n::{Arg, Message, Text};
use crate::llm::pricing::{cost, Price};
use crate::llm::{ChatMessage, ChatModel, ChatRequest, Image};
use crate::messages::{Budget, History, Kind, Part, Prompt, RequestStyle};
use crate::safety::{mentioned_hosts, DataFlow, Finding, PageScans, PolicyRefusal, Secrets, SitePlan, SitePolicy};
use crate::tabs::{task_tabs, ListedTab, TabAliases, TaskGroup};
use crate::text;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

/// Consecutive unusable replies or failed steps after which the task ends.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;

/// How much of the task the title of its tab group shows.
const GROUP_TITLE_TASK_CHARS: usize = 24;

/// The name the navigator's reply schema is sent under.
pub(super) const NAVIGATOR_SCHEMA_NAME: &str = "navigator_output";

#[derive(Clone)]
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
    /// How sites outside the task's plan are treated.
    pub site_plan: SitePlan,
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
    /// Every this many steps older history is summarised into a compact memory; `None` only
    /// when the budget runs tight.
    pub memory_interval: Option<u32>,
    /// Each agent's token budget.
    pub budgets: Budgets,
    /// Full instructions, or the compact form for small budgets.
    pub style: RequestStyle,
    /// The conversation so far, shared across tasks: a follow-up task continues it, and each
    /// task leaves its history here for the next.
    pub conversation: Rc<RefCell<History>>,
    /// Where to resume an interrupted task, instead of starting afresh.
    pub resume: Option<Checkpoint>,
    /// Receives the task's checkpoint at the start of every step, to be saved.
    pub on_checkpoint: Option<Rc<dyn Fn(Checkpoint)>>,
    /// Told the tab the task (or a driven session) ends in, which may be another than it started
    /// in: an AI app's next command acts there.
    pub on_end_tab: Option<Rc<dyn Fn(TabId)>>,
    /// A recorded run to replay: its actions run again without the model where the page allows.
    pub replay: Option<Replay>,
    /// The user's language (a BCP 47 code, the browser's), for the final answer.
    pub answer_language: String,
}

impl TaskConfig {
    /// The task as the models read it: the user's words, and the language to answer in.
    fn task_for_models(&self) -> String {
        match answer_language_instruction(&self.answer_language) {
            Some(instruction) => format!("{}\n\n{instruction}", self.task),
            None => self.task.clone(),
        }
    }
}

/// The token budget of each agent's model.
#[derive(Clone)]
pub struct Budgets {
    pub navigator: Budget,
    pub planner: Budget,
    pub validator: Budget,
}

impl Budgets {
    /// One budget for every agent.
    pub fn single(budget: Budget) -> Self {
        Budgets { navigator: budget.clone(), planner: budget.clone(), validator: budget }
    }
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
    let redact = |text: &str| config.secrets.redact(text);
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
    navigator.release_group().await;
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
    /// Every tab the task has worked in: the site policy's browser rules cover them all.
    task_tabs: RefCell<Vec<TabId>>,
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
    /// The next recorded step to replay.
    replay_cursor: Cell<usize>,
    /// The small picture of the page the model saw this step, for the panel.
    thumbnail: RefCell<Option<String>>,
    /// The page was read again (a peek) since the map the model saw: what the sensor knows of
    /// changes since its last read no longer tells what changed since that map.
    pub(super) peeked: Cell<bool>,
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
            task_tabs: RefCell::default(),
            tab_aliases: RefCell::default(),
            group: RefCell::default(),
            warned: RefCell::default(),
            tainted_hosts: RefCell::default(),
            data_flow: RefCell::default(),
            page_scans: RefCell::default(),
            approvals: Cell::new(0),
            usage: Cell::new((0, 0)),
            loop_guard: RefCell::default(),
            rejections: Cell::new(0),
            current_step: Cell::new(0),
            nudged: Cell::new(false),
            replan: Cell::new(false),
            replay_cursor: Cell::new(0),
            thumbnail: RefCell::default(),
            peeked: Cell::new(false),
        }
    }
}

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Makes `tab` the one the agent works in, extending the site policy's browser rules to it.
    /// The tab joins the task's tab group.
    pub(super) async fn adopt_tab(&self, tab: TabId) -> Result<(), Text> {
        self.tab.set(tab);
        self.focus_frame.set(0);
        self.focus_frame_url.replace(None);
        self.join_group(tab).await;
        if self.task_tabs.borrow().contains(&tab) {
            return Ok(());
        }
        self.task_tabs.borrow_mut().push(tab);
        if self.config.policy.is_open() {
            return Ok(());
        }
        let rules = self.config.policy.blocking_rules(&self.task_tabs.borrow());
        self.browser.restrict(&rules).await.map_err(|err| text!("core_task_policy_not_enforced", err.text()))
    }

    /// Puts `tab` into the task's tab group, making the group (named after the task) with the
    /// first tab. A tab the browser cannot group (in a popup window, say) stays the task's all
    /// the same; a tab taken from a group of the user's goes back there when the task ends.
    pub(super) async fn join_group(&self, tab: TabId) {
        let tabs = self.browser.tabs(tab).await.unwrap_or_default();
        let Some(info) = tabs.iter().find(|info| info.id == tab) else { return };
        let mut group = self.group.borrow().clone();
        if info.group.is_some() && info.group == group.id {
            return;
        }
        let joined = match group.id {
            // The user may have emptied the group, which closes it: the tab starts a new one.
            Some(id) => match self.browser.group_tabs(&[tab], Some(id)).await {
                Ok(id) => Ok(id),
                Err(_) => self.browser.group_tabs(&[tab], None).await,
            },
            None => self.browser.group_tabs(&[tab], None).await,
        };
        let Ok(id) = joined else { return };
        if group.id != Some(id) {
            let task = self.config.task.split_whitespace().collect::<Vec<_>>().join(" ");
            let title = crate::text::truncate_chars(&task, GROUP_TITLE_TASK_CHARS);
            let _ = self.browser.name_group(id, &text!("core_tab_group_title", title)).await;
            // Cosmetic.
        }
        if let Some(former) = info.group.filter(|&former| Some(former) != group.id) {
            group.former.push((tab, former));
        }
        group.id = Some(id);
        *self.group.borrow_mut() = group;
    }

    /// The task is over: its group is dissolved, its tabs left open where they are, and each tab
    /// it took from a group of the user's put back there (if that group is still open).
    pub(super) async fn release_group(&self) {
        let group = self.group.take();
        let Some(id) = group.id else { return };
        let mut tabs = Vec::new();
        for tab in self.worked_tabs() {
            if let Ok(window) = self.browser.tabs(tab).await {
                tabs = window;
                break;
            }
        }
        let members: Vec<TabId> = tabs.iter().filter(|tab| tab.group == Some(id)).map(|tab| tab.id).collect();
        if !members.is_empty() {
            let _ = self.browser.ungroup_tabs(&members).await;
        }
        for (tab, former) in group.former {
            if tabs.iter().any(|open| open.id == tab) {
                let _ = self.browser.group_tabs(&[tab], Some(former)).await;
            }
        }
    }

    /// The task's tabs, among those of the agent's window (see [`task_tabs`]), and the window's.
    pub(super) async fn own_tabs(&self) -> (Vec<TabInfo>, Vec<TabInfo>) {
        let window = self.browser.tabs(self.tab.get()).await.unwrap_or_default();
        let own = task_tabs(&window, self.group.borrow().id, &self.task_tabs.borrow(), self.tab.get());
        (own, window)
    }

    /// The tabs the task worked in, the current one included.
    pub(super) fn worked_tabs(&self) -> Vec<TabId> {
        let mut tabs = self.task_tabs.borrow().clone();
        if !tabs.contains(&self.tab.get()) {
            tabs.push(self.tab.get());
        }
        tabs
    }

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
        if let Err(refusal) = self.config.policy.check(url) {
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

    /// The site the user starts the task on (or shares with an app) is one they chose.
    pub(super) async fn choose_start_site(&self) {
        let tabs = self.browser.tabs(self.tab.get()).await.unwrap_or_default();
        if let Some(tab) = tabs.iter().find(|tab| tab.id == self.tab.get()) {
            self.data_flow.borrow_mut().choose(&tab.url);
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
            results: results.iter().map(|result| self.config.secrets.redact(result)).collect(),
            failures,
            rejections: self.rejections.get(),
            usage: self.usage.get(),
            history: self.history.to_json(),
            replan: self.replan.get(),
            replay: self.config.replay.clone().map(|replay| (replay, self.replay_cursor.get())),
            data_flow: self.data_flow.borrow().clone(),
            saved_at_ms: 0.0,
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
            flow.read_page(&map.url, map.texts(), &mut self.page_scans.borrow_mut());
            flow.offered_links(map.elements().filter_map(|element| element.link.as_deref()));
        }
        if let (true, Ok(map)) = (self.config.highlights, &page) {
            let marks: Vec<Highlight> = elements_in_scope(map, &self.config.map)
                .map(|element| Highlight { target: element.target.clone(), index: element.index })
                .collect();
            let _ = self.browser.highlight(self.tab.get(), &marks).await; // Cosmetic; never fails a step.
        }
        Ok((page, self.listed_tabs().await))
    }

    /// The task's tabs, by the names the model knows them by: never the user's others.
    pub(super) async fn listed_tabs(&self) -> Vec<ListedTab> {
        let (own, _) = self.own_tabs().await;
        self.tab_aliases.borrow_mut().list(&own, self.tab.get())
    }

    async fn step(&mut self, step: u32, previous_results: &[String]) -> Result<StepEnd, StepError> {
        let max_steps = self.config.max_steps;
        let (page, tabs) = self.look().await?;
        let state = state_message(
            step,
            max_steps,
            page.as_ref().map_err(Clone::clone),
            previous_results,
            &tabs,
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
            screenshot: self.thumbnail.take(),
        });
        Ok(match finished {
            Some((true, text)) => self.validated(step, text).await?,
            Some((false, text)) => StepEnd::Finished { success: false, text },
            None => StepEnd::Continue { results, failure },
        })
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
        let images = match self.config.vision {
            true => match self.browser.screenshot(self.tab.get()).await {
                Ok(shot) => {
                    *self.thumbnail.borrow_mut() = shot.thumbnail;
                    vec![shot.image]
                }
                Err(err) => {
                    self.warn_once(text!("core_vision_no_screenshot", err.text()));
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
        let Some(plan) = self.ask_planner(state).await? else { return Ok(None) };
        if let Some(answer) = plan.answer.as_ref().filter(|_| step == 1 && !plan.web_task) {
            return Ok(Some(answer.clone()));
        }
        if step == 1 {
            self.confirm_plan_sites(&plan.sites).await?;
        }
        self.adopt_plan(&plan);
        Ok(None)
    }

    /// The planner's view of the whole history and `state`; `None` when its reply is unusable
    /// (the navigator then goes on without a plan).
    async fn ask_planner(&self, state: &str) -> Result<Option<Plan>, StepError> {
        let prompt = planner_prompt(self.history.parts(), &self.config.secrets.redact(state));
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
    }

    /// A claimed success: the planner re-plans on it (when planning is on), and the validator
    /// judges it with the plan and the page as it is now: confirmed, sent back to the navigator
    /// with the reason, or, once the rejections allowed are used up, ended honestly as not verified.
    async fn validated(&mut self, step: u32, claimed: String) -> Result<StepEnd, StepError> {
        let Some(allowed) = self.config.validator_rejections else {
            return Ok(StepEnd::Finished { success: true, text: claimed });
        };
        let page = self.observe(Look::Peek).await?;
        let page = page.as_ref().map_err(Clone::clone);
        let state = state_message(step, self.config.max_steps, page, &[], &[], &self.config.map, self.config.style);
        let plan = match self.config.planning_interval.is_some_and(|n| n > 0) {
            true => self.ask_planner(&state).await?,
            false => None,
        };
        if let Some(plan) = &plan {
            self.adopt_plan(plan);
        }
        let plan = plan.map(|plan| plan.for_navigator());
        let state = self.config.secrets.redact(&state);
        let prompt = validator_prompt(&self.config.task_for_models(), &claimed, plan.as_deref(), &state);
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
        let frames = match self.browser.observe(self.tab.get()).await {
            Ok(frames) => frames,
            Err(BrowserError::TabClosed) => return Err(StepError::Fatal(text!("core_task_tab_closed"))),
            Err(err) => {
                let Some(blocked) = self.blocked_page_reason().await else { return Ok(Err(err.to_string())) };
                let seen_by_model = blocked.english();
                if matches!(look, Look::Step) {
                    self.warn_once(text!("core_warning_page_blocked", blocked));
                }
                return Ok(Err(seen_by_model));
            }
        };
        self.peeked.set(matches!(look, Look::Peek));
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
            self.keep(Kind::Note, ChatMessage::assistant(reply.clone()));
            self.keep(Kind::Note, ChatMessage::user(problem.clone()));
            if attempt == 1 {
                return Ok(Err((reason, problem)));
            }
            reply = self.ask_model(state.clone(), images.clone(), last_step).await?;
        }
        unreachable!("the loop returns on its second pass")
    }

    /// Why the current page cannot be read when the site policy blocked it.
    async fn blocked_page_reason(&self) -> Option<Text> {
        let tabs = self.browser.tabs(self.tab.get()).await.ok()?;
        let url = tabs.into_iter().find(|tab| tab.id == self.tab.get())?.url;
        match self.config.policy.check(&url) {
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
    fn warn_about(&self, findings: &[Finding]) {
        let trusted_hosts = mentioned_hosts(&self.config.task);
        for finding in findings {
            let new_hosts = finding.hosts.iter().filter(|host| !trusted_hosts.contains(host));
            self.tainted_hosts.borrow_mut().extend(new_hosts.cloned());
            self.warn_once(text!("core_warning_injection", &finding.excerpt));
        }
    }

    async fn ask_model(&self, state: String, images: Vec<Image>, last_step: bool) -> Result<String, StepError> {
        let mut parts = Vec::with_capacity(self.history.len() + 2);
        let instructions = system_prompt(self.config.style, self.config.secrets.prompt().as_deref());
        parts.push(Part::new(Kind::System, ChatMessage::system(instructions)));
        parts.extend(self.history.parts());
        // The model never sees a secret's value, whatever the page shows (the history is kept redacted).
        let state = self.config.secrets.redact(&state);
        parts.push(Part::new(Kind::State, ChatMessage::user(state).with_images(images)));
        let prompt = Prompt {
            parts,
            schema_name: NAVIGATOR_SCHEMA_NAME.into(),
            schema: navigator_schema(last_step, self.config.style),
            strict: self.config.style == RequestStyle::Full,
        };
        self.complete_within(Role::Navigator, self.models.navigator, &self.config.budgets.navigator, prompt, true).await
    }

    /// Adds a message to the history, counted and with every secret value redacted.
    fn keep(&mut self, kind: Kind, message: ChatMessage) {
        self.keep_at(self.history.len(), kind, message);
    }

    /// [`Self::keep`] at `at`, before the turns from there on.
    fn keep_at(&mut self, at: usize, kind: Kind, mut message: ChatMessage) {
        message.content = self.config.secrets.redact(&message.content);
        self.history.insert(at, kind, message, &self.config.budgets.navigator.counter);
    }

    /// Puts a step's results into the history at `at`, where that step ended.
    fn keep_results(&mut self, at: usize, step: u32, results: &[String]) {
        if results.is_empty() {
            return;
        }
        let text = format!("Results of step {}:\n- {}", step - 1, results.join("\n- "));
        self.keep_at(at, Kind::Results, ChatMessage::user(text));
    }

    /// Every few steps, or when the history takes more than half the budget, the older steps are
    /// summarised by the planner's model into a memory that replaces them; the tasks and the
    /// latest steps stay as they are.
    async fn remember(&mut self, step: u32) -> Result<(), StepError> {
        let navigator = &self.config.budgets.navigator;
        let due = self.config.memory_interval.is_some_and(|n| n > 0 && step % n == 0);
        let tight = self.history.tokens() > navigator.max_input_tokens / 2;
        if !due && !tight {
            return Ok(());
        }
        let Some(cut) = self.history.summary_cut(KEEP_RECENT_STEPS) else { return Ok(()) };
        let prompt = summary_prompt(&self.config.task, &self.history.to_summarise(cut));
        let budget = &self.config.budgets.planner;
        let reply = self.complete_within(Role::Memory, self.models.planner, budget, prompt, false).await?;
        // Without a usable summary the history stays whole; the budget still holds every request.
        if let Some(memory) = parse_summary(&reply) {
            let before = self.history.tokens();
            // Counted, like every turn of the history, as the navigator's model counts.
            self.history.replace_with_memory(cut, self.config.secrets.redact(&memory), &navigator.counter);
            (self.emit)(AgentEvent::Memory {
                summary: memory,
                tokens_before: before,
                tokens_after: self.history.tokens(),
            });
        }
        Ok(())
    }

    /// [`Self::complete`] for a prompt fitted into `budget` first.
    pub(super) async fn complete_within(
        &self,
        role: Role,
        model: &M,
        budget: &Budget,
        prompt: Prompt,
        stream: bool,
    ) -> Result<String, StepError> {
        let fitted = prompt.fit(budget).map_err(|err| StepError::Fatal(err.text()))?;
        self.recorder.borrow_mut().request(role, self.config.style, fitted.split);
        if fitted.shrunk {
            self.warn_once(text!("core_warning_budget_shrunk", budget.max_input_tokens));
        }
        self.complete(role, model, &fitted.request, stream).await
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
    pub(super) async fn complete(
        &self,
        role: Role,
        model: &M,
        request: &ChatRequest,
        stream: bool,
    ) -> Result<String, StepError> {
        const SHOW_EVERY_CHARS: usize = 24;
        let shown = Cell::new(0usize);
        let on_text = |text: &str| {
            if stream && text.len() >= shown.get() + SHOW_EVERY_CHARS {
                shown.set(text.len());
                (self.emit)(AgentEvent::ModelOutput { text: text.to_string() });
            }
        };
        let started = self.browser.now_ms();
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
        let usage = outcome.as_ref().ok().and_then(|reply| reply.usage);
        self.recorder.borrow_mut().model_call(role, usage, self.browser.now_ms() - started);
        match outcome {
            Err(err) => Err(StepError::Fatal(err.text())),
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
        "action": output.actions.iter().map(Action::to_json).collect::<Vec<_>>(),
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

#[cfg(test)]
mod tests;
