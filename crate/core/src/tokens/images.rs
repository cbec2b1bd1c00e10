//! What an image costs in tokens, from its pixel size and each provider's documented rule.
//!
//! The size comes from the image header (PNG `IHDR`, JPEG `SOFn`, GIF, WebP), decoding only the
//! first few KB of the base64 text; an image whose header cannot be read counts as a 1280x800
//! screenshot.

use super::bpe::decode_base64_prefix;
use crate::llm::Image;

/// What an unreadable image is taken to be: a typical laptop screenshot.
pub(super) const DEFAULT_SIZE: (u32, u32) = (1280, 800);

/// At most this much base64 is decoded to find the size (48 KB of image: JPEG metadata segments
/// come before the frame header, and camera EXIF blocks can be tens of KB).
const HEADER_BASE64_CHARS: usize = 64 * 1024;

/// How a provider counts an image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum ImageRule {
    /// OpenAI's tile models (detail `auto`/`high`): fit in 2048x2048, shortest side down to 768,
    /// then `base + tile * (512 px tiles)`.
    /// <https://platform.openai.com/docs/guides/images-vision#calculating-costs>
    OpenAiTiles { base: u32, tile: u32 },
    /// OpenAI's patch models (gpt-4.1-mini, gpt-4.1-nano, o4-mini, gpt-5-mini, gpt-5-nano):
    /// 32x32 px patches, at most 1536 (larger images are scaled down to fit), times the model's
    /// documented multiplier. Same page.
    OpenAiPatches { multiplier: f64 },
    /// Claude: scaled down to the model's largest native size, then about `width * height / 750`
    /// tokens, which the current docs give as one token per 28x28 px patch; the larger of the two
    /// is counted. <https://platform.claude.com/docs/en/build-with-claude/vision>
    Claude { long_edge: u32, max_pixels: u32 },
    /// Gemini 1.5 and 2.x: 258 tokens when both sides are at most 384 px, else 258 per tile, the
    /// image being cut into square crop units of `min(width, height) / 1.5` (kept within 256..=768
    /// px), each scaled to 768x768; images are first fit in 3072x3072.
    /// <https://firebase.google.com/docs/vertex-ai/input-file-requirements>,
    /// <https://ai.google.dev/gemini-api/docs/tokens>
    GeminiTiles,
    /// Gemini 3 and later: a fixed budget per image set by `media_resolution`; the default for
    /// images is high, at most 1120 tokens. <https://ai.google.dev/gemini-api/docs/media-resolution>
    GeminiFixed(u32),
    /// A Gemini model of unknown generation (an alias such as `gemini-flash-latest`): either rule.
    GeminiAny,
    /// A model whose rule is not known: the largest of the rules above that fit an ordinary
    /// vision model (OpenAI tiles and patches, Claude, Gemini tiles), so as not to undercount.
    Largest,
}

/// Claude models before Opus 4.7: long edge at most 1568 px and "~1,600 tokens" (the docs' table of
/// largest sizes runs from 1092x1092 to 784x1568, 1.19-1.23 megapixels; the largest is the bound).
pub(super) const CLAUDE: ImageRule = ImageRule::Claude { long_edge: 1568, max_pixels: 1568 * 784 };
/// Claude Opus 4.7 and later read images up to 2576 px on the long edge and ~3.75 megapixels
/// (4784 patches of 28x28 px).
pub(super) const CLAUDE_HIGH_RES: ImageRule = ImageRule::Claude { long_edge: 2576, max_pixels: 4784 * 28 * 28 };
/// Gemini 3's default image budget (media resolution high).
pub(super) const GEMINI_3: ImageRule = ImageRule::GeminiFixed(1120);
pub(super) const OPENAI: ImageRule = ImageRule::OpenAiTiles { base: 85, tile: 170 };

