//! The page-side sensor and the core together in a real DOM (headless Chrome): what the sensor
//! records must build the right page map, and its operations must really act on the page.
#![cfg(target_arch = "wasm32")]

use agent_core::browser::OpOutcome;
use agent_core::browser::{Click, PageOp};
use agent_core::dom_map::{serialize, ElementRegistry, MapElement, MapOptions, PageMap, RawFrame, RawPage};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const SENSOR: &str = include_str!("../../../extension/page/sensor.js");
/// The main-world listener tracker and the channel.js that takes its channel, here in the same
/// world as the sensor (in the extension, the main and the isolated world).
const CHANNEL: &str = include_str!("../../../extension/page/channel.js");
const LISTENERS: &str = include_str!("../../../extension/page/listeners.js");
/// `chrome.dom` as content scripts have it, here where there is no extension: its one function
/// as documented, the open or the closed shadow root the element hosts, else null. So the sensor
/// reaches closed roots here as it does in the extension (page script cannot reach them; this
/// stand-in, installed first, keeps each root as it is attached).
const CHROME_DOM: &str = r#"(() => {
    const roots = new WeakMap();
    const attachShadow = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init) {
        const root = attachShadow.call(this, init);
        roots.set(this, root);
        return root;
    };
    globalThis.chrome ??= {};
    globalThis.chrome.dom ??= {
        openOrClosedShadowRoot(element) {
            if (!(element instanceof HTMLElement)) throw new TypeError('an HTMLElement is expected');
            return roots.get(element) ?? null;
        },
    };
})()"#;

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// The test's own part of the page; the rest belongs to the test runner's output.
fn fixture() -> web_sys::Element {
    let doc = document();
    doc.get_element_by_id("fixture").unwrap_or_else(|| {
        let fixture = doc.create_element("div").unwrap();
        fixture.set_id("fixture");
        doc.body().unwrap().append_child(&fixture).unwrap();
        fixture
    })
}

/// Installs the listener tracker and the sensor (once) and replaces the fixture's content with `html`.
fn page(html: &str) {
    let doc = document();
    let global = js_sys::global();
    if js_sys::Reflect::get(&global, &"agentSensor".into()).unwrap().is_undefined() {
        for source in [CHROME_DOM, CHANNEL, LISTENERS, SENSOR] {
            let script = doc.create_element("script").unwrap();
            script.set_text_content(Some(source));
            doc.head().unwrap().append_child(&script).unwrap();
        }
    }
    fixture().set_inner_html(html);
}

fn sensor_call(method: &str, args: &[JsValue]) -> JsValue {
    let sensor = js_sys::Reflect::get(&js_sys::global(), &"agentSensor".into()).unwrap();
    let function: js_sys::Function = js_sys::Reflect::get(&sensor, &method.into()).unwrap().dyn_into().unwrap();
    function.apply(&sensor, &js_sys::Array::from_iter(args)).unwrap()
}

/// Collects with the sensor, keeping indices stable across calls within a test.
fn collect_with(registry: &mut ElementRegistry) -> PageMap {
    let json = sensor_call("collect", &[]).as_string().expect("the sensor answers with JSON text");
    let raw: RawPage = serde_json::from_str(&json).expect("the sensor's record matches RawPage");
    PageMap::build(&[RawFrame { frame_id: 0, page: Ok(raw) }], registry).unwrap()
}

fn collect() -> PageMap {
    collect_with(&mut ElementRegistry::new())
}

fn text_of(map: &PageMap) -> String {
    serialize(map, &MapOptions::default())
}

fn click(element: &MapElement) -> OpOutcome {
    perform(&PageOp::Click { target: element.target.clone(), tag: element.tag.clone(), click: Click::Single })
}

fn type_into(element: &MapElement, text: &str) -> OpOutcome {
    perform(&PageOp::type_text(element.target.clone(), element.tag.clone(), text, true))
}

fn perform(op: &PageOp) -> OpOutcome {
    // As the worker sends it: a plain object (`json_compatible`, as `to_js` in the shim).
    let op = op.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap();
    serde_wasm_bindgen::from_value(sensor_call("perform", &[op])).unwrap()
}

fn find<'a>(map: &'a PageMap, text: &str) -> &'a MapElement {
    map.elements()
        .find(|e| e.text.contains(text) || e.attrs.iter().any(|(_, v)| v.contains(text)))
        .unwrap_or_else(|| panic!("no element with {text:?} in\n{}", text_of(map)))
}

