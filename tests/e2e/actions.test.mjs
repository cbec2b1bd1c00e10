// The action set on fixture pages, through the whole extension: each test checks the page's real
// resulting state, not only what the agent reported.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchAgentBrowser, applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';

let agent;
let site;
let otherSite;

before(async () => {
  site = await startSiteServer();
  otherSite = await startSiteServer();
  agent = await launchAgentBrowser();
});

after(async () => {
  await agent?.close();
  await site?.close();
  await otherSite?.close();
});

const done = { actions: [{ done: { text: 'finished', success: true } }] };

/** Runs `steps` (each a list of actions) on `path`, then done; returns what happened. */
async function run(path, steps) {
  const llm = await startLlmServer([...steps.map((actions) => ({ actions })), done]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 10, highlights: false });
    const target = await openTarget(agent, `${site.origin}/actions/${path}`);
    const panel = await openPanel(agent, target.tabId);
    const events = [];
    const end = await runTask(panel, { task: 'exercise the page', tabId: target.tabId, onEvent: (e) => events.push(e) });
    await panel.close();
    const outcomes = events.filter((e) => e.type === 'step').flatMap((e) => e.actions.map((a) => a.outcome));
    const states = llm.requests.map((r) => r.messages.at(-1).content);
    return { end, outcomes, states, page: target.page };
  } finally {
    await llm.close();
  }
}

const stored = (page, key) => page.evaluate((k) => localStorage.getItem(k), key);

test('typing into a framework-controlled input sticks, and Enter submits its form', async () => {
  const { end, outcomes, page } = await run('controlled.html', [
    [{ input_text: { target: 'label=Name', text: 'Alice' } }],
    [{ send_keys: { keys: 'Enter' } }],
  ]);
  assert.equal(end.type, 'result');
  assert.match(outcomes[0], /^Typed "Alice" into <input> "Name" \[\d+\]\.$/);
  assert.equal(outcomes[1], 'Pressed Enter.');
  assert.equal(await page.locator('#greeting').textContent(), 'Hello Alice');
  // The page writes its own state back into the input on every render: after two more, the
  // typed value still stands.
  const renders = await page.evaluate(() => window.renders);
  await page.waitForFunction((seen) => window.renders >= seen + 2, renders);
  assert.equal(await page.locator('#name').inputValue(), 'Alice');
});

test('native selects are chosen by text', async () => {
  const { outcomes, page } = await run('controlled.html', [
    [{ get_dropdown_options: { target: 'label=Size' } }],
    [{ select_option: { target: 'label=Size', text: 'large' } }],
  ]);
  assert.match(outcomes[0], /^The options of <select> "Size" \[\d+\] are: "Small", "Medium", "Large"\./);
  assert.match(outcomes[1], /^Selected "Large" in <select> "Size" \[\d+\]\.$/);
  assert.equal(await page.locator('#size').inputValue(), 'Large');
});

test('a custom ARIA combobox is opened, chosen in and checked', async () => {
  const { outcomes, page } = await run('widgets.html', [
    [{ select_option: { target: 'Choose a size', text: 'Medium' } }],
  ]);
  assert.match(outcomes[0], /^Selected "Medium" in <div> "Choose a size" \[\d+\]\.$/);
  assert.equal(await page.locator('#size-value').textContent(), 'Medium');
  assert.equal(await page.locator('#size-list').isHidden(), true);
});

