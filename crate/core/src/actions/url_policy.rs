//! Which URLs the agent may open, and the search engines it can use.

use crate::i18n::Text;
use crate::text;
use std::fmt;
use url::Url;

#[derive(Debug, Clone, PartialEq)]
pub enum UrlRefusal {
    Invalid(String),
    RestrictedScheme(String),
    WebStore,
}

impl fmt::Display for UrlRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().english())
    }
}

impl UrlRefusal {
    /// Why the address cannot be opened, as part of a sentence.
    pub fn text(&self) -> Text {
        match self {
            UrlRefusal::Invalid(url) => text!("core_url_invalid", url),
            UrlRefusal::RestrictedScheme(scheme) => text!("core_url_restricted_scheme", scheme),
            UrlRefusal::WebStore => text!("core_url_web_store"),
        }
    }
}

/// Turns what the model wrote into an http(s) URL, adding `https://` to a bare host name.
pub fn normalize_url(input: &str) -> Result<String, UrlRefusal> {
    let input = input.trim();
    let parsed = match Url::parse(input) {
        Ok(url) => url,
        Err(url::ParseError::RelativeUrlWithoutBase) if looks_like_host(input) => {
            Url::parse(&format!("https://{input}")).map_err(|_| UrlRefusal::Invalid(input.to_string()))?
        }
        Err(_) => return Err(UrlRefusal::Invalid(input.to_string())),
    };
    match parsed.scheme() {
        "http" | "https" => {}
        scheme => return Err(UrlRefusal::RestrictedScheme(scheme.to_string())),
    }
    let host = parsed.host_str().unwrap_or("");
    if host == "chromewebstore.google.com" || (host == "chrome.google.com" && parsed.path().starts_with("/webstore")) {
        return Err(UrlRefusal::WebStore);
    }
    Ok(parsed.to_string())
}

fn looks_like_host(input: &str) -> bool {
    let host = input.split(['/', '?', '#']).next().unwrap_or("");
    !host.is_empty() && !input.contains(' ') && (host.contains('.') || host.starts_with("localhost"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchEngine {
    #[default]
    DuckDuckGo,
    Google,
    Bing,
}

/// The results page of `query` on `engine`, the query URL-encoded.
pub fn search_url(engine: SearchEngine, query: &str) -> String {
    let encoded: String = url::form_urlencoded::byte_serialize(query.trim().as_bytes()).collect();
    match engine {
        SearchEngine::DuckDuckGo => format!("https://duckduckgo.com/?q={encoded}"),
        SearchEngine::Google => format!("https://www.google.com/search?q={encoded}"),
        SearchEngine::Bing => format!("https://www.bing.com/search?q={encoded}"),
    }
}
