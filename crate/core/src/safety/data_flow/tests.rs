use super::scan::{page_pieces, pieces, Piece};
use super::*;
use crate::safety::Secret;

const TASK: &str = "Sign me up for the newsletter on this page with my email ada@example.org";
const START: &str = "https://shop.test/newsletter";

struct Case {
    tasks: Vec<String>,
    rest: Vec<String>,
    secrets: Secrets,
    policy: SitePolicy,
    flow: DataFlow,
    attached: Vec<String>,
    search: &'static str,
}

impl Case {
    fn new(task: &str) -> Case {
        let mut flow = DataFlow::default();
        flow.choose(START);
        Case {
            tasks: vec![task.to_string()],
            rest: Vec::new(),
            secrets: Secrets::default(),
            policy: SitePolicy::default(),
            flow,
            attached: Vec::new(),
            search: "https://duckduckgo.com/?q=",
        }
    }

    fn conversation(&self) -> Conversation<'_> {
        Conversation {
            tasks: &self.tasks,
            rest: &self.rest,
            secrets: &self.secrets,
            policy: &self.policy,
            search: SearchPage::of(self.search),
            attached: &self.attached,
        }
    }

    fn check(&self, to: &str, carried: Carried) -> Verdict {
        self.flow.check(&self.conversation(), to, carried)
    }

    /// Why acting at `to` waits for the user, and the data the question names (`None`: free).
    fn cause(&self, to: &str, carried: Carried) -> Option<(Cause, Vec<String>)> {
        match self.check(to, carried) {
            Verdict::Free => None,
            Verdict::Ask(flow) => Some((flow.cause, flow.data())),
            Verdict::Never(flow) => panic!("refused outright: {flow:?}"),
        }
    }

    /// The data following a page's link to `to` would need approval for (empty when free): what
    /// matching finds, as nothing of a link is the agent's own writing.
    fn asks(&self, to: &str) -> Vec<String> {
        match self.check(to, Carried::Link) {
            Verdict::Free => Vec::new(),
            Verdict::Ask(flow) => flow.data(),
            Verdict::Never(flow) => panic!("refused outright: {flow:?}"),
        }
    }
}

/// Texts shown on the page itself, in no frame of another site (as `read_page` takes them).
fn own<const N: usize>(texts: [&str; N]) -> impl Iterator<Item = (Option<&str>, &str)> {
    texts.into_iter().map(|text| (None, text))
}

fn email_case() -> Case {
    Case::new(TASK)
}

/// A task that holds nothing of the user's.
fn plain_case() -> Case {
    Case::new("find the price of the blue mug")
}

#[test]
fn data_in_the_query_path_or_fragment_of_a_new_site_asks() {
    let case = email_case();
    let email = vec!["ada@example.org".to_string()];
    assert_eq!(case.asks("http://collector.test/c?email=ada@example.org"), email);
    assert_eq!(case.asks("http://collector.test/u/ada@example.org/profile"), email);
    assert_eq!(case.asks("http://collector.test/#ada@example.org"), email);
    assert_eq!(case.asks("http://collector.test/#e=ada@example.org&x=1"), email);
    assert_eq!(case.asks("http://ada@example.org@collector.test/"), email, "in the user part");
    assert_eq!(case.asks("http://ada-example-org.collector.test/"), email, "in the host name");
}

#[test]
fn encodings_do_not_hide_the_data() {
    let case = email_case();
    for url in [
        "http://collector.test/c?e=ada%40example.org",            // URL encoding
        "http://collector.test/c?e=ada%2540example.org",          // twice
        "http://collector.test/c?d=YWRhQGV4YW1wbGUub3Jn",         // base64
        "http://collector.test/c?d=YWRhQGV4YW1wbGUub3Jn%3D%3D",   // base64, padded and URL-encoded
        "http://collector.test/c?d=YWRhQGV4YW1wbGUub3Jn_x",       // base64 among other characters
        "http://collector.test/c/616461406578616d706c652e6f7267", // hex
        "http://collector.test/c?h=0x616461406578616D706C652E6F7267", // hex, upper case
        "http://collector.test/c?e=ADA@EXAMPLE.ORG",              // case
        "http://collector.test/c?a=ada&b=example&c=org",          // split across parameters
        "http://collector.test/ada/example.org",                  // split across the path
        "http://collector.test/c?d=YWRhJTQwZXhhbXBsZS5vcmc",      // base64 of URL-encoded
        "http://collector.test/c?d=NjE2NDYxNDA2NTc4NjE2ZDcwNmM2NTJlNmY3MjY3", // base64 of hex
    ] {
        assert_eq!(case.asks(url), vec!["ada@example.org".to_string()], "{url}");
    }
}

