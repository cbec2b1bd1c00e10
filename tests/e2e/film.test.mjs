// A film of every run: with the film setting on, the shop task's steps come out as an animated GIF
// (each step's screenshot, the acted element outlined, the step's goal as caption), downloaded
// from the panel, from the History, written by the runner with --gif and by the evaluation with
// --films (linked from its report). The GIFs are decoded
// in Chromium with WebCodecs' ImageDecoder; frame 3 (the click on "Add Blue mug to cart") is kept
// as a PNG to be looked at.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchAgentBrowser, applySettings, openTarget, openPanel, EXTENSION_DIR } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';
import { SHOP_TASK, shopScript, runRunner } from '../support/fixtures.mjs';

const TIMEOUT = 30_000;
const ARTIFACTS = join(EXTENSION_DIR, 'tests', 'artifacts');
/** Where the coordinator looks at the film, outside the repository. */
const LOOK_AT = join(EXTENSION_DIR, '..');
/** The film's bounds (crate/core/src/film.rs). */
const FRAME_WIDTH = 640;
const MAX_BYTES = 8 * 1024 * 1024;
/** The outline's colour (extension/background/film.js). */
const OUTLINE = [0xff, 0x2d, 0x55];

let agent;
let site;

before(async () => {
  site = await startSiteServer();
  agent = await launchAgentBrowser();
  await mkdir(ARTIFACTS, { recursive: true });
});

after(async () => {
  await agent?.close();
  await site?.close();
});

/** A panel the size of Chrome's side panel, bound to a tab showing the shop. */
async function openShopPanel() {
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  await panel.setViewportSize({ width: 400, height: 760 });
  return panel;
}

async function openHistory(panel) {
  await panel.click('#history-button');
  await panel.waitForFunction(() => document.getElementById('history-status').textContent !== 'Loading…', null, { timeout: TIMEOUT });
}

/** The film button's download, as bytes. */
async function downloadFilm(panel) {
  const button = panel.locator('.export.film');
  await button.waitFor({ timeout: TIMEOUT });
  const [download] = await Promise.all([panel.waitForEvent('download', { timeout: TIMEOUT }), button.click()]);
  assert.match(download.suggestedFilename(), /^agent-run-[\dT-]+\.gif$/);
  return readFile(await download.path());
}

/** The GIF decoded in `page` by ImageDecoder: frame count, each frame's size and duration, frame
 * `look` as a PNG (base64), and how many of its pixels have the outline's colour. */
function decode(page, bytes, look) {
  return page.evaluate(async ({ base64, look, outline }) => {
    const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const decoder = new ImageDecoder({ data, type: 'image/gif' });
    await decoder.tracks.ready;
    await decoder.completed;
    const count = decoder.tracks.selectedTrack.frameCount;
    const frames = [];
    let png = null;
    let outlined = 0;
    for (let frameIndex = 0; frameIndex < count; frameIndex++) {
      const { image } = await decoder.decode({ frameIndex });
      frames.push({ width: image.displayWidth, height: image.displayHeight, duration: image.duration });
      if (frameIndex === look) {
        const canvas = new OffscreenCanvas(image.displayWidth, image.displayHeight);
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 0; i < pixels.length; i += 4) {
          if (Math.abs(pixels[i] - outline[0]) + Math.abs(pixels[i + 1] - outline[1]) + Math.abs(pixels[i + 2] - outline[2]) < 60) outlined++;
        }
        const blob = await canvas.convertToBlob({ type: 'image/png' });
        const png8 = new Uint8Array(await blob.arrayBuffer());
        let binary = '';
        for (let i = 0; i < png8.length; i += 0x8000) binary += String.fromCharCode(...png8.subarray(i, i + 0x8000));
        png = btoa(binary);
      }
      image.close();
    }
    decoder.close();
    return { count, frames, png, outlined };
  }, { base64: Buffer.from(bytes).toString('base64'), look, outline: OUTLINE });
}

/** Checks a film of the four-step shop task; returns the decoded film. */
async function checkFilm(page, bytes, look = 2) {
  assert.ok(bytes.length > 1000 && bytes.length <= MAX_BYTES, `${bytes.length} bytes`);
  assert.equal(bytes.subarray(0, 6).toString('latin1'), 'GIF89a');
  const film = await decode(page, bytes, look);
  assert.equal(film.count, 4, 'a frame a step');
  const [{ width, height }] = film.frames;
  assert.equal(width, FRAME_WIDTH);
  assert.ok(height > 100 && height < 2000, `${height} px high`);
  for (const frame of film.frames) assert.deepEqual([frame.width, frame.height, frame.duration], [width, height, 1_500_000]);
  return film;
}

/** The chat and film ids of the History's newest chat's run. */
function newestFilm() {
  return agent.worker.evaluate(async () => {
    const { chatIndex } = await chrome.storage.local.get('chatIndex');
    const chat = chatIndex[0].id;
    const stored = (await chrome.storage.local.get(`chat:${chat}`))[`chat:${chat}`];
    const run = stored.events.find((event) => event.type === 'run_recorded');
    return { chat, film: run.record.film, types: stored.events.map((event) => event.type) };
  });
}

