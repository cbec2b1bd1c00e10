//! A model's markdown as HTML that is safe to put in the panel: raw HTML is shown as text, links
//! keep only http(s) and mailto targets, and images become links to them (a picture from a page
//! could track the user, so none is loaded). Nothing a model writes can run in the panel.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};

/// The HTML for `markdown`.
pub fn to_safe_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // Unsafe links lose their tag but keep their text; this counts the ones open.
    let mut dropped_links = Vec::new();
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        // A picture becomes a link to it: nothing is loaded.
        Event::Start(Tag::Link { link_type, dest_url, title, id } | Tag::Image { link_type, dest_url, title, id }) => {
            let safe = is_safe_url(&dest_url);
            dropped_links.push(!safe);
            match safe {
                true => Event::Start(Tag::Link { link_type, dest_url, title, id }),
                false => Event::Text(CowStr::Borrowed("")),
            }
        }
        Event::End(TagEnd::Link | TagEnd::Image) => match dropped_links.pop() {
            Some(true) => Event::Text(CowStr::Borrowed("")),
            _ => Event::End(TagEnd::Link),
        },
        other => other,
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

fn is_safe_url(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    ["https://", "http://", "mailto:"].iter().any(|scheme| lower.starts_with(scheme))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_markdown() {
        assert_eq!(
            to_safe_html("The total is **$14.50**:\n\n- Blue mug\n- [shop](https://shop.test/cart)"),
            "<p>The total is <strong>$14.50</strong>:</p>\n<ul>\n<li>Blue mug</li>\n<li><a href=\"https://shop.test/cart\">shop</a></li>\n</ul>\n"
        );
        assert!(to_safe_html("| a | b |\n|---|---|\n| 1 | 2 |").contains("<table>"));
    }

    #[test]
    fn nothing_a_model_writes_can_run() {
        let html = to_safe_html("<script>alert(1)</script>\n\nHi <img src=x onerror=alert(1)> there");
        assert!(!html.contains("<script") && !html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        let links =
            to_safe_html("[click](javascript:alert(1)) and [data](data:text/html,x) and ![px](https://t.test/p.gif)");
        assert!(!links.contains("javascript:") && !links.contains("data:text"), "{links}");
        assert!(links.contains("click") && links.contains("data"));
        assert!(links.contains("<a href=\"https://t.test/p.gif\">px</a>"), "{links}");
        assert!(!links.contains("<img"));
        // Attribute breaking in URLs is escaped.
        let quoted = to_safe_html("[x](https://a.test/\"onmouseover=\"alert(1))");
        assert!(!quoted.contains("\"onmouseover"), "{quoted}");
    }
}
