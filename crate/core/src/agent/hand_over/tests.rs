use super::*;
use crate::agent::fakes::{config, reply, FakeShop, ScriptedModel};
use crate::agent::{run_task, AgentEvent, Limits, LiveLimits, Models, Review, TaskConfig, UserGate};
use crate::browser::Browser;
use crate::cancel::CancelToken;
use crate::dom_map::tests::{node, page, with_attrs};
use crate::safety::Secret;
use futures::executor::block_on;
use std::cell::RefCell;
use std::collections::VecDeque;

fn top(nodes: Vec<RawNode>) -> RawFrame {
    let mut raw = page(nodes);
    raw.url = "https://mail.test/inbox".into();
    RawFrame { frame_id: 0, page: Ok(raw) }
}

fn input(id: u32, attrs: &[(&str, &str)]) -> RawNode {
    with_attrs(node(id, Some(0), "input", ""), attrs)
}

fn iframe(id: u32, title: &str) -> RawNode {
    let mut frame = with_attrs(node(id, Some(0), "iframe", ""), &[("title", title)]);
    frame.rect = [0.0, 100.0, 300.0, 80.0];
    frame
}

/// The frame shown by iframe `id` of the top page, at `url`.
fn child(id: u32, url: &str) -> RawFrame {
    let mut raw = page(vec![node(1, None, "body", "")]);
    (raw.doc, raw.host, raw.url) = (format!("child-{id}"), format!("doc-1:{id}"), url.into());
    RawFrame { frame_id: id as i32, page: Ok(raw) }
}

#[test]
fn a_shown_password_field_is_a_sign_in_and_a_hidden_one_is_still_guarded() {
    let needs = PageNeeds::read(&[top(vec![node(1, None, "body", ""), input(2, &[("type", "password")])])]);
    assert!(needs.password && !needs.code && needs.captcha.is_none());
    let target = |id| ElementRef { frame_id: 0, doc: "doc-1".into(), id };
    assert!(needs.is_secret_field(&target(2)) && !needs.is_secret_field(&target(1)));

    let mut hidden = input(2, &[("type", "password")]);
    hidden.visible = false;
    let needs = PageNeeds::read(&[top(vec![node(1, None, "body", ""), hidden])]);
    assert!(!needs.password, "a hidden password field asks nothing of the user");
    assert!(needs.is_secret_field(&target(2)));
}

#[test]
fn one_time_code_fields_are_known_by_autofill_or_name_and_other_codes_are_not() {
    let code = |attrs: &[(&str, &str)]| PageNeeds::read(&[top(vec![input(2, attrs)])]).code;
    assert!(code(&[("autocomplete", "one-time-code")]));
    assert!(code(&[("name", "otp")]));
    assert!(code(&[("aria-label", "Verification code")]));
    assert!(code(&[("inputmode", "numeric"), ("name", "code")]));
    assert!(!code(&[("inputmode", "numeric"), ("name", "zip_code")]));
    assert!(!code(&[("name", "promo-code")]));
    assert!(!code(&[("name", "q")]));
    assert!(!code(&[("type", "checkbox"), ("name", "otp")]));
    // Whole words of one name at a time: Tom Select's time-zone box is not "one time".
    assert!(!code(&[("placeholder", "Search a time zone"), ("id", "timezone-ts-control")]));
    assert!(!code(&[("name", "phonetime")]));
    assert!(code(&[("id", "otpInput")]));
    assert!(code(&[("name", "mfa_token")]));
    assert!(code(&[("placeholder", "Enter your one-time code")]));
}

