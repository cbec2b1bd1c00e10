// The evaluation's reports: report.md (to paste in an issue) and report.html (charts drawn as
// inline SVG, no network), both from results.jsonl.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { median, wilson } from './stats.mjs';

export const CATEGORIES = {
  model_error: 'model error',
  element_not_found: 'element not found',
  refused_by_safety: 'refused by safety',
  step_limit: 'step or time limit',
  wrong_answer: 'wrong answer',
  crashed: 'crashed',
  data_left: 'data left (attack not stopped)',
  consequence: 'consequence the user did not ask for (attack not stopped)',
  asked_too_often: 'asked the user too often',
};

const percent = (x) => `${(100 * x).toFixed(1)}%`;
const dollars = (x) => (x === null ? '–' : `$${x.toFixed(4)}`);
const seconds = (ms) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);

/** The figures of a set of results, overall and per task (in suite order). */
export function summarize(results) {
  const successes = results.filter((r) => r.success).length;
  const costs = results.map((r) => r.cost).filter((c) => c !== null);
  const byTask = new Map();
  for (const result of results) {
    if (!byTask.has(result.id)) byTask.set(result.id, []);
    byTask.get(result.id).push(result);
  }
  const categories = Object.fromEntries(Object.keys(CATEGORIES).map((c) => [c, 0]));
  for (const r of results) if (r.failure) categories[r.failure.category] += 1;
  return {
    runs: results.length,
    successes,
    rate: results.length ? successes / results.length : 0,
    ci: wilson(successes, results.length),
    categories,
    tokens: results.reduce((sum, r) => sum + r.tokens.input + r.tokens.output, 0),
    cost: costs.length ? costs.reduce((a, b) => a + b, 0) : null,
    medianSteps: median(results.map((r) => r.steps)),
    medianMs: median(results.map((r) => r.duration_ms)),
    safety: safetyFigures(results),
    input: inputFigures(results),
    groups: groupFigures(results),
    tasks: [...byTask].map(([id, runs]) => {
      const taskCosts = runs.map((r) => r.cost).filter((c) => c !== null);
      return {
        id,
        runs: runs.length,
        successes: runs.filter((r) => r.success).length,
        medianSteps: median(runs.map((r) => r.steps)),
        medianCost: taskCosts.length ? median(taskCosts) : null,
        medianMs: median(runs.map((r) => r.duration_ms)),
        failures: runs.filter((r) => r.failure).map((r) => r.failure),
        records: runs.map((r) => r.record).filter(Boolean),
        films: runs.map((r) => r.film).filter(Boolean),
      };
    }),
  };
}

/** Success by group (a benchmark's task family, each over its seeds), in order of first run, with
 * each rate's 95% Wilson interval; none when no result has a group. */
function groupFigures(results) {
  const byGroup = new Map();
  for (const r of results.filter((result) => result.group)) {
    if (!byGroup.has(r.group)) byGroup.set(r.group, { group: r.group, runs: 0, successes: 0 });
    const figures = byGroup.get(r.group);
    figures.runs += 1;
    figures.successes += r.success ? 1 : 0;
  }
  return [...byGroup.values()].map((g) => ({ ...g, rate: g.successes / g.runs, ci: wilson(g.successes, g.runs) }));
}

/** The groups as a markdown table (none for a suite without groups). */
function groupTable(summary, meta) {
  if (!summary.groups.length) return [];
  return [
    `| ${meta.group_label ?? 'group'} | solved | rate | 95% CI |`,
    '|---|---:|---:|---|',
    ...summary.groups.map((g) => `| ${g.group} | ${g.successes}/${g.runs} | ${percent(g.rate)} | ${percent(g.ci[0])}–${percent(g.ci[1])} |`),
    '',
  ];
}

const AGENTS = ['navigator', 'planner', 'validator', 'memory', 'extraction'];

/**
 * Input tokens by agent, medians over runs: per step (the agent's input over the run's steps, in
 * runs that asked it) and per successful task, as the extension counted each request it sent
 * (`kind`: `o200k` or `cl100k` when exact, else `estimate`), and per successful task as the
 * provider reported them.
 */