#[wasm_bindgen_test]
fn maps_what_a_person_can_use_and_leaves_out_what_they_cannot_see() {
    page(
        r#"<h2>Checkout</h2>
        <a href="/cart">Cart <b>(2)</b></a>
        <input type="email" placeholder="Email" value="me@example.com">
        <input type="password" value="hunter2">
        <button style="display:none">Hidden by style</button>
        <div style="visibility:hidden"><button>Invisible</button></div>
        <div style="opacity:0"><button>Transparent</button></div>
        <button disabled>Disabled</button>
        <div role="button" tabindex="0">Custom</div>
        <div inert><button>Inert</button></div>
        <div hidden><button>Hidden attribute</button></div>"#,
    );
    let text = text_of(&collect());
    for expected in [
        "Checkout",
        "]a Cart (2)\n",
        "]input type=email placeholder=Email value=me@example.com\n",
        "]div role=button Custom\n",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    for absent in ["hunter2", "Hidden by style", "Invisible", "Transparent", "Hidden attribute"] {
        assert!(!text.contains(absent), "{absent:?} should not be in\n{text}");
    }
    // Disabled and inert controls are visible, so their labels may be read, but never offered.
    for inoperable in ["Disabled", "Inert"] {
        assert!(text.lines().any(|line| line == inoperable), "{inoperable:?} should be plain text in\n{text}");
    }
}

#[wasm_bindgen_test]
fn indices_stay_stable_when_the_page_changes_above_an_element() {
    page(r#"<div id="top"></div><button>Keep me</button>"#);
    let mut registry = ElementRegistry::new();
    let before = find(&collect_with(&mut registry), "Keep me").index;
    document().get_element_by_id("top").unwrap().set_inner_html("<button>New</button><a href='/x'>Also new</a>");
    let after = collect_with(&mut registry);
    assert_eq!(find(&after, "Keep me").index, before);
    assert!(find(&after, "New").is_new && !find(&after, "Keep me").is_new);
    assert!(text_of(&after).contains(&format!("*[{}]button New", find(&after, "New").index)));
}

#[wasm_bindgen_test]
fn clicks_with_the_full_event_sequence() {
    page(r#"<button id="b">Go</button><p id="log"></p>"#);
    let doc = document();
    let log = doc.get_element_by_id("log").unwrap();
    let button = doc.get_element_by_id("b").unwrap();
    for event in ["pointerdown", "mousedown", "pointerup", "mouseup", "click"] {
        let log = log.clone();
        let listener = Closure::<dyn Fn()>::new(move || {
            let text = log.text_content().unwrap_or_default();
            log.set_text_content(Some(&format!("{text}{event} ")));
        });
        button.add_event_listener_with_callback(event, listener.as_ref().unchecked_ref()).unwrap();
        listener.forget();
    }
    let outcome = click(find(&collect(), "Go"));
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(log.text_content().unwrap(), "pointerdown mousedown pointerup mouseup click ");
}

#[wasm_bindgen_test]
fn covered_elements_are_not_offered_and_clicks_on_them_are_refused() {
    page(r#"<button id="under" style="position:fixed;top:10px;left:10px;width:100px;height:40px">Buy</button>"#);
    let doc = document();
    let under = doc.get_element_by_id("under").unwrap();
    let clicked = std::rc::Rc::new(std::cell::Cell::new(false));
    let flag = clicked.clone();
    let listener = Closure::<dyn Fn()>::new(move || flag.set(true));
    under.add_event_listener_with_callback("click", listener.as_ref().unchecked_ref()).unwrap();
    listener.forget();
    let before = collect();
    let buy = find(&before, "Buy");

    // A banner now covers the button: the map no longer offers it...
    let banner = doc.create_element("div").unwrap();
    banner.set_attribute("style", "position:fixed;top:0;left:0;width:300px;height:300px;background:#fff").unwrap();
    banner.set_text_content(Some("Cookie banner"));
    fixture().append_child(&banner).unwrap();
    let after = collect();
    assert!(after.elements().all(|e| e.tag != "button"), "{}", text_of(&after));

    // ...and a click from the earlier map is refused, naming what is in the way.
    let outcome = click(buy);
    assert!(!outcome.ok);
    assert!(outcome.message.contains("covered by <div> \"Cookie banner\""), "{}", outcome.message);
    assert!(!clicked.get());
}

#[wasm_bindgen_test]
fn typing_sticks_in_inputs_that_track_their_value_like_react() {
    page(r#"<input id="q"><p id="echo"></p>"#);
    let doc = document();
    // A React-style tracker: an own `value` property shadowing the prototype's, as React installs.
    js_sys::eval(
        r#"(() => {
            const input = document.getElementById('q');
            const proto = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
            let tracked = '';
            Object.defineProperty(input, 'value', {
                configurable: true,
                get() { return proto.get.call(this); },
                set(v) { tracked = v; proto.set.call(this, v); },
            });
            input.addEventListener('input', () => {
                // React ignores input events whose value equals what it last set through the own setter.
                document.getElementById('echo').textContent = input.value !== tracked ? 'seen:' + input.value : 'ignored';
            });
        })()"#,
    )
    .unwrap();
    let map = collect();
    let outcome = type_into(map.elements().find(|e| e.tag == "input").unwrap(), "blue mug");
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(outcome.value.as_deref(), Some("blue mug"));
    assert_eq!(doc.get_element_by_id("echo").unwrap().text_content().unwrap(), "seen:blue mug");
}

#[wasm_bindgen_test]
fn a_field_in_a_closed_shadow_root_is_typed_into_read_back_and_submits_its_form() {
    // A web component's newsletter form: the page's own script records what the form sends.
    page(r#"<news-letter></news-letter><ol id="sent"></ol>"#);
    script(
        r#"customElements.get('news-letter') || customElements.define('news-letter', class extends HTMLElement {
            constructor() {
                super();
                const root = this.attachShadow({ mode: 'closed' });
                root.innerHTML = '<form action="/subscribe"><input type="email" name="email" placeholder="Your email">'
                    + '<button>Join</button></form>';
                root.querySelector('form').addEventListener('submit', (event) => {
                    event.preventDefault();
                    const sent = document.createElement('li');
                    sent.textContent = new FormData(event.target).get('email');
                    document.getElementById('sent').append(sent);
                });
            }
        })"#,
    );
    let map = collect();
    let email = find(&map, "Your email").clone();
    let outcome = type_into(&email, "ann@example.com");
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(outcome.value.as_deref(), Some("ann@example.com"), "the keys reached the field in the closed root");
    let read = perform(&PageOp::Value { target: email.target.clone(), tag: email.tag.clone() });
    assert_eq!(read.value.as_deref(), Some("ann@example.com"));
    // Enter in the focused field: what it would send is known beforehand, and it is what is sent.
    let submission = perform(&PageOp::FocusedSubmission { frame: 0 }).submission.expect("Enter submits the form");
    assert_eq!(submission.fields, [("email".to_string(), "ann@example.com".to_string())]);
    let enter = agent_core::browser::parse_keys("Enter").unwrap();
    assert!(perform(&PageOp::Keys { frame: 0, keys: enter }).ok);
    assert!(click(find(&collect(), "Join")).ok);
    assert_eq!(
        script_text("[...document.querySelectorAll('#sent li')].map((li) => li.textContent).join(' ')"),
        "ann@example.com ann@example.com"
    );
}

#[wasm_bindgen_test]
fn refuses_an_element_that_is_gone_or_replaced() {
    page(r#"<button id="b">Old</button>"#);
    let map = collect();
    let old = find(&map, "Old");
    fixture().set_inner_html(r#"<button id="b">New</button>"#);
    let outcome = click(old);
    assert!(!outcome.ok);
    assert_eq!(outcome.message, "the element is no longer on the page");
    let mut from_another_document = old.clone();
    from_another_document.target.doc = "an-earlier-document".into();
    assert_eq!(click(&from_another_document).message, "the page was reloaded or replaced since it was read");
}

#[wasm_bindgen_test]
fn types_into_contenteditable_editors() {
    page(r#"<div contenteditable="true" aria-label="Message">draft</div>"#);
    let map = collect();
    let editor = map.elements().find(|e| e.tag == "div").expect("the editor is in the map");
    let outcome = type_into(editor, "Hello there");
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(outcome.value.as_deref(), Some("Hello there"));
}

#[wasm_bindgen_test]
fn typing_nothing_in_place_of_a_field_s_text_empties_it_and_typing_over_an_e_mail_field_replaces_its_text() {
    page(
        r#"<input aria-label="Name" value="Ada"><textarea aria-label="Note">Hi</textarea>
        <input type="email" aria-label="Email" value="me@example.com">
        <div contenteditable="true" aria-label="Message">draft</div>"#,
    );
    let map = collect();
    for name in ["Name", "Note", "Email", "Message"] {
        let outcome = type_long(find(&map, name), "", true);
        assert_eq!(outcome.value.as_deref().map(str::trim), Some(""), "{name} is empty");
    }
    // No caret to read in an e-mail field: its text is replaced all the same, not added to.
    script("document.querySelector('[type=email]').value = 'me@example.com'");
    let outcome = type_long(find(&collect(), "Email"), "ann@example.com", true);
    assert_eq!(outcome.value.as_deref(), Some("ann@example.com"));
    assert_eq!(script_text("document.querySelector('[contenteditable]').textContent"), "");
}

#[wasm_bindgen_test]
fn events_cross_the_boundary_as_plain_objects_with_the_protocol_version() {
    use agent_core::agent::AgentEvent;
    let event = agent_core::protocol::encode_event(&AgentEvent::Result { success: true, text: "ok".into(), steps: 2 });
    let js = event.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap();
    assert!(js.is_object() && !js.is_instance_of::<js_sys::Map>());
    assert_eq!(js_sys::Reflect::get(&js, &"v".into()).unwrap().as_f64(), Some(1.0));
    assert_eq!(js_sys::Reflect::get(&js, &"type".into()).unwrap().as_string().as_deref(), Some("result"));
}

/// How many highlight overlays are in the page (the boxes live in a closed shadow root).
fn highlight_overlays() -> u32 {
    js_sys::eval("document.querySelectorAll('agent-highlights').length").unwrap().as_f64().unwrap() as u32
}

#[wasm_bindgen_test]
fn highlights_are_drawn_counted_and_cleared_without_leaking_listeners() {
    page(r#"<button>One</button><a href="/two">Two</a>"#);
    // Count the sensor's window listeners through the window's own methods.
    js_sys::eval(
        r#"(() => {
            window.__listeners = 0;
            const add = window.addEventListener, remove = window.removeEventListener;
            window.addEventListener = function (...a) { window.__listeners++; return add.apply(this, a); };
            window.removeEventListener = function (...a) { window.__listeners--; return remove.apply(this, a); };
        })()"#,
    )
    .unwrap();
    let map = collect();
    let items = js_sys::Array::new();
    for element in map.elements() {
        let item = js_sys::Object::new();
        js_sys::Reflect::set(&item, &"id".into(), &element.target.id.into()).unwrap();
        js_sys::Reflect::set(&item, &"index".into(), &element.index.into()).unwrap();
        items.push(&item);
    }
    assert_eq!(sensor_call("highlight", &[items.clone().into()]).as_f64(), Some(2.0));
    assert_eq!(highlight_overlays(), 1);
    // Drawing again replaces the boxes rather than stacking them.
    assert_eq!(sensor_call("highlight", &[items.into()]).as_f64(), Some(2.0));
    assert_eq!(highlight_overlays(), 1);
    // The overlay is never part of the map.
    assert_eq!(collect().elements().count(), 2);
    assert_eq!(sensor_call("clearHighlights", &[]).as_f64(), Some(2.0));
    assert_eq!(highlight_overlays(), 0);
    let listeners = js_sys::Reflect::get(&js_sys::global(), &"__listeners".into()).unwrap().as_f64();
    assert_eq!(listeners, Some(0.0), "scroll and resize listeners must be removed with the boxes");
}

/// Runs page script (the test's stand-in for a page's own code) and returns its value.
fn script(code: &str) -> JsValue {
    js_sys::eval(code).unwrap()
}

fn script_text(code: &str) -> String {
    script(code).as_string().unwrap_or_default()
}

#[wasm_bindgen_test]
fn a_click_reaches_the_element_under_the_pointer_for_delegated_handlers() {
    // As jQuery UI's menu: one listener on the list, reading which item was hit.
    page(
        r#"<ul id="menu" style="list-style:none;margin:0;padding:0;width:200px">
            <li><div style="padding:8px">Egypt</div></li></ul><p id="chosen"></p>"#,
    );
    script(
        r#"document.getElementById('menu').addEventListener('click', (event) => {
            const item = event.target.closest('li');
            document.getElementById('chosen').textContent = item ? item.textContent.trim() : 'missed';
        })"#,
    );
    let map = collect();
    let outcome = click(find(&map, "Egypt"));
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(script_text("document.getElementById('chosen').textContent"), "Egypt");
}

#[wasm_bindgen_test]
fn a_partly_covered_element_is_clicked_where_it_shows() {
    page(
        r#"<button id="wide" style="position:fixed;top:20px;left:20px;width:300px;height:40px">Save draft</button>
        <div id="badge" style="position:fixed;top:10px;left:120px;width:100px;height:60px;background:#fc0">New</div>"#,
    );
    script(
        r#"window.savedAt = null;
        document.getElementById('wide').addEventListener('click', (e) => { window.savedAt = e.clientX; })"#,
    );
    let map = collect();
    let outcome = click(find(&map, "Save draft"));
    assert!(outcome.ok, "{outcome:?}");
    let x = script("window.savedAt").as_f64().expect("the button was clicked");
    assert!(!(120.0..=220.0).contains(&x), "clicked under the badge at x={x}");
}

#[wasm_bindgen_test]
fn clickable_parts_of_a_clickable_area_each_get_an_index_and_are_clicked_themselves() {
    page(
        r#"<div id="actions" style="display:flex;gap:60px;width:300px">
            <span class="email-reply" style="cursor:pointer">Reply</span>
            <span class="email-forward" style="cursor:pointer">Forward</span></div>
        <div class="thread" style="cursor:pointer;display:flex;width:300px">
            <span>Alice: lunch?</span><span class="star" style="display:inline-block;width:16px;height:16px"></span></div>
        <p id="did"></p>"#,
    );
    script(
        r#"document.addEventListener('click', (event) => {
            const hit = event.target.closest('.email-reply, .email-forward, .star, .thread');
            document.getElementById('did').textContent = hit ? hit.className : 'nothing';
        })"#,
    );
    let map = collect();
    let text = text_of(&map);
    assert!(text.contains("]span Reply\n") && text.contains("]span Forward\n"), "{text}");
    assert!(text.contains("]div Alice: lunch?\n") && text.contains("\t["), "{text}");
    let star = map.elements().find(|e| e.attrs.iter().any(|(n, v)| n == "icon" && v == "star"));
    let star = star.unwrap_or_else(|| panic!("the star is offered with its hint in\n{text}"));
    assert!(click(find(&map, "Forward")).ok);
    assert_eq!(script_text("document.getElementById('did').textContent"), "email-forward");
    assert!(click(star).ok);
    assert_eq!(script_text("document.getElementById('did').textContent"), "star");
}

