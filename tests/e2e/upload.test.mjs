// Files in: the user attaches files to a task (the side panel's attach button, or a start request's
// `files`), and the agent uploads one of them by name (`upload_file`) into a real form's file input,
// which the browser then submits as multipart/form-data, or drops it onto Ant Design's drag-and-drop
// upload, which sends it itself. Each test judges by what the server received: the exact bytes and
// file name. A file the user did not attach is refused, and the panel says so.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchAgentBrowser, applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { serveFolder } from '../../runner/serve.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { bundleWidgetApps } from '../support/widget-apps.mjs';
import { waitUntil } from '../support/fixtures.mjs';

const SITES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'sites');
const TIMEOUT = 30_000;
const TASK = 'apply for this job as Ada Lovelace (ada@example.org) with my CV';

/** A small PDF, bytes above 127 included (a PDF's binary marker), as a real one has. */
const CV = Buffer.concat([
  Buffer.from('%PDF-1.4\n%'), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3]),
  Buffer.from('\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'),
]);

let agent;
let site;
/** What the site's server received: each POST's path and its form's fields (a file as name, type, bytes). */
const received = [];

async function receive(path, headers, body) {
  const form = await new Response(body, { headers: { 'content-type': headers['content-type'] ?? '' } }).formData();
  const fields = {};
  for (const [key, value] of form) {
    fields[key] = typeof value === 'string' ? value : { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
  }
  received.push({ path, type: headers['content-type'], fields });
  if (path === '/widgets/upload') return { type: 'application/json', body: '{"ok":true}' };
  const escape = (text) => String(text).replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`);
  return { body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Thank you</title></head><body><h1>Thank you, ${escape(fields.name)}</h1></body></html>` };
}

before(async () => {
  await bundleWidgetApps();
  site = await serveFolder(SITES, { post: receive });
  agent = await launchAgentBrowser();
});

after(async () => {
  await agent?.close();
  await site?.close();
});

async function useModel(llm) {
  await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 8, highlights: false });
}

const done = (text) => ({ actions: [{ done: { text, success: true } }] });

/** How many files' bytes the worker holds (extension/background/task-files.js's store). */
function heldFiles() {
  return agent.worker.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('agent-task-files', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('files');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const count = open.result.transaction('files').objectStore('files').count();
      count.onsuccess = () => { open.result.close(); resolve(count.result); };
      count.onerror = () => reject(count.error);
    };
  }));
}

