// Tokens per step against items collected: the 200-item catalogue (tests/sites/list, 10 pages)
// collected by the scripted model into a CSV file of the notebook with append_file, and, for
// comparison, kept in the model's memory field instead. Counted by the extension with the o200k
// vocabulary (model gpt-4o), from the run record. Older steps are summarised every 4 steps (every
// 10 by default), which bounds what the conversation adds; the memory field cannot be summarised
// away, the file's rows never join the conversation.
// Usage: ./build.sh bench notebook
// Prints a markdown table for the README.

import { launchAgentBrowser } from '../runner/launch.mjs';
import { startSiteServer } from '../tests/support/site-server.mjs';
import { CATALOGUE_TASK, appendPage, rememberPage, steps } from '../tests/support/catalogue.mjs';
import { scriptedRecord } from './scripted-run.mjs';

const RUNS = [
  { label: 'notebook, full', decide: appendPage, settings: { maxInputTokens: 0, requestStyle: 'full' } },
  { label: 'notebook, compact', decide: appendPage, settings: { maxInputTokens: 4096, requestStyle: 'auto' } },
  { label: 'memory field, full', decide: rememberPage, settings: { maxInputTokens: 0, requestStyle: 'full' } },
];

const site = await startSiteServer();
const agent = await launchAgentBrowser();
try {
  const columns = [];
  for (const run of RUNS) {
    const task = { url: `${site.origin}/list/?page=1`, task: CATALOGUE_TASK, script: steps(10, run.decide) };
    const record = await scriptedRecord(agent, task, { ...run.settings, maxSteps: 20, memoryInterval: 4 });
    columns.push(record.steps.map((step) => step.requests.filter((r) => r.role === 'navigator').reduce((sum, r) => sum + r.tokens, 0)));
  }
  const rows = columns[0].map((_, i) => `| ${i + 1} | ${i * 20} | ${columns.map((c) => c[i] ?? '').join(' | ')} |`);
  process.stdout.write([
    'Navigator tokens per step (o200k) against the items collected before it, 200 items on 10 pages:',
    '',
    `| step | items collected | ${RUNS.map((r) => r.label).join(' | ')} |`,
    `|---:|---:|${RUNS.map(() => '---:').join('|')}|`,
    ...rows,
    '',
  ].join('\n'));
} finally {
  await agent.close();
  await site.close();
}
