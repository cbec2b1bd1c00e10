// Workflows, from the panel and from the headless runner: a run saved as a workflow with its
// inputs as parameters, run again with another value; the recorded steps run without the model
// where the page still matches, and the page's real state says it worked.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchAgentBrowser, applySettings, openTarget, openPanel, runTask, proposeWorkflow, askWorker } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';
import { SHOP_TASK, shopScript, runRunner, waitUntil } from '../support/fixtures.mjs';

/** Inside the project, so that an exported script finds playwright-core in node_modules. */
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

let site;

before(async () => {
  site = await startSiteServer();
});

after(async () => {
  await site?.close();
});

test('a shop run saved as a workflow runs again for another mug, asking the model only where the page changed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-workflow-'));
  const file = join(dir, 'buy-a-mug.json');
  const first = await startLlmServer(shopScript(site.origin));
  try {
    const saved = await runRunner(['--task', SHOP_TASK, '--url', `${site.origin}/shop/`, '--base-url', first.baseUrl,
      '--model', 'm', '--planning-interval', '0', '--no-validator', '--save-workflow', file]);
    assert.equal(saved.code, 0, saved.stderr);
    assert.match(saved.stdout, /^Workflow written to .*buy-a-mug\.json \(parameters: url="http:\/\/127\.0\.0\.1:\d+\/shop\/mugs\.html", filter="blue"\)$/m);
  } finally {
    await first.close();
  }
  const workflow = JSON.parse(await readFile(file, 'utf8'));
  assert.equal(workflow.format, 'browser-agent-workflow/1');
  assert.equal(workflow.task, 'add the {filter} mug to the cart, then tell me the cart total');

  // Filtering for red hides the recorded blue mug's button: the model picks the red one, and
  // gives the answer from the page as it is now.
  const second = await startLlmServer([
    { next_goal: 'Add the red mug', actions: [{ click_element: { target: 'Add Red mug to cart' } }] },
    { next_goal: 'Report', actions: [{ done: { text: 'The cart total is {{Cart total: (\\$[0-9.]+)}}', success: true } }] },
  ]);
  try {
    const rerun = await runRunner(['--workflow', file, '--param', 'filter=red', '--url', `${site.origin}/shop/`,
      '--base-url', second.baseUrl, '--model', 'm', '--planning-interval', '0', '--no-validator']);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.match(rerun.stdout, /^Answer: The cart total is \$12\.00$/m, 'the red mug ($12.00) is what the cart holds');
    assert.match(rerun.stdout, /^Steps run without the model: 2 of 4$/m);
    assert.equal(second.requests.length, 2, 'two model calls for four steps');
    // The task the model read carries the new value.
    assert.match(second.requests[0].messages[1].content, /^Your task: add the red mug to the cart/);
  } finally {
    await second.close();
  }

  const unknown = await runRunner(['--workflow', file, '--param', 'colour=red', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stdout + unknown.stderr, /This workflow cannot run: the workflow has no parameter "colour" \(it has: url, filter\)/);
});

/** The scripted model's two decisions when the shop workflow runs for the red mug. */
const RED_MUG_REPLIES = [
  { next_goal: 'Add the red mug', actions: [{ click_element: { target: 'Add Red mug to cart' } }] },
  { next_goal: 'Report', actions: [{ done: { text: 'The cart total is {{Cart total: (\\$[0-9.]+)}}', success: true } }] },
];

