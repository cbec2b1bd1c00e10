//! A run's film as the worker makes it (extension/background/film.js): the worker draws each frame,
//! the core's encoder (`agent_core::film`) keeps it within bounds and writes the GIF.

use agent_core::film::{self, FilmEncoder};
use wasm_bindgen::prelude::*;

/// An animated GIF being written, frame by frame.
#[wasm_bindgen]
pub struct Film(FilmEncoder);

#[wasm_bindgen]
impl Film {
    /// A film of `width` x `height` frames, of at most `film::MAX_BYTES`.
    #[wasm_bindgen(constructor)]
    pub fn new(width: u16, height: u16) -> Result<Film, JsValue> {
        FilmEncoder::new(width, height, film::MAX_BYTES).map(Film).map_err(|err| JsValue::from_str(&err))
    }

    /// Adds a frame of RGBA pixels; false when the film is full (it was left out, and later
    /// ones will be too).
    pub fn add(&mut self, rgba: &mut [u8]) -> Result<bool, JsValue> {
        self.0.add(rgba, film::FRAME_DELAY_CS).map_err(|err| JsValue::from_str(&err))
    }

    /// The GIF's bytes.
    pub fn finish(self) -> Result<Vec<u8>, JsValue> {
        self.0.finish().map_err(|err| JsValue::from_str(&err))
    }

    /// Which of `count` frames the film keeps (their positions, in order).
    #[wasm_bindgen(js_name = keptFrames)]
    pub fn kept_frames(count: usize) -> Vec<u32> {
        film::kept_frames(count, film::MAX_FRAMES).into_iter().map(|at| at as u32).collect()
    }

    /// The width of the frames, in pixels.
    #[wasm_bindgen(js_name = frameWidth)]
    pub fn frame_width() -> u16 {
        film::FRAME_WIDTH
    }
}
