// The brain's memory and budget in the whole extension: what each agent is sent, counted with an
// independent o200k tokenizer, on a page whose map alone exceeds a deliberately small budget.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applySettings, openTarget, runTask, openPanel } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { requestTokens, tokens } from '../support/tokens.mjs';
import { SHOP_TASK, shopScript, withSiteAndBrowser } from '../support/fixtures.mjs';

const BUDGET = 4000;
let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

const isState = (m) => m.role === 'user' && /^(Current step: \d+ of \d+|Step \d+\/\d+)\n/.test(m.content);

test('no request exceeds a small budget, even on a page larger than it; older steps become a memory', async () => {
  const scroll = (n) => ({ next_goal: `Look further down (${n})`, actions: [{ scroll: { direction: 'down', pages: 1, index: null } }] });
  const llm = await startLlmServer([
    scroll(1), scroll(2), scroll(3), scroll(4), scroll(5),
    { next_goal: 'Report', actions: [{ done: { text: 'There are 1200 parts in stock.', success: true } }] },
  ]);
  try {
    await applySettings(agent, {
      baseUrl: llm.baseUrl,
      // An OpenAI model name: the extension counts exactly with the o200k vocabulary.
      model: 'gpt-4o',
      maxSteps: 10,
      maxInputTokens: BUDGET,
      planningInterval: 3,
      memoryInterval: 2,
    });
    const { tabId } = await openTarget(agent, `${site.origin}/memory/dense.html`);
    const panel = await openPanel(agent, tabId);
    const events = [];
    const end = await runTask(panel, { task: 'how many parts are in stock?', tabId, onEvent: (e) => events.push(e) });
    assert.equal(end.type, 'result', JSON.stringify(end));
    assert.equal(end.text, 'There are 1200 parts in stock.');

    const all = [...llm.requests, ...llm.plans, ...llm.validations, ...llm.summaries];
    assert.equal(llm.requests.length, 6);
    assert.ok(llm.plans.length >= 3, 'plans at steps 1 and 4 and on the claim of success');
    assert.ok(llm.summaries.length >= 1, 'older steps were summarised');
    for (const request of all) {
      const used = requestTokens(request);
      assert.ok(used <= BUDGET, `a ${request.messages[0].content.slice(0, 30)}… request has ${used} tokens`);
      assert.equal(request.messages.filter((m) => m.role === 'system').length, 1);
      assert.equal(request.messages[0].role, 'system');
    }
    // The page map alone is larger than the budget: it was cut, and the user was told once.
    assert.ok(tokens(llm.requests[0].messages.at(-1).content) < BUDGET);
    assert.match(llm.requests[0].messages.at(-1).content, /more lines of the page were cut to fit the token budget/);
    assert.equal(events.filter((e) => e.type === 'warning' && /input budget \(4000 tokens\)/.test(e.message)).length, 1);

    // A navigator request carries exactly one state message, last.
    for (const request of llm.requests) {
      assert.equal(request.messages.filter(isState).length, 1);
      assert.ok(isState(request.messages.at(-1)));
    }
    // Even this tight, the navigator keeps its latest output (and the memory it wrote in it).
    for (const request of llm.requests.slice(1)) assert.equal(request.messages.at(-2).role, 'assistant');

    // After a summary, the memory stands in for the older steps; the task stays verbatim.
    const memory = events.find((e) => e.type === 'memory');
    assert.ok(memory.tokens_after < memory.tokens_before);
    const later = llm.requests.at(-1).messages.map((m) => m.content);
    assert.ok(later.some((c) => c.startsWith('Memory of the earlier steps (summarised): Summary')));
    assert.equal(later.filter((c) => c.startsWith('Your task: how many parts are in stock?')).length, 1);
    assert.ok(!later.some((c) => c.includes('Look further down (1)')), 'the first step was summarised away');
  } finally {
    await llm.close();
  }
});

test('each agent is sent what it may see: the validator no history, the planner all of it', async () => {
  const llm = await startLlmServer(shopScript(site.origin));
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'gpt-4o-mini', maxSteps: 10, planningInterval: 2 });
    const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, tabId);
    const end = await runTask(panel, { task: SHOP_TASK, tabId });
    assert.equal(end.type, 'result', JSON.stringify(end));

    assert.equal(llm.requests.length, 4);
    for (const request of llm.requests) {
      assert.equal(request.messages.filter((m) => m.role === 'system').length, 1);
      assert.equal(request.messages.filter(isState).length, 1);
      assert.ok(isState(request.messages.at(-1)));
    }
    // Plans at steps 1 and 3, and on the claim of success at step 4.
    assert.equal(llm.plans.length, 3);
    // The planner at step 3 reads everything the navigator kept (the task, the first plan, both
    // outputs and the first step's results), then the state.
    const kept = llm.requests[1].messages.slice(1, -1).map((m) => m.content);
    const planned = llm.plans[1].messages.map((m) => m.content);
    assert.deepEqual(planned.slice(1, kept.length + 1), kept);
    assert.equal(llm.plans[1].messages.length, 1 + kept.length + 2 + 1, '+ the second output and results');
    assert.ok(isState(llm.plans[1].messages.at(-1)));
    // The validator: its instructions, the claim with the planner's latest view, and the page.
    assert.equal(llm.validations.length, 1);
    const [system, claim, state] = llm.validations[0].messages;
    assert.match(system.content, /^You check whether a browser agent/);
    assert.match(claim.content, /^Task: add the blue mug.*The agent's answer: The cart total is \$14\.50.*The planner's assessment/s);
    assert.match(state.content, /^Current browser state:\nCurrent step: 4 of 10/);
    assert.equal(llm.validations[0].messages.length, 3);
  } finally {
    await llm.close();
  }
});
