//! Nothing of the user's leaves for a place the user did not choose. Before the agent opens a
//! page, opens a tab, follows a link, submits a form or types into a page, what that would send
//! (the URL's host, path, query and fragment, the form's fields, the typed text) is compared with
//! the data of the task's conversation: the user's tasks, the values typed, the secrets, what was
//! read on pages of other sites, and the e-mail addresses, numbers, codes, names and postal
//! addresses the conversation holds. Matching sees through URL encoding, base64, hex, case and
//! data split across parameters. Data bound for a site the user did not choose waits for the
//! user's approval; a secret bound for a site outside its list is never sent.
//!
//! The sites the user chose: the one the task started on, those the user's tasks name, those on
//! the allow list, and those the user allowed during the task (an approved flow, a confirmed plan).
//!
//! Matching data in every encoding is a race the defender loses (a fooled model can spell data
//! out in words, reverse it, split it over two navigations), so the sinks are guarded too: what
//! the agent wrote itself and would send to a site the user did not choose waits for the user as
//! well, whatever it holds. The agent wrote an address it opens unless a page offered that very
//! address (a link, a page's own address, a URL in its text) or it is a bare site known to the
//! task; it wrote every text it types; it wrote a form's fields that hold what it typed. The
//! search engine of the settings takes the agent's queries without asking.

mod readings;
mod scan;
mod sites;

pub use scan::PageScans;
pub use sites::{SearchPage, Site};

use super::{mentioned_sites, Secrets, SitePolicy};
use crate::i18n::{Arg, Message, Text};
use crate::text;
use crate::text::lower_words;
use readings::{compact, Part, Readings};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Words in a row from the conversation that make a phrase worth asking about; fewer are the
/// common words every search shares.
const PHRASE_WORDS: usize = 5;
/// ...and the letters they need together.
const PHRASE_MIN_CHARS: usize = 16;
/// Values shorter than this (letters and digits) are not followed: they match too much.
const MIN_KEY_CHARS: usize = 6;
/// Codes and secrets are followed from this length.
const MIN_CODE_CHARS: usize = 4;
/// A whole typed value is followed from this length.
const MIN_TYPED_CHARS: usize = 5;
/// What is remembered from pages and typing, the oldest going first.
const MAX_NOTED: usize = 400;
const MAX_PASSAGES: usize = 40;
/// Longest passage kept for phrases.
const MAX_PASSAGE_CHARS: usize = 4000;
/// How much of a flow's data the question names.
const MAX_NAMED: usize = 3;
/// Addresses offered by pages and sites known to the task, the oldest going first.
const MAX_OFFERED: usize = 2000;
const MAX_KNOWN_SITES: usize = 400;
/// Texts the agent typed, remembered to recognise them in a form it submits.
const MAX_WRITTEN: usize = 100;
/// How much of what the agent wrote a question shows.
const MAX_WRITTEN_SHOWN: usize = 120;
/// A written value shorter than this is recognised in a form field only as the whole field.
const MIN_WRITTEN_INSIDE: usize = 6;

/// What a piece of data is, for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Email,
    Number,
    Code,
    Name,
    Address,
    /// A value typed into a page.
    Value,
    /// Words in a row.
    Words,
    Secret,
    /// Text the agent wrote itself (an address, typed words, a form it filled): it may hold the
    /// user's data in a form no matching can read.
    Written,
    /// A file the user attached to the task (its bytes are the user's, whatever they hold).
    File,
    /// A screenshot of a page the model was shown: what it holds no check can read.
    Picture,
}

impl Kind {
    fn noun(self) -> Text {
        match self {
            Kind::Email => text!("core_data_email"),
            Kind::Number => text!("core_data_number"),
            Kind::Code => text!("core_data_code"),
            Kind::Name => text!("core_data_name"),
            Kind::Address => text!("core_data_address"),
            Kind::Value => text!("core_data_value"),
            Kind::Words => text!("core_data_words"),
            Kind::Secret => text!("core_data_secret"),
            Kind::Written => text!("core_data_written"),
            Kind::File => text!("core_data_file"),
            Kind::Picture => text!("core_data_picture"),
        }
    }
}

