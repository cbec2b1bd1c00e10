use super::*;

/// A page that opened at `url` with `status`.
fn page(url: &str, status: u16) -> Navigation {
    Navigation { url: url.into(), committed: true, status: Some(status), ..Navigation::default() }
}

/// The browser's error page at `url` for `error`, as Chrome reports it (no commit).
fn error_page(url: &str, error: &str) -> Navigation {
    Navigation { url: url.into(), error: Some(error.into()), ..Navigation::default() }
}

/// A download: nothing committed, the tab still at `showing`.
fn download(showing: &str, disposition: Option<&str>) -> Navigation {
    Navigation {
        url: showing.into(),
        status: Some(200),
        error: Some(ABORTED.into()),
        disposition: disposition.map(str::to_string),
        ..Navigation::default()
    }
}

#[test]
fn a_page_that_opened_is_named_with_where_redirects_led() {
    let said = opened("https://shop.test/faq", &page("https://shop.test/faq", 200));
    assert_eq!(said, Said { text: "Opened https://shop.test/faq.".into(), ok: true, left_page: true });
    // The browser writes a bare host with its slash: not a redirect.
    assert_eq!(opened("https://Shop.test", &page("https://shop.test/", 200)).text, "Opened https://Shop.test.");
    let said = opened("http://shop.test/old", &page("https://shop.test/new", 200));
    assert_eq!(said.text, "Opened http://shop.test/old, which redirected to https://shop.test/new.");
    assert!(said.ok);
    // Restored from the back-forward cache: no status, a page all the same.
    let restored = Navigation { url: "https://shop.test/".into(), committed: true, ..Navigation::default() };
    assert_eq!(moved(HistoryStep::Back, &restored).text, "Went back to https://shop.test/.");
}

#[test]
fn an_error_status_is_said_with_what_to_do_and_fails_the_action() {
    let said = opened("https://shop.test/nope", &page("https://shop.test/nope", 404));
    assert_eq!(
        said,
        Said {
            text: "Opened https://shop.test/nope, but the server answered 404 (Not Found): there is no page at this address. Check the address, or find the page from the site's home page or with a search.".into(),
            ok: false,
            left_page: true,
        }
    );
    assert_eq!(
        opened("https://shop.test/cart", &page("https://shop.test/cart", 500)).text,
        "Opened https://shop.test/cart, but the server answered 500 (Internal Server Error): the site failed to make the page. Try again later, or find the information on another site."
    );
    assert_eq!(
        opened("https://shop.test/admin", &page("https://shop.test/admin", 403)).text,
        "Opened https://shop.test/admin, but the server answered 403 (Forbidden): the site refuses access to this page. The page may need the user's sign-in or be closed to visitors: try another way to the information, or tell the user."
    );
    assert!(opened("https://a.test/", &page("https://a.test/", 429))
        .text
        .contains("429 (Too Many Requests): the site limits how often it is visited. Wait before trying again"));
    assert!(opened("https://a.test/", &page("https://a.test/", 401))
        .text
        .contains("401 (Unauthorized): the page needs a sign-in."));
    assert!(opened("https://a.test/", &page("https://a.test/", 418))
        .text
        .contains("418 (I'm a teapot): the site refused the request."));
    assert!(opened("https://a.test/", &page("https://a.test/", 599)).text.contains("answered 599: the site failed"));
    // Chrome shows its own error page for an error status without a body; the status still says it.
    let empty = Navigation { status: Some(404), ..error_page("https://shop.test/x", RESPONSE_CODE_FAILURE) };
    assert!(opened("https://shop.test/x", &empty)
        .text
        .starts_with("Opened https://shop.test/x, but the server answered 404 (Not Found)"));
    // Redirected to the error.
    assert!(opened("https://shop.test/old", &page("https://shop.test/gone", 410))
        .text
        .starts_with("Opened https://shop.test/old, which redirected to https://shop.test/gone, but the server answered 410 (Gone): the page was removed."));
}