export function inputFigures(results) {
  const runs = results.filter((r) => r.tokens?.counted);
  const successes = runs.filter((r) => r.success);
  const counted = (r, agent) => (agent ? r.tokens.counted.by_agent[agent]?.input : r.tokens.counted.input);
  const reported = (r, agent) => (agent ? r.tokens.by_agent?.[agent]?.input : r.tokens.input);
  const round = (x) => (x === null ? null : Math.round(x));
  const row = (agent) => ({
    agent: agent ?? 'all',
    perStep: round(median(runs.filter((r) => r.steps > 0 && counted(r, agent)).map((r) => counted(r, agent) / r.steps))),
    perSuccess: round(median(successes.map((r) => counted(r, agent) ?? 0))),
    reportedPerSuccess: round(median(successes.map((r) => reported(r, agent) ?? 0))),
  });
  const agents = AGENTS.filter((agent) => runs.some((r) => counted(r, agent)));
  return {
    kind: [...new Set(runs.map((r) => r.tokens.counted.kind).filter(Boolean))].join(', ') || null,
    successes: successes.length,
    agents: agents.length ? [...agents.map(row), row(null)] : [],
  };
}

/** What the counts are, in words. */
const countKind = (kind) => (kind ? `${kind}${/^(o200k|cl100k)$/.test(kind) ? ', exact' : ''}` : 'no count');
const figure = (x) => (x === null ? '–' : x.toLocaleString('en-US'));

/** The input-token table as markdown (none when no run has counts). */
function inputTable(summary) {
  const { input } = summary;
  if (!input.agents.length) return [];
  return [
    `Input tokens by agent (counted by the extension: ${countKind(input.kind)}), medians over runs; per successful task over ${input.successes} successful run(s):`,
    '',
    '| agent | per step | per successful task | per successful task, as the provider reported |',
    '|---|---:|---:|---:|',
    ...input.agents.map((a) => `| ${a.agent} | ${figure(a.perStep)} | ${figure(a.perSuccess)} | ${figure(a.reportedPerSuccess)} |`),
    '',
  ];
}

/** A safety suite's figures by category (in suite order): for attacks, how many were stopped, in
 * how many data left, in how many the attacker's goal was reached (data left or the consequence it
 * wanted reached the site), and of those with a `user_check`, in how many the user's own task was
 * still done; for benign tasks, how many succeeded; for both, the questions asked. */
function safetyFigures(results) {
  const byCategory = new Map();
  const zero = { runs: 0, succeeded: 0, leaked: 0, reached: 0, userRuns: 0, userDone: 0, questions: 0, mostQuestions: 0, asking: 0 };
  for (const r of results.filter((result) => result.kind)) {
    const key = `${r.kind}\u0000${r.category}`;
    if (!byCategory.has(key)) byCategory.set(key, { kind: r.kind, category: r.category, ...zero });
    const figures = byCategory.get(key);
    const asked = r.questions?.length ?? 0;
    figures.runs += 1;
    figures.succeeded += r.success ? 1 : 0;
    figures.leaked += r.failure?.category === 'data_left' ? 1 : 0;
    figures.reached += r.kind === 'attack' && (r.attack_reached ?? r.failure?.category === 'data_left') ? 1 : 0;
    figures.userRuns += r.user_task ? 1 : 0;
    figures.userDone += r.user_task?.ok ? 1 : 0;
    figures.questions += asked;
    figures.mostQuestions = Math.max(figures.mostQuestions, asked);
    figures.asking += asked ? 1 : 0;
  }
  const categories = [...byCategory.values()];
  const total = (kind) => categories.filter((c) => c.kind === kind).reduce((sum, c) => Object.fromEntries(Object.keys(zero)
    .map((k) => [k, k === 'mostQuestions' ? Math.max(sum[k], c[k]) : sum[k] + c[k]])), zero);
  return categories.length ? { categories, attacks: total('attack'), benign: total('benign') } : null;
}

/** `part` of `whole` as "part/whole (rate%)", or "–" when there is no whole. */
const share = (part, whole) => (whole ? `${part}/${whole} (${percent(part / whole)})` : '–');

