//! Keeping the agent on the user's side: which addresses and sites it may visit, page text that
//! tries to instruct it, the user's secrets, and where the user's data may go. Which actions the
//! user must approve is decided with the actions (`actions::assess`).

mod data_flow;
mod firewall;
mod injection;
mod secrets;
mod site_policy;
mod url_policy;

pub use data_flow::{Carried, Cause, Conversation, DataFlow, Flow, PageScans, SearchPage, Site, SitePlan, Verdict};
pub use firewall::Firewall;
pub use injection::{mentioned_hosts, mentioned_sites, neutralize, Finding};
pub use secrets::{Secret, Secrets};
pub use site_policy::{PolicyRefusal, SitePolicy};
pub use url_policy::{normalize_url, UrlRefusal};