/// Where a piece of data came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The user's task (or a follow-up).
    Task,
    /// The rest of the conversation: the agent's notes and results.
    Conversation,
    /// Typed into a page of this site.
    Typed(Site),
    /// Read on a page of this site.
    Page(Site),
    /// The user's secret of this name.
    Secret(String),
    /// The agent itself.
    Agent,
    /// The user attached it to the task.
    Attached,
}

impl Source {
    fn describe(&self) -> Text {
        match self {
            Source::Task => text!("core_data_from_task"),
            Source::Conversation => text!("core_data_from_conversation"),
            Source::Typed(site) => text!("core_data_typed_on", site.to_string()),
            Source::Page(site) => text!("core_data_read_on", site.to_string()),
            Source::Secret(name) => text!("core_data_your_secret", name),
            Source::Agent => text!("core_data_by_agent"),
            Source::Attached => text!("core_data_you_attached"),
        }
    }

    /// The site the data already belongs to: it may go back there.
    fn site(&self) -> Option<&Site> {
        match self {
            Source::Typed(site) | Source::Page(site) => Some(site),
            _ => None,
        }
    }
}

/// A piece of the user's data being followed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Item {
    kind: Kind,
    /// As the user would recognise it.
    shown: String,
    /// Letters and digits only, lower case: what is looked for.
    key: String,
    source: Source,
    /// Seen, but not followed (a page's unlabelled number): it only shows where a detail the agent
    /// wrote down came from.
    #[serde(default)]
    quiet: bool,
    /// Read in a frame of another site, the site of the page that showed it: what a page of the
    /// user's shows is theirs, whoever's frame shows it (their account widget on another host).
    #[serde(default)]
    shown_on: Option<Site>,
}

impl Item {
    fn new(kind: Kind, shown: &str, source: Source) -> Option<Item> {
        let key = compact(shown);
        let min = match kind {
            Kind::Code | Kind::Secret => MIN_CODE_CHARS,
            Kind::Value => MIN_TYPED_CHARS,
            _ => MIN_KEY_CHARS,
        };
        (key.chars().count() >= min).then(|| Item {
            kind,
            shown: shown.trim().to_string(),
            key,
            source,
            quiet: false,
            shown_on: None,
        })
    }
}

/// What an action would carry to its destination.
#[derive(Debug, Clone, Copy)]
pub enum Carried<'a> {
    /// Only a URL the page offers: following a link, opening a tab a page asked for.
    Link,
    /// Only a URL the agent wrote: opening a page or a tab, searching.
    Address,
    /// A form's fields (name, value), sent to the URL.
    Form(&'a [(String, String)]),
    /// Text typed into a page at the URL.
    Typed(&'a str),
    /// A file the user attached, by its name, put into a page at the URL (an upload).
    File(&'a str),
    /// An act on an element of a page or frame at the URL: a click, a choice, a drag, a key. It
    /// sends nothing a check can read, yet which keys, options or links are picked, in what
    /// order, can spell anything out to that page.
    Act,
}

/// One piece of data an action would send, for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub kind: Kind,
    /// The data as the user would recognise it (a secret by its name, never its value).
    pub shown: String,
    pub source: Source,
}

impl Found {
    fn describe(&self) -> Text {
        match &self.source {
            Source::Secret(_) => self.source.describe(),
            source => text!("core_data_described", &self.shown, self.kind.noun(), source.describe()),
        }
    }
}

/// Why a flow waits for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// What is sent holds the user's data (matching found it).
    Carries,
    /// What is sent is the agent's own writing, which may hold the data in a form no matching reads.
    Written,
    /// Nothing recognised is sent, but the task holds the user's data and the act lands on a site
    /// outside the task's sites: the act itself (which link, key or option) can carry it.
    Holds,
    /// Where the act lands cannot be known (a frame with an opaque origin, an address with no
    /// site): nothing can be ruled out.
    Unknown,
}

/// Data bound for a site.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    pub site: Site,
    pub found: Vec<Found>,
    pub cause: Cause,
}

impl Flow {
    /// The data, as shown to the user (for the panel to highlight).
    pub fn data(&self) -> Vec<String> {
        self.found.iter().take(MAX_NAMED).map(|found| found.shown.clone()).collect()
    }

