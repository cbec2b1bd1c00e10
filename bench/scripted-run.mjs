// One run of a fixture task by the scripted model, for the benchmarks that read its run record.

import { applySettings, openTarget, openPanel, runTask } from '../runner/launch.mjs';
import { startLlmServer } from '../tests/support/llm-server.mjs';
import { ROWS_TASK, SHOP_TASK, rowsScript, shopScript } from '../tests/support/fixtures.mjs';

/** The shop task and the rows task on a page of `rows` rows, as served from `site`. */
export function fixtureTasks(site, rows = 1500) {
  return [
    { name: 'shop', url: `${site.origin}/shop/`, task: SHOP_TASK, script: shopScript(site.origin) },
    { name: `${rows.toLocaleString('en-US')} rows`, url: `${site.origin}/memory/rows.html?rows=${rows}`, task: ROWS_TASK, script: rowsScript() },
  ];
}

/** The run record of `task` from `url`, run to success by its `script` with `settings`. */
export async function scriptedRecord(agent, task, settings) {
  return (await scriptedRun(agent, task, settings)).record;
}

/** The same, with the requests as the scripted model received them (see
 * tests/support/llm-server.mjs): the navigator's and extraction's (`requests`), the planner's
 * (`plans`) and the validator's (`validations`). */
export async function scriptedRun(agent, { url, task, script }, settings) {
  const llm = await startLlmServer(script);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'gpt-4o', maxSteps: 10, planningInterval: 3, ...settings });
    const { page, tabId } = await openTarget(agent, url);
    const panel = await openPanel(agent, tabId);
    let record = null;
    const end = await runTask(panel, { task, tabId, onEvent: (e) => { if (e.type === 'run_recorded') record = e.record; } });
    if (end.type !== 'result' || !end.success) throw new Error(`the ${task} task did not succeed: ${JSON.stringify(end)}`);
    await Promise.all([page.close(), panel.close()]);
    return { record, requests: [...llm.requests], plans: [...llm.plans], validations: [...llm.validations] };
  } finally {
    await llm.close();
  }
}