#[test]
fn the_browsers_error_page_is_said_with_its_reason_and_fails_the_action() {
    let said = opened("http://refused.test/", &error_page("http://refused.test/", "net::ERR_CONNECTION_REFUSED"));
    assert_eq!(
        said,
        Said {
            text: "Could not open http://refused.test/: the server refused the connection (net::ERR_CONNECTION_REFUSED); the tab shows the browser's error page. Check the address (its host and port), or try another site.".into(),
            ok: false,
            left_page: true,
        }
    );
    let cases = [
        ("net::ERR_NAME_NOT_RESOLVED", "no server has this name (the address's host does not exist) (net::ERR_NAME_NOT_RESOLVED); the tab shows the browser's error page. Check the spelling of the address, or search for the site instead."),
        ("net::ERR_CONNECTION_TIMED_OUT", "the server did not answer in time (net::ERR_CONNECTION_TIMED_OUT); the tab shows the browser's error page. Try again later, or try another site."),
        ("net::ERR_UNSAFE_PORT", "the browser does not connect to this port, which it blocks as unsafe (net::ERR_UNSAFE_PORT); the tab shows the browser's error page. Use the site's usual address, without this port."),
        ("net::ERR_INTERNET_DISCONNECTED", "the browser could not reach the network (net::ERR_INTERNET_DISCONNECTED)"),
        ("net::ERR_CONNECTION_RESET", "the server cut the connection before sending a page (net::ERR_CONNECTION_RESET)"),
        ("net::ERR_CERT_DATE_INVALID", "the site's secure connection cannot be trusted (net::ERR_CERT_DATE_INVALID); the tab shows the browser's error page. Do not try to get around it"),
        ("net::ERR_TOO_MANY_REDIRECTS", "the site redirects in a loop (net::ERR_TOO_MANY_REDIRECTS)"),
        ("net::ERR_BLOCKED_BY_CLIENT", "the browser blocked it (the user's site lists, or a content blocker) (net::ERR_BLOCKED_BY_CLIENT); the tab shows the browser's error page. Do not try to reach it another way"),
        ("net::ERR_HTTP_RESPONSE_CODE_FAILURE", "the server answered with an error and sent no page (net::ERR_HTTP_RESPONSE_CODE_FAILURE)"),
        ("net::ERR_SOMETHING_NEW", "the browser could not load it (net::ERR_SOMETHING_NEW); the tab shows the browser's error page. Check the address, or try another site."),
    ];
    for (error, says) in cases {
        let said = opened("https://a.test/", &error_page("https://a.test/", error));
        assert!(said.text.starts_with(&format!("Could not open https://a.test/: {says}")), "{error}: {}", said.text);
        assert!(!said.ok && said.left_page, "{error}");
    }
    // A redirect that led to the failure names both addresses.
    assert!(opened("https://a.test/", &error_page("https://b.test/", "net::ERR_NAME_NOT_RESOLVED"))
        .text
        .starts_with("Could not open https://a.test/, which redirected to https://b.test/: no server has this name"));
}

#[test]
fn a_download_is_said_with_its_file_name_and_leaves_the_page_as_it_was() {
    let said = opened(
        "https://shop.test/report",
        &download("https://shop.test/", Some("attachment; filename=\"report 2024.pdf\"")),
    );
    assert_eq!(
        said,
        Said {
            text: "https://shop.test/report did not open as a page: it is a file, \"report 2024.pdf\", which the browser downloaded instead of showing it; the tab still shows https://shop.test/. The files the task downloaded are named after this, with whether the agent can read them.".into(),
            ok: true,
            left_page: false,
        }
    );
    // A type the browser does not show is downloaded too, named by the browser.
    let said = opened("https://shop.test/data.bin", &download("https://shop.test/", None));
    assert!(said.text.starts_with("https://shop.test/data.bin did not open as a page: it is a file, which the browser downloaded instead of showing it; the tab still shows https://shop.test/."), "{}", said.text);
    // A download opened in a new tab: Chrome closes the tab again.
    let closed = NewTab::ClosedAgain("t1".into());
    let said = opened_in_new_tab(
        "https://shop.test/report",
        &download("https://shop.test/report", Some("attachment; filename=r.pdf")),
        &closed,
    );
    assert_eq!(
        said,
        Said {
            text: "https://shop.test/report did not open as a page: it is a file, \"r.pdf\", which the browser downloaded instead of showing it; the browser closed the new tab again, and the current tab is still t1. The files the task downloaded are named after this, with whether the agent can read them.".into(),
            ok: true,
            left_page: false,
        }
    );
}

