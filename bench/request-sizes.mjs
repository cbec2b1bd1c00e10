// Request sizes: what each request of a task carries, in full and in compact form, on the shop task
// and on a 1,500-row page, run by the scripted model (the sizes are the agent's, not the model's).
// Counted by the extension with the o200k vocabulary (model gpt-4o: exact counts), and the
// navigator's requests as the model received them counted again with js-tiktoken's o200k, finer:
// the instructions' prose and action catalogue, the schema's action list and the rest, the state
// header and the page lines, the history, step by step.
// Usage: ./build.sh bench requests
// Prints markdown tables for docs/benchmarks.md.

import { fileURLToPath } from 'node:url';
import { launchAgentBrowser } from '../runner/launch.mjs';
import { startSiteServer } from '../tests/support/site-server.mjs';
import { replySchema } from '../tests/support/llm-server.mjs';
import { tokens } from '../tests/support/tokens.mjs';
import { exactTokens } from './page-map.mjs';
import { fixtureTasks, scriptedRun } from './scripted-run.mjs';
import { median } from '../runner/eval/stats.mjs';

const STYLES = [
  { label: 'full', settings: { maxInputTokens: 0, requestStyle: 'full' } },
  { label: 'compact, 4,096 budget', settings: { maxInputTokens: 4096, requestStyle: 'auto' } },
];
const PARTS = ['instructions', 'schema', 'state_header', 'page_lines', 'history', 'task', 'plan'];
const AGENTS = ['navigator', 'planner', 'validator', 'memory', 'extraction'];

/** The system prompt's action catalogue: the list under its "Actions ...:" line, one line an
 * action (`name{params}: help` in full, `name{params}` compact). */
