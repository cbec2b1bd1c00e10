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

test('a tab a real click opens is checked where the page\'s click handler sent it before it loads anything', async () => {
  const attacker = await startSiteServer();
  const agent = await launchAgentBrowser({ grant: ['debugger'] });
  const attackerOrigin = attacker.origin.replace('127.0.0.1', 'localhost');
  /** Clicks `link` on the popup page with trusted input, answering questions with `allow`. */
  const clickWith = async (link, allow, settings = {}) => {
    attacker.requests.length = 0;
    const llm = await startLlmServer([{ actions: [{ click_element: { target: link } }] }, script[2]]);
    try {
      await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 5, highlights: false, trustedInput: true, ...settings });
      const target = await openTarget(agent, `${site.origin}/exfil/popup.html?attacker=${encodeURIComponent(attackerOrigin)}`);
      const panel = await openPanel(agent, target.tabId);
      const questions = [];
      const steps = [];
      const end = await runTask(panel, {
        task: 'Sign me up for the Mug Club newsletter with my email ada@example.org',
        tabId: target.tabId,
        onEvent: (event) => { if (event.type === 'step') steps.push(...event.actions.map((a) => a.outcome)); },
        onApproval: (event) => { questions.push(event.question); return allow; },
      });
      assert.equal(end.type, 'result', JSON.stringify(end));
      const tabs = agent.context.pages().map((page) => page.url());
      await panel.close();
      return { questions, steps, tabs };
    } finally {
      await llm.close();
    }
  };
  try {
    // The handler rewrote the link to carry the address: asked, refused, and nothing reached the attacker.
    const refused = await clickWith('See the partner\'s offer', false);
    assert.match(refused.questions[0] ?? JSON.stringify(refused.steps), /^This would send ada@example\.org \(an email address from your task\) to localhost:\d+, by opening http:\/\/localhost:\d+\/offer\?e=ada%40example\.org in a new tab/);
    assert.deepEqual(attacker.requests, []);
    assert.ok(!refused.tabs.some((url) => url.includes('/offer')), refused.tabs.join(' '));
    // To a denied site: not opened, not asked.
    const denied = await clickWith('Visit the partner', true, { denyList: ['localhost'] });
    assert.deepEqual(denied.questions, []);
    assert.match(denied.steps[0], /The page asked for a new tab at http:\/\/localhost:\d+\/landing, which was not opened: /);
    assert.deepEqual(attacker.requests, []);
    // Carrying nothing of the user's, it opens once checked and allowed (the task holds the
    // user's e-mail, so a first act toward another site asks), and its page loads once: the
    // browser's own first load was held.
    const opened = await clickWith('Visit the partner', true);
    assert.equal(opened.questions.length, 1, opened.questions.join('\n'));
    assert.match(opened.questions[0], /^The task holds your data \(ada@example\.org .*\), and this would act on localhost:\d+, a site outside the task's sites/);
    assert.match(opened.steps[0], /Opened http:\/\/localhost:\d+\/landing in a new tab, t2/);
    assert.deepEqual(attacker.requests.filter((path) => path !== '/favicon.ico'), ['/landing']);
  } finally {
    await agent.close();
    await attacker.close();
  }
});