#[wasm_bindgen_test]
fn typing_sends_real_key_events_that_keyup_searches_and_key_code_readers_see() {
    page(r#"<input id="q" aria-label="Search countries"><ul id="results"></ul><p id="codes"></p>"#);
    script(
        r#"(() => {
            const q = document.getElementById('q');
            const codes = [];
            q.addEventListener('keydown', (e) => codes.push(e.keyCode + ':' + e.which + ':' + e.key));
            q.addEventListener('keyup', () => {
                const hits = ['Egypt', 'Eritrea', 'Estonia'].filter((c) => c.toLowerCase().startsWith(q.value.toLowerCase()));
                document.getElementById('results').innerHTML = hits.map((c) => `<li>${c}</li>`).join('');
                document.getElementById('codes').textContent = codes.join(' ');
            });
        })()"#,
    );
    let map = collect();
    let outcome = type_into(find(&map, "Search countries"), "Eg");
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(script_text("document.getElementById('results').textContent"), "Egypt");
    assert_eq!(script_text("document.getElementById('codes').textContent"), "69:69:E 71:71:g");
    let keys = agent_core::browser::parse_keys("ArrowDown Enter").unwrap();
    assert!(perform(&PageOp::Keys { frame: 0, keys }).ok);
    assert_eq!(
        script_text("document.getElementById('codes').textContent"),
        "69:69:E 71:71:g 40:40:ArrowDown 13:13:Enter"
    );
}

