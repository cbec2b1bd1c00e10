use super::*;
use serde_json::json;

#[test]
fn reads_each_action() {
    assert_eq!(
        Action::from_json(&json!({"go_to_url": {"url": "https://a.test"}})),
        Ok(Action::GoToUrl { url: "https://a.test".into() })
    );
    assert_eq!(Action::from_json(&json!({"click_element": {"index": 7}})), Ok(Action::ClickElement { index: 7 }));
    assert_eq!(Action::from_json(&json!({"click_element": {"index": "[7]"}})), Ok(Action::ClickElement { index: 7 }));
    assert_eq!(
        Action::from_json(&json!({"input_text": {"index": 3, "text": "mug"}})),
        Ok(Action::InputText { index: 3, text: "mug".into() })
    );
    assert_eq!(
        Action::from_json(&json!({"done": {"text": "ok"}})),
        Ok(Action::Done { text: "ok".into(), success: true })
    );
}

#[test]
fn writes_actions_back_in_the_form_it_reads() {
    for action in [
        Action::GoToUrl { url: "https://a.test/".into() },
        Action::ClickElement { index: 2 },
        Action::InputText { index: 3, text: "x".into() },
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
    assert!(err.contains("exactly one key"), "{err}");
    let err = Action::from_json(&json!({"input_text": {"index": 1}})).unwrap_err();
    assert!(err.contains("\"text\""), "{err}");
}

#[test]
fn normalizes_urls_and_refuses_restricted_ones() {
    assert_eq!(normalize_url("example.com/a?b=1"), Ok("https://example.com/a?b=1".into()));
    assert_eq!(normalize_url("http://127.0.0.1:8080/x"), Ok("http://127.0.0.1:8080/x".into()));
    assert_eq!(normalize_url("chrome://settings"), Err(UrlRefusal::RestrictedScheme("chrome".into())));
    assert_eq!(normalize_url("javascript:alert(1)"), Err(UrlRefusal::RestrictedScheme("javascript".into())));
    assert_eq!(normalize_url("https://chromewebstore.google.com/detail/x"), Err(UrlRefusal::WebStore));
    assert!(matches!(normalize_url("not a url"), Err(UrlRefusal::Invalid(_))));
}

#[test]
fn page_ops_serialize_for_the_sensor() {
    let target = crate::dom_map::ElementRef { frame_id: 3, doc: "d".into(), id: 4 };
    let op = PageOp::Type { target, tag: "input".into(), text: "hi".into() };
    assert_eq!(
        serde_json::to_value(op).unwrap(),
        json!({"op": "type", "frame": 3, "doc": "d", "id": 4, "tag": "input", "text": "hi"})
    );
}
