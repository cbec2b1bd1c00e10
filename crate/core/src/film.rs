//! A film of a run: each step's picture of the page, with the element the step acted on outlined
//! and the step's goal as a caption, as an animated GIF.
//!
//! The host draws the frames (it decodes the screenshots and renders the caption's text) and hands
//! over their RGBA pixels; this keeps the film within its bounds and encodes it with the `gif`
//! crate. What goes into a frame (the outline, the redacted caption) is decided by the agent
//! (`agent::navigator::film`).

use serde::{Deserialize, Serialize};

/// The width of a film's frames, in pixels (the height follows the first screenshot's shape).
pub const FRAME_WIDTH: u16 = 640;
/// A film keeps at most this many frames, evenly spread over the run.
pub const MAX_FRAMES: usize = 100;
/// A film stops before it grows past this many bytes.
pub const MAX_BYTES: usize = 8 * 1024 * 1024;
/// How long each frame shows, in hundredths of a second.
pub const FRAME_DELAY_CS: u16 = 150;
/// NeuQuant's speed (1 best, 30 fastest): 10 is the `gif` crate's suggested compromise.
const QUANTISER_SPEED: i32 = 10;
/// The GIF trailer, written when the film is finished.
const TRAILER_BYTES: usize = 1;

/// Where the acted element is in the picture, as fractions of the viewport's width and height
/// (the picture is the viewport, at whatever scale the host draws it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Outline {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Outline {
    /// The outline of an element at `rect` (x, y, width, height in CSS pixels of the viewport)
    /// in a viewport of `width` x `height`, cut to the viewport; `None` when nothing of it shows.
    pub fn of(rect: [f64; 4], width: f64, height: f64) -> Option<Outline> {
        let [x, y, w, h] = rect;
        if width <= 0.0 || height <= 0.0 || w <= 0.0 || h <= 0.0 {
            return None;
        }
        let (left, top) = (x.max(0.0), y.max(0.0));
        let (right, bottom) = ((x + w).min(width), (y + h).min(height));
        if right <= left || bottom <= top {
            return None;
        }
        Some(Outline {
            x: left / width,
            y: top / height,
            width: (right - left) / width,
            height: (bottom - top) / height,
        })
    }
}

/// Which of `count` frames a film keeps: all of them up to `cap`, otherwise `cap` of them evenly
/// spread, the first and the last included.
pub fn kept_frames(count: usize, cap: usize) -> Vec<usize> {
    if count <= cap {
        return (0..count).collect();
    }
    match cap {
        0 => Vec::new(),
        1 => vec![count - 1],
        _ => (0..cap).map(|i| i * (count - 1) / (cap - 1)).collect(),
    }
}

/// An animated GIF written frame by frame, that stops short of a byte cap.
pub struct FilmEncoder {
    encoder: gif::Encoder<Vec<u8>>,
    width: u16,
    height: u16,
    max_bytes: usize,
    frames: usize,
    full: bool,
}

impl FilmEncoder {
    /// A film of `width` x `height` frames, played in a loop, of at most `max_bytes`.
    pub fn new(width: u16, height: u16, max_bytes: usize) -> Result<FilmEncoder, String> {
        if width == 0 || height == 0 {
            return Err(format!("a film's frames cannot be {width} x {height} pixels"));
        }
        let mut encoder = gif::Encoder::new(Vec::new(), width, height, &[]).map_err(|err| err.to_string())?;
        encoder.set_repeat(gif::Repeat::Infinite).map_err(|err| err.to_string())?;
        Ok(FilmEncoder { encoder, width, height, max_bytes, frames: 0, full: false })
    }

    /// Adds a frame of RGBA pixels shown for `delay_cs` hundredths of a second. Returns false,
    /// leaving the frame out, when it would take the film past its byte cap (the film is then
    /// full: later frames are left out too).
    pub fn add(&mut self, rgba: &mut [u8], delay_cs: u16) -> Result<bool, String> {
        let expected = self.width as usize * self.height as usize * 4;
        if rgba.len() != expected {
            return Err(format!("a frame has {} bytes of pixels where {expected} were expected", rgba.len()));
        }
        if self.full {
            return Ok(false);
        }
        let mut frame = gif::Frame::from_rgba_speed(self.width, self.height, rgba, QUANTISER_SPEED);
        frame.delay = delay_cs;
        let before = self.encoder.get_ref().len();
        self.encoder.write_frame(&frame).map_err(|err| err.to_string())?;
        // Each frame is written whole, so cutting the bytes back leaves the film as it was.
        if self.encoder.get_ref().len() + TRAILER_BYTES > self.max_bytes {
            self.encoder.get_mut().truncate(before);
            self.full = true;
            return Ok(false);
        }
        self.frames += 1;
        Ok(true)
    }

