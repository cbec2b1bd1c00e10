use super::*;
use crate::browser::PageOp;
use serde_json::json;

#[test]
fn reads_each_action() {
    let cases = [
        (json!({"go_to_url": {"url": "https://a.test"}}), Action::GoToUrl { url: "https://a.test".into() }),
        (json!({"search": {"query": "blue mug"}}), Action::Search { query: "blue mug".into() }),
        (json!({"go_back": {}}), Action::GoBack),
        (json!({"go_forward": null}), Action::GoForward),
        (json!({"reload": {}}), Action::Reload),
        (json!({"wait": {"seconds": 60}}), Action::Wait { seconds: MAX_WAIT_SECONDS }),
        (json!({"wait": {"seconds": null}}), Action::Wait { seconds: 2.0 }),
        (json!({"click_element": {"index": 7}}), Action::ClickElement { index: 7, click: Click::Single }),
        (json!({"click_element": {"index": "*[7]"}}), Action::ClickElement { index: 7, click: Click::Single }),
        (
            json!({"click_element": {"index": 7, "click": "Double"}}),
            Action::ClickElement { index: 7, click: Click::Double },
        ),
        (
            json!({"click_element": {"index": 7, "click": "right"}}),
            Action::ClickElement { index: 7, click: Click::Right },
        ),
        (
            json!({"input_text": {"index": 3, "text": "mug"}}),
            Action::InputText { index: 3, text: "mug".into(), clear: true },
        ),
        (
            json!({"input_text": {"index": 3, "text": "s", "clear": false}}),
            Action::InputText { index: 3, text: "s".into(), clear: false },
        ),
        (json!({"send_keys": {"keys": "Control+A"}}), Action::SendKeys { keys: "Control+A".into() }),
        (json!({"hover": {"index": 2}}), Action::Hover { index: 2 }),
        (
            json!({"select_option": {"index": 2, "text": "Blue"}}),
            Action::SelectOption { index: 2, text: "Blue".into() },
        ),
        (json!({"get_dropdown_options": {"index": 2}}), Action::GetDropdownOptions { index: 2 }),
        (
            json!({"scroll": {"direction": "down", "pages": null, "index": null}}),
            Action::Scroll { direction: ScrollDirection::Down, pages: 1.0, index: None },
        ),
        (
            json!({"scroll": {"direction": "Bottom", "pages": 2, "index": 9}}),
            Action::Scroll { direction: ScrollDirection::Bottom, pages: 2.0, index: Some(9) },
        ),
        (json!({"scroll_to_text": {"text": "Reviews"}}), Action::ScrollToText { text: "Reviews".into() }),
        (json!({"find_text": {"text": "Price"}}), Action::FindText { text: "Price".into() }),
        (json!({"open_tab": {"url": "https://b.test"}}), Action::OpenTab { url: "https://b.test".into() }),
        (json!({"switch_tab": {"tab": "t12"}}), Action::SwitchTab { tab: TabAlias(12) }),
        (json!({"switch_tab": {"tab": " T3"}}), Action::SwitchTab { tab: TabAlias(3) }),
        (json!({"close_tab": {"tab": "2"}}), Action::CloseTab { tab: TabAlias(2) }),
        (json!({"close_tab": {"tab": 2}}), Action::CloseTab { tab: TabAlias(2) }),
        (json!({"extract": {"query": "the price"}}), Action::Extract { query: "the price".into() }),
        (json!({"done": {"text": "ok"}}), Action::Done { text: "ok".into(), success: true }),
    ];
    for (input, expected) in cases {
        assert_eq!(Action::from_json(&input), Ok(expected), "{input}");
    }
}

#[test]
fn writes_actions_back_in_the_form_it_reads() {
    for action in [
        Action::GoToUrl { url: "https://a.test/".into() },
        Action::GoBack,
        Action::Wait { seconds: 3.0 },
        Action::ClickElement { index: 2, click: Click::Single },
        Action::InputText { index: 3, text: "x".into(), clear: false },
        Action::Scroll { direction: ScrollDirection::Up, pages: 0.5, index: Some(4) },
        Action::SwitchTab { tab: TabAlias(8) },
        Action::Done { text: "ok".into(), success: false },
    ] {
        assert_eq!(Action::from_json(&action.to_json()), Ok(action));
    }
}