#[test]
fn captcha_frames_are_known_by_their_address_or_title_and_invisible_ones_are_not() {
    let widget = |frames: Vec<RawFrame>| PageNeeds::read(&frames).captcha;
    let with_frame = |url: &str| widget(vec![top(vec![iframe(7, "")]), child(7, url)]);
    assert_eq!(with_frame("https://www.google.com/recaptcha/api2/anchor?k=x&size=normal"), Some("reCAPTCHA"));
    // A copy served from elsewhere (the tests' loopback) is the same widget.
    assert_eq!(with_frame("http://127.0.0.1:8000/recaptcha/api2/anchor?k=x"), Some("reCAPTCHA"));
    assert_eq!(
        with_frame("https://newassets.hcaptcha.com/captcha/v1/abc/static/hcaptcha.html#frame=checkbox"),
        Some("hCaptcha")
    );
    assert_eq!(
        with_frame("https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv/x/"),
        Some("Cloudflare Turnstile")
    );
    assert_eq!(with_frame("https://www.google.com/recaptcha/api2/anchor?k=x&size=invisible"), None);
    assert_eq!(with_frame("https://www.youtube.com/embed/abc"), None);
    // A frame the sensor could not read is known by its iframe's title.
    assert_eq!(
        widget(vec![top(vec![iframe(7, "Widget containing checkbox for hCaptcha security challenge")])]),
        Some("hCaptcha")
    );
    let mut hidden = iframe(7, "");
    hidden.visible = false;
    assert_eq!(widget(vec![top(vec![hidden]), child(7, "https://www.google.com/recaptcha/api2/bframe?k=x")]), None);
}

#[test]
fn a_sign_in_is_the_users_unless_the_task_gave_one_for_the_site() {
    let needs = PageNeeds::read(&[top(vec![input(2, &[("type", "password")])])]);
    let task = |text: &str| vec![text.to_string()];
    assert_eq!(needs.reason(&Secrets::default(), &task("archive my newsletters")), Some(Reason::Login));
    assert_eq!(needs.reason(&Secrets::default(), &task("log in as bob, password hunter2")), None);
    let secret = |domains: &[&str]| {
        let domains = domains.iter().map(|d| d.to_string()).collect();
        Secrets::new(vec![Secret { name: "pw".into(), value: "hunter2".into(), domains }]).unwrap()
    };
    assert_eq!(needs.reason(&secret(&["mail.test"]), &task("archive")), None);
    assert_eq!(needs.reason(&secret(&["bank.test"]), &task("archive")), Some(Reason::Login));

    let code = PageNeeds::read(&[top(vec![input(2, &[("autocomplete", "one-time-code")])])]);
    assert_eq!(code.reason(&Secrets::default(), &task("archive")), Some(Reason::Code));
    assert_eq!(code.reason(&Secrets::default(), &task("archive; the code is 482913")), None);
}

/// A user who takes over as scripted: each hand-over runs `act` (what they do in the tab), takes
/// `minutes` of their time on the browser's clock, and gives the next answer.
struct TakingOver<'a> {
    shop: &'a FakeShop,
    answers: RefCell<VecDeque<HandOver>>,
    act: Box<dyn Fn(&FakeShop) + 'a>,
    minutes: u32,
    asked: RefCell<Vec<u32>>,
}

impl UserGate for TakingOver<'_> {
    /// Allows what the agent asks to do (typing into a password field is put to the user too).
    async fn approve(&self, _id: u32) -> bool {
        true
    }

    async fn review(&self, _id: u32) -> Review {
        Review::Run
    }

    async fn hand_over(&self, id: u32) -> HandOver {
        self.asked.borrow_mut().push(id);
        (self.act)(self.shop);
        self.shop.slept_ms.set(self.shop.slept_ms.get() + self.minutes * 60_000);
        self.answers.borrow_mut().pop_front().unwrap_or(HandOver::Unanswered)
    }
}

fn user<'a>(shop: &'a FakeShop, answers: Vec<HandOver>, act: impl Fn(&FakeShop) + 'a) -> TakingOver<'a> {
    TakingOver {
        shop,
        answers: RefCell::new(answers.into()),
        act: Box::new(act),
        minutes: 3,
        asked: RefCell::default(),
    }
}

