// A film of each run, when the film setting is on: the core sends a `film_frame` event per step
// (the screenshot the model saw, the acted element's outline, the fields holding a secret, the
// step's goal, already redacted); the worker draws the picture (the screenshot at the film's
// width, the secrets blacked out, the outline) and keeps it with the caption in the extension's
// own IndexedDB until the chat leaves the History. Asked for the film, it draws the kept frames
// (the picture, the caption below) into RGBA pixels for the core's GIF encoder
// (crate/core/src/film.rs), which keeps them in bounds.

import { Film } from '../core/agent_wasm.js';
import { objectStore } from '../shared/object-store.js';

const transaction = objectStore('agent-films', 'frames');

/** The caption's lines, their height and the bar's padding, in pixels. */
const CAPTION_LINES = 2;
const LINE_HEIGHT = 18;
const PADDING = 8;
const CAPTION_FONT = '14px system-ui, sans-serif';
const CAPTION_BAR = CAPTION_LINES * LINE_HEIGHT + 2 * PADDING;
const OUTLINE_COLOUR = '#ff2d55';
/** The most films kept (each at most a frame a step, 200 steps): older ones go first. */
const MAX_FILMS = 20;
/** The quality of the kept frames (JPEG): the GIF's palette is coarser. */
const FRAME_QUALITY = 0.85;

/** A frame's key: frames sort by chat, film and step. */
const frameKey = (chat, film, step) => [chat, film, step];

/** Frames being kept, in order: a film is made once those sent before it are kept. */
let keeping = Promise.resolve();

/** Films whose first frame this worker kept (a new film is when older ones may go). */
const started = new Set();

/** Draws and keeps a `film_frame` event's frame. */
export function keepFilmFrame(event) {
  keeping = keeping.then(() => keepFrame(event)).catch((err) => console.warn('A film frame could not be kept:', err));
  return keeping;
}

async function keepFrame({ chat, film, step, image, outline, masks, caption }) {
  const picture = await drawPicture(image, outline, masks);
  await transaction('readwrite', (store) => store.put({ step, caption, ...picture }, frameKey(chat, film, step)));
  if (!started.has(film)) {
    started.add(film);
    await forgetOldFilms();
  }
}

/** Lets go of the films beyond the newest MAX_FILMS (a film's name is when its run started). */
async function forgetOldFilms() {
  const keys = await transaction('readonly', (store) => store.getAllKeys());
  const films = [...new Map(keys.map(([chat, film]) => [`${chat}\u0000${film}`, [chat, film]])).values()]
    .sort((a, b) => Number(b[1]) - Number(a[1]));
  const old = films.slice(MAX_FILMS);
  if (!old.length) return;
  await transaction('readwrite', (store) => {
    for (const [chat, film] of old) store.delete(IDBKeyRange.bound([chat, film, -Infinity], [chat, film, Infinity]));
  });
}

/** The screenshot at the film's width, the secrets blacked out and the acted element outlined:
 * `{picture: Blob (JPEG), height}`. */
async function drawPicture(image, outline, masks) {
  const screenshot = await createImageBitmap(await (await fetch(image)).blob());
  const width = Film.frameWidth();
  const height = Math.max(1, Math.round((screenshot.height * width) / screenshot.width));
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  context.drawImage(screenshot, 0, 0, width, height);
  const box = (part) => [part.x * width, part.y * height, part.width * width, part.height * height];
  context.fillStyle = '#000';
  for (const mask of masks ?? []) context.fillRect(...box(mask));
  if (outline) {
    context.strokeStyle = OUTLINE_COLOUR;
    context.lineWidth = 3;
    context.strokeRect(...box(outline));
  }
  return { picture: await canvas.convertToBlob({ type: 'image/jpeg', quality: FRAME_QUALITY }), height };
}

/** Draws a kept frame on `context` (the film's size, its picture part `pictureHeight` high):
 * the picture fitted in above (a window resized meanwhile makes another shape), the caption below. */