test('in the panel, a successful run is saved as a workflow, its parameter renamed, and run again from Workflows', async () => {
  const llm = await startLlmServer([...shopScript(site.origin), ...RED_MUG_REPLIES]);
  const agent = await launchAgentBrowser();
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'm', apiKey: 'k', planningInterval: 0, validator: false });
    const { page, tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, tabId);
    await panel.fill('#task', SHOP_TASK);
    await panel.press('#task', 'Enter');
    await panel.locator('.save-workflow').click();

    // The core proposed the address and the typed filter; the address is dropped, the filter renamed.
    const form = panel.locator('.workflow-form');
    assert.deepEqual(await form.locator('.param-value').allTextContents(), [`${site.origin}/shop/mugs.html`, 'blue']);
    await form.locator('.workflow-param').nth(0).locator('input[type=checkbox]').uncheck();
    await form.locator('.param-name').nth(1).fill('colour');
    await form.locator('.workflow-name').fill('Buy a mug');
    await form.locator('button.save').click();
    await form.getByText('Saved. Open Workflows to run it with new values.').waitFor();

    await panel.click('#workflows-button');
    const item = panel.locator('#workflow-list .workflow');
    // The list is read from the worker after the click: wait for it before counting.
    await item.first().waitFor();
    assert.equal(await item.count(), 1);
    assert.equal(await item.locator('h3').textContent(), 'Buy a mug');
    assert.equal(await item.locator('.workflow-task').textContent(), 'add the {colour} mug to the cart, then tell me the cart total');
    // Exported, deleted and imported again: the same workflow, checked by the core on the way in.
    const [download] = await Promise.all([panel.waitForEvent('download'), item.locator('button.export').click()]);
    const exported = await download.path();
    assert.equal(JSON.parse(await readFile(exported, 'utf8')).format, 'browser-agent-workflow/1');
    await item.locator('button.delete').click();
    await panel.locator('#workflows-status').getByText('No workflows yet').waitFor();
    await panel.setInputFiles('#workflow-import-file', exported);
    await panel.locator('#workflows-status').getByText('Imported.').waitFor();
    assert.equal(await item.locator('h3').textContent(), 'Buy a mug');

    // As a Playwright script, run with node for the green mug: no agent and no model needed.
    const [scriptDownload] = await Promise.all([panel.waitForEvent('download'), item.locator('button.script').click()]);
    await mkdir(ARTIFACTS, { recursive: true });
    const script = join(ARTIFACTS, 'buy-a-mug.mjs');
    await copyFile(await scriptDownload.path(), script);
    const { stdout } = await promisify(execFile)(process.execPath, [script, '--colour=green'],
      { env: { ...process.env, CHROMIUM_PATH: process.env.CHROMIUM_PATH || '/usr/bin/chromium' }, timeout: 60_000 });
    assert.match(stdout, /Cart: 1 item\s+Green mug\s+Cart total: \$11\.00/, stdout);

    await item.getByLabel('colour').fill('red');
    await item.locator('button.run').click();

    await panel.locator('.answer').waitFor({ timeout: 30_000 });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $12.00');
    assert.equal(await page.locator('#cart-items').textContent(), 'Red mug', 'the page really holds the red mug');
    assert.equal(await panel.locator('.answer-card .replayed').textContent(), '2 of 4 steps ran as recorded, without asking the model.');
    assert.equal(llm.requests.length, 4 + 2, 'the rerun asked the model twice, for its four steps');
    assert.equal(await panel.locator('.step').count(), 4);
  } finally {
    await agent.close();
    await llm.close();
  }
});

test('a workflow scheduled in the panel runs by itself in a background tab; its answer lands in the History, with a notification', async () => {
  const llm = await startLlmServer([...shopScript(site.origin), ...RED_MUG_REPLIES]);
  const agent = await launchAgentBrowser();
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'm', apiKey: 'k', planningInterval: 0, validator: false });
    const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, tabId);
    await panel.fill('#task', SHOP_TASK);
    await panel.press('#task', 'Enter');
    await panel.locator('.save-workflow').click();
    const form = panel.locator('.workflow-form');
    await form.locator('.workflow-name').fill('Buy a mug');
    await form.locator('button.save').click();
    await form.getByText('Saved. Open Workflows to run it with new values.').waitFor();

    // Scheduled once, a few seconds from now, for the red mug.
    await panel.click('#workflows-button');
    const item = panel.locator('#workflow-list .workflow');
    await item.getByLabel('filter').fill('red');
    await item.locator('button.schedule').click();
    assert.equal(await item.locator('.schedule-repeat').inputValue(), 'daily');
    await item.locator('.schedule-repeat').selectOption('once');
    const soon = await panel.evaluate(() => {
      const at = new Date(Date.now() + 4000);
      return new Date(at - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    });
    await item.locator('.schedule-first').fill(soon);
    await item.locator('button.save-schedule').click();
    await panel.locator('#workflows-status').getByText('The schedule of "Buy a mug" is saved.').waitFor();
    assert.match(await item.locator('.schedule-line').textContent(), /^Scheduled \(once\): next run .+, in a background tab\.$/);
    await waitUntil(async () => (await agent.worker.evaluate(() => chrome.alarms.get('schedule:Buy a mug'))) !== undefined);

    // The alarm fires: the run happens in a tab of its own, in the background, and is kept.
    const chat = await waitForChat(agent, /\$12\.00/, 60_000);
    const result = chat.events.find((e) => e.type === 'result');
    assert.equal(result.text, 'The cart total is $12.00');
    const pages = agent.context.pages().filter((p) => p.url().endsWith('/shop/mugs.html'));
    const carts = await Promise.all(pages.map((p) => p.locator('#cart-items').textContent()));
    assert.ok(carts.includes('Red mug'), `a tab holds the red mug: ${carts}`);
    const tabs = await agent.worker.evaluate(() => chrome.tabs.query({ url: '*://*/shop/mugs.html' }));
    assert.ok(tabs.some((tab) => !tab.active), 'the scheduled run did not take the user\'s tab');
    const notices = await agent.worker.evaluate(() => chrome.notifications.getAll());
    assert.ok(Object.keys(notices).includes(`end|${chat.id}`), JSON.stringify(notices));
    // A single run's schedule is done.
    assert.deepEqual(await agent.worker.evaluate(async () => (await chrome.storage.local.get('schedules')).schedules), []);
    assert.equal(await agent.worker.evaluate(() => chrome.alarms.get('schedule:Buy a mug')), undefined);
    // The panel lists it beside the chat it shows, done; it opens there.
    await panel.click('#workflows-back');
    const listed = panel.locator('#task-list .task-item', { hasText: 'add the red mug' });
    assert.equal(await listed.locator('.task-state').textContent(), 'Done');
    await listed.locator('button').click();
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $12.00');
  } finally {
    await agent.close();
    await llm.close();
  }
});

