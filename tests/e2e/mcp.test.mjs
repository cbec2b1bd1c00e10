// AI apps through MCP: the official MCP client starts the host (crate/native-host) over stdio; the
// extension in headless Chromium, once the setting is on, starts the host's other half through
// native messaging; the two meet on a per-user socket (here in a test runtime folder). An app is
// asked about in the side panel on its first connection, and sees only the tabs the user shared.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { launchAgentBrowser, applySettings, askWorker, openTarget, openPanel, EXTENSION_DIR } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';
import { SHOP_TASK, shopScript } from '../support/fixtures.mjs';

const HOST = join(EXTENSION_DIR, 'target/debug/rust-browser-agent-mcp');
const TIMEOUT = 60_000;
let runtimeDir;
let configDir;
let socket;
let agent;
let site;
let llm;

before(async () => {
  await access(HOST).catch(() => {
    throw new Error(`${HOST} is missing: run ./build.sh test or cargo build -p agent-native-host, which build it`);
  });
  // Short, so that the socket's path fits a Unix socket address.
  runtimeDir = await mkdtemp(join(tmpdir(), 'mcp-'));
  socket = join(runtimeDir, 'rust-browser-agent', 'mcp.sock');
  // Where the apps' servers keep the tokens of "Always".
  configDir = join(runtimeDir, 'config');
  site = await startSiteServer();
  llm = await startLlmServer(shopScript(site.origin));
  // nativeMessaging is optional: granted here as the user grants it when turning MCP on.
  agent = await launchAgentBrowser({ nativeHost: HOST, env: { XDG_RUNTIME_DIR: runtimeDir }, grant: ['nativeMessaging'] });
});

after(async () => {
  await agent?.close();
  await llm?.close();
  await site?.close();
  if (runtimeDir) await rm(runtimeDir, { recursive: true, force: true });
});

function settings(mcp) {
  return { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: 'sk-test-key', maxSteps: 10, mcp };
}

/** An MCP client, as an AI app would run it: it starts the host itself, over stdio. */
async function connectApp(name = 'Test App') {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: HOST, args: [], env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir, XDG_CONFIG_HOME: configDir }, stderr: 'pipe',
  }));
  return client;
}

/** The tokens the apps' servers keep, by app. */
async function tokens() {
  return JSON.parse(await readFile(join(configDir, 'rust-browser-agent', 'apps.json'), 'utf8').catch(() => '{}'));
}

/** Opens a side panel (a tab of its own, bound to `tabId`, or to a blank tab). */
async function sidePanel(tabId) {
  const bound = tabId ?? (await openTarget(agent, 'about:blank')).tabId;
  return openPanel(agent, bound);
}

/** `call` (a tool call under way) waits for the panel's question about `name`, answered with the
 * button `answer` (Allow once, Always, Deny); resolves to the call's result. */
async function answerPairing(panel, name, answer, call) {
  const question = panel.locator('#app-pairing');
  await question.waitFor({ state: 'visible', timeout: TIMEOUT });
  assert.match(await question.textContent(), new RegExp(`${name} wants to use the agent in this browser \\(MCP\\)`));
  await question.getByRole('button', { name: answer, exact: true }).click();
  const result = await call;
  assert.equal(await question.isHidden(), true, 'the question is gone once answered');
  return result;
}

/** An app named `name` connected and its list_tabs call under way, once the panel asks about it
 * (an app that connects just after another closed is served, not refused as busy). */
async function askingApp(panel, name) {
  const app = await connectApp(name);
  const call = app.callTool({ name: 'list_tabs', arguments: {} }, undefined, { timeout: TIMEOUT });
  const asked = panel.locator('#app-pairing').waitFor({ state: 'visible', timeout: TIMEOUT }).then(() => null);
  const answered = await Promise.race([asked, call]);
  assert.equal(answered, null, `the call was answered before the panel asked: ${answered && text(answered)}`);
  return { app, call };
}

/** The test app, allowed "Always" (the panel asked once, in the first test that needs it). */
async function pairedApp() {
  const app = await connectApp();
  if (!(await tokens())['Test App']) {
    const panel = await sidePanel();
    await answerPairing(panel, 'Test App', 'Always', app.callTool({ name: 'list_tabs', arguments: {} }, undefined, { timeout: TIMEOUT }));
    await panel.close();
  }
  return app;
}

