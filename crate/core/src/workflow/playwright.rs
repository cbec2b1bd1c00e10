//! A workflow as a standalone Playwright script (`playwright-core`), to run without the agent or
//! a model: each recorded action on the element found again as its fingerprint knew it (its tag,
//! identifying attributes and text, and its label), parameters taken from the command line. The
//! final answer needs a model; the script prints the page's text instead.

use super::{Param, Workflow};
use crate::agent::{PlannedAction, PrintParts};
use serde_json::Value;
use std::fmt::Write;

/// Parameter values shorter than this are not looked for inside element names (too likely to
/// match by chance).
const MIN_NAME_PART: usize = 3;

/// The script: `node FILE [--name=value]...`, the browser from `CHROMIUM_PATH`.
pub fn playwright_script(workflow: &Workflow) -> String {
    let params: String = workflow
        .params
        .iter()
        .map(|param| format!("  {}: {},\n", param.name, Value::from(param.value.as_str())))
        .collect();
    let mut out = format!(
        "// {name}: a workflow of the Rust Browser Agent, as a Playwright script.\n\
         // Run: node {{this file}} [--NAME=VALUE]... (parameters: {list}); CHROMIUM_PATH names the browser.\n\
         // It repeats the recorded steps and prints the page's text at the end.\n\
         import {{ chromium }} from 'playwright-core';\n\n\
         const params = {{\n{params}}};\n\
         for (const arg of process.argv.slice(2)) {{\n  \
           const [, name, value] = /^--(\\w+)=(.*)$/s.exec(arg) ?? [];\n  \
           if (!Object.hasOwn(params, name ?? '')) throw new Error(`unknown argument ${{arg}}: give --NAME=VALUE for one of ${{Object.keys(params).join(', ') || 'no parameters'}}`);\n  \
           params[name] = value;\n\
         }}\n\n\
         /** The visible element the agent acted on, found as its fingerprint knew it: its tag and\n\
          * identifying attributes (case ignored), its label and its text. A value the agent's map\n\
          * cut short (ending in …) is matched by its start. */\n\
         function find(page, {{ tag, attrs = {{}}, label, text }}) {{\n  \
           const whole = (value) => value.replace(/…$/, '');\n  \
           const quoted = (value) => `\"${{whole(value).replace(/[\\\\\"]/g, '\\\\$&').replace(/\\n/g, '\\\\a ')}}\"`;\n  \
           const matches = ([name, value]) => `[${{name}}${{value.endsWith('…') ? '^=' : '='}}${{quoted(value)}} i]`;\n  \
           let found = page.locator(tag + Object.entries(attrs).map(matches).join(''));\n  \
           if (label) found = found.and(page.getByLabel(whole(label)));\n  \
           if (text) found = found.filter({{ hasText: whole(text) }});\n  \
           return found.filter({{ visible: true }}).first();\n\
         }}\n\n\
         const browser = await chromium.launch({{ executablePath: process.env.CHROMIUM_PATH, headless: !process.env.HEADED }});\n\
         const page = await browser.newPage();\n\
         try {{\n",
        name = one_line(&workflow.name),
        list = if workflow.params.is_empty() {
            "none".to_string()
        } else {
            workflow.params.iter().map(|param| param.name.as_str()).collect::<Vec<_>>().join(", ")
        },
    );
    if let Some(url) = &workflow.replay.start_url {
        let _ = writeln!(out, "  await page.goto({});", Value::from(url.as_str()));
    }
    for (i, step) in workflow.replay.steps().iter().enumerate() {
        let _ = writeln!(out, "  // Step {}", i + 1);
        for planned in step {
            out.push_str(&statement(planned, &workflow.params));
        }
    }
    out.push_str("  await page.waitForLoadState();\n  console.log(await page.locator('body').innerText());\n} finally {\n  await browser.close();\n}\n");
    out
}

