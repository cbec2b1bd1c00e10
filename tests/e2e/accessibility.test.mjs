// Accessibility checked by axe-core (from node_modules) in the extension's own pages, in light
// and dark themes: the setup, the chat after a run, the History and the settings page must have
// no serious or critical violations.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { SHOP_TASK, shopScript, withSiteAndBrowser } from '../support/fixtures.mjs';

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

/** The serious and critical violations axe finds in `page` as it is now, in both themes. */
async function violations(page) {
  // Evaluated through the debugger, which extension pages' CSP does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const found = [];
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    for (const v of result.violations.filter((v) => ['serious', 'critical'].includes(v.impact))) {
      found.push(`${colorScheme}: ${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(', ')}`);
    }
  }
  return found;
}

test('the setup, the chat, the History and the settings have no serious accessibility violations', async () => {
  const { tabId } = await openTarget(agent, `${site.origin}/shop/`);
  const setup = await openPanel(agent, tabId);
  await setup.locator('#setup:not([hidden])').waitFor();
  await setup.click('#setup-cloud');
  assert.deepEqual(await violations(setup), [], 'setup');
  await setup.close();

  const llm = await startLlmServer(shopScript(site.origin));
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10 });
    const panel = await openPanel(agent, tabId);
    await runTask(panel, { task: SHOP_TASK, tabId });
    await panel.locator('.answer').waitFor();
    assert.deepEqual(await violations(panel), [], 'chat after a run');
    await panel.click('#history-button');
    await panel.locator('#history-list li').first().waitFor();
    assert.deepEqual(await violations(panel), [], 'History');
    await panel.close();
  } finally {
    await llm.close();
  }

  const options = await agent.context.newPage();
  await options.goto(agent.extensionUrl('extension/options/options.html'));
  await options.locator('#fields:not([disabled])').waitFor();
  assert.deepEqual(await violations(options), [], 'settings');
  await options.close();
});
