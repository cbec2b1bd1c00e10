// Trusted input: on a page that accepts only real input, synthetic events are ignored (and the
// page's state shows it); with trusted input on (the optional debugger permission granted), the
// same actions work.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchAgentBrowser, applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';

const site = await startSiteServer();
after(() => site.close());

const script = [
  { actions: [{ click_element: { target: 'Press me' } }] },
  { actions: [{ input_text: { target: 'label=Code', text: '4242' } }, { send_keys: { keys: 'Enter' } }] },
  { actions: [{ done: { text: 'finished', success: true } }] },
];

async function runOn(agent, trustedInput) {
  const llm = await startLlmServer(script);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 5, highlights: false, trustedInput });
    const target = await openTarget(agent, `${site.origin}/actions/trusted.html`);
    const panel = await openPanel(agent, target.tabId);
    const end = await runTask(panel, { task: 'press, type the code and send it', tabId: target.tabId });
    return { end, page: target.page };
  } finally {
    await llm.close();
  }
}

test('without trusted input, a page that checks isTrusted ignores the synthetic events', async () => {
  const agent = await launchAgentBrowser();
  try {
    const { end, page } = await runOn(agent, false);
    assert.equal(end.type, 'result');
    assert.equal(await page.locator('#presses').textContent(), '0');
    assert.equal(await page.locator('#sent').textContent(), '');
  } finally {
    await agent.close();
  }
});

test('with trusted input and the debugger permission, the same clicks, typing and keys work', async () => {
  const agent = await launchAgentBrowser({ grant: ['debugger'] });
  try {
    const { end, page } = await runOn(agent, true);
    assert.equal(end.type, 'result', JSON.stringify(end));
    assert.equal(await page.locator('#presses').textContent(), '1');
    assert.equal(await page.locator('#code').inputValue(), '4242');
    assert.equal(await page.locator('#sent').textContent(), 'Sent 4242');
  } finally {
    await agent.close();
  }
});

test('trusted input without the permission fails with a message that says how to fix it', async () => {
  const agent = await launchAgentBrowser();
  try {
    const llm = await startLlmServer([script[0], script[0], script[0]]);
    try {
      await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 5, trustedInput: true });
      const target = await openTarget(agent, `${site.origin}/actions/trusted.html`);
      const panel = await openPanel(agent, target.tabId);
      const end = await runTask(panel, { task: 'press', tabId: target.tabId });
      assert.equal(end.type, 'error');
      assert.match(end.message, /trusted input needs the debugger permission: turn trusted input off and on again in the settings/);
    } finally {
      await llm.close();
    }
  } finally {
    await agent.close();
  }
});
