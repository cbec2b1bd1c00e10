//! Keeping the agent on the user's side: which sites it may visit, and page text that tries to
//! instruct it.

mod injection;
mod site_policy;

pub use injection::{mentioned_hosts, neutralize, Finding};
pub use site_policy::{PolicyRefusal, SitePolicy};
