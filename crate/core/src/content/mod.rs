//! A page's readable content as markdown, for the `extract` action: the sensor sends the visible
//! text grouped by block with its links; here the main content is chosen and written as markdown,
//! then cut into chunks a model can read.

use crate::text::truncate_chars;
use crate::tokens::estimate_tokens;
use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct RawContent {
    pub url: String,
    pub title: String,
    /// The document's media type: `application/pdf` for a PDF the browser shows in its viewer,
    /// whose text is not in the page.
    #[serde(rename = "contentType")]
    pub content_type: String,
    pub blocks: Vec<RawBlock>,
}

/// Visible text under one block element (a paragraph, heading, list item, table row...).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct RawBlock {
    pub tag: String,
    /// The nearest landmark around the block: main, article, nav, header, footer, aside, or "".
    pub landmark: String,
    pub parts: Vec<RawPart>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct RawPart {
    pub text: String,
    pub href: Option<String>,
    /// Starts a new table cell.
    pub cell: bool,
}

const PAGE_FURNITURE: &[&str] = &["nav", "header", "footer", "aside"];
const MAX_HREF_CHARS: usize = 200;

/// The page's main content as markdown: `<main>`/`<article>` when the page marks them, otherwise
/// everything but navigation, headers, footers and sidebars; links kept as `[text](url)`.
pub fn to_markdown(content: &RawContent) -> String {
    let marked_main = content.blocks.iter().any(|b| matches!(b.landmark.as_str(), "main" | "article"));
    let keep = |block: &&RawBlock| {
        if marked_main {
            matches!(block.landmark.as_str(), "main" | "article")
        } else {
            !PAGE_FURNITURE.contains(&block.landmark.as_str())
        }
    };
    let base = url::Url::parse(&content.url).ok();
    let mut out = String::new();
    let blocks: Vec<&RawBlock> = content.blocks.iter().filter(keep).collect();
    let title = content.title.trim();
    // The title, unless the content starts by saying it again as its heading.
    let repeats_title =
        blocks.first().is_some_and(|b| b.tag == "h1" && render_parts(&b.parts, base.as_ref()).trim() == title);
    if !title.is_empty() && !repeats_title {
        out.push_str(&format!("# {title}\n\n"));
    }
    let mut in_list = false;
    for block in blocks {
        let text = render_parts(&block.parts, base.as_ref());
        if text.trim().is_empty() {
            continue;
        }
        let is_item = block.tag == "li";
        if in_list && !is_item {
            out.push('\n');
        }
        in_list = is_item;
        let line = match block.tag.as_str() {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = block.tag[1..].parse::<usize>().unwrap_or(2);
                format!("{} {}\n\n", "#".repeat(level), text.trim())
            }
            "li" => format!("- {}\n", text.trim()),
            "blockquote" => format!("> {}\n\n", text.trim()),
            "pre" => format!("```\n{}\n```\n\n", text.trim_end()),
            "tr" => format!("{text}\n"),
            _ => format!("{}\n\n", text.trim()),
        };
        out.push_str(&line);
    }
    out.trim_end().to_string() + "\n"
}

