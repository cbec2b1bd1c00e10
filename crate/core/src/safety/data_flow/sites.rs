//! What a site is, and the search engine's results page: the pieces the task's sites (its origin
//! set) are made of. The set itself is [`super::DataFlow::is_chosen`]'s: the site the task
//! started on, the sites the user's words name, the allow list, and the sites the user allowed.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How much of an address with no site of its own a question shows.
const UNKNOWN_SHOWN_CHARS: usize = 40;

/// A host, with its port when the URL names one; `www.` does not count.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Site {
    pub(super) host: String,
    port: Option<u16>,
}

impl Site {
    pub fn of(url: &str) -> Option<Site> {
        Site::of_url(&url::Url::parse(url).ok()?)
    }

    /// Stands for where an act lands when no site can be known there (an opaque frame, an
    /// address without a host): shown as the address's beginning; never chosen.
    pub(super) fn unknown(to: &str) -> Site {
        Site { host: crate::text::truncate_chars(to, UNKNOWN_SHOWN_CHARS), port: None }
    }

    /// The site of an address already parsed.
    pub(crate) fn of_url(url: &url::Url) -> Option<Site> {
        Some(Site::new(url.host_str()?, url.port()))
    }

    pub(super) fn new(host: &str, port: Option<u16>) -> Site {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let host = match host.strip_prefix("www.") {
            Some(rest) if rest.contains('.') => rest.to_string(),
            _ => host,
        };
        Site { host, port }
    }

    /// `other` is this site or one of its subdomains, on this site's port when it names one.
    pub(crate) fn covers(&self, other: &Site) -> bool {
        let host = other.host == self.host || other.host.ends_with(&format!(".{}", self.host));
        // A site named without a port is on its scheme's own: another port is another server.
        host && self.port == other.port
    }

    /// One site covers the other (data read on `shop.test` may go back to `www.shop.test`).
    pub fn same_as(&self, other: &Site) -> bool {
        self.covers(other) || other.covers(self)
    }

    pub fn host(&self) -> &str {
        &self.host
    }

    pub fn port(&self) -> Option<u16> {
        self.port
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.port {
            Some(port) => write!(f, "{}:{port}", self.host),
            None => write!(f, "{}", self.host),
        }
    }
}

/// The search engine of the settings, as its results page: the task's words may go there as a
/// query. Only that page counts, never the engine's whole domain, where anyone may publish pages
/// (a `sites.` subdomain, a form service) and collect what is sent to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchPage {
    site: Site,
    path: String,
    /// The results page's address before its query, as the engine writes it.
    prefix: String,
}

impl SearchPage {
    /// The results page of `results_url` (a query's address on the engine, with any query).
    pub fn of(results_url: &str) -> Option<SearchPage> {
        let url = url::Url::parse(results_url).ok()?;
        let prefix = format!("{}{}", url.origin().ascii_serialization(), url.path());
        Some(SearchPage { site: Site::of_url(&url)?, path: url.path().to_string(), prefix })
    }

    /// `url` is a results page of the engine: its very host (`www.` aside) and its results path.
    pub fn holds(&self, url: &url::Url) -> bool {
        Site::of_url(url).is_some_and(|site| site == self.site) && url.path() == self.path
    }

    pub fn site(&self) -> &Site {
        &self.site
    }

    /// The results page's address before its query (`https://www.google.com/search`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_engine_is_its_results_page_not_its_domain() {
        let google = SearchPage::of("https://www.google.com/search?q=").unwrap();
        let holds = |url: &str| google.holds(&url::Url::parse(url).unwrap());
        assert!(holds("https://www.google.com/search?q=blue+mugs"));
        assert!(holds("https://google.com/search?q=blue+mugs"));
        assert!(!holds("https://sites.google.com/view/collector?e=ada"), "a page anyone can publish");
        assert!(!holds("https://docs.google.com/forms/d/e/1/formResponse?entry.1=ada"), "a form anyone can make");
        assert!(!holds("https://www.google.com/url?q=https://collector.test/"), "a redirect");
        assert!(!holds("https://www.google.com:8443/search?q=x"), "another port");
        let duck = SearchPage::of("https://duckduckgo.com/?q=").unwrap();
        assert!(duck.holds(&url::Url::parse("https://duckduckgo.com/?q=mugs").unwrap()));
        assert!(!duck.holds(&url::Url::parse("https://duckduckgo.com/l/?uddg=x").unwrap()));
    }
}