#[wasm_bindgen_test]
fn a_page_that_handles_beforeinput_itself_gets_each_character_once() {
    // Rich editors insert text themselves on beforeinput and cancel the browser's insertion.
    page(r#"<input id="editor" aria-label="Title">"#);
    script(
        r#"document.getElementById('editor').addEventListener('beforeinput', (e) => {
            e.preventDefault();
            e.target.value += e.data.toUpperCase();
        })"#,
    );
    let outcome = type_into(find(&collect(), "Title"), "abc");
    assert_eq!(outcome.value.as_deref(), Some("ABC"));
}

#[wasm_bindgen_test]
fn typing_two_hundred_characters_is_quick() {
    page(r#"<textarea aria-label="Notes"></textarea>"#);
    let notes = find(&collect(), "Notes").clone();
    let text = "The quick brown fox jumps over the lazy dog. ".repeat(5);
    let text = &text[..200];
    let started = js_sys::Date::now();
    let outcome = type_into(&notes, text);
    let elapsed = js_sys::Date::now() - started;
    assert_eq!(outcome.value.as_deref(), Some(text));
    // Reported, not asserted: timings belong to the benchmarks on these noisy machines.
    console_log!("typing 200 characters took {elapsed} ms");
}

/// Types `text` into `element` in the operations the core sends for it, as the agent does.
fn type_long(element: &MapElement, text: &str, clear: bool) -> OpOutcome {
    let mut outcome = None;
    for op in PageOp::typing(element.target.clone(), element.tag.clone(), text, clear) {
        let done = perform(&op);
        assert!(done.ok, "{done:?}");
        outcome = Some(done);
    }
    outcome.expect("at least one operation")
}

#[wasm_bindgen_test]
fn a_long_text_goes_in_as_pieces_that_react_style_fields_editors_and_length_limits_take() {
    page(
        r#"<textarea id="essay" aria-label="Essay"></textarea><p id="echo"></p>
        <div contenteditable="true" aria-label="Body">draft</div>
        <input aria-label="Code" maxlength="1500">"#,
    );
    // A React-style tracker on the textarea (see typing_sticks_in_inputs_that_track_their_value_like_react);
    // the page counts the changes it would take, and the change events.
    js_sys::eval(
        r#"(() => {
            const essay = document.getElementById('essay');
            const proto = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value');
            let tracked = '';
            Object.defineProperty(essay, 'value', {
                configurable: true,
                get() { return proto.get.call(this); },
                set(v) { tracked = v; proto.set.call(this, v); },
            });
            let changes = 0;
            essay.addEventListener('input', () => {
                if (essay.value !== tracked) document.getElementById('echo').textContent = 'seen:' + essay.value.length;
            });
            essay.addEventListener('change', () => { changes += 1; document.getElementById('echo').dataset.changes = changes; });
        })()"#,
    )
    .unwrap();
    let map = collect();
    let text = "Lorem ipsum dolor sit amet, consectetur adipiscing.\n".repeat(300);
    let started = js_sys::Date::now();
    let outcome = type_long(find(&map, "Essay"), &text, true);
    let elapsed = js_sys::Date::now() - started;
    assert_eq!(outcome.value.as_deref(), Some(text.as_str()));
    let echo = document().get_element_by_id("echo").unwrap();
    assert_eq!(echo.text_content().unwrap(), format!("seen:{}", text.len()), "the page took every piece");
    assert_eq!(echo.get_attribute("data-changes").as_deref(), Some("1"), "one change, after the last piece");
    console_log!("typing {} characters in pieces took {elapsed} ms", text.len());
    // An editor takes the pieces as it takes a paste, replacing its draft.
    let words = "abcdefghij".repeat(1_400);
    let outcome = type_long(find(&map, "Body"), &words, true);
    assert_eq!(outcome.value.as_deref(), Some(words.as_str()));
    // A field with a maximum length keeps what fits, as from a paste.
    let outcome = type_long(find(&map, "Code"), &"0123456789".repeat(300), true);
    assert_eq!(outcome.value.as_deref(), Some("0123456789".repeat(150).as_str()));
}

