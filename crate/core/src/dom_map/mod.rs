//! The page map: which elements of a page a person could use, indexed, and how the model reads them.
//!
//! The page-side sensor (`extension/page/sensor.js`) sends one [`RawPage`] per frame: mechanical
//! records of the elements worth recording, in document order. Everything that needs judgement
//! happens here: frames are stitched into one page, elements are judged interactive, visible and
//! reachable, text is attached to the element it labels, indices are kept stable across steps,
//! and [`serialize`] writes the compact text the model reads.

mod address;
mod compose;
mod frame_sites;
mod icon;
mod observed;
mod raw;
mod registry;
mod serialize;
mod stitch;

pub use observed::{describe, frames_of, FrameAnswer, Observation};
pub use raw::{Attrs, RawFrame, RawNode, RawPage, Viewport};
pub use registry::ElementRegistry;
pub use serialize::{elements_in_scope, serialize, MapOptions};

use crate::safety::{neutralize, Finding};
use crate::text::{lower_words, truncate_words};
use compose::{Composer, Gather};
use frame_sites::FrameSites;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Serialize;
use stitch::{stitch, PlacedNode};

/// Tags a person can operate without any script help.
const NATIVE_INTERACTIVE: &[&str] = &["a", "button", "input", "select", "textarea", "summary", "details", "option"];

/// ARIA roles that promise an interactive widget.
const INTERACTIVE_ROLES: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "switch",
    "combobox",
    "textbox",
    "searchbox",
    "slider",
    "spinbutton",
    "treeitem",
    "gridcell",
];

/// Form controls a label can name.
const LABELABLE: &[&str] = &["input", "select", "textarea", "button"];

/// Longest name kept for one element; longer text is cut at a word boundary.
const MAX_TEXT_CHARS: usize = 150;
/// Longest line of page text kept in the map (a safety bound: the token budget shortens lines
/// further when the request needs the room).
const MAX_LINE_CHARS: usize = 2000;
/// Most options of a select listed for the model.
const MAX_OPTIONS_SHOWN: usize = 20;

/// Where an element lives, so that an operation reaches exactly it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ElementRef {
    #[serde(rename = "frame")]
    pub frame_id: i32,
    pub doc: String,
    /// The sensor's id within the document.
    pub id: u32,
}

/// One interactive element as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct MapElement {
    /// Stable for as long as the element lives in its document; never reused within a task.
    pub index: u32,
    pub target: ElementRef,
    pub tag: String,
    /// Allow-listed attributes in display order.
    pub attrs: Vec<(String, String)>,
    /// The element's visible text, including that of non-interactive descendants.
    pub text: String,
    /// Identifies the element's kind and content, so that an action can refuse to act on an
    /// element that has been replaced by another one.
    pub fingerprint: u64,
    /// Appeared since the previous step's map.
    pub is_new: bool,
    /// Where the element leads, for a link: its href resolved against its document.
    pub link: Option<String>,
    /// When the element lives in a frame of another site than the page: an address on that
    /// site, where what is typed or submitted there goes; for a frame whose site cannot be known
    /// (`site=unknown`), the frame's own address, which names no site.
    pub frame_url: Option<String>,
    /// x, y, width, height in CSS pixels of the top page's viewport when the map was made (for
    /// outlining the element in the run's film).
    pub rect: [f64; 4],
}

impl MapElement {
    /// Whether `other` is in the same document (frame) as this element: an act on one lands
    /// where the other is.
    pub fn same_document(&self, other: &MapElement) -> bool {
        (self.target.frame_id, &self.target.doc) == (other.target.frame_id, &other.target.doc)
    }

