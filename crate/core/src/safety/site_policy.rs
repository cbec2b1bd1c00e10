//! The user's allow and deny lists, checked in the core before every navigation the agent makes,
//! and turned into `declarativeNetRequest` rules so that the browser itself blocks what the page
//! would open on its own (redirects, scripts, form submissions) in the task's tabs.

use super::url_policy::{normalize_url, UrlRefusal};
use crate::i18n::Text;
use crate::text;
use serde_json::{json, Value};
use std::fmt;

/// Session rule ids used for a task's policy (the host replaces them as a set).
pub const RULE_ID_BASE: u32 = 1000;

#[derive(Debug, Clone, PartialEq)]
enum Rule {
    /// A host and its subdomains.
    Domain(String),
    /// A URL prefix.
    Prefix(String),
}

impl Rule {
    fn parse(entry: &str) -> Result<Rule, String> {
        let entry = entry.trim();
        if entry.contains("://") {
            let url = url::Url::parse(entry).map_err(|_| format!("\"{entry}\" is not a valid URL"))?;
            return Ok(Rule::Prefix(url.to_string()));
        }
        let host = entry.trim_start_matches("*.").trim_end_matches('/').to_ascii_lowercase();
        let valid = !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'));
        if valid {
            Ok(Rule::Domain(host))
        } else {
            Err(format!("\"{entry}\" is neither a domain (example.com) nor a full URL (https://example.com/path)"))
        }
    }