/// One recorded action as a line of the script.
fn statement(planned: &PlannedAction, params: &[Param]) -> String {
    let Some((action, args)) = crate::actions::name_and_params(&planned.action) else {
        return "  // (an unreadable action)\n".into();
    };
    let value = |field: &str| literal(args[field].as_str().unwrap_or_default(), params);
    let target = || element(planned, params);
    match action {
        "go_to_url" => format!("  await page.goto({});\n", value("url")),
        "open_tab" => format!("  await page.goto({}); // opened in a new tab by the agent\n", value("url")),
        "go_back" => "  await page.goBack();\n".into(),
        "go_forward" => "  await page.goForward();\n".into(),
        "reload" => "  await page.reload();\n".into(),
        "wait" => {
            format!("  await page.waitForTimeout({});\n", args["seconds"].as_f64().unwrap_or(2.0).min(10.0) * 1000.0)
        }
        "click_element" => match args["click"].as_str() {
            Some("double") => format!("  await {}.dblclick();\n", target()),
            Some("right") => format!("  await {}.click({{ button: 'right' }});\n", target()),
            _ => format!("  await {}.click();\n", target()),
        },
        "input_text" if args["clear"] == false => {
            format!("  await {}.pressSequentially({});\n", target(), value("text"))
        }
        "input_text" => format!("  await {}.fill({});\n", target(), value("text")),
        "select_option" => format!("  await {}.selectOption({{ label: {} }});\n", target(), value("text")),
        "hover" => format!("  await {}.hover();\n", target()),
        "send_keys" => {
            let keys = args["keys"].as_str().unwrap_or_default();
            keys.split_whitespace().map(|key| format!("  await page.keyboard.press({});\n", Value::from(key))).collect()
        }
        "scroll" => format!("  await page.mouse.wheel(0, {});\n", scroll_pixels(args)),
        "done" => "  // The agent answered here; the page's text follows.\n".into(),
        other => format!("  // {other}: left to the agent (no script equivalent)\n"),
    }
}

fn scroll_pixels(args: &Value) -> i64 {
    let pages = args["pages"].as_f64().unwrap_or(1.0);
    let pixels = (pages * 800.0) as i64;
    match args["direction"].as_str() {
        Some("up") => -pixels,
        Some("top") => -1_000_000,
        Some("bottom") => 1_000_000,
        _ => pixels,
    }
}

/// `find(page, {...})` for the element an action targeted, from the parts of its fingerprint, a
/// parameter's value in them following it.
fn element(planned: &PlannedAction, params: &[Param]) -> String {
    let Some(print) = planned.element.as_ref() else {
        return "page.locator(':focus')".into();
    };
    let fail = |why: String| format!("(() => {{ throw new Error({}); }})()", Value::from(why));
    let Some(PrintParts { tag, attrs, label, text }) = &print.parts else {
        return fail(format!(
            "the element {} was recorded before elements kept what finds them: save the run as a workflow again",
            print.description
        ));
    };
    if attrs.is_empty() && label.is_none() && text.is_empty() {
        return fail(format!("the element {} has no attribute, label or text to find it by", print.description));
    }
    let mut spec = format!("tag: {}", Value::from(tag.as_str()));
    if !attrs.is_empty() {
        let attrs: Vec<String> = attrs
            .iter()
            .map(|(name, value)| format!("{}: {}", Value::from(name.as_str()), name_expression(value, params)))
            .collect();
        let _ = write!(spec, ", attrs: {{ {} }}", attrs.join(", "));
    }
    if let Some(label) = label {
        let _ = write!(spec, ", label: {}", name_expression(label, params));
    }
    if !text.is_empty() {
        let _ = write!(spec, ", text: {}", name_expression(text, params));
    }
    format!("find(page, {{ {spec} }})")
}

/// A JavaScript string for `name`, a template using `params.x` where the name holds x's recorded
/// value (matched without regard to case: "Add Blue mug" holds "blue").
fn name_expression(name: &str, params: &[Param]) -> String {
    let found = params
        .iter()
        .filter(|param| param.value.chars().count() >= MIN_NAME_PART)
        .find_map(|param| find_ignoring_case(name, &param.value).map(|range| (param, range)));
    match found {
        Some((param, (start, end))) => {
            format!("`{}${{params.{}}}{}`", template_text(&name[..start]), param.name, template_text(&name[end..]))
        }
        None => Value::from(name).to_string(),
    }
}

/// Where `needle` first appears in `text` regardless of case, as a byte range of `text` (whole
/// characters of it: lowercasing may change a character's length, so the lowercased text's
/// offsets are not the text's).
fn find_ignoring_case(text: &str, needle: &str) -> Option<(usize, usize)> {
    let wanted: Vec<char> = needle.chars().flat_map(char::to_lowercase).collect();
    if wanted.is_empty() {
        return None;
    }
    text.char_indices().find_map(|(start, _)| {
        let mut seen = Vec::with_capacity(wanted.len());
        for (offset, c) in text[start..].char_indices() {
            seen.extend(c.to_lowercase());
            if seen.len() >= wanted.len() {
                return (seen == wanted).then_some((start, start + offset + c.len_utf8()));
            }
        }
        None
    })
}

/// A value as the script writes it: `params.x` when it is parameter x's recorded value.
fn literal(value: &str, params: &[Param]) -> String {
    params
        .iter()
        .find(|param| param.value == value)
        .map_or_else(|| Value::from(value).to_string(), |param| format!("params.{}", param.name))
}