/** Shares the tab with AI apps as the user does: the side panel's button. */
async function shareTab(tabId, button = 'Share this tab with AI apps') {
  const panel = await openPanel(agent, tabId);
  const bar = panel.locator('#app-share');
  await bar.getByRole('button', { name: button, exact: true }).click();
  const shared = button.startsWith('Share');
  await bar.getByText(shared ? 'AI apps can see and use this tab' : 'AI apps cannot see this tab', { exact: false }).waitFor({ timeout: TIMEOUT });
  await panel.close();
  await agent.worker.evaluate((id) => chrome.tabs.update(id, { active: true }), tabId);
}

/** Opens a page in a tab shared with AI apps. */
async function sharedPage(url) {
  const opened = await openTarget(agent, url);
  await shareTab(opened.tabId);
  return opened;
}

async function waitFor(check, what, ms = 10_000) {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => { setTimeout(resolve, 100); });
  }
}

const socketExists = () => stat(socket).then(() => true, () => false);

function text(result) {
  return result.content.filter((part) => part.type === 'text').map((part) => part.text).join('\n');
}

/** The number the page map gives the element on the line matching `pattern`. */
function indexOf(state, pattern) {
  const line = state.split('\n').find((l) => pattern.test(l));
  assert.ok(line, `no element matches ${pattern} in:\n${state}`);
  return Number(line.match(/\[(\d+)\]/)[1]);
}

test('with the setting off, an app sees the tools but every call is refused with what to do', async () => {
  await applySettings(agent, settings(false));
  const app = await connectApp();
  try {
    const { tools } = await app.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      'click', 'extract', 'get_state', 'go_back', 'list_tabs', 'navigate', 'run_task', 'screenshot', 'scroll', 'select', 'switch_tab', 'type',
    ]);
    const runTask = tools.find((tool) => tool.name === 'run_task');
    assert.deepEqual(runTask.inputSchema.required, ['task']);
    assert.match(runTask.description, /user's own Chrome/);

    const refused = await app.callTool({ name: 'get_state', arguments: {} });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /not reachable .*turn on "Let AI apps use the agent \(MCP\)"/s);
    assert.equal(await socketExists(), false, 'no host listens while the setting is off');
  } finally {
    await app.close();
  }
});

test('the server names itself, says how to use it, and what each tool does to the browser', async () => {
  const app = await connectApp();
  try {
    const server = app.getServerVersion();
    assert.equal(server.name, 'rust-browser-agent');
    assert.equal(server.title, 'Rust Browser Agent');
    const cargo = await readFile(join(EXTENSION_DIR, 'Cargo.toml'), 'utf8');
    assert.equal(server.version, cargo.match(/^version = "([^"]+)"/m)[1]);
    assert.match(app.getInstructions(), /^Acts in the user's own Chrome .*Use run_task for whole tasks/);
    const { tools } = await app.listTools();
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    for (const name of ['get_state', 'list_tabs', 'screenshot']) {
      assert.deepEqual(
        [hints[name].readOnlyHint, hints[name].destructiveHint, hints[name].openWorldHint], [true, false, false], name,
      );
    }
    for (const name of ['click', 'type']) {
      assert.deepEqual([hints[name].readOnlyHint, hints[name].destructiveHint], [false, true], name);
    }
    assert.equal(hints.navigate.readOnlyHint, false);
    assert.deepEqual(hints.run_task, {
      title: 'Run a browser task', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true,
    });
    assert.ok(tools.every((tool) => tool.annotations?.title && tool.title === tool.annotations.title), 'every tool has a title');
  } finally {
    await app.close();
  }
});

test('an app runs the shop task with run_task: progress per step, the answer, the cart really changed', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host Chrome starts to listen');
  const mode = (await stat(socket)).mode & 0o777;
  assert.equal(mode, 0o600, 'only this user may reach the socket');
  const app = await pairedApp();
  try {
    const progress = [];
    const result = await app.callTool(
      { name: 'run_task', arguments: { task: SHOP_TASK, url: `${site.origin}/shop/` } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: TIMEOUT },
    );
    assert.ok(!result.isError, text(result));
    assert.match(text(result), /^The cart total is \$14\.50\n\n\(The task succeeded in 4 steps\.\)\n1\. Open the mugs page \(go_to_url ok\)/);
    assert.equal(result.structuredContent.success, true);
    assert.equal(result.structuredContent.answer, 'The cart total is $14.50');
    assert.equal(result.structuredContent.steps.length, 4);
    assert.deepEqual(progress.map((p) => p.progress), [1, 2, 3, 4]);
    assert.match(progress[1].message, /^Step 2: Filter for the blue mug \(input_text ok\)$/);

    const shop = agent.context.pages().find((page) => page.url().endsWith('/shop/mugs.html'));
    assert.ok(shop, 'the task ran in a tab of the browser');
    assert.equal(await shop.locator('#cart-count').textContent(), 'Cart: 1 item');

    // The user goes on in another tab; the app's next calls act where its task ended, not there.
    const other = await openTarget(agent, `${site.origin}/mcp/contact.html`);
    const state = text(await app.callTool({ name: 'get_state', arguments: {} }, undefined, { timeout: TIMEOUT }));
    assert.match(state, /(^|\n)Current URL: http:\/\/127\.0\.0\.1:\d+\/shop\/mugs\.html\n/);
    const typed = await app.callTool({ name: 'type', arguments: { index: indexOf(state, /Filter mugs/), text: 'red' } });
    assert.ok(!typed.isError, text(typed));
    assert.equal(await shop.locator('#filter').inputValue(), 'red');
    assert.equal(await other.page.locator('#name').inputValue(), '', 'nothing was typed in the other tab');
  } finally {
    await app.close();
  }
});