fn render_parts(parts: &[RawPart], base: Option<&url::Url>) -> String {
    // Table rows: cells separated by `|`; other blocks: one run of text.
    let mut cells: Vec<String> = Vec::new();
    for part in parts {
        if part.cell || cells.is_empty() {
            cells.push(String::new());
        }
        let cell = cells.last_mut().expect("a cell was just pushed");
        let piece = part.text.as_str();
        match part.href.as_deref().and_then(|href| absolute_link(href, base)) {
            Some(href) if !piece.trim().is_empty() => cell.push_str(&format!("[{}]({href})", piece.trim())),
            _ => cell.push_str(piece),
        }
    }
    let cells: Vec<String> = cells.iter().map(|cell| cell.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    if parts.first().is_some_and(|p| p.cell) {
        format!("| {} |", cells.join(" | "))
    } else {
        cells.concat()
    }
}

/// Links as absolute http(s) URLs; script and data links are dropped.
fn absolute_link(href: &str, base: Option<&url::Url>) -> Option<String> {
    let url = match base {
        Some(base) => base.join(href).ok()?,
        None => url::Url::parse(href).ok()?,
    };
    matches!(url.scheme(), "http" | "https" | "mailto").then(|| truncate_chars(url.as_str(), MAX_HREF_CHARS))
}

/// Cuts markdown into pieces of at most about `max_tokens`, at paragraph boundaries where possible.
pub fn chunks(markdown: &str, max_tokens: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut current_tokens = 0;
    for paragraph in markdown.split_inclusive("\n\n") {
        let tokens = estimate_tokens(paragraph);
        if current_tokens + tokens > max_tokens && !current.is_empty() {
            out.push(std::mem::take(&mut current));
            current_tokens = 0;
        }
        if tokens > max_tokens {
            // One huge paragraph: cut it by characters (about 4 per token).
            let mut rest = paragraph;
            while !rest.is_empty() {
                let cut = rest.char_indices().nth(max_tokens * 4).map_or(rest.len(), |(i, _)| i);
                out.push(rest[..cut].to_string());
                rest = &rest[cut..];
            }
            continue;
        }
        current.push_str(paragraph);
        current_tokens += tokens;
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(tag: &str, landmark: &str, parts: &[(&str, Option<&str>)]) -> RawBlock {
        RawBlock {
            tag: tag.into(),
            landmark: landmark.into(),
            parts: parts
                .iter()
                .map(|(text, href)| RawPart { text: text.to_string(), href: href.map(str::to_string), cell: false })
                .collect(),
        }
    }

    fn page(blocks: Vec<RawBlock>) -> RawContent {
        RawContent {
            url: "https://shop.test/mugs/blue".into(),
            title: "Blue mug".into(),
            blocks,
            ..RawContent::default()
        }
    }

    #[test]
    fn writes_headings_paragraphs_lists_and_links() {
        let markdown = to_markdown(&page(vec![
            block("nav", "nav", &[("Home", Some("/"))]),
            block("h2", "", &[("Details", None)]),
            block("p", "", &[("Made of ", None), ("stoneware", Some("../materials#stone")), (", 350 ml.", None)]),
            block("li", "", &[("Dishwasher safe", None)]),
            block("li", "", &[("Microwave safe", None)]),
            block("p", "footer", &[("© Shop", None)]),
            block("pre", "", &[("code  here", None)]),
        ]));
        assert_eq!(
            markdown,
            "# Blue mug\n\n## Details\n\nMade of [stoneware](https://shop.test/materials#stone), 350 ml.\n\n- Dishwasher safe\n- Microwave safe\n\n```\ncode here\n```\n"
        );
    }

    #[test]
    fn keeps_only_the_marked_main_content_when_there_is_one() {
        let markdown = to_markdown(&page(vec![
            block("p", "", &[("Sign up for our newsletter", None)]),
            block("p", "main", &[("The real text", None)]),
            block("p", "aside", &[("Related", None)]),
        ]));
        assert_eq!(markdown, "# Blue mug\n\nThe real text\n");
    }

    #[test]
    fn does_not_repeat_a_title_the_page_opens_with() {
        let markdown =
            to_markdown(&page(vec![block("h1", "", &[("Blue mug", None)]), block("p", "", &[("Nice.", None)])]));
        assert_eq!(markdown, "# Blue mug\n\nNice.\n");
    }

    #[test]
    fn drops_script_links_but_keeps_their_text() {
        let markdown = to_markdown(&page(vec![block("p", "", &[("Open", Some("javascript:void(0)"))])]));
        assert_eq!(markdown, "# Blue mug\n\nOpen\n");
    }

    #[test]
    fn writes_table_rows_with_cells() {
        let mut row = block("tr", "", &[("Size", None), ("350 ml", None)]);
        row.parts.iter_mut().for_each(|p| p.cell = true);
        assert_eq!(to_markdown(&page(vec![row])), "# Blue mug\n\n| Size | 350 ml |\n");
    }

    #[test]
    fn chunks_at_paragraphs_and_cuts_huge_ones() {
        let markdown = "one two three\n\nfour five six\n\nseven\n\n";
        assert_eq!(chunks(markdown, 6), vec!["one two three\n\nfour five six\n\n", "seven\n\n"]);
        let huge = "x".repeat(100);
        let pieces = chunks(&huge, 5);
        assert_eq!(pieces.len(), 5);
        assert_eq!(pieces.concat(), huge);
    }
}