#[test]
fn nothing_shown_is_not_taken_for_a_download() {
    let no_content = Navigation { status: Some(204), ..download("https://shop.test/", None) };
    let said = opened("https://shop.test/ping", &no_content);
    assert_eq!(
        said,
        Said {
            text: "https://shop.test/ping did not open as a page: the server answered 204 (No Content) with nothing to show; the tab still shows https://shop.test/. Try another address, or another way to the page.".into(),
            ok: false,
            left_page: false,
        }
    );
    let cancelled = Navigation { status: None, ..download("https://shop.test/", None) };
    assert!(opened("https://shop.test/slow", &cancelled).text.starts_with(
        "https://shop.test/slow did not open as a page: the navigation was cancelled before any page came"
    ));
    // Stopped after the page came: the page is there.
    let stopped = Navigation { error: Some(ABORTED.into()), ..page("https://shop.test/long", 200) };
    assert_eq!(opened("https://shop.test/long", &stopped).text, "Opened https://shop.test/long.");
}

#[test]
fn a_new_tab_says_where_it_is_and_what_it_shows() {
    let t2 = NewTab::Open("t2".into());
    assert_eq!(
        opened_in_new_tab("https://shop.test/faq", &page("https://shop.test/faq", 200), &t2),
        Said {
            text: "Opened https://shop.test/faq in a new tab, t2; it is now the current tab.".into(),
            ok: true,
            left_page: true
        }
    );
    assert_eq!(
        opened_in_new_tab("https://shop.test/faq", &page("https://shop.test/faq", 404), &t2).text,
        "Opened https://shop.test/faq in a new tab, t2, which is now the current tab, but the server answered 404 (Not Found): there is no page at this address. Check the address, or find the page from the site's home page or with a search."
    );
    let refused =
        opened_in_new_tab("http://a.test:81/", &error_page("http://a.test:81/", "net::ERR_CONNECTION_REFUSED"), &t2);
    assert_eq!(
        refused,
        Said {
            text: "Could not open http://a.test:81/: the server refused the connection (net::ERR_CONNECTION_REFUSED); the new tab, t2, shows the browser's error page and is now the current tab. Check the address (its host and port), or try another site.".into(),
            ok: false,
            left_page: true,
        }
    );
    assert!(may_close_new_tab(&download("about:blank", None)));
    assert!(!may_close_new_tab(&page("https://a.test/", 200)));
    assert!(!may_close_new_tab(&error_page("https://a.test/", "net::ERR_CONNECTION_REFUSED")));
}

#[test]
fn back_forward_and_reload_say_where_they_led() {
    assert_eq!(moved(HistoryStep::Back, &page("https://shop.test/", 200)).text, "Went back to https://shop.test/.");
    assert_eq!(
        moved(HistoryStep::Forward, &page("https://shop.test/b", 200)).text,
        "Went forward to https://shop.test/b."
    );
    assert_eq!(moved(HistoryStep::Reload, &page("https://shop.test/c", 200)).text, "Reloaded https://shop.test/c.");
    let failed = moved(HistoryStep::Reload, &page("https://shop.test/c", 503));
    assert_eq!(
        failed.text,
        "Reloaded https://shop.test/c, but the server answered 503 (Service Unavailable): the site failed to make the page. Try again later, or find the information on another site."
    );
    assert!(!failed.ok);
    let offline = moved(HistoryStep::Back, &error_page("https://shop.test/", "net::ERR_INTERNET_DISCONNECTED"));
    assert_eq!(
        offline.text,
        "Went back, but https://shop.test/ could not load: the browser could not reach the network (net::ERR_INTERNET_DISCONNECTED); the tab shows the browser's error page. The connection may be down: try again in a moment, or tell the user."
    );
    assert_eq!(moved(HistoryStep::Back, &Navigation { committed: true, ..Navigation::default() }).text, "Went back.");
}