test('while one app uses the agent, a second app\'s first call is refused with that reason, every time', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  await sharedPage(`${site.origin}/mcp/contact.html`);
  const first = await pairedApp();
  try {
    assert.match(text(await first.callTool({ name: 'list_tabs', arguments: {} })), /- t1/);
    // It lost to a broken pipe in about one try of four: twenty tries would all pass by chance once in 500 runs.
    for (let attempt = 1; attempt <= 20; attempt += 1) {
      const second = await connectApp();
      try {
        const refused = await second.callTool({ name: 'list_tabs', arguments: {} });
        assert.equal(refused.isError, true);
        assert.match(text(refused), /^Another AI app is already using the browser agent\. Close it \(or its MCP server\) and try again\.$/, `attempt ${attempt}`);
      } finally {
        await second.close();
      }
    }
    assert.match(text(await first.callTool({ name: 'list_tabs', arguments: {} })), /- t1/, 'the first app is still served');
  } finally {
    await first.close();
  }
});

test('a request too large is answered with its size and the limit, and the next one is served', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  await sharedPage(`${site.origin}/mcp/contact.html`);
  const app = await pairedApp();
  try {
    // Over the 16 MiB the server reads in one message: a JSON-RPC error, not silence.
    await assert.rejects(
      app.callTool({ name: 'run_task', arguments: { task: 'x'.repeat(17 * 1024 * 1024) } }, undefined, { timeout: TIMEOUT }),
      (err) => {
        assert.equal(err.code, -32600);
        assert.match(err.message, /The tool call is 17,\d{3},\d{3} bytes long, more than the 16,777,216 bytes \(16 MiB\) the browser agent's MCP server reads in one message, so it was not read\. Send less/);
        assert.equal(err.data.limit, 16_777_216);
        assert.ok(err.data.bytes > 17 * 1024 * 1024, `${err.data.bytes} bytes`);
        return true;
      },
    );
    // Over the 1 MiB Chrome takes from the host: the call fails, saying so.
    const refused = await app.callTool({ name: 'run_task', arguments: { task: 'y'.repeat(2 * 1024 * 1024) } }, undefined, { timeout: TIMEOUT });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /^The call was not sent to the browser: it is 2,097,\d{3} bytes long, and Chrome takes at most 1,048,576 bytes \(1 MiB\) in one message from the agent's host\. Send less/);
    assert.match(text(await app.callTool({ name: 'list_tabs', arguments: {} })), /- t1/, 'the server still serves');
  } finally {
    await app.close();
  }
});

