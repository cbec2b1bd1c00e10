// The evaluation: ./build.sh eval --suite FILE --model M [agent flags] [--parallel N] [--repeat K]
//   [--only ID,..] [--shard I/N] [--out DIR] [--resume] [--time-limit S]
// ./build.sh eval --compare DIR_A DIR_B [--out DIR]      side by side, with a paired test
// ./build.sh eval --merge DIR... --out DIR               one report from shards' results
// Exit status: 0 when it ran (whatever the success rate), 2 on a usage or suite error,
// 130 when stopped with Ctrl-C (--resume continues).

import { parseArgs } from 'node:util';
import { cpus, freemem } from 'node:os';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { launchAgentBrowser, settingsProblem } from '../launch.mjs';
import { AGENT_OPTIONS, FLAGS, agentSettings, wholeFlag } from '../agent-flags.mjs';
import { readSuite, SuiteError } from './suite.mjs';
import { readMeta, readResults, runEval, RESULTS, META } from './run.mjs';
import { headline, judgeNote, safetyLine, securityLine, securityTable, summarize, writeReports } from './report.mjs';
import { pairedDifference } from './stats.mjs';
import { miniwobSuite, DEFAULT_SEEDS } from './miniwob.mjs';
import { onlineMind2WebSuite } from './online-mind2web.mjs';
import { webJudge, SOURCE as JUDGE_METHOD } from './judge.mjs';
import { publish } from './publish.mjs';

const USAGE = `usage: ./build.sh eval --suite FILE --model NAME [--provider P] [--base-url URL] [--api-key-env VAR]
                    [--planner-model NAME] [--validator-model NAME] [--planning-interval N]
                    [--memory-interval N] [--max-input-tokens N] [--request-style S] [--no-validator]
                    [--vision] [--films] [--approve] [--parallel N] [--repeat K] [--only ID,..] [--shard I/N]
                    [--out DIR] [--resume] [--time-limit SECONDS] [--output-schema FILE]
       ./build.sh eval --compare DIR_A DIR_B [--out DIR]
       ./build.sh eval --merge DIR... --out DIR

  --suite FILE        JSONL, one task a line (see docs/evaluation.md); or miniwob: MiniWoB++'s
                      task families solvable from the page, installed from PyPI by ./build.sh
  --seeds LIST        with --suite miniwob: the episodes' seeds, e.g. 1-5 or 1,4,9 (default ${DEFAULT_SEEDS})
  --families LIST     with --suite miniwob: only these task families, e.g. click-button,enter-text
  --tasks FILE        with --suite online-mind2web: the benchmark's task file, downloaded from
                      https://huggingface.co/datasets/osunlp/Online-Mind2Web (Online_Mind2Web.json)
  --judge-model NAME  the judge model for the tasks with a "judge" check (Online-Mind2Web's are all
                      judged), as Online-Mind2Web's WebJudge judges; --judge-provider P,
                      --judge-base-url URL and --judge-api-key-env VAR default to the agent's
  --publish DIR       also write DIR: the reports, every run's record and screenshots (films with
                      --films), the exact suite, the agent's version and settings (no keys) and the
                      command that reproduces it
  --parallel N        browsers at once (default 1; at most the machine's cores and memory allow)
  --repeat K          runs of each task (default 1)
  --only ID,..        only these tasks
  --shard I/N         only every N-th task, starting at the I-th (for a CI matrix or a job array)
  --out DIR           where results.jsonl, records/, report.md and report.html go (default eval-out)
  --resume            continue an interrupted evaluation in --out, without rerunning finished runs
  --time-limit S      a run still going after S seconds is ended and counted as failed (default 300)
  --approve           allow consequential actions; by default they are refused (no one is there to ask)
  --films             make a film of each run (an animated GIF in films/, linked from the report)
  --output-schema FILE  the JSON Schema of the answer's data for the tasks without an "output_schema"
                      of their own (a "data" check compares that data field by field)
  The agent flags are the runner's (./build.sh run --help).`;

