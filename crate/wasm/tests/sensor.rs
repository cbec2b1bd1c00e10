//! The page-side sensor and the core together in a real DOM (headless Chrome): what the sensor
//! records must build the right page map, and its operations must really act on the page.
#![cfg(target_arch = "wasm32")]

use agent_core::actions::PageOp;
use agent_core::browser::OpOutcome;
use agent_core::dom_map::{serialize, PageMap, RawPage};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const SENSOR: &str = include_str!("../../../extension/page/sensor.js");

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

/// Installs the sensor (once) and replaces the fixture's content with `html`.
fn page(html: &str) {
    let doc = document();
    let global = js_sys::global();
    if js_sys::Reflect::get(&global, &"agentSensor".into()).unwrap().is_undefined() {
        let script = doc.create_element("script").unwrap();
        script.set_text_content(Some(SENSOR));
        doc.head().unwrap().append_child(&script).unwrap();
    }
    fixture().set_inner_html(html);
}

fn sensor_call(method: &str, args: &[JsValue]) -> JsValue {
    let sensor = js_sys::Reflect::get(&js_sys::global(), &"agentSensor".into()).unwrap();
    let function: js_sys::Function = js_sys::Reflect::get(&sensor, &method.into()).unwrap().dyn_into().unwrap();
    function.apply(&sensor, &js_sys::Array::from_iter(args)).unwrap()
}

fn collect() -> PageMap {
    let raw: RawPage =
        serde_wasm_bindgen::from_value(sensor_call("collect", &[])).expect("the sensor's record matches RawPage");
    PageMap::build(&raw)
}

fn perform(op: &PageOp) -> OpOutcome {
    let op = serde_wasm_bindgen::to_value(op).unwrap();
    let op = js_sys::JSON::parse(&js_sys::JSON::stringify(&op).unwrap().as_string().unwrap()).unwrap();
    serde_wasm_bindgen::from_value(sensor_call("perform", &[op])).unwrap()
}

fn index_of(map: &PageMap, text: &str) -> u32 {
    map.elements().find(|e| e.text.contains(text) || e.attrs.iter().any(|(_, v)| v.contains(text))).unwrap().index
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
    let text = serialize(&collect());
    for expected in [
        "Checkout",
        "<a href=/cart>Cart (2) />",
        "type=email placeholder=Email value=me@example.com>",
        "<div role=button>Custom />",
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
    let before = index_of(&collect(), "Keep me");
    document().get_element_by_id("top").unwrap().set_inner_html("<button>New</button><a href='/x'>Also new</a>");
    let after = collect();
    assert_eq!(index_of(&after, "Keep me"), before);
    assert_ne!(index_of(&after, "New"), before);
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
    let index = index_of(&collect(), "Go");
    let outcome = perform(&PageOp::Click { id: index, tag: "button".into() });
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(log.text_content().unwrap(), "pointerdown mousedown pointerup mouseup click ");
}

#[wasm_bindgen_test]
fn refuses_to_click_a_covered_element_and_names_the_cover() {
    page(
        r#"<button id="under" style="position:fixed;top:10px;left:10px;width:100px;height:40px">Buy</button>
        <div style="position:fixed;top:0;left:0;width:300px;height:300px;background:#fff">Cookie banner</div>"#,
    );
    // The map built before the banner covered it still offers [Buy]; the click must not go through.
    let doc = document();
    let under = doc.get_element_by_id("under").unwrap();
    let clicked = std::rc::Rc::new(std::cell::Cell::new(false));
    let flag = clicked.clone();
    let listener = Closure::<dyn Fn()>::new(move || flag.set(true));
    under.add_event_listener_with_callback("click", listener.as_ref().unchecked_ref()).unwrap();
    listener.forget();
    let map = collect();
    let index = map.elements().find(|e| e.tag == "button").map(|e| e.index).unwrap();
    let outcome = perform(&PageOp::Click { id: index, tag: "button".into() });
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
    let index = collect().elements().find(|e| e.tag == "input").unwrap().index;
    let outcome = perform(&PageOp::Type { id: index, tag: "input".into(), text: "blue mug".into() });
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(outcome.value.as_deref(), Some("blue mug"));
    assert_eq!(doc.get_element_by_id("echo").unwrap().text_content().unwrap(), "seen:blue mug");
}

#[wasm_bindgen_test]
fn refuses_an_element_that_is_gone_or_replaced() {
    page(r#"<button id="b">Old</button>"#);
    let index = index_of(&collect(), "Old");
    fixture().set_inner_html(r#"<button id="b">New</button>"#);
    let outcome = perform(&PageOp::Click { id: index, tag: "button".into() });
    assert!(!outcome.ok);
    assert!(outcome.message.contains(&format!("element [{index}] is no longer on the page")), "{}", outcome.message);
}

#[wasm_bindgen_test]
fn types_into_contenteditable_editors() {
    page(r#"<div contenteditable="true" aria-label="Message">draft</div>"#);
    let map = collect();
    let editor = map.elements().find(|e| e.tag == "div").expect("the editor is in the map");
    let outcome = perform(&PageOp::Type { id: editor.index, tag: "div".into(), text: "Hello there".into() });
    assert!(outcome.ok, "{outcome:?}");
    assert_eq!(outcome.value.as_deref(), Some("Hello there"));
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