test('an app drives a form with the primitives; sending waits for the panel, which allows it', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  const { page, tabId } = await sharedPage(`${site.origin}/shop/`);
  const panel = await openPanel(agent, tabId);
  // The panel here is a tab of its own: the user's page is the active tab, as with a side panel.
  await agent.worker.evaluate((id) => chrome.tabs.update(id, { active: true }), tabId);
  const app = await pairedApp();
  try {
    const navigated = await app.callTool({ name: 'navigate', arguments: { url: `${site.origin}/mcp/contact.html` } });
    assert.match(text(navigated), /^go_to_url: Opened http:\/\/127\.0\.0\.1:\d+\/mcp\/contact\.html/);
    // The panel shows who drives, with its Stop button.
    await panel.getByText('Test App is using the agent in this browser (MCP).', { exact: false }).waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('#stop').isVisible(), true);

    const state = text(await app.callTool({ name: 'get_state', arguments: {} }));
    assert.match(state, /(^|\n)Current URL: http:\/\/127\.0\.0\.1:\d+\/mcp\/contact\.html\nPage title: Contact support/);
    const typed = await app.callTool({ name: 'type', arguments: { index: indexOf(state, /\]input\b/), text: 'Ada' } });
    assert.ok(!typed.isError, text(typed));
    const chosen = await app.callTool({ name: 'select', arguments: { index: indexOf(state, /\]select\b/), option: 'Delivery' } });
    assert.ok(!chosen.isError, text(chosen));
    await app.callTool({ name: 'type', arguments: { index: indexOf(state, /\]textarea\b/), text: 'Where is my mug?' } });
    assert.equal(await page.locator('#name').inputValue(), 'Ada');
    assert.equal(await page.locator('#topic').inputValue(), 'Delivery');

    // Sending a message is consequential: the app is told it waits, the user answers in the panel.
    const progress = [];
    const sending = app.callTool(
      { name: 'click', arguments: { index: indexOf(state, /Send message/) } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: TIMEOUT },
    );
    const approval = panel.locator('.message.approval');
    await approval.waitFor({ timeout: TIMEOUT });
    await waitFor(() => progress.length > 0, 'the app to hear that the click waits');
    assert.match(progress[0].message, /^Waiting for the user's answer in the browser's side panel \(refused after 120 s without one\): /);
    assert.equal(await page.locator('#sent').textContent(), 'Nothing sent yet.', 'nothing is sent before the answer');
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    const sent = await sending;
    assert.ok(!sent.isError, text(sent));
    assert.equal(await page.locator('#sent').textContent(), 'Sent to support: Ada about Delivery: Where is my mug?');

    const tabs = text(await app.callTool({ name: 'list_tabs', arguments: {} }));
    assert.match(tabs, /- t\d+ \(current\): Contact support \(http:\/\/127\.0\.0\.1:\d+\/mcp\/contact\.html\)/);
    const shot = await app.callTool({ name: 'screenshot', arguments: {} });
    assert.equal(shot.content.find((part) => part.type === 'image')?.mimeType, 'image/jpeg');
    const missing = await app.callTool({ name: 'click', arguments: { index: 999 } });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /\[999\]/);
  } finally {
    await app.close();
  }
  // The app went away: its session ends, and the panel says so.
  await panel.getByText('Test App stopped driving the browser.').waitFor({ timeout: TIMEOUT });
  assert.equal(await panel.locator('#stop').isVisible(), false);
  await panel.close();
});

test('a site denied in the settings while an app is connected is refused at its next call, by the core and the browser', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  const { page, tabId } = await sharedPage(`${site.origin}/mcp/contact.html`);
  const denied = await startSiteServer();
  // Another host name than the shared page's, on the same loopback.
  const deniedPage = `${denied.origin.replace('127.0.0.1', 'localhost')}/mcp/contact.html`;
  const app = await pairedApp();
  try {
    assert.match(text(await app.callTool({ name: 'get_state', arguments: {} }, undefined, { timeout: TIMEOUT })), /Contact support/);
    // The user saves a deny list on the settings page while the app is connected.
    const saved = await askWorker(agent, { type: 'save_settings', settings: { ...settings(true), denyList: ['localhost'] } });
    assert.equal(saved.problem, null, JSON.stringify(saved.problem));

    const refused = await app.callTool({ name: 'navigate', arguments: { url: deniedPage } }, undefined, { timeout: TIMEOUT });
    assert.equal(refused.isError, true, text(refused));
    assert.match(text(refused), /^go_to_url: Did not open http:\/\/localhost:\d+\/mcp\/contact\.html: http:\/\/localhost:\d+\/mcp\/contact\.html is on the list of sites the user does not allow \("localhost"\)\.$/);
    // The browser blocks it in the app's tab too, whoever asks for it.
    const rules = await agent.worker.evaluate(() => chrome.declarativeNetRequest.getSessionRules());
    assert.ok(rules.some((rule) => rule.condition.requestDomains?.includes('localhost') && rule.condition.tabIds?.includes(tabId)), JSON.stringify(rules));
    const opened = await page.goto(deniedPage).then(() => 'opened', (err) => err.message);
    assert.match(opened, /ERR_BLOCKED_BY_CLIENT/);
    assert.deepEqual(denied.requests, [], 'the denied site heard nothing');
  } finally {
    await app.close();
    await denied.close();
  }
});