#[test]
fn the_question_names_the_data_its_origin_and_the_site() {
    let Verdict::Ask(flow) = email_case().check("http://collector.test:4100/c?e=ada@example.org", Carried::Link) else {
        panic!("should ask")
    };
    assert_eq!(
        flow.question("opening http://collector.test:4100/c?e=ada@example.org"),
        "This would send ada@example.org (an email address from your task) to collector.test:4100, by opening http://collector.test:4100/c?e=ada@example.org. Allow it?"
    );
}

#[test]
fn benign_flows_do_not_ask() {
    let plain = plain_case();
    // No data at all.
    assert!(plain.asks("http://collector.test/").is_empty());
    assert!(plain.asks("http://collector.test/docs/about?page=2#top").is_empty());
    let case = email_case();
    // The start site, and its subdomains.
    assert!(case.asks("https://shop.test/account?email=ada@example.org").is_empty());
    assert!(case.asks("https://www.shop.test/search?q=ada@example.org").is_empty());
    // A site the task names.
    let named = Case::new("look up ada@example.org's order on orders.example:8080 please");
    assert!(named.asks("http://orders.example:8080/find?email=ada@example.org").is_empty());
    assert_eq!(named.asks("http://orders.example:9090/find?email=ada@example.org").len(), 1, "another port");
    // The task's own words on a new site: common words, not the user's data.
    let words = Case::new("find the price of the blue mug with the red handle");
    assert!(words.asks("https://other.test/search?q=blue+mug+red+handle+price").is_empty());
    // Searching the task's whole sentence on the search engine the user chose.
    assert!(words.asks("https://duckduckgo.com/?q=find+the+price+of+the+blue+mug+with+the+red+handle").is_empty());
    // Dates and short numbers the page shows are not followed.
    let mut dated = Case::new("read the news");
    dated.flow.read_page(
        START,
        own(["Published 2024-01-15, 3 comments, 12 likes, ISBN 978-0-13-110362-7"]),
        &mut PageScans::default(),
    );
    assert!(dated.asks("https://news.test/2024/01/15/story?c=3").is_empty());
    assert!(dated.asks("https://books.test/isbn/9780131103627").is_empty(), "an unlabelled number on a page");
}

#[test]
fn the_allow_list_and_approved_sites_are_chosen() {
    let mut case = email_case();
    case.policy = SitePolicy::new(&["collector.test".into()], &[]).unwrap();
    assert!(case.asks("http://collector.test/c?e=ada@example.org").is_empty());
    let mut case = email_case();
    case.flow.choose("http://collector.test/first");
    assert!(case.asks("http://api.collector.test/c?e=ada@example.org").is_empty());
}

#[test]
fn the_search_engine_gets_the_task_s_words_but_not_its_details() {
    let case = email_case();
    assert_eq!(case.asks("https://duckduckgo.com/?q=ada%40example.org"), vec!["ada@example.org".to_string()]);
}

#[test]
fn long_runs_of_the_task_s_words_ask() {
    let case = Case::new("Write to my landlord that the boiler in flat 4 has been broken since Monday");
    assert_eq!(
        case.asks("http://collector.test/?q=the+boiler+in+flat+4+has+been+broken"),
        vec!["\"the boiler in flat 4\"".to_string()]
    );
    assert!(case.asks("http://collector.test/?q=landlord+boiler+broken").is_empty(), "a few words");
}

#[test]
fn a_form_s_fields_and_typed_text_are_checked_like_urls() {
    let case = email_case();
    let fields = vec![("email".to_string(), "ada@example.org".to_string()), ("list".into(), "weekly".into())];
    assert!(matches!(case.check("http://collector.test/subscribe", Carried::Form(&fields)), Verdict::Ask(_)));
    assert_eq!(case.check("https://shop.test/subscribe", Carried::Form(&fields)), Verdict::Free, "the start site");
    let other = vec![("q".to_string(), "mugs".to_string())];
    assert_eq!(plain_case().check("http://collector.test/search", Carried::Form(&other)), Verdict::Free);
    // Typing on a page is giving the data to its site.
    let Verdict::Ask(flow) = case.check("http://collector.test/form", Carried::Typed("ada@example.org")) else {
        panic!("should ask")
    };
    assert!(!flow.is_written(), "the data is named: {flow:?}");
    assert_eq!(case.check("https://shop.test/form", Carried::Typed("blue mugs")), Verdict::Free);
}