    /// A short human description such as `<button> "Add to cart" [5]`, for step reports. An
    /// accessible name is preferred to the text, as it is often the more specific of the two.
    pub fn describe(&self) -> String {
        let attr = |wanted: &str| self.attrs.iter().find(|(name, _)| name == wanted).map(|(_, value)| value.as_str());
        let label = attr("aria-label")
            .or((!self.text.is_empty()).then_some(self.text.as_str()))
            .or_else(|| ["label", "placeholder", "name", "title", "alt"].into_iter().find_map(attr))
            .unwrap_or("");
        if label.is_empty() {
            format!("<{}> [{}]", self.tag, self.index)
        } else {
            format!("<{}> \"{}\" [{}]", self.tag, label, self.index)
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum LineKind {
    Element(MapElement),
    /// Visible text between elements.
    Text(String),
}

/// A line of the map, with where it is on the page (top-page viewport coordinates).
#[derive(Debug, Clone, PartialEq)]
pub struct MapLine {
    pub kind: LineKind,
    /// Number of interactive elements it is nested in.
    pub depth: usize,
    /// x, y, width, height.
    pub rect: [f64; 4],
    /// For a text line, an address on the site of the frame it is shown in, when that is another
    /// site than the page's (an element's is its own `frame_url`): what a frame of the user's
    /// site shows is read on that site, whatever page frames it.
    pub frame_url: Option<String>,
}

/// The indexed map of one page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageMap {
    pub url: String,
    pub title: String,
    pub viewport: Viewport,
    pub lines: Vec<MapLine>,
    /// What could not be included (frames that did not answer, truncation), for the model.
    pub notes: Vec<String>,
    /// Page text that tried to instruct the agent (defused in the map).
    pub warnings: Vec<Finding>,
    /// An address on the site of each frame of another site (or of none that can be known) on
    /// the page, whether or not it shows anything to act on: such a frame sees the page scroll
    /// and the pointer pass.
    pub frames: Vec<String>,
}

/// Facts about each stitched node, derived in passes over the list.
pub(super) struct Judgement {
    shown: Vec<bool>,
    /// Words a person cannot read (see [`is_camouflaged`]): left out of the map.
    unreadable: Vec<bool>,
    /// Inside a select: its options and groups.
    in_select: Vec<bool>,
    interactive: Vec<bool>,
    /// The nearest interactive ancestor.
    owner: Vec<Option<usize>>,
}

impl PageMap {
    /// Builds the map of a page from its frames' records, keeping indices stable through `registry`.
    /// Fails only when the top frame itself could not be read.
    pub fn build(frames: &[RawFrame], registry: &mut ElementRegistry) -> Result<PageMap, String> {
        let stitched = stitch(frames)?;
        let nodes = &stitched.nodes;
        let labels = LabelLinks::find(nodes);
        let judged = judge(nodes, &labels, &stitched.top.viewport);
        let label_of_control = labels.naming(&judged.interactive);
        let naming_labels: HashSet<usize> = label_of_control.values().copied().collect();
        let composer = Composer::new(nodes, &judged, &naming_labels);

        let mut defuser = Defuser::default();
        let mut label_texts: HashMap<usize, String> = HashMap::default();
        let mut lines = Vec::new();
        let mut element_lines: Vec<(usize, usize)> = Vec::new();
        let mut depth = vec![0usize; nodes.len()];
        // Text already read into a sentence or a label's name above it.
        let mut absorbed = vec![false; nodes.len()];
        let mut used = Vec::new();
        // The last text line, when it came from an inline element that the next one may continue.
        let mut open_line: Option<(usize, usize)> = None;
        let mut frame_sites = FrameSites::new(stitched.top);
        for (i, placed) in nodes.iter().enumerate() {
            if !judged.shown[i] {
                continue;
            }
            if judged.interactive[i] {
                depth[i] = judged.owner[i].map_or(0, |o| depth[o] + 1);
                element_lines.push((i, lines.len()));
                lines.push(MapLine {
                    kind: LineKind::Text(String::new()),
                    depth: depth[i],
                    rect: placed.rect,
                    frame_url: None,
                });
                open_line = None;
                continue;
            }
            let naming = naming_labels.contains(&i);
            if absorbed[i] || (judged.owner[i].is_some() && !naming) || judged.in_select[i] {
                continue; // Part of a sentence above, of its element's name, or of a select.
            }
            let gather = if naming { Gather::Name } else { Gather::Sentence };
            let text = composer.compose(i, gather, &mut used);
            for &u in &used {
                absorbed[u] = true;
            }
            used.clear();
            if gather == Gather::Name {
                label_texts.insert(i, text);
                continue;
            }
            if text.is_empty() {
                continue;
            }
            // Inline pieces side by side on one row (spans in an unrecorded block) read as one line.
            let same_doc = |p: usize| nodes[p].doc == placed.doc;
            if let Some((line, _)) = open_line.filter(|&(_, p)| same_doc(p) && continues_row(&nodes[p], placed)) {
                if let LineKind::Text(shown) = &mut lines[line].kind {
                    let joined = format!("{shown} {text}");
                    *shown = defuser.defuse(&truncate_words(&joined, MAX_LINE_CHARS));
                }
                open_line = Some((line, i));
                continue;
            }
            open_line = placed.node.inline.then_some((lines.len(), i));
            lines.push(MapLine {
                kind: LineKind::Text(defuser.defuse(&truncate_words(&text, MAX_LINE_CHARS))),
                depth: 0,
                rect: placed.rect,
                frame_url: frame_sites.of(placed).map(|site| site.url),
            });
        }

        // Controls that hold other controls are no icons.
        let mut links = Links::new(&stitched.top.url);
        let holders: HashSet<usize> =
            (0..nodes.len()).filter(|&i| judged.interactive[i]).filter_map(|i| judged.owner[i]).collect();
        let mut addresses: Vec<(usize, String)> = Vec::new();
        for (i, line) in element_lines {
            let placed = &nodes[i];
            let text = truncate_words(&composer.compose(i, Gather::Name, &mut used), MAX_TEXT_CHARS);
            used.clear();
            let text = defuser.defuse(&text);
            let label = label_of_control
                .get(&i)
                .and_then(|l| label_texts.get(l))
                .map(String::as_str)
                .or_else(|| placed.node.attr("aria-labelledby"));
            let index = registry.index_of(placed.doc, placed.node.id);
            registry.mark_shown(index);
            let target = links.resolve(placed.node, placed.url);
            let href = target.as_ref().and_then(|url| links.shown(url));
            if let (Some(_), Some(url)) = (&href, &target) {
                addresses.push((line, url.to_string()));
            }
            let mut attrs = display_attrs(placed.node, label, href);
            let frame_site = frame_sites.of(placed);
            attrs.extend(frame_site.as_ref().map(|site| ("site".to_string(), site.shown.clone())));
            if text.is_empty() && !holders.contains(&i) {
                attrs.extend(icon_hint(placed.node, &attrs));
            }
            lines[line].kind = LineKind::Element(MapElement {
                index,
                target: ElementRef { frame_id: placed.frame_id, doc: placed.doc.to_string(), id: placed.node.id },
                tag: placed.node.tag.clone(),
                attrs: attrs
                    .into_iter()
                    .map(|(name, value)| if name == "href" { (name, value) } else { (name, defuser.defuse(&value)) })
                    .collect(),
                link: http_link(target.as_ref()),
                frame_url: frame_site.map(|site| site.url),
                fingerprint: fingerprint(placed.node, &text),
                text,
                is_new: registry.is_new(index),
                rect: placed.rect,
            });
        }
        let mut frames: Vec<String> = Vec::new();
        let mut docs_seen: HashSet<&str> = HashSet::default();
        for placed in nodes.iter().filter(|placed| docs_seen.insert(placed.doc)) {
            frames.extend(frame_sites.of(placed).map(|site| site.url).filter(|url| !frames.contains(url)));
        }
        registry.finish_map(&docs_seen);
        leave_out_addresses_names_say(&mut lines);
        tell_apart(&mut lines, &addresses);
        say_texts_once(&mut lines);

        Ok(PageMap {
            url: stitched.top.url.clone(),
            title: stitched.top.title.clone(),
            viewport: stitched.top.viewport.clone(),
            lines,
            notes: dedup(stitched.notes),
            warnings: defuser.warnings,
            frames,
        })
    }

    /// The map of a single-frame page with fresh indices, for tools and tests.
    pub fn from_page(page: &RawPage) -> PageMap {
        let frames = [RawFrame { frame_id: 0, page: Ok(page.clone()) }];
        PageMap::build(&frames, &mut ElementRegistry::new()).expect("the top frame is present")
    }

    /// The interactive elements, in document order.
    pub fn elements(&self) -> impl Iterator<Item = &MapElement> {
        self.lines.iter().filter_map(|line| match &line.kind {
            LineKind::Element(element) => Some(element),
            LineKind::Text(_) => None,
        })
    }

    /// The words the page shows: its text lines, its elements' texts and the values of its fields
    /// (never where its links lead).
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.placed_texts().map(|(_, text)| text)
    }

    /// The words the page shows, each with the address of the frame of another site it is shown
    /// in (`None`: the page's own).
    pub fn placed_texts(&self) -> impl Iterator<Item = (Option<&str>, &str)> {
        self.lines.iter().flat_map(|line| match &line.kind {
            LineKind::Text(text) => vec![(line.frame_url.as_deref(), text.as_str())],
            LineKind::Element(element) => {
                let value = element.attrs.iter().find(|(name, _)| name == "value").map(|(_, value)| value.as_str());
                let frame = element.frame_url.as_deref();
                std::iter::once(element.text.as_str()).chain(value).map(|text| (frame, text)).collect()
            }
        })
    }

    /// Everything of the page the model is shown, each with its frame as [`Self::placed_texts`]:
    /// those, the page's address and title (a webmail's name the account), and its elements'
    /// attributes (a button's label, a field's placeholder, a `mailto:` link's address).
    pub fn shown_texts(&self) -> impl Iterator<Item = (Option<&str>, &str)> {
        let attributes = self.elements().flat_map(|element| {
            let frame = element.frame_url.as_deref();
            // The value is among the placed texts already.
            element.attrs.iter().filter(|(name, _)| name != "value").map(move |(_, value)| (frame, value.as_str()))
        });
        let page = [(None, self.url.as_str()), (None, self.title.as_str())];
        page.into_iter().chain(self.placed_texts()).chain(attributes)
    }

    pub fn element(&self, index: u32) -> Option<&MapElement> {
        self.elements().find(|element| element.index == index)
    }

    /// Whether `element` was wholly in view when the page was read (a viewport of unknown size
    /// counts as holding it): one out of view is scrolled to before it is acted on.
    pub fn in_view(&self, element: &MapElement) -> bool {
        let Viewport { width, height, .. } = self.viewport;
        let [x, y, w, h] = element.rect;
        width <= 0.0 || height <= 0.0 || (x >= 0.0 && y >= 0.0 && x + w <= width && y + h <= height)
    }

    /// The full address the model means when it types a link's address as this map shows it
    /// (shortened: see [`address`]), or a path or fragment of this page; `None` when `typed` is
    /// an address of its own.
    pub fn full_address(&self, typed: &str) -> Option<String> {
        let typed = typed.trim();
        let shown_as =
            |element: &&MapElement| element.attrs.iter().any(|(name, value)| name == "href" && value == typed);
        if let Some(link) = self.elements().filter(|element| element.link.is_some()).find(shown_as) {
            return link.link.clone();
        }
        if typed.starts_with(['/', '#', '?']) {
            return url::Url::parse(&self.url).ok()?.join(typed).ok().map(String::from);
        }
        None
    }
}

/// Defuses page text that addresses the agent (see `safety`), remembering what it found.
#[derive(Default)]
struct Defuser {
    warnings: Vec<Finding>,
}

impl Defuser {
    fn defuse(&mut self, text: &str) -> String {
        let (shown, finding) = neutralize(text);
        if let Some(finding) = finding.filter(|f| !self.warnings.contains(f)) {
            self.warnings.push(finding);
        }
        shown
    }
}

/// Links resolved against their documents, each document URL parsed once per map (every link of
/// a page shares one of a few bases).
struct Links<'a> {
    top: Option<url::Url>,
    bases: HashMap<&'a str, Option<url::Url>>,
}

