//! What the navigator's conversation keeps: each message counted and with secrets redacted, the
//! results of each step, and the memory that replaces older steps when they grow too many.

use super::{Navigator, StepError};
use crate::agent::events::AgentEvent;
use crate::agent::record::Role;
use crate::agent::summarizer::{parse_summary, summary_prompt, KEEP_RECENT_STEPS};
use crate::agent::task_config::UserGate;
use crate::browser::Browser;
use crate::llm::{ChatMessage, ChatModel};
use crate::messages::{Kind, Part};
use serde_json::Value;

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Adds a message to the history, counted and with every secret value redacted.
    pub(super) fn keep(&mut self, kind: Kind, message: ChatMessage) {
        self.keep_at(self.history.len(), kind, message);
    }

    /// [`Self::keep`] at `at`, before the turns from there on.
    pub(super) fn keep_at(&mut self, at: usize, kind: Kind, mut message: ChatMessage) {
        message.content = self.config.limits.now().secrets.redact(&message.content);
        self.history.insert(at, kind, message, &self.config.budgets.navigator.counter);
    }

    /// Puts a step's results into the history at `at`, where that step ended.
    pub(super) fn keep_results(&mut self, at: usize, step: u32, results: &[String]) {
        if results.is_empty() {
            return;
        }
        let text = format!("Results of step {}:\n- {}", step - 1, results.join("\n- "));
        self.keep_at(at, Kind::Results, ChatMessage::user(text));
    }

    /// Every few steps, or when the history takes more than half the budget, the older steps are
    /// summarised by the planner's model into a memory that replaces them; the tasks and the
    /// latest steps stay as they are.
    pub(super) async fn remember(&mut self, step: u32) -> Result<(), StepError> {
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
            self.history.replace_with_memory(cut, self.config.limits.now().secrets.redact(&memory), &navigator.counter);
            if !self.history.turns().iter().any(|turn| turn.kind == Kind::Plan) {
                self.files.borrow_mut().forget_plan_copy();
            }
            (self.emit)(AgentEvent::Memory {
                summary: memory,
                tokens_before: before,
                tokens_after: self.history.tokens(),
            });
        }
        Ok(())
    }
}

/// The history's parts with only the latest output's memory and evaluation: each step's memory
/// restates the one before it, so the older ones cost tokens every step and tell nothing new. The
/// older outputs keep their goals and actions; the history itself (which the planner and the
/// summary read) keeps them whole.
pub(super) fn with_latest_memory(parts: impl Iterator<Item = Part>) -> Vec<Part> {
    let mut parts: Vec<Part> = parts.collect();
    let latest = parts.iter().rposition(|part| part.kind == Kind::Output);
    for part in parts.iter_mut().take(latest.unwrap_or(0)).filter(|part| part.kind == Kind::Output) {
        let Ok(mut output) = serde_json::from_str::<Value>(&part.message.content) else { continue };
        let Some(state) = output.get_mut("current_state").and_then(Value::as_object_mut) else { continue };
        state.remove("evaluation_previous_goal");
        state.remove("memory");
        part.message.content = output.to_string();
        part.tokens = None;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(memory: &str) -> Part {
        let content = format!(
            r#"{{"current_state":{{"evaluation_previous_goal":"Success: opened","memory":"{memory}","next_goal":"go on"}},"action":[]}}"#
        );
        Part::new(Kind::Output, ChatMessage::assistant(content))
    }

    #[test]
    fn only_the_latest_output_keeps_its_memory_and_evaluation() {
        let parts = vec![
            Part::new(Kind::Task, ChatMessage::user("Your task: buy a mug")),
            output("opened the shop"),
            Part::new(Kind::Results, ChatMessage::user("Results of step 1:\n- ok")),
            output("opened the shop, found the mug"),
        ];
        let shown = with_latest_memory(parts.into_iter());
        assert_eq!(shown[1].message.content, r#"{"current_state":{"next_goal":"go on"},"action":[]}"#);
        assert_eq!(shown[1].tokens, None, "counted again as it is sent");
        assert!(shown[3].message.content.contains(r#""memory":"opened the shop, found the mug""#));
        assert_eq!(shown[2].message.content, "Results of step 1:\n- ok");
    }
}
