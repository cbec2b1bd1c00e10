//! Frames stitched into one node list: each frame's nodes follow the iframe element that shows
//! them (named by the frame's `host` token), as its descendants, with coordinates moved into the
//! top page's viewport.

use super::raw::{RawFrame, RawNode, RawPage};
use rustc_hash::FxHashMap as HashMap;

/// Frames nested deeper than this are left out (a page that frames itself).
const MAX_FRAME_DEPTH: usize = 8;

/// A node of the stitched page, with where it lives.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedNode<'a> {
    pub node: &'a RawNode,
    pub frame_id: i32,
    pub doc: &'a str,
    /// The URL of the node's document (a frame's own, for links relative to it).
    pub url: &'a str,
    /// The serialized origin of the node's document (see [`RawPage::origin`]).
    pub origin: &'a str,
    /// Position of the parent in the stitched list.
    pub parent: Option<usize>,
    /// The node's rect in the top page's viewport.
    pub rect: [f64; 4],
}

/// The stitched list, and notes on frames that could not be included.
pub struct Stitched<'a> {
    pub top: &'a RawPage,
    pub nodes: Vec<PlacedNode<'a>>,
    pub notes: Vec<String>,
}

pub fn stitch(frames: &[RawFrame]) -> Result<Stitched<'_>, String> {
    let top = match frames.iter().find(|frame| frame.frame_id == 0).map(|frame| &frame.page) {
        Some(Ok(page)) => page,
        Some(Err(reason)) => return Err(reason.clone()),
        None => return Err("the page's top frame did not answer".into()),
    };
    let by_host: HashMap<&str, &RawFrame> = frames
        .iter()
        .filter_map(|frame| Some((frame.page.as_ref().ok()?.host.as_str(), frame)))
        .filter(|(host, _)| !host.is_empty())
        .collect();
    let mut stitched = Stitched { top, nodes: Vec::new(), notes: Vec::new() };
    let mut placed_frames = vec![0];
    place(&mut stitched, &by_host, &mut placed_frames, 0, top, None, [0.0, 0.0], 0);
    for frame in frames {
        if let Err(reason) = &frame.page {
            stitched.notes.push(match frame.frame_id {
                id if id < 0 => reason.clone(),
                _ => format!("a frame could not be read ({reason})"),
            });
        }
    }
    Ok(stitched)
}

#[allow(clippy::too_many_arguments)] // One recursive walk; bundling these would only rename them.
fn place<'a>(
    out: &mut Stitched<'a>,
    frames: &HashMap<&str, &'a RawFrame>,
    placed_frames: &mut Vec<i32>,
    frame_id: i32,
    page: &'a RawPage,
    host: Option<usize>,
    offset: [f64; 2],
    depth: usize,
) {
    if !page.truncated.is_empty() {
        out.notes.push(format!("the page is very large: {}", page.truncated));
    }
    // Positions in this frame's list -> positions in the stitched list (child frames interleave).
    let mut moved: Vec<usize> = Vec::with_capacity(page.nodes.len());
    for (i, node) in page.nodes.iter().enumerate() {
        let parent = match node.parent.map(|p| p as usize).filter(|&p| p < i) {
            Some(p) => Some(moved[p]),
            None => host,
        };
        let [x, y, w, h] = node.rect;
        moved.push(out.nodes.len());
        out.nodes.push(PlacedNode {
            node,
            frame_id,
            doc: &page.doc,
            url: &page.url,
            origin: &page.origin,
            parent,
            rect: [x + offset[0], y + offset[1], w, h],
        });
        if !matches!(node.tag.as_str(), "iframe" | "frame") {
            continue;
        }
        let Some(child) = frames.get(format!("{}:{}", page.doc, node.id).as_str()) else { continue };
        let Ok(child_page) = &child.page else { continue };
        let child_id = child.frame_id;
        if depth >= MAX_FRAME_DEPTH || placed_frames.contains(&child_id) {
            out.notes.push("deeply nested frames were left out".into());
            continue;
        }
        placed_frames.push(child_id);
        let origin = node.frame_origin.unwrap_or([x, y]);
        let host_position = out.nodes.len() - 1;
        place(
            out,
            frames,
            placed_frames,
            child_id,
            child_page,
            Some(host_position),
            [origin[0] + offset[0], origin[1] + offset[1]],
            depth + 1,
        );
    }
}
