// Request sizes: what each navigator request of a task carries, in full and in compact form, on
// the shop task and on a 1,500-row page, run by the scripted model (the sizes are the agent's,
// not the model's). Counted by the extension with the o200k vocabulary (model gpt-4o).
// Usage: ./build.sh bench requests
// Prints a markdown table for the README.

import { launchAgentBrowser, applySettings, openTarget, openPanel, runTask } from '../runner/launch.mjs';
import { startLlmServer } from '../tests/support/llm-server.mjs';
import { startSiteServer } from '../tests/support/site-server.mjs';
import { ROWS_TASK, SHOP_TASK, rowsScript, shopScript } from '../tests/support/fixtures.mjs';
import { median } from '../runner/eval/stats.mjs';

const STYLES = [
  { label: 'full', settings: { maxInputTokens: 0, requestStyle: 'full' } },
  { label: 'compact, 4,096 budget', settings: { maxInputTokens: 4096, requestStyle: 'auto' } },
];
const PARTS = ['instructions', 'schema', 'state_header', 'page_lines', 'history', 'task', 'plan'];

/** The navigator requests of one run of `task` from `url`, as its record gives them. */
async function navigatorRequests(agent, { url, task, script }, settings) {
  const llm = await startLlmServer(script);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'gpt-4o', maxSteps: 10, planningInterval: 3, ...settings });
    const { page, tabId } = await openTarget(agent, url);
    const panel = await openPanel(agent, tabId);
    let record = null;
    const end = await runTask(panel, { task, tabId, onEvent: (e) => { if (e.type === 'run_recorded') record = e.record; } });
    if (end.type !== 'result' || !end.success) throw new Error(`the ${task} task did not succeed: ${JSON.stringify(end)}`);
    await Promise.all([page.close(), panel.close()]);
    return record.steps.flatMap((step) => step.requests).filter((r) => r.role === 'navigator');
  } finally {
    await llm.close();
  }
}

const site = await startSiteServer();
const agent = await launchAgentBrowser();
try {
  const tasks = [
    { name: 'shop', url: `${site.origin}/shop/`, task: SHOP_TASK, script: shopScript(site.origin) },
    { name: '1,500 rows', url: `${site.origin}/memory/rows.html?rows=1500`, task: ROWS_TASK, script: rowsScript() },
  ];
  const rows = [];
  for (const task of tasks) {
    for (const style of STYLES) {
      const requests = await navigatorRequests(agent, task, style.settings);
      const cells = PARTS.map((part) => Math.round(median(requests.map((r) => r.split[part]))));
      rows.push(`| ${task.name} | ${style.label} | ${Math.round(median(requests.map((r) => r.tokens)))} | ${cells.join(' | ')} |`);
    }
  }
  process.stdout.write([
    'Median tokens per navigator request (o200k), by what they carry:',
    '',
    `| task | requests | total | ${PARTS.map((p) => p.replace('_', ' ')).join(' | ')} |`,
    `|---|---|---:|${PARTS.map(() => '---:').join('|')}|`,
    ...rows,
    '',
  ].join('\n'));
} finally {
  await agent.close();
  await site.close();
}
