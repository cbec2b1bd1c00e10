//! The message manager: the conversation the agent keeps between steps, every message with its
//! token count, and the hard token budget each request is fitted into.
//!
//! The history holds what is worth keeping: the user's tasks, the navigator's compact outputs,
//! what each step's actions did, plans, feedback, and the summary that replaces older steps. The
//! bulky per-step state (page map, screenshot) is never kept; it joins one request and leaves.

mod budget;
#[cfg(test)]
mod budget_tests;
mod style;

pub use budget::{fit, Budget, Fitted, FittedRequest, OverBudget, Part, Prompt, TokenSplit};
pub use style::{RequestStyle, StyleChoice, COMPACT_UP_TO_TOKENS, WORKING_ROOM_TOKENS};

use crate::llm::{ChatMessage, Role};
use crate::tokens::TokenCounter;
use serde::{Deserialize, Serialize};

/// What a message is, which decides when it may be shrunk to fit the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// An agent's instructions: never shrunk.
    System,
    /// The user's task or a follow-up: never shrunk.
    Task,
    /// The summary that replaced older steps: never shrunk (it is already compact).
    Memory,
    /// The navigator's compact output for a step.
    Output,
    /// What a step's actions did, extracted content included: the first history to go.
    Results,
    /// The planner's plan.
    Plan,
    /// Feedback to the navigator: a validator's rejection, the user's review, an unusable reply.
    Note,
    /// The current browser state (page map, screenshot): its page lines are cut last.
    State,
}

impl Kind {
    /// Whether the budget may leave this message out (`Results` before the others).
    fn is_history(self) -> bool {
        matches!(self, Kind::Output | Kind::Results | Kind::Plan | Kind::Note)
    }
}

/// One message of the history with its token count (for the counter it was last counted with).
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub kind: Kind,
    pub message: ChatMessage,
    pub tokens: usize,
}

/// The conversation so far, without system prompt and state messages; follow-up tasks continue it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    turns: Vec<Turn>,
}

/// A turn as it is saved (for a task that must survive a service-worker restart).
#[derive(Serialize, Deserialize)]
struct SavedTurn {
    kind: Kind,
    assistant: bool,
    content: String,
}

impl History {
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    pub fn len(&self) -> usize {
        self.turns.len()
    }

    pub fn clear(&mut self) {
        self.turns.clear();
    }

    /// The whole history's tokens.
    pub fn tokens(&self) -> usize {
        self.turns.iter().map(|turn| turn.tokens).sum()
    }

    pub fn push(&mut self, kind: Kind, message: ChatMessage, counter: &TokenCounter) {
        self.insert(self.turns.len(), kind, message, counter);
    }

    /// Puts a message at `at`, before the turns from there on.
    pub fn insert(&mut self, at: usize, kind: Kind, message: ChatMessage, counter: &TokenCounter) {
        let tokens = counter.message(&message);
        self.turns.insert(at, Turn { kind, message, tokens });
    }

    /// Drops the turns from `len` on.
    pub fn truncate(&mut self, len: usize) {
        self.turns.truncate(len);
    }

    /// Counts every turn again, for a task whose model counts differently from the last one's.
    pub fn recount(&mut self, counter: &TokenCounter) {
        for turn in &mut self.turns {
            turn.tokens = counter.message(&turn.message);
        }
    }

