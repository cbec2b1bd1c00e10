//! What a task is run with: the task and its settings, each agent's model and token budget, and
//! the user's answers the agent waits for.

use super::checkpoint::Checkpoint;
use super::limits::LiveLimits;
use super::prompt::answer_language_instruction;
use super::replay::Replay;
use crate::actions::SearchEngine;
use crate::answer::OutputSchema;
use crate::browser::TabId;
use crate::dom_map::MapOptions;
use crate::files::TaskFiles;
use crate::llm::pricing::Price;
use crate::messages::{Budget, History, RequestStyle};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Clone)]
pub struct TaskConfig {
    pub task: String,
    pub tab: TabId,
    pub max_steps: u32,
    pub map: MapOptions,
    /// Draw numbered boxes over the elements the model sees each step.
    pub highlights: bool,
    pub search_engine: SearchEngine,
    /// What limits the agent (the site lists, secrets, approvals...), as the user last saved it:
    /// read at each check, never kept from the task's start.
    pub limits: Rc<LiveLimits>,
    /// The model's price, to report the task's cost as it runs.
    pub price: Option<Price>,
    /// How many times the validator may reject a claimed success before the task ends as not
    /// verified; `None` turns the validator off.
    pub validator_rejections: Option<u32>,
    /// The planner runs at the first step and then every this many steps; `None` turns it off.
    pub planning_interval: Option<u32>,
    /// Show the model a screenshot with each step's state.
    pub vision: bool,
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
    /// The files the task starts with: those the user attached.
    pub files: TaskFiles,
    /// The shape the final answer must have, when the task asks for structured data.
    pub output_schema: Option<OutputSchema>,
    /// Make a film of the run: a frame of each step (see `navigator/film.rs`).
    pub film: bool,
}

impl TaskConfig {
    /// The task as the models read it: the user's words, the language to answer in, and the
    /// answer's shape when the task has an output schema.
    pub(super) fn task_for_models(&self) -> String {
        let instructions = answer_language_instruction(&self.answer_language)
            .into_iter()
            .chain(self.output_schema.as_ref().map(OutputSchema::instruction));
        instructions.fold(self.task.clone(), |task, instruction| format!("{task}\n\n{instruction}"))
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
    /// Waits for the user to take over and continue (or stop) after hand-over `id` (announced by
    /// `HandOverNeeded`).
    async fn hand_over(&self, id: u32) -> super::hand_over::HandOver;
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
