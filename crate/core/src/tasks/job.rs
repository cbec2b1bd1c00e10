//! What starts a task, and what of it a restarted worker finds.

use super::app_call::AppCall;
use super::chats::Start;
use crate::agent::{Checkpoint, Replay};
use crate::answer::OutputSchema;
use crate::files::{Source, TaskFiles};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::rc::Rc;

/// A task to run: a new one from the panel (or an AI app), a recorded one replayed (or a
/// workflow), or one interrupted by a worker restart; each in its chat `chat`.
pub enum Job {
    /// `app` is the AI app that asked for the task through MCP, if one did.
    New {
        task: String,
        tab_id: Option<i32>,
        follow_up: bool,
        chat: String,
        app: Option<Rc<AppCall>>,
        /// The shape the answer must have, when the task asks for data.
        output_schema: Option<OutputSchema>,
        /// The files the user attached, held by the worker.
        files: TaskFiles,
    },
    /// `scheduled` is the workflow's name when its schedule started it: the user, perhaps away,
    /// hears through notifications what it needs and how it ended.
    Replay {
        replay: Replay,
        tab_id: Option<i32>,
        chat: String,
        scheduled: Option<String>,
    },
    Resume {
        checkpoint: Box<Checkpoint>,
        chat: String,
    },
}

impl Job {
    pub fn task(&self) -> &str {
        match self {
            Job::New { task, .. } => task,
            Job::Replay { replay, .. } => &replay.task,
            Job::Resume { checkpoint, .. } => &checkpoint.task,
        }
    }

    /// The chat the task belongs to.
    pub fn chat(&self) -> Start<'_> {
        match self {
            Job::New { chat, follow_up: true, .. } => Start::Chat(chat),
            Job::New { chat, .. } | Job::Replay { chat, .. } => Start::New(chat),
            Job::Resume { chat, .. } => Start::Resume(chat),
        }
    }

    /// The shape the task's answer must have, if it asks for data.
    pub fn output_schema(&self) -> Option<OutputSchema> {
        match self {
            Job::New { output_schema, .. } => output_schema.clone(),
            Job::Resume { checkpoint, .. } => checkpoint.output_schema.clone(),
            Job::Replay { .. } => None,
        }
    }

    pub fn app(&self) -> Option<Rc<AppCall>> {
        match self {
            Job::New { app, .. } => app.clone(),
            _ => None,
        }
    }

    pub fn scheduled(&self) -> Option<String> {
        match self {
            Job::Replay { scheduled, .. } => scheduled.clone(),
            _ => None,
        }
    }

    /// The handles of the files the user attached to it.
    pub fn attached_handles(&self) -> Vec<String> {
        match self {
            Job::New { files, .. } => files.handles(Source::Attached),
            Job::Resume { checkpoint, .. } => checkpoint.files.handles(Source::Attached),
            Job::Replay { .. } => Vec::new(),
        }
    }

    /// The job as a restarted worker can start it, if it can.
    pub fn saved(&self) -> Option<SavedJob> {
        Some(match self {
            Job::New { app: Some(_), .. } | Job::Resume { .. } => return None,
            Job::New { task, tab_id, follow_up, output_schema, files, .. } => SavedJob::New {
                task: task.clone(),
                tab_id: *tab_id,
                follow_up: *follow_up,
                output_schema: output_schema.clone(),
                files: files.clone(),
            },
            Job::Replay { replay, tab_id, scheduled, .. } => {
                SavedJob::Replay { replay: replay.clone(), tab_id: *tab_id, scheduled: scheduled.clone() }
            }
        })
    }

    pub fn from_saved(saved: SavedJob, chat: String) -> Job {
        match saved {
            SavedJob::New { task, tab_id, follow_up, output_schema, files } => {
                Job::New { task, tab_id, follow_up, chat, app: None, output_schema, files }
            }
            SavedJob::Replay { replay, tab_id, scheduled } => Job::Replay { replay, tab_id, chat, scheduled },
        }
    }
}

/// A task as a restarted worker finds it.
pub enum Saved {
    /// Running, at its checkpoint.
    Running(Box<Checkpoint>),
    /// Waiting in line.
    Waiting(SavedWaiting),
    Unreadable(String),
}

impl Saved {
    /// A saved task as stored: a place in line has `waiting`, a checkpoint has not.
    pub fn read(value: Value) -> Saved {
        let read = match value.get("waiting") {
            Some(_) => serde_json::from_value(value).map(Saved::Waiting),
            None => serde_json::from_value(value).map(Saved::Running),
        };
        read.unwrap_or_else(|err| Saved::Unreadable(format!("the saved task is unreadable ({err})")))
    }
}

/// A task waiting in line, as saved: what starts it, and since when it waits (its place).
#[derive(Serialize, Deserialize)]
pub struct SavedWaiting {
    pub waiting: SavedJob,
    pub since_ms: f64,
}

/// What starts a waiting task (an AI app's cannot wait for a worker restart: its call is gone).
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SavedJob {
    New {
        task: String,
        tab_id: Option<i32>,
        follow_up: bool,
        #[serde(default)]
        output_schema: Option<OutputSchema>,
        #[serde(default)]
        files: TaskFiles,
    },
    Replay {
        replay: Replay,
        tab_id: Option<i32>,
        scheduled: Option<String>,
    },
}