impl<'a> Links<'a> {
    fn new(top_url: &str) -> Links<'a> {
        Links { top: url::Url::parse(top_url).ok(), bases: HashMap::default() }
    }

    /// The element's href resolved against its document, when it has one.
    fn resolve(&mut self, node: &RawNode, document_url: &'a str) -> Option<url::Url> {
        let href = node.attr("href")?;
        let base = self.bases.entry(document_url).or_insert_with(|| url::Url::parse(document_url).ok());
        base.as_ref()?.join(href).ok()
    }

    /// A resolved link as the model reads it (see [`address::shown`]).
    fn shown(&self, target: &url::Url) -> Option<String> {
        address::shown(target, self.top.as_ref())
    }
}

/// A line of page text that repeats the one before it, or only repeats the elements right after
/// it (a menu's links between separators), is left out; one that ends with the first one's words
/// (a sentence that ends in its link) loses them: the element's line says them.
fn say_texts_once(lines: &mut Vec<MapLine>) {
    for k in 0..lines.len() {
        let LineKind::Text(text) = &lines[k].kind else { continue };
        if k > 0 && matches!(&lines[k - 1].kind, LineKind::Text(before) if before == text) {
            lines[k].kind = LineKind::Text(String::new());
            continue;
        }
        let following: Vec<&str> = lines[k + 1..]
            .iter()
            .map_while(|line| match &line.kind {
                LineKind::Element(element) => Some(element.text.as_str()),
                LineKind::Text(_) => None,
            })
            .filter(|text| !text.is_empty())
            .collect();
        let Some(first) = following.first() else { continue };
        let kept = if only_these(text, &following) {
            String::new()
        } else if let Some(head) = text.strip_suffix(first).filter(|head| head.is_empty() || head.ends_with(' ')) {
            if is_separators(head) {
                String::new()
            } else {
                head.trim_end().to_string()
            }
        } else {
            continue;
        };
        lines[k].kind = LineKind::Text(kept);
    }
    lines.retain(|line| !matches!(&line.kind, LineKind::Text(text) if text.is_empty()));
}