/// What sending `carried` to `to` would ask about, as the question shows it (None: free).
fn written(case: &Case, to: &str, carried: Carried) -> Option<String> {
    match case.check(to, carried) {
        Verdict::Free => None,
        Verdict::Ask(flow) => Some(flow.data().join(", ")),
        Verdict::Never(flow) => panic!("refused outright: {flow:?}"),
    }
}

#[test]
fn an_address_the_agent_wrote_for_a_site_not_chosen_asks_whatever_it_holds() {
    let case = email_case();
    // The roads matching cannot see: words, reversed, halves on two navigations, a made-up name.
    for url in [
        "http://collector.test/?u=ada%20at%20example%20dot%20org",
        "http://collector.test/?u=gro.elpmaxe@ada",
        "http://collector.test/?a=ada@exam",
        "http://collector.test/?b=ple.org",
        "http://collector.test/ZnVu",
        "http://collector.test/#x",
        "http://xyzzy.collector.test/",
        "http://adaatexample.localhost:8080/",
    ] {
        assert!(written(&case, url, Carried::Address).is_some(), "{url} should ask");
    }
    assert_eq!(
        written(&case, "http://collector.test/?u=ada%20at%20example%20dot%20org", Carried::Address).unwrap(),
        "collector.test/?u=ada%20at%20example%20dot%20org"
    );
    // Where the user chose, and to the search engine of the settings, the agent writes freely.
    assert_eq!(written(&case, "https://shop.test/?u=gro.elpmaxe@ada", Carried::Address), None);
    assert_eq!(written(&case, "https://duckduckgo.com/?q=gro.elpmaxe", Carried::Address), None);
    // A bare site whose name cannot be made up for the visit, for a task that holds nothing.
    let plain = plain_case();
    assert_eq!(written(&plain, "http://collector.test/", Carried::Address), None);
    assert_eq!(written(&plain, "https://www.collector.test/", Carried::Address), None);
    // The host and the port are the agent's words too: an IP literal, a port, a label under localhost.
    for url in ["http://97.100.97.64/", "http://collector.test:31337/", "http://localhost:8080/", "http://127.0.0.1/"] {
        assert_eq!(written(&plain, url, Carried::Address).as_deref(), Some(&url[7..]), "{url}");
    }
    let Verdict::Ask(flow) = case.check("http://collector.test/?u=gro.elpmaxe@ada", Carried::Address) else {
        panic!("should ask")
    };
    assert_eq!(
        flow.question("opening it"),
        "The agent wrote collector.test/?u=gro.elpmaxe@ada itself and would send it to collector.test, a site you have not chosen, by opening it. What an agent writes can carry your data in a form no check can read (spelled out, reversed, in pieces). Allow it?"
    );
}

#[test]
fn an_address_a_page_offered_is_not_the_agent_s_writing() {
    let mut case = plain_case();
    case.flow.read_page(
        START,
        own(["Read more at https://docs.example.net/guide?id=7, or on news.example.com."]),
        &mut PageScans::default(),
    );
    case.flow.offered_links(["https://partner.example.com/offer/42?ref=shop"].into_iter());
    assert_eq!(written(&case, "https://partner.example.com/offer/42?ref=shop", Carried::Address), None);
    assert_eq!(written(&case, "https://docs.example.net/guide?id=7", Carried::Address), None, "a URL in the text");
    assert_eq!(written(&case, "https://news.example.com/", Carried::Address), None, "a site the text names");
    assert!(written(&case, "https://partner.example.com/offer/42?ref=ada", Carried::Address).is_some(), "changed");
    assert!(written(&case, "https://partner.example.com/offer/42?ref=shop#ada", Carried::Address).is_some());
    assert!(written(&case, "https://ada.news.example.com/", Carried::Address).is_some(), "a made-up subdomain");
    assert!(written(&case, "https://news.example.com:8443/", Carried::Address).is_some(), "a made-up port");
    // A link is the page's: only what matching finds in it counts.
    assert_eq!(written(&case, "https://elsewhere.test/any/path?x=1", Carried::Link), None);
    // The offers survive a checkpoint.
    let restored: DataFlow = serde_json::from_value(serde_json::to_value(&case.flow).unwrap()).unwrap();
    assert!(restored.offers(&url::Url::parse("https://partner.example.com/offer/42?ref=shop").unwrap()));
}