    /// The frames added so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The GIF's bytes.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        self.encoder.into_inner().map_err(|err| err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame of one colour with a darker band whose place depends on `seed`.
    fn frame(width: u16, height: u16, seed: u8) -> Vec<u8> {
        let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
        for y in 0..height as usize {
            for x in 0..width as usize {
                let band = (x / 8 + y / 8 + seed as usize) % 5 == 0;
                pixels.extend_from_slice(&[if band { 20 } else { 200 }, seed.wrapping_mul(37), (x % 256) as u8, 255]);
            }
        }
        pixels
    }

    /// Each frame's size and delay, decoded with the `gif` crate's decoder.
    fn decoded(bytes: &[u8]) -> (u16, u16, Vec<(u16, u16, u16)>) {
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(bytes).expect("a GIF");
        let (width, height) = (decoder.width(), decoder.height());
        let mut frames = Vec::new();
        while let Some(frame) = decoder.read_next_frame().expect("a frame") {
            frames.push((frame.width, frame.height, frame.delay));
        }
        (width, height, frames)
    }

    #[test]
    fn a_film_has_every_frame_added_with_its_size_and_delay() {
        let mut film = FilmEncoder::new(64, 40, MAX_BYTES).unwrap();
        for seed in 0..3 {
            assert_eq!(film.add(&mut frame(64, 40, seed), FRAME_DELAY_CS), Ok(true));
        }
        assert_eq!(film.frames(), 3);
        let (width, height, frames) = decoded(&film.finish().unwrap());
        assert_eq!((width, height), (64, 40));
        assert_eq!(frames, vec![(64, 40, FRAME_DELAY_CS); 3]);
    }

    #[test]
    fn a_film_stops_before_its_byte_cap_and_stays_readable() {
        let mut single = FilmEncoder::new(64, 40, MAX_BYTES).unwrap();
        single.add(&mut frame(64, 40, 0), 100).unwrap();
        let one_frame = single.finish().unwrap().len();
        // Room for two frames and a little, not three.
        let cap = one_frame * 2;
        let mut film = FilmEncoder::new(64, 40, cap).unwrap();
        let added: Vec<bool> = (0..5).map(|seed| film.add(&mut frame(64, 40, seed), 100).unwrap()).collect();
        assert_eq!(added, [true, true, false, false, false]);
        let bytes = film.finish().unwrap();
        assert!(bytes.len() <= cap, "{} bytes over a cap of {cap}", bytes.len());
        assert_eq!(decoded(&bytes).2.len(), 2);
    }

    #[test]
    fn a_frame_of_the_wrong_size_is_refused() {
        let mut film = FilmEncoder::new(64, 40, MAX_BYTES).unwrap();
        assert!(film.add(&mut frame(32, 40, 0), 100).unwrap_err().contains("where 10240 were expected"));
        assert!(FilmEncoder::new(0, 40, MAX_BYTES).is_err());
    }

    #[test]
    fn long_runs_keep_frames_evenly_with_the_first_and_the_last() {
        assert_eq!(kept_frames(3, 100), vec![0, 1, 2]);
        assert_eq!(kept_frames(10, 4), vec![0, 3, 6, 9]);
        let kept = kept_frames(250, MAX_FRAMES);
        assert_eq!((kept.len(), kept[0], kept[99]), (MAX_FRAMES, 0, 249));
        assert!(kept.windows(2).all(|pair| (2..=3).contains(&(pair[1] - pair[0]))), "{kept:?}");
        assert_eq!(kept_frames(5, 1), vec![4]);
        assert_eq!(kept_frames(5, 0), Vec::<usize>::new());
    }

    #[test]
    fn an_outline_is_the_visible_part_of_the_element_in_fractions_of_the_viewport() {
        assert_eq!(
            Outline::of([100.0, 50.0, 200.0, 100.0], 1000.0, 500.0),
            Some(Outline { x: 0.1, y: 0.1, width: 0.2, height: 0.2 })
        );
        // Half above the top.
        assert_eq!(
            Outline::of([0.0, -50.0, 500.0, 100.0], 1000.0, 500.0),
            Some(Outline { x: 0.0, y: 0.0, width: 0.5, height: 0.1 })
        );
        assert_eq!(Outline::of([0.0, 600.0, 10.0, 10.0], 1000.0, 500.0), None);
        assert_eq!(Outline::of([0.0, 0.0, 0.0, 10.0], 1000.0, 500.0), None);
    }
}