/// Whether `text` is the `texts` in order, with nothing but separators around them.
fn only_these(text: &str, texts: &[&str]) -> bool {
    let mut rest = text;
    for part in texts {
        let Some(at) = rest.find(part) else { break };
        if !is_separators(&rest[..at]) {
            return false;
        }
        rest = &rest[at + part.len()..];
    }
    rest.len() < text.len() && is_separators(rest)
}

fn is_separators(text: &str) -> bool {
    text.chars().all(|c| !c.is_alphanumeric())
}

/// A link's address is shown only where it tells the model something its name does not: a
/// nameless link, whose address is its only clue, and links that share a name but lead to
/// different places ("Read more", "Edit"). Elsewhere the name says where the link goes, clicking
/// follows it, and `extract` reads the main content's links whole; addresses were a third of a
/// map's tokens. Only web links are left out: a `mailto:` address is what the link says.
fn leave_out_addresses_names_say(lines: &mut [MapLine]) {
    let names: Vec<Option<(String, String)>> = lines
        .iter()
        .map(|line| match &line.kind {
            LineKind::Element(element) => Some((link_name(element)?, element.link.clone()?)),
            LineKind::Text(_) => None,
        })
        .collect();
    let shared = keys_with_several_values(names.iter().flatten().map(|(name, link)| (name.clone(), link.as_str())));
    for (line, name) in lines.iter_mut().zip(&names) {
        let Some((name, _)) = name else { continue };
        if let LineKind::Element(element) = &mut line.kind {
            if !shared.contains(name) {
                element.attrs.retain(|(attr, _)| attr != "href");
            }
        }
    }
}

