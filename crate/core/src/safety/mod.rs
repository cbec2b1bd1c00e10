//! Keeping the agent on the user's side: which sites it may visit, page text that tries to
//! instruct it, and actions the user must approve.

mod consequence;
mod injection;
mod secrets;
mod site_policy;

pub use consequence::{assess, Consequence, Kind, Strictness};
pub use injection::{mentioned_hosts, neutralize, Finding};
pub use secrets::{Secret, Secrets};
pub use site_policy::{PolicyRefusal, SitePolicy};