fn template_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('`', "\\`").replace("${", "\\${")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn planned(action: Value, element: Option<Value>) -> PlannedAction {
        serde_json::from_value(json!({
            "action": action,
            "element": element.map(|parts| json!({"fingerprint": "00000000000000aa", "description": "<x> [1]", "parts": parts})),
        }))
        .unwrap()
    }

    fn colour() -> Vec<Param> {
        vec![Param { name: "colour".into(), value: "blue".into() }]
    }

    #[test]
    fn each_action_becomes_a_statement_on_the_element_found_by_its_fingerprints_parts() {
        let filter =
            json!({"tag": "input", "attrs": {"type": "search", "placeholder": "Filter mugs"}, "label": "Filter"});
        let type_blue = planned(json!({"do": "input_text", "index": 3, "text": "blue", "clear": true}), Some(filter));
        assert_eq!(
            statement(&type_blue, &colour()),
            "  await find(page, { tag: \"input\", attrs: { \"placeholder\": \"Filter mugs\", \"type\": \"search\" }, label: \"Filter\" }).fill(params.colour);\n"
        );
        let button = json!({"tag": "button", "attrs": {"aria-label": "Add Blue mug to cart"}, "text": "Add to cart"});
        let add = planned(json!({"do": "click_element", "index": 7}), Some(button));
        assert_eq!(
            statement(&add, &colour()),
            "  await find(page, { tag: \"button\", attrs: { \"aria-label\": `Add ${params.colour} mug to cart` }, text: \"Add to cart\" }).click();\n"
        );
        // A record from before actions were written with their name in "do".
        let keys = planned(json!({"send_keys": {"keys": "Control+A Enter"}}), None);
        assert_eq!(
            statement(&keys, &[]),
            "  await page.keyboard.press(\"Control+A\");\n  await page.keyboard.press(\"Enter\");\n"
        );
        let extract = planned(json!({"extract": {"query": "prices"}}), None);
        assert_eq!(statement(&extract, &[]), "  // extract: left to the agent (no script equivalent)\n");
    }

    #[test]
    fn an_element_with_nothing_to_find_it_by_fails_saying_why() {
        let bare = planned(json!({"click_element": {"index": 9}}), Some(json!({"tag": "button"})));
        assert!(statement(&bare, &[]).contains("has no attribute, label or text to find it by"));
        let older: PlannedAction = serde_json::from_value(json!({
            "action": {"click_element": {"index": 9}},
            "element": {"fingerprint": "00000000000000aa", "description": "<button> \"Buy\" [9]"},
        }))
        .unwrap();
        assert!(statement(&older, &[]).contains("save the run as a workflow again"));
    }

    #[test]
    fn names_and_values_are_written_as_safe_javascript() {
        let sneaky = [Param { name: "q".into(), value: "tea".into() }];
        assert_eq!(name_expression("Buy `tea` ${now}", &sneaky), "`Buy \\`${params.q}\\` \\${now}`");
        assert_eq!(literal("a\"b\n", &[]), "\"a\\\"b\\n\"");
        assert_eq!(name_expression("Straße", &[Param { name: "s".into(), value: "ss".into() }]), "\"Straße\"");
    }

    #[test]
    fn a_parameter_is_found_in_a_name_whatever_case_and_character_lengths() {
        assert_eq!(find_ignoring_case("Add Blue mug", "blue"), Some((4, 8)));
        // The Kelvin sign lowercases to a one-byte k; the dotted İ to two characters.
        assert_eq!(find_ignoring_case("\u{212A}ettle İstanbul", "kettle"), Some((0, 8)));
        assert_eq!(find_ignoring_case("Caf\u{c9} au lait", "café"), Some((0, 5)));
        assert_eq!(find_ignoring_case("mug", ""), None);
        let params = [Param { name: "city".into(), value: "istanbul".into() }];
        assert_eq!(name_expression("Go to İSTANBUL now", &params), "\"Go to İSTANBUL now\"", "İ is not i");
        let params = [Param { name: "drink".into(), value: "café".into() }];
        assert_eq!(name_expression("Order CAFÉ here", &params), "`Order ${params.drink} here`");
    }

    proptest::proptest! {
        /// Any name and any value: a template or a string, never a panic, and the template's
        /// text around the parameter is the name's own.
        #[test]
        fn names_of_any_text_never_panic(name in "\\PC{0,40}", value in "\\PC{1,8}") {
            let params = [Param { name: "x".into(), value: value.clone() }];
            let written = name_expression(&name, &params);
            if let Some((start, end)) = find_ignoring_case(&name, &value) {
                proptest::prop_assert!(name.is_char_boundary(start) && name.is_char_boundary(end));
                if value.chars().count() >= MIN_NAME_PART {
                    proptest::prop_assert!(written.contains("${params.x}"), "{}", written);
                }
            }
        }
    }
}