test('an app gone while its call waits for the user lets the next app in at once, and its question is withdrawn', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  const { page, tabId } = await sharedPage(`${site.origin}/mcp/contact.html`);
  const panel = await openPanel(agent, tabId);
  await agent.worker.evaluate((id) => chrome.tabs.update(id, { active: true }), tabId);
  const gone = await pairedApp();
  const state = text(await gone.callTool({ name: 'get_state', arguments: {} }, undefined, { timeout: TIMEOUT }));
  const sending = gone.callTool({ name: 'click', arguments: { index: indexOf(state, /Send message/) } }, undefined, { timeout: TIMEOUT });
  sending.catch(() => {});
  const approval = panel.locator('.message.approval');
  await approval.waitFor({ timeout: TIMEOUT });

  // The app quits (its MCP client closes the server's stdio); the next app calls at once.
  const closed = Date.now();
  const closing = gone.close();
  const next = await connectApp();
  try {
    const served = await next.callTool({ name: 'list_tabs', arguments: {} }, undefined, { timeout: TIMEOUT });
    const took = Date.now() - closed;
    assert.ok(!served.isError, text(served));
    assert.match(text(served), /Contact support/);
    // Not after a wait for the gone app's call (5 s before).
    assert.ok(took < 2000, `the next app was answered ${took} ms after the first went away`);
    await closing;
    await approval.getByText('No longer asked', { exact: false }).waitFor({ timeout: TIMEOUT });
    assert.equal(await approval.locator('button:enabled').count(), 0, 'the question cannot be answered any more');
    assert.equal(await page.locator('#sent').textContent(), 'Nothing sent yet.', 'the action waiting was not done');
  } finally {
    await next.close();
  }
  await panel.close();
});

test('type with an empty text empties the field, whatever it holds', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  const contact = await sharedPage(`${site.origin}/mcp/contact.html`);
  const app = await pairedApp();
  try {
    const form = text(await app.callTool({ name: 'get_state', arguments: {} }, undefined, { timeout: TIMEOUT }));
    for (const [pattern, field] of [[/\]input\b/, '#name'], [/\]textarea\b/, '#message']]) {
      const index = indexOf(form, pattern);
      await app.callTool({ name: 'type', arguments: { index, text: 'Ada' } });
      assert.equal(await contact.page.locator(field).inputValue(), 'Ada');
      const emptied = await app.callTool({ name: 'type', arguments: { index, text: '' } });
      assert.ok(!emptied.isError, text(emptied));
      assert.equal(await contact.page.locator(field).inputValue(), '', `${field} is empty`);
    }
    // An e-mail field (no caret to read) and an editable area, as the page filled them.
    const controls = await sharedPage(`${site.origin}/map/controls.html`);
    await agent.worker.evaluate((id) => chrome.tabs.update(id, { active: true }), controls.tabId);
    const listed = text(await app.callTool({ name: 'list_tabs', arguments: {} }));
    const alias = listed.split('\n').find((line) => /controls\.html/.test(line)).match(/- (t\d+)/)[1];
    const account = text(await app.callTool({ name: 'get_state', arguments: { tab: alias } }));
    for (const [pattern, read] of [[/type=email/, () => controls.page.locator('#email').inputValue()], [/Notes/, () => controls.page.locator('[contenteditable]').textContent()]]) {
      const emptied = await app.callTool({ name: 'type', arguments: { index: indexOf(account, pattern), text: '' } });
      assert.ok(!emptied.isError, text(emptied));
      assert.equal(await read(), '', `${pattern} is empty`);
    }
  } finally {
    await app.close();
  }
});