impl ImageRule {
    pub(super) fn tokens(self, (width, height): (u32, u32)) -> usize {
        let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
        let tokens = match self {
            ImageRule::OpenAiTiles { base, tile } => {
                let (w, h) = fit(w, h, 2048.0, f64::INFINITY);
                let scale = (768.0 / w.min(h)).min(1.0);
                let (w, h) = (w * scale, h * scale);
                f64::from(base) + f64::from(tile) * (w / 512.0).ceil() * (h / 512.0).ceil()
            }
            ImageRule::OpenAiPatches { multiplier } => {
                let patches = ((w / 32.0).ceil() * (h / 32.0).ceil()).min(1536.0);
                (patches * multiplier).ceil()
            }
            ImageRule::Claude { long_edge, max_pixels } => {
                let (w, h) = fit(w, h, f64::from(long_edge), f64::from(max_pixels));
                let (w, h) = (w.floor().max(1.0), h.floor().max(1.0));
                (w * h / 750.0).ceil().max((w / 28.0).ceil() * (h / 28.0).ceil())
            }
            ImageRule::GeminiTiles => {
                let (w, h) = fit(w, h, 3072.0, f64::INFINITY);
                if w <= 384.0 && h <= 384.0 {
                    258.0
                } else {
                    let unit = (w.min(h) / 1.5).floor().clamp(256.0, 768.0);
                    258.0 * (w / unit).ceil() * (h / unit).ceil()
                }
            }
            ImageRule::GeminiFixed(tokens) => f64::from(tokens),
            ImageRule::GeminiAny => {
                return ImageRule::GeminiTiles.tokens((width, height)).max(GEMINI_3.tokens((width, height)))
            }
            ImageRule::Largest => {
                let rules = [OPENAI, ImageRule::OpenAiPatches { multiplier: 1.0 }, CLAUDE, ImageRule::GeminiTiles];
                return rules.iter().map(|rule| rule.tokens((width, height))).max().unwrap_or_default();
            }
        };
        tokens as usize
    }
}

/// Scales `w` x `h` down (never up) so that its long edge is at most `long_edge` and its area at
/// most `max_pixels`, keeping the aspect ratio.
fn fit(w: f64, h: f64, long_edge: f64, max_pixels: f64) -> (f64, f64) {
    let scale = (long_edge / w.max(h)).min((max_pixels / (w * h)).sqrt()).min(1.0);
    (w * scale, h * scale)
}

/// The image's width and height, if its header can be read.
pub(super) fn dimensions(image: &Image) -> Option<(u32, u32)> {
    let bytes = decode_base64_prefix(&image.base64, HEADER_BASE64_CHARS);
    let size = png(&bytes).or_else(|| jpeg(&bytes)).or_else(|| gif(&bytes)).or_else(|| webp(&bytes))?;
    (size.0 > 0 && size.1 > 0).then_some(size)
}

fn be16(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?)))
}

fn le16(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?)))
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 3)?;
    Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
}

/// PNG: the signature, then the `IHDR` chunk with width and height (big-endian u32).
fn png(bytes: &[u8]) -> Option<(u32, u32)> {
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") || bytes.get(12..16)? != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(bytes.get(16..20)?.try_into().ok()?);
    let height = u32::from_be_bytes(bytes.get(20..24)?.try_into().ok()?);
    Some((width, height))
}

/// JPEG: walk the marker segments to the first start-of-frame (`SOF0`..`SOF15` but `DHT`, `JPG`
/// and `DAC`), which holds height then width.
fn jpeg(bytes: &[u8]) -> Option<(u32, u32)> {
    if !bytes.starts_with(&[0xff, 0xd8]) {
        return None;
    }
    let mut i = 2;
    loop {
        // Markers may be preceded by any number of 0xff fill bytes.
        while *bytes.get(i)? == 0xff && *bytes.get(i + 1)? == 0xff {
            i += 1;
        }
        if *bytes.get(i)? != 0xff {
            return None;
        }
        let marker = *bytes.get(i + 1)?;
        match marker {
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                return Some((be16(bytes, i + 7)?, be16(bytes, i + 5)?));
            }
            // Markers without a length: TEM, RSTn, SOI.
            0x01 | 0xd0..=0xd8 => i += 2,
            0xd9 | 0xda => return None, // the image data starts before any frame header
            _ => i += 2 + be16(bytes, i + 2)? as usize,
        }
    }
}