    /// "ada@example.org (an email address from your task) and 4111... (a number read on a.test)".
    fn listed(&self) -> Text {
        let mut named: Vec<Text> = self.found.iter().take(MAX_NAMED).map(Found::describe).collect();
        let listed = match named.len() {
            2 => text!("core_data_two", named.remove(0), named.remove(0)),
            3 => text!("core_data_three", named.remove(0), named.remove(0), named.remove(0)),
            // A flow carries at least one piece of data.
            _ => named.remove(0),
        };
        match self.found.len().saturating_sub(MAX_NAMED) {
            0 => listed,
            more => text!("core_data_more", listed, more),
        }
    }

    /// The question put to the user; `doing` says how ("opening http://...").
    pub fn question(&self, doing: impl Into<Arg>) -> Message {
        let site = self.site.to_string();
        match self.cause {
            Cause::Written => text!("core_question_written", self.data().join(", "), site, doing.into()),
            Cause::Carries => text!("core_question_data_flow", self.listed(), site, doing.into()),
            Cause::Holds => text!("core_question_outside_sites", self.listed(), site, doing.into()),
            Cause::Unknown => text!("core_question_unknown_site", site, doing.into()),
        }
        .into()
    }

    /// Only what the agent wrote, with nothing of the user's recognised in it.
    pub fn is_written(&self) -> bool {
        self.cause == Cause::Written
    }

    /// Where the act lands cannot be known.
    fn unknown(to: &str) -> Flow {
        Flow { site: Site::unknown(to), found: Vec::new(), cause: Cause::Unknown }
    }

    /// Why a secret was not sent (never asked: the user listed where it may go).
    pub fn refusal(&self) -> Message {
        text!("core_data_secret_refused", self.listed(), self.site.to_string()).into()
    }
}

/// The decision on an action that would send data.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Nothing of the user's goes where the user did not choose.
    Free,
    /// The user must allow it first.
    Ask(Flow),
    /// Never: a secret outside its listed sites.
    Never(Flow),
}

/// The conversation the data comes from, as it stands when an action is checked.
pub struct Conversation<'a> {
    /// The user's tasks, first to last.
    pub tasks: &'a [String],
    /// Everything else it holds: the agent's notes, results, plans, memory.
    pub rest: &'a [String],
    pub secrets: &'a Secrets,
    pub policy: &'a SitePolicy,
    /// The search engine the user chose, as its results page: the task's words may go there (its
    /// numbers, addresses and the like still ask).
    pub search: Option<SearchPage>,
    /// The names of the files the user attached to the task.
    pub attached: &'a [String],
}

/// How the agent treats sites outside the task's plan (Settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SitePlan {
    /// No plan: the agent asks only when the user's data would go to a site they did not choose.
    #[default]
    Off,
    /// The planner lists the sites it expects and the user confirms them; going elsewhere is
    /// shown to the user.
    Ask,
    /// As `Ask`, and going elsewhere waits for the user's approval.
    Strict,
}

/// What the task has learnt about where the user's data may go; kept with the task's checkpoint.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DataFlow {
    /// Sites the user chose during the task: the start, approved flows, a confirmed plan.
    chosen: Vec<Site>,
    /// Data seen on pages and typed, with where.
    noted: Vec<Item>,
    /// Longer texts read or typed, for phrases, with where.
    passages: Vec<(Source, String)>,
    /// Addresses pages offered (their links, their own addresses, URLs in their text), by the
    /// hash of their parsed form (a checkpoint keeps them every step).
    offered: Vec<u64>,
    /// Sites pages linked to or named, and those of the pages themselves.
    known: Vec<Site>,
    /// What the agent typed, in [`compact`] form.
    written: Vec<String>,
    /// Sites outside the task's sites the core let the task reach while it held nothing of the
    /// user's: their pages may load in its tabs until it does.
    reached: Vec<Site>,
    /// Addresses the agent opened itself (their hashes): what their parameters say is its own
    /// writing, not what a page showed.
    opened: Vec<u64>,
}

impl DataFlow {
    /// The user chose the site of `url` (the task starts there, they allowed it).
    pub fn choose(&mut self, url: &str) {
        if let Some(site) = Site::of(url) {
            if !self.chosen.contains(&site) {
                self.chosen.push(site);
            }
        }
    }

    /// The task's sites (its origin set): the one it started on and those the user allowed
    /// during it, those the user's words name, those on the allow list. Is `url`'s among them?
    pub fn is_chosen(&self, conversation: &Conversation, url: &str) -> bool {
        let Some(site) = Site::of(url) else { return false };
        self.is_site_chosen(conversation, &site) || conversation.policy.allows_by_name(url)
    }