test('a CV attached in the panel is uploaded into the form, which the server receives whole', async () => {
  received.length = 0;
  const llm = await startLlmServer([
    { next_goal: 'Fill in the form and choose the CV', actions: [
      { input_text: { target: 'Full name', text: 'Ada Lovelace' } },
      { input_text: { target: 'Email', text: 'ada@example.org' } },
      { upload_file: { target: 'CV (PDF)', name: 'ada-cv.pdf' } },
    ] },
    { next_goal: 'Send the application', actions: [{ click_element: { target: 'Send application' } }] },
    done('Sent the application with ada-cv.pdf'),
  ]);
  try {
    await useModel(llm);
    const target = await openTarget(agent, `${site.origin}/jobs/apply.html`);
    const panel = await openPanel(agent, target.tabId);
    // A file over the bound is refused with the reason, and not attached.
    await panel.setInputFiles('#attach-input', { name: 'scan.tiff', mimeType: 'image/tiff', buffer: Buffer.alloc(10 * 1024 * 1024 + 1) });
    assert.match(await panel.locator('#attach-error').textContent(), /^scan\.tiff is 10 MB; one file may be at most 10 MB/);
    assert.equal(await panel.locator('#attached').isHidden(), true);
    // Two files attached, each a chip with its name and size; the wrong one removed.
    await panel.setInputFiles('#attach-input', [
      { name: 'old-cv.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(2 * 1024 * 1024) },
      { name: 'ada-cv.pdf', mimeType: 'application/pdf', buffer: CV },
    ]);
    assert.equal(await panel.locator('#attach-error').isHidden(), true);
    assert.deepEqual(await panel.locator('#attached li').allInnerTexts(), ['old-cv.pdf\n2 MB\n×', 'ada-cv.pdf\n1 KB\n×']);
    await panel.getByRole('button', { name: 'Remove old-cv.pdf' }).click();
    assert.deepEqual(await panel.locator('#attached li').allInnerTexts(), ['ada-cv.pdf\n1 KB\n×']);
    await panel.fill('#task', TASK);
    await panel.press('#task', 'Enter');
    // Sent with the task: the chip is gone.
    await panel.locator('#attached').waitFor({ state: 'hidden' });

    // Sending the application is the user's to allow.
    const approval = panel.locator('.approval');
    await approval.waitFor({ timeout: TIMEOUT });
    assert.match(await approval.locator('.question').textContent(), /Send application/);
    assert.equal(received.length, 0, 'nothing is sent before the user allows it');
    // The worker holds the CV's bytes while the task runs...
    assert.equal(await heldFiles(), 1);
    await approval.locator('button.allow').click();
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    // The model heard that the CV went in.
    assert.match(llm.requests[1].messages.at(-1).content, /upload_file: Put "ada-cv\.pdf" into <input>/);

    // The server received a multipart form: the fields typed, and the CV, byte for byte.
    assert.equal(received.length, 1, JSON.stringify(received));
    const [{ path, type, fields }] = received;
    assert.equal(path, '/jobs/apply');
    assert.match(type, /^multipart\/form-data; boundary=/);
    assert.equal(fields.name, 'Ada Lovelace');
    assert.equal(fields.email, 'ada@example.org');
    assert.equal(fields.cv.name, 'ada-cv.pdf');
    assert.equal(fields.cv.type, 'application/pdf');
    assert.ok(fields.cv.bytes.equals(CV), 'the exact bytes of the CV');
    assert.equal(await target.page.locator('h1').textContent(), 'Thank you, Ada Lovelace');
    // ...and lets go of them once it has ended.
    await waitUntil(async () => (await heldFiles()) === 0, 10_000);
    // The model saw the file it was given, by name.
    assert.match(llm.requests[0].messages.at(-1).content, /\n- ada-cv\.pdf: attached, application\/pdf, 83 bytes\n/);
    assert.ok(!llm.requests[0].messages.at(-1).content.includes('old-cv.pdf'), 'the file removed was not sent');
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('a file dropped on Ant Design\'s drag-and-drop upload is sent by the library, whole', async () => {
  received.length = 0;
  // Some megabytes of every byte value: the file crosses the port, the core, the worker's store and
  // the page whole.
  const portfolio = Buffer.concat([CV, Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 7919) % 256))]);
  // The library sends the file as it is dropped: held, the critic reads the user's words (as a real
  // model would, it finds the upload there), and the drop done again goes through.
  const drop = { next_goal: 'Drop the portfolio', actions: [{ upload_file: { target: 'Drop your portfolio here', name: 'portfolio.pdf' } }] };
  const asked = { align: { reason: 'the user asked to upload their portfolio', asked: true } };
  const llm = await startLlmServer([drop, asked, drop, done('Uploaded the portfolio')]);
  try {
    await useModel(llm);
    const target = await openTarget(agent, `${site.origin}/widgets/upload.html`);
    await target.page.waitForFunction(() => document.body.dataset.ready === 'yes', null, { timeout: 10000 });
    const panel = await openPanel(agent, target.tabId);
    const events = [];
    const files = [{ name: 'portfolio.pdf', mime: 'application/pdf', data: portfolio.toString('base64') }];
    const end = await runTask(panel, { request: { type: 'start_task', task: 'upload my portfolio', files }, tabId: target.tabId, onEvent: (e) => events.push(e) });
    const outcomes = events.filter((e) => e.type === 'step').flatMap((e) => e.actions.map((a) => a.outcome));
    assert.equal(end.type, 'result', outcomes.join('\n'));
    assert.match(outcomes[0], /would change something on the site: POST 127\.0\.0\.1:\d+\/widgets\/upload [^]*held back, so nothing has changed yet, and the page was reloaded\. The user's words ask for it \(as the critic read them\)/);
    assert.equal(llm.critiques.length, 1);
    // Dropped: the page took the drop (it cancelled dragover), not a file input's choice.
    assert.match(outcomes[1], /^Dropped "portfolio\.pdf" onto <span> "Drop your portfolio here, or click to choose it" \[\d+\]\.$/);
    // The library took the drop and sent the file: it reports it done, and the server has it.
    await waitUntil(async () => (await target.page.locator('#uploaded').textContent()) === 'portfolio.pdf: done', 10_000);
    assert.equal(received.length, 1);
    assert.equal(received[0].path, '/widgets/upload');
    assert.equal(received[0].fields.document.name, 'portfolio.pdf');
    assert.ok(received[0].fields.document.bytes.equals(portfolio), 'the exact bytes');
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('a file the user did not attach is refused, and the panel shows why', async () => {
  received.length = 0;
  const llm = await startLlmServer([
    { next_goal: 'Choose the passport', actions: [{ upload_file: { target: 'CV (PDF)', name: 'passport.pdf' } }] },
    { next_goal: 'Tell the user', actions: [{ done: { text: 'I have no passport to upload', success: false } }] },
  ]);
  try {
    await useModel(llm);
    const target = await openTarget(agent, `${site.origin}/jobs/apply.html`);
    const panel = await openPanel(agent, target.tabId);
    await panel.setInputFiles('#attach-input', { name: 'ada-cv.pdf', mimeType: 'application/pdf', buffer: CV });
    await panel.fill('#task', TASK);
    await panel.press('#task', 'Enter');
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    const refused = panel.locator('.step li.failed');
    assert.equal(await refused.count(), 1);
    assert.match(await refused.innerText(), /There is no file "passport\.pdf" among the task's files; the files you may upload are "ada-cv\.pdf"(, "todo\.md")?\./);
    assert.equal(await target.page.locator('#cv').evaluate((input) => input.files.length), 0);
    assert.equal(received.length, 0);
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('an attached file bound for a site the user did not choose waits for the user, and goes nowhere when refused', async () => {
  received.length = 0;
  const llm = await startLlmServer([
    { next_goal: 'Open the position', actions: [{ click_element: { target: 'Data analyst at Lisbon Analytics' } }] },
    { next_goal: 'Choose the CV', actions: [{ upload_file: { target: 'CV (PDF)', name: 'ada-cv.pdf' } }] },
    done('The user did not allow sending the CV there'),
  ]);
  try {
    await useModel(llm);
    const target = await openTarget(agent, `${site.origin}/jobs/board.html`);
    const panel = await openPanel(agent, target.tabId);
    const questions = [];
    const files = [{ name: 'ada-cv.pdf', mime: 'application/pdf', data: CV.toString('base64') }];
    const events = [];
    const end = await runTask(panel, {
      request: { type: 'start_task', task: TASK, files },
      tabId: target.tabId,
      onEvent: (e) => events.push(e),
      onApproval: (e) => {
        questions.push(e);
        return false;
      },
    });
    const outcomes = events.filter((e) => e.type === 'step').flatMap((e) => e.actions.map((a) => a.outcome));
    assert.equal(end.type, 'result', outcomes.join('\n'));
    // The task holds the user's CV: its first act toward the other site, following the board's
    // link there, asks, naming what it holds; refused, the CV goes nowhere.
    assert.equal(questions.length, 1, JSON.stringify(questions));
    const [asked] = questions;
    assert.match(asked.question, /^The task holds your data \(ada-cv\.pdf \(a file you attached\).*\), and this would act on localhost:\d+, a site outside the task's sites, by following the link <a> "Data analyst at Lisbon Analytics"/);
    assert.ok(asked.data.includes('ada-cv.pdf'), JSON.stringify(asked.data));
    assert.match(outcomes[0], /^The user did not allow acting on localhost:\d+, a site outside the task's sites/);
    assert.equal(await target.page.url(), `${site.origin}/jobs/board.html`);
    assert.equal(received.length, 0);
    await panel.close();
  } finally {
    await llm.close();
  }
});
