// Launching Chromium with the built extension and driving the agent through the panel's port
// protocol. Shared by the headless runner (runner/cli.mjs) and the end-to-end tests.

import { chromium } from 'playwright-core';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attachmentProblem } from '../extension/shared/attachments.js';

export const EXTENSION_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const PANEL_PATH = 'extension/panel/panel.html';

/** Media types by extension, for the files attached with `--file` (the rest go untyped). */
const MEDIA_TYPES = {
  '.pdf': 'application/pdf', '.txt': 'text/plain', '.md': 'text/markdown', '.csv': 'text/csv', '.json': 'application/json',
  '.html': 'text/html', '.xml': 'application/xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg',
  '.gif': 'image/gif', '.webp': 'image/webp', '.svg': 'image/svg+xml', '.zip': 'application/zip',
  '.doc': 'application/msword', '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', '.odt': 'application/vnd.oasis.opendocument.text',
};

/** The files at `paths`, as a start request attaches them (`files` of start_task, docs/protocol.md);
 * throws saying which file is not there or what bound they pass. */
export async function attachFiles(paths) {
  const files = [];
  for (const path of paths) {
    const bytes = await readFile(path).catch((err) => { throw new Error(`cannot read the file ${path}: ${err.message}`); });
    files.push({ name: basename(path), mime: MEDIA_TYPES[extname(path).toLowerCase()] ?? '', bytes });
  }
  const problem = attachmentProblem(files.map(({ name, bytes }) => ({ name, size: bytes.length })));
  if (problem) {
    const [key, ...args] = problem;
    throw new Error(`the files cannot be attached (${key.replace('panel_attach_', '').replaceAll('_', ' ')}: ${args.join(', ')})`);
  }
  return files.map(({ name, mime, bytes }) => ({ name, mime, data: bytes.toString('base64') }));
}

/**
 * A copy of the extension whose optional permissions in `grant` are granted at install, as if
 * the user had accepted them (a permission prompt cannot be answered in headless Chromium).
 */
async function extensionWithGranted(grant) {
  const dir = await mkdtemp(join(tmpdir(), 'agent-extension-'));
  for (const part of ['extension', '_locales']) await cp(join(EXTENSION_DIR, part), join(dir, part), { recursive: true });
  const manifest = JSON.parse(await readFile(join(EXTENSION_DIR, 'manifest.json'), 'utf8'));
  manifest.permissions = [...manifest.permissions, ...grant];
  manifest.optional_permissions = (manifest.optional_permissions ?? []).filter((p) => !grant.includes(p));
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return dir;
}

/**
 * Registers the MCP host binary at `binary` with the browser of `profile`: Chromium on Linux reads
 * native messaging host manifests from `<user-data-dir>/NativeMessagingHosts`.
 */
async function registerNativeHost(profile, binary) {
  const manifest = execFileSync(binary, ['--manifest', binary], { encoding: 'utf8' });
  const dir = join(profile, 'NativeMessagingHosts');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${JSON.parse(manifest).name}.json`), manifest);
}

/**
 * Starts Chromium with the extension loaded; returns handles and a `close()`. With
 * `handleSIGINT: false` Ctrl-C is left to the caller (Playwright would close it and exit).
 * `locale` is the browser's language (the extension's too), English unless asked otherwise so
 * that the machine's own language changes nothing. `nativeHost` registers the MCP host binary at
 * that path; `env` adds to the browser's environment (which the native hosts it starts inherit).
 */
export async function launchAgentBrowser({ headless = true, grant = [], handleSIGINT = true, locale = 'en-US', nativeHost = null, env = {} } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'agent-profile-'));
  const extensionDir = grant.length ? await extensionWithGranted(grant) : EXTENSION_DIR;
  if (nativeHost) await registerNativeHost(profile, nativeHost);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless,
    handleSIGINT,
    locale,
    // Chromium on Linux takes its language from the environment, not from --lang.
    env: { ...process.env, LANGUAGE: locale.replace('-', '_'), LC_ALL: '', LANG: `${locale.replace('-', '_')}.UTF-8`, ...env },
    args: [
      `--lang=${locale}`,
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  const extensionId = new URL(worker.url()).host;
  return {
    context,
    /** The extension's service worker: the live one, as the browser may stop and restart it. */
    get worker() {
      return context.serviceWorkers().at(-1) ?? worker;
    },
    extensionId,
    extensionUrl: (path) => `chrome-extension://${extensionId}/${path}`,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
      if (extensionDir !== EXTENSION_DIR) await rm(extensionDir, { recursive: true, force: true });
    },
  };
}

