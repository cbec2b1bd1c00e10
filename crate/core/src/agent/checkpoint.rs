//! A running task's state at a step boundary, saved so that the task survives Chrome stopping the
//! service worker: the restarted worker resumes it from the step that was under way.

use super::replay::Replay;
use crate::browser::TabId;
use crate::files::TaskFiles;
use crate::i18n::Message;
use crate::safety::DataFlow;
use crate::tabs::{TabAliases, TaskGroup};
use crate::text;
use serde::{Deserialize, Serialize};

/// A checkpoint older than this is not resumed: the user has moved on, and the page with them.
pub const MAX_CHECKPOINT_AGE_MS: f64 = 10.0 * 60.0 * 1000.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkpoint {
    pub task: String,
    /// The tab the agent works in.
    pub tab: TabId,
    /// Every tab the task has worked in (the site policy's browser rules cover them).
    pub task_tabs: Vec<TabId>,
    /// The names the model knows the tabs by, kept so that `t2` means the same tab after a resume.
    #[serde(default)]
    pub tab_aliases: TabAliases,
    /// The task's tab group, which says which tabs are the task's after a resume.
    #[serde(default)]
    pub group: TaskGroup,
    /// The step to run next (the one under way when the worker stopped).
    pub step: u32,
    /// The previous step's results, for the next state message.
    pub results: Vec<String>,
    /// Consecutive failed steps so far.
    pub failures: u32,
    /// The validator's rejections so far.
    pub rejections: u32,
    /// Input and output tokens used so far.
    pub usage: (u64, u64),
    /// The conversation (see `messages::History::to_json`), secrets redacted.
    pub history: serde_json::Value,
    /// The planner is due at the next step whatever its interval.
    pub replan: bool,
    /// The recorded run being replayed, and the next of its steps.
    #[serde(default)]
    pub replay: Option<(Replay, usize)>,
    /// Where the user's data may go: the sites chosen, the data seen (see `safety::DataFlow`).
    #[serde(default)]
    pub data_flow: DataFlow,
    /// The task's files as they were: the notebook's text, what was attached and downloaded.
    #[serde(default)]
    pub files: TaskFiles,
    /// When it was saved (milliseconds since the epoch, the host's clock).
    pub saved_at_ms: f64,
    /// The shape the task's answer must have, if the task asked for one.
    #[serde(default)]
    pub output_schema: Option<crate::answer::OutputSchema>,
}

impl Checkpoint {
    /// Why a checkpoint cannot be resumed at `now_ms`, if it cannot.
    pub fn stale(&self, now_ms: f64) -> Option<Message> {
        let age = now_ms - self.saved_at_ms;
        (age > MAX_CHECKPOINT_AGE_MS)
            .then(|| text!("core_task_too_old_to_resume", &self.task, (age / 60_000.0).round()).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_survives_saving_and_goes_stale() {
        let checkpoint = Checkpoint {
            task: "buy a mug".into(),
            tab: 4,
            task_tabs: vec![4, 123_456_789],
            tab_aliases: {
                let mut aliases = TabAliases::default();
                aliases.alias(4);
                aliases.alias(123_456_789);
                aliases
            },
            group: TaskGroup { id: Some(12), former: vec![(4, 3)] },
            step: 3,
            results: vec!["click: ok".into()],
            failures: 0,
            rejections: 1,
            usage: (100, 20),
            history: serde_json::json!([{"kind": "task", "assistant": false, "content": "Your task: buy a mug"}]),
            replan: false,
            replay: None,
            data_flow: {
                let mut flow = DataFlow::default();
                flow.choose("https://shop.test/");
                flow
            },
            files: {
                let mut files = TaskFiles::default();
                files.add_held("cv.pdf", crate::files::Source::Attached, "application/pdf", 52_000, "a1");
                files
            },
            saved_at_ms: 1_000.0,
            output_schema: Some(crate::answer::OutputSchema::new(serde_json::json!({"type": "array"})).unwrap()),
        };
        let text = serde_json::to_string(&checkpoint).unwrap();
        assert_eq!(serde_json::from_str::<Checkpoint>(&text).unwrap(), checkpoint);
        assert!(text.contains(r#""tabAliases":{"ids":[4,123456789]}"#), "{text}");
        // A checkpoint saved before aliases existed still resumes, naming tabs afresh.
        let mut older: serde_json::Value = serde_json::from_str(&text).unwrap();
        older.as_object_mut().unwrap().remove("tabAliases");
        older.as_object_mut().unwrap().remove("dataFlow");
        older.as_object_mut().unwrap().remove("group");
        let older: Checkpoint = serde_json::from_value(older).unwrap();
        assert_eq!(older.group, TaskGroup::default());
        assert_eq!(older.tab_aliases, TabAliases::default());
        assert_eq!(older.data_flow, DataFlow::default());
        assert_eq!(checkpoint.stale(1_000.0 + 60_000.0), None);
        let stale = checkpoint.stale(1_000.0 + MAX_CHECKPOINT_AGE_MS + 1.0).unwrap();
        assert!(stale.contains("Send the task again"), "{stale}");
    }
}
