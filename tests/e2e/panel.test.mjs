// The whole extension in headless Chromium: the side panel drives the agent on a strict-CSP shop.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { applySettings, openTarget, openPanel, storedSettings } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { SHOP_TASK, shopScript, closedPort, withSiteAndBrowser, waitUntil } from '../support/fixtures.mjs';

const TIMEOUT = 30_000;
let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

async function useModel(baseUrl) {
  await applySettings(agent, {
    baseUrl,
    model: 'scripted-model',
    apiKey: 'sk-test-key',
    maxSteps: 10,
    prices: [{ model: 'scripted-model', input: 1, output: 2 }],
  });
}

async function sendTask(panel, task) {
  await panel.fill('#task', task);
  await panel.press('#task', 'Enter');
}

/** Runs the shop task in `panel` against `llm` (a server with the shop script) and checks the answer. */
async function assertShopTaskSucceeds(panel, llm) {
  await useModel(llm.baseUrl);
  await sendTask(panel, SHOP_TASK);
  await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
  assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
}

/** Opens the shop's home page and a panel bound to its tab. */
async function openShop() {
  const target = await openTarget(agent, `${site.origin}/shop/`);
  const panel = await openPanel(agent, target.tabId);
  return { ...target, panel };
}

/** A plan as the planner writes it after the first: `next_steps`, with `steps_done` of the
 * previous plan's done. */
function plan(progress, nextSteps, stepsDone) {
  return { plan: { analysis: 'scripted', progress, challenges: 'None', next_steps: nextSteps, steps_done: stepsDone } };
}

/** A task's first plan, which also says that the task needs the browser, and no sites. */
function firstPlan(progress, nextSteps) {
  return { plan: { ...plan(progress, nextSteps, 0).plan, web_task: true, answer: null, sites: [] } };
}