test('turning the setting off closes the host: a connected app is refused from then on', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  await sharedPage(`${site.origin}/mcp/contact.html`);
  const app = await pairedApp();
  try {
    assert.match(text(await app.callTool({ name: 'list_tabs', arguments: {} })), /- t1/);
    await applySettings(agent, settings(false));
    await waitFor(async () => !(await socketExists()), 'the host to end');
    const refused = await app.callTool({ name: 'list_tabs', arguments: {} });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /not reachable .*turn on "Let AI apps use the agent \(MCP\)"/s);
  } finally {
    await app.close();
  }
});

test('a type over the limit is refused at once; a long type the app cancels stops part way, and its next call is served', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  // Each edit costs this page 100 ms: the typing takes a while, long enough to be cancelled in.
  const { page, tabId } = await sharedPage(`${site.origin}/actions/long.html?slow=100`);
  await agent.worker.evaluate((id) => chrome.tabs.update(id, { active: true }), tabId);
  const app = await pairedApp();
  try {
    const state = text(await app.callTool({ name: 'get_state', arguments: {} }));
    const index = indexOf(state, /\]textarea\b/);
    const tooLong = await app.callTool({ name: 'type', arguments: { index, text: 'x'.repeat(1_000_000) } });
    assert.equal(tooLong.isError, true);
    assert.match(text(tooLong), /^The browser agent refused the request: bad arguments: type\.text is 1,000,000 characters long; one type takes at most 100,000: type the text in parts .*"clear": false/);
    assert.equal(await page.locator('#story').inputValue(), '', 'nothing was typed');

    // The longest text allowed, cancelled by the app once it has begun.
    const cancel = new AbortController();
    const typing = app.callTool({ name: 'type', arguments: { index, text: 'y'.repeat(100_000) } }, undefined, { signal: cancel.signal, timeout: TIMEOUT });
    await page.waitForFunction(() => document.getElementById('story').value.length > 0, null, { timeout: TIMEOUT });
    cancel.abort();
    await assert.rejects(typing);
    // The next call is served in the tab (a session of its own), not refused as busy with another task.
    const next = await app.callTool({ name: 'get_state', arguments: {} }, undefined, { timeout: TIMEOUT });
    assert.ok(!next.isError, text(next));
    assert.match(text(next), /Page title: Long text/);
    const typed = (await page.locator('#story').inputValue()).length;
    assert.ok(typed > 0 && typed < 100_000, `the typing stopped part way (${typed} of 100000 characters)`);
  } finally {
    await app.close();
  }
});

