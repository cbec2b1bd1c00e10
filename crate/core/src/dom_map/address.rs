//! Where a link leads, as the model reads it: short. The page's own links as paths, other sites'
//! as host and path (no scheme, no `www.`), tracking parameters left out, opaque ids (hashes,
//! long numbers, encoded addresses) and long tails cut with `…`. The full address stays with the
//! element ([`super::MapElement::link`]): clicking follows it, and an address the model types
//! back is mapped to it ([`super::PageMap::full_address`]). Links whose short forms meet get a
//! `~` and a few characters of their full address's hash, so that they stay apart.

use url::Url;

/// Longest path shown; longer ones are cut at a segment with `…`.
const MAX_PATH_CHARS: usize = 48;
/// Longest query shown; parameters past it are cut with `…`.
const MAX_QUERY_CHARS: usize = 32;
/// Longest parameter value or fragment shown whole.
const MAX_VALUE_CHARS: usize = 24;
/// Cut marker.
const CUT: &str = "…";

/// Query parameters that only tell a site where a visitor came from.
const TRACKING: &[&str] = &[
    "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "igshid", "mc_cid", "mc_eid", "_ga", "_gl",
    "ref_src", "ref_url", "spm", "scm", "iid", "smid", "cmpid", "ncid", "ocid", "sr_share",
];

/// The link as shown, relative to the page at `top`; `None` when the address says nothing a
/// model can use (a `javascript:` link).
pub fn shown(target: &Url, top: Option<&Url>) -> Option<String> {
    match target.scheme() {
        "http" | "https" => {}
        "javascript" => return None,
        _ => return Some(crate::text::truncate_chars(target.as_str(), MAX_PATH_CHARS)),
    }
    let same_origin = top.is_some_and(|top| top.origin() == target.origin());
    let same_document =
        same_origin && top.is_some_and(|top| top.path() == target.path() && top.query() == target.query());
    if same_document {
        if let Some(fragment) = target.fragment().filter(|f| !f.is_empty()) {
            return Some(format!("#{}", short_value(fragment)));
        }
    }
    let mut out = String::new();
    if !same_origin {
        let host = target.host_str().unwrap_or_default();
        out.push_str(host.strip_prefix("www.").unwrap_or(host));
        if let Some(port) = target.port() {
            out.push_str(&format!(":{port}"));
        }
    }
    out.push_str(&short_path(target.path()));
    if let Some(query) = target.query().map(short_query).filter(|q| !q.is_empty()) {
        out.push('?');
        out.push_str(&query);
    }
    Some(out)
}