/** Stores settings as they are, unchecked (a test may want settings the settings page refuses),
 * through the worker, which writes them and does what follows (the MCP host connected or not). */
export async function applySettings(agent, settings) {
  await agent.worker.evaluate((s) => globalThis.agentStorage.write('settings', s), settings);
}

/** The stored settings, their API key and secrets with them, as the worker reads them. */
export function storedSettings(agent) {
  return agent.worker.evaluate(() => globalThis.agentStorage.read('settings'));
}

/** The worker's answer to `request`, as a page asking over the port gets it (docs/protocol.md). */
export function askWorker(agent, request) {
  return agent.worker.evaluate((r) => globalThis.askAgent(r), request);
}

/** The workflow the core proposes from a successful run's record; throws why it cannot be one. */
export async function proposeWorkflow(agent, record) {
  const { workflow, problem } = await askWorker(agent, { type: 'propose_workflow', record });
  if (problem) throw new Error(problem.message);
  return workflow;
}

/** What the extension would refuse in `settings`, as `{ field, message }`, or null when it would
 * take them: the core's own check, as the settings page's Save runs it (without saving). */
export async function settingsProblem(agent, settings) {
  const { problem } = await askWorker(agent, { type: 'validate_settings', settings, tokenBudget: true });
  return problem;
}

/** Opens `url` in a new tab and returns its Playwright page and its tab id. */
export async function openTarget(agent, url) {
  // Created by the extension, so the tab id is known for certain (several tabs may share a URL).
  const [page, tabId] = await Promise.all([
    agent.context.waitForEvent('page'),
    agent.worker.evaluate(async (href) => (await chrome.tabs.create({ url: href, active: true })).id, url),
  ]);
  await page.waitForLoadState('load');
  return { page, tabId };
}

/** Opens the side panel page as a tab, bound to the target tab. */
export async function openPanel(agent, tabId) {
  const panel = await agent.context.newPage();
  await panel.goto(agent.extensionUrl(`${PANEL_PATH}?tab=${tabId}`));
  return panel;
}

const FINAL_EVENTS = new Set(['result', 'error', 'stopped']);

/**
 * Runs a task through the port protocol from the panel page, calling `onEvent` for each event,
 * `onApproval` for each approval request (its truthy answer allows the action) and `onHandOver`
 * for each hand-over (its answer `{decision: 'continue' | 'stop' | 'unanswered', note?}`; by
 * default no one is there); resolves with the final event (result, error or stopped). `request`
 * starts something other than a new task (a workflow: `{ type: 'run_workflow', workflow, values }`).
 */
