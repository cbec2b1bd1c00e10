// The page-map benchmark's own measurements: the floor, the ratio and the split of the time are
// present and consistent (a check of the instrument, not a timed assertion).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTarget } from '../../runner/launch.mjs';
import { measurePage } from '../../bench/page-map.mjs';
import { withSiteAndBrowser } from '../support/fixtures.mjs';

let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

test('the benchmark reports the floor, the ratio to it and where the time went', async () => {
  const { tabId } = await openTarget(agent, `${site.origin}/map/huge.html`);
  const row = await measurePage(agent, tabId, 2);
  assert.ok(row.elements > 1000 && row.indexed > 0, JSON.stringify(row));
  assert.ok(row.floor_ms >= 1, `a page this large has a measurable floor: ${JSON.stringify(row)}`);
  assert.ok(Math.abs(row.ratio - row.ms_median / row.floor_ms) < 0.02, JSON.stringify(row));
  const parts = Object.values(row.split_ms);
  assert.deepEqual(Object.keys(row.split_ms), ['collect', 'transfer', 'parse', 'build', 'serialize']);
  assert.ok(parts.every((ms) => Number.isFinite(ms) && ms >= 0), JSON.stringify(row));
  assert.ok(row.split_ms.collect > 0 && row.split_ms.build > 0, JSON.stringify(row));
  // The parts are medians of each run's parts: together near the whole, never far beyond it.
  assert.ok(parts.reduce((a, b) => a + b) <= row.ms_max * 1.1 + 1, JSON.stringify(row));
});