test('an app the user denies is refused, saying what to do, for the whole connection; the next one is asked again', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  await sharedPage(`${site.origin}/mcp/contact.html`);
  const panel = await sidePanel();
  const app = await connectApp('Denied App');
  try {
    const refused = await answerPairing(panel, 'Denied App', 'Deny', app.callTool({ name: 'list_tabs', arguments: {} }, undefined, { timeout: TIMEOUT }));
    assert.equal(refused.isError, true);
    assert.match(text(refused), /^The user did not allow Denied App to use the browser agent \(they chose Deny in the browser's side panel\), so nothing was done\. .*restart your connection .*choose Allow once or Always/);
    // Not asked again on this connection: refused at once.
    const again = await app.callTool({ name: 'get_state', arguments: {} }, undefined, { timeout: TIMEOUT });
    assert.equal(again.isError, true);
    assert.match(text(again), /^The user did not allow Denied App/);
    assert.equal(await panel.locator('#app-pairing').isHidden(), true);
  } finally {
    await app.close();
  }
  assert.equal((await tokens())['Denied App'], undefined, 'no token for a denied app');
  const { app: next, call } = await askingApp(panel, 'Denied App');
  try {
    const allowed = await answerPairing(panel, 'Denied App', 'Allow once', call);
    assert.ok(!allowed.isError, text(allowed));
  } finally {
    await next.close();
  }
  await panel.close();
});

test('an app allowed once is served for that connection only, and asked again on the next', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  await sharedPage(`${site.origin}/mcp/contact.html`);
  const panel = await sidePanel();
  const app = await connectApp('Once App');
  try {
    const progress = [];
    const call = app.callTool({ name: 'list_tabs', arguments: {} }, undefined, { onprogress: (p) => progress.push(p), timeout: TIMEOUT });
    await panel.locator('#app-pairing').waitFor({ state: 'visible', timeout: TIMEOUT });
    await waitFor(() => progress.length > 0, 'the app to hear that it waits for the user');
    assert.match(progress[0].message, /^Waiting for the user to allow Once App in the browser's side panel \(Allow once, Always or Deny; refused after 120 s without an answer\)/);
    const served = await answerPairing(panel, 'Once App', 'Allow once', call);
    assert.ok(!served.isError, text(served));
    assert.match(text(served), /Contact support/);
    const again = await app.callTool({ name: 'list_tabs', arguments: {} }, undefined, { timeout: TIMEOUT });
    assert.ok(!again.isError, text(again));
  } finally {
    await app.close();
  }
  assert.equal((await tokens())['Once App'], undefined, 'nothing is remembered of Allow once');
  const { app: next, call } = await askingApp(panel, 'Once App');
  try {
    const refused = await answerPairing(panel, 'Once App', 'Deny', call);
    assert.equal(refused.isError, true);
  } finally {
    await next.close();
  }
  await panel.close();
});

test('an app allowed always is not asked again, until the user revokes it in the settings', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  await sharedPage(`${site.origin}/mcp/contact.html`);
  const panel = await sidePanel();
  const app = await connectApp('Always App');
  try {
    const served = await answerPairing(panel, 'Always App', 'Always', app.callTool({ name: 'list_tabs', arguments: {} }, undefined, { timeout: TIMEOUT }));
    assert.ok(!served.isError, text(served));
  } finally {
    await app.close();
  }
  assert.match((await tokens())['Always App'] ?? '', /^[0-9a-f]{64}$/, 'the app\'s server keeps its token');
  const stored = await agent.worker.evaluate(async () => (await chrome.storage.local.get('mcpApps')).mcpApps);
  const entry = stored.find((known) => known.name === 'Always App');
  assert.ok(entry && !JSON.stringify(stored).includes((await tokens())['Always App']), 'the extension keeps a hash, not the token');

  // The next connection is served without a question.
  const later = await connectApp('Always App');
  try {
    const served = await later.callTool({ name: 'list_tabs', arguments: {} }, undefined, { timeout: TIMEOUT });
    assert.ok(!served.isError, text(served));
    assert.equal(await panel.locator('#app-pairing').isHidden(), true, 'the panel did not ask');
  } finally {
    await later.close();
  }

  // Revoked in the settings: asked again.
  const options = await agent.context.newPage();
  await options.goto(agent.extensionUrl('extension/options/options.html'));
  const item = options.locator('#mcp-apps-list li', { hasText: 'Always App' });
  await item.getByRole('button', { name: 'Revoke: Always App' }).click();
  await options.locator('#mcp-apps-status').getByText('Always App is no longer allowed').waitFor({ timeout: TIMEOUT });
  assert.equal(await item.count(), 0);
  await options.close();
  const { app: revoked, call } = await askingApp(panel, 'Always App');
  try {
    const refused = await answerPairing(panel, 'Always App', 'Deny', call);
    assert.equal(refused.isError, true);
  } finally {
    await revoked.close();
  }
  await panel.close();
});