#[test]
fn text_typed_into_a_site_not_chosen_asks_and_a_form_asks_for_what_was_typed() {
    let mut case = plain_case();
    assert_eq!(written(&case, "http://collector.test/form", Carried::Typed("a d a")), Some("a d a".into()));
    assert_eq!(written(&case, "https://shop.test/form", Carried::Typed("a d a")), None, "the start site");
    // A form of the start site bound for another: the fields the agent typed ask, the page's own do not.
    case.flow.typed(START, "mugs", true);
    case.flow.typed(START, "xq", false);
    let page_own = vec![("token".to_string(), "x81".to_string()), ("list".into(), "weekly".into())];
    assert_eq!(written(&case, "http://collector.test/subscribe", Carried::Form(&page_own)), None);
    let searched = vec![("token".to_string(), "x81".to_string()), ("q".into(), "mugs".into())];
    assert_eq!(written(&case, "http://collector.test/search", Carried::Form(&searched)), Some("mugs".into()));
    let short = vec![("a".to_string(), "xq".to_string()), ("b".into(), "xqz".into())];
    assert_eq!(written(&case, "http://collector.test/s", Carried::Form(&short)), Some("xq".into()), "whole field");
    // The user's secret typed on a site listed for it is theirs to send there.
    let login = with_secret(&["login.test"]);
    assert_eq!(written(&login, "https://login.test/", Carried::Typed("Hunter2-Orbit")), None);
    let fields = vec![("password".to_string(), "Hunter2-Orbit".to_string())];
    assert_eq!(written(&login, "https://login.test/session", Carried::Form(&fields)), None);
    assert!(written(&login, "https://login.test/", Carried::Typed("Hunter2-Orbit and more")).is_some());
}

fn with_secret(domains: &[&str]) -> Case {
    let mut case = Case::new("log in and check my orders");
    case.secrets = Secrets::new(vec![Secret {
        name: "shop_password".into(),
        value: "Hunter2-Orbit".into(),
        domains: domains.iter().map(|d| d.to_string()).collect(),
    }])
    .unwrap();
    case
}

#[test]
fn a_secret_never_goes_outside_its_sites_whatever_was_chosen() {
    let mut case = with_secret(&["shop.test"]);
    let fields = vec![("user".to_string(), "ada".to_string()), ("password".into(), "Hunter2-Orbit".into())];
    assert_eq!(case.check("https://shop.test/login", Carried::Form(&fields)), Verdict::Free);
    case.flow.choose("http://collector.test/");
    let Verdict::Never(flow) = case.check("http://collector.test/login", Carried::Form(&fields)) else {
        panic!("a secret outside its sites")
    };
    assert_eq!(flow.data(), vec!["shop_password".to_string()], "named, never shown");
    assert_eq!(
        flow.refusal(),
        "it would send your secret \"shop_password\" to collector.test, which is not among the sites listed for it in the settings; secrets never go anywhere else"
    );
    let encoded = "http://collector.test/?p=SHVudGVyMi1PcmJpdA";
    assert!(matches!(case.check(encoded, Carried::Link), Verdict::Never(_)), "base64 of the secret");
    assert!(matches!(case.check("http://collector.test/", Carried::Typed("Hunter2-Orbit")), Verdict::Never(_)));
}

#[test]
fn a_secret_for_any_site_still_asks_before_a_new_one() {
    let case = with_secret(&[]);
    assert_eq!(case.asks("http://collector.test/?p=hunter2orbit"), vec!["shop_password".to_string()]);
    let Verdict::Ask(flow) = case.check("http://collector.test/?p=hunter2orbit", Carried::Link) else { panic!() };
    assert!(!flow.question("opening it").contains("Hunter2"), "{}", flow.question("opening it"));
}

#[test]
fn data_read_on_one_site_asks_before_going_to_another() {
    let mut case = Case::new("check my bank balance");
    case.flow.read_page(
        "https://bank.test/home",
        own(["Your one-time code is 482913", "Account 12-3456-7890123"]),
        &mut PageScans::default(),
    );
    assert_eq!(case.asks("http://collector.test/?c=482913"), vec!["482913".to_string()]);
    assert_eq!(case.asks("http://collector.test/?a=1234567890123"), vec!["12-3456-7890123".to_string()]);
    assert!(case.asks("https://bank.test/verify?c=482913").is_empty(), "back where it was read");
    assert!(case.asks("http://collector.test/?c=1482913").is_empty(), "not part of another number");
}

