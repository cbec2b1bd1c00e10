//! The search engines the `search` action can use, and the address of a query's results.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_search_urls_with_the_query_encoded() {
        assert_eq!(
            search_url(SearchEngine::DuckDuckGo, "blue mug & tea"),
            "https://duckduckgo.com/?q=blue+mug+%26+tea"
        );
        assert_eq!(search_url(SearchEngine::Google, "a/b?c"), "https://www.google.com/search?q=a%2Fb%3Fc");
        assert_eq!(search_url(SearchEngine::Bing, "x"), "https://www.bing.com/search?q=x");
    }
}
