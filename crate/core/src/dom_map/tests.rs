use super::*;
use std::collections::BTreeMap;

/// A visible element with a size; other fields default. Shared with the agent's tests.
pub(crate) fn node(id: u32, parent: Option<u32>, tag: &str, text: &str) -> RawNode {
    RawNode {
        id,
        parent,
        tag: tag.into(),
        text: text.into(),
        rect: [0.0, 0.0, 100.0, 20.0],
        visible: true,
        ..RawNode::default()
    }
}

fn with_attrs(mut node: RawNode, attrs: &[(&str, &str)]) -> RawNode {
    node.attrs = attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>();
    node
}

fn page(nodes: Vec<RawNode>) -> RawPage {
    RawPage { url: "http://shop.test/mugs".into(), title: "Mugs".into(), viewport: Viewport::default(), nodes }
}

#[test]
fn serializes_interactive_elements_with_text_and_attributes() {
    let map = PageMap::build(&page(vec![
        node(1, None, "body", ""),
        node(2, Some(0), "h1", "Mugs"),
        with_attrs(node(3, Some(0), "a", "Cart"), &[("href", "http://shop.test/cart?x=1")]),
        with_attrs(node(4, Some(0), "input", ""), &[("type", "search"), ("placeholder", "Find a mug")]),
        node(5, Some(0), "button", ""),
        node(6, Some(4), "span", "Add"),
        node(7, Some(4), "b", "blue mug"),
    ]));
    assert_eq!(
        serialize(&map),
        "Mugs\n[3]<a href=/cart?x=1>Cart />\n[4]<input type=search placeholder=\"Find a mug\"> />\n[5]<button>Add blue mug />\n"
    );
}

#[test]
fn never_offers_hidden_disabled_or_non_interactive_elements() {
    let mut hidden = node(3, Some(0), "button", "Hidden");
    hidden.visible = false;
    let mut zero = node(4, Some(0), "button", "Zero");
    zero.rect = [0.0, 0.0, 0.0, 0.0];
    let mut inside_hidden = node(9, Some(1), "button", "Inside hidden");
    inside_hidden.visible = true;
    let map = PageMap::build(&page(vec![
        node(1, None, "body", ""),
        {
            let mut n = node(2, Some(0), "div", "");
            n.visible = false;
            n
        },
        hidden,
        zero,
        with_attrs(node(5, Some(0), "button", "Off"), &[("disabled", "")]),
        with_attrs(node(6, Some(0), "div", "Aria hidden"), &[("role", "button"), ("aria-hidden", "true")]),
        node(7, Some(0), "div", "Plain text"),
        with_attrs(node(8, Some(0), "a", "No href"), &[]),
        inside_hidden,
    ]));
    let indices: Vec<u32> = map.elements().map(|e| e.index).collect();
    assert!(indices.is_empty(), "unexpected elements {indices:?}");
    // A disabled control is never offered, but its label stays readable.
    assert_eq!(serialize(&map), "Off\nPlain text\nNo href\n");
}

#[test]
fn zero_size_wrappers_do_not_hide_their_children_but_inert_ones_disable_them() {
    let mut wrapper = node(2, Some(0), "div", "");
    wrapper.rect = [0.0, 0.0, 0.0, 0.0];
    let mut dialog_backdrop = node(4, Some(0), "div", "");
    dialog_backdrop.inert = true;
    let map = PageMap::build(&page(vec![
        node(1, None, "body", ""),
        wrapper,
        node(3, Some(1), "button", "Visible child"),
        dialog_backdrop,
        node(5, Some(3), "button", "Behind the dialog"),
    ]));
    let indices: Vec<u32> = map.elements().map(|e| e.index).collect();
    assert_eq!(indices, vec![3]);
    assert_eq!(serialize(&map), "[3]<button>Visible child />\nBehind the dialog\n");
}