/// The keys that come with more than one value: names shared by links leading to different
/// places, short addresses shared by different full ones.
fn keys_with_several_values<'a>(pairs: impl Iterator<Item = (String, &'a str)>) -> HashSet<String> {
    let mut first: HashMap<String, &str> = HashMap::default();
    let mut several: HashSet<String> = HashSet::default();
    for (key, value) in pairs {
        match first.get(&key) {
            Some(&seen) if seen != value => {
                several.insert(key);
            }
            Some(_) => {}
            None => {
                first.insert(key, value);
            }
        }
    }
    several
}

/// The words a link is known by (its label, text or title), lower case; `None` when it has none.
fn link_name(element: &MapElement) -> Option<String> {
    let attr = |wanted: &str| element.attrs.iter().find(|(name, _)| name == wanted).map(|(_, value)| value.as_str());
    [attr("aria-label"), Some(element.text.as_str()), attr("label"), attr("title"), attr("alt")]
        .into_iter()
        .flatten()
        .map(|name| lower_words(name).join(" "))
        .find(|words| !words.is_empty())
}

/// Links whose short forms meet but that lead to different addresses get a suffix from their
/// full address each, so that the model tells them apart and the address it types back maps to
/// one link. `addresses`: each link's line and full address.
fn tell_apart(lines: &mut [MapLine], addresses: &[(usize, String)]) {
    let href_of = |line: &MapLine| match &line.kind {
        LineKind::Element(element) => element.attrs.iter().find(|(name, _)| name == "href").map(|(_, v)| v.clone()),
        LineKind::Text(_) => None,
    };
    let clashing = keys_with_several_values(
        addresses.iter().filter_map(|(line, full)| Some((href_of(&lines[*line])?, full.as_str()))),
    );
    for (line, full) in addresses {
        if let LineKind::Element(element) = &mut lines[*line].kind {
            if let Some((_, shown)) = element.attrs.iter_mut().find(|(name, _)| name == "href") {
                if clashing.contains(shown.as_str()) {
                    shown.push_str(&address::distinguishing_suffix(full));
                }
            }
        }
    }
}

/// An http(s) link as an absolute URL.
fn http_link(target: Option<&url::Url>) -> Option<String> {
    target.filter(|url| matches!(url.scheme(), "http" | "https")).map(url::Url::to_string)
}

fn dedup(mut notes: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::default();
    notes.retain(|note| seen.insert(note.clone()));
    notes
}

/// Decides, for every node, whether it is shown and whether it is offered as interactive.
fn judge(nodes: &[PlacedNode], labels: &LabelLinks, viewport: &Viewport) -> Judgement {
    let n = nodes.len();
    let unreadable = unreadable_texts(nodes);
    // A select lists its options itself; they are chosen through it, never one by one (even
    // when a widget has replaced the select).
    let mut in_select = vec![false; n];
    for (i, placed) in nodes.iter().enumerate() {
        in_select[i] = placed.parent.is_some_and(|p| nodes[p].node.tag == "select" || in_select[p]);
    }
    let mut hidden_above = vec![false; n];
    let mut inert = vec![false; n];
    let mut shown = vec![false; n];
    let mut strong = vec![false; n];
    for (i, placed) in nodes.iter().enumerate() {
        let node = placed.node;
        // Hiding and inertness pass to descendants; a zero size does not (children may overflow).
        if let Some(p) = placed.parent {
            hidden_above[i] = hidden_above[p] || hides_subtree(nodes[p].node);
            inert[i] = inert[p];
        }
        inert[i] |= node.inert;
        shown[i] = !hidden_above[i] && has_size(placed) && !hides_subtree(node);
        strong[i] = shown[i]
            && !inert[i]
            && !node.covered
            && !node.pass_through
            && is_enabled(node)
            && is_natively_interactive(node)
            && !is_visually_hidden(placed);
    }
    // A label stands in for a control that is hidden behind it (styled file inputs, checkboxes).
    for (&label, &control) in &labels.control_of_label {
        let node = nodes[label].node;
        let control_hidden = !shown[control] || is_visually_hidden(&nodes[control]);
        strong[label] |= control_hidden && shown[label] && !inert[label] && !node.covered;
    }
    // Script-driven candidates (listeners, pointer cursors) count where a person would click: not
    // inside a real control, and not the same box as the clickable thing they sit in.
    let weak: Vec<bool> = nodes
        .iter()
        .enumerate()
        .map(|(i, placed)| {
            let node = placed.node;
            (node.listener || node.pointer)
                && !matches!(node.tag.as_str(), "body" | "html")
                && shown[i]
                && !inert[i]
                && !node.covered
                && !node.pass_through
                && is_enabled(node)
                && !is_visually_hidden(placed)
        })
        .collect();
    let mut interactive = vec![false; n];
    let mut owner: Vec<Option<usize>> = vec![None; n];
    for (i, placed) in nodes.iter().enumerate() {
        owner[i] = placed.parent.and_then(|p| if interactive[p] { Some(p) } else { owner[p] });
        // A select lists its options itself; they are chosen through it.
        let option_of_select = in_select[i];
        let swallowed_by = |o: usize| (strong[o] && is_atomic_control(nodes[o].node)) || same_box(&nodes[o], placed);
        let nested_weak_ok = owner[i].is_none_or(|o| !swallowed_by(o));
        interactive[i] = (strong[i] && !option_of_select) || (weak[i] && !strong[i] && nested_weak_ok);
    }
    // A script-driven container around other controls stands for itself only when it shows words
    // of its own (a row that opens, a card) and is not a large part of the page: containers that
    // delegate their children's clicks are neither.
    // A label's words name its control, not the container around both.
    let mut in_label = vec![false; n];
    for (i, placed) in nodes.iter().enumerate() {
        in_label[i] = labels.control_of_label.contains_key(&i) || placed.parent.is_some_and(|p| in_label[p]);
    }
    let mut own_words = vec![false; n];
    let mut holds_controls = vec![false; n];
    for (i, placed) in nodes.iter().enumerate() {
        let Some(o) = owner[i] else { continue };
        if interactive[i] {
            holds_controls[o] = true;
        } else if shown[i] && !placed.node.text.is_empty() && !unreadable[i] && !in_label[i] {
            own_words[o] = true;
        }
    }
    let large = viewport.width * viewport.height / 4.0;
    let mut dropped = false;
    for (i, placed) in nodes.iter().enumerate() {
        let has_words = own_words[i] || (!placed.node.text.is_empty() && !unreadable[i]);
        let area = placed.rect[2] * placed.rect[3];
        if interactive[i] && weak[i] && !strong[i] && holds_controls[i] && (!has_words || (large > 0.0 && area > large))
        {
            interactive[i] = false;
            dropped = true;
        }
    }
    if dropped {
        owner = owners(nodes, &interactive);
    }
    Judgement { shown, unreadable, in_select, interactive, owner }
}

