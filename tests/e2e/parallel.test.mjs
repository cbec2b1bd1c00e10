// Several tasks at once, each in its own chat and tab: their steps interleave and each ends with
// its own page's real state; a task past the limit waits for a place; one stopped, closed or
// moved to another window leaves the others alone; the browser does not discard a task's tab.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { withSiteAndBrowser, waitUntil } from '../support/fixtures.mjs';

const TIMEOUT = 60_000;

let site;
let agent;
withSiteAndBrowser((started) => ({ site, agent } = started));

/** The task of adding a mug of `colour` to the cart. */
const mugTask = (colour) => `add the ${colour} mug to the cart, then tell me the cart total`;

/** The model's replies for `mugTask(colour)` on the mugs page. */
function mugReplies(colour) {
  const name = colour[0].toUpperCase() + colour.slice(1);
  return [
    { next_goal: `Filter for the ${colour} mug`, actions: [{ input_text: { target: 'Filter mugs', text: colour } }] },
    { next_goal: `Add the ${colour} mug`, actions: [{ click_element: { target: `Add ${name} mug to cart` } }] },
    { next_goal: 'Report', actions: [{ done: { text: 'The cart total is {{Cart total: (\\$[0-9.]+)}}', success: true } }] },
  ];
}

/** `replies` whose first one the model sends only once the test calls `release()`: the task
 * waits on the model, at its first step, for as long as the test needs. */
function heldReplies(replies) {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  return { replies: [{ ...replies[0], hold: held }, ...replies.slice(1)], release };
}

/** The task each model request was for. */
const taskOf = (request) => request.messages.find((m) => m.content.startsWith('Your task: '))?.content.slice('Your task: '.length);

async function useModel(llm, parallelTasks, more = {}) {
  await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10, planningInterval: 0, parallelTasks, ...more });
}

/** The tabs the browser's blocking rules (the site lists) apply to now. */
async function ruledTabs() {
  const rules = await agent.worker.evaluate(() => chrome.declarativeNetRequest.getSessionRules());
  return [...new Set(rules.flatMap((rule) => rule.condition.tabIds ?? []))].sort();
}

/** Runs `task` in `tabId` through the panel's port, noting when each event came. */
function runTimed(panel, task, tabId) {
  const events = [];
  const finished = runTask(panel, { task, tabId, onEvent: (event) => events.push({ ...event, at: Date.now() }) });
  return { events, finished };
}

