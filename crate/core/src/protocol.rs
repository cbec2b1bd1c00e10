//! The named, versioned messages between the side panel (or the runner) and the service worker.
//!
//! The panel connects a port named [`PANEL_PORT_NAME`] and sends [`PanelRequest`]s; the worker
//! answers with [`AgentEvent`]s. Every message carries `"v": PROTOCOL_VERSION`.

use crate::agent::AgentEvent;
use serde::Deserialize;
use serde_json::Value;

pub const PROTOCOL_VERSION: u64 = 1;
pub const PANEL_PORT_NAME: &str = "agent-panel";
/// Extension pages allowed to drive the agent, relative to the extension's root.
const PANEL_PAGES: &[&str] = &["extension/panel/panel.html"];

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum PanelRequest {
    /// Starts a task on a tab: the given one, or the active tab of the panel's window.
    StartTask {
        task: String,
        #[serde(rename = "tabId")]
        tab_id: Option<i32>,
        /// Continue the conversation of the previous task rather than start a new one.
        #[serde(rename = "followUp", default)]
        follow_up: bool,
    },
    /// Stops the running task, cancelling a model call in flight.
    Stop,
    /// Pauses the running task at once (a model call in flight is abandoned, and made again on
    /// resume); `resume` continues it.
    Pause,
    Resume,
    /// The user's answer to an `approval_needed` event.
    Approve {
        id: u32,
        approved: bool,
    },
    /// The user's decision on a `review_needed` step: run, skip, retry (with feedback) or cancel.
    Review {
        id: u32,
        decision: String,
        #[serde(default)]
        feedback: String,
    },
}

impl PanelRequest {
    /// Reads a message from the panel, refusing other versions with a clear reason.
    pub fn parse(message: &Value) -> Result<PanelRequest, String> {
        let version = message.get("v").and_then(Value::as_u64);
        if version != Some(PROTOCOL_VERSION) {
            return Err(format!(
                "message protocol version {} is not supported (expected {PROTOCOL_VERSION}); reload the extension",
                version.map_or("missing".to_string(), |v| v.to_string())
            ));
        }
        let mut body = message.clone();
        body.as_object_mut().map(|fields| fields.remove("v"));
        let request: PanelRequest =
            serde_json::from_value(body).map_err(|err| format!("malformed message from the panel: {err}"))?;
        match &request {
            PanelRequest::StartTask { task, .. } if task.trim().is_empty() => {
                Err("the task is empty; type what the agent should do".into())
            }
            _ => Ok(request),
        }
    }
}

/// Puts the protocol version on an event for the wire; a result also carries its text as safe
/// HTML (rendered from the model's markdown) for the panel to show.
pub fn encode_event(event: &AgentEvent) -> Value {
    let mut value = serde_json::to_value(event).expect("events serialize");
    value["v"] = Value::from(PROTOCOL_VERSION);
    if let AgentEvent::Result { text, .. } = event {
        value["html"] = Value::from(crate::markdown::to_safe_html(text).trim_end());
    }
    value
}

/// Only our own panel page, inside our own extension, may connect.
pub fn is_trusted_sender(extension_id: &str, sender_id: Option<&str>, sender_url: Option<&str>) -> bool {
    let origin = format!("chrome-extension://{extension_id}/");
    let page =
        sender_url.and_then(|url| url.strip_prefix(&origin)).map(|rest| rest.split(['?', '#']).next().unwrap_or(""));
    sender_id == Some(extension_id) && page.is_some_and(|page| PANEL_PAGES.contains(&page))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_start_and_stop() {
        assert_eq!(
            PanelRequest::parse(&json!({"v": 1, "type": "start_task", "task": "buy a mug", "tabId": 4})),
            Ok(PanelRequest::StartTask { task: "buy a mug".into(), tab_id: Some(4), follow_up: false })
        );
        assert_eq!(PanelRequest::parse(&json!({"v": 1, "type": "stop"})), Ok(PanelRequest::Stop));
        assert_eq!(
            PanelRequest::parse(&json!({"v": 1, "type": "approve", "id": 3, "approved": false})),
            Ok(PanelRequest::Approve { id: 3, approved: false })
        );
    }

    #[test]
    fn refuses_other_versions_unknown_types_and_empty_tasks() {
        assert!(PanelRequest::parse(&json!({"v": 2, "type": "stop"})).unwrap_err().contains("version 2"));
        assert!(PanelRequest::parse(&json!({"type": "stop"})).unwrap_err().contains("version missing"));
        assert!(PanelRequest::parse(&json!({"v": 1, "type": "eval", "code": "x"})).unwrap_err().contains("malformed"));
        assert!(PanelRequest::parse(&json!({"v": 1, "type": "start_task", "task": "  "}))
            .unwrap_err()
            .contains("empty"));
    }

    #[test]
    fn trusts_only_our_panel_page() {
        let id = "abcdef";
        assert!(is_trusted_sender(id, Some(id), Some("chrome-extension://abcdef/extension/panel/panel.html?tab=3")));
        assert!(!is_trusted_sender(id, Some("other"), Some("chrome-extension://abcdef/extension/panel/panel.html")));
        assert!(!is_trusted_sender(id, Some(id), Some("chrome-extension://abcdef/extension/options/options.html")));
        assert!(!is_trusted_sender(id, Some(id), Some("https://evil.test/extension/panel/panel.html")));
        assert!(!is_trusted_sender(id, Some(id), None));
    }

    #[test]
    fn a_result_carries_its_answer_as_safe_html() {
        let event = AgentEvent::Result { success: true, text: "**$14.50** <b>x</b>".into(), steps: 4 };
        assert_eq!(encode_event(&event)["html"], "<p><strong>$14.50</strong> &lt;b&gt;x&lt;/b&gt;</p>");
    }

    #[test]
    fn events_carry_the_version() {
        let event = AgentEvent::Stopped { steps: 2 };
        assert_eq!(encode_event(&event), json!({"v": 1, "type": "stopped", "steps": 2}));
    }
}
