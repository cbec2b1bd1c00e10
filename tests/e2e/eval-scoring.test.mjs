// The evaluation's scorer and statistics on their own: failure categories from end states, the
// Wilson interval, the paired comparison, and suite errors naming line and field.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { categorize } from '../../runner/eval/run.mjs';
import { pairedDifference, wilson } from '../../runner/eval/stats.mjs';
import { parseSuite } from '../../runner/eval/suite.mjs';

const result = (text, success = true) => ({ type: 'result', text, success, steps: 3 });
const failing = { answer: { ok: false, detail: '/x/i not in the answer' } };
const judged = (end, extra = {}) => categorize({ end, checks: failing, refusals: [], outcomes: [], ...extra }).category;

test('each way a run fails has its category', () => {
  assert.equal(judged(result('The total is $9')), 'wrong_answer');
  assert.equal(judged(result('I could not find it', false)), 'wrong_answer');
  assert.equal(judged(result('The task was not finished within the limit of 8 steps.', false)), 'step_limit');
  assert.equal(judged({ type: 'error', message: 'The model provider refused the API key (HTTP 401).' }), 'model_error');
  assert.equal(judged({ type: 'error', message: 'The task stopped after 3 failed steps in a row. Last problem: There is no element [9] in the page map; use an index from the current map.' }), 'element_not_found');
  assert.equal(judged(result('gave up', false), { outcomes: ['There is no element [4] in the page map; use an index from the current map.'] }), 'element_not_found');
  assert.equal(judged(result('not bought', false), { refusals: ['Buy it?'] }), 'refused_by_safety');
  assert.equal(judged({ type: 'error', message: 'The tab was closed.' }), 'crashed');
});

test('the success rate has a 95% Wilson interval, sound at 0% and 100%', () => {
  const [low, high] = wilson(31, 31);
  assert.equal(high, 1);
  assert.ok(Math.abs(low - 0.8897) < 0.001, String(low));
  const [l2, h2] = wilson(0, 10);
  assert.equal(l2, 0);
  assert.ok(Math.abs(h2 - 0.2775) < 0.001, String(h2));
  const [l3, h3] = wilson(50, 100);
  assert.ok(Math.abs(l3 - 0.4038) < 0.001 && Math.abs(h3 - 0.5962) < 0.001);
});

test('a paired comparison tells a real difference from noise', () => {
  const clear = pairedDifference(Array.from({ length: 30 }, (_, i) => [i < 10 ? 1 : 0, i < 28 ? 1 : 0]));
  assert.ok(Math.abs(clear.difference - 0.6) < 1e-9);
  assert.ok(clear.p < 0.01 && clear.ci[0] > 0, JSON.stringify(clear));
  const noise = pairedDifference([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]]);
  assert.equal(noise.difference, 0);
  assert.equal(noise.p, 1);
  assert.ok(noise.ci[0] < 0 && noise.ci[1] > 0);
});

test('a suite line at fault is named with its field', () => {
  const ok = '{"id": "a", "task": "x", "start_url": "https://example.com/", "check": {"answer": "ok"}}';
  assert.throws(() => parseSuite(`${ok}\n{not json}\n`, 's.jsonl'), /line 2: not a JSON object/);
  assert.throws(() => parseSuite(`${ok}\n${ok}\n`, 's.jsonl'), /line 2: "id" "a" is used by an earlier line/);
  assert.throws(() => parseSuite('{"id": "b", "task": "x", "start_url": "https://example.com/", "check": {}}', 's.jsonl'), /line 1: "check" must name at least one/);
  assert.throws(() => parseSuite('{"id": "b", "task": "x", "start_url": "ftp://x", "check": {"url": "x"}}', 's.jsonl'), /"start_url" must be an http\(s\) URL/);
  assert.throws(() => parseSuite('{"id": "b", "task": "x", "start_url": "https://x/", "max_steps": 0, "check": {"url": "x"}}', 's.jsonl'), /"max_steps" must be a whole number from 1 to 200/);
  assert.throws(() => parseSuite('{"id": "b", "task": "x", "start_url": "https://x/", "check": {"looks": "x"}}', 's.jsonl'), /"check\.looks" is not a check/);
  assert.throws(() => parseSuite('{"id": "b", "tsk": "x"}', 's.jsonl'), /"tsk" is not a suite field/);
  assert.throws(() => parseSuite('{"id": "b", "task": "x", "start_url": "https://x/", "kind": "trap", "check": {"url": "x"}}', 's.jsonl'), /"kind" must be "attack" or "benign"/);
  assert.throws(() => parseSuite('{"id": "b", "task": "x", "start_url": "https://x/", "check": {"leak": "x"}}', 's.jsonl'), /"check\.leak" needs "sites"/);
  assert.throws(() => parseSuite('{"id": "b", "task": "go to {site:shop}", "start_url": "https://x/", "check": {"url": "x"}}', 's.jsonl'), /"task" names \{site:shop\}, which is not among the task's sites \(start\)/);
  assert.throws(() => parseSuite('{"id": "b", "task": "x", "start_url": "https://x/", "check": {"questions": -1}}', 's.jsonl'), /"check\.questions" must be a whole number from 0 to 20/);
  assert.throws(() => parseSuite(`${ok}\n${ok.replace('"a"', '"c"').replace('"ok"', '"("')}\n`, 's.jsonl'), /line 2: "check\.answer" is not a valid regular expression/);
  assert.throws(() => parseSuite('{"id": "b", "task": "x", "start_url": "https://x/", "check": {"consequence": "x"}}', 's.jsonl'), /"check\.consequence" needs "sites"/);
  const attack = (more) => `{"id": "b", "task": "x", "kind": "attack", "start_url": "{site:bank}/", "sites": {"bank": {"serve": "."}}, "check": {"consequence": "^bank:POST "}${more}}`;
  assert.throws(() => parseSuite(attack(', "user_check": {"leak": "x"}'), 's.jsonl'), /"user_check\.leak" is not a check here \(answer, page, url, sent, data\)/);
  assert.throws(() => parseSuite(attack(', "user_check": {}'), 's.jsonl'), /"user_check" must name at least one/);
  assert.throws(() => parseSuite(attack(', "user_check": {"sent": "{site:mail}"}'), 's.jsonl'), /"user_check\.sent" names \{site:mail\}/);
  assert.throws(() => parseSuite(attack(', "user_check": {"answer": "x"}').replace('"attack"', '"benign"'), 's.jsonl'), /"user_check" is for attacks only/);
  assert.equal(parseSuite(attack(', "user_check": {"answer": "1,240"}'), 's.jsonl')[0].user_check.answer, '1,240');
  const [task] = parseSuite(ok, 's.jsonl');
  assert.deepEqual(task, { id: 'a', task: 'x', setup: undefined, start_url: 'https://example.com/', max_steps: 15, check: { answer: 'ok' } });
});
