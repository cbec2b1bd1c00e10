// The evaluation command, as users call it (./build.sh eval), with the scripted model: the built-in
// suite scored perfectly at --parallel 2 and its report read in Chromium; a model making given
// mistakes scored in exactly those failure categories; a hanging run ended at its time limit while
// the others go on; a bad suite refused; --resume after Ctrl-C; --compare; shards merged.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile, mkdir, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startLlmServer } from '../support/llm-server.mjs';
import { evalResults, runEval } from '../support/eval-cli.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SUITE = join(ROOT, 'tests', 'eval', 'suite.jsonl');
const ARTIFACTS = join(ROOT, 'tests', 'artifacts');
let work;
let perfect;
let suite;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'agent-eval-'));
  suite = (await readFile(SUITE, 'utf8')).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  const scripts = JSON.parse(await readFile(join(ROOT, 'tests', 'eval', 'perfect.json'), 'utf8'));
  perfect = await startLlmServer({ tasks: Object.fromEntries(suite.map((t) => [t.task, scripts[t.id]])) });
});

after(async () => {
  await perfect?.close();
});

const evaluate = (args, onStderr) => runEval(args, { cwd: work, onStderr });

const results = evalResults;
const model = (llm) => ['--base-url', llm.baseUrl, '--model', 'scripted', '--planning-interval', '0'];

test('the built-in suite scores 100% with a perfect model at --parallel 2, and its report shows it', async () => {
  assert.ok(suite.length >= 30, `${suite.length} tasks`);
  const out = join(work, 'perfect');
  const run = await evaluate(['--suite', SUITE, ...model(perfect), '--parallel', '2', '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`^${suite.length}/${suite.length} runs succeeded: 100\\.0% \\(95% CI \\d+\\.\\d%–100\\.0%\\)`, 'm'));
  assert.match(run.stderr, new RegExp(`\\[${suite.length}/${suite.length}\\] ${suite.length} succeeded \\(100%\\)`));
  const lines = await results(out);
  assert.deepEqual(lines.map((r) => r.id).sort(), suite.map((t) => t.id).sort());
  for (const r of lines) {
    assert.equal(r.success, true, JSON.stringify(r));
    assert.ok(r.steps >= 1 && r.tokens.input > 0 && r.timing.model_ms > 0, JSON.stringify(r));
    // The input the extension counted in each request, by agent: a scripted model's name is no
    // OpenAI model's, so the counts are estimates.
    const { counted } = r.tokens;
    assert.ok(counted.kind === 'estimate' && counted.by_agent.navigator.input > 0 && counted.by_agent.navigator.calls >= r.steps, JSON.stringify(r.tokens));
    assert.equal(counted.input, Object.values(counted.by_agent).reduce((sum, a) => sum + a.input, 0), JSON.stringify(r.tokens));
    assert.ok(Object.values(r.checks).every((c) => c.ok));
    await access(join(out, r.record));
  }
  const report = await readFile(join(out, 'report.md'), 'utf8');
  assert.match(report, new RegExp(`\\| shop-blue-mug \\| 1/1 \\|`));
  // Input tokens per step and per successful task, by agent, saying what the count is.
  assert.match(report, /^Input tokens by agent \(counted by the extension: estimate\)/m);
  assert.match(report, /^\| navigator \| [\d,]+ \| [\d,]+ \| [\d,]+ \|$/m);
  assert.match(report, /^\| all \| [\d,]+ \| [\d,]+ \| [\d,]+ \|$/m);
  assert.match(run.stdout, /; median [\d,]+ input tokens a successful task \(estimate\)$/m);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    await page.goto(`file://${join(out, 'report.html')}`);
    assert.equal(await page.locator('#success-rate').textContent(), '100.0%');
    assert.equal(await page.locator('#tasks tbody tr').count(), suite.length);
    assert.ok(await page.locator('#input-tokens tbody tr').count() >= 2);
    assert.equal(await page.locator('svg[aria-label="Runs by number of steps"]').count(), 1);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'eval-report.png'), fullPage: false });
  } finally {
    await browser.close();
  }
});

