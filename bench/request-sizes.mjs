// Request sizes: what each navigator request of a task carries, in full and in compact form, on
// the shop task and on a 1,500-row page, run by the scripted model (the sizes are the agent's,
// not the model's). Counted by the extension with the o200k vocabulary (model gpt-4o).
// Usage: ./build.sh bench requests
// Prints a markdown table for docs/benchmarks.md.

import { launchAgentBrowser } from '../runner/launch.mjs';
import { startSiteServer } from '../tests/support/site-server.mjs';
import { fixtureTasks, scriptedRecord } from './scripted-run.mjs';
import { median } from '../runner/eval/stats.mjs';

const STYLES = [
  { label: 'full', settings: { maxInputTokens: 0, requestStyle: 'full' } },
  { label: 'compact, 4,096 budget', settings: { maxInputTokens: 4096, requestStyle: 'auto' } },
];
const PARTS = ['instructions', 'schema', 'state_header', 'page_lines', 'history', 'task', 'plan'];

const site = await startSiteServer();
const agent = await launchAgentBrowser();
try {
  const rows = [];
  for (const task of fixtureTasks(site)) {
    for (const style of STYLES) {
      const record = await scriptedRecord(agent, task, style.settings);
      const requests = record.steps.flatMap((step) => step.requests).filter((r) => r.role === 'navigator');
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