test('two tasks run at once in two tabs with interleaved steps, and a third waits for a place', async () => {
  const tasks = { blue: mugTask('blue'), red: mugTask('red'), green: mugTask('green') };
  // Each of the first two is answered once the other has asked, so that both are under way.
  const blue = heldReplies(mugReplies('blue'));
  const red = heldReplies(mugReplies('red'));
  const llm = await startLlmServer({ tasks: {
    [tasks.blue]: blue.replies,
    [tasks.red]: red.replies,
    [tasks.green]: mugReplies('green'),
  } });
  const asked = (task) => waitUntil(() => llm.requests.some((r) => taskOf(r) === task), TIMEOUT);
  asked(tasks.red).then(blue.release);
  asked(tasks.blue).then(red.release);
  try {
    await useModel(llm, 2);
    const tabs = {};
    for (const colour of Object.keys(tasks)) tabs[colour] = await openTarget(agent, `${site.origin}/shop/mugs.html`);
    const panel = await openPanel(agent, tabs.blue.tabId);
    const runs = {};
    for (const colour of Object.keys(tasks)) runs[colour] = runTimed(panel, tasks[colour], tabs[colour].tabId);
    const ends = await Promise.all([runs.blue.finished, runs.red.finished, runs.green.finished]);

    assert.deepEqual(ends.map((end) => end.text), ['The cart total is $14.50', 'The cart total is $12.00', 'The cart total is $11.00']);
    // Each page's own cart changed, and only with its own mug.
    assert.equal(await tabs.blue.page.locator('#cart-items').textContent(), 'Blue mug');
    assert.equal(await tabs.red.page.locator('#cart-items').textContent(), 'Red mug');
    assert.equal(await tabs.green.page.locator('#cart-items').textContent(), 'Green mug');

    // The first two ran side by side: each asked the model between the other's first and last
    // requests.
    const order = llm.requests.map(taskOf);
    const span = (task) => [order.indexOf(task), order.lastIndexOf(task)];
    const [blueFirst, blueLast] = span(tasks.blue);
    const [redFirst, redLast] = span(tasks.red);
    assert.ok(redFirst < blueLast && blueFirst < redLast, `interleaved: ${order.map((t) => t.split(' ')[2]).join(', ')}`);

    // The third waited, first in line, and started only once one of the others had ended.
    const queued = runs.green.events.find((e) => e.type === 'task_queued');
    assert.equal(queued?.position, 1);
    const started = runs.green.events.find((e) => e.type === 'task_started').at;
    const firstEnd = Math.min(...[runs.blue, runs.red].map((run) => run.events.find((e) => e.type === 'result').at));
    assert.ok(started >= firstEnd, 'the waiting task started after a place freed');
    assert.ok(order.indexOf(tasks.green) > Math.min(blueLast, redLast));

    // The panel lists the three tasks, each done.
    const items = panel.locator('#task-list .task-item');
    await waitUntil(async () => (await items.count()) === 3, TIMEOUT);
    assert.deepEqual(await items.locator('.task-state').allTextContents(), ['Done', 'Done', 'Done']);
    assert.equal(await panel.locator('#tasks').isVisible(), true);
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('in the panel, a task sent while another runs gets its own tab; one is stopped while the other finishes', async () => {
  const waiting = 'wait for a sign that never comes';
  const red = mugTask('red');
  const llm = await startLlmServer({ tasks: { [waiting]: [{ hang: true }], [red]: mugReplies('red') } });
  try {
    await useModel(llm, 3, { denyList: ['blocked.test'] });
    const { page, tabId } = await openTarget(agent, `${site.origin}/shop/mugs.html`);
    const panel = await openPanel(agent, tabId);
    await panel.fill('#task', waiting);
    await panel.press('#task', 'Enter');
    await waitUntil(() => llm.requests.some((r) => taskOf(r) === waiting), TIMEOUT);

    // The panel's tab is taken: the second task opens the same page in a tab of its own.
    const opened = agent.context.waitForEvent('page');
    await panel.fill('#task', red);
    await panel.press('#task', 'Enter');
    const own = await opened;
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $12.00');
    assert.equal(await panel.locator('.warning').first().textContent(),
      'Another task is working in this tab, so this task runs in a new background tab of its own, on the same page.');
    assert.equal(await own.locator('#cart-items').textContent(), 'Red mug');
    assert.equal(await page.locator('#cart-items').textContent(), '', 'the first tab is the first task\'s alone');
    // The site lists' rules of the task still running stay when the other ends.
    assert.deepEqual(await ruledTabs(), [tabId]);

    // The first task still runs; the list shows both, and switching to it offers Stop.
    const items = panel.locator('#task-list .task-item');
    assert.equal(await items.count(), 2);
    assert.deepEqual(await items.locator('.task-state').allTextContents(), ['Step 1', 'Done']);
    await items.first().locator('button').click();
    assert.equal(await panel.locator('.message.user').textContent(), waiting);
    await panel.click('#stop');
    await panel.locator('.notice', { hasText: 'Stopped after 1 step.' }).waitFor({ timeout: TIMEOUT });
    await waitUntil(() => llm.stats.aborted === 1, TIMEOUT);
    await waitUntil(async () => (await ruledTabs()).length === 0, TIMEOUT);
    assert.equal(await panel.locator('#stop').isHidden(), true);
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('a task whose tab moves to a minimised window finishes; a closed tab ends only its own task', async () => {
  const blue = mugTask('blue');
  const green = mugTask('green');
  // Each waits on the model at its first step until its tab has moved or closed.
  const blueHeld = heldReplies(mugReplies('blue'));
  const greenHeld = heldReplies(mugReplies('green'));
  const llm = await startLlmServer({ tasks: { [blue]: blueHeld.replies, [green]: greenHeld.replies } });
  try {
    await useModel(llm, 3);
    const moved = await openTarget(agent, `${site.origin}/shop/mugs.html`);
    const closed = await openTarget(agent, `${site.origin}/shop/mugs.html`);
    const panel = await openPanel(agent, moved.tabId);
    const runs = { blue: runTimed(panel, blue, moved.tabId), green: runTimed(panel, green, closed.tabId) };

    await waitUntil(() => llm.requests.some((r) => taskOf(r) === blue), TIMEOUT);
    const discardable = (tabId) => agent.worker.evaluate(async (id) => (await chrome.tabs.get(id)).autoDiscardable, tabId);
    assert.equal(await discardable(moved.tabId), false, 'the browser may not discard a tab a task works in');
    const windowId = await agent.worker.evaluate(async (tabId) => {
      const created = await chrome.windows.create({ tabId });
      await chrome.windows.update(created.id, { state: 'minimized' });
      return created.id;
    }, moved.tabId);
    blueHeld.release();
    await waitUntil(() => llm.requests.some((r) => taskOf(r) === green), TIMEOUT);
    await closed.page.close();
    greenHeld.release();

    const [blueEnd, greenEnd] = await Promise.all([runs.blue.finished, runs.green.finished]);
    assert.equal(blueEnd.type, 'result');
    assert.equal(blueEnd.text, 'The cart total is $14.50');
    assert.equal(await moved.page.locator('#cart-items').textContent(), 'Blue mug');
    const tab = await agent.worker.evaluate((id) => chrome.tabs.get(id), moved.tabId);
    assert.equal(tab.windowId, windowId, 'it ran in the other window');
    assert.equal(greenEnd.type, 'error');
    assert.match(greenEnd.message, /the tab the task was running in has been closed/);
    assert.equal(await discardable(moved.tabId), true, 'given back when the task ended');
    const noted = await agent.worker.evaluate(async () => Object.keys(await chrome.storage.session.get(null)));
    assert.deepEqual(noted.filter((key) => key.startsWith('keptTab:')), [], 'no kept tab left noted, the closed one included');
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('with vision on, tasks side by side in one window each show the model their own page', async () => {
  const tasks = { red: mugTask('red'), blue: mugTask('blue') };
  const llm = await startLlmServer({ tasks: { [tasks.red]: mugReplies('red'), [tasks.blue]: mugReplies('blue') } });
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10, planningInterval: 0, vision: true });
    const tabs = {};
    for (const [colour, background] of [['red', 'rgb(230, 0, 0)'], ['blue', 'rgb(0, 0, 230)']]) {
      tabs[colour] = await openTarget(agent, `${site.origin}/shop/mugs.html`);
      await tabs[colour].page.evaluate((value) => { document.documentElement.style.background = value; }, background);
    }
    const panel = await openPanel(agent, tabs.red.tabId);
    await Promise.all(Object.keys(tasks).map((colour) => runTask(panel, { task: tasks[colour], tabId: tabs[colour].tabId })));

    // Each request's picture, by the colour of its lower right corner (the page's background).
    const corner = (url) => panel.evaluate(async (src) => {
      const image = new Image();
      image.src = src;
      await image.decode();
      const canvas = new OffscreenCanvas(image.naturalWidth, image.naturalHeight);
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const [r, , b] = context.getImageData(image.naturalWidth - 20, image.naturalHeight - 20, 1, 1).data;
      return r > b ? 'red' : 'blue';
    }, url);
    for (const request of llm.requests) {
      const [image] = request.raw.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((part) => part.type === 'image_url');
      const colour = taskOf(request) === tasks.red ? 'red' : 'blue';
      assert.equal(await corner(image.image_url.url), colour, `a step of the ${colour} task saw its own tab`);
    }
    assert.equal(llm.requests.length, 6);
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('a task waiting for a place keeps it when the browser stops the worker, and runs once the running one ends', async () => {
  const [blue, red] = [mugReplies('blue'), mugReplies('red')];
  // The running task's second request never returns: the worker is stopped while it waits.
  const llm = await startLlmServer([blue[0], { hang: true }, blue[1], blue[2], ...red]);
  try {
    await useModel(llm, 1);
    const tabs = { blue: await openTarget(agent, `${site.origin}/shop/mugs.html`), red: await openTarget(agent, `${site.origin}/shop/mugs.html`) };
    const panel = await openPanel(agent, tabs.blue.tabId);
    const runs = { blue: runTimed(panel, mugTask('blue'), tabs.blue.tabId) };
    await waitUntil(() => llm.requests.length === 1, TIMEOUT);
    runs.red = runTimed(panel, mugTask('red'), tabs.red.tabId);
    await waitUntil(() => runs.red.events.some((e) => e.type === 'task_queued') && llm.requests.length === 2, TIMEOUT);

    const cdp = await agent.context.newCDPSession(panel);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');

    const [blueEnd, redEnd] = await Promise.all([runs.blue.finished, runs.red.finished]);
    assert.equal(blueEnd.text, 'The cart total is $14.50');
    assert.ok(runs.blue.events.some((e) => e.type === 'task_resumed'), 'the running task resumed');
    assert.equal(redEnd.text, 'The cart total is $12.00');
    assert.equal(await tabs.red.page.locator('#cart-items').textContent(), 'Red mug');
    // The waiting one started only after the other's answer.
    const redStarted = runs.red.events.find((e) => e.type === 'task_started').at;
    assert.ok(redStarted >= runs.blue.events.find((e) => e.type === 'result').at);
    // The tab kept loaded before the restart is given back by the restarted worker.
    assert.equal(await agent.worker.evaluate(async (id) => (await chrome.tabs.get(id)).autoDiscardable, tabs.blue.tabId), true);
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('in the panel, a task past the limit says it waits and its place, and leaves the line when stopped', async () => {
  const first = 'wait for the first sign';
  const second = 'wait for the second sign';
  const llm = await startLlmServer({ tasks: { [first]: [{ hang: true }], [second]: [{ hang: true }] } });
  try {
    await useModel(llm, 1);
    const { tabId } = await openTarget(agent, `${site.origin}/shop/mugs.html`);
    const panel = await openPanel(agent, tabId);
    await panel.fill('#task', first);
    await panel.press('#task', 'Enter');
    await waitUntil(() => llm.requests.length === 1, TIMEOUT);
    await panel.fill('#task', second);
    await panel.press('#task', 'Enter');

    const waiting = panel.locator('.message.queued');
    await waiting.waitFor({ timeout: TIMEOUT });
    assert.equal(await waiting.textContent(),
      'This task waits for a free place (1 in line): as many tasks as the settings allow are running. It starts when one of them ends.');
    const items = panel.locator('#task-list .task-item');
    assert.deepEqual(await items.locator('.task-state').allTextContents(), ['Step 1', 'Waiting, 1 in line']);
    assert.equal(await panel.locator('#pause').isHidden(), true, 'nothing to pause before it starts');
    await panel.click('#stop');
    await panel.locator('.notice', { hasText: 'Stopped after 0 steps.' }).waitFor({ timeout: TIMEOUT });
    assert.equal(llm.requests.length, 1, 'the stopped task never asked the model');
    await items.first().locator('button').click();
    await panel.click('#stop');
    await waitUntil(() => llm.stats.aborted === 1, TIMEOUT);
    await panel.close();
  } finally {
    await llm.close();
  }
});
