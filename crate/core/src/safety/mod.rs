//! Keeping the agent on the user's side: which sites it may visit, page text that tries to
//! instruct it, and actions the user must approve.

mod consequence;
mod data_flow;
mod injection;
mod secrets;
mod site_policy;

pub use consequence::{assess, Consequence, Kind, Strictness};
pub use data_flow::{Carried, Conversation, DataFlow, Flow, PageScans, Site, SitePlan, Verdict};
pub use injection::{mentioned_hosts, mentioned_sites, neutralize, Finding};
pub use secrets::{Secret, Secrets};
pub use site_policy::{PolicyRefusal, SitePolicy};