test('the panel runs the shop task on a strict-CSP page: the cart really changes and the total is shown', async () => {
  // The planner plans three steps at the start, and at step 4 counts two of them done.
  const script = shopScript(site.origin);
  script.splice(3, 0, plan('The blue mug is in the cart', ['Read the cart total'], 2));
  script.unshift(firstPlan('On the shop', ['Open the mugs page', 'Add the blue mug', 'Read the cart total']));
  const llm = await startLlmServer(script);
  try {
    await useModel(llm.baseUrl);
    const { page, panel } = await openShop();
    await sendTask(panel, SHOP_TASK);

    const answer = panel.locator('.answer');
    await answer.waitFor({ timeout: TIMEOUT });
    assert.equal(await answer.textContent(), 'The cart total is $14.50');
    assert.match(await answer.getAttribute('class'), /succeeded/);

    // The page itself changed: one blue mug in the cart.
    assert.equal(await page.locator('#cart-count').textContent(), 'Cart: 1 item');
    assert.equal(await page.locator('#cart-items').textContent(), 'Blue mug');
    assert.equal(await page.locator('#filter').inputValue(), 'blue');

    // The page's CSP really forbids wasm: the core could not have run in the page.
    const wasmInPage = await page.evaluate(() =>
      WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])).then(() => 'compiled', (e) => e.message));
    assert.match(wasmInPage, /Content Security Policy|wasm-unsafe-eval/);

    // Each step is shown with its goal and what its action did, naming the element.
    const steps = panel.locator('.step');
    assert.equal(await steps.count(), 4);
    assert.match(await steps.nth(0).textContent(), /Open the mugs page.*Opened http:\/\/127\.0\.0\.1:\d+\/shop\/mugs\.html/s);
    assert.match(await steps.nth(1).textContent(), /Typed "blue" into <input> "Filter" \[\d+\]/);
    assert.match(await steps.nth(2).textContent(), /Clicked <button> "Add Blue mug to cart" \[\d+\]/);
    assert.equal(await panel.locator('.user').textContent(), SHOP_TASK);
    // 4 navigator calls, 3 plans (steps 1 and 4, and on the claim of success) and the validator's,
    // of 100 input and 20 output tokens each, at $1 and $2 per million.
    assert.equal(await panel.locator('#usage').textContent(), 'Tokens: 800 in · 160 out · $0.0011');
    // The plan is one checklist: the planner's count ticked two steps at step 4, its later plans
    // replaced what was left open, and the success ticked the rest.
    assert.equal(await panel.locator('.plan').count(), 1);
    assert.deepEqual(await panel.locator('.checklist li').allTextContents(),
      ['✓Done:Open the mugs page', '✓Done:Add the blue mug', '✓Done:Continue with the task']);
    // The answer is a card: its heading, the answer, Copy (the answer's markdown), the exports
    // and, as the run succeeded, Save as workflow.
    const card = panel.locator('.answer-card');
    assert.equal(await card.locator('h2').textContent(), 'Answer');
    assert.deepEqual(await card.locator('.answer-actions button').allTextContents(),
      ['Copy', 'Export run (JSON)', 'Report (Markdown)', 'Replay', 'Save as workflow']);
    await card.locator('.copy').click();
    await waitUntil(async () => (await card.locator('.copy').textContent()) === 'Copied');
    // The browser's clipboard, read from the shop's page (an extension page cannot be granted that).
    await agent.context.grantPermissions(['clipboard-read'], { origin: site.origin });
    await page.bringToFront();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'The cart total is $14.50');
    assert.match(await panel.locator('#progress').textContent(), /^Step 4 of 10 · 0:\d\d$/);
    // The answer is the model's markdown, rendered.
    assert.equal(await panel.locator('.answer p').count(), 1);
    assert.equal(await panel.locator('#stop').isHidden(), true);

    // An action's element is pointed out on the page on request, for a few seconds.
    const overlays = () => page.evaluate(() => document.querySelectorAll('agent-highlights').length);
    assert.equal(await overlays(), 0);
    // Earlier steps are folded to one line each; a step unfolds on request.
    const third = panel.locator('.step').nth(2);
    assert.equal(await third.locator('.step-toggle').getAttribute('aria-expanded'), 'false');
    assert.equal(await third.locator('.show-element').isVisible(), false);
    assert.equal(await third.locator('.summary').textContent(), '✓ Add the blue mug to the cart · click_element');
    assert.equal(await panel.locator('.step').nth(3).locator('.step-toggle').getAttribute('aria-expanded'), 'true');
    await third.locator('.step-toggle').click();
    assert.equal(await third.locator('.step-toggle').getAttribute('aria-expanded'), 'true');
    await third.locator('.show-element').click();
    await waitUntil(async () => (await overlays()) === 1);
    await waitUntil(async () => (await overlays()) === 0);

    // The run's record, exported from the panel: every step, its URL, tokens and times.
    const [download] = await Promise.all([panel.waitForEvent('download'), panel.click('.export.json')]);
    assert.match(download.suggestedFilename(), /^agent-run-\d{4}-\d\d-\d\dT[\d-]+\.json$/);
    const exported = await readFile(await download.path(), 'utf8');
    const record = JSON.parse(exported);
    assert.equal(record.steps.length, 4);
    assert.equal(record.steps[1].url, `${site.origin}/shop/mugs.html`);
    assert.equal(record.cost, 0.00112);
    assert.doesNotMatch(exported, /sk-test-key/);
    const [reportDownload] = await Promise.all([panel.waitForEvent('download'), panel.click('.export.markdown')]);
    const report = await readFile(await reportDownload.path(), 'utf8');
    assert.match(report, /^# Agent run: add the blue mug to the cart, then tell me the cart total\n\n\*\*Done:\*\* The cart total is \$14\.50\n/);
    assert.match(report, /\n## Step 3 · http:\/\/127\.0\.0\.1:\d+\/shop\/mugs\.html\n/);
    assert.match(report, /- ✓ click_element: Clicked <button> "Add Blue mug to cart"/);

    // What the model was sent: one system message, structured output, the key, the page map.
    assert.equal(llm.requests.length, 4);
    for (const request of llm.requests) {
      assert.equal(request.model, 'scripted-model');
      assert.equal(request.raw.response_format.type, 'json_schema');
      assert.equal(request.messages.filter((m) => m.role === 'system').length, 1);
    }
    assert.equal(llm.headers[0].authorization, 'Bearer sk-test-key');
    const lastState = llm.requests[3].messages.at(-1).content;
    assert.match(lastState, /Cart total: \$14\.50/);
    assert.match(lastState, /click_element: Clicked <button> "Add Blue mug to cart"/);
    // Hidden content never reaches the model, and filtered-out products are gone.
    assert.doesNotMatch(lastState, /Secret hidden offer|Red mug/);
  } finally {
    await llm.close();
  }
});