function splitInstructions(system) {
  const lines = system.split('\n');
  const heading = lines.findIndex((l) => /^Actions\b.*:$/.test(l));
  if (heading < 0) throw new Error('the instructions have no action catalogue heading: the bench needs updating');
  let end = heading + 1;
  while (end < lines.length && /^[a-z_]+\{/.test(lines[end])) end += 1;
  const catalogue = lines.slice(heading + 1, end).join('\n');
  const prose = [...lines.slice(0, heading + 1), ...lines.slice(end)].join('\n');
  return { catalogue, prose, actions: end - heading - 1 };
}

/** The state message: its page lines (inside <page_content>) and the rest, its header. */
function splitState(state) {
  const start = state.indexOf('<page_content>');
  const end = state.indexOf('</page_content>');
  if (start < 0 || end < 0) return { header: state, page: '' };
  const close = end + '</page_content>'.length;
  return { header: state.slice(0, start) + state.slice(close), page: state.slice(start, close) };
}

/** One navigator request as received, in exact o200k tokens by part (message framing left out:
 * 3 tokens a message, 3 priming the reply). */
export function requestParts(request) {
  const [system, ...rest] = request.messages;
  const state = rest.pop();
  const instructions = splitInstructions(system.content);
  const schema = replySchema(request);
  const actionsSchema = schema?.properties?.action ?? null;
  const { header, page } = splitState(state.content);
  const schemaTokens = schema ? tokens(JSON.stringify(schema)) : 0;
  const actionTokens = actionsSchema ? tokens(JSON.stringify(actionsSchema)) : 0;
  return {
    instructions_prose: tokens(instructions.prose),
    catalogue: tokens(instructions.catalogue),
    schema_actions: actionTokens,
    schema_rest: schemaTokens - actionTokens,
    state_header: tokens(header),
    page_lines: tokens(page),
    history: rest.reduce((sum, m) => sum + tokens(m.content), 0),
    messages: request.messages.length,
    actions: instructions.actions,
  };
}

/** A planner's or validator's request as received, in exact o200k tokens by part (framing left
 * out): its instructions, reply schema, what lies between them and the state (the planner's
 * conversation; the validator's task, claimed answer and the planner's view), the state's header
 * and its page lines. */
export function helperRequestParts(request) {
  const [system, ...rest] = request.messages;
  const { header, page } = splitState(rest.pop().content);
  const schema = replySchema(request);
  return {
    instructions: tokens(system.content),
    schema: schema ? tokens(JSON.stringify(schema)) : 0,
    between: rest.reduce((sum, m) => sum + tokens(m.content), 0),
    state_header: tokens(header),
    page_lines: tokens(page),
  };
}

/** Input tokens by agent over a run record's steps, as the extension counted them: per task
 * (the sum), per step (the median over steps where that agent was asked), and calls. */
export function tokensByAgent(record) {
  const rows = [];
  for (const agent of AGENTS) {
    const perStep = record.steps.map((step) => step.requests.filter((r) => r.role === agent))
      .filter((requests) => requests.length)
      .map((requests) => requests.reduce((sum, r) => sum + r.tokens, 0));
    if (!perStep.length) continue;
    rows.push({ agent, calls: record.steps.reduce((n, s) => n + s.requests.filter((r) => r.role === agent).length, 0),
      task: perStep.reduce((a, b) => a + b, 0), step: Math.round(median(perStep)) });
  }
  return rows;
}

const number = (n) => n.toLocaleString('en-US');

/** A request's texts (each message, the reply schema) as counted exactly and by the core's
 * vocabulary-free estimates, summed (message framing left out): `{ o200k, cl100k, estimate,
 * estimate_cl100k }`. */
async function requestCounts(agent, request) {
  const texts = [...request.messages.map((m) => m.content), JSON.stringify(replySchema(request) ?? '')];
  const estimates = await agent.worker.evaluate((texts) => texts.map((t) => globalThis.agentCore.estimateTokens(t)), texts);
  const exact = texts.map(exactTokens);
  const sum = (values, key) => values.reduce((total, v) => total + v[key], 0);
  return { o200k: sum(exact, 'o200k'), cl100k: sum(exact, 'cl100k'), estimate: sum(estimates, 'o200k'), estimate_cl100k: sum(estimates, 'cl100k') };
}

/** `median (min–max)` of `values`, two places. */
const spread = (values) => {
  const r = (x) => (Math.round(x * 100) / 100).toFixed(2);
  return `${r(median(values))} (${r(Math.min(...values))}–${r(Math.max(...values))})`;
};

async function main() {
  const site = await startSiteServer();
  const agent = await launchAgentBrowser();
  try {
    const sizes = [];
    const fine = [];
    const agents = [];
    const steps = [];
    const helpers = [];
    const checked = [];
    for (const task of fixtureTasks(site)) {
      for (const style of STYLES) {
        const { record, requests: received, plans, validations } = await scriptedRun(agent, task, style.settings);
        const requests = record.steps.flatMap((step) => step.requests).filter((r) => r.role === 'navigator');
        const counted = [...new Set(record.steps.flatMap((step) => step.requests).map((r) => r.counted))].join(', ');
        const cells = PARTS.map((part) => Math.round(median(requests.map((r) => r.split[part]))));
        sizes.push(`| ${task.name} | ${style.label} | ${Math.round(median(requests.map((r) => r.tokens)))} | ${cells.join(' | ')} |`);
        const byAgent = tokensByAgent(record);
        const total = byAgent.reduce((sum, row) => sum + row.task, 0);
        agents.push(...byAgent.map((row) => `| ${task.name} | ${style.label} | ${row.agent} | ${row.calls} | ${number(row.step)} | ${number(row.task)} |`),
          `| ${task.name} | ${style.label} | **all** (${counted}) | ${byAgent.reduce((n, r) => n + r.calls, 0)} | | **${number(total)}** |`);
        const navigator = received.filter((r) => r.raw?.response_format?.json_schema?.name === 'navigator_output').map(requestParts);
        const fixed = navigator.map((p) => p.instructions_prose + p.catalogue + p.schema_actions + p.schema_rest + p.state_header);
        const med = (key) => Math.round(median(navigator.map((p) => p[key])));
        fine.push(`| ${task.name} | ${style.label} | ${navigator[0].actions} | ${med('instructions_prose')} | ${med('catalogue')} | ${med('schema_actions')} | ${med('schema_rest')} | ${med('state_header')} | **${Math.round(median(fixed))}** | ${med('page_lines')} | ${med('history')} |`);
        for (const request of received) checked.push(await requestCounts(agent, request));
        steps.push(`| ${task.name} | ${style.label} | ${navigator.map((p, i) => `${i + 1}: ${p.history}`).join(', ')} |`);
        for (const [agentName, calls] of [['planner', plans], ['validator', validations]]) {
          calls.map(helperRequestParts).forEach((p, i) => helpers.push(`| ${task.name} | ${style.label} | ${agentName} ${i + 1} | ${p.instructions} | ${p.schema} | ${p.between} | ${p.state_header} | ${p.page_lines} | **${p.instructions + p.schema + p.between + p.state_header + p.page_lines}** |`));
        }
      }
    }
    process.stdout.write([
      'Median tokens per navigator request (o200k, counted by the extension), by what they carry:',
      '',
      `| task | requests | total | ${PARTS.map((p) => p.replace('_', ' ')).join(' | ')} |`,
      `|---|---|---:|${PARTS.map(() => '---:').join('|')}|`,
      ...sizes,
      '',
      'The navigator request as the model received it, exact o200k (js-tiktoken), median by part; the fixed part is instructions, catalogue, schema and state header; the history here holds the task and the plan:',
      '',
      '| task | requests | actions | instructions, prose | action catalogue | schema, actions | schema, rest | state header | fixed part | page lines | history, task and plan |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...fine,
      '',
      'History per navigator request, step by step (exact o200k, the messages between the instructions and the state):',
      '',
      '| task | requests | step: history tokens |',
      '|---|---|---|',
      ...steps,
      '',
      'The planner\'s and the validator\'s requests as the model received them, call by call, exact o200k (js-tiktoken, framing left out); between: the planner\'s conversation, or the validator\'s task, claimed answer and the planner\'s view:',
      '',
      '| task | requests | call | instructions | schema | between | state header | page lines | total |',
      '|---|---|---|---:|---:|---:|---:|---:|---:|',
      ...helpers,
      '',
      'Input tokens by agent (counted by the extension; each run succeeded): per step asked (median) and per task (sum):',
      '',
      '| task | requests | agent | calls | per step | per task |',
      '|---|---|---|---:|---:|---:|',
      ...agents,
      '',
      `The vocabulary-free estimate on the ${checked.length} navigator and extraction requests above (their texts, framing left out), median (range):`,
      '',
      '| estimate | of | ratio |',
      '|---|---|---:|',
      `| o200k estimate (no vocabulary) | o200k, exact | ${spread(checked.map((c) => c.estimate / c.o200k))} |`,
      `| gpt-4 estimate (no vocabulary) | cl100k, exact | ${spread(checked.map((c) => c.estimate_cl100k / c.cl100k))} |`,
      `| cl100k, exact | o200k, exact | ${spread(checked.map((c) => c.cl100k / c.o200k))} |`,
      '',
    ].join('\n'));
  } finally {
    await agent.close();
    await site.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