export async function runTask(panel, {
  task, request = { type: 'start_task', task }, tabId, onEvent = () => {}, onApproval = () => false,
  onHandOver = () => ({ decision: 'unanswered' }),
}) {
  let finish;
  const finished = new Promise((resolve) => { finish = resolve; });
  const bridge = `__agentEvent${Math.random().toString(36).slice(2)}`;
  await panel.exposeFunction(bridge, async (event) => {
    onEvent(event);
    if (FINAL_EVENTS.has(event.type)) finish(event);
    // The answer to an approval request or a hand-over goes back over the same port.
    if (event.type === 'hand_over_needed') return onHandOver(event);
    return event.type === 'approval_needed' ? Boolean(await onApproval(event)) : undefined;
  });
  await panel.evaluate(({ bridge, request, tabId }) => {
    // The task's own chat: its events are told from other tasks' by it.
    const chat = `${Date.now().toString(16)}-${Math.random().toString(16).slice(2, 10).padEnd(8, '0')}`;
    let over = false;
    let resumes = 0;
    const connect = (restarted) => {
      const port = chrome.runtime.connect({ name: 'agent-panel' });
      const handle = async (event) => {
        // Only a request the worker could not read has no chat.
        if (event.chat !== chat && !(event.chat === undefined && event.type === 'error')) return;
        if (event.type === 'task_resumed') resumes += 1;
        if (['result', 'error', 'stopped'].includes(event.type)) {
          over = true;
          port.disconnect(); // This task is over.
        }
        const answer = await window[bridge](event);
        if (event.type === 'approval_needed') port.postMessage({ v: 1, type: 'approve', id: event.id, approved: answer, chat });
        if (event.type === 'hand_over_needed') {
          port.postMessage({ v: 1, type: 'hand_over', id: event.id, decision: answer.decision, note: answer.note ?? '', chat });
        }
        // No one reviews steps here: they run.
        if (event.type === 'review_needed') port.postMessage({ v: 1, type: 'review', id: event.id, decision: 'run', chat });
      };
      port.onMessage.addListener((event) => {
        if (event.type !== 'hello') return handle(event);
        if (!restarted) return undefined;
        // The worker was restarted by the browser: it resumed the task (what happened since is
        // new here), or the task is lost.
        const task = event.tasks.find((t) => t.chat === chat);
        if (task) {
          // Its events from the latest resumption on, unless that is still to come.
          const resumed = task.events.filter((e) => e.type === 'task_resumed').length;
          if (resumed <= resumes) return undefined;
          return task.events.slice(task.events.findLastIndex((e) => e.type === 'task_resumed')).forEach(handle);
        }
        return handle({ v: 1, type: 'error', chat, steps: 0, message: 'The task was interrupted when the browser restarted the extension\'s background worker.' });
      });
      port.onDisconnect.addListener(() => {
        if (!over) setTimeout(() => connect(true), 100);
      });
      return port;
    };
    connect(false).postMessage({ v: 1, ...request, tabId, chatId: chat });
  }, { bridge, request, tabId });
  return finished;
}

/** Writes run `record`'s film (the film setting was on) of chat `chat` to `file` as a GIF;
 * resolves with its size in bytes, or null when the run has no film. */
export async function saveFilm(agent, chat, record, file) {
  if (!record?.film || !chat) return null;
  const gif = await agent.worker.evaluate(({ c, f }) => globalThis.agentFilm(c, f), { c: chat, f: record.film });
  if (!gif) return null;
  const bytes = Buffer.from(gif, 'base64');
  writeFileSync(file, bytes);
  return bytes.length;
}

/** Writes run `record`'s screenshots (the film setting was on: each step's screenshot as the model
 * saw it, secrets blacked out) into folder `dir` as step-N.jpg; resolves with
 * `[{ step, caption, file }]` (file names in `dir`), empty when the run has none. */
export async function saveScreenshots(agent, chat, record, dir) {
  if (!record?.film || !chat) return [];
  const frames = await agent.worker.evaluate(({ c, f }) => globalThis.agentFilmScreenshots(c, f), { c: chat, f: record.film });
  if (!frames.length) return [];
  await mkdir(dir, { recursive: true });
  return Promise.all(frames.map(async ({ step, caption, jpeg }) => {
    const file = `step-${String(step).padStart(2, '0')}.jpg`;
    await writeFile(join(dir, file), Buffer.from(jpeg, 'base64'));
    return { step, caption, file };
  }));
}