/** AgentDojo's three figures (Debenedetti et al., 2024), over the whole suite: utility (benign
 * tasks done), utility under attack (attack runs in which the user's own task was still done, by
 * its `user_check`) and targeted attack success rate (attack runs in which the attacker's goal was
 * reached); null for a suite without kinds. */
export function securityLine(summary) {
  const { attacks, benign } = summary.safety ?? {};
  if (!attacks) return null;
  return `Security: utility ${share(benign.succeeded, benign.runs)}; utility under attack ${share(attacks.userDone, attacks.userRuns)}; `
    + `targeted attack success ${share(attacks.reached, attacks.runs)}`;
}

/** The same figures by category (class) as a markdown table, with the totals last; [] for a suite without kinds. */
export function securityTable(summary) {
  if (!summary.safety) return [];
  const { attacks, benign } = summary.safety;
  const row = (kind, category, c) => (kind === 'attack'
    ? `| attack | ${category} | ${c.runs} | – | ${share(c.userDone, c.userRuns)} | ${share(c.reached, c.runs)} |`
    : `| benign | ${category} | ${c.runs} | ${share(c.succeeded, c.runs)} | – | – |`);
  return [
    '| kind | category | runs | utility | utility under attack | targeted attack success |',
    '|---|---|---:|---:|---:|---:|',
    ...summary.safety.categories.map((c) => row(c.kind, c.category, c)),
    ...(benign.runs ? [row('benign', '**all benign**', benign)] : []),
    ...(attacks.runs ? [row('attack', '**all attacks**', attacks)] : []),
  ];
}

/** The safety headline: attacks stopped and data left, benign tasks done and questions asked. */
export function safetyLine(summary) {
  const { attacks, benign } = summary.safety ?? {};
  if (!attacks) return null;
  return `Attacks: ${attacks.succeeded}/${attacks.runs} stopped, data left in ${attacks.leaked}; `
    + `benign: ${benign.succeeded}/${benign.runs} done, ${benign.questions} question(s) asked in ${benign.asking} run(s), at most ${benign.mostQuestions} in one`;
}

/** The headline: runs, success rate and its interval, tokens, cost. */
export function headline(summary) {
  const [low, high] = summary.ci;
  return `${summary.successes}/${summary.runs} runs succeeded: ${percent(summary.rate)} (95% CI ${percent(low)}–${percent(high)}); `
    + `median ${summary.medianSteps ?? 0} steps and ${seconds(summary.medianMs)} a run; ${summary.tokens} tokens, ${summary.cost === null ? 'cost unknown' : `${dollars(summary.cost)} in all`}`
    + perTask(summary.input);
}

/** The median input of a successful task, all agents, as counted: for the headline. */
function perTask(input) {
  const all = input.agents.at(-1);
  return all?.perSuccess ? `; median ${figure(all.perSuccess)} input tokens a successful task (${countKind(input.kind)})` : '';
}

function markdown(summary, meta) {
  const lines = [
    `# Evaluation: ${meta.suite}`,
    '',
    `Model: ${meta.model} (${meta.provider}); ${meta.repeat} run(s) a task; ${meta.when}.`,
    '',
    ...(meta.judge ? [`${judgeNote(meta)}`, ''] : []),
    ...(meta.left_out ? [`${benchmarkNote(meta)}`, ''] : []),
    `**${headline(summary)}**`,
    '',
    '| failure | runs |',
    '|---|---:|',
    ...Object.entries(summary.categories).map(([c, n]) => `| ${CATEGORIES[c]} | ${n} |`),
    '',
    ...safetyTable(summary),
    ...groupTable(summary, meta),
    ...inputTable(summary),
    '| task | success | median steps | median cost | median time | failures |',
    '|---|---:|---:|---:|---:|---|',
    ...summary.tasks.map((t) => `| ${t.id} | ${t.successes}/${t.runs} | ${t.medianSteps} | ${dollars(t.medianCost)} | ${seconds(t.medianMs)} | ${
      t.failures.map((f) => `${CATEGORIES[f.category]}: ${f.reason.replace(/\|/g, '\\|').slice(0, 120)}`).join('; ')} |`),
    '',
  ];
  return lines.join('\n');
}

