//! The page map as the model reads it: one line per element, `[index]<tag attr=value>text</tag>`,
//! with the visible text between elements as plain lines.

use super::{MapLine, PageMap};

/// Stops the map from growing without bound on huge pages; what is left out is counted.
const MAX_MAP_CHARS: usize = 40_000;

pub fn serialize(map: &PageMap) -> String {
    let mut out = String::new();
    let mut omitted = 0usize;
    for line in &map.lines {
        let rendered = match line {
            MapLine::Element(element) => {
                let mut line = format!("[{}]<{}", element.index, element.tag);
                for (name, value) in &element.attrs {
                    line.push(' ');
                    line.push_str(name);
                    line.push('=');
                    line.push_str(&quote(value));
                }
                line.push('>');
                line.push_str(&element.text);
                line.push_str(" />");
                line
            }
            MapLine::Text(text) => text.clone(),
        };
        if out.len() + rendered.len() > MAX_MAP_CHARS {
            omitted += 1;
            continue;
        }
        out.push_str(&rendered);
        out.push('\n');
    }
    if omitted > 0 {
        out.push_str(&format!("... {omitted} more lines not shown (page too long)\n"));
    }
    out
}

/// Bare when the value is one word, quoted otherwise, so the line stays unambiguous.
fn quote(value: &str) -> String {
    if !value.is_empty() && !value.contains([' ', '"', '>', '<']) {
        value.to_string()
    } else {
        format!("\"{}\"", value.replace('"', "'"))
    }
}
