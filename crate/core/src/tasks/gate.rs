//! The user as a task asks them: through the panel, with a time limit for AI apps' tasks.

use super::host::Host;
use super::queue::PanelUser;
use crate::agent::{AgentEvent, Review, UserGate};
use crate::mcp;

/// The user as a task asks them: through the panel, within a time limit for the tasks AI apps
/// asked for (no answer in time refuses the action, so that an app cannot wait on a closed panel
/// forever).
pub struct TimedGate<'a, H> {
    pub user: &'a PanelUser,
    pub host: &'a H,
    /// Where a warning of an unanswered question goes.
    pub emit: &'a dyn Fn(AgentEvent),
    pub time_limit_ms: Option<u32>,
}

impl<H: Host> TimedGate<'_, H> {
    async fn ask(&self, id: u32) -> Option<Review> {
        let Some(limit) = self.time_limit_ms else { return self.user.ask(id).await };
        let answer = std::pin::pin!(self.user.ask(id));
        let timeout = std::pin::pin!(self.host.sleep(limit));
        match futures::future::select(answer, timeout).await {
            futures::future::Either::Left((answer, _)) => answer,
            futures::future::Either::Right(_) => {
                self.user.withdraw(Some(id));
                (self.emit)(AgentEvent::Warning { message: mcp::unanswered(limit).into() });
                None
            }
        }
    }
}

impl<H: Host> UserGate for TimedGate<'_, H> {
    async fn approve(&self, id: u32) -> bool {
        // A request abandoned (panel closed, task stopped, no answer in time) counts as refused.
        self.ask(id).await == Some(Review::Run)
    }

    async fn review(&self, id: u32) -> Review {
        self.ask(id).await.unwrap_or(Review::Cancel)
    }
}