/// Which nodes' words are camouflaged, judged once per distinct colours and size (pages reuse a
/// handful of them for thousands of texts).
fn unreadable_texts(nodes: &[PlacedNode]) -> Vec<bool> {
    /// Text colour, background, font size.
    type Look<'a> = (Option<&'a str>, Option<&'a str>, Option<&'a str>);
    let mut seen: HashMap<Look, bool> = HashMap::default();
    nodes
        .iter()
        .map(|placed| {
            let node = placed.node;
            if node.text.is_empty() {
                return false;
            }
            let key = (node.ink.as_deref(), node.paper.as_deref(), node.font_size.as_deref());
            *seen.entry(key).or_insert_with(|| is_camouflaged(node))
        })
        .collect()
}

/// The nearest interactive ancestor of each node.
fn owners(nodes: &[PlacedNode], interactive: &[bool]) -> Vec<Option<usize>> {
    let mut owner: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, placed) in nodes.iter().enumerate() {
        owner[i] = placed.parent.and_then(|p| if interactive[p] { Some(p) } else { owner[p] });
    }
    owner
}

/// A control that is one click target as a whole (a button, a link, an option), as opposed to a
/// focusable region (a calendar panel with a tabindex, a grid) whose parts are clicked apart.
fn is_atomic_control(node: &RawNode) -> bool {
    match node.attr("role") {
        Some(role) => INTERACTIVE_ROLES.contains(&role),
        None => matches!(node.tag.as_str(), "a" | "button" | "input" | "select" | "textarea" | "summary" | "option"),
    }
}

/// Two boxes that are the same click target (within a few pixels).
fn same_box(a: &PlacedNode, b: &PlacedNode) -> bool {
    a.rect.iter().zip(b.rect.iter()).all(|(x, y)| (x - y).abs() <= 4.0)
}

/// An inline piece of text that continues the line of the one before it: same parent, same row.
fn continues_row(previous: &PlacedNode, next: &PlacedNode) -> bool {
    let ([_, top_a, _, height_a], [_, top_b, _, height_b]) = (previous.rect, next.rect);
    next.node.inline && previous.parent == next.parent && top_b < top_a + height_a && top_a < top_b + height_b
}

/// `icon=<name>` for a control without words or a name, from its class names and the like;
/// `icon=unnamed` when nothing names it.
fn icon_hint(node: &RawNode, attrs: &[(String, String)]) -> Option<(String, String)> {
    const NAMING: &[&str] = &["aria-label", "title", "alt", "label", "placeholder", "value", "name"];
    /// Roles of fields, which show a value rather than an icon.
    const FIELD_ROLES: &[&str] = &["combobox", "textbox", "searchbox", "listbox", "slider", "spinbutton"];
    if matches!(node.tag.as_str(), "input" | "select" | "textarea" | "iframe" | "frame")
        || node.attr("role").is_some_and(|role| FIELD_ROLES.contains(&role))
        || attrs.iter().any(|(name, _)| NAMING.contains(&name.as_str()))
    {
        return None;
    }
    let name = node.hint.as_deref().and_then(icon::icon_name).unwrap_or_else(|| "unnamed".into());
    Some(("icon".into(), name))
}