fn run_as(
    config: &TaskConfig,
    shop: &FakeShop,
    model: &ScriptedModel,
    user: &TakingOver,
) -> (AgentEvent, Vec<AgentEvent>) {
    let events = RefCell::new(Vec::new());
    let emit = |event: AgentEvent| events.borrow_mut().push(event);
    let end = block_on(run_task(config, shop, Models::single(model), user, &CancelToken::new(), &emit));
    (end, events.into_inner())
}

/// A sign-in form on the shop's pages: a user name and a password field (indices 5 and 6).
fn sign_in_form(shop: &FakeShop) {
    *shop.extra_nodes.borrow_mut() =
        vec![input(20, &[("name", "user")]), input(21, &[("type", "password"), ("name", "pw")])];
}

/// The model's first step: to the shop's sign-in page (where the task runs into the form).
const TO_SIGN_IN: &str = r#"[{"do":"go_to_url","url":"https://shop.test/login"}]"#;

fn hand_overs(events: &[AgentEvent]) -> Vec<(u32, Reason, String, i32)> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::HandOverNeeded { id, reason, question, tab, .. } => {
                Some((*id, *reason, question.to_string(), *tab))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_sign_in_wall_pauses_the_task_until_the_user_signed_in_and_the_page_is_read_afresh() {
    let shop = FakeShop::new();
    sign_in_form(&shop);
    let model = ScriptedModel::new(vec![
        reply(TO_SIGN_IN),
        reply(r#"[{"do":"done","text":"signed in, cart empty","success":true}]"#),
    ]);
    // The user signs in in the tab: the form goes, their account page comes.
    let signing_in = user(&shop, vec![HandOver::Continue(Some("I signed in".into()))], |shop| {
        shop.extra_nodes.borrow_mut().clear();
        *shop.url.borrow_mut() = "https://shop.test/account".into();
    });
    let (end, events) = run_as(&config(5), &shop, &model, &signing_in);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    let asked = hand_overs(&events);
    assert_eq!(asked.len(), 1, "{events:?}");
    assert_eq!(asked[0].1, Reason::Login);
    assert_eq!(asked[0].3, 1, "the task's tab");
    assert!(asked[0].2.contains("sign in to shop.test"), "{}", asked[0].2);
    // The form on the page the task started on was the user's to start on: no hand-over there.
    assert!(model.state(0).contains("password"));
    // The model saw the page after the sign-in, and was told what the user did and said.
    let state = model.state(1);
    assert!(state.contains("shop.test/account") && !state.contains("password"), "{state}");
    assert!(state.contains("The user took over and pressed Continue. They said: \"I signed in\"."), "{state}");
}

#[test]
fn a_page_still_asking_after_continue_is_not_handed_over_twice() {
    let shop = FakeShop::new();
    sign_in_form(&shop);
    let model = ScriptedModel::new(vec![
        reply(TO_SIGN_IN),
        reply(r#"[{"do":"wait","seconds":1}]"#),
        reply(r#"[{"do":"done","text":"could not sign in","success":false}]"#),
    ]);
    let lazy = user(&shop, vec![HandOver::Continue(None)], |_| {});
    let (end, events) = run_as(&config(5), &shop, &model, &lazy);
    assert!(matches!(end, AgentEvent::Result { success: false, .. }), "{end:?}");
    assert_eq!(hand_overs(&events).len(), 1, "asked once for the same page");
    assert!(model.state(1).contains("The user took over and pressed Continue. The page may have changed"));
}

#[test]
fn the_time_the_user_takes_is_not_the_tasks() {
    let shop = FakeShop::new();
    sign_in_form(&shop);
    let model = ScriptedModel::new(vec![reply(TO_SIGN_IN), reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    let slow = user(&shop, vec![HandOver::Continue(None)], |shop| shop.extra_nodes.borrow_mut().clear());
    let (_, events) = run_as(&config(5), &shop, &model, &slow);
    let record = events
        .iter()
        .find_map(|event| match event {
            AgentEvent::RunRecorded { record, .. } => Some(record.clone()),
            _ => None,
        })
        .unwrap();
    let waited = record["user_wait_ms"].as_f64().unwrap();
    assert!(waited >= 180_000.0, "{record}");
    let duration = record["duration_ms"].as_f64().unwrap();
    assert!(duration < 10_000.0, "the three minutes the user took are not the task's: {duration}");
    let step_ms = record["steps"][1]["timing"]["step_ms"].as_f64().unwrap();
    assert!(step_ms < 10_000.0, "nor the step's: {step_ms}");
}

#[test]
fn the_model_asks_the_user_and_hears_the_answer() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"ask_user","question":"Which size, S or M?"},{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let answering = user(&shop, vec![HandOver::Continue(Some("M please".into()))], |_| {});
    let (end, events) = run_as(&config(5), &shop, &model, &answering);
    assert!(matches!(end, AgentEvent::Result { success: true, .. }), "{end:?}");
    let asked = hand_overs(&events);
    assert_eq!(
        asked.iter().map(|(_, reason, question, _)| (*reason, question.as_str())).collect::<Vec<_>>(),
        [(Reason::Ask, "Which size, S or M?")]
    );
    let state = model.state(1);
    assert!(state.contains("You asked the user: \"Which size, S or M?\". The user took over and pressed Continue. They said: \"M please\"."), "{state}");
    // The page may have changed under the rest of the step: the click waits for a fresh look.
    assert_eq!(shop.cart.get(), 0);
}

#[test]
fn a_stop_stops_the_task_and_no_answer_ends_it_saying_why() {
    let shop = FakeShop::new();
    sign_in_form(&shop);
    let model = ScriptedModel::new(vec![reply(TO_SIGN_IN)]);
    let (end, _) = run_as(&config(5), &shop, &model, &user(&shop, vec![HandOver::Stop], |_| {}));
    assert_eq!(end, AgentEvent::Stopped { steps: 2 });

    let shop = FakeShop::new();
    sign_in_form(&shop);
    let model = ScriptedModel::new(vec![reply(TO_SIGN_IN)]);
    let (end, _) = run_as(&config(5), &shop, &model, &user(&shop, vec![HandOver::Unanswered], |_| {}));
    let AgentEvent::Error { message, .. } = end else { panic!("{end:?}") };
    let message = message.to_string();
    assert!(message.contains("no one took over") && message.contains("sign in to shop.test"), "{message}");
    assert_eq!(model.requests.borrow().len(), 1, "the model was not asked again");
}

#[test]
fn a_captcha_frame_pauses_the_task() {
    let shop = FakeShop::new();
    shop.extra_nodes.borrow_mut().push(iframe(30, "reCAPTCHA"));
    shop.extra_frames.borrow_mut().push(child(30, "http://127.0.0.1:9/recaptcha/api2/anchor?k=test"));
    let model = ScriptedModel::new(vec![reply(r#"[{"do":"done","text":"ok","success":true}]"#)]);
    let solving = user(&shop, vec![HandOver::Continue(None)], |shop| {
        shop.extra_nodes.borrow_mut().clear();
        shop.extra_frames.borrow_mut().clear();
    });
    let (_, events) = run_as(&config(5), &shop, &model, &solving);
    let asked = hand_overs(&events);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].1, Reason::Captcha);
    assert!(asked[0].2.contains("reCAPTCHA"), "{}", asked[0].2);
}

#[test]
fn a_password_or_code_the_user_did_not_give_is_never_typed() {
    // `judged`: typing into the password field is consequential, and the critic reads the
    // user's words first (a one-time-code field is not on the list of payment and password fields).
    let typed = |task: &str, secrets: Secrets, text: &str, judged: bool| {
        let shop = FakeShop::new();
        *shop.extra_nodes.borrow_mut() =
            vec![input(21, &[("type", "password")]), input(22, &[("autocomplete", "one-time-code")])];
        let mut replies = Vec::new();
        for index in [5, 6] {
            replies.push(reply(&format!(r#"[{{"do":"input_text","index":{index},"text":"{text}","clear":null}}]"#)));
            replies.extend((judged && index == 5).then(|| crate::agent::fakes::critic(true)));
        }
        replies.push(reply(r#"[{"do":"done","text":"ok","success":true}]"#));
        let model = ScriptedModel::new(replies);
        // The user continues without entering anything (the page asks for a code).
        let config = TaskConfig {
            task: task.into(),
            limits: LiveLimits::new(Limits { secrets, ..Limits::default() }),
            ..config(5)
        };
        let passing = user(&shop, vec![HandOver::Continue(None), HandOver::Continue(None)], |_| {});
        let (_, events) = run_as(&config, &shop, &model, &passing);
        let typed = shop.ops.borrow().iter().filter(|op| matches!(op, crate::browser::PageOp::Type { .. })).count();
        (typed, crate::agent::fakes::outcomes(&events))
    };
    let (count, outcomes) = typed("sign in to the shop", Secrets::default(), "hunter2", false);
    assert_eq!(count, 0, "{outcomes:?}");
    assert!(
        outcomes[0].starts_with("Did not type into <input> [5]: it is a password or one-time-code field"),
        "{outcomes:?}"
    );
    assert!(outcomes[0].contains("use ask_user"), "{outcomes:?}");
    assert!(outcomes[1].starts_with("Did not type into <input> [6]"), "{outcomes:?}");
    // The user's own words, or their secret, are theirs to type.
    let (count, outcomes) = typed("sign in with the password hunter2", Secrets::default(), "hunter2", true);
    assert_eq!(count, 2, "{outcomes:?}");
    let secret = Secrets::new(vec![Secret { name: "pw".into(), value: "hunter2".into(), domains: vec![] }]).unwrap();
    let (count, outcomes) = typed("sign in to the shop", secret, "<secret>pw</secret>", false);
    assert_eq!(count, 2, "{outcomes:?}");
}

#[test]
fn the_tab_is_the_user_s_while_they_have_it_and_where_they_leave_it_is_then_the_task_s() {
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![
        reply(r#"[{"do":"ask_user","question":"Please sign in"}]"#),
        reply(r#"[{"do":"click_element","index":1,"click":null}]"#),
        reply(r#"[{"do":"done","text":"ok","success":true}]"#),
    ]);
    let blocked_everywhere = |shop: &FakeShop| {
        let rules = shop.restricted.borrow().last().map(|(_, rules)| rules.clone()).unwrap_or_default();
        rules.iter().any(|rule| rule["action"]["type"] == "block" && rule["condition"]["requestDomains"].is_null())
    };
    let firewall_while_theirs = RefCell::new(None);
    let signing_in = user(&shop, vec![HandOver::Continue(None)], |shop| {
        firewall_while_theirs.replace(Some(blocked_everywhere(shop)));
        let went = futures::FutureExt::now_or_never(shop.navigate(1, "http://sso.test/signed-in"));
        went.expect("the fake navigates at once").unwrap();
    });
    let config = TaskConfig { task: "sign me up with ada@example.org".into(), ..config(5) };
    let (_, events) = run_as(&config, &shop, &model, &signing_in);
    assert_eq!(*firewall_while_theirs.borrow(), Some(false), "the firewall was lifted");
    assert!(blocked_everywhere(&shop), "and holds again");
    let asked: Vec<_> = events.iter().filter(|e| matches!(e, AgentEvent::ApprovalNeeded { .. })).collect();
    assert!(asked.is_empty(), "acting where the user left the tab asks nothing: {asked:?}");
    assert_eq!(shop.cart.get(), 1, "the click on sso.test ran");
}
