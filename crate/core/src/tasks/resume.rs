//! A restarted worker takes up what the stopped one left: running tasks go on from their
//! checkpoints (unless too old), waiting tasks keep their places in line.

use super::host::Host;
use super::job::{Job, Saved};
use super::queue::Waiting;
use super::TaskManager;
use crate::agent::AgentEvent;
use crate::text;

impl<H: Host> TaskManager<H> {
    /// Resumes the tasks a stopped worker left, if any: called once when the worker starts.
    /// Resolves once they are running again (or were ended with the user told why).
    pub async fn resume_interrupted(&self) {
        let saved = match self.host.load_tasks().await {
            Ok(saved) => saved,
            Err(problem) => {
                let message = text!("core_task_resume_failed", problem).into();
                return self.emit(&AgentEvent::Error { message, steps: 0 });
            }
        };
        let mut line = Vec::new();
        for (chat, saved) in saved {
            let ended = match Saved::read(saved) {
                Saved::Unreadable(problem) => Some((text!("core_task_resume_failed", problem).into(), 0)),
                Saved::Waiting(waiting) => {
                    line.push((waiting.since_ms, chat.clone(), waiting.waiting));
                    None
                }
                Saved::Running(checkpoint) => match checkpoint.stale(self.now_ms()) {
                    Some(message) => Some((message, checkpoint.step.saturating_sub(1))),
                    // Running before, so running again at once, whatever the line.
                    None => {
                        self.launch(chat.clone(), Job::Resume { checkpoint, chat: chat.clone() });
                        None
                    }
                },
            };
            if let Some((message, steps)) = ended {
                self.save_task(&chat, None).await;
                self.emit_to(&chat, AgentEvent::Error { message, steps });
            }
        }
        // The waiting tasks keep their places, and start as places free up.
        line.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (_, chat, saved) in line {
            let job = Job::from_saved(saved, chat.clone());
            self.tasks.wait(Waiting { chat, task: job.task().to_string(), job });
        }
        self.start_waiting();
    }
}