/// Text a person cannot read: the colour of its background, transparent, or microscopic. Pages
/// hide instructions for agents this way.
fn is_camouflaged(node: &RawNode) -> bool {
    const MIN_CONTRAST: f64 = 1.2;
    const MIN_FONT_PX: f64 = 4.0;
    let font_px = node.font_size.as_deref().and_then(|size| size.trim_end_matches("px").parse::<f64>().ok());
    if font_px.is_some_and(|size| size < MIN_FONT_PX) {
        return true;
    }
    let (Some(ink), Some(paper)) = (node.ink.as_deref().and_then(css_color), node.paper.as_deref().and_then(css_color))
    else {
        return false;
    };
    ink[3] < 0.1 || contrast(&ink[..3], &paper[..3]) < MIN_CONTRAST
}

/// `rgb(r, g, b)` or `rgba(r, g, b, a)` as CSS serializes computed colours.
fn css_color(text: &str) -> Option<[f64; 4]> {
    let inner = text.trim().strip_prefix("rgba(").or_else(|| text.trim().strip_prefix("rgb("))?.strip_suffix(')')?;
    let parts: Vec<f64> =
        inner.split([',', ' ', '/']).filter(|p| !p.is_empty()).map(|p| p.parse().ok()).collect::<Option<_>>()?;
    match parts[..] {
        [r, g, b] => Some([r, g, b, 1.0]),
        [r, g, b, a] => Some([r, g, b, a]),
        _ => None,
    }
}

/// The WCAG contrast ratio of two sRGB colours (1 to 21).
fn contrast(a: &[f64], b: &[f64]) -> f64 {
    let luminance = |c: &[f64]| {
        let channel = |v: f64| {
            let v = v / 255.0;
            if v <= 0.039_28 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2])
    };
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

fn has_size(placed: &PlacedNode) -> bool {
    placed.rect[2] > 0.0 && placed.rect[3] > 0.0
}

/// A control shrunk to a pixel for screen readers only (`.visually-hidden`, the native select a
/// Tom Select or Select2 widget replaces): no one can click it, though its words still name
/// things (an icon button's hidden label).
fn is_visually_hidden(placed: &PlacedNode) -> bool {
    placed.rect[2] <= 1.0 || placed.rect[3] <= 1.0
}

/// Hidden by style, by the `hidden` attribute, from assistive technology, or under another
/// element (a modal, a banner): so is all inside it.
fn hides_subtree(node: &RawNode) -> bool {
    !node.visible || node.covered || node.attr("hidden").is_some() || node.attr("aria-hidden") == Some("true")
}

fn is_enabled(node: &RawNode) -> bool {
    node.attr("disabled").is_none() && node.attr("aria-disabled") != Some("true")
}

fn is_natively_interactive(node: &RawNode) -> bool {
    match node.tag.as_str() {
        "input" if node.attr("type") == Some("hidden") => return false,
        "a" if node.attr("href").is_none() && node.attr("role").is_none() => return false,
        _ => {}
    }
    NATIVE_INTERACTIVE.contains(&node.tag.as_str())
        || node.attr("role").is_some_and(|role| INTERACTIVE_ROLES.contains(&role))
        || node.editable
        || node.attr("tabindex").and_then(|t| t.trim().parse::<i32>().ok()).is_some_and(|t| t >= 0)
        // Made to be dragged (HTML5 drag and drop): the `drag` action takes it.
        || node.attr("draggable") == Some("true")
}

/// Labels and the controls they name: `<label for=id>` or the first control inside the label.
struct LabelLinks {
    control_of_label: HashMap<usize, usize>,
}

impl LabelLinks {
    fn find(nodes: &[PlacedNode]) -> LabelLinks {
        let mut label_ancestor: Vec<Option<usize>> = vec![None; nodes.len()];
        let mut by_id: HashMap<(&str, &str), usize> = HashMap::default();
        let mut first_control: HashMap<usize, usize> = HashMap::default();
        for (i, placed) in nodes.iter().enumerate() {
            if let Some(p) = placed.parent {
                label_ancestor[i] = if nodes[p].node.tag == "label" { Some(p) } else { label_ancestor[p] };
            }
            if LABELABLE.contains(&placed.node.tag.as_str()) {
                if let Some(id) = placed.node.attr("id") {
                    by_id.entry((placed.doc, id)).or_insert(i);
                }
                if let Some(label) = label_ancestor[i] {
                    first_control.entry(label).or_insert(i);
                }
            }
        }
        let control_of_label = nodes
            .iter()
            .enumerate()
            .filter(|(_, placed)| placed.node.tag == "label")
            .filter_map(|(label, placed)| {
                let by_for = placed.node.attr("for").and_then(|id| by_id.get(&(placed.doc, id)).copied());
                Some((label, by_for.or_else(|| first_control.get(&label).copied())?))
            })
            .collect();
        LabelLinks { control_of_label }
    }