function usageError(message) {
  process.stderr.write(`error: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function parse(argv) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...AGENT_OPTIONS,
        suite: { type: 'string' },
        'output-schema': { type: 'string' },
        seeds: { type: 'string', default: DEFAULT_SEEDS },
        families: { type: 'string' },
        tasks: { type: 'string' },
        'judge-model': { type: 'string' },
        'judge-provider': { type: 'string' },
        'judge-base-url': { type: 'string' },
        'judge-api-key-env': { type: 'string' },
        publish: { type: 'string' },
        parallel: { type: 'string', default: '1' },
        repeat: { type: 'string', default: '1' },
        only: { type: 'string' },
        shard: { type: 'string' },
        out: { type: 'string' },
        resume: { type: 'boolean', default: false },
        films: { type: 'boolean', default: false },
        'time-limit': { type: 'string', default: '300' },
        compare: { type: 'boolean', default: false },
        merge: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    return usageError(err.message);
  }
}

/** The browsers this machine can run at once: a core and about 700 MB of free memory each. */
function machineLimit() {
  return Math.max(1, Math.min(cpus().length, Math.floor(freemem() / 700e6)));
}

const elapsed = (ms) => `${Math.floor(ms / 60000)}m${String(Math.round((ms % 60000) / 1000)).padStart(2, '0')}s`;

/** The live progress line: done/total, success so far, elapsed, time left, tokens and cost. */
/** A safety suite's lines for stdout: attacks stopped and questions asked, then AgentDojo's
 * figures and their table by class (for a suite with attacks); nothing for other suites. */
function safetyText(summary) {
  const safety = safetyLine(summary);
  if (!safety) return '';
  const security = summary.safety.attacks.runs ? `${securityLine(summary)}\n${securityTable(summary).join('\n')}\n` : '';
  return `${safety}\n${security}`;
}

function progressLine(done, total, successes, started, tokens, cost) {
  const spent = Date.now() - started;
  const left = done ? (spent / done) * (total - done) : null;
  const rate = done ? ` (${((100 * successes) / done).toFixed(0)}%)` : '';
  return `[${done}/${total}] ${successes} succeeded${rate} · ${elapsed(spent)} elapsed`
    + `${left === null ? '' : ` · ~${elapsed(left)} left`} · ${tokens} tokens${cost === null ? '' : ` · $${cost.toFixed(4)}`}`;
}

/** The schema in --output-schema's file, if given. */
function readOutputSchema(file) {
  if (!file) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return usageError(`cannot read the output schema ${file}: ${err.message}`);
  }
}

async function evaluate(values) {
  if (!values.suite) usageError('--suite is required');
  const settings = { ...agentSettings(values, usageError), film: values.films };
  const repeat = wholeFlag(values, 'repeat', 1, usageError);
  const requested = wholeFlag(values, 'parallel', 1, usageError);
  const timeLimitS = wholeFlag(values, 'time-limit', 5, usageError);
  let tasks;
  let benchmark = { meta: {}, close: async () => {} };
  try {
    if (values.suite === 'miniwob') {
      benchmark = await miniwobSuite({ seeds: values.seeds, only: values.families });
      ({ tasks } = benchmark);
    } else if (values.suite === 'online-mind2web') {
      benchmark = await onlineMind2WebSuite(values.tasks);
      ({ tasks } = benchmark);
    } else {
      tasks = await readSuite(values.suite, { outputSchema: readOutputSchema(values['output-schema']) });
    }
  } catch (err) {
    if (err instanceof SuiteError) {
      process.stderr.write(`error: ${err.message}\nNothing was run.\n`);
      return 2;
    }
    throw err;
  }
  const suiteIds = tasks.map((t) => t.id);
  const judgeModel = judgeSettings(values, settings, tasks);
  if (values.only) {
    const only = values.only.split(',').map((id) => id.trim()).filter(Boolean);
    const unknown = only.filter((id) => !suiteIds.includes(id));
    if (unknown.length) usageError(`--only names tasks the suite does not have: ${unknown.join(', ')}`);
    tasks = tasks.filter((t) => only.includes(t.id));
  }
  if (values.shard) {
    const [, i, n] = values.shard.match(/^(\d+)\/(\d+)$/) ?? [];
    if (!n || Number(i) < 1 || Number(i) > Number(n)) usageError('--shard must be I/N with 1 ≤ I ≤ N, e.g. 2/4');
    tasks = tasks.filter((_, index) => index % Number(n) === Number(i) - 1);
  }
  const outDir = resolve(values.out ?? 'eval-out');
  const earlier = await readResults(outDir);
  if (earlier.length && !values.resume) usageError(`${outDir} already holds results: add --resume to continue them, or choose another --out`);
  const parallel = Math.min(requested, machineLimit());
  if (parallel < requested) process.stderr.write(`note: running ${parallel} browsers at once, not ${requested}: this machine has ${cpus().length} cores and ${(freemem() / 1e9).toFixed(1)} GB free\n`);

  // The settings are checked once, as the settings page would, before any task runs.
  const probe = await launchAgentBrowser();
  const problem = await settingsProblem(probe, { ...settings, maxSteps: 1 }).finally(() => probe.close());
  if (problem) {
    const flag = FLAGS[problem.field] ? ` (${FLAGS[problem.field]})` : '';
    process.stderr.write(`error: ${problem.message}${flag}\n`);
    return 2;
  }

  const meta = {
    suite: basename(values.suite),
    suite_ids: suiteIds,
    provider: settings.provider,
    model: settings.model,
    repeat,
    when: new Date().toISOString().slice(0, 16).replace('T', ' '),
    ...benchmark.meta,
    ...(judgeModel ? { judge: { provider: judgeModel.provider, model: judgeModel.model, method: JUDGE_METHOD } } : {}),
  };
  // Screenshots, for the judge and the published folder, are the film's frames: the film setting on.
  const keep = { gif: values.films, screenshots: Boolean(values.publish || judgeModel) };
  settings.film = values.films || keep.screenshots;
  const control = { stopping: false, abandon: async () => {} };
  process.once('SIGINT', () => {
    control.stopping = true;
    process.stderr.write('\nStopping: the runs under way are abandoned; --resume continues from here.\n');
    control.abandon();
  });
  const results = [...earlier];
  const started = Date.now();
  const live = process.stderr.isTTY;
  let total = 0;
  const show = (line) => process.stderr.write(live ? `\r\x1b[2K${line}` : `${line}\n`);
  const count = () => {
    const mine = results.length - earlier.length;
    const costs = results.map((r) => r.cost).filter((c) => c !== null);
    const tokens = results.reduce((sum, r) => sum + r.tokens.input + r.tokens.output, 0);
    return progressLine(mine, total, results.filter((r) => r.success).length - earlier.filter((r) => r.success).length,
      started, tokens, costs.length ? costs.reduce((a, b) => a + b, 0) : null);
  };
  total = await runEval({
    tasks, settings, meta, outDir, parallel, repeat, timeLimitS, approve: values.approve || benchmark.approve === true, control, keep,
    judgeRun: (run) => webJudge(judgeModel, run).catch((err) => ({ ok: false, detail: `the judge model could not decide: ${err.message}` })),
    onResult(result, progress) {
      total = progress.total;
      results.push(result);
      show(count());
    },
  }).finally(benchmark.close);
  if (live) process.stderr.write('\n');
  const summary = await writeReports(outDir, ordered(results, suiteIds), meta);
  const safety = safetyText(summary);
  process.stdout.write(`${headline(summary)}\n${safety}${meta.judge ? `${judgeNote(meta)}\n` : ''}Reports: ${join(outDir, 'report.html')}, ${join(outDir, 'report.md')}\n`);
  if (values.publish && !control.stopping) {
    const suiteFile = ['miniwob', 'online-mind2web'].includes(values.suite) ? values.tasks : values.suite;
    await publish(resolve(values.publish), { outDir, results, tasks, suiteFile, settings, argv: process.argv.slice(2) });
    process.stdout.write(`Published: ${resolve(values.publish)}\n`);
  }
  return control.stopping ? 130 : 0;
}

/** The judge model's settings when a task has a judge check (the agent's provider, address and
 * key unless given); null when none has. */
function judgeSettings(values, settings, tasks) {
  if (!tasks.some((t) => t.check.judge !== undefined)) return null;
  if (!values['judge-model']) usageError('the suite has tasks with a "judge" check: --judge-model is required (the judge model, e.g. o4-mini as Online-Mind2Web advises)');
  const provider = values['judge-provider'] ?? settings.provider;
  let apiKey = settings.apiKey;
  if (values['judge-api-key-env']) {
    apiKey = process.env[values['judge-api-key-env']];
    if (apiKey === undefined) usageError(`the environment variable ${values['judge-api-key-env']} is not set`);
  }
  const baseUrl = values['judge-base-url'] ?? (provider === settings.provider ? settings.baseUrl : '');
  if (!baseUrl && ['openai-compatible', 'azure'].includes(provider)) usageError(`--judge-base-url is required for ${provider}`);
  return { provider, baseUrl, model: values['judge-model'], apiKey };
}

/** Results in suite order, then by repeat. */
function ordered(results, suiteIds) {
  const place = new Map(suiteIds.map((id, i) => [id, i]));
  return [...results].sort((a, b) => (place.get(a.id) - place.get(b.id)) || (a.repeat - b.repeat));
}

async function merge(dirs, out) {
  if (!dirs.length || !out) usageError('--merge needs the shards\' folders and --out');
  const outDir = resolve(out);
  await mkdir(join(outDir, 'records'), { recursive: true });
  const metas = await Promise.all(dirs.map(readMeta));
  const seen = new Map();
  for (const dir of dirs) {
    for (const result of await readResults(dir)) {
      if (result.record) await copyFile(join(dir, result.record), join(outDir, result.record));
      seen.set(`${result.id}#${result.repeat}`, result);
    }
  }
  const suiteIds = metas[0].suite_ids;
  const results = ordered([...seen.values()], suiteIds);
  const meta = { ...metas[0], when: metas.map((m) => m.when).sort()[0] };
  await writeFile(join(outDir, META), `${JSON.stringify(meta, null, 2)}\n`);
  await writeFile(join(outDir, RESULTS), results.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const summary = await writeReports(outDir, results, meta);
  const safety = safetyText(summary);
  process.stdout.write(`${headline(summary)}\n${safety}Merged ${dirs.length} folders into ${outDir}\n`);
  return 0;
}

async function compare([a, b], out) {
  if (!a || !b) usageError('--compare needs two result folders');
  const [first, second] = await Promise.all([a, b].map(async (dir) => summarize(await readResults(dir))));
  const rate = (task) => task.successes / task.runs;
  const byId = new Map(second.tasks.map((t) => [t.id, t]));
  const common = first.tasks.filter((t) => byId.has(t.id));
  const test = pairedDifference(common.map((t) => [rate(t), rate(byId.get(t.id))]));
  const ratio = (x, y) => (x && y !== null && x !== null ? `${(y / x).toFixed(2)}×` : '–');
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `# ${basename(resolve(a))} → ${basename(resolve(b))}`,
    '',
    `Success: ${pct(first.rate)} → ${pct(second.rate)} over ${common.length} common tasks; difference ${test.difference >= 0 ? '+' : ''}${pct(test.difference)} `
      + `(95% CI ${pct(test.ci[0])} to ${pct(test.ci[1])}, paired bootstrap p = ${test.p.toFixed(3)}${test.p < 0.05 ? ', significant' : ', not significant'})`,
    `Cost: ${ratio(first.cost, second.cost)}; median time per run: ${ratio(first.medianMs, second.medianMs)}; tokens: ${ratio(first.tokens, second.tokens)}`,
    '',
    '| task | A | B | change |',
    '|---|---:|---:|---|',
    ...common.map((t) => {
      const other = byId.get(t.id);
      const change = rate(other) - rate(t);
      return `| ${t.id} | ${t.successes}/${t.runs} | ${other.successes}/${other.runs} | ${change > 0 ? 'better' : change < 0 ? 'worse' : ''} |`;
    }),
    '',
  ];
  const text = lines.join('\n');
  process.stdout.write(text);
  const file = join(resolve(out ?? b), 'compare.md');
  await writeFile(file, text);
  process.stdout.write(`Written to ${file}\n`);
  return 0;
}

const { values, positionals } = parse(process.argv.slice(2));
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
let code;
if (values.compare) code = await compare(positionals, values.out);
else if (values.merge) code = await merge(positionals, values.out);
else code = await evaluate(values);
process.exit(code);