#[test]
fn explains_what_is_wrong_with_a_bad_action() {
    let err = Action::from_json(&json!({"fly": {}})).unwrap_err();
    assert!(err.contains("unknown action \"fly\"") && err.contains("click_element"), "{err}");
    let err = Action::from_json(&json!({"click_element": {"index": -1}})).unwrap_err();
    assert!(err.contains("click_element.index"), "{err}");
    let err = Action::from_json(&json!({"click_element": {}, "done": {}})).unwrap_err();
    assert!(err.contains("naming the action in \"do\""), "{err}");
    let err = Action::from_json(&json!({"input_text": {"index": 1}})).unwrap_err();
    assert!(err.contains("\"text\""), "{err}");
    let err = Action::from_json(&json!({"scroll": {"direction": "sideways"}})).unwrap_err();
    assert!(err.contains("up, down, top or bottom"), "{err}");
    let err = Action::from_json(&json!({"switch_tab": {"tab": "first"}})).unwrap_err();
    assert!(err.contains("switch_tab.tab must name an open tab") && err.contains("\"t1\""), "{err}");
    // The browser's own tab ids are not a way in: the parameter is the alias.
    let err = Action::from_json(&json!({"close_tab": {"tab_id": 123456789}})).unwrap_err();
    assert!(err.contains("close_tab needs a string parameter \"tab\""), "{err}");
}

#[test]
fn an_unknown_kind_of_click_says_which_there_are() {
    let error = Action::from_json(&json!({"click_element": {"index": 7, "click": "triple"}})).unwrap_err();
    assert!(error.contains("\"double\" or \"right\""), "{error}");
    let target = crate::dom_map::ElementRef { frame_id: 0, doc: "d".into(), id: 1 };
    let op = PageOp::Click { target, tag: "td".into(), click: Click::Double };
    assert_eq!(serde_json::to_value(op).unwrap()["click"], "double");
}

/// The action `{name: {key: text}}` with `chars` characters of text (and an index where it needs one).
fn with_text(name: &str, key: &str, chars: usize) -> Value {
    let mut params = json!({ key: "x".repeat(chars) });
    if matches!(name, "input_text" | "select_option") {
        params["index"] = json!(1);
    }
    json!({ name: params })
}

#[test]
fn texts_up_to_their_limit_are_read_and_a_longer_one_is_refused_saying_the_limit_and_what_to_do() {
    let limits = [
        ("input_text", "text", MAX_TYPED_CHARS, "\"clear\": false, which appends"),
        ("send_keys", "keys", MAX_KEYS_CHARS, "use input_text"),
        ("select_option", "text", MAX_LOOKUP_CHARS, "visible text"),
        ("find_text", "text", MAX_LOOKUP_CHARS, "shorter part"),
        ("scroll_to_text", "text", MAX_LOOKUP_CHARS, "shorter part"),
        ("extract", "query", MAX_QUERY_CHARS, "shorter question"),
        ("search", "query", MAX_QUERY_CHARS, "fewer"),
        ("go_to_url", "url", MAX_URL_CHARS, "shorter address"),
        ("open_tab", "url", MAX_URL_CHARS, "shorter address"),
        ("done", "text", MAX_ANSWER_CHARS, "shorter answer"),
    ];
    for (name, key, max, advice) in limits {
        // send_keys reads its keys only when it runs: any text of the right length is read here.
        assert!(Action::from_json(&with_text(name, key, max)).is_ok(), "{name} takes {max} characters");
        let error = Action::from_json(&with_text(name, key, max + 1)).unwrap_err();
        let expected = format!(
            "{name}.{key} is {} characters long; one {name} takes at most {}: ",
            crate::text::thousands(max + 1),
            crate::text::thousands(max)
        );
        assert!(error.starts_with(&expected), "{error}");
        assert!(error.contains(advice), "{error}");
    }
    // Characters, not bytes: a text of accented letters may be as long.
    let accented = json!({"input_text": {"index": 1, "text": "é".repeat(MAX_TYPED_CHARS)}});
    assert!(Action::from_json(&accented).is_ok());
}

