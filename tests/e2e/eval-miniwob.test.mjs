// MiniWoB++ through the evaluation, as users call it (./build.sh eval --suite miniwob, which
// installs the benchmark's pages from PyPI): a scripted model that reads each instruction and page
// map (tests/support/miniwob-solver.mjs) solves a fixed handful of seeded episodes, each judged by
// the page's own raw reward; a model that does nothing is judged unsolved on the same episodes,
// which the pages make the same instructions again; families left out and bad seeds are refused.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLlmServer } from '../support/llm-server.mjs';
import { solveMiniwob } from '../support/miniwob-solver.mjs';
import { evalResults, runEval } from '../support/eval-cli.mjs';

const FAMILIES = ['click-button', 'click-link', 'click-tab', 'enter-text', 'login-user', 'click-checkboxes', 'choose-list'];
const SEEDS = [1, 2];
let work;
let solver;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'agent-miniwob-'));
  solver = await startLlmServer(solveMiniwob);
});

after(async () => {
  await solver?.close(); // Fails the file if a reply broke its request's schema.
});

const evaluate = (args) => runEval(args, { cwd: work });

const results = evalResults;
const model = (llm) => ['--base-url', llm.baseUrl, '--model', 'scripted', '--planning-interval', '0', '--no-validator'];
const miniwob = ['--suite', 'miniwob', '--families', FAMILIES.join(','), '--seeds', SEEDS.join(',')];
let solved;

test('a scripted model that reads the page map solves a handful of MiniWoB++ episodes, judged by the pages\' own reward', async () => {
  const out = join(work, 'solved');
  const run = await evaluate([...miniwob, ...model(solver), '--parallel', '2', '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  const runs = FAMILIES.length * SEEDS.length;
  assert.match(run.stdout, new RegExp(`^${runs}/${runs} runs succeeded: 100\\.0%`, 'm'), run.stdout);
  solved = await results(out);
  assert.deepEqual(solved.map((r) => r.id).sort(), FAMILIES.flatMap((f) => SEEDS.map((s) => `${f}.${s}`)).sort());
  for (const r of solved) {
    assert.equal(r.success, true, JSON.stringify(r));
    assert.deepEqual(r.checks.page, { ok: true, detail: 'true' }, r.id);
    assert.equal(r.group, r.id.replace(/\.\d+$/, ''));
    // The task was the page's own instruction for that seed, not a text of ours.
    assert.ok(r.task && !/MiniWoB\+\+/.test(r.task), JSON.stringify(r.task));
    await access(join(out, r.record));
  }
  // The model was asked once per step and read each episode's own words from what it was sent.
  assert.ok(solver.requests.length >= runs * 2, `${solver.requests.length} requests`);
  const report = await readFile(join(out, 'report.md'), 'utf8');
  assert.match(report, /^MiniWoB\+\+ from miniwob==[\d.]+, seeds 1, 2; 7 families run, 38 left out /m);
  for (const family of FAMILIES) assert.match(report, new RegExp(`^\\| ${family} \\| 2/2 \\| 100\\.0% \\| \\d+\\.\\d%–100\\.0% \\|$`, 'm'));
  const meta = JSON.parse(await readFile(join(out, 'eval.json'), 'utf8'));
  assert.equal(meta.benchmark, 'MiniWoB++');
  assert.match(meta.package, /^miniwob==\d+\.\d+\.\d+$/);
  assert.deepEqual(meta.seeds, SEEDS);
  assert.ok(meta.left_out['draw-line']);
});

test('a model that ends at once solves nothing, on episodes with the same instructions', async () => {
  const idle = await startLlmServer(() => ({ actions: [{ done: { text: 'Nothing to do.', success: true } }] }));
  try {
    const out = join(work, 'idle');
    const run = await evaluate([...miniwob, ...model(idle), '--parallel', '2', '--out', out]);
    assert.equal(run.code, 0, run.stderr);
    const idleRuns = await results(out);
    assert.equal(idleRuns.length, FAMILIES.length * SEEDS.length);
    for (const r of idleRuns) {
      assert.equal(r.success, false, r.id);
      assert.match(r.checks.page.detail, /"no reward: the episode did not end"$/, r.id);
      // Seeded: each episode is the one the solver had (skipped if the first test did not run).
      const same = solved?.find((s) => s.id === r.id);
      if (same) assert.equal(r.task, same.task, r.id);
    }
  } finally {
    await idle.close();
  }
});

test('families left out and bad seeds are refused before anything runs', async () => {
  const left = await evaluate(['--suite', 'miniwob', '--families', 'click-button,draw-line', ...model(solver), '--out', join(work, 'left')]);
  assert.equal(left.code, 2);
  assert.match(left.stderr, /--families: draw-line is left out \(shapes drawn in SVG/);
  const seeds = await evaluate(['--suite', 'miniwob', '--seeds', '5-1', ...model(solver), '--out', join(work, 'seeds')]);
  assert.equal(seeds.code, 2);
  assert.match(seeds.stderr, /--seeds takes whole numbers and ranges such as 1-5 or 1,4,9, not "5-1"/);
});