/// The path with opaque segments as `…`, cut at a segment past [`MAX_PATH_CHARS`].
fn short_path(path: &str) -> String {
    let mut out = String::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in segments.iter().enumerate() {
        let shown = if is_opaque(segment) { CUT } else { segment };
        if out.chars().count() + shown.chars().count() + 1 > MAX_PATH_CHARS {
            if out.is_empty() {
                out.push('/');
                out.push_str(&crate::text::truncate_chars(shown, MAX_PATH_CHARS));
            } else if i < segments.len() {
                out.push('/');
                out.push_str(CUT);
            }
            return out;
        }
        out.push('/');
        out.push_str(shown);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// The parameters that say something, opaque values as `…`, cut with `…` past [`MAX_QUERY_CHARS`].
fn short_query(query: &str) -> String {
    let mut out = String::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("utm_") || TRACKING.contains(&lower.as_str()) {
            continue;
        }
        let shown = if pair.contains('=') { format!("{name}={}", short_value(value)) } else { short_value(name) };
        if out.chars().count() + shown.chars().count() > MAX_QUERY_CHARS {
            if !out.is_empty() {
                out.push('&');
            }
            out.push_str(CUT);
            return out;
        }
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(&shown);
    }
    out
}

/// A parameter value or fragment: `…` when opaque or long.
fn short_value(value: &str) -> String {
    if is_opaque(value) || value.chars().count() > MAX_VALUE_CHARS {
        CUT.to_string()
    } else {
        value.to_string()
    }
}

/// An id a person does not read: a long number, a hash or token (letters mixed with digits),
/// or an encoded value (an address passed along).
fn is_opaque(part: &str) -> bool {
    let len = part.chars().count();
    let digits = part.chars().filter(char::is_ascii_digit).count();
    let letters = part.chars().filter(|c| c.is_alphabetic()).count();
    let encoded = part.matches('%').count() >= 2;
    let hex = len >= 12 && part.chars().all(|c| c.is_ascii_hexdigit()) && digits > 0;
    (digits == len && len >= 9) || (len >= 16 && digits >= 3 && letters > 0 && !part.contains('-')) || hex || encoded
}

/// `~` and four characters of `full`'s hash, to tell apart links whose short forms meet.
pub fn distinguishing_suffix(full: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in full.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = String::from("~");
    for _ in 0..4 {
        out.push(char::from(DIGITS[(hash % 36) as usize]));
        hash /= 36;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(target: &str) -> Option<String> {
        let top = Url::parse("https://shop.test/mugs?page=1").unwrap();
        shown(&Url::parse(target).unwrap(), Some(&top))
    }

    #[test]
    fn the_page_s_own_links_are_paths_and_other_sites_host_and_path() {
        assert_eq!(show("https://shop.test/cart?x=1").as_deref(), Some("/cart?x=1"));
        assert_eq!(show("https://shop.test/").as_deref(), Some("/"));
        assert_eq!(show("http://www.news.test/world/africa/").as_deref(), Some("news.test/world/africa/"));
        assert_eq!(show("http://127.0.0.1:8080/a").as_deref(), Some("127.0.0.1:8080/a"));
        assert_eq!(show("https://shop.test/mugs?page=1#reviews").as_deref(), Some("#reviews"));
        assert_eq!(show("https://shop.test/about#team").as_deref(), Some("/about"));
        assert_eq!(show("mailto:ada@example.org").as_deref(), Some("mailto:ada@example.org"));
        assert_eq!(show("javascript:void(0)"), None);
    }

    #[test]
    fn tracking_parameters_are_left_out_and_opaque_ids_cut() {
        assert_eq!(
            show("https://shop.test/mug?utm_source=x&utm_medium=y&color=blue").as_deref(),
            Some("/mug?color=blue")
        );
        assert_eq!(show("https://shop.test/mug?fbclid=IwAR3x").as_deref(), Some("/mug"));
        assert_eq!(show("https://shop.test/p/9f86d081884c7d659a2feaa0c55ad015/view").as_deref(), Some("/p/…/view"));
        assert_eq!(show("https://shop.test/o?session=a8F3kQ9zLm2xP7vR&id=42").as_deref(), Some("/o?session=…&id=42"));
        assert_eq!(show("https://shop.test/o?n=12345678901").as_deref(), Some("/o?n=…"));
        assert_eq!(
            show("https://shop.test/login?redirect=https%3A%2F%2Fshop.test%2Fa").as_deref(),
            Some("/login?redirect=…")
        );
        // Words stay: a slug, a short number, a search.
        assert_eq!(
            show("https://shop.test/mugs/blue-enamel-mug/42?q=big+mug").as_deref(),
            Some("/mugs/blue-enamel-mug/42?q=big+mug")
        );
    }

    #[test]
    fn long_paths_and_queries_are_cut_with_a_marker() {
        let long = "https://news.test/information-technology/2015/04/just-released-minecraft-exploit-makes-it-easy/";
        assert_eq!(show(long).as_deref(), Some("news.test/information-technology/2015/04/…"));
        let query = "https://shop.test/s?q=mugs&sort=price&page=2&view=grid&size=large";
        assert_eq!(show(query).as_deref(), Some("/s?q=mugs&sort=price&page=2&…"));
    }

    #[test]
    fn suffixes_differ_for_different_addresses() {
        let a = distinguishing_suffix("https://shop.test/s?q=mugs&sort=price&page=2&view=grid&size=large");
        let b = distinguishing_suffix("https://shop.test/s?q=mugs&sort=price&page=2&view=grid&size=small");
        assert_ne!(a, b);
        assert_eq!(a.chars().count(), 5);
    }
}
