// A panic in the core (crate/wasm/src/panic.rs, extension/background/core-restart.js): the task
// under way ends with an error in the panel that says what happened and what to do, it is not
// resumed, and the worker goes on with a fresh core, where the next task completes. The panic is
// a real one, from `Core.panicForTest`, which exists for this test alone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applySettings, openTarget, openPanel } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { SHOP_TASK, shopScript, waitUntil, withSiteAndBrowser } from '../support/fixtures.mjs';

const TIMEOUT = 60_000;
let site;
let agent;
withSiteAndBrowser((started) => ({ site, agent } = started));

async function sendTask(panel, task) {
  await panel.fill('#task', task);
  await panel.press('#task', 'Enter');
}

test('a panic ends the task under way with a clear error, and the next task completes', async () => {
  const waiting = 'wait for a sign that never comes';
  // The first task waits on the model for ever; the second is the shop task.
  const llm = await startLlmServer([{ hang: true }, ...shopScript(site.origin)]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: '', maxSteps: 10, planningInterval: 0 });
    const target = await openTarget(agent, `${site.origin}/shop/`);
    const panel = await openPanel(agent, target.tabId);
    await sendTask(panel, waiting);
    await waitUntil(() => llm.requests.length === 1, TIMEOUT);
    // Its first step's checkpoint is saved: the task could be resumed from it.
    const checkpoints = () => agent.worker.evaluate(async () => Object.keys(await chrome.storage.session.get(null)).filter((key) => key.startsWith('task:')));
    await waitUntil(async () => (await checkpoints()).length === 1, TIMEOUT);

    await agent.worker.evaluate(() => {
      globalThis.panickedCore = globalThis.agentCore;
      globalThis.panickedCore.panicForTest();
    });

    const error = panel.locator('.error');
    await error.waitFor({ timeout: TIMEOUT });
    assert.match(await error.textContent(), new RegExp('^The agent\'s core stopped on an internal error \\(a deliberate panic, for the test of the panic hook, at crate/wasm/src/panic\\.rs:\\d+\\) and was restarted; this task was stopped with it\\. Start the task again; if the error comes back, report it with the task and the page it ran on\\.'));
    assert.equal(await panel.locator('#stop').isHidden(), true, 'the panel no longer shows the task as running');
    // Not resumed: its checkpoint is gone, and the model was not asked again for it.
    await waitUntil(async () => (await checkpoints()).length === 0, TIMEOUT);
    // A fresh core, and the dead one refuses every call.
    await waitUntil(() => agent.worker.evaluate(() => Boolean(globalThis.agentCore) && globalThis.agentCore !== globalThis.panickedCore), TIMEOUT);
    const stale = await agent.worker.evaluate(() => {
      try {
        globalThis.panickedCore.hello();
        return 'answered';
      } catch (err) {
        return err.message;
      }
    });
    assert.equal(stale, 'Invalid stale object from previous Wasm instance');

    await sendTask(panel, SHOP_TASK);
    const answer = panel.locator('.answer');
    await answer.waitFor({ timeout: TIMEOUT });
    assert.equal(await answer.textContent(), 'The cart total is $14.50');
    assert.equal(await target.page.locator('#cart-items').textContent(), 'Blue mug');
    assert.equal(llm.requests.length, 5, 'the panicked task asked once, the shop task four times');
    await panel.close();
  } finally {
    await llm.close();
  }
});
