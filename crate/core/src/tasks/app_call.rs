//! One tool call of an AI app (through MCP): where its answers go, and what a task it started
//! reports to it.

use super::host::Reply;
use crate::agent::AgentEvent;
use crate::mcp::TaskReport;
use serde_json::Value;
use std::cell::RefCell;

/// One tool call of an app: where its answers go, and what a task it started reports.
pub struct AppCall {
    pub id: u64,
    pub client: String,
    /// The token the browser gave the app when the user allowed it "Always", if any.
    pub token: Option<String>,
    pub(super) reply: Reply,
    pub max_steps: Option<u32>,
    pub url: Option<String>,
    report: RefCell<TaskReport>,
}

impl AppCall {
    pub(super) fn new(id: u64, client: String, token: Option<String>, reply: Reply) -> AppCall {
        AppCall { id, client, token, reply, max_steps: None, url: None, report: RefCell::default() }
    }

    /// Sends a message to the app (through the host); a port closed meanwhile drops it.
    pub fn send(&self, message: &Value) {
        (self.reply)(message);
    }

    /// Tells the app what an event of its call means for it: a step, a wait, the end.
    pub fn on_event(&self, event: &AgentEvent) {
        if let Some(message) = self.report.borrow_mut().on_event(self.id, event) {
            self.send(&message);
        }
    }
}
