// The agent's own time per step, outside the model: page map, actions with the settling after
// them, and the rest (checkpoint writes, history, events), from the run records of the shop task
// and of the rows task on a 1,500-row page, each run --runs times by the scripted model.
// Usage: ./build.sh bench steps [--runs N]

import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchAgentBrowser } from '../runner/launch.mjs';
import { startSiteServer } from '../tests/support/site-server.mjs';
import { median } from '../runner/eval/stats.mjs';
import { fixtureTasks, scriptedRecord } from './scripted-run.mjs';

/** For each fixture task run `runs` times: its steps and the medians per step, in ms, of the
 * time outside the model and of its parts. */
export async function stepTimes(agent, site, runs) {
  const rows = [];
  for (const task of fixtureTasks(site)) {
    const steps = [];
    for (let run = 0; run < runs; run++) steps.push(...(await scriptedRecord(agent, task, { planningInterval: 0 })).steps);
    const ms = (pick) => Math.round(median(steps.map((step) => pick(step.timing))));
    const own = (t) => t.step_ms - t.model_ms;
    rows.push({
      task: task.name,
      steps: steps.length,
      outside_model_ms: ms(own),
      page_map_ms: ms((t) => t.page_map_ms),
      actions_ms: ms((t) => t.actions_ms),
      rest_ms: ms((t) => own(t) - t.page_map_ms - t.actions_ms),
    });
  }
  return rows;
}

async function main() {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
  const runs = Number(values.runs);
  const site = await startSiteServer();
  const agent = await launchAgentBrowser();
  try {
    const rows = await stepTimes(agent, site, runs);
    process.stdout.write([
      `Median time per step outside the model, ${runs} runs a task (ms):`,
      '',
      '| task | steps | outside the model | page map | actions and settling | the rest |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map((r) => `| ${r.task} | ${r.steps} | **${r.outside_model_ms}** | ${r.page_map_ms} | ${r.actions_ms} | ${r.rest_ms} |`),
      '',
    ].join('\n'));
  } finally {
    await agent.close();
    await site.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