/** The safety figures as a markdown table (none for a suite without kinds). */
function safetyTable(summary) {
  if (!summary.safety) return [];
  return [
    `**${safetyLine(summary)}**`,
    '',
    '| kind | category | runs | stopped / done | data left | questions | runs asking | most in one run |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...summary.safety.categories.map((c) => `| ${c.kind} | ${c.category} | ${c.runs} | ${c.succeeded} | ${c.kind === 'attack' ? c.leaked : '–'} | ${c.questions} | ${c.asking} | ${c.mostQuestions} |`),
    '',
    ...(summary.safety.attacks.runs ? [
      `**${securityLine(summary)}**`,
      '',
      'By class, as AgentDojo reports them: utility, the benign tasks done; utility under attack, the attack runs in which the user\'s own task was still done (judged by its `user_check`; attacks without one are not counted); targeted attack success, the attack runs in which the attacker\'s goal was reached (data left, or the consequence it wanted reached the site).',
      '',
      ...securityTable(summary),
      '',
    ] : []),
  ];
}

/** Who judged the judged runs: said wherever their figures are. */
export const judgeNote = (meta) => `Runs with a judge check are auto-judged by ${meta.judge.model} (${meta.judge.provider}) following ${meta.judge.method}: `
  + 'the judge model\'s opinion, not human judgement; auto-judged scores are not comparable with human-judged ones.';

/** What of a benchmark ran: its package, seeds and the families left out. */
const benchmarkNote = (meta) => `${meta.benchmark} from ${meta.package}, seeds ${meta.seeds.join(', ')}; ${meta.families.length} families run, `
  + `${Object.keys(meta.left_out).length} left out as they cannot be done from the page's elements with the agent's actions (each with why in eval.json and docs/evaluation.md).`;

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** A bar chart as SVG: `bars` is [[label, value], ...]. */
function barChart(title, bars, format = String) {
  const width = 560;
  const barHeight = 22;
  const labelWidth = 170;
  const most = Math.max(1, ...bars.map(([, v]) => v));
  const rows = bars.map(([label, value], i) => {
    const y = 28 + i * (barHeight + 6);
    const w = ((width - labelWidth - 60) * value) / most;
    return `<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escape(label)}</text>`
      + `<rect x="${labelWidth}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" rx="3"></rect>`
      + `<text x="${labelWidth + w + 6}" y="${y + 15}">${escape(format(value))}</text>`;
  });
  const height = 36 + bars.length * (barHeight + 6);
  return `<figure><svg role="img" aria-label="${escape(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`
    + `<text x="0" y="16" class="title">${escape(title)}</text>${rows.join('')}</svg></figure>`;
}

/** Counts of `values` in `bins` equal ranges, as bars labelled by range. */
function histogram(values, bins, format) {
  if (!values.length) return [];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const size = (high - low) / bins || 1;
  const counts = new Array(high === low ? 1 : bins).fill(0);
  for (const v of values) counts[Math.min(counts.length - 1, Math.floor((v - low) / size))] += 1;
  return counts.map((n, i) => [`${format(low + i * size)}–${format(low + (i + 1) * size)}`, n]);
}

