use crate::i18n::Message;
use serde::Serialize;

/// What the agent reports while it works, in the order it happens.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// An AI app (an MCP client, named as it names itself) is using the agent: the task that
    /// follows is the app's, and the panel's Stop ends it.
    AppDriving {
        client: String,
    },
    TaskStarted {
        task: String,
    },
    /// The task waits for a free place: as many tasks as the user allows at once are running;
    /// it is `position` in line (1 is next).
    TaskQueued {
        task: String,
        position: u32,
    },
    /// An interrupted task (the browser stopped the service worker) continues from `step`.
    TaskResumed {
        task: String,
        step: u32,
    },
    /// The model is being asked for step `step`.
    StepStarted {
        step: u32,
        max_steps: u32,
    },
    /// A step's decision and what its actions did.
    Step {
        step: u32,
        max_steps: u32,
        evaluation: String,
        memory: String,
        next_goal: String,
        actions: Vec<ActionReport>,
        /// A small picture of the page the model saw, when vision is on (a data URL).
        screenshot: Option<String>,
    },
    /// The planner's view of the task: where it stands and what comes next; `steps_done` of the
    /// previous plan's next steps are now complete (the panel ticks them off its checklist).
    Plan {
        progress: String,
        challenges: String,
        next_steps: Vec<String>,
        steps_done: u32,
    },
    /// Older steps were summarised into a compact memory that replaced them in the history.
    Memory {
        summary: String,
        tokens_before: usize,
        tokens_after: usize,
    },
    /// In ask-before-acting mode: the step's actions wait for the user (answered with `review`).
    ReviewNeeded {
        id: u32,
        step: u32,
        next_goal: String,
        actions: Vec<String>,
    },
    /// The validator's judgement of a claimed success.
    Validation {
        valid: bool,
        reason: String,
    },
    /// The model's reply so far, as it streams in (the reply is complete in the next `step`).
    ModelOutput {
        text: String,
    },
    /// Tokens used by the task so far, and their cost when the model's price is known.
    Usage {
        input_tokens: u64,
        output_tokens: u64,
        cost: Option<f64>,
    },
    /// The record of the run (see `record::RunRecord`), secrets redacted; sent just before the
    /// final event, for export.
    RunRecorded {
        record: serde_json::Value,
        /// The same, as a readable markdown report.
        report: String,
    },
    /// Something the user should know, such as page text that tried to instruct the agent.
    Warning {
        message: Message,
    },
    /// The agent waits for the user to allow or refuse a consequential action (answered with
    /// the panel's `approve` message).
    ApprovalNeeded {
        id: u32,
        question: Message,
        url: String,
        /// The user's data the action would send, as named in the question (for highlighting).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        data: Vec<String>,
    },
    /// The task ended with an answer; `success` is the agent's own claim.
    Result {
        success: bool,
        text: String,
        steps: u32,
    },
    /// The task ended because something went wrong; `message` says what and what to do.
    Error {
        message: Message,
        steps: u32,
    },
    /// The task waits for the user to resume it (a model request in flight was abandoned).
    Paused {
        step: u32,
    },
    Resumed {
        step: u32,
    },
    /// The user stopped the task.
    Stopped {
        steps: u32,
    },
    /// The task's files changed (or are shown for the first time): the notebook's, with their
    /// text, the attached and the downloaded ones, as they are now.
    Files {
        files: Vec<crate::files::TaskFile>,
    },
    /// The task's answer as structured data, in the shape its output schema asks for (checked
    /// against it); sent before the run's record and the final `Result`.
    Answer {
        data: serde_json::Value,
    },
    /// The task downloaded a file, now one of its files as `name`; `download_id` is the browser's
    /// id of the download, for the panel to show the user the file.
    Downloaded {
        name: String,
        mime: String,
        size: u64,
        download_id: Option<i64>,
    },
    /// A frame of the run's film, when the film setting is on: the picture of the page the step's
    /// model saw (a data URL), the element it acts on outlined, fields holding a secret to black
    /// out, and the step's goal as the caption. For the host to keep (not shown in the panel, not
    /// kept in the History); `film` names the run's film among the chat's.
    FilmFrame {
        film: String,
        step: u32,
        image: String,
        outline: Option<crate::film::Outline>,
        masks: Vec<crate::film::Outline>,
        caption: String,
    },
    /// The task waits for the user to do something in the tab `tab` (or answer the question):
    /// they take over, then continue or stop (answered with the panel's `hand_over` message).
    HandOverNeeded {
        id: u32,
        reason: super::hand_over::Reason,
        question: Message,
        url: String,
        tab: i32,
    },
}

/// One action of a step, as the panel shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionReport {
    pub name: String,
    /// The element acted on, described by its text, when the action had one.
    pub target: Option<String>,
    /// Where that element was, for the panel to point it out while it is still there.
    pub element: Option<crate::browser::Highlight>,
    pub ok: bool,
    /// What happened, in a sentence the model and the user can use.
    pub outcome: String,
}

impl AgentEvent {
    /// The event with every text passed through `redact` (secret values back to placeholders).
    pub fn redacted(self, redact: &dyn Fn(&str) -> String) -> AgentEvent {
        match self {
            AgentEvent::Step { step, max_steps, evaluation, memory, next_goal, actions, screenshot } => {
                AgentEvent::Step {
                    screenshot,
                    step,
                    max_steps,
                    evaluation: redact(&evaluation),
                    memory: redact(&memory),
                    next_goal: redact(&next_goal),
                    actions: actions
                        .into_iter()
                        .map(|a| ActionReport {
                            target: a.target.as_deref().map(redact),
                            outcome: redact(&a.outcome),
                            ..a
                        })
                        .collect(),
                }
            }
            AgentEvent::Result { success, text, steps } => AgentEvent::Result { success, text: redact(&text), steps },
            AgentEvent::Error { message, steps } => AgentEvent::Error { message: message.redacted(redact), steps },
            AgentEvent::Warning { message } => AgentEvent::Warning { message: message.redacted(redact) },
            AgentEvent::ModelOutput { text } => AgentEvent::ModelOutput { text: redact(&text) },
            AgentEvent::Plan { progress, challenges, next_steps, steps_done } => AgentEvent::Plan {
                progress: redact(&progress),
                challenges: redact(&challenges),
                next_steps: next_steps.iter().map(|s| redact(s)).collect(),
                steps_done,
            },
            AgentEvent::Memory { summary, tokens_before, tokens_after } => {
                AgentEvent::Memory { summary: redact(&summary), tokens_before, tokens_after }
            }
            AgentEvent::Validation { valid, reason } => AgentEvent::Validation { valid, reason: redact(&reason) },
            AgentEvent::ApprovalNeeded { id, question, url, data } => AgentEvent::ApprovalNeeded {
                id,
                question: question.redacted(redact),
                url: redact(&url),
                data: data.iter().map(|d| redact(d)).collect(),
            },
            AgentEvent::Files { files } => AgentEvent::Files {
                files: files
                    .into_iter()
                    .map(|file| crate::files::TaskFile { text: file.text.as_deref().map(redact), ..file })
                    .collect(),
            },
            AgentEvent::FilmFrame { film, step, image, outline, masks, caption } => {
                AgentEvent::FilmFrame { film, step, image, outline, masks, caption: redact(&caption) }
            }
            AgentEvent::HandOverNeeded { id, reason, question, url, tab } => {
                AgentEvent::HandOverNeeded { id, reason, question: question.redacted(redact), url: redact(&url), tab }
            }
            other => other,
        }
    }
}