#[test]
fn file_names_are_read_as_rfc_6266_says_and_kept_short() {
    let name = |header: &str| file_name(header);
    assert_eq!(name("attachment; filename=report.pdf").as_deref(), Some("report.pdf"));
    assert_eq!(name("attachment; filename=\"a; b \\\"c\\\".pdf\"").as_deref(), Some("a; b \"c\".pdf"));
    // The extended form wins, in its encoding, whatever the order.
    assert_eq!(
        name("attachment; filename*=UTF-8''%E2%82%AC%20rates.pdf; filename=\"EUR rates.pdf\"").as_deref(),
        Some("€ rates.pdf")
    );
    assert_eq!(name("attachment; FILENAME*=iso-8859-1'en'%A3%20rates.pdf").as_deref(), Some("£ rates.pdf"));
    // No folders, no control characters, a bounded length.
    assert_eq!(name("attachment; filename=\"../../etc/passwd\"").as_deref(), Some("passwd"));
    assert_eq!(name("attachment; filename=\"C:\\\\x\\\\y.txt\"").as_deref(), Some("y.txt"));
    assert_eq!(name("attachment; filename=\"a\u{7}b.txt\"").as_deref(), Some("ab.txt"));
    assert_eq!(name(&format!("attachment; filename=\"{}.txt\"", "x".repeat(300))).unwrap().chars().count(), 101);
    assert_eq!(name("attachment"), None);
    assert_eq!(name("attachment; filename=\"\""), None);
    assert!(is_attachment("Attachment; filename=a"));
    assert!(!is_attachment("inline; filename=a.pdf"));
    // An inline file the browser shows is a page.
    let inline = page("https://a.test/a.pdf", 200);
    assert_eq!(Arrival::of(&Navigation { disposition: Some("inline".into()), ..inline }), Arrival::Page);
}

/// The agent, with the fake browser following Chrome's reports, as the model sees it.
mod in_the_agent {
    use crate::agent::fakes::{outcomes, reply, run, FakeShop, ScriptedModel, Served};
    use crate::agent::AgentEvent;