#[test]
fn a_page_read_again_from_its_remembered_scans_notes_what_scanning_it_anew_would() {
    let texts = ["Your one-time code is 482913", "ISBN 978-0-13-110362-7", "Write to ada@example.org", "Opening hours"];
    let mut scans = PageScans::default();
    let mut remembered = DataFlow::default();
    let mut anew = DataFlow::default();
    for _ in 0..2 {
        remembered.read_page("https://bank.test/home", own(texts), &mut scans);
        anew.read_page("https://bank.test/home", own(texts), &mut PageScans::default());
    }
    assert_eq!(remembered, anew);
    let quiet: Vec<(&str, bool)> = anew.noted.iter().map(|item| (item.shown.as_str(), item.quiet)).collect();
    assert_eq!(quiet, [("482913", false), ("978-0-13-110362-7", true), ("ada@example.org", false)]);
}

#[test]
fn an_extracted_passage_counts_in_words_too() {
    let mut case = Case::new("summarise my latest message");
    case.flow.read_passage("https://mail.test/inbox", "Dr Grey says the biopsy results came back clear on Friday");
    assert_eq!(case.asks("http://collector.test/?m=biopsy+results+came+back+clear").len(), 1);
    assert!(case.asks("https://mail.test/?m=biopsy+results+came+back+clear").is_empty());
}

#[test]
fn values_typed_are_followed_except_search_queries() {
    let mut case = Case::new("fill in the delivery form");
    case.flow.typed(START, "Ada Lovelace", false);
    case.flow.typed(START, "blue mugs", true);
    assert_eq!(case.asks("http://collector.test/?n=Ada%20Lovelace"), vec!["Ada Lovelace".to_string()]);
    // The query is not followed; the name typed is still held, so another site is asked about.
    let held = Some((Cause::Holds, vec!["Ada Lovelace".to_string()]));
    assert_eq!(case.cause("http://collector.test/?q=blue+mugs", Carried::Link), held);
    let Verdict::Ask(flow) = case.check("http://collector.test/?n=ada-lovelace", Carried::Link) else { panic!() };
    assert_eq!(
        flow.question("opening it"),
        "This would send Ada Lovelace (a value typed on shop.test) to collector.test, by opening it. Allow it?"
    );
}

