// The benchmarks' own measurements: the page map's floor, ratio and split of the time, and the
// time per step outside the model with its parts, present and consistent (checks of the
// instruments, not timed assertions).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openTarget } from '../../runner/launch.mjs';
import { exactTokens, measurePage } from '../../bench/page-map.mjs';
import { tokens } from '../support/tokens.mjs';
import { stepTimes } from '../../bench/step-time.mjs';
import { withSiteAndBrowser } from '../support/fixtures.mjs';

let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

test('the benchmark reports the first read, the floor, the ratio to it and where the time went', async () => {
  const { tabId } = await openTarget(agent, `${site.origin}/map/huge.html`);
  const row = await measurePage(agent, tabId, 2);
  assert.ok(row.elements > 1000 && row.indexed > 0, JSON.stringify(row));
  // The map's size in exact tokens beside the core's estimates of them.
  const { text } = await agent.worker.evaluate((tabId) => globalThis.agentCore.describePage(tabId), tabId);
  assert.deepEqual([row.o200k, row.cl100k], [tokens(text), exactTokens(text).cl100k], JSON.stringify(row));
  assert.ok(row.o200k > 100 && row.estimate > 0 && row.estimate_cl100k > 0, JSON.stringify(row));
  assert.ok(row.floor_ms >= 1, `a page this large has a measurable floor: ${JSON.stringify(row)}`);
  assert.ok(Math.abs(row.ratio - row.ms_median / row.floor_ms) < 0.02, JSON.stringify(row));
  const parts = Object.values(row.split_ms);
  assert.deepEqual(Object.keys(row.split_ms), ['collect', 'transfer', 'parse', 'build', 'serialize']);
  assert.ok(parts.every((ms) => Number.isFinite(ms) && ms >= 0), JSON.stringify(row));
  assert.ok(row.split_ms.collect > 0 && row.split_ms.build > 0, JSON.stringify(row));
  // The first read injects the sensor and reads the whole page: it cannot be free.
  assert.ok(row.first_ms > 0 && row.first_collect_ms > 0 && row.first_collect_ms <= row.first_ms, JSON.stringify(row));
  // The parts are medians of each run's parts: together near the whole, never far beyond it.
  assert.ok(parts.reduce((a, b) => a + b) <= row.ms_max * 1.1 + 1, JSON.stringify(row));
});

test('the step benchmark reports the steps of each task and the time outside the model with its parts', async () => {
  const rows = await stepTimes(agent, site, 1);
  // The shop: open, filter, add, done; the rows: scroll, type and press, done.
  assert.deepEqual(rows.map((r) => [r.task, r.steps]), [['shop', 4], ['1,500 rows', 3]]);
  for (const row of rows) {
    const parts = [row.page_map_ms, row.actions_ms, row.rest_ms];
    assert.ok(parts.every((ms) => Number.isInteger(ms)) && row.page_map_ms > 0 && row.actions_ms > 0, JSON.stringify(row));
    assert.ok(row.outside_model_ms > 0 && row.outside_model_ms >= Math.max(row.page_map_ms, row.actions_ms), JSON.stringify(row));
  }
});

test('every ./build.sh command answers --help at once, with its usage and no stack trace', () => {
  const build = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'build.sh');
  for (const args of [['--help'], ['build', '--help'], ['test', '-h'], ['install-mcp', '--help'], ['bench', '--help'], ['bench', 'steps', '--help'], ['bench', 'real-model', '-h']]) {
    const run = spawnSync(build, args, { encoding: 'utf8', timeout: 10_000 });
    assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.equal(run.stderr, '', args.join(' '));
    assert.match(run.stdout, args[0] === 'bench' ? /^usage: \.\/build\.sh bench / : /\.\/build\.sh test +build, then every test/, args.join(' '));
    assert.doesNotMatch(run.stdout, /^\s+at /m, args.join(' '));
  }
});
