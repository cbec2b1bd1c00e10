//! Text as a person reads it: an element's own words with its children's words back in the
//! places the sensor marked ([`SLOT`]), so that `Enter the <b>"keli"</b> and ...` stays one
//! sentence and `<button>Add <b>blue</b> mug</button>` reads "Add blue mug".

use super::raw::SLOT;
use super::stitch::PlacedNode;
use super::Judgement;
use rustc_hash::FxHashSet as HashSet;

/// What a composition gathers.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Gather {
    /// A line of page text: the inline children set among the element's own words (blocks and
    /// children of an element without words of its own make their own lines), interactive ones
    /// included (they also get their own line, right after).
    Sentence,
    /// An element's (or a label's) name: every non-interactive descendant.
    Name,
    // Neither takes a label that names a control: its words go to that control.
}

pub(super) struct Composer<'a> {
    nodes: &'a [PlacedNode<'a>],
    judged: &'a Judgement,
    naming_labels: &'a HashSet<usize>,
    /// Every node's children, in order: those of node `i` are `children[first_child[i]..first_child[i + 1]]`
    /// (one list for the page rather than one per node: pages have thousands).
    children: Vec<usize>,
    first_child: Vec<usize>,
}

impl<'a> Composer<'a> {
    pub fn new(nodes: &'a [PlacedNode<'a>], judged: &'a Judgement, naming_labels: &'a HashSet<usize>) -> Composer<'a> {
        let mut first_child = vec![0; nodes.len() + 1];
        for parent in nodes.iter().filter_map(|placed| placed.parent) {
            first_child[parent + 1] += 1;
        }
        for i in 1..first_child.len() {
            first_child[i] += first_child[i - 1];
        }
        let mut filled = first_child.clone();
        let mut children = vec![0; first_child[nodes.len()]];
        for (i, placed) in nodes.iter().enumerate() {
            if let Some(p) = placed.parent {
                children[filled[p]] = i;
                filled[p] += 1;
            }
        }
        Composer { nodes, judged, naming_labels, children, first_child }
    }

    /// The text of node `i` with its gathered descendants' text in place, whitespace collapsed;
    /// every descendant whose text was used is added to `used`.
    pub fn compose(&self, i: usize, gather: Gather, used: &mut Vec<usize>) -> String {
        let mut out = String::new();
        self.write(i, gather, used, &mut out);
        collapse_spaces(&out)
    }

    fn takes(&self, parent: usize, child: usize, gather: Gather) -> bool {
        let node = self.nodes[child].node;
        self.judged.shown[child]
            && !self.judged.in_select[child]
            && !self.naming_labels.contains(&child)
            && match gather {
                Gather::Sentence => node.inline && !node.gap && self.nodes[parent].node.text.contains(SLOT),
                Gather::Name => !self.judged.interactive[child],
            }
    }

    fn write(&self, i: usize, gather: Gather, used: &mut Vec<usize>, out: &mut String) {
        let node = self.nodes[i].node;
        let own = if self.judged.unreadable[i] { "" } else { node.text.as_str() };
        let kids = &self.children[self.first_child[i]..self.first_child[i + 1]];
        let mut kids = kids.iter().copied().filter(|&c| self.takes(i, c, gather)).peekable();
        let mut segments = own.split(SLOT);
        out.push_str(segments.next().unwrap_or_default());
        for (slot, segment) in (0u32..).zip(segments) {
            while let Some(kid) = kids.next_if(|&c| self.nodes[c].node.slot.is_some_and(|s| s <= slot)) {
                used.push(kid);
                self.write(kid, gather, used, out);
            }
            out.push_str(segment);
        }
        // Children without a slot (no words around them, shadow content): after the words.
        for kid in kids {
            used.push(kid);
            out.push(' ');
            self.write(kid, gather, used, out);
        }
    }
}

fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{body_of, node};
    use super::SLOT;

    fn inline(mut n: crate::dom_map::RawNode, slot: Option<u32>) -> crate::dom_map::RawNode {
        n.inline = true;
        n.slot = slot;
        n
    }

    #[test]
    fn inline_elements_stay_in_their_sentence() {
        let sentence = format!("Enter the {SLOT} and the {SLOT} into the text fields.");
        assert_eq!(
            body_of(vec![
                node(1, None, "body", ""),
                node(2, Some(0), "div", &sentence),
                inline(node(3, Some(1), "span", "\"keli\""), Some(0)),
                inline(node(4, Some(1), "span", "\"3hI\""), Some(1)),
            ]),
            "Enter the \"keli\" and the \"3hI\" into the text fields."
        );
    }

    #[test]
    fn a_link_inside_a_sentence_reads_in_place_and_gets_its_own_line_after_it() {
        let mut link = inline(node(3, Some(1), "a", &format!("the {SLOT} docs")), Some(0));
        link.attrs.insert("href".into(), "/docs".into());
        assert_eq!(
            body_of(vec![
                node(1, None, "body", ""),
                node(2, Some(0), "p", &format!("Read {SLOT} first{SLOT}")),
                link,
                inline(node(4, Some(2), "b", "new"), Some(0)),
                inline(node(5, Some(1), "span", "!"), Some(1)),
            ]),
            "Read the new docs first!\n[1]a the new docs"
        );
    }

    #[test]
    fn blocks_inside_a_paragraph_make_their_own_lines() {
        assert_eq!(
            body_of(vec![
                node(1, None, "body", ""),
                node(2, Some(0), "div", &format!("Intro {SLOT} outro")),
                node(3, Some(1), "p", "A block"),
            ]),
            "Intro outro\nA block"
        );
    }

    #[test]
    fn an_element_s_name_keeps_its_words_in_order() {
        assert_eq!(
            body_of(vec![
                node(1, None, "body", ""),
                node(2, Some(0), "button", &format!("Add {SLOT} mug")),
                inline(node(3, Some(1), "b", "blue"), Some(0)),
            ]),
            "[1]button Add blue mug"
        );
    }
}
