// The public benchmarks' pieces on their own (no browser): MiniWoB++'s seeds, Online-Mind2Web's
// task file and its errors, how WebJudge's answers are read, and the command --publish writes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSeeds } from '../../runner/eval/miniwob.mjs';
import { parseOnlineMind2Web } from '../../runner/eval/online-mind2web.mjs';
import { actionHistory, keyPointsIn, screenshotScore, succeeded } from '../../runner/eval/judge.mjs';
import { reproducingArgs } from '../../runner/eval/publish.mjs';

test('MiniWoB++ seeds are read as lists and ranges, and anything else is refused', () => {
  assert.deepEqual(parseSeeds('1-3,10,2'), [1, 2, 3, 10]);
  assert.deepEqual(parseSeeds('7'), [7]);
  assert.throws(() => parseSeeds('3-1'), /not "3-1"/);
  assert.throws(() => parseSeeds('a'), /not "a"/);
  assert.throws(() => parseSeeds(','), /names no seed/);
});

test('an Online-Mind2Web task file becomes judged tasks on their websites, and its faults are named', () => {
  const task = { task_id: 'fb7b4f78', confirmed_task: 'Find a recipe', website: 'https://www.allrecipes.com/', reference_length: 5, level: 'medium' };
  const [made] = parseOnlineMind2Web(JSON.stringify([task]), 'f.json');
  assert.deepEqual(made, { id: 'fb7b4f78', group: 'medium', task: 'Find a recipe', start_url: 'https://www.allrecipes.com/', max_steps: 30, time_limit_s: 900, check: { judge: true } });
  const fault = (list, pattern) => assert.throws(() => parseOnlineMind2Web(typeof list === 'string' ? list : JSON.stringify(list), 'f.json'), pattern);
  fault('{not json', /f\.json is not JSON .*huggingface\.co\/datasets\/osunlp\/Online-Mind2Web/);
  fault({ tasks: [] }, /holds no list of tasks/);
  fault([task, task], /task 2 \(fb7b4f78\): "task_id" is used by an earlier task/);
  fault([{ ...task, website: 'allrecipes.com' }], /"website" must be an http\(s\) URL/);
  fault([{ ...task, level: 'tricky' }], /"level" must be "easy", "medium" or "hard"/);
  fault([{ ...task, confirmed_task: '' }], /"confirmed_task" must be a non-empty string/);
});

test('WebJudge\'s answers are read as the published code reads them', () => {
  assert.equal(keyPointsIn('Here they are.\n\n**Key Points**:\n  1. Search for recipes\n\n 2. Sort by rating'), '1. Search for recipes\n2. Sort by rating');
  assert.equal(keyPointsIn('Key Points:\n1. One'), '1. One');
  assert.deepEqual(screenshotScore('1. **Reasoning**: Shows the cart.\nIt is full.\n\n2. **Score**: 4'), { score: 4, reasoning: 'Shows the cart. It is full.' });
  assert.equal(screenshotScore('No score here').score, 0);
  assert.equal(succeeded('Thoughts: all key points met.\nStatus: "success"'), true);
  assert.equal(succeeded('Thoughts: a success would need the filter.\nStatus: failure'), false);
  assert.equal(succeeded('success, no status line'), false);
  const record = { steps: [{ actions: [{ name: 'click_element', outcome: 'Clicked "Search".' }] }, { actions: [{ name: 'done', outcome: 'The answer is 42.' }] }] };
  assert.deepEqual(actionHistory(record), ['click_element: Clicked "Search".']);
});

test('the published command is the evaluation\'s, without where it wrote', () => {
  assert.deepEqual(reproducingArgs(['--suite', 'miniwob', '--out', 'x', '--resume', '--publish=p', '--model', 'm', '--publish', 'q']), ['--suite', 'miniwob', '--model', 'm']);
  assert.deepEqual(reproducingArgs(['--suite', 'online-mind2web', '--tasks', '/home/me/Online_Mind2Web.json', '--out=o']), ['--suite', 'online-mind2web', '--tasks', 'PUBLISHED/Online_Mind2Web.json']);
});