    fn matches(&self, url: &url::Url) -> bool {
        match self {
            Rule::Domain(domain) => {
                let host = url.host_str().unwrap_or("").to_ascii_lowercase();
                let host_port = match url.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host.clone(),
                };
                let candidate = if domain.contains(':') { host_port } else { host };
                candidate == *domain || candidate.ends_with(&format!(".{domain}"))
            }
            Rule::Prefix(prefix) => url.as_str().starts_with(prefix.as_str()),
        }
    }

    fn label(&self) -> &str {
        match self {
            Rule::Domain(domain) | Rule::Prefix(domain) => domain,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SitePolicy {
    allow: Vec<Rule>,
    deny: Vec<Rule>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PolicyRefusal {
    Url(UrlRefusal),
    Denied { url: String, rule: String },
    NotAllowed { url: String },
}

impl fmt::Display for PolicyRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl PolicyRefusal {
    /// Why the user's site settings refuse the address, as part of a sentence.
    pub fn text(&self) -> Text {
        match self {
            PolicyRefusal::Url(refusal) => refusal.text(),
            PolicyRefusal::Denied { url, rule } => text!("core_policy_denied", url, rule),
            PolicyRefusal::NotAllowed { url } => text!("core_policy_not_allowed", url),
        }
    }
}

impl SitePolicy {
    /// Reads the user's lists; each entry is a domain (subdomains included) or a full URL prefix.
    pub fn new(allow: &[String], deny: &[String]) -> Result<SitePolicy, String> {
        let parse = |list: &[String]| {
            list.iter().filter(|e| !e.trim().is_empty()).map(|e| Rule::parse(e)).collect::<Result<Vec<_>, _>>()
        };
        Ok(SitePolicy { allow: parse(allow)?, deny: parse(deny)? })
    }

    pub fn is_open(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Whether the user's allow list names `url`'s site (the user chose it).
    pub fn allows_by_name(&self, url: &str) -> bool {
        url::Url::parse(url).is_ok_and(|parsed| self.allow.iter().any(|rule| rule.matches(&parsed)))
    }

    /// Whether the agent may open `url`; returns the normalized URL.
    pub fn check(&self, url: &str) -> Result<String, PolicyRefusal> {
        let normalized = normalize_url(url).map_err(PolicyRefusal::Url)?;
        let parsed = url::Url::parse(&normalized).expect("normalized URLs parse");
        if let Some(rule) = self.deny.iter().find(|rule| rule.matches(&parsed)) {
            return Err(PolicyRefusal::Denied { url: normalized, rule: rule.label().to_string() });
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|rule| rule.matches(&parsed)) {
            return Err(PolicyRefusal::NotAllowed { url: normalized });
        }
        Ok(normalized)
    }

    /// `chrome.declarativeNetRequest` session rules enforcing the lists in `tabs`: every request
    /// to a denied site is blocked (pages, frames, scripts, images, fetches, beacons, sockets);
    /// with an allow list, pages outside it too (their scripts and images may come from anywhere).
    pub fn blocking_rules(&self, tabs: &[i32]) -> Vec<Value> {
        if self.is_open() || tabs.is_empty() {
            return Vec::new();
        }
        let mut rules = Vec::new();
        let mut add = |priority: u32, action: &str, condition: Value| {
            let id = RULE_ID_BASE + rules.len() as u32;
            let mut condition = condition;
            condition["tabIds"] = json!(tabs);
            rules.push(json!({ "id": id, "priority": priority, "action": { "type": action }, "condition": condition }));
        };
        if !self.allow.is_empty() {
            add(1, "block", json!({ "resourceTypes": ["main_frame"] }));
            for rule in &self.allow {
                add(2, "allow", condition_for(rule, Some(&["main_frame"])));
            }
        }
        for rule in &self.deny {
            add(3, "block", condition_for(rule, Some(&["main_frame"])));
            // Without resource types a condition covers every type but pages.
            add(3, "block", condition_for(rule, None));
        }
        rules
    }
}

fn condition_for(rule: &Rule, types: Option<&[&str]>) -> Value {
    let mut condition = match rule {
        Rule::Domain(domain) => json!({ "requestDomains": [domain.split(':').next().unwrap_or(domain)] }),
        Rule::Prefix(prefix) => json!({ "urlFilter": format!("|{prefix}") }),
    };
    if let Some(types) = types {
        condition["resourceTypes"] = json!(types);
    }
    condition
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str], deny: &[&str]) -> SitePolicy {
        let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        SitePolicy::new(&owned(allow), &owned(deny)).unwrap()
    }

    #[test]
    fn an_empty_policy_allows_the_web_but_never_restricted_schemes() {
        let open = policy(&[], &[]);
        assert_eq!(open.check("example.com"), Ok("https://example.com/".into()));
        assert!(matches!(open.check("chrome://settings"), Err(PolicyRefusal::Url(_))));
        assert!(matches!(open.check("data:text/html,hi"), Err(PolicyRefusal::Url(_))));
        assert!(matches!(open.check("file:///etc/passwd"), Err(PolicyRefusal::Url(_))));
        assert!(open.blocking_rules(&[1]).is_empty());
    }

    #[test]
    fn deny_lists_cover_subdomains_and_url_prefixes() {
        let p = policy(&[], &["evil.test", "https://shop.test/admin"]);
        assert!(matches!(p.check("https://evil.test/x"), Err(PolicyRefusal::Denied { .. })));
        assert!(matches!(p.check("https://api.evil.test/x"), Err(PolicyRefusal::Denied { .. })));
        assert!(p.check("https://notevil.test/").is_ok());
        assert!(matches!(p.check("https://shop.test/admin/users"), Err(PolicyRefusal::Denied { .. })));
        assert!(p.check("https://shop.test/cart").is_ok());
        let refusal = p.check("https://evil.test/x").unwrap_err().to_string();
        assert_eq!(refusal, "https://evil.test/x is on the list of sites the user does not allow (\"evil.test\")");
    }

    #[test]
    fn allow_lists_admit_only_their_sites_and_deny_wins() {
        let p = policy(&["shop.test", "127.0.0.1:8080"], &["pay.shop.test"]);
        assert!(p.check("https://www.shop.test/").is_ok());
        assert!(p.check("http://127.0.0.1:8080/x").is_ok());
        assert!(matches!(p.check("http://127.0.0.1:9090/x"), Err(PolicyRefusal::NotAllowed { .. })));
        assert!(matches!(p.check("https://other.test/"), Err(PolicyRefusal::NotAllowed { .. })));
        assert!(matches!(p.check("https://pay.shop.test/"), Err(PolicyRefusal::Denied { .. })));
        assert!(p.allows_by_name("https://www.shop.test/x") && !p.allows_by_name("https://other.test/"));
        assert!(!policy(&[], &[]).allows_by_name("https://shop.test/"));
    }

    #[test]
    fn rejects_entries_that_are_not_sites() {
        assert!(SitePolicy::new(&[], &["not a site".into()]).unwrap_err().contains("neither a domain"));
    }

    #[test]
    fn writes_browser_rules_for_the_task_s_tabs() {
        let rules = policy(&["shop.test"], &["evil.test"]).blocking_rules(&[7, 9]);
        assert_eq!(rules.len(), 4);
        assert_eq!(rules[0]["action"]["type"], "block");
        assert_eq!(rules[0]["condition"]["resourceTypes"], json!(["main_frame"]));
        assert_eq!(rules[1]["action"]["type"], "allow");
        assert_eq!(rules[1]["condition"]["requestDomains"], json!(["shop.test"]));
        assert_eq!(rules[2]["priority"], 3);
        assert_eq!(rules[2]["condition"]["tabIds"], json!([7, 9]));
        assert_eq!(rules[2]["id"], RULE_ID_BASE + 2);
        assert_eq!(rules[2]["condition"]["requestDomains"], json!(["evil.test"]));
        assert_eq!(rules[2]["condition"]["resourceTypes"], json!(["main_frame"]));
        // Every other request to the denied site: frames, scripts, images, fetches, beacons.
        assert_eq!(rules[3]["condition"]["requestDomains"], json!(["evil.test"]));
        assert_eq!(rules[3]["condition"].get("resourceTypes"), None);
        assert_eq!(rules[3]["condition"]["tabIds"], json!([7, 9]));
    }
}
