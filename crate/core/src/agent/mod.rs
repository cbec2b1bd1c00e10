//! The agent: the navigator loop, what it tells the model, how it reads the model's replies, and
//! the events it reports to the panel.

mod checkpoint;
mod critic;
mod drive;
mod events;
mod execute;
#[cfg(test)]
pub(crate) mod fakes;
mod hand_over;
mod limits;
mod loop_guard;
mod navigator;
mod output;
mod planner;
mod prompt;
mod record;
mod replay;
mod schemas;
mod summarizer;
mod task_config;
mod validator;

pub use checkpoint::Checkpoint;
pub use drive::{app_name, drive_session, DriveCommand, DriveReply, DriveRequest};
pub use events::{ActionReport, AgentEvent};
pub use hand_over::{HandOver, PageNeeds, Reason as HandOverReason};
pub use limits::{Limits, LiveLimits};
pub use navigator::{run_task, step_limit_reached};
pub use output::{parse_navigator_output, AgentBrain, NavigatorOutput};
pub use prompt::{minimum_budget, navigator_schema, state_message, system_prompt};
pub use record::{ElementPrint, PlannedAction, PrintParts, RequestSize, Role, RunRecord, StepRecord, Timing, Tokens};
pub use replay::Replay;
pub use schemas::{request_schemas, RequestSchema};
pub use task_config::{Budgets, Models, Review, TaskConfig, UserGate};