    /// As [`Self::is_chosen`], for a site (an allow list's URL prefixes aside).
    fn is_site_chosen(&self, conversation: &Conversation, site: &Site) -> bool {
        self.chosen.iter().any(|chosen| chosen.covers(site))
            || named_sites(conversation.tasks).iter().any(|named| named.covers(site))
            || conversation.policy.allows_by_name(&format!("https://{site}/"))
    }

    /// The core let the task reach the site of `url` (an act there was judged free).
    pub fn reach(&mut self, url: &str) {
        if let Some(site) = Site::of(url) {
            keep_last(&mut self.reached, site, MAX_KNOWN_SITES);
        }
    }

    /// Whose pages may load in the task's tabs (besides the search engine's results): the task's
    /// sites, and the sites it reached while it holds nothing of the user's.
    pub fn loadable_sites(&self, conversation: &Conversation) -> Vec<Site> {
        let holds_nothing = self.held(conversation, &Site::unknown("")).is_empty();
        let reached = self.reached.iter().filter(|_| holds_nothing).cloned();
        self.chosen_and_named(conversation, reached)
    }

    /// The sites of the plan so far, for the user: chosen and named in the tasks.
    pub fn plan(&self, conversation: &Conversation) -> Vec<String> {
        self.chosen_and_named(conversation, std::iter::empty()).iter().map(Site::to_string).collect()
    }

    /// The sites chosen, then those the tasks name, then `more`, each once.
    fn chosen_and_named(&self, conversation: &Conversation, more: impl Iterator<Item = Site>) -> Vec<Site> {
        let mut sites: Vec<Site> = Vec::new();
        for site in self.chosen.iter().cloned().chain(named_sites(conversation.tasks)).chain(more) {
            if !sites.contains(&site) {
                sites.push(site);
            }
        }
        sites
    }