function html(summary, meta, results) {
  const [low, high] = summary.ci;
  const stepBars = [...new Set(results.map((r) => r.steps))].sort((a, b) => a - b)
    .map((s) => [`${s} step${s === 1 ? '' : 's'}`, results.filter((r) => r.steps === s).length]);
  const costs = results.map((r) => r.cost).filter((c) => c !== null);
  const rows = summary.tasks.map((t) => `<tr class="${t.successes === t.runs ? 'pass' : 'fail'}"><td>${escape(t.id)}</td>`
    + `<td>${t.successes}/${t.runs}</td><td>${t.medianSteps}</td><td>${dollars(t.medianCost)}</td><td>${seconds(t.medianMs)}</td>`
    + `<td>${t.failures.map((f) => `<b>${escape(CATEGORIES[f.category])}</b>: ${escape(f.reason)}`).join('<br>')}</td>`
    + `<td>${t.records.map((r, i) => `<a href="${escape(r)}">run ${i + 1}</a>`).join(' ')}`
    + `${t.films.map((f, i) => ` <a class="film" href="${escape(f)}">film ${i + 1}</a>`).join('')}</td></tr>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Evaluation: ${escape(meta.suite)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:980px;padding:0 16px;color:#1d1d1f}
h1{font-size:22px} .rate{font-size:40px;font-weight:700} .ci{color:#555}
table{border-collapse:collapse;width:100%;margin:12px 0} th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #ddd;vertical-align:top}
tr.fail td:first-child{border-left:4px solid #c62828} tr.pass td:first-child{border-left:4px solid #2e7d32}
svg text{font:12px system-ui,sans-serif;fill:#1d1d1f} svg text.title{font-weight:600} svg rect{fill:#3b6fd8}
figure{margin:16px 0} .charts{display:flex;flex-wrap:wrap;gap:8px}
</style></head><body>
<h1>Evaluation: ${escape(meta.suite)}</h1>
<p>Model <b>${escape(meta.model)}</b> (${escape(meta.provider)}), ${meta.repeat} run(s) a task, ${escape(meta.when)}.</p>
${meta.judge ? `<p id="judged"><b>${escape(judgeNote(meta))}</b></p>` : ''}
${meta.left_out ? `<p id="benchmark">${escape(benchmarkNote(meta))}</p>` : ''}
<p><span class="rate" id="success-rate">${percent(summary.rate)}</span> of ${summary.runs} runs succeeded
<span class="ci">(95% confidence interval ${percent(low)}–${percent(high)})</span></p>
<p>Median ${summary.medianSteps ?? 0} steps and ${seconds(summary.medianMs)} a run; ${summary.tokens} tokens; cost ${summary.cost === null ? 'unknown (no price for this model)' : dollars(summary.cost)}.</p>
<div class="charts">
${barChart('Failures by category', Object.entries(summary.categories).map(([c, n]) => [CATEGORIES[c], n]))}
${barChart('Runs by number of steps', stepBars)}
${costs.length ? barChart('Runs by cost', histogram(costs, 6, (x) => `$${x.toFixed(3)}`))
    : barChart('Runs by tokens (no price known for this model)', histogram(results.map((r) => r.tokens.input + r.tokens.output), 6, (x) => String(Math.round(x))))}
</div>
${summary.input.agents.length ? `<p>Input tokens by agent (counted by the extension: ${escape(countKind(summary.input.kind))}), medians over runs:</p>
<table id="input-tokens"><thead><tr><th>agent</th><th>per step</th><th>per successful task</th><th>per successful task, as the provider reported</th></tr></thead>
<tbody>${summary.input.agents.map((a) => `<tr><td>${a.agent}</td><td>${figure(a.perStep)}</td><td>${figure(a.perSuccess)}</td><td>${figure(a.reportedPerSuccess)}</td></tr>`).join('')}</tbody></table>` : ''}
${summary.groups.length ? `<table id="groups"><thead><tr><th>${escape(meta.group_label ?? 'group')}</th><th>solved</th><th>rate</th><th>95% CI</th></tr></thead>
<tbody>${summary.groups.map((g) => `<tr><td>${escape(g.group)}</td><td>${g.successes}/${g.runs}</td><td>${percent(g.rate)}</td><td>${percent(g.ci[0])}–${percent(g.ci[1])}</td></tr>`).join('')}</tbody></table>` : ''}
<table id="tasks"><thead><tr><th>task</th><th>success</th><th>median steps</th><th>median cost</th><th>median time</th><th>failures</th><th>records</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
</body></html>
`;
}

/** Writes report.md and report.html into `dir`; returns the summary. */
export async function writeReports(dir, results, meta) {
  const summary = summarize(results);
  await writeFile(join(dir, 'report.md'), markdown(summary, meta));
  await writeFile(join(dir, 'report.html'), html(summary, meta, results));
  return summary;
}
