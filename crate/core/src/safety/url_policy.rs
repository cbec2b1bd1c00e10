//! Which URLs the agent may open at all: http(s) only, and not the Chrome Web Store.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_urls_and_refuses_restricted_ones() {
        assert_eq!(normalize_url("example.com/a?b=1"), Ok("https://example.com/a?b=1".into()));
        assert_eq!(normalize_url("http://127.0.0.1:8080/x"), Ok("http://127.0.0.1:8080/x".into()));
        assert_eq!(normalize_url("chrome://settings"), Err(UrlRefusal::RestrictedScheme("chrome".into())));
        assert_eq!(normalize_url("javascript:alert(1)"), Err(UrlRefusal::RestrictedScheme("javascript".into())));
        assert_eq!(normalize_url("https://chromewebstore.google.com/detail/x"), Err(UrlRefusal::WebStore));
        assert!(matches!(normalize_url("not a url"), Err(UrlRefusal::Invalid(_))));
    }
}