#[test]
fn details_in_the_conversation_are_followed_unless_read_on_that_site() {
    let mut case = Case::new("find my order");
    case.rest = vec![r#"{"memory":"the order number is 7781234 and the tracking code is ZX81-QQ"}"#.to_string()];
    assert_eq!(case.asks("http://collector.test/?o=7781234"), vec!["7781234".to_string()]);
    assert_eq!(case.asks("http://collector.test/?t=zx81qq"), vec!["ZX81-QQ".to_string()]);
    case.flow.read_page("https://carrier.test/", own(["Parcel 7781234 is on its way"]), &mut PageScans::default());
    // Read on the carrier's page, the order number is the carrier's; the tracking code is still held.
    let held = Some((Cause::Holds, vec!["ZX81-QQ".to_string()]));
    assert_eq!(case.cause("https://carrier.test/track?o=7781234", Carried::Link), held);
    assert_eq!(case.asks("http://collector.test/?o=7781234"), vec!["7781234".to_string()]);
    // The agent's own navigations in the conversation are not the user's data.
    case.rest = vec!["Opened http://b.test/item/99887766.".to_string()];
    assert!(case.asks("http://b.test/item/99887766").is_empty());
}

#[test]
fn the_plan_lists_chosen_and_named_sites() {
    let case = Case::new("compare prices on shop.test and other.test:8080");
    let conversation = case.conversation();
    assert_eq!(case.flow.plan(&conversation), vec!["shop.test", "other.test:8080"]);
    assert!(case.flow.is_chosen(&conversation, "http://other.test:8080/x"));
    assert!(!case.flow.is_chosen(&conversation, "http://third.test/"));
}

#[test]
fn survives_a_checkpoint() {
    let mut flow = DataFlow::default();
    flow.choose(START);
    flow.typed(START, "Ada Lovelace", false);
    let json = serde_json::to_value(&flow).unwrap();
    assert_eq!(serde_json::from_value::<DataFlow>(json).unwrap(), flow);
}

fn found(text: &str) -> Vec<(Kind, String)> {
    pieces(text).into_iter().map(|Piece { kind, text }| (kind, text)).collect()
}

#[test]
fn finds_the_user_s_details_in_text() {
    assert_eq!(found("mail me at Ada.L@Example.org."), vec![(Kind::Email, "ada.l@example.org".into())]);
    assert_eq!(found("call +1 (555) 010-2233 today"), vec![(Kind::Number, "+1 555 010-2233".into())]);
    assert_eq!(found("card 4111 1111 1111 1111 exp 12/27"), vec![(Kind::Number, "4111 1111 1111 1111".into())]);
    assert_eq!(found("my booking reference is X7K9P2"), vec![(Kind::Code, "X7K9P2".into())]);
    assert_eq!(found("Ref:QWERTZ"), vec![(Kind::Code, "QWERTZ".into())]);
    assert_eq!(found("the password is correcthorse"), vec![(Kind::Code, "correcthorse".into())]);
    assert_eq!(found("your code: 4829"), vec![(Kind::Code, "4829".into())]);
    assert_eq!(found("My name is Ada Lovelace and I like mugs"), vec![(Kind::Name, "Ada Lovelace".into())]);
    assert_eq!(found("Signed in as Grace Hopper"), vec![(Kind::Name, "Grace Hopper".into())]);
    assert_eq!(found("ship to 12 Main Street, Springfield"), vec![(Kind::Address, "12 Main Street".into())]);
    assert_eq!(found("we met at 221 Baker St yesterday"), vec![(Kind::Address, "221 Baker St".into())]);
    assert_eq!(
        found("delivered to my flat at 12 Rue Lepic, 75018 Paris"),
        vec![(Kind::Address, "12 Rue Lepic".into())]
    );
    assert_eq!(found("my date of birth is 14/03/1990"), vec![(Kind::Number, "14/03/1990".into())]);
    assert_eq!(found("I was born on 3 May 1990."), vec![(Kind::Number, "3 May 1990".into())]);
    assert_eq!(found("the parcel sent on 14/03/2024 arrived"), vec![], "a date is no one's in general");
}

#[test]
fn on_pages_only_numbers_that_say_what_they_are_count() {
    let numbers = |text: &str| page_pieces(text).into_iter().map(|p| p.text).collect::<Vec<_>>();
    assert_eq!(numbers("ISBN 978-0-13-110362-7, 1,299,000 copies, item 88112233"), Vec::<String>::new());
    assert_eq!(numbers("Your one-time sign-in code: 482913"), vec!["482913"]);
    assert_eq!(numbers("Account number 12-3456-7890123"), vec!["12-3456-7890123"]);
    assert_eq!(numbers("call +44 20 7946 0958"), vec!["+44 20 7946 0958"]);
    assert_eq!(numbers("paid with 4111 1111 1111 1111"), vec!["4111 1111 1111 1111"], "a card number (Luhn)");
    assert_eq!(numbers("e-mail ada@example.org"), vec!["ada@example.org"]);
}

#[test]
fn common_text_is_not_the_user_s_data() {
    for text in [
        "add the blue mug to the cart, then tell me the cart total",
        "Published 2024-01-15 at 10:30, 3 comments",
        "Price: $1,299.00 for 2 items",
        "order a blue mug",
        "see the account settings",
        "I am looking for the order page",
        "in 2024 we sold 300 mugs",
        "visit https://shop.test/item/99887766 now",
        r#"{"do":"go_to_url","url":"b.test/item?id=99887766"}"#,
        "id 2024",
    ] {
        assert_eq!(found(text), vec![], "{text}");
    }
}

proptest::proptest! {
    /// Whatever the model writes or a page holds, the check answers and never panics.
    #[test]
    fn never_panics(text in "\\PC{0,80}", path in "[a-zA-Z0-9%+/=_.@#?&-]{0,60}") {
        let mut case = email_case();
        case.flow.read_page(START, own([text.as_str()]), &mut PageScans::default());
        case.flow.typed(START, &text, false);
        case.flow.read_passage("https://mail.test/", &text);
        let _ = case.check(&format!("http://collector.test/{path}"), Carried::Link);
        let _ = case.check("http://collector.test/", Carried::Typed(&text));
        let fields = vec![(text.clone(), path.clone())];
        let _ = case.check(&format!("http://{text}/"), Carried::Form(&fields));
    }
}

#[test]
fn an_attached_file_goes_unasked_only_to_a_site_the_user_chose() {
    let case = Case::new("apply for the job on jobs.test with my CV");
    let file = Carried::File("cv.pdf");
    assert_eq!(case.check("https://shop.test/upload", file), Verdict::Free, "the task's start");
    assert_eq!(case.check("https://careers.jobs.test/apply", file), Verdict::Free, "named in the task");
    let Verdict::Ask(flow) = case.check("https://collector.test/upload", file) else { panic!("not asked") };
    assert_eq!(flow.data(), ["cv.pdf"]);
    assert_eq!(
        flow.question("putting it into <input> [3] on collector.test").to_string(),
        "This would send cv.pdf (a file you attached) to collector.test, by putting it into <input> [3] on collector.test. Allow it?"
    );
}

#[test]
fn any_act_outside_the_task_s_sites_asks_while_the_task_holds_the_user_s_data() {
    let mut case = email_case();
    let held = Some((Cause::Holds, vec!["ada@example.org".to_string()]));
    // A click on an on-screen keyboard, a choice, a page's link: none carries the address readably.
    assert_eq!(case.cause("http://collector.test/keyboard", Carried::Act), held);
    assert_eq!(case.cause("http://collector.test/a", Carried::Link), held, "a link per character");
    assert_eq!(
        case.cause("http://collector.test/", Carried::Typed("hello")),
        Some((Cause::Written, vec!["hello".into()]))
    );
    // On the task's sites, anything goes; the user's approval adds a site to them.
    assert_eq!(case.cause("https://shop.test/keyboard", Carried::Act), None);
    case.flow.choose("http://collector.test/");
    assert_eq!(case.cause("http://collector.test/keyboard", Carried::Act), None);
    // A task holding nothing of the user's acts freely.
    assert_eq!(plain_case().cause("http://collector.test/keyboard", Carried::Act), None);
    let Verdict::Ask(flow) = email_case().check("http://collector.test/k", Carried::Act) else { panic!() };
    assert_eq!(
        flow.question("using <button> \"7\" [4] (click_element)").to_string(),
        "The task holds your data (ada@example.org (an email address from your task)), and this would act on collector.test, a site outside the task's sites, by using <button> \"7\" [4] (click_element). What the agent does there (which links, keys or options it picks) can pass your data on in ways no check reads. Allow it? If you do, collector.test joins the task's sites."
    );
}

#[test]
fn what_the_task_holds_is_the_user_s_not_what_other_sites_showed() {
    let mut case = plain_case();
    case.flow.read_page("https://forum.test/", own(["Contact press@forum.test"]), &mut PageScans::default());
    assert_eq!(case.cause("http://collector.test/", Carried::Act), None, "read on a site outside the task's");
    case.flow.read_page(START, own(["Signed in as Grace Hopper"]), &mut PageScans::default());
    let held = Some((Cause::Holds, vec!["Grace Hopper".to_string()]));
    assert_eq!(case.cause("http://collector.test/", Carried::Act), held, "read on the task's own site");
    assert_eq!(case.cause("https://forum.test/reply", Carried::Act), held);
    // The search engine's results are public, not the user's.
    let mut searched = plain_case();
    searched.flow.choose("https://duckduckgo.com/?q=mugs");
    searched.flow.read_page("https://duckduckgo.com/?q=mugs", own(["mail sales@mugs.test"]), &mut PageScans::default());
    assert_eq!(searched.cause("http://collector.test/", Carried::Act), None);
    // What a frame of the task's site shows is the user's, whatever page frames it; what a
    // frame of another site shows on a page of the user's is the user's too (their account
    // widget served from another host), yet it may go back to the frame's site.
    let mut framed = plain_case();
    let texts = [
        (Some("https://collector.test/ad"), "Win a mug, write to win@collector.test"),
        (Some(START), "Signed in as Grace Hopper"),
    ];
    framed.flow.read_page("https://collector.test/deals", texts.into_iter(), &mut PageScans::default());
    assert_eq!(framed.cause("http://collector.test/", Carried::Act), held, "the task's site framed by another");
    let mut framed = plain_case();
    framed.flow.read_page(START, texts[..1].iter().copied(), &mut PageScans::default());
    assert_eq!(framed.cause("http://collector.test/", Carried::Act), None, "back to the frame's own site");
    assert_eq!(
        framed.cause("http://third.test/", Carried::Act),
        Some((Cause::Holds, vec!["win@collector.test".to_string()])),
        "another site's frame on the user's page"
    );
    // A frame with no site of its own (a sandboxed message, a data: frame) shows what its page
    // wrote into it: the page's.
    for frame in ["about:srcdoc", "data:text/html,<p>hi</p>"] {
        let mut opaque = plain_case();
        let texts = [(Some(frame), "Your new account number: 4011 2299 7311")];
        opaque.flow.read_page(START, texts.into_iter(), &mut PageScans::default());
        let held = opaque.cause("http://collector.test/", Carried::Act);
        assert!(matches!(held, Some((Cause::Holds, _))), "{frame}: {held:?}");
    }
}

#[test]
fn a_page_s_address_is_read_as_the_model_reads_it_its_parameters_decoded() {
    let mut case = plain_case();
    let inbox = "https://shop.test/mail/inbox?account=ada.lovelace%40private.example";
    case.flow.read_page(inbox, own(["Inbox"]), &mut PageScans::default());
    assert_eq!(
        case.cause("http://collector.test/", Carried::Act),
        Some((Cause::Holds, vec!["ada.lovelace@private.example".to_string()]))
    );
}

#[test]
fn a_screenshot_of_the_user_s_page_makes_the_task_hold_it_one_of_another_site_does_not() {
    let mut case = plain_case();
    case.flow.saw_picture("https://forum.test/thread");
    assert_eq!(case.cause("http://collector.test/", Carried::Act), None, "another site's page");
    case.flow.saw_picture(START);
    let Some((Cause::Holds, held)) = case.cause("http://collector.test/", Carried::Act) else {
        panic!("holds nothing")
    };
    assert_eq!(held, ["a screenshot of shop.test"]);
}

#[test]
fn a_flood_of_made_up_data_pushes_out_only_its_own() {
    let mut case = plain_case();
    case.flow.read_page(START, own(["Signed in as ada.lovelace@private.example"]), &mut PageScans::default());
    let wall: Vec<String> = (0..480).map(|n| format!("reader{n}@wall.example")).collect();
    let texts = wall.iter().map(|text| (Some("https://collector.test/wall"), text.as_str()));
    case.flow.read_page(START, texts, &mut PageScans::default());
    assert!(matches!(case.cause("http://third.test/", Carried::Act), Some((Cause::Holds, _))));
    assert_eq!(case.flow.noted.len(), MAX_NOTED);
    assert_eq!(case.flow.noted[0].shown, "ada.lovelace@private.example", "the page's own item stays");
}

#[test]
fn secrets_the_task_used_and_files_attached_are_held() {
    let mut case = with_secret(&["login.test"]);
    assert_eq!(case.cause("http://collector.test/", Carried::Act), None, "a secret the task never used");
    case.rest = vec![r#"{"do":"input_text","index":3,"text":"<secret>shop_password</secret>"}"#.to_string()];
    assert_eq!(case.cause("http://collector.test/", Carried::Act), Some((Cause::Holds, vec!["shop_password".into()])));
    assert_eq!(case.cause("https://login.test/", Carried::Act), None, "where the secret is listed");
    let mut attached = plain_case();
    attached.attached = vec!["cv.pdf".to_string()];
    assert_eq!(attached.cause("http://collector.test/", Carried::Act), Some((Cause::Holds, vec!["cv.pdf".into()])));
}

#[test]
fn where_no_site_can_be_known_every_act_asks() {
    let case = plain_case();
    for to in ["about:srcdoc", "data:text/html,<input>", "about:blank", "null", ""] {
        assert_eq!(case.cause(to, Carried::Act).map(|(cause, _)| cause), Some(Cause::Unknown), "{to:?}");
    }
    let Verdict::Ask(flow) = case.check("data:text/html,<input>", Carried::Typed("ada")) else { panic!() };
    assert_eq!(
        flow.question("typing into <input> [2]").to_string(),
        "This would act where no site can be known (data:text/html,<input>: a frame with no address of its own, or a sandboxed one), by typing into <input> [2]. What is typed or chosen there may reach anyone. Allow it?"
    );
}

#[test]
fn the_search_engine_is_its_results_page_not_its_domain() {
    let mut case = email_case();
    case.search = "https://www.google.com/search?q=";
    assert_eq!(case.cause("https://www.google.com/search?q=blue+mugs", Carried::Address), None);
    let held = Some((Cause::Holds, vec!["ada@example.org".to_string()]));
    assert_eq!(case.cause("https://sites.google.com/view/collector", Carried::Link), held);
    let mut plain = plain_case();
    plain.search = "https://www.google.com/search?q=";
    let form = "https://docs.google.com/forms/d/e/1/formResponse?entry.1=ada+at+example";
    assert!(matches!(plain.cause(form, Carried::Address), Some((Cause::Written, _))));
}

#[test]
fn a_site_is_on_its_own_port_and_an_e_mail_address_names_no_site() {
    // Started on the scheme's own port, another port of the same host is another server.
    let mut case = plain_case();
    case.flow.choose("http://127.0.0.1/");
    assert_eq!(case.cause("http://127.0.0.1/", Carried::Act), None);
    assert!(case.cause("http://127.0.0.1:8080/c?e=ada@example.org", Carried::Address).is_some());
    // The mailbox's domain is not a site the user chose.
    let mail = Case::new("sign me up with ada@mail.collector.test");
    assert!(mail.cause("http://mail.collector.test/", Carried::Act).is_some());
}
