//! The user as a task asks them: through the panel, with a time limit for AI apps' tasks.

use super::host::Host;
use super::queue::PanelUser;
use crate::agent::{AgentEvent, HandOver, Review, UserGate};
use crate::mcp;
use crate::text;
use std::future::Future;

/// How long a scheduled run waits for the user to take over (they learn of it by a notification)
/// before it ends.
pub const SCHEDULED_HAND_OVER_MS: u32 = 15 * 60_000;

/// The user as a task asks them: through the panel, within a time limit for the tasks AI apps
/// asked for (no answer in time refuses the action, so that an app cannot wait on a closed panel
/// forever), and for hand-overs of runs no one watches (an app's, a scheduled one).
pub struct TimedGate<'a, H> {
    pub user: &'a PanelUser,
    pub host: &'a H,
    /// Where a warning of an unanswered question goes.
    pub emit: &'a dyn Fn(AgentEvent),
    pub time_limit_ms: Option<u32>,
    /// How long a hand-over waits for the user; `None`: as long as it takes.
    pub hand_over_limit_ms: Option<u32>,
}

impl<H: Host> TimedGate<'_, H> {
    /// `answer`, or `None` when `limit` passes first (the question `id` is then withdrawn).
    async fn within<T>(&self, id: u32, limit: Option<u32>, answer: impl Future<Output = Option<T>>) -> Option<T> {
        let Some(limit) = limit else { return answer.await };
        let answer = std::pin::pin!(answer);
        let timeout = std::pin::pin!(self.host.sleep(limit));
        match futures::future::select(answer, timeout).await {
            futures::future::Either::Left((answer, _)) => answer,
            futures::future::Either::Right(_) => {
                self.user.withdraw(Some(id));
                None
            }
        }
    }

    async fn ask(&self, id: u32) -> Option<Review> {
        let answer = self.within(id, self.time_limit_ms, self.user.ask(id)).await;
        if let (None, Some(limit)) = (&answer, self.time_limit_ms) {
            (self.emit)(AgentEvent::Warning { message: mcp::unanswered(limit).into() });
        }
        answer
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

    async fn hand_over(&self, id: u32) -> HandOver {
        let answer = self.within(id, self.hand_over_limit_ms, self.user.hand_over(id)).await;
        if let (None, Some(limit)) = (&answer, self.hand_over_limit_ms) {
            (self.emit)(AgentEvent::Warning { message: text!("core_hand_over_timed_out", limit / 60_000).into() });
        }
        answer.unwrap_or(HandOver::Unanswered)
    }
}
