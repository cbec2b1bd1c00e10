//! What the navigator's conversation keeps: each message counted and with secrets redacted, the
//! results of each step, and the memory that replaces older steps when they grow too many.

use super::{Navigator, StepError};
use crate::agent::events::AgentEvent;
use crate::agent::record::Role;
use crate::agent::summarizer::{parse_summary, summary_prompt, KEEP_RECENT_STEPS};
use crate::agent::task_config::UserGate;
use crate::browser::Browser;
use crate::llm::{ChatMessage, ChatModel};
use crate::messages::Kind;

impl<B: Browser, M: ChatModel, G: UserGate> Navigator<'_, B, M, G> {
    /// Adds a message to the history, counted and with every secret value redacted.
    pub(super) fn keep(&mut self, kind: Kind, message: ChatMessage) {
        self.keep_at(self.history.len(), kind, message);
    }

    /// [`Self::keep`] at `at`, before the turns from there on.
    pub(super) fn keep_at(&mut self, at: usize, kind: Kind, mut message: ChatMessage) {
        message.content = self.config.secrets.redact(&message.content);
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
            self.history.replace_with_memory(cut, self.config.secrets.redact(&memory), &navigator.counter);
            (self.emit)(AgentEvent::Memory {
                summary: memory,
                tokens_before: before,
                tokens_after: self.history.tokens(),
            });
        }
        Ok(())
    }
}