#[wasm_bindgen_test]
fn inline_markup_stays_in_its_sentence_and_icons_are_named() {
    page(
        r#"<div id="query">Enter the <span class="bold">"keli"</span> and the <span class="bold">"3hI"</span> into the text fields.</div>
        <div><span>Username</span> <span>(required)</span></div>
        <button class="btn"><i class="fa fa-reply"></i></button>
        <button><svg width="16" height="16"><title>Retweet</title><rect width="16" height="16"/></svg></button>
        <button style="width:20px;height:20px"></button>"#,
    );
    let text = text_of(&collect());
    for expected in [
        "Enter the \"keli\" and the \"3hI\" into the text fields.\n",
        "Username (required)\n",
        "]button icon=reply\n",
        "]button icon=retweet\n",
        "]button icon=unnamed\n",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
}

#[wasm_bindgen_test]
fn elements_with_react_click_handlers_are_offered() {
    // React 17+ listens at its root and keeps each element's handlers in a property named with
    // the root's random suffix; nothing else marks these rows as clickable.
    page(r#"<div id="app" style="min-height:100vh"><div id="row">Open the invoice</div><div>Plain text</div></div>"#);
    script(
        r#"(() => {
            const app = document.getElementById('app');
            app['__reactContainer$t3st'] = {};
            app.addEventListener('click', () => {});
            document.getElementById('row')['__reactProps$t3st'] = { onClick() {}, children: 'Open the invoice' };
        })()"#,
    );
    let text = text_of(&collect());
    assert!(text.contains("[1]div Open the invoice"), "{text}");
    assert!(text.lines().any(|line| line == "Plain text"), "{text}");
}