test('the answer is rendered markdown in which nothing from the model runs; its links open in a tab', async () => {
  const text = `The **blue mug** costs $14.50.\n\n- [Cart](${site.origin}/shop/)\n` + '- <img src=x onerror="document.title=\'pwned\'">\n- [bad](javascript:document.title=\'pwned\')';
  const llm = await startLlmServer([{ actions: [{ done: { text, success: true } }] }]);
  try {
    await useModel(llm.baseUrl);
    const { panel } = await openShop();
    await sendTask(panel, 'what does the blue mug cost?');
    const answer = panel.locator('.answer');
    await answer.waitFor({ timeout: TIMEOUT });
    assert.equal(await answer.locator('strong').textContent(), 'blue mug');
    assert.equal(await answer.locator('img').count(), 0);
    assert.match(await answer.textContent(), /<img src=x onerror=/);
    assert.deepEqual(await answer.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))), [`${site.origin}/shop/`]);
    assert.notEqual(await panel.title(), 'pwned');
    const [opened] = await Promise.all([agent.context.waitForEvent('page'), answer.locator('a').click()]);
    assert.equal(opened.url(), `${site.origin}/shop/`);
    assert.match(panel.url(), /panel\.html/, 'the panel stays where it is');
    await opened.close();
  } finally {
    await llm.close();
  }
});

test('replay runs a recorded task again with its recorded actions; the model only gives the answer', async () => {
  const answer = { next_goal: 'Report', actions: [{ done: { text: 'Replayed: the cart total is {{Cart total: (\\$[0-9.]+)}}', success: true } }] };
  const llm = await startLlmServer([...shopScript(site.origin), answer]);
  try {
    await useModel(llm.baseUrl);
    const { page, panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(llm.requests.length, 4);

    await panel.click('.replay');
    await panel.locator('.answer', { hasText: 'Replayed' }).waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'Replayed: the cart total is $14.50');
    // The page really went through the task again: it started over at the shop's home page.
    assert.equal(await page.locator('#cart-items').textContent(), 'Blue mug');
    assert.equal(await page.locator('#filter').inputValue(), 'blue');
    // One navigator request for the three replayed steps and the answer, told it is a replay.
    assert.equal(llm.requests.length, 5);
    assert.ok(llm.requests[4].messages.some((m) => m.content.startsWith('You are replaying a recorded run of this task')));
    const goals = await panel.locator('.step .goal').allTextContents();
    assert.match(goals[0], /^Replay step 1 of the recorded run: \{"do":"go_to_url"/);
    assert.match(goals[2], /^Replay step 3 of the recorded run: \{"do":"click_element","index":\d+\} on <button> "Add Blue mug to cart"/);
  } finally {
    await llm.close();
  }
});

test('the validator sends back a premature answer, and the panel shows why', async () => {
  const llm = await startLlmServer([
    { actions: [{ done: { text: 'The cart total is $0.00', success: true } }] },
    { validate: { is_valid: false, reason: 'the blue mug is not in the cart yet', answer: '' } },
    ...shopScript(site.origin),
  ]);
  try {
    const { page, panel } = await openShop();
    await applySettings(agent, {
      baseUrl: llm.baseUrl, model: 'scripted-model', plannerModel: 'planner-model', validatorModel: 'validator-model', maxSteps: 10,
    });
    await sendTask(panel, SHOP_TASK);
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    assert.ok(llm.plans.every((r) => r.model === 'planner-model') && llm.plans.length > 0);
    assert.ok(llm.validations.every((r) => r.model === 'validator-model'));
    assert.ok(llm.requests.every((r) => r.model === 'scripted-model'));
    assert.equal(await panel.locator('.validation.rejected').textContent(), 'Not accepted yet: the blue mug is not in the cart yet');
    assert.equal(await panel.locator('.validation.accepted').count(), 1);
    assert.equal(llm.validations.length, 2);
    assert.match(llm.requests[1].messages.at(-1).content, /The validator did not accept your answer: the blue mug is not in the cart yet/);
    assert.equal(await page.locator('#cart-count').textContent(), 'Cart: 1 item');
  } finally {
    await llm.close();
  }
});

test('with vision on, each step shows the model a screenshot of the page', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  try {
    const { panel } = await openShop();
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10, vision: true });
    await sendTask(panel, SHOP_TASK);
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    for (const request of llm.requests) {
      const images = request.raw.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((part) => part.type === 'image_url');
      assert.equal(images.length, 1, 'one screenshot, with the state');
      assert.match(images[0].image_url.url, /^data:image\/jpeg;base64,\/9j\//);
    }
    // Each step in the panel shows a small picture of what the model saw.
    const pictures = panel.locator('.step .step-screenshot');
    assert.equal(await pictures.count(), 4);
    assert.equal(await pictures.first().evaluate((img) => img.naturalWidth), 320);
    assert.match(await pictures.first().getAttribute('src'), /^data:image\/jpeg;base64,/);
  } finally {
    await llm.close();
  }
});