test('a scheduled run that would send a message waits: a notification asks, and the answer given in the panel lets it finish', async () => {
  const contact = `${site.origin}/mcp/contact.html`;
  const llm = await startLlmServer([
    { next_goal: 'Give my name', actions: [{ input_text: { target: 'Your name', text: 'Ada' } }] },
    { next_goal: 'Write the message', actions: [{ input_text: { target: ']textarea', text: 'Where is my mug?' } }] },
    { next_goal: 'Send it', actions: [{ click_element: { target: 'Send message' } }] },
    { next_goal: 'Report', actions: [{ done: { text: '{{(Sent to support: [^\\n]+)}}', success: true } }] },
    { next_goal: 'Report', actions: [{ done: { text: '{{(Sent to support: [^\\n]+)}}', success: true } }] },
  ]);
  const agent = await launchAgentBrowser();
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'm', apiKey: 'k', planningInterval: 0, validator: false });
    const { page, tabId } = await openTarget(agent, contact);
    const panel = await openPanel(agent, tabId);
    let record;
    await runTask(panel, {
      task: 'ask support where my mug is', tabId, onApproval: () => true,
      onEvent: (event) => { if (event.type === 'run_recorded') ({ record } = event); },
    });
    const workflow = { ...(await proposeWorkflow(agent, record)), name: 'Ask support' };
    const values = Object.fromEntries(workflow.params.map(({ name, value }) => [name, value === 'Ada' ? 'Grace' : value]));
    // Saved and scheduled as the panel asks the worker.
    assert.deepEqual(await askWorker(agent, { type: 'save_workflow', workflow, name: workflow.name }), { v: 1, type: 'workflow_saved', problem: null });
    const schedule = { workflow: workflow.name, values, repeat: 'once', first_ms: Date.now() + 2000 };
    assert.deepEqual(await askWorker(agent, { type: 'set_schedule', schedule }), { v: 1, type: 'schedule_set', problem: null });

    // The scheduled run comes to the message's sending and asks, in a notification and in the
    // panel (which shows it, having nothing else on screen).
    await panel.reload();
    const approval = panel.locator('.message.approval');
    await approval.waitFor({ timeout: 60_000 });
    const notices = await agent.worker.evaluate(() => chrome.notifications.getAll());
    const question = Object.keys(notices).find((id) => id.startsWith('approval_needed|'));
    assert.ok(question, JSON.stringify(notices));
    const tabs = await agent.worker.evaluate((url) => chrome.tabs.query({ url }), contact);
    assert.equal(tabs.length, 2, 'the scheduled run has a tab of its own');
    const own = agent.context.pages().find((p) => p.url() === contact && p !== page);
    assert.equal(await own.locator('#sent').textContent(), 'Nothing sent yet.', 'nothing is sent before the answer');
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();

    const chat = await waitForChat(agent, /Grace/, 60_000);
    assert.equal(chat.events.find((e) => e.type === 'result').text, 'Sent to support: Grace about Choose a topic: Where is my mug?');
    assert.equal(await own.locator('#sent').textContent(), 'Sent to support: Grace about Choose a topic: Where is my mug?');
    const ended = await agent.worker.evaluate(() => chrome.notifications.getAll());
    assert.ok(Object.keys(ended).includes(`end|${chat.id}`));
  } finally {
    await agent.close();
    await llm.close();
  }
});

/** The stored chat whose final answer matches `answer`, once it has one. */
async function waitForChat(agent, answer, timeout) {
  let found;
  await waitUntil(async () => {
    found = await agent.worker.evaluate(async (source) => {
      const all = await chrome.storage.local.get(null);
      const chats = Object.entries(all).filter(([key]) => key.startsWith('chat:')).map(([, chat]) => chat);
      return chats.find((chat) => chat.events.some((e) => e.type === 'result' && new RegExp(source).test(e.text))) ?? null;
    }, answer.source);
    return found !== null;
  }, timeout);
  return found;
}