#[test]
fn the_prompt_shows_the_bounds_the_parser_clamps_to_and_leaves_length_limits_to_the_refusal() {
    let prompt = actions_prompt();
    let line = |name: &str| {
        prompt.lines().find(|line| line.starts_with(&format!("{name}{{"))).unwrap_or_else(|| panic!("{name}"))
    };
    // A wait or a scroll past its bound does the most it may, without a word: the prompt says so.
    assert!(line("wait").contains(&format!("max {MAX_WAIT_SECONDS} s")), "{}", line("wait"));
    assert!(line("scroll").contains(&format!("{MIN_SCROLL_PAGES} to {MAX_SCROLL_PAGES}")), "{}", line("scroll"));
    // A text past its length is refused with the limit and what to do (above): every request
    // would otherwise carry the limits.
    assert!(!prompt.contains("chars"), "{prompt}");
}

#[test]
fn a_wait_or_a_scroll_beyond_its_bound_does_the_most_it_may() {
    assert_eq!(Action::from_json(&json!({"wait": {"seconds": 3600}})), Ok(Action::Wait { seconds: MAX_WAIT_SECONDS }));
    assert_eq!(Action::from_json(&json!({"wait": {"seconds": -4}})), Ok(Action::Wait { seconds: 0.0 }));
    let scroll = |pages: f64| Action::from_json(&json!({"scroll": {"direction": "down", "pages": pages}}));
    let moved = |pages: f64| Ok(Action::Scroll { direction: ScrollDirection::Down, pages, index: None });
    assert_eq!(scroll(500.0), moved(MAX_SCROLL_PAGES));
    assert_eq!(scroll(0.0), moved(MIN_SCROLL_PAGES));
    assert_eq!(scroll(2.5), moved(2.5));
}

#[test]
fn file_actions_are_read_with_their_bounds() {
    use crate::files::MAX_FILE_CHARS;
    assert_eq!(
        Action::from_json(&json!({"append_file": {"name": "rows.csv", "text": "a,b"}})),
        Ok(Action::AppendFile { name: "rows.csv".into(), text: "a,b".into() })
    );
    let read = |line: Value| Action::from_json(&json!({"read_file": {"name": "rows.csv", "start_line": line}}));
    assert_eq!(read(json!(null)), Ok(Action::ReadFile { name: "rows.csv".into(), start_line: None }));
    assert_eq!(read(json!(81)), Ok(Action::ReadFile { name: "rows.csv".into(), start_line: Some(81) }));
    assert_eq!(read(json!(-3)), Ok(Action::ReadFile { name: "rows.csv".into(), start_line: Some(1) }));
    let long = "x".repeat(MAX_FILE_CHARS + 1);
    assert_eq!(
        Action::from_json(&json!({"write_file": {"name": "rows.csv", "text": long}})),
        Err("write_file.text is 100,001 characters long; one write_file takes at most 100,000: write it in parts with append_file, or into several files".into())
    );
    assert_eq!(Action::from_json(&json!({"read_file": {}})), Err("read_file needs a string parameter \"name\"".into()));
}

#[test]
fn a_drag_goes_onto_an_element_or_by_an_offset_and_needs_one_of_them() {
    let drag = |params: Value| Action::from_json(&json!({ "drag": params }));
    assert_eq!(
        drag(json!({"index": 4, "to": "[9]", "dx": null, "dy": null})),
        Ok(Action::Drag { index: 4, to: Some(9), dx: 0.0, dy: 0.0 })
    );
    assert_eq!(
        drag(json!({"index": 4, "dx": 120, "dy": "-8"})),
        Ok(Action::Drag { index: 4, to: None, dx: 120.0, dy: -8.0 })
    );
    let nowhere = drag(json!({"index": 4, "to": null, "dx": 0, "dy": null})).unwrap_err();
    assert!(nowhere.contains("\"to\"") && nowhere.contains("\"dx\""), "{nowhere}");
    let itself = drag(json!({"index": 4, "to": 4})).unwrap_err();
    assert_eq!(itself, "drag.to is [4], the element dragged: name the element to drop it on");
    let far = drag(json!({"index": 4, "dx": MAX_DRAG_PIXELS + 1.0})).unwrap_err();
    assert!(far.contains("at most 10,000 pixels"), "{far}");
    let action = Action::Drag { index: 2, to: Some(5), dx: 0.0, dy: 10.0 };
    assert_eq!(Action::from_json(&action.to_json()), Ok(action.clone()));
    assert_eq!(action.index(), Some(2));
    assert!(!action.leaves_page());
}
