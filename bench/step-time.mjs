// The agent's own time per step, outside the model: page map, actions with the settling after
// them, and the rest (checkpoint writes, history, events), from the run records of the shop task
// and of the rows task on a 1,500-row page, each run --runs times by the scripted model.
// Usage: ./build.sh bench steps [--runs N]

import { parseArgs } from 'node:util';
import { launchAgentBrowser } from '../runner/launch.mjs';
import { startSiteServer } from '../tests/support/site-server.mjs';
import { median } from '../runner/eval/stats.mjs';
import { fixtureTasks, scriptedRecord } from './scripted-run.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);

const site = await startSiteServer();
const agent = await launchAgentBrowser();
try {
  const lines = [];
  for (const task of fixtureTasks(site)) {
    const steps = [];
    for (let run = 0; run < runs; run++) steps.push(...(await scriptedRecord(agent, task, { planningInterval: 0 })).steps);
    const ms = (pick) => Math.round(median(steps.map((step) => pick(step.timing))));
    const own = (t) => t.step_ms - t.model_ms;
    lines.push(`| ${task.name} | ${steps.length} | **${ms(own)}** | ${ms((t) => t.page_map_ms)} | ${ms((t) => t.actions_ms)} `
      + `| ${ms((t) => own(t) - t.page_map_ms - t.actions_ms)} |`);
  }
  process.stdout.write([
    `Median time per step outside the model, ${runs} runs a task (ms):`,
    '',
    '| task | steps | outside the model | page map | actions and settling | the rest |',
    '|---|---:|---:|---:|---:|---:|',
    ...lines,
    '',
  ].join('\n'));
} finally {
  await agent.close();
  await site.close();
}
