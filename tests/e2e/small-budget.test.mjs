// Small local models: with a 4,096-token budget every request of a task fits, counted by an
// independent o200k tokenizer, in compact form; a budget too small for any request is refused
// before the task starts, by the settings page and by the runner, with the minimum named.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applySettings, openTarget, runTask, openPanel } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { requestTokens, tokens } from '../support/tokens.mjs';
import { ROWS_TASK, SHOP_TASK, rowsScript, shopScript, runRunner, withSiteAndBrowser } from '../support/fixtures.mjs';

const BUDGET = 4096;
let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

/** Runs `task` from `url` under the small budget; returns the end, the model's requests and the record. */
async function runSmall(llm, model, url, task) {
  await applySettings(agent, { baseUrl: llm.baseUrl, model, maxSteps: 10, maxInputTokens: BUDGET, planningInterval: 3 });
  const { page, tabId } = await openTarget(agent, url);
  const panel = await openPanel(agent, tabId);
  let record = null;
  const end = await runTask(panel, { task, tabId, onEvent: (e) => { if (e.type === 'run_recorded') record = e.record; } });
  const all = [...llm.requests, ...llm.plans, ...llm.validations, ...llm.summaries];
  return { end, page, all, record };
}

function assertFitsCompact({ all, record }, navigatorRequests) {
  assert.equal(navigatorRequests.length, record.steps.length);
  for (const request of all) {
    const used = requestTokens(request);
    assert.ok(used <= BUDGET, `a "${request.messages[0].content.slice(0, 40)}…" request has ${used} tokens`);
  }
  // Compact: the short instructions with one line per action, and the reply schema in outline.
  for (const request of navigatorRequests) {
    assert.match(request.messages[0].content, /^You are a browser agent doing the user's task/);
    assert.match(request.messages[0].content, /\nclick_element\{index: N, click\?: double\|right\}\n/);
    assert.equal(request.raw.response_format.json_schema.strict, false);
    assert.ok(tokens(request.messages[0].content) < 600);
  }
  // The record tells where each request's tokens went.
  const sizes = record.steps.flatMap((step) => step.requests);
  assert.ok(sizes.length >= all.length - 1, 'every request is recorded (the last validation may follow the record)');
  for (const size of sizes) {
    assert.equal(size.style, 'compact');
    assert.equal(Object.values(size.split).reduce((a, b) => a + b, 0), size.tokens);
    assert.ok(size.tokens <= BUDGET);
  }
}

test('the shop task completes with a local model in 4,096 tokens a request', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  try {
    const run = await runSmall(llm, 'qwen2.5:7b', `${site.origin}/shop/`, SHOP_TASK);
    assert.equal(run.end.type, 'result', JSON.stringify(run.end));
    assert.equal(run.end.text, 'The cart total is $14.50');
    assert.match(await run.page.locator('#cart-total').textContent(), /\$14\.50/);
    assert.equal(llm.requests.length, 4);
    assert.ok(run.all.length > llm.requests.length, 'the planner and the validator were asked too');
    assertFitsCompact(run, llm.requests);
  } finally {
    await llm.close();
  }
});

test('a task on a 1,500-row page completes in 4,096 tokens a request', async () => {
  const llm = await startLlmServer(rowsScript());
  try {
    const run = await runSmall(llm, 'gpt-4o', `${site.origin}/memory/rows.html?rows=1500`, ROWS_TASK);
    assert.equal(run.end.type, 'result', JSON.stringify(run.end));
    assert.equal(run.end.text, 'Added 3 of Item 1234');
    // The page's real state: the quantity typed and the button pressed once.
    assert.equal(await run.page.locator('input[name="qty1234"]').inputValue(), '3');
    assert.equal(await run.page.locator('#r1234 button').getAttribute('data-n'), '1');
    assertFitsCompact(run, llm.requests);
    // An OpenAI model's requests are counted exactly, with the o200k vocabulary the extension loads.
    const counted = run.record.steps.flatMap((step) => step.requests).filter((r) => r.role === 'navigator');
    assert.deepEqual(counted.map((r) => r.tokens), llm.requests.map(requestTokens));
    // The page is the largest part of each request after the instructions (since issue 33 the
    // map of a screenful of rows is shorter than them), and the whole screenful is shown.
    for (const { split } of run.record.steps.flatMap((step) => step.requests).filter((r) => r.role === 'navigator')) {
      const others = Object.entries(split).filter(([part]) => !['page_lines', 'instructions'].includes(part)).map(([, tokens]) => tokens);
      assert.ok(split.page_lines > Math.max(...others), JSON.stringify(split));
    }
    for (const request of llm.requests) assert.doesNotMatch(request.messages.at(-1).content, /were cut to fit the token budget/);
  } finally {
    await llm.close();
  }
});

test('a budget too small for any request is refused with the minimum named, by the runner and the settings page', async () => {
  const llm = await startLlmServer([]);
  try {
    const refused = await runRunner(['--task', 'x', '--base-url', llm.baseUrl, '--model', 'qwen2.5:7b', '--max-input-tokens', '2000']);
    assert.equal(refused.code, 2, refused.stderr);
    const [, minimum] = refused.stderr.match(/with compact requests, qwen2\.5:7b needs at least (\d+) tokens/) ?? [];
    assert.ok(Number(minimum) > 2000 && Number(minimum) <= BUDGET, refused.stderr);
    assert.match(refused.stderr, /\(--max-input-tokens\)$/m);
    assert.equal(llm.requests.length + llm.plans.length, 0, 'no task started');

    const page = await agent.context.newPage();
    await page.goto(agent.extensionUrl('extension/options/options.html'));
    await page.locator('#fields:not([disabled])').waitFor();
    await page.fill('#baseUrl', llm.baseUrl);
    await page.fill('#model', 'qwen2.5:7b');
    await page.fill('#maxInputTokens', '2000');
    await page.click('button[type="submit"]');
    await page.locator('#maxInputTokens[aria-invalid="true"]').waitFor();
    assert.match(await page.locator('#status').textContent(), new RegExp(`needs at least ${minimum} tokens`));
    // The minimum itself is taken.
    await page.fill('#maxInputTokens', minimum);
    await page.click('button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#status').textContent === 'Saved.');
    await page.close();
  } finally {
    await llm.close();
  }
});