test('a second task in the same chat is a follow-up; a new chat starts afresh', async () => {
  const llm = await startLlmServer([
    { actions: [{ done: { text: 'There are 3 mugs.', success: true } }] },
    { actions: [{ done: { text: 'The cheapest is the green one.', success: true } }] },
    { actions: [{ done: { text: 'Hello.', success: true } }] },
  ]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 5, planningInterval: 0, validator: false });
    const { panel } = await openShop();
    await sendTask(panel, 'how many mugs are there?');
    await panel.locator('.answer').nth(0).waitFor({ timeout: TIMEOUT });
    await sendTask(panel, 'which is the cheapest?');
    await panel.locator('.answer').nth(1).waitFor({ timeout: TIMEOUT });
    const followUp = llm.requests[1].messages.map((m) => m.content);
    assert.ok(followUp.includes('Your task: how many mugs are there?'));
    assert.ok(followUp.some((c) => c.includes('There are 3 mugs.')));
    assert.ok(followUp.some((c) => c.endsWith('which is the cheapest?') && c.startsWith('Your follow-up task')));

    await panel.click('#new-chat');
    assert.equal(await panel.locator('.message').count(), 0);
    await sendTask(panel, 'say hello');
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    const fresh = llm.requests[2].messages.map((m) => m.content);
    assert.ok(!fresh.some((c) => c.includes('how many mugs')), 'a new chat forgets the old one');
  } finally {
    await llm.close();
  }
});

test('an unreachable provider ends the task with a clear message', async () => {
  await useModel(`http://127.0.0.1:${await closedPort()}/v1`);
  const { panel } = await openShop();
  await sendTask(panel, SHOP_TASK);
  const error = panel.locator('.error');
  await error.waitFor({ timeout: TIMEOUT });
  assert.match(await error.textContent(), /Could not reach the model provider at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions.*Check the base URL/);  assert.equal(await error.locator('button.fix').textContent(), 'Fix in settings');
});