test('contenteditable editors, date and number inputs take text; a bad date is reported', async () => {
  const { outcomes, page } = await run('widgets.html', [
    [{ input_text: { target: 'Message body', text: 'See you at noon' } }],
    [{ input_text: { target: 'Delivery date', text: 'next friday' } }],
    [{ input_text: { target: 'Delivery date', text: '2024-05-17' } }, { input_text: { target: 'Quantity', text: '3' } }],
  ]);
  assert.equal(await page.locator('#editor').innerText(), 'See you at noon');
  assert.equal(await page.locator('#date').inputValue(), '2024-05-17');
  assert.equal(await page.locator('#qty').inputValue(), '3');
  assert.match(outcomes[1], /but the field is empty now: it rejected the value \(date fields need YYYY-MM-DD/);
});

test('hover opens a hover menu, and a button in a closed shadow root is clicked', async () => {
  const { states, page } = await run('widgets.html', [
    [{ hover: { target: 'Account' } }],
    [{ click_element: { target: 'Like in shadow' } }],
  ]);
  assert.match(states[1], /Your orders/);
  assert.equal(await page.locator('#liked').textContent(), '1');
});

test('a field in a closed shadow root takes what is typed, reads it back, and its form sends it', async () => {
  // As a model held to the schema replies: every field present, null where it wants the default.
  const { end, outcomes, states, page } = await run('newsletter.html', [
    [{ input_text: { target: 'Your email', text: 'ann@example.com', clear: null } }],
    [{ click_element: { target: 'Join', click: null } }],
  ]);
  assert.equal(end.type, 'result');
  assert.match(outcomes[0], /^Typed "ann@example\.com" into <input> .*"Your email".* \[\d+\]\.$/);
  // The next look reads the value back from inside the closed root.
  assert.match(states[1], /\[\d+\]input [^\n]*value=ann@example\.com/);
  assert.match(outcomes[1], /^Clicked <button> "Join" \[\d+\]\.$/);
  assert.deepEqual(await page.locator('#submitted li').allTextContents(), ['{"email":"ann@example.com"}']);
});

test('an infinite list grows as the agent scrolls, and text is found in it', async () => {
  const { outcomes, page } = await run('feed.html', [
    [{ scroll: { direction: 'down', pages: 2 } }, { scroll: { direction: 'down', pages: 2 } }, { scroll: { direction: 'bottom' } }],
    [{ find_text: { text: 'Entry 50' } }],
  ]);
  assert.match(outcomes[0], /^Scrolled the page down by 2 pages; now \d+% of the way down\.$/);
  assert.ok(await page.locator('#feed li').count() >= 60);
  assert.match(outcomes.at(-2), /^"Entry 50" appears 1 times; scrolled to the first\. Context: "…Entry 50…"\.$/);
});

test('a link with target=_blank opens a tab that becomes the current one; tabs are named t1, t2, never by id, and the panel is not among them', async () => {
  const llm = await startLlmServer([
    { actions: [{ click_element: { target: 'Open reviews in a new tab' } }] },
    { actions: [{ switch_tab: { tab: 't1' } }] },
    done,
  ]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 5, highlights: false });
    const target = await openTarget(agent, `${site.origin}/actions/steps.html`);
    const panel = await openPanel(agent, target.tabId);
    // The panel, opened as a tab, is in the window whose tabs the model is shown.
    const windowUrls = await agent.worker.evaluate(async (tabId) => {
      const { windowId } = await chrome.tabs.get(tabId);
      return (await chrome.tabs.query({ windowId })).map((tab) => tab.url);
    }, target.tabId);
    assert.ok(windowUrls.some((url) => url?.startsWith('chrome-extension://')), JSON.stringify(windowUrls));
    const events = [];
    const end = await runTask(panel, { task: 'exercise the page', tabId: target.tabId, onEvent: (e) => events.push(e) });
    await panel.close();
    assert.equal(end.type, 'result');
    const outcomes = events.filter((e) => e.type === 'step').flatMap((e) => e.actions.map((a) => a.outcome));
    const states = llm.requests.map((r) => r.messages.at(-1).content);
    // The page's link asked for the tab; the core opened it once it had checked where it leads.
    const opened = outcomes[0].match(/^Clicked <a> "Open reviews in a new tab" \[\d+\]\. Opened http:\/\/127\.0\.0\.1:\d+\/actions\/target\.html in a new tab, (t\d+); it is now the current tab\.$/);
    assert.ok(opened, outcomes[0]);
    assert.notEqual(opened[1], 't1', 'the task\'s own tab is t1');
    assert.match(states[1], /Current URL: http:\/\/127\.0\.0\.1:\d+\/actions\/target\.html/);
    // Listed in window order (earlier tests' tabs among them); the task's own tab is t1.
    assert.match(states[1], /Open tabs:\n(- t\d+.*\n)*- t1: Steps \(http:\/\/127\.0\.0\.1:\d+\/actions\/steps\.html\)\n/);
    assert.ok(states[1].includes(`\n- ${opened[1]} (current): Reviews (`), states[1]);
    // Switched back by its name.
    assert.equal(outcomes[1], 'Switched to tab t1.');
    assert.match(states[2], /Current URL: .*\/actions\/steps\.html/);
    assert.match(states[2], /\n- t1 \(current\): Steps /);
    assert.ok(states[2].includes(`\n- ${opened[1]}: Reviews (`), states[2]);
    assert.equal(await agent.worker.evaluate(async (tabId) => (await chrome.tabs.get(tabId)).active, target.tabId), true);
    for (const request of llm.requests) {
      const sent = request.messages.map((m) => m.content).join('\n');
      assert.doesNotMatch(sent, /chrome-extension:\/\//);
      assert.doesNotMatch(sent, /\d{6,}/, 'no browser tab id reaches the model');
    }
  } finally {
    await llm.close();
  }
});

test('a page that navigates away mid-step stops the remaining actions', async () => {
  const { outcomes, states, page } = await run('steps.html', [
    [{ click_element: { target: 'Go elsewhere' } }, { click_element: { target: 'Later button' } }],
  ]);
  assert.match(outcomes[1], /^The page changed to http:\/\/127\.0\.0\.1:\d+\/actions\/target\.html, so the remaining actions \(click_element\) were not run/);
  assert.match(states[1], /Current URL: .*target\.html/);
  assert.equal(await stored(page, 'later'), null);
});

