// One task on a test page through the whole extension, its model scripted: the page served, the
// agent's browser and the widget bundles set up once per test file, then each run's steps (what
// the scripted model replies, step by step) followed by done.

import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchAgentBrowser, applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from './llm-server.mjs';
import { startSiteServer } from './site-server.mjs';
import { bundleWidgetApps } from './widget-apps.mjs';

const DONE = { actions: [{ done: { text: 'finished', success: true } }] };

/** The page map a request shows (its last user message). */
export const pageMap = (request) => request.messages.filter((m) => m.role === 'user').at(-1).content;

/** The value a page expression gives, in the page's own world (where the libraries live). */
export const inPage = (page, expression) => page.evaluate(expression);

/**
 * Sets up the file's pages and browser, and returns `run(path, steps, options)`: the task `task`
 * on the page `path` (waited for until its `data-ready` is "yes"), the model replying `steps`
 * then done. It gives the outcomes the agent reported, the page maps the model read, the page,
 * `seen` (both, for a failing assertion's message) and `told` (every request's messages).
 */
export function scriptedPages(task) {
  let agent;
  let site;
  before(async () => {
    await bundleWidgetApps();
    site = await startSiteServer();
    agent = await launchAgentBrowser();
  });
  after(async () => {
    await agent?.close();
    await site?.close();
  });

  return async function run(path, steps, { agentBrowser = agent, trustedInput = false, maxSteps = 12 } = {}) {
    const llm = await startLlmServer([...steps, DONE]);
    try {
      await applySettings(agentBrowser, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps, highlights: false, trustedInput });
      const target = await openTarget(agentBrowser, `${site.origin}/${path}`);
      await target.page.waitForFunction(() => document.body.dataset.ready === 'yes', null, { timeout: 10000 });
      const panel = await openPanel(agentBrowser, target.tabId);
      const events = [];
      const end = await runTask(panel, { task, tabId: target.tabId, onEvent: (e) => events.push(e) });
      await panel.close();
      const outcomes = events.filter((e) => e.type === 'step').flatMap((e) => e.actions.map((a) => a.outcome));
      const states = llm.requests.map(pageMap);
      const seen = `outcomes:\n${outcomes.join('\n')}\nlast page map:\n${states.at(-1)}`;
      assert.equal(end.type, 'result', `the task ended with ${JSON.stringify(end)}\n${seen}`);
      const told = llm.requests.map((r) => r.messages.map((m) => m.content).join('\n'));
      return { outcomes, states, page: target.page, seen, told };
    } finally {
      await llm.close();
    }
  };
}
