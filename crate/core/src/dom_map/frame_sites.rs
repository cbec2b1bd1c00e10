//! Which site each frame of a page belongs to: what is typed or submitted in a frame goes to the
//! site of its document's real origin, which a frame's address does not always tell (`about:srcdoc`,
//! `about:blank` and `blob:` documents inherit their creator's origin; `data:` and sandboxed
//! ones have an opaque origin).

use super::raw::RawPage;
use super::stitch::PlacedNode;
use crate::safety::Site;
use rustc_hash::FxHashMap as HashMap;

/// What the map shows for a frame whose site cannot be known.
const UNKNOWN_SITE: &str = "unknown";
/// The serialization of an opaque origin: unlike any other, even another `"null"`.
const OPAQUE_ORIGIN: &str = "null";

/// The site of a frame that is not the page's own.
#[derive(Clone)]
pub struct FrameSite {
    /// Shown as `site=`: the site's name, or `unknown`.
    pub shown: String,
    /// An address on that site, for the guard; for an unknown site, the frame's own address,
    /// which names no site (the guard then counts it as one not chosen).
    pub url: String,
}

/// The sites of the page's frames of other sites, each document's found once (a page's
/// elements are thousands, its documents a few).
pub struct FrameSites<'a> {
    top: &'a RawPage,
    top_site: Option<Site>,
    by_doc: HashMap<&'a str, Option<FrameSite>>,
}

impl<'a> FrameSites<'a> {
    pub fn new(top: &'a RawPage) -> FrameSites<'a> {
        FrameSites { top, top_site: Site::of(&top.url), by_doc: HashMap::default() }
    }

    /// The site of the document `placed` lives in, when it is not the page's.
    pub fn of(&mut self, placed: &PlacedNode<'a>) -> Option<FrameSite> {
        if placed.doc == self.top.doc || self.is_top_origin(placed.origin) {
            return None;
        }
        let top_site = &self.top_site;
        self.by_doc
            .entry(placed.doc)
            .or_insert_with(|| match site_of(placed.url, placed.origin) {
                (Some(site), _) if top_site.as_ref().is_some_and(|top| top.same_as(&site)) => None,
                (Some(site), url) => Some(FrameSite { shown: site.to_string(), url }),
                (None, url) => Some(FrameSite { shown: UNKNOWN_SITE.into(), url }),
            })
            .clone()
    }

    /// `origin` is the top page's own (a `file://` page's frames have no site to compare).
    fn is_top_origin(&self, origin: &str) -> bool {
        !origin.is_empty() && origin != OPAQUE_ORIGIN && origin == self.top.origin
    }
}

/// The site of the document at `url` with the serialized `origin` (None: it cannot be known),
/// and an address on it. An opaque origin (`"null"`), or none (a record from before the sensor
/// sent it), leaves the address to tell: a sandboxed document loaded from a server is that
/// server's; one a page wrote (`data:`, `about:srcdoc`) has no site in its address.
fn site_of(url: &str, origin: &str) -> (Option<Site>, String) {
    if origin.is_empty() || origin == OPAQUE_ORIGIN {
        return (Site::of(url), url.to_string());
    }
    match Site::of(origin) {
        Some(site) => (Some(site), address_on(origin, url)),
        None => (None, url.to_string()),
    }
}

/// The document's own address when it names a host on `origin`, else the origin's root (for an
/// `about:srcdoc`, `about:blank` or `blob:` document of that origin).
fn address_on(origin: &str, url: &str) -> String {
    let on_origin =
        url::Url::parse(url).is_ok_and(|parsed| parsed.has_host() && parsed.origin().ascii_serialization() == origin);
    if on_origin {
        url.to_string()
    } else {
        format!("{origin}/")
    }
}