test('a rejected API key ends the task with a clear message, and the next task still runs', async () => {
  const refusing = await startLlmServer([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
  const working = await startLlmServer(shopScript(site.origin));
  try {
    await useModel(refusing.baseUrl);
    const { panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    const error = panel.locator('.error');
    await error.waitFor({ timeout: TIMEOUT });
    assert.match(await error.textContent(), /refused the API key \(HTTP 401: Incorrect API key provided\)\. Open the settings/);
    // The fix is one click away: the settings open at the key, marked and focused.
    const [settings] = await Promise.all([agent.context.waitForEvent('page'), error.locator('button.fix').click()]);
    await settings.waitForURL(/options\.html#apiKey$/);
    await settings.locator('#apiKey[aria-invalid="true"]').waitFor();
    assert.equal(await settings.evaluate(() => document.activeElement.id), 'apiKey');
    await settings.close();

    await assertShopTaskSucceeds(panel, working);
  } finally {
    await refusing.close();
    await working.close();
  }
});

test('an overloaded or rate-limiting provider is waited for, and the task completes', async () => {
  const script = shopScript(site.origin);
  const llm = await startLlmServer([
    { status: 503, body: { error: { message: 'overloaded' } } },
    { status: 429, body: { error: { message: 'Rate limit reached' } }, headers: { 'retry-after': '1' } },
    ...script,
  ]);
  try {
    const { panel } = await openShop();
    await assertShopTaskSucceeds(panel, llm);
    assert.equal(llm.requests.length, script.length + 2);
  } finally {
    await llm.close();
  }
});

test('a local server that refuses the extension is explained (Ollama origins)', async () => {
  const refusing = await startLlmServer([{ status: 403, empty: true }]);
  try {
    await useModel(refusing.baseUrl);
    const { panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    await panel.locator('.error').waitFor({ timeout: TIMEOUT });
    assert.match(await panel.locator('.error').textContent(), /refused the extension \(HTTP 403\)\. Ollama accepts browser extensions only when started with OLLAMA_ORIGINS=chrome-extension:\/\/\*/);
  } finally {
    await refusing.close();
  }
});

test('a provider that does not answer in time is tried again, then reported', async () => {
  const llm = await startLlmServer([{ hang: true }, { hang: true }, { hang: true }]);
  try {
    const { panel } = await openShop();
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 5, requestTimeoutSeconds: 1, planningInterval: 0 });
    await sendTask(panel, SHOP_TASK);
    await panel.locator('.error').waitFor({ timeout: TIMEOUT });
    assert.match(await panel.locator('.error').textContent(), /Could not reach the model provider at .* \(no answer within 1 s\)/);
    // The streamed try, then the plain path's two tries.
    assert.equal(llm.requests.length, 3);
    await waitUntil(() => llm.stats.aborted === 3);
  } finally {
    await llm.close();
  }
});

test('replies that are not valid JSON end the task with a clear message', async () => {
  // Only a server that ignores the schema it was sent can answer so.
  const llm = await startLlmServer(['Sure, I will click it.', '{"action": [', 'no', 'nope', '{}', '{"x": 1}'].map((raw) => ({ raw, unconstrained: true })));
  try {
    await useModel(llm.baseUrl);
    const { panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    const error = panel.locator('.error');
    await error.waitFor({ timeout: TIMEOUT });
    assert.match(await error.textContent(), /stopped after 3 failed steps in a row.*reply could not be used.*structured JSON output/);
    assert.equal(await panel.locator('.step li.failed').count(), 3);
    // The model was told what was wrong before the next try.
    assert.match(llm.requests[1].messages.at(-2).content, /Your reply could not be used: the reply contains no JSON object/);
  } finally {
    await llm.close();
  }
});

test('stop cancels a task while the model is thinking, aborts the request and clears the highlights', async () => {
  const llm = await startLlmServer([{ hang: true }]);
  try {
    await useModel(llm.baseUrl);
    const { page, panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    await panel.locator('.thinking').waitFor({ timeout: TIMEOUT });
    // While the model thinks, the page shows numbered boxes over what it was shown.
    const overlays = () => page.evaluate(() => document.querySelectorAll('agent-highlights').length);
    await waitUntil(async () => (await overlays()) === 1);
    await panel.locator('#stop').click();
    await panel.locator('.notice').waitFor({ timeout: TIMEOUT });
    assert.match(await panel.locator('.notice').textContent(), /Stopped after 1 step/);
    await waitUntil(() => llm.stats.aborted === 1);
    await waitUntil(async () => (await overlays()) === 0);
  } finally {
    await llm.close();
  }
});

test('pause abandons the model call in flight; resume asks again and the task completes', async () => {
  const llm = await startLlmServer([{ hang: true }, ...shopScript(site.origin)]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10, planningInterval: 0 });
    const { page, panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    await panel.locator('.thinking').waitFor({ timeout: TIMEOUT });
    await panel.click('#pause');
    await panel.locator('.paused').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('#pause').textContent(), 'Resume');
    await waitUntil(() => llm.stats.aborted === 1);
    await panel.click('#pause');
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    assert.equal(await page.locator('#cart-count').textContent(), 'Cart: 1 item');
  } finally {
    await llm.close();
  }
});

test('ask before acting: each step waits in the panel, and a retry sends the agent back', async () => {
  const llm = await startLlmServer([
    { actions: [{ go_to_url: { url: 'https://evil.invalid/' } }] }, // sent back by the user
    ...shopScript(site.origin),
  ]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10, planningInterval: 0, askBeforeActing: true });
    const { page, panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    const review = (n) => panel.locator('.review').nth(n);
    await review(0).waitFor({ timeout: TIMEOUT });
    assert.match(await review(0).locator('li').textContent(), /evil\.invalid/);
    await review(0).locator('.feedback').fill('stay on the shop');
    await review(0).locator('button.retry').click();
    for (let n = 1; n <= 4; n++) {
      await review(n).waitFor({ timeout: TIMEOUT });
      await review(n).locator('button.run').click();
    }
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    assert.equal(await page.locator('#cart-count').textContent(), 'Cart: 1 item');
    assert.match(llm.requests[1].messages.at(-1).content, /asks you to reconsider: stay on the shop/);
  } finally {
    await llm.close();
  }
});

test('missing settings bring the setup instead of the chat; incomplete ones are explained in the panel', async () => {
  await applySettings(agent, { baseUrl: '', model: '', apiKey: '', maxSteps: 10 });
  const first = await openShop();
  await first.panel.locator('#setup:not([hidden])').waitFor({ timeout: TIMEOUT });
  assert.equal(await first.panel.locator('#composer').isVisible(), false);
  // A model without the server's address (set on the settings page) is explained when a task starts.
  await applySettings(agent, { baseUrl: '', model: 'llama3.1', apiKey: '', maxSteps: 10 });
  const { panel } = await openShop();
  await sendTask(panel, SHOP_TASK);
  await panel.locator('.error').waitFor({ timeout: TIMEOUT });
  assert.match(await panel.locator('.error').textContent(), /No model provider is set up\. Open the settings/);
});

test('an error no setting fixes offers to try the task again, and trying again runs it', async () => {
  // A server that ignores the schema it was sent (no structured output) answers in prose.
  const nonsense = { raw: 'I cannot answer in JSON today.', unconstrained: true };
  const llm = await startLlmServer([nonsense, nonsense, nonsense, nonsense, nonsense, nonsense, ...shopScript(site.origin)]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10, planningInterval: 0, validator: false });
    const { panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    const error = panel.locator('.error');
    await error.waitFor({ timeout: TIMEOUT });
    assert.match(await error.textContent(), /stopped after 3 failed steps/);
    assert.equal(await error.locator('button.fix').count(), 0);
    await error.locator('button.retry').click();
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    assert.equal(await panel.locator('.user').count(), 2, 'the task was sent again');
  } finally {
    await llm.close();
  }
});

test('the settings page reaches the worker by the same port: it is greeted, and its questions are answered to it by ref', async () => {
  await useModel('http://127.0.0.1:9/v1');
  const options = await agent.context.newPage();
  try {
    await options.goto(agent.extensionUrl('extension/options/options.html'));
    const heard = await options.evaluate(() => new Promise((resolve) => {
      const messages = [];
      const port = chrome.runtime.connect({ name: 'agent-panel' });
      port.onDisconnect.addListener(() => resolve({ messages, disconnected: true }));
      port.onMessage.addListener((m) => {
        messages.push(m);
        if (m.ref === 'q1') resolve({ messages, disconnected: false });
      });
      port.postMessage({ v: 1, type: 'get_settings', ref: 'q1' });
    }));
    assert.equal(heard.disconnected, false);
    assert.equal(heard.messages[0].type, 'hello');
    const answer = heard.messages.at(-1);
    assert.equal(answer.type, 'settings');
    assert.equal(answer.settings.baseUrl, 'http://127.0.0.1:9/v1');
  } finally {
    await options.close();
  }
});

test('the options page validates with the core and saves (the key apart from chrome.storage.local)', async () => {
  const options = await agent.context.newPage();
  await options.goto(agent.extensionUrl('extension/options/options.html'));
  await options.fill('#baseUrl', 'ftp://example.com');
  await options.fill('#model', 'gpt-4o-mini');
  await options.click('button[type=submit]');
  await options.locator('#status.error').waitFor();
  assert.match(await options.locator('#status').textContent(), /not an http\(s\) address/);
  assert.equal(await options.locator('#baseUrl').getAttribute('aria-invalid'), 'true');

  await options.fill('#baseUrl', 'http://localhost:11434/v1');
  await options.fill('#apiKey', 'sk-local');
  await options.fill('#maxSteps', '12');
  await options.click('button[type=submit]');
  await waitUntil(async () => (await options.locator('#status').textContent()) === 'Saved.');
  const { provider, baseUrl, model, apiKey, maxSteps, searchEngine, confirmations, trustedInput, temperature } = await storedSettings(agent);
  assert.equal(JSON.stringify(await agent.worker.evaluate(() => chrome.storage.local.get(null))).includes('sk-local'), false);
  assert.deepEqual(
    { provider, baseUrl, model, apiKey, maxSteps, searchEngine, confirmations, trustedInput, temperature },
    {
      provider: 'openai-compatible', baseUrl: 'http://localhost:11434/v1', model: 'gpt-4o-mini', apiKey: 'sk-local',
      maxSteps: 12, searchEngine: 'duckduckgo', confirmations: 'normal', trustedInput: false, temperature: null,
    },
  );

  await options.reload();
  await waitUntil(async () => (await options.locator('#model').inputValue()) === 'gpt-4o-mini');

  // The provider's model list, fetched through the core, becomes the model field's suggestions.
  const llm = await startLlmServer([]);
  try {
    await options.fill('#baseUrl', llm.baseUrl);
    await options.click('#load-models');
    await waitUntil(async () => (await options.locator('#status').textContent()).startsWith('2 models available'));
    const suggested = await options.locator('#model-list option').evaluateAll((list) => list.map((o) => o.value));
    assert.deepEqual(suggested, ['other-model', 'scripted-model']);
  } finally {
    await llm.close();
  }
});


/** Stops the extension's service worker, as Chrome does to an idle one. */
async function stopWorker(page) {
  const cdp = await agent.context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
}

test('what a panel sends as it connects to a worker just started is answered, after the greeting', { timeout: 60_000 }, async () => {
  const { panel } = await openShop();
  await stopWorker(panel);
  // Connecting wakes a new worker, whose core is still loading when the request is sent.
  const answers = await panel.evaluate(() => new Promise((resolve) => {
    const port = chrome.runtime.connect({ name: 'agent-panel' });
    const types = [];
    port.onMessage.addListener((message) => {
      types.push(message.type);
      if (message.type === 'chats') {
        port.disconnect();
        resolve(types);
      }
    });
    port.postMessage({ v: 1, type: 'list_chats' });
  }));
  assert.deepEqual(answers.filter((type) => type !== 'app_pairing'), ['hello', 'chats']);
});

test('a task survives the browser stopping the service worker mid-task: it resumes where it was', async () => {
  // Step 1 runs; the first request for step 2 never returns: the worker is stopped while it waits.
  const [first, ...rest] = shopScript(site.origin);
  const llm = await startLlmServer([first, { hang: true }, ...rest]);
  try {
    await useModel(llm.baseUrl);
    const { page, panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    await waitUntil(async () => llm.requests.length === 2);
    await stopWorker(panel);

    const resumed = panel.locator('.resumed');
    await resumed.waitFor({ timeout: TIMEOUT });
    assert.equal(await resumed.textContent(), "The browser restarted the extension's background worker; the task continues from step 2.");
    await panel.locator('.answer').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The cart total is $14.50');
    assert.equal(await page.locator('#cart-items').textContent(), 'Blue mug');
    assert.equal(await panel.locator('.error').count(), 0);
    // Step 2 was asked again by the new worker, with the history of step 1.
    const again = llm.requests[2].messages;
    assert.match(again.at(-1).content, /^Current step: 2 of 10\nResults of your previous actions:\n- go_to_url: Opened/);
    assert.equal(again.filter((m) => m.content.startsWith('Your task:')).length, 1);
    assert.ok(again.some((m) => m.role === 'assistant' && m.content.includes('Open the mugs page')));
    assert.match(llm.requests[3].messages.at(-1).content, /^Current step: 3 of 10/);
    // The checkpoint is gone once the task is over.
    const saved = await agent.worker.evaluate(async () => Object.keys(await chrome.storage.session.get(null)));
    assert.deepEqual(saved.filter((key) => key.startsWith('task:')), []);
    // The chat in the History keeps the steps from before the restart too.
    const stored = await agent.worker.evaluate(async () => {
      const all = await chrome.storage.local.get(null);
      return Object.entries(all).filter(([key]) => key.startsWith('chat:')).map(([, chat]) => chat);
    });
    const chat = stored.find((c) => c.events.some((e) => e.type === 'task_resumed'));
    const steps = chat.events.filter((e) => e.type === 'step').map((e) => e.step);
    assert.deepEqual(steps, [1, 2, 3, 4]);
  } finally {
    await llm.close();
  }
});

test('a task whose tab closed while the worker was stopped ends with the user told, and the next task runs', async () => {
  const hanging = await startLlmServer([{ hang: true }]);
  const working = await startLlmServer(shopScript(site.origin));
  try {
    await useModel(hanging.baseUrl);
    const { page, panel } = await openShop();
    await sendTask(panel, SHOP_TASK);
    await waitUntil(async () => hanging.requests.length === 1);
    await page.close();
    await stopWorker(panel);

    const error = panel.locator('.error');
    await error.waitFor({ timeout: TIMEOUT });
    assert.match(await error.textContent(), /tab .*closed/i);
    assert.equal(await panel.locator('#stop').isHidden(), true);

    const { panel: next } = await openShop();
    await assertShopTaskSucceeds(next, working);
  } finally {
    await hanging.close();
    await working.close();
  }
});