    /// Labels whose text becomes the name of an offered control (and is not shown on its own).
    fn naming(&self, interactive: &[bool]) -> HashMap<usize, usize> {
        self.control_of_label
            .iter()
            .filter(|(&label, &control)| interactive[control] && !interactive[label])
            .map(|(&label, &control)| (control, label))
            .collect()
    }
}

/// Attributes that help a model decide, in a fixed order; live state replaces the markup's.
/// `href` is the link as it is to be shown (see [`Links::shown`]).
fn display_attrs(node: &RawNode, label: Option<&str>, href: Option<String>) -> Vec<(String, String)> {
    const SHOWN: &[(&str, &str)] = &[
        ("role", "role"),
        ("type", "type"),
        ("name", "name"),
        ("placeholder", "placeholder"),
        ("aria-label", "aria-label"),
        ("title", "title"),
        ("alt", "alt"),
        ("aria-expanded", "expanded"),
        ("aria-checked", "checked"),
        ("aria-selected", "selected"),
        ("aria-pressed", "pressed"),
        ("aria-haspopup", "haspopup"),
        ("aria-valuenow", "value"),
        ("href", "href"),
        // What can be dragged (dnd-kit says "sortable" or "draggable").
        ("aria-roledescription", "roledescription"),
        ("draggable", "draggable"),
    ];
    let mut attrs: Vec<(String, String)> = Vec::new();
    if let Some(label) = label.map(str::trim).filter(|l| !l.is_empty()) {
        attrs.push(("label".into(), truncate_words(label, MAX_TEXT_CHARS)));
    }
    for &(source, shown) in SHOWN {
        let Some(value) = node.attr(source).map(str::trim).filter(|v| !v.is_empty()) else { continue };
        if source == "type" && node.tag == "button" && value == "button" {
            continue; // Says nothing a model can use.
        }
        if source == "draggable" && value != "true" {
            continue; // Pictures kept from being dragged away.
        }
        let value = if source == "href" {
            let Some(shown) = href.clone() else { continue }; // Leads nowhere a model can use.
            shown
        } else {
            truncate_words(value, MAX_TEXT_CHARS)
        };
        attrs.push((shown.to_string(), value));
    }
    // A password is never shown; a checkbox's or radio's value is markup, not state.
    let value_hidden = matches!(node.attr("type"), Some("password" | "checkbox" | "radio"));
    if let Some(value) = node.value.as_deref().filter(|v| !v.is_empty() && !value_hidden) {
        // A field's live value is the one to show, not the aria-valuenow its script last wrote.
        attrs.retain(|(name, _)| name != "value");
        attrs.push(("value".into(), truncate_words(value, MAX_TEXT_CHARS)));
    }
    attrs.extend(number_bounds(node));
    if node.attr("multiple").is_some() || node.attr("aria-multiselectable") == Some("true") {
        attrs.push(("multiple".into(), "true".into()));
    }
    if node.checked == Some(true) {
        attrs.push(("checked".into(), "true".into()));
    }
    if let Some(options) = node.options.as_ref().filter(|o| !o.is_empty()) {
        let mut listed: Vec<&str> = options.iter().take(MAX_OPTIONS_SHOWN).map(String::as_str).collect();
        let more = options.len().saturating_sub(MAX_OPTIONS_SHOWN);
        let extra = format!("+{more} more");
        if more > 0 {
            listed.push(&extra);
        }
        attrs.push(("options".into(), listed.join("|")));
    }
    attrs
}

/// A slider's, spinner's or number field's bounds and step (`min`, `max`, `step`), from the input's
/// own attributes or the ARIA ones, so that a model knows the values it can set.
fn number_bounds(node: &RawNode) -> Vec<(String, String)> {
    let numeric = matches!(node.attr("role"), Some("slider" | "spinbutton"))
        || (node.tag == "input" && matches!(node.attr("type"), Some("range" | "number")));
    if !numeric {
        return Vec::new();
    }
    let first = |names: &[&str]| names.iter().find_map(|name| node.attr(name)).map(str::trim).filter(|v| !v.is_empty());
    [("min", first(&["min", "aria-valuemin"])), ("max", first(&["max", "aria-valuemax"])), ("step", first(&["step"]))]
        .into_iter()
        .filter_map(|(name, value)| Some((name.to_string(), truncate_words(value?, MAX_TEXT_CHARS))))
        .collect()
}

/// The attributes that, with its tag and text, identify an element (its fingerprint). Each is
/// shown in the map under its own name when the element has it.
pub const IDENTIFYING_ATTRS: [&str; 6] = ["type", "name", "role", "href", "aria-label", "placeholder"];

/// FNV-1a over the element's tag, identifying attributes and text.
fn fingerprint(node: &RawNode, text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |s: &str| {
        for byte in s.bytes().chain(std::iter::once(0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    feed(&node.tag);
    for name in IDENTIFYING_ATTRS {
        feed(node.attr(name).unwrap_or(""));
    }
    feed(text);
    hash
}

#[cfg(test)]
pub(crate) mod tests;