test('a modal that covers the next target stops the step; the covered button is not clicked', async () => {
  const { outcomes, page } = await run('steps.html', [
    [{ click_element: { target: 'Open dialog' } }, { click_element: { target: 'Buy now' } }],
  ]);
  assert.match(outcomes[1], /^Element \[\d+\] changed or disappeared, so the remaining actions \(click_element\) were not run/);
  assert.equal(await stored(page, 'buy'), null);
  assert.equal(await page.locator('#dialog').isVisible(), true);
});

test('an element replaced by an identical-looking one is never acted on blindly', async () => {
  const { outcomes, page } = await run('steps.html', [
    // Within a step: the list re-renders under the next action.
    [{ click_element: { target: 'Refresh items' } }, { click_element: { target: 'Delete Alpha' } }],
    // Across steps: a model that remembers the old index.
    [{ click_element: { target: 'Refresh items' } }],
    [{ click_element: { target: 'Delete Beta', from: 'previous' } }],
  ]);
  assert.match(outcomes[1], /^Element \[\d+\] changed or disappeared, so the remaining actions/);
  assert.match(outcomes.at(-2), /^There is no element \[\d+\] in the page map; use an index from the current map\.$/);
  assert.equal(await stored(page, 'delete-Alpha'), null);
  assert.equal(await stored(page, 'delete-Beta'), null);
});

test('a button inside a cross-origin frame is clicked in its frame', async () => {
  const other = encodeURIComponent(otherSite.origin.replace('127.0.0.1', 'localhost'));
  const llm = await startLlmServer([{ actions: [{ click_element: { target: 'Frame button' } }] }, done]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 5, highlights: false });
    const target = await openTarget(agent, `${site.origin}/actions/steps.html?other=${other}`);
    await target.page.frameLocator('#frame').locator('#frame-button').waitFor();
    const panel = await openPanel(agent, target.tabId);
    const events = [];
    await runTask(panel, { task: 'click it', tabId: target.tabId, onEvent: (e) => events.push(e) });
    const frameClicks = await target.page.frameLocator('#frame').locator('#frame-clicks').textContent();
    assert.equal(frameClicks, '1', JSON.stringify(events.filter((e) => e.type === 'step')));
  } finally {
    await llm.close();
  }
});

test('back, forward and tabs: the agent moves through history and between tabs', async () => {
  const { outcomes, states } = await run('steps.html', [
    [{ click_element: { target: 'Go elsewhere' } }],
    [{ go_back: {} }],
    [{ go_forward: {} }],
    [{ open_tab: { url: `${site.origin}/actions/article.html` } }],
  ]);
  assert.match(states[1], /Current URL: .*\/actions\/target\.html/);
  assert.match(outcomes[1], /^Went back to http:\/\/127\.0\.0\.1:\d+\/actions\/steps\.html\.$/);
  assert.match(outcomes[2], /^Went forward to http:\/\/127\.0\.0\.1:\d+\/actions\/target\.html\.$/);
  assert.match(states[2], /Current URL: .*\/actions\/steps\.html/);
  assert.match(states[3], /Current URL: .*\/actions\/target\.html/);
  assert.match(outcomes[3], /^Opened http:\/\/127\.0\.0\.1:\d+\/actions\/article\.html in a new tab, t\d+; it is now the current tab\.$/);
  assert.match(states[4], /Open tabs:\n/);
  assert.match(states[4], /Current URL: .*\/actions\/article\.html/);
});

test('extract reads the whole main content as markdown, links kept, and answers from it', async () => {
  const llm = await startLlmServer([
    { actions: [{ extract: { query: 'how fast is shipping' } }] },
    { raw: '{"found": true, "answer": "Orders ship within 2 business days; express takes 1 day."}' },
    done,
  ]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 5, highlights: false });
    const target = await openTarget(agent, `${site.origin}/actions/article.html`);
    const panel = await openPanel(agent, target.tabId);
    const events = [];
    await runTask(panel, { task: 'shipping?', tabId: target.tabId, onEvent: (e) => events.push(e) });
    const outcome = events.find((e) => e.type === 'step').actions[0].outcome;
    assert.equal(outcome, 'Extracted for "how fast is shipping": Orders ship within 2 business days; express takes 1 day.');
    const extraction = llm.requests[1].messages.at(-1).content;
    assert.equal(extraction, [
      'Query: how fast is shipping',
      '<page_content>',
      '# Shipping policy',
      '',
      `Orders ship within 2 business days. See the [rate table](${site.origin}/actions/rates.html) for prices.`,
      '',
      '- Standard: 5 days',
      '- Express: 1 day',
      '',
      '| Zone | Price |',
      '| EU | €5 |',
      '</page_content>',
    ].join('\n'));
  } finally {
    await llm.close();
  }
});