#[test]
fn recognises_roles_editables_listeners_and_tabindex() {
    let mut editable = node(3, Some(0), "div", "Edit me");
    editable.editable = true;
    let mut clicky = node(4, Some(0), "div", "Clicky");
    clicky.listener = true;
    let map = PageMap::build(&page(vec![
        node(1, None, "body", ""),
        with_attrs(node(2, Some(0), "div", "Tab one"), &[("role", "tab")]),
        editable,
        clicky,
        with_attrs(node(5, Some(0), "span", "Focusable"), &[("tabindex", "0")]),
        with_attrs(node(6, Some(0), "span", "Not focusable"), &[("tabindex", "-1")]),
    ]));
    let indices: Vec<u32> = map.elements().map(|e| e.index).collect();
    assert_eq!(indices, vec![2, 3, 4, 5]);
}

#[test]
fn shows_live_values_but_never_passwords() {
    let mut email = with_attrs(node(2, Some(0), "input", ""), &[("type", "email")]);
    email.value = Some("me@example.com".into());
    let mut password = with_attrs(node(3, Some(0), "input", ""), &[("type", "password")]);
    password.value = Some("hunter2".into());
    let mut check = with_attrs(node(4, Some(0), "input", ""), &[("type", "checkbox")]);
    check.checked = Some(true);
    let map = PageMap::build(&page(vec![node(1, None, "body", ""), email, password, check]));
    let text = serialize(&map);
    assert!(text.contains("[2]<input type=email value=me@example.com>"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("[4]<input type=checkbox checked=true>"), "{text}");
}

#[test]
fn keeps_foreign_links_whole_and_cuts_long_text_at_words() {
    let long = "word ".repeat(60);
    let map = PageMap::build(&page(vec![
        node(1, None, "body", ""),
        with_attrs(node(2, Some(0), "a", "Docs"), &[("href", "https://docs.example.org/guide/start?lang=en")]),
        node(3, Some(0), "p", long.trim()),
    ]));
    let text = serialize(&map);
    assert!(text.contains("href=https://docs.example.org/guide/start?lang=en>"), "{text}");
    let paragraph = text.lines().nth(1).unwrap();
    assert!(paragraph.ends_with("word…") && paragraph.chars().count() <= MAX_TEXT_CHARS + 1, "{paragraph}");
}

#[test]
fn fingerprint_changes_when_the_element_changes() {
    let build = |text: &str| PageMap::build(&page(vec![node(1, None, "body", ""), node(2, Some(0), "button", text)]));
    let a = build("Buy").element(2).unwrap().fingerprint;
    let b = build("Buy").element(2).unwrap().fingerprint;
    let c = build("Delete").element(2).unwrap().fingerprint;
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn describes_elements_for_reports() {
    let map = PageMap::build(&page(vec![
        node(1, None, "body", ""),
        node(2, Some(0), "button", "Add to cart"),
        with_attrs(node(3, Some(0), "input", ""), &[("aria-label", "Quantity")]),
        with_attrs(node(4, Some(0), "button", "Add to cart"), &[("aria-label", "Add Blue mug to cart")]),
        with_attrs(node(5, Some(0), "input", ""), &[("placeholder", "Search")]),
        node(6, Some(0), "button", ""),
    ]));
    assert_eq!(map.element(2).unwrap().describe(), "<button> \"Add to cart\" [2]");
    assert_eq!(map.element(3).unwrap().describe(), "<input> \"Quantity\" [3]");
    assert_eq!(map.element(4).unwrap().describe(), "<button> \"Add Blue mug to cart\" [4]");
    assert_eq!(map.element(5).unwrap().describe(), "<input> \"Search\" [5]");
    assert_eq!(map.element(6).unwrap().describe(), "<button> [6]");
}

#[test]
fn parses_the_sensor_wire_format() {
    let raw: RawPage = serde_json::from_str(
        r#"{"url":"http://a.test/","title":"A","viewport":{"width":800,"height":600,"scrollY":0,"pageHeight":1200},
            "nodes":[{"id":1,"parent":null,"tag":"body","rect":[0,0,800,1200],"visible":true},
                     {"id":2,"parent":0,"tag":"button","text":"Go","rect":[1,2,30,10],"visible":true,"attrs":{"type":"submit"}}]}"#,
    )
    .unwrap();
    assert_eq!(serialize(&PageMap::build(&raw)), "[2]<button type=submit>Go />\n");
}