/// GIF: the logical screen size (little-endian u16) after the signature.
fn gif(bytes: &[u8]) -> Option<(u32, u32)> {
    if !(bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a")) {
        return None;
    }
    Some((le16(bytes, 6)?, le16(bytes, 8)?))
}

/// WebP: lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`) first chunk.
fn webp(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.get(0..4)? != b"RIFF" || bytes.get(8..12)? != b"WEBP" {
        return None;
    }
    match bytes.get(12..16)? {
        b"VP8 " => Some((le16(bytes, 26)? & 0x3fff, le16(bytes, 28)? & 0x3fff)),
        b"VP8L" => {
            let bits = u32::from_le_bytes(bytes.get(21..25)?.try_into().ok()?);
            Some(((bits & 0x3fff) + 1, (bits >> 14 & 0x3fff) + 1))
        }
        b"VP8X" => Some((le24(bytes, 24)? + 1, le24(bytes, 27)? + 1)),
        _ => None,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Standard base64 of `bytes`.
    pub(crate) fn base64(bytes: &[u8]) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let mut word = [0u8; 3];
            word[..chunk.len()].copy_from_slice(chunk);
            let value = u32::from_be_bytes([0, word[0], word[1], word[2]]);
            for i in 0..4 {
                out.push(if i <= chunk.len() { ALPHABET[(value >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
            }
        }
        out
    }

    /// The start of a PNG file of the given size (signature and IHDR; the rest does not matter).
    pub(crate) fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&height.to_be_bytes());
        bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0x12, 0x34, 0x56, 0x78]);
        bytes.extend_from_slice(&[0u8; 40]);
        bytes
    }

    /// The start of a JPEG file as Chrome writes screenshots: SOI, APP0 (JFIF), DQT, then SOF0.
    pub(crate) fn jpeg_header(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10];
        bytes.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        bytes.extend_from_slice(&[0xff, 0xdb, 0x00, 0x43, 0x00]);
        bytes.extend_from_slice(&[7u8; 64]);
        bytes.extend_from_slice(&[0xff, 0xff]); // a fill byte
        bytes.extend_from_slice(&[0xc0, 0x00, 0x11, 0x08]);
        bytes.extend_from_slice(&(height as u16).to_be_bytes());
        bytes.extend_from_slice(&(width as u16).to_be_bytes());
        bytes.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        bytes.extend_from_slice(&[0xff, 0xda, 0, 12]);
        bytes
    }

    fn image(media_type: &str, bytes: &[u8]) -> Image {
        Image { media_type: media_type.into(), base64: base64(bytes) }
    }

    #[test]
    fn reads_the_size_from_png_jpeg_gif_and_webp_headers() {
        assert_eq!(dimensions(&image("image/png", &png_header(1280, 800))), Some((1280, 800)));
        assert_eq!(dimensions(&image("image/jpeg", &jpeg_header(1366, 768))), Some((1366, 768)));
        // The media type is not trusted: the bytes say what the image is.
        assert_eq!(dimensions(&image("image/png", &jpeg_header(640, 480))), Some((640, 480)));
        let mut gif = b"GIF89a".to_vec();
        gif.extend_from_slice(&[0x20, 0x03, 0x58, 0x02, 0, 0, 0]);
        assert_eq!(dimensions(&image("image/gif", &gif)), Some((800, 600)));
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        webp.extend_from_slice(&[0xff, 0x04, 0x00, 0x1f, 0x03, 0x00]); // 1280 x 800, minus one
        assert_eq!(dimensions(&image("image/webp", &webp)), Some((1280, 800)));
        // Unreadable: not an image, cut short, not base64, zero size.
        assert_eq!(dimensions(&image("image/png", b"hello world, not an image")), None);
        assert_eq!(dimensions(&image("image/jpeg", &jpeg_header(640, 480)[..40])), None);
        assert_eq!(dimensions(&Image { media_type: "image/png".into(), base64: "***".into() }), None);
        assert_eq!(dimensions(&image("image/png", &png_header(0, 800))), None);
    }

    #[test]
    fn reads_the_header_without_decoding_the_whole_image() {
        let mut bytes = png_header(1920, 1080);
        bytes.extend(std::iter::repeat_n(0xa5, 3_000_000));
        assert_eq!(dimensions(&image("image/png", &bytes)), Some((1920, 1080)));
    }

    #[test]
    fn openai_tiles_follow_the_documented_examples() {
        // The docs' examples: 1024x1024 -> 765, 2048x4096 -> 1105.
        assert_eq!(OPENAI.tokens((1024, 1024)), 765);
        assert_eq!(OPENAI.tokens((2048, 4096)), 1105);
        assert_eq!(OPENAI.tokens((512, 512)), 255);
        assert_eq!(OPENAI.tokens((100, 100)), 255);
        // A 1280x800 screenshot: shortest side to 768 gives 1229x768, 3x2 tiles.
        assert_eq!(OPENAI.tokens((1280, 800)), 1105);
        assert_eq!(OPENAI.tokens((1280, 720)), 85 + 170 * 6);
        assert_eq!(OPENAI.tokens((800, 600)), 85 + 170 * 4);
        assert_eq!(ImageRule::OpenAiTiles { base: 2833, tile: 5667 }.tokens((1024, 1024)), 2833 + 5667 * 4);
        let mini = ImageRule::OpenAiPatches { multiplier: 1.62 };
        assert_eq!(mini.tokens((1024, 1024)), 1659); // 1024 patches x 1.62
        assert_eq!(ImageRule::OpenAiPatches { multiplier: 1.0 }.tokens((1280, 800)), 1000);
        assert_eq!(ImageRule::OpenAiPatches { multiplier: 1.0 }.tokens((1800, 2400)), 1536);
    }

    #[test]
    fn claude_counts_pixels_over_750_after_scaling_down() {
        // The docs' examples: 200x200 ~54 (28 px patches: 8x8 = 64), 1000x1000 ~1334, 1092x1092 ~1590.
        assert_eq!(CLAUDE.tokens((200, 200)), 64);
        assert_eq!(CLAUDE.tokens((1000, 1000)), 1334);
        assert_eq!(CLAUDE.tokens((1092, 1092)), 1590);
        assert_eq!(CLAUDE.tokens((1280, 800)), 1366);
        // Larger images are scaled to ~1.19 megapixels at most.
        assert_eq!(CLAUDE.tokens((1920, 1080)), 1638);
        assert_eq!(CLAUDE.tokens((4000, 3000)), 1639);

        assert_eq!(CLAUDE.tokens((784, 1568)), 1640); // 28 x 56 patches: 1:2 at the long-edge limit
                                                      // Opus 4.7 and later keep up to 2576 px and ~3.75 MP.
        assert_eq!(CLAUDE_HIGH_RES.tokens((1280, 800)), 1366);
        assert_eq!(CLAUDE_HIGH_RES.tokens((1920, 1080)), 2765);
        assert!((4780..=5010).contains(&CLAUDE_HIGH_RES.tokens((4000, 3000))));
    }

    #[test]
    fn gemini_tiles_by_crop_unit() {
        assert_eq!(ImageRule::GeminiTiles.tokens((384, 384)), 258);
        assert_eq!(ImageRule::GeminiTiles.tokens((300, 200)), 258);
        // 1280x800: crop unit 533 px, 3 x 2 tiles.
        assert_eq!(ImageRule::GeminiTiles.tokens((1280, 800)), 258 * 6);
        // 1024x1024: unit 682 px, 2 x 2.
        assert_eq!(ImageRule::GeminiTiles.tokens((1024, 1024)), 258 * 4);
        // 400x100: unit 66 -> 256 px, 2 x 1.
        assert_eq!(ImageRule::GeminiTiles.tokens((400, 100)), 258 * 2);
        // 3000x3000: unit 2000 -> 768 px, 4 x 4.
        assert_eq!(ImageRule::GeminiTiles.tokens((3000, 3000)), 258 * 16);
        assert_eq!(ImageRule::GeminiFixed(1120).tokens((1280, 800)), 1120);
        assert_eq!(ImageRule::Largest.tokens((1280, 800)), 1548);
    }
}
