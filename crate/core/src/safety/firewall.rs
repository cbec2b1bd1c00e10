//! The browser firewall of the task's tabs: no page of a site outside those the core let the
//! task reach loads in them. The core judges every address it opens, every link it follows and
//! every form it submits; what the browser would load without it (a server's redirect, a page's
//! script setting `location`, a meta refresh) is blocked by the browser itself
//! (`declarativeNetRequest` session rules on the task's tabs), and the core then judges that hop
//! as it judges its own navigations (`Navigator::pass_hop`).

use super::{SearchPage, Site, SitePolicy};
use serde_json::{json, Value};

/// Above the site lists' "block every page" of an allow list (1) and below their deny rules (3):
/// an allow list and a deny list still win.
const ALLOW_PRIORITY: u32 = 2;
const BLOCK_PRIORITY: u32 = 1;

/// The sites whose pages may load in the task's tabs, and the search engine's results.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Firewall {
    pub sites: Vec<Site>,
    pub search: Option<SearchPage>,
}

impl Firewall {
    /// Whether a page at `url` may load.
    pub fn admits(&self, url: &str) -> bool {
        let Ok(parsed) = url::Url::parse(url) else { return false };
        if !matches!(parsed.scheme(), "http" | "https") {
            return true;
        }
        let Some(site) = Site::of_url(&parsed) else { return false };
        self.sites.iter().any(|allowed| allowed.covers(&site))
            || self.search.as_ref().is_some_and(|search| search.holds(&parsed))
    }

    /// The session rules for `tabs`: every page blocked, but those of the sites admitted (the
    /// ones the site lists allow).
    pub fn rules(&self, tabs: &[i32], policy: &SitePolicy) -> Vec<Value> {
        if tabs.is_empty() {
            return Vec::new();
        }
        let rule = |priority: u32, action: &str, mut condition: Value| {
            condition["tabIds"] = json!(tabs);
            // A link's ping goes where the page says, as a page would.
            condition["resourceTypes"] = json!(["main_frame", "ping"]);
            json!({ "id": 1, "priority": priority, "action": { "type": action }, "condition": condition })
        };
        let mut rules = vec![rule(BLOCK_PRIORITY, "block", json!({}))];
        for site in &self.sites {
            if policy.check(&format!("http://{site}/")).is_ok() {
                rules.push(rule(ALLOW_PRIORITY, "allow", site_condition(site)));
            }
        }
        if let Some(search) = &self.search {
            rules.push(rule(ALLOW_PRIORITY, "allow", json!({ "urlFilter": format!("|{}", search.prefix()) })));
        }
        rules
    }
}

/// A site and its subdomains, on its own port only (`requestDomains` knows no ports; an address
/// on its scheme's port has none written, so the host ends at the path).
fn site_condition(site: &Site) -> Value {
    match site.port() {
        None => json!({ "urlFilter": format!("||{}/", site.host()) }),
        Some(port) => json!({ "urlFilter": format!("||{}:{port}/", site.host()) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn firewall() -> Firewall {
        Firewall {
            sites: vec![Site::of("https://shop.test/").unwrap(), Site::of("http://localhost:8123/").unwrap()],
            search: SearchPage::of("https://www.google.com/search?q="),
        }
    }

    #[test]
    fn admits_the_task_s_sites_and_the_search_results_only() {
        let firewall = firewall();
        assert!(firewall.admits("https://shop.test/cart"));
        assert!(firewall.admits("https://www.shop.test/cart"), "a subdomain");
        assert!(firewall.admits("http://localhost:8123/a"));
        assert!(!firewall.admits("http://localhost:8124/a"), "another port");
        assert!(!firewall.admits("https://shop.test:8443/"), "a port the site did not name");
        assert!(firewall.admits("https://www.google.com/search?q=mugs"));
        assert!(!firewall.admits("https://sites.google.com/view/x"));
        assert!(!firewall.admits("https://collector.test/?e=ada"));
        assert!(!firewall.admits("not an address"));
        assert!(firewall.admits("about:blank"), "no request leaves");
    }

    #[test]
    fn writes_browser_rules_for_the_task_s_tabs_that_the_site_lists_still_override() {
        let rules = firewall().rules(&[7], &SitePolicy::default());
        assert_eq!(rules.len(), 4);
        assert_eq!(rules[0]["action"]["type"], "block");
        assert_eq!(rules[0]["condition"]["resourceTypes"], json!(["main_frame", "ping"]));
        assert_eq!(rules[0]["condition"]["tabIds"], json!([7]));
        assert_eq!(rules[1]["condition"]["urlFilter"], "||shop.test/");
        assert_eq!(rules[2]["condition"]["urlFilter"], "||localhost:8123/");
        assert_eq!(rules[3]["condition"]["urlFilter"], "|https://www.google.com/search");
        // A site the allow list leaves out stays blocked.
        let allow = SitePolicy::new(&["shop.test".into()], &[]).unwrap();
        assert_eq!(firewall().rules(&[7], &allow).len(), 3);
        assert!(firewall().rules(&[], &SitePolicy::default()).is_empty());
    }
}