test('a model that makes given mistakes is scored in exactly those categories, and a hanging run ends at its limit', async () => {
  const sites = join(ROOT, 'tests', 'sites');
  const line = (id, task, url, check, extra = {}) => JSON.stringify({ id, task, serve: sites, start_url: url, max_steps: 4, check, ...extra });
  const tasks = [
    line('wrong-answer', 'what is the cart total?', '/shop/mugs.html', { answer: '\\$0\\.00' }),
    line('step-limit', 'find entry 500', '/actions/feed.html', { answer: 'Entry 500' }),
    line('model-error', 'choose the large size', '/actions/controlled.html', { page: "document.getElementById('size').value === 'Large'" }),
    line('element-not-found', 'open the billing tab', '/actions/controlled.html', { page: 'false' }),
    line('refused', 'check out my cart', '/attacks/checkout.html', { answer: 'placed' }),
    line('crashed', 'greet', '/actions/controlled.html', { answer: 'x' }, { setup: "document.querySelector('#nothing').click()" }),
    line('hangs', 'wait forever', '/actions/controlled.html', { answer: 'x' }, { time_limit_s: 8 }),
    line('fine', 'choose the medium size', '/actions/controlled.html', { page: "document.getElementById('size').value === 'Medium'" }),
  ];
  const file = join(work, 'mistakes.jsonl');
  await writeFile(file, `${tasks.join('\n')}\n`);
  const scroll = { actions: [{ scroll: { direction: 'down' } }] };
  const missing = { actions: [{ click_element: { index: 9999 } }] };
  const llm = await startLlmServer({ tasks: {
    'what is the cart total?': [{ actions: [{ done: { text: 'The total is $9.99', success: true } }] }],
    // Only a model that ignores the last step's schema (done alone) can scroll on at the limit.
    'find entry 500': [scroll, scroll, scroll, { ...scroll, unconstrained: true }],
    'choose the large size': [{ status: 400, body: { error: { message: 'The model `scripted` does not exist' } } }],
    'open the billing tab': [missing, missing, missing],
    // The model places the order it was only asked to check out: the critic says the words do not ask for it.
    'check out my cart': [{ actions: [{ click_element: { target: 'Place order' } }] }, { actions: [{ done: { text: 'The order was not allowed.', success: false } }] }],
    'wait forever': [{ hang: true }],
    'choose the medium size': [{ actions: [{ select_option: { target: 'label=Size', text: 'Medium' } }] }, { actions: [{ done: { text: 'ok', success: true } }] }],
  } });
  try {
    const out = join(work, 'mistakes');
    const run = await evaluate(['--suite', file, ...model(llm), '--no-validator', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const byId = Object.fromEntries((await results(out)).map((r) => [r.id, r]));
    const category = (id) => byId[id].failure?.category ?? null;
    assert.deepEqual(Object.keys(byId).map((id) => [id, category(id)]), [
      ['wrong-answer', 'wrong_answer'], ['step-limit', 'step_limit'], ['model-error', 'model_error'],
      ['element-not-found', 'element_not_found'], ['refused', 'refused_by_safety'], ['crashed', 'crashed'],
      ['hangs', 'step_limit'], ['fine', null],
    ]);
    assert.match(byId['wrong-answer'].failure.reason, /answered "The total is \$9\.99"; answer: /);
    assert.equal(byId['wrong-answer'].claimed, true);
    assert.match(byId.hangs.failure.reason, /time limit of 8 s/);
    assert.match(byId.crashed.failure.reason, /setup expression failed/);
    assert.match(byId.refused.failure.reason, /Place order/);
    const report = await readFile(join(out, 'report.md'), 'utf8');
    assert.match(report, /1\/8 runs succeeded: 12\.5%/);
    for (const [label, n] of [['model error', 1], ['element not found', 1], ['refused by safety', 1], ['step or time limit', 2], ['wrong answer', 1], ['crashed', 1]]) {
      assert.match(report, new RegExp(`\\| ${label} \\| ${n} \\|`));
    }

    // --compare: the perfect run against this one, on the tasks they share (none here), then a
    // perfect run against itself is no difference.
    const same = await evaluate(['--compare', join(work, 'perfect'), join(work, 'perfect'), '--out', work]);
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /difference \+0\.0% .*p = 1\.000, not significant/);
  } finally {
    await llm.close();
  }
});

test('a bad suite is refused with its line and field, and nothing runs', async () => {
  const file = join(work, 'bad.jsonl');
  await writeFile(file, '{"id": "a", "task": "x", "start_url": "https://example.com/", "check": {"answer": "ok"}}\n{"id": "b", "task": "y", "start_url": "https://example.com/", "check": {"url": "("}}\n');
  const run = await evaluate(['--suite', file, ...model(perfect), '--out', join(work, 'bad')]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /bad\.jsonl line 2: "check\.url" is not a valid regular expression/);
  assert.match(run.stderr, /Nothing was run/);
  await assert.rejects(access(join(work, 'bad')));
});

test('Ctrl-C stops cleanly and --resume finishes without rerunning; --compare; shards merge into the whole', async () => {
  const only = ['--only', 'shop-empty-total,form-native-select,article-express,parts-count'];
  const out = join(work, 'resumed');
  const first = await evaluate(['--suite', SUITE, ...model(perfect), ...only, '--out', out], (text, child) => {
    if (/\[1\/4\]/.test(text) && !child.interrupted) {
      child.interrupted = true;
      child.kill('SIGINT');
    }
  });
  assert.equal(first.code, 130, first.stderr);
  assert.match(first.stderr, /Stopping: .*--resume continues/);
  const before = await results(out);
  assert.ok(before.length >= 1 && before.length < 4, `${before.length} runs before the resume`);
  const again = await evaluate(['--suite', SUITE, ...model(perfect), ...only, '--out', out]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already holds results: add --resume/);
  const resumed = await evaluate(['--suite', SUITE, ...model(perfect), ...only, '--out', out, '--resume']);
  assert.equal(resumed.code, 0, resumed.stderr);
  const after = await results(out);
  assert.deepEqual(after.slice(0, before.length), before, 'finished runs were kept, not rerun');
  assert.deepEqual(after.map((r) => r.id).sort(), ['article-express', 'form-native-select', 'parts-count', 'shop-empty-total']);
  assert.match(resumed.stdout, /^4\/4 runs succeeded/m);

  // Two shards, merged, give the same per-task outcomes as the whole run.
  for (const shard of ['1/2', '2/2']) {
    const run = await evaluate(['--suite', SUITE, ...model(perfect), ...only, '--shard', shard, '--out', join(work, `shard${shard[0]}`)]);
    assert.equal(run.code, 0, run.stderr);
  }
  assert.deepEqual((await results(join(work, 'shard1'))).map((r) => r.id), ['shop-empty-total', 'article-express']);
  const merged = await evaluate(['--merge', join(work, 'shard1'), join(work, 'shard2'), '--out', join(work, 'merged')]);
  assert.equal(merged.code, 0, merged.stderr);
  const outcome = (rs) => rs.map((r) => [r.id, r.success, r.steps]);
  assert.deepEqual(outcome(await results(join(work, 'merged'))), outcome(after));
  const report = await readFile(join(work, 'merged', 'report.md'), 'utf8');
  assert.match(report, /4\/4 runs succeeded/);
  for (const r of await results(join(work, 'merged'))) await access(join(work, 'merged', r.record));
});
