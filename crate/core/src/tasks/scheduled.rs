//! A workflow run by its schedule: in a new background tab at its start page, as a task of its
//! own chat, the user (perhaps away) told in notifications what it needs and how it ended.

use super::host::Host;
use super::job::Job;
use super::TaskManager;
use crate::agent::AgentEvent;
use crate::protocol;
use crate::workflow;
use serde_json::Value;
use std::collections::BTreeMap;

impl<H: Host> TaskManager<H> {
    /// Runs a stored workflow (`workflow`, as stored) with `values`, as its schedule asks; `Err`
    /// says why it cannot run.
    pub fn run_scheduled(&self, workflow: &Value, values: &BTreeMap<String, String>) -> Result<(), String> {
        let replay = workflow::run_with(workflow, values)?;
        let name = workflow["name"].as_str().unwrap_or_default().to_string();
        let manager = self.share();
        self.spawn(async move {
            let chat = manager.new_chat_id();
            let url = replay.start_url.clone().unwrap_or_else(|| "about:blank".into());
            match manager.host.open_background_tab(&url).await {
                Ok(tab) => manager.start(Job::Replay { replay, tab_id: Some(tab), chat, scheduled: Some(name) }),
                Err(message) => {
                    let error = AgentEvent::Error { message, steps: 0 };
                    manager.host.notify(&name, &protocol::encode_chat_event(&chat, &error));
                    manager.emit_to(&chat, error);
                }
            }
        });
        Ok(())
    }
}