    /// The messages, as a request carries them.
    pub fn parts(&self) -> impl Iterator<Item = Part> + '_ {
        self.turns.iter().map(|turn| Part { kind: turn.kind, message: turn.message.clone(), tokens: Some(turn.tokens) })
    }

    /// The messages as the navigator's and the planner's requests carry them: of the plans, only
    /// the latest, which supersedes the older ones (the planner counts its steps done against it;
    /// what was tried shows in the outputs and results).
    pub fn parts_with_latest_plan(&self) -> impl Iterator<Item = Part> + '_ {
        let latest = self.turns.iter().rposition(|turn| turn.kind == Kind::Plan);
        self.parts()
            .enumerate()
            .filter(move |(i, part)| part.kind != Kind::Plan || Some(*i) == latest)
            .map(|(_, part)| part)
    }

    /// Where older history ends when the last `keep_outputs` steps are to stay verbatim: the
    /// index of the oldest navigator output kept. `None` when there is nothing older to summarise.
    pub fn summary_cut(&self, keep_outputs: usize) -> Option<usize> {
        let outputs: Vec<usize> =
            self.turns.iter().enumerate().filter(|(_, turn)| turn.kind == Kind::Output).map(|(i, _)| i).collect();
        let cut = *outputs.iter().rev().nth(keep_outputs.saturating_sub(1))?;
        let older = &self.turns[..cut];
        older.iter().any(|turn| turn.kind.is_history()).then_some(cut)
    }

    /// The turns before `cut` that a summary replaces (tasks stay as they are).
    pub fn to_summarise(&self, cut: usize) -> Vec<&Turn> {
        self.turns[..cut].iter().filter(|turn| turn.kind != Kind::Task).collect()
    }

    /// Replaces every turn before `cut` except the tasks with `memory`, placed where the older
    /// history ended.
    pub fn replace_with_memory(&mut self, cut: usize, memory: String, counter: &TokenCounter) {
        let recent = self.turns.split_off(cut);
        self.turns.retain(|turn| turn.kind == Kind::Task);
        self.push(Kind::Memory, ChatMessage::user(memory), counter);
        self.turns.extend(recent);
    }

    /// The history as JSON, to be saved; screenshots are not kept.
    pub fn to_json(&self) -> serde_json::Value {
        let saved: Vec<SavedTurn> = self
            .turns
            .iter()
            .map(|turn| SavedTurn {
                kind: turn.kind,
                assistant: turn.message.role == Role::Assistant,
                content: turn.message.content.clone(),
            })
            .collect();
        serde_json::to_value(saved).unwrap_or_default()
    }

    /// The history saved by [`History::to_json`], counted again.
    pub fn from_json(value: &serde_json::Value, counter: &TokenCounter) -> Result<History, String> {
        let saved: Vec<SavedTurn> =
            serde_json::from_value(value.clone()).map_err(|err| format!("the saved history is unreadable: {err}"))?;
        let mut history = History::default();
        for turn in saved {
            let message =
                if turn.assistant { ChatMessage::assistant(turn.content) } else { ChatMessage::user(turn.content) };
            history.push(turn.kind, message, counter);
        }
        Ok(history)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(kinds: &[Kind]) -> History {
        let counter = TokenCounter::estimate();
        let mut history = History::default();
        for (i, kind) in kinds.iter().enumerate() {
            let message = match kind {
                Kind::Output => ChatMessage::assistant(format!("output {i}")),
                _ => ChatMessage::user(format!("{kind:?} {i}")),
            };
            history.push(*kind, message, &counter);
        }
        history
    }

    #[test]
    fn a_summary_replaces_older_steps_and_keeps_tasks_and_recent_steps() {
        use Kind::*;
        let mut history = history(&[Task, Plan, Output, Results, Output, Results, Task, Output, Results, Output]);
        let cut = history.summary_cut(2).unwrap();
        assert_eq!(cut, 7);
        assert_eq!(history.to_summarise(cut).len(), 5);
        history.replace_with_memory(cut, "memory".into(), &TokenCounter::estimate());
        let kinds: Vec<Kind> = history.turns().iter().map(|turn| turn.kind).collect();
        assert_eq!(kinds, [Task, Task, Memory, Output, Results, Output]);
        assert_eq!(history.tokens(), history.turns().iter().map(|t| t.tokens).sum::<usize>());
        // Nothing older than the two outputs kept is left to summarise.
        assert_eq!(history.summary_cut(2), None);
    }

    #[test]
    fn requests_carry_only_the_latest_plan() {
        use Kind::*;
        let replanned = history(&[Task, Plan, Output, Results, Plan, Output, Note]);
        let contents = |parts: Vec<Part>| parts.into_iter().map(|part| part.message.content).collect::<Vec<_>>();
        assert_eq!(
            contents(replanned.parts_with_latest_plan().collect()),
            ["Task 0", "output 2", "Results 3", "Plan 4", "output 5", "Note 6"]
        );
        assert_eq!(replanned.parts().count(), 7);
        assert_eq!(history(&[Task, Output]).parts_with_latest_plan().count(), 2);
    }

    #[test]
    fn too_short_a_history_has_nothing_to_summarise() {
        use Kind::*;
        assert_eq!(history(&[Task, Output, Results]).summary_cut(2), None);
        assert_eq!(history(&[Task]).summary_cut(2), None);
    }

    #[test]
    fn the_history_survives_saving() {
        use Kind::*;
        let history = history(&[Task, Plan, Output, Results, Memory]);
        let restored = History::from_json(&history.to_json(), &TokenCounter::estimate()).unwrap();
        assert_eq!(restored, history);
        assert!(History::from_json(&serde_json::json!({"x": 1}), &TokenCounter::estimate()).is_err());
    }
}