async function drawFrame(context, { picture, step, caption }, pictureHeight) {
  const { width, height } = context.canvas;
  const bitmap = await createImageBitmap(picture);
  const scale = Math.min(width / bitmap.width, pictureHeight / bitmap.height);
  context.fillStyle = '#000';
  context.fillRect(0, 0, width, height);
  context.drawImage(bitmap, (width - bitmap.width * scale) / 2, 0, bitmap.width * scale, bitmap.height * scale);
  context.fillStyle = '#16181d';
  context.fillRect(0, pictureHeight, width, height - pictureHeight);
  context.fillStyle = '#fff';
  context.font = CAPTION_FONT;
  context.textBaseline = 'top';
  const lines = wrapped(context, `${step}. ${caption}`, width - 2 * PADDING);
  lines.forEach((line, at) => context.fillText(line, PADDING, pictureHeight + PADDING + at * LINE_HEIGHT));
}

/** `text` in at most CAPTION_LINES lines of `width`, the last cut short with an ellipsis. */
function wrapped(context, text, width) {
  const lines = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const longer = line ? `${line} ${word}` : word;
    if (context.measureText(longer).width <= width || !line) {
      line = longer;
      continue;
    }
    lines.push(line);
    line = word;
  }
  if (line) lines.push(line);
  if (lines.length <= CAPTION_LINES) return lines;
  let last = lines[CAPTION_LINES - 1];
  while (last && context.measureText(`${last}…`).width > width) last = last.slice(0, -1);
  return [...lines.slice(0, CAPTION_LINES - 1), `${last}…`];
}

/** The kept frames of film `film` of chat `chat`, in step order. */
function filmFrames(chat, film) {
  const range = IDBKeyRange.bound([chat, film, -Infinity], [chat, film, Infinity]);
  return transaction('readonly', (store) => store.getAll(range));
}

/** The film as GIF bytes, or null when none of its frames are kept. */
export async function filmGif(chat, film) {
  await keeping;
  const frames = await filmFrames(chat, film);
  if (!frames.length) return null;
  const kept = Array.from(Film.keptFrames(frames.length), (at) => frames[at]);
  const width = Film.frameWidth();
  const pictureHeight = mostCommon(kept.map((frame) => frame.height));
  const canvas = new OffscreenCanvas(width, pictureHeight + CAPTION_BAR);
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const encoder = new Film(canvas.width, canvas.height);
  try {
    for (const frame of kept) {
      await drawFrame(context, frame, pictureHeight);
      const pixels = new Uint8Array(context.getImageData(0, 0, canvas.width, canvas.height).data.buffer);
      if (!encoder.add(pixels)) break;
    }
  } catch (err) {
    encoder.free();
    throw err;
  }
  return encoder.finish();
}

/** The value most of `values` have (the latest of equals). */
function mostCommon(values) {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].reduce((best, entry) => (entry[1] >= best[1] ? entry : best))[0];
}

/** Lets go of the films of these chats (they left the History). */
export async function releaseFilms(chats) {
  await keeping;
  await transaction('readwrite', (store) => {
    for (const chat of chats) store.delete(IDBKeyRange.bound([chat], [chat, []]));
  });
}

/** `bytes` in base64 (for messages, which carry no bytes). */
function base64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The film as a base64 string, or null. */
export async function filmBase64(chat, film) {
  const bytes = await filmGif(chat, film);
  return bytes ? base64(bytes) : null;
}

/** The film's kept frames one by one, without caption bars: the screenshots the model saw, secrets
 * blacked out and the acted element outlined, as JPEG in base64 (the evaluation's screenshots,
 * which its judge reads): [{ step, caption, jpeg }]. */
export async function filmScreenshots(chat, film) {
  await keeping;
  const frames = await filmFrames(chat, film);
  return Promise.all(frames.map(async ({ step, caption, picture }) => ({ step, caption, jpeg: base64(new Uint8Array(await picture.arrayBuffer())) })));
}