    fn done() -> Result<String, crate::llm::LlmError> {
        reply(r#"[{"do":"done","text":"ok","success":true}]"#)
    }

    #[test]
    fn a_refused_connection_fails_the_action_stops_the_step_and_the_next_state_says_so() {
        let shop = FakeShop::new();
        shop.network.borrow_mut().insert("http://refused.test/".into(), Served::Fails("net::ERR_CONNECTION_REFUSED"));
        let model = ScriptedModel::new(vec![
            reply(r#"[{"do":"go_to_url","url":"http://refused.test/"},{"do":"click_element","index":1,"click":null}]"#),
            done(),
        ]);
        let (_, events) = run(&shop, &model, 5);
        let said = outcomes(&events);
        assert_eq!(
            said,
            ["Could not open http://refused.test/: the server refused the connection (net::ERR_CONNECTION_REFUSED); the tab shows the browser's error page. Check the address (its host and port), or try another site.", "ok"]
        );
        assert_eq!(shop.cart.get(), 0, "the click chosen for the page before was not run");
        let AgentEvent::Step { actions, .. } = events.iter().find(|e| matches!(e, AgentEvent::Step { .. })).unwrap()
        else {
            unreachable!()
        };
        assert!(!actions[0].ok);
        let state = model.state(1);
        assert!(state.contains("Could not open http://refused.test/: the server refused the connection"), "{state}");
        assert!(
            state.contains(
                "The current page cannot be read: the page did not load: the tab shows the browser's error page."
            ),
            "{state}"
        );
    }

    #[test]
    fn failed_navigations_count_as_failed_steps() {
        let shop = FakeShop::new();
        shop.network.borrow_mut().insert("https://gone.test/".into(), Served::Fails("net::ERR_NAME_NOT_RESOLVED"));
        shop.network.borrow_mut().insert("https://shop.test/x".into(), Served::EmptyError(500));
        let model = ScriptedModel::new(vec![
            reply(r#"[{"do":"go_to_url","url":"https://gone.test/"}]"#),
            reply(r#"[{"do":"go_to_url","url":"https://shop.test/x"}]"#),
            reply(r#"[{"do":"go_to_url","url":"https://gone.test/"}]"#),
            done(),
        ]);
        let (end, _) = run(&shop, &model, 10);
        let AgentEvent::Error { message, steps } = end else { panic!("{end:?}") };
        assert_eq!(steps, 3);
        let english = message.text().unwrap().english();
        assert!(english.starts_with("The task stopped after 3 failed steps in a row."), "{english}");
    }

    #[test]
    fn a_download_keeps_the_page_so_the_steps_other_actions_run() {
        let shop = FakeShop::new();
        shop.network.borrow_mut().insert(
            "https://shop.test/invoice".into(),
            Served::File(Some("attachment; filename=invoice-7.pdf".into())),
        );
        let model = ScriptedModel::new(vec![
            reply(
                r#"[{"do":"go_to_url","url":"https://shop.test/invoice"},{"do":"click_element","index":1,"click":null}]"#,
            ),
            done(),
        ]);
        let (_, events) = run(&shop, &model, 5);
        let said = outcomes(&events);
        assert_eq!(said[0], "https://shop.test/invoice did not open as a page: it is a file, \"invoice-7.pdf\", which the browser downloaded instead of showing it; the tab still shows http://shop.test/. The files the task downloaded are named after this, with whether the agent can read them.");
        assert_eq!(said[1], "Clicked <button> \"Add blue mug\" [1].");
        assert_eq!((shop.cart.get(), shop.url.borrow().as_str()), (1, "http://shop.test/"));
    }

    #[test]
    fn a_download_in_a_new_tab_leaves_the_current_tab_and_its_name_unused() {
        let shop = FakeShop::new();
        shop.network.borrow_mut().insert("https://shop.test/file".into(), Served::File(None));
        shop.network
            .borrow_mut()
            .insert("https://shop.test/old".into(), Served::Redirect("https://shop.test/new".into()));
        let model = ScriptedModel::new(vec![
            reply(r#"[{"do":"open_tab","url":"https://shop.test/file"}]"#),
            reply(r#"[{"do":"open_tab","url":"https://shop.test/old"}]"#),
            done(),
        ]);
        let (_, events) = run(&shop, &model, 5);
        let said = outcomes(&events);
        assert_eq!(said[0], "https://shop.test/file did not open as a page: it is a file, which the browser downloaded instead of showing it; the browser closed the new tab again, and the current tab is still t1. The files the task downloaded are named after this, with whether the agent can read them.");
        assert!(model.state(1).contains("Current URL: http://shop.test/\n"), "{}", model.state(1));
        // The download's tab took an id, not a name.
        assert_eq!(shop.current_tab.get(), 3);
        assert_eq!(said[1], "Opened https://shop.test/old (redirected to https://shop.test/new) in a new tab, t2; it is now the current tab.");
    }

    #[test]
    fn mcp_navigate_tells_the_app_what_happened_and_fails_the_call() {
        use crate::agent::fakes::{config, FakeUser};
        use crate::agent::{drive_session, DriveCommand, DriveReply, Models};
        use crate::cancel::CancelToken;
        use crate::mcp::{drive_result, HostMessage, Tool};
        use futures::channel::{mpsc, oneshot};
        let shop = FakeShop::new();
        shop.network.borrow_mut().insert("http://refused.test/".into(), Served::Fails("net::ERR_CONNECTION_REFUSED"));
        let call = |url: &str| {
            let message = serde_json::json!({"type": "call", "id": 7, "tool": "navigate", "args": {"url": url}});
            let Ok(HostMessage::Call { tool: Tool::Drive(command @ DriveCommand::Act(_)), .. }) =
                HostMessage::parse(&message)
            else {
                panic!("navigate is an action")
            };
            command
        };
        let model = ScriptedModel::new(vec![]);
        let user = FakeUser { approves: false, asked: Default::default(), reviews: Default::default() };
        let (requests, serving) = mpsc::unbounded();
        let replies = std::cell::RefCell::new(Vec::new());
        let client = async {
            for url in ["http://refused.test/", "http://shop.test/faq"] {
                let (answer, reply) = oneshot::channel();
                requests.unbounded_send((call(url), answer)).unwrap();
                let answered = reply.await.unwrap();
                replies.borrow_mut().push(answered);
            }
            drop(requests);
        };
        let (config, cancel) = (config(10), CancelToken::new());
        let served = drive_session(&config, "app", &shop, Models::single(&model), &user, &cancel, &|_| {}, serving);
        futures::executor::block_on(futures::future::join(served, client));
        let replies = replies.into_inner();
        let DriveReply::Failed(refused) = &replies[0] else { panic!("{:?}", replies[0]) };
        assert_eq!(refused, "go_to_url: Could not open http://refused.test/: the server refused the connection (net::ERR_CONNECTION_REFUSED); the tab shows the browser's error page. Check the address (its host and port), or try another site.");
        assert_eq!(drive_result(7, replies[0].clone())["ok"], false);
        assert!(
            matches!(&replies[1], DriveReply::Text(text) if text.starts_with("go_to_url: Opened http://shop.test/faq")),
            "{:?}",
            replies[1]
        );
    }
}