#[wasm_bindgen_test]
fn double_and_right_clicks_send_what_a_mouse_sends() {
    page(r#"<div id="cell" style="width:120px;padding:8px">Quantity 3</div><p id="heard"></p>"#);
    script(
        r#"(() => {
            const heard = [];
            const cell = document.getElementById('cell');
            for (const type of ['mousedown', 'click', 'dblclick', 'contextmenu']) {
                cell.addEventListener(type, (e) => {
                    heard.push(`${type}:${e.button}:${e.detail}`);
                    document.getElementById('heard').textContent = heard.join(' ');
                });
            }
        })()"#,
    );
    let map = collect();
    let cell = find(&map, "Quantity 3");
    let op = |click| PageOp::Click { target: cell.target.clone(), tag: cell.tag.clone(), click };
    assert!(perform(&op(Click::Double)).ok);
    assert_eq!(
        script_text("document.getElementById('heard').textContent"),
        "mousedown:0:1 click:0:1 mousedown:0:2 click:0:2 dblclick:0:2"
    );
    assert!(perform(&op(Click::Right)).ok);
    assert!(script_text("document.getElementById('heard').textContent").ends_with("mousedown:2:1 contextmenu:2:1"));
}

/// Whether the sensor takes the element as untouched since its last collect.
fn untouched(element: &MapElement) -> bool {
    let target = &element.target;
    sensor_call("untouched", &[target.doc.as_str().into(), target.id.into()]) == JsValue::TRUE
}

