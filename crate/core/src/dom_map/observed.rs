//! A page as the extension's host reads it (each frame's record as JSON text, with how long
//! reading took), and the description of its map for the runner, the benchmark and debugging.

use super::{serialize, ElementRegistry, MapOptions, PageMap, RawFrame, RawPage};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What the host returns per frame: the sensor's record as JSON text (parsed here, which is much
/// faster than walking a JavaScript object), or why the frame could not be read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameAnswer {
    frame_id: i32,
    json: Option<String>,
    error: Option<String>,
    /// Time spent reading in the page.
    #[serde(default)]
    collect_ms: f64,
    /// The frame had not changed since it was last read: its last record was used again.
    #[serde(default)]
    reused: bool,
}

impl FrameAnswer {
    fn into_frame(self) -> RawFrame {
        let page = match (self.json, self.error) {
            (Some(json), _) => serde_json::from_str::<RawPage>(&json)
                .map_err(|err| format!("the sensor's record could not be read ({err})")),
            (None, error) => Err(error.unwrap_or_else(|| "the frame did not answer".into())),
        };
        RawFrame { frame_id: self.frame_id, page }
    }
}

/// The frames the host read, with how many were read afresh and how long the slowest took to
/// read in its page (frames are read side by side: the slowest one is what the wait was for);
/// the caller adds the rest of the time.
pub fn frames_of(answers: Vec<FrameAnswer>) -> (Vec<RawFrame>, Observation) {
    let collect_ms = answers.iter().map(|answer| answer.collect_ms).fold(0.0, f64::max);
    let frames_read = answers.iter().filter(|answer| answer.json.is_some() && !answer.reused).count();
    let frames = answers.into_iter().map(FrameAnswer::into_frame).collect();
    (frames, Observation { frames_read, collect_ms, ..Observation::default() })
}

/// How reading a page went: how many frames were read afresh (the others had not changed, and
/// their last records were used again), and where the time went, in milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Observation {
    pub frames_read: usize,
    /// Reading in the page (the slowest frame).
    pub collect_ms: f64,
    /// The rest of the wait for the host: injection, frame messages, moving the records over.
    pub transfer_ms: f64,
    /// Parsing the records in the core.
    pub parse_ms: f64,
}

/// The page map of `frames` as the navigator would see it, with its size and where the time went
/// (`clock` in milliseconds): `{ elements, indexed, text, frames_read, timing: {
/// collect_ms, transfer_ms, parse_ms, build_ms, serialize_ms } }`.
pub fn describe(frames: &[RawFrame], observed: Observation, clock: impl Fn() -> f64) -> Result<Value, String> {
    let started = clock();
    let map = PageMap::build(frames, &mut ElementRegistry::new())?;
    let built = clock();
    let text = serialize(&map, &MapOptions::default());
    let serialized = clock();
    let elements: usize = frames.iter().filter_map(|frame| frame.page.as_ref().ok()).map(|page| page.nodes.len()).sum();
    Ok(json!({
        "elements": elements,
        "indexed": map.elements().count(),
        "text": text,
        "frames_read": observed.frames_read,
        "timing": {
            "collect_ms": observed.collect_ms,
            "transfer_ms": observed.transfer_ms,
            "parse_ms": observed.parse_ms,
            "build_ms": built - started,
            "serialize_ms": serialized - built,
        },
    }))
}