    /// Remembers what a page of `url` shows: its e-mail addresses, numbers, codes, names, and the
    /// addresses and sites it names. Each text is read on its frame's site when it is shown in a
    /// frame of another site (the address given with it; none: the page's own), so what a frame
    /// of the user's site shows is the user's, whatever page frames it, and it may go back there;
    /// and what a page of the user's shows in any frame is theirs too. A frame with no site of its
    /// own (a sandboxed `srcdoc`, a `data:` frame) shows what its page wrote into it: the page's.
    /// `scans` keeps what was found in each text, for the texts the page still shows at the next
    /// step.
    pub fn read_page<'t>(
        &mut self,
        url: &str,
        texts: impl Iterator<Item = (Option<&'t str>, &'t str)>,
        scans: &mut PageScans,
    ) {
        let Some(page_site) = Site::of(url) else { return };
        self.offer(url);
        // The page's own address, as the model reads it: its parameters decoded (`?account=`),
        // unless the agent wrote that address itself.
        let address: Vec<String> = url::Url::parse(url)
            .ok()
            .filter(|parsed| !self.opened.contains(&address_hash(parsed)))
            .map(|parsed| parsed.query_pairs().map(|(_, value)| value.into_owned()).collect())
            .unwrap_or_default();
        for (frame, text) in texts {
            self.read_text(&page_site, frame, text, scans);
        }
        for value in &address {
            self.read_text(&page_site, None, value, scans);
        }
    }

    /// Remembers what `text`, shown on a page of `page_site` in `frame` (none: the page's
    /// own), holds; see [`Self::read_page`].
    fn read_text(&mut self, page_site: &Site, frame: Option<&str>, text: &str, scans: &mut PageScans) {
        let site = frame.and_then(Site::of).unwrap_or_else(|| page_site.clone());
        let shown_on = (site != *page_site).then(|| page_site.clone());
        let scan = scans.of(text);
        for address in &scan.addresses {
            self.offer(address);
        }
        for (host, port) in &scan.sites {
            self.know(Site::new(host, *port));
        }
        for (piece, followed) in &scan.pieces {
            let quiet = !followed;
            let item = Item::new(piece.kind, &piece.text, Source::Page(site.clone()));
            self.note(item.map(|item| Item { quiet, shown_on: shown_on.clone(), ..item }));
        }
    }

    /// Remembers the details an action's result told the model (text a search of the page found,
    /// what it read): held as the conversation's are, after the conversation is summarized too.
    pub fn told(&mut self, result: &str) {
        for piece in scan::page_pieces(result) {
            self.note(Item::new(piece.kind, &piece.text, Source::Conversation));
        }
    }

    /// Remembers that the model was shown a screenshot of the page at `url`: what a picture holds
    /// cannot be read, so a picture of a page of the user's makes the task hold it.
    pub fn saw_picture(&mut self, url: &str) {
        let Some(site) = Site::of(url) else { return };
        self.note(Item::new(Kind::Picture, &format!("a screenshot of {site}"), Source::Page(site)));
    }

    /// Remembers an address the agent opens itself.
    pub fn opening(&mut self, url: &str) {
        if let Ok(parsed) = url::Url::parse(url) {
            keep_last(&mut self.opened, address_hash(&parsed), MAX_OFFERED);
        }
    }

    /// Remembers the addresses a page offers: its links.
    pub fn offered_links<'u>(&mut self, links: impl Iterator<Item = &'u str>) {
        for link in links {
            self.offer(link);
        }
    }

    fn offer(&mut self, url: &str) {
        let Ok(parsed) = url::Url::parse(url) else { return };
        if !matches!(parsed.scheme(), "http" | "https") {
            return;
        }
        if let Some(site) = Site::of_url(&parsed) {
            self.know(site);
        }
        keep_last(&mut self.offered, address_hash(&parsed), MAX_OFFERED);
    }

    fn know(&mut self, site: Site) {
        keep_last(&mut self.known, site, MAX_KNOWN_SITES);
    }

    /// Remembers what was extracted from a page of `url`, its words included.
    pub fn read_passage(&mut self, url: &str, text: &str) {
        let Some(site) = Site::of(url) else { return };
        self.read_page(url, std::iter::once((None, text)), &mut PageScans::default());
        self.keep_passage(Source::Page(site), text);
    }

    /// Remembers a value typed on `url`; a search field's words are a query, not the user's data
    /// (the e-mail addresses and numbers in it still count).
    pub fn typed(&mut self, url: &str, text: &str, search_field: bool) {
        let Some(site) = Site::of(url) else { return };
        let key = compact(text);
        if !key.is_empty() {
            keep_last(&mut self.written, key, MAX_WRITTEN);
        }
        for piece in scan::pieces(text) {
            self.note(Item::new(piece.kind, &piece.text, Source::Typed(site.clone())));
        }
        if !search_field {
            self.note(Item::new(Kind::Value, text, Source::Typed(site.clone())));
            self.keep_passage(Source::Typed(site), text);
        }
    }

    /// Notes `item`; when full, the oldest quiet item goes (it is not followed), else the oldest
    /// of the source that gave the most, so that a page (or a frame) that shows a flood of
    /// made-up data pushes out only its own.
    fn note(&mut self, item: Option<Item>) {
        let Some(item) = item else { return };
        if let Some(noted) = self.noted.iter_mut().find(|noted| noted.key == item.key && noted.source == item.source) {
            noted.quiet &= item.quiet;
            return;
        }
        if self.noted.len() >= MAX_NOTED {
            let from = |source: &Source| self.noted.iter().filter(|noted| noted.source == *source).count();
            let largest = self.noted.iter().max_by_key(|noted| from(&noted.source)).map(|noted| noted.source.clone());
            let quiet = self.noted.iter().position(|noted| noted.quiet);
            let oldest_of_largest = || self.noted.iter().position(|noted| Some(&noted.source) == largest.as_ref());
            if let Some(at) = quiet.or_else(oldest_of_largest) {
                self.noted.remove(at);
            }
        }
        self.noted.push(item);
    }

    fn keep_passage(&mut self, source: Source, text: &str) {
        let text: String = text.chars().take(MAX_PASSAGE_CHARS).collect();
        if lower_words(&text).len() < PHRASE_WORDS || self.passages.iter().any(|(s, t)| *s == source && *t == text) {
            return;
        }
        if self.passages.len() >= MAX_PASSAGES {
            self.passages.remove(0);
        }
        self.passages.push((source, text));
    }

    /// Whether sending `carried` to `to` may go ahead, must be asked, or must never happen.
    ///
    /// The rule: an act lands on a site. On one of the task's sites it is free (a secret still
    /// goes only to its listed sites). Elsewhere it waits for the user when it carries the user's
    /// data, when it sends what the agent wrote, or, whatever it sends, when the task holds the
    /// user's data; where no site can be known, it always waits.
    pub fn check(&self, conversation: &Conversation, to: &str, carried: Carried) -> Verdict {
        let parsed = url::Url::parse(to).ok();
        let Some((url, site)) = parsed.and_then(|url| Site::of_url(&url).map(|site| (url, site))) else {
            return Verdict::Ask(Flow::unknown(to));
        };
        let parts = payload(&url, carried);
        let secrets_barred: Vec<_> = conversation
            .secrets
            .list()
            .iter()
            .filter(|secret| !secret.domains.is_empty() && !secret.allowed_on_host(&site.host))
            .collect();
        let chosen = self.is_chosen(conversation, to);
        if chosen && secrets_barred.is_empty() {
            return Verdict::Free;
        }
        let readings = Readings::of(&parts);
        let leaked: Vec<Found> = secrets_barred
            .into_iter()
            .filter(|secret| readings.holds(&compact(&secret.value)))
            .map(|secret| Found {
                kind: Kind::Secret,
                shown: secret.name.clone(),
                source: Source::Secret(secret.name.clone()),
            })
            .collect();
        if !leaked.is_empty() {
            return Verdict::Never(Flow { site, found: leaked, cause: Cause::Carries });
        }
        if chosen {
            return Verdict::Free;
        }
        // An attached file is the user's data through and through: no site they did not choose
        // gets it unasked.
        if let Carried::File(name) = carried {
            let found = Found { kind: Kind::File, shown: name.to_string(), source: Source::Attached };
            return Verdict::Ask(Flow { site, found: vec![found], cause: Cause::Carries });
        }
        let to_search = conversation.search.as_ref().is_some_and(|search| search.holds(&url));
        let sends_nothing = parts.iter().all(|part| part.text.trim().is_empty());
        let carries =
            if sends_nothing { Vec::new() } else { self.carried_data(conversation, &site, &readings, to_search) };
        if !carries.is_empty() {
            return Verdict::Ask(Flow { site, found: carries, cause: Cause::Carries });
        }
        // The search engine of the settings takes what the agent writes (its queries).
        if to_search {
            return Verdict::Free;
        }
        if let Some(shown) = self.written_part(conversation, &url, &site, carried) {
            let found = vec![Found { kind: Kind::Written, shown, source: Source::Agent }];
            return Verdict::Ask(Flow { site, found, cause: Cause::Written });
        }
        let held = self.held(conversation, &site);
        if held.is_empty() {
            return Verdict::Free;
        }
        Verdict::Ask(Flow { site, found: held, cause: Cause::Holds })
    }

    /// The user's data that `readings` (of what is bound for `site`) hold.
    fn carried_data(
        &self,
        conversation: &Conversation,
        site: &Site,
        readings: &Readings,
        to_search: bool,
    ) -> Vec<Found> {
        let mut found: Vec<Found> = Vec::new();
        let mut add = |item: &Item| {
            if !found.iter().any(|f| f.shown == item.shown) {
                found.push(Found { kind: item.kind, shown: item.shown.clone(), source: item.source.clone() });
            }
        };
        for item in self.items(conversation) {
            // A detail the agent wrote down may go back to the site it was read on.
            let read_there = item.source == Source::Conversation
                && self.noted.iter().any(|n| n.key == item.key && n.source.site().is_some_and(|s| s.same_as(site)));
            if !item.quiet && !belongs_to(&item.source, site, conversation) && !read_there && readings.holds(&item.key)
            {
                add(&item);
            }
        }
        let task_passages = conversation.tasks.iter().filter(|_| !to_search).map(|task| (Source::Task, task.as_str()));
        let passages = self.passages.iter().map(|(source, text)| (source.clone(), text.as_str()));
        for (source, text) in task_passages.chain(passages) {
            if source.site().is_some_and(|from| from.same_as(site)) {
                continue;
            }
            if let Some(shared) = readings.shared_words(&phrases(text), PHRASE_WORDS) {
                add(&Item {
                    kind: Kind::Words,
                    shown: format!("\"{shared}\""),
                    key: String::new(),
                    source,
                    quiet: false,
                    shown_on: None,
                });
            }
        }
        found
    }

    /// The user's data the task holds that `site` has not had already: what their tasks say,
    /// what the agent typed, noted or read on the task's own sites, in any frame of their pages
    /// (the search engine's results aside), the secrets the task used, the files they attached.
    /// Data read on a page of a site outside the task's sites is that site's, not the user's.
    fn held(&self, conversation: &Conversation, site: &Site) -> Vec<Found> {
        let text_of_conversation = || conversation.tasks.iter().chain(conversation.rest).map(String::as_str);
        let on_users_page = |item: &Item| match &item.source {
            Source::Page(from) => [Some(from), item.shown_on.as_ref()]
                .into_iter()
                .flatten()
                .any(|site| self.is_site_chosen(conversation, site)),
            _ => false,
        };
        let read_outside = |key: &str| {
            self.noted
                .iter()
                .any(|noted| noted.key == key && matches!(noted.source, Source::Page(_)) && !on_users_page(noted))
        };
        let users = |item: &Item| match &item.source {
            Source::Task | Source::Typed(_) | Source::Agent | Source::Attached => true,
            Source::Conversation => !read_outside(&item.key),
            Source::Page(from) => {
                on_users_page(item) && !conversation.search.as_ref().is_some_and(|s| s.site() == from)
            }
            Source::Secret(name) => {
                let placeholder = format!("<secret>{name}</secret>");
                text_of_conversation().any(|text| text.contains(&placeholder))
            }
        };
        let mut held: Vec<Found> = conversation
            .attached
            .iter()
            .map(|name| Found { kind: Kind::File, shown: name.clone(), source: Source::Attached })
            .collect();
        for item in self.items(conversation) {
            if !item.quiet
                && users(&item)
                && !belongs_to(&item.source, site, conversation)
                && !held.iter().any(|found| found.shown == item.shown)
            {
                held.push(Found { kind: item.kind, shown: item.shown, source: item.source });
            }
        }
        held
    }

    /// What of `carried`, bound for `url` on `site`, the agent wrote itself, as shown to the user;
    /// `None` when a page offered all of it (or it is the user's secret, allowed there).
    fn written_part(
        &self,
        conversation: &Conversation,
        url: &url::Url,
        site: &Site,
        carried: Carried,
    ) -> Option<String> {
        let allowed_secrets: Vec<&str> = conversation
            .secrets
            .list()
            .iter()
            .filter(|secret| secret.allowed_on_host(&site.host))
            .map(|secret| secret.value.as_str())
            .collect();
        let own = |text: &str| allowed_secrets.iter().fold(text.to_string(), |left, secret| left.replace(secret, ""));
        let shown = match carried {
            Carried::Link | Carried::File(_) | Carried::Act => return None,
            Carried::Address if self.offers(url) => return None,
            Carried::Address => url.as_str().split_once("://").map_or(url.as_str(), |(_, rest)| rest).to_string(),
            Carried::Typed(text) => own(text),
            Carried::Form(fields) => {
                let filled: Vec<String> =
                    fields.iter().map(|(_, value)| own(value)).filter(|value| self.is_written(value)).collect();
                filled.join(", ")
            }
        };
        let shown = shown.trim();
        (!shown.is_empty()).then(|| text::truncate_chars(shown, MAX_WRITTEN_SHOWN))
    }

    /// A page offered `url` itself, or it is the bare address of a site known to the task (a
    /// page named or linked to it) or whose name cannot carry data: a registered-looking name of
    /// at most two labels on the scheme's own port. The host and the port are as much the agent's
    /// words as the path: a made-up subdomain, an IP literal (anyone may hold a range of them) or
    /// a port (a server hears every one) can each spell data out; and every name under localhost
    /// is loopback's, a made-up label already.
    fn offers(&self, url: &url::Url) -> bool {
        if self.offered.contains(&address_hash(url)) {
            return true;
        }
        let bare = url.path() == "/"
            && url.query().is_none()
            && url.fragment().is_none()
            && url.username().is_empty()
            && url.password().is_none();
        let short_name = match url.host() {
            Some(url::Host::Domain(domain)) if url.port().is_none() => {
                let host = Site::new(domain, None).host;
                host.split('.').count() <= 2 && !host.ends_with(".localhost") && host != "localhost"
            }
            _ => false,
        };
        bare && (short_name || Site::of_url(url).is_some_and(|site| self.known.contains(&site)))
    }

    /// `value` is, or holds, something the agent typed.
    fn is_written(&self, value: &str) -> bool {
        let value = compact(value);
        !value.is_empty()
            && self
                .written
                .iter()
                .any(|key| *key == value || (key.chars().count() >= MIN_WRITTEN_INSIDE && value.contains(key.as_str())))
    }

    /// Every piece of data followed: the tasks', the conversation's, the secrets, what was noted.
    fn items(&self, conversation: &Conversation) -> Vec<Item> {
        let mut items = Vec::new();
        for task in conversation.tasks {
            items.extend(scan::pieces(task).into_iter().filter_map(|p| Item::new(p.kind, &p.text, Source::Task)));
        }
        // The agent's notes and results carry page text too: their numbers count as a page's do.
        for text in conversation.rest {
            items.extend(
                scan::page_pieces(text).into_iter().filter_map(|p| Item::new(p.kind, &p.text, Source::Conversation)),
            );
        }
        for secret in conversation.secrets.list() {
            items.extend(
                Item::new(Kind::Secret, &secret.value, Source::Secret(secret.name.clone()))
                    .map(|item| Item { shown: secret.name.clone(), ..item }),
            );
        }
        items.extend(self.noted.iter().cloned());
        items
    }
}