#[wasm_bindgen_test]
fn an_element_is_untouched_until_it_or_what_shows_it_changes() {
    page(
        r#"<div id="list"><p>Other rows</p></div>
        <div id="row"><button id="add">Add to cart</button></div><style id="sheet"></style>"#,
    );
    let add = find(&collect(), "Add to cart").clone();
    assert!(untouched(&add));
    // Changes elsewhere leave it as it was.
    script("document.getElementById('list').append(document.createElement('p'))");
    script("document.querySelector('#list p').textContent = 'Changed row'");
    assert!(untouched(&add));
    // Each of these changes it, or may hide or cover it: then the page must be read again.
    let changes = [
        "document.getElementById('add').textContent = 'Buy now'",
        "document.getElementById('row').className = 'collapsed'",
        "document.getElementById('sheet').textContent = '#add { display: none }'",
        "document.getElementById('row').replaceChildren(document.getElementById('add').cloneNode(true))",
        "(() => { const cover = document.createElement('div');
            cover.style.cssText = 'position:fixed;inset:0;background:white';
            document.body.append(cover); cover.id = 'cover'; })()",
    ];
    for change in changes {
        page(
            r#"<div id="list"><p>Other rows</p></div>
            <div id="row"><button id="add">Add to cart</button></div><style id="sheet"></style>"#,
        );
        let add = find(&collect(), "Add to cart").clone();
        script(change);
        assert!(!untouched(&add), "untouched after {change}");
        script("document.getElementById('cover')?.remove()");
    }
}