test('an app sees and acts only in the tabs shared with it; sharing a tab makes it visible, unsharing hides it again', async () => {
  await applySettings(agent, settings(true));
  await waitFor(socketExists, 'the host listens');
  const shop = await sharedPage(`${site.origin}/shop/`);
  // The user's other tab, active and not shared.
  const privateTab = await openTarget(agent, `${site.origin}/mcp/contact.html?private=1`);
  const app = await pairedApp();
  try {
    const tabs = text(await app.callTool({ name: 'list_tabs', arguments: {} }, undefined, { timeout: TIMEOUT }));
    assert.doesNotMatch(tabs, /private=1/, 'the unshared tab is not listed');
    assert.match(tabs, /\/shop\//);
    // Defaulting to the active tab, unshared: the app acts in a shared one instead, never there.
    const state = text(await app.callTool({ name: 'get_state', arguments: {} }, undefined, { timeout: TIMEOUT }));
    assert.doesNotMatch(state, /private=1/);
    const typed = await app.callTool({ name: 'type', arguments: { index: 999, text: 'Ada' } });
    assert.equal(typed.isError, true);
    assert.equal(await privateTab.page.locator('#name').inputValue(), '', 'nothing was typed in the unshared tab');
    // A tab it names that is not shared: refused, saying how to share one.
    const named = await app.callTool({ name: 'switch_tab', arguments: { tab: 't99' } });
    assert.equal(named.isError, true);
    assert.match(text(named), /The app sees only the tabs shared with AI apps\. Ask the user to open the tab, then click "Share this tab with AI apps" in the browser agent's side panel/);

    // The user shares it: now the app sees it, and acts there.
    await shareTab(privateTab.tabId);
    const listed = text(await app.callTool({ name: 'list_tabs', arguments: {} }));
    const line = listed.split('\n').find((l) => /private=1/.test(l));
    assert.ok(line, `the shared tab is listed:\n${listed}`);
    const alias = line.match(/- (t\d+)/)[1];
    const switched = await app.callTool({ name: 'get_state', arguments: { tab: alias } });
    assert.ok(!switched.isError, text(switched));
    const form = text(switched);
    assert.match(form, /private=1/);
    const filled = await app.callTool({ name: 'type', arguments: { index: indexOf(form, /\]input\b/), text: 'Ada' } });
    assert.ok(!filled.isError, text(filled));
    assert.equal(await privateTab.page.locator('#name').inputValue(), 'Ada');

    // Unshared again: the app can no longer read it, and is told how to share it.
    await shareTab(privateTab.tabId, 'Stop sharing this tab');
    const hidden = await app.callTool({ name: 'get_state', arguments: {} });
    assert.equal(hidden.isError, true);
    assert.match(text(hidden), /This tab is not shared with AI apps, so the browser agent does not show it or act in it\. Ask the user to open the tab/);
    const again = text(await app.callTool({ name: 'list_tabs', arguments: {} }));
    assert.doesNotMatch(again, /private=1/);
    assert.equal(await shop.page.isClosed(), false);
  } finally {
    await app.close();
  }
});

test('run_task takes files given inline, which the agent uploads by name; a path is no file', async () => {
  const uploading = await startLlmServer([
    { actions: [{ upload_file: { target: 'CV (PDF)', name: 'cv.pdf' } }] },
    { actions: [{ done: { text: 'Chose the CV', success: true } }] },
  ]);
  try {
    await applySettings(agent, { ...settings(true), baseUrl: uploading.baseUrl });
    await waitFor(socketExists, 'the host Chrome starts to listen');
    const app = await pairedApp();
    try {
      const cv = Buffer.from('%PDF-1.4\n%%EOF\n');
      const files = [{ name: 'cv.pdf', mime: 'application/pdf', data: cv.toString('base64') }];
      const result = await app.callTool(
        { name: 'run_task', arguments: { task: 'choose my CV', url: `${site.origin}/jobs/apply.html`, files } },
        undefined,
        { timeout: TIMEOUT },
      );
      assert.ok(!result.isError, text(result));
      assert.match(text(result), /\(upload_file ok\)/);
      const page = agent.context.pages().find((p) => p.url().endsWith('/jobs/apply.html'));
      const chosen = await page.locator('#cv').evaluate((input) => input.files[0].arrayBuffer().then((b) => [input.files[0].name, input.files[0].type, [...new Uint8Array(b)]]));
      assert.deepEqual(chosen, ['cv.pdf', 'application/pdf', [...cv]]);
      // The host never reads a path for an app: a file without its content is no file.
      const refused = await app.callTool({ name: 'run_task', arguments: { task: 'x', files: [{ name: 'passwd', path: '/etc/passwd' }] } }, undefined, { timeout: TIMEOUT })
        .catch((err) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
      assert.ok(refused.isError, text(refused));
      assert.match(text(refused), /data/);
      assert.ok(!text(refused).includes('root:'), 'nothing of the path was read');
    } finally {
      await app.close();
    }
  } finally {
    await uploading.close();
  }
});