test('with the film on, a run downloads as a GIF from the panel and the History, until its chat is deleted', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test-key', maxSteps: 10, film: true });
    const panel = await openShopPanel();
    await panel.fill('#task', SHOP_TASK);
    await panel.press('#task', 'Enter');
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    // The model was not shown the film's screenshots (vision is off).
    const images = llm.requests.flatMap((request) => request.raw.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])))
      .filter((part) => part.type === 'image_url');
    assert.deepEqual(images, []);
    assert.equal(await panel.locator('.step .step-screenshot').count(), 0, 'nor do the steps show them');

    const bytes = await downloadFilm(panel);
    const film = await checkFilm(panel, bytes);
    // The click on "Add Blue mug to cart" is outlined.
    assert.ok(film.outlined > 100, `${film.outlined} pixels of the outline's colour`);
    const png = Buffer.from(film.png, 'base64');
    await writeFile(join(ARTIFACTS, 'film-frame-3.png'), png);
    await writeFile(join(ARTIFACTS, 'film.gif'), bytes);
    await copyFile(join(ARTIFACTS, 'film-frame-3.png'), join(LOOK_AT, 'film-frame.png'));
    await copyFile(join(ARTIFACTS, 'film.gif'), join(LOOK_AT, 'film.gif'));

    // The frames are the worker's: the History keeps no film_frame event, the record names the film.
    const { chat, film: filmId, types } = await newestFilm();
    assert.match(filmId, /^\d+$/);
    assert.ok(!types.includes('film_frame'));

    // A past run: its film from the History, the same.
    const reader = await openShopPanel();
    await openHistory(reader);
    await reader.locator('.chat-item').first().locator('.open').click();
    await reader.locator('.history-notice').waitFor({ timeout: TIMEOUT });
    assert.deepEqual(await downloadFilm(reader), bytes);

    // Deleting the chat lets go of its film (the worker did, before the History's list came back).
    await openHistory(reader);
    await reader.locator('.chat-item', { hasText: SHOP_TASK }).first().locator('.delete').click();
    await reader.locator('.chat-item', { hasText: SHOP_TASK }).waitFor({ state: 'detached', timeout: TIMEOUT });
    assert.equal(await agent.worker.evaluate(({ c, f }) => globalThis.agentFilm(c, f), { c: chat, f: filmId }), null);
    await reader.close();
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('the runner writes the film with --gif', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  const file = join(await mkdtemp(join(tmpdir(), 'agent-film-')), 'run.gif');
  try {
    const { code, stdout, stderr } = await runRunner(
      ['--task', SHOP_TASK, '--url', `${site.origin}/shop/`, '--base-url', llm.baseUrl, '--model', 'scripted', '--max-steps', '6', '--gif', file],
    );
    assert.equal(code, 0, stderr);
    const bytes = await readFile(file);
    assert.match(stdout, new RegExp(`Film written to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(${bytes.length} bytes\\)`));
    const page = await openShopPanel();
    await checkFilm(page, bytes);
    await page.close();
  } finally {
    await llm.close();
  }
});

test('the evaluation makes a film of each run with --films and links it from its report', async () => {
  const suiteFile = join(EXTENSION_DIR, 'tests', 'eval', 'suite.jsonl');
  const task = (await readFile(suiteFile, 'utf8')).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
    .find((t) => t.id === 'shop-blue-mug');
  const scripts = JSON.parse(await readFile(join(EXTENSION_DIR, 'tests', 'eval', 'perfect.json'), 'utf8'));
  const llm = await startLlmServer({ tasks: { [task.task]: scripts[task.id] } });
  const out = await mkdtemp(join(tmpdir(), 'agent-eval-films-'));
  try {
    const { code, stderr } = await new Promise((done) => {
      const child = spawn(join(EXTENSION_DIR, 'build.sh'), ['eval', '--suite', suiteFile, '--only', task.id, '--films',
        '--base-url', llm.baseUrl, '--model', 'scripted', '--planning-interval', '0', '--out', out]);
      let errors = '';
      child.stderr.on('data', (d) => { errors += d; });
      child.on('close', (exit) => done({ code: exit, stderr: errors }));
    });
    assert.equal(code, 0, stderr);
    const [result] = (await readFile(join(out, 'results.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(result.film, join('films', `${task.id}.1.gif`));
    const bytes = await readFile(join(out, result.film));
    const page = await openShopPanel();
    const film = await decode(page, bytes, 0);
    assert.equal(film.count, result.steps, 'a frame a step');
    assert.equal(film.frames[0].width, FRAME_WIDTH);
    await page.close();
    const report = await agent.context.newPage();
    await report.goto(`file://${join(out, 'report.html')}`);
    assert.equal(await report.locator('a.film').getAttribute('href'), result.film);
    await report.close();
  } finally {
    await llm.close();
  }
});