/// A stable hash of a parsed address (FxHash has no per-run seed, so a resumed task finds it).
fn address_hash(url: &url::Url) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    url.as_str().hash(&mut hasher);
    hasher.finish()
}

/// Adds `item` last to `list`, unless there already, the oldest going when `list` holds `max`.
fn keep_last<T: PartialEq>(list: &mut Vec<T>, item: T, max: usize) {
    if list.contains(&item) {
        return;
    }
    if list.len() >= max {
        list.remove(0);
    }
    list.push(item);
}

/// Data from `source` is `site`'s already: read or typed there, or a secret listed for it.
fn belongs_to(source: &Source, site: &Site, conversation: &Conversation) -> bool {
    match source {
        Source::Secret(name) => conversation
            .secrets
            .list()
            .iter()
            .any(|secret| secret.name == *name && !secret.domains.is_empty() && secret.allowed_on_host(&site.host)),
        source => source.site().is_some_and(|from| from.same_as(site)),
    }
}

/// The sites the tasks name.
fn named_sites(tasks: &[String]) -> Vec<Site> {
    tasks.iter().flat_map(|task| mentioned_sites(task)).map(|(host, port)| Site::new(&host, port)).collect()
}

/// Every run of [`PHRASE_WORDS`] words of `text` with enough letters to be worth asking about.
fn phrases(text: &str) -> HashSet<String> {
    lower_words(text)
        .windows(PHRASE_WORDS)
        .filter(|window| window.iter().map(String::len).sum::<usize>() >= PHRASE_MIN_CHARS)
        .map(|window| window.join(" "))
        .collect()
}

/// The pieces an action would send: the URL's host, user, path segments, parameters and
/// fragment, then the form's fields or the typed text.
fn payload(url: &url::Url, carried: Carried) -> Vec<Part> {
    let mut parts = vec![Part::name(url.host_str().unwrap_or_default()), Part::value(url.username())];
    parts.extend(url.password().map(Part::value));
    parts.extend(url.path_segments().into_iter().flatten().map(Part::value));
    for text in [url.query(), url.fragment()].into_iter().flatten() {
        for pair in text.split(['&', ';']) {
            match pair.split_once('=') {
                Some((name, value)) => parts.extend([Part::name(name), Part::value(value)]),
                None => parts.push(Part::value(pair)),
            }
        }
    }
    match carried {
        Carried::Link | Carried::Address => {}
        Carried::Act => parts.clear(),
        Carried::Form(fields) => {
            for (name, value) in fields {
                parts.extend([Part::name(name.as_str()), Part::value(value.as_str())]);
            }
        }
        Carried::Typed(text) => parts = vec![Part::value(text)],
        Carried::File(name) => parts = vec![Part::value(name)],
    }
    parts
}

#[cfg(test)]
mod tests;
