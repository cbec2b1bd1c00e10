// The judge check and Online-Mind2Web's task format through the evaluation (./build.sh eval
// --suite online-mind2web --tasks FILE --judge-model M): a few tasks in the benchmark's format on
// the local sites, done by a scripted agent and judged by a scripted judge model, whose inputs are
// checked as WebJudge takes them (the task, the key points, the action history without the final
// answer, each step's screenshot, then the key screenshots); the report says the score is
// auto-judged; --publish writes a folder with no key in it; a malformed task file is refused.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';
import { KEY_POINTS_PROMPT, SCREENSHOT_PROMPT, OUTCOME_PROMPT } from '../../runner/eval/judge.mjs';
import { evalResults, runEval } from '../support/eval-cli.mjs';

const SECRET = 'sk-judge-test-secret-0042';
const TASKS = {
  large: 'Choose the large size',
  idle: 'Choose the medium size',
};
let work;
let site;
let agentModel;
let judgeModel;
let taskFile;

/** The scripted judge: key points from the task, every screenshot scored 4, and success when the
 * action history it is given holds an action. */
function judging(request) {
  const [system, user] = request.messages;
  if (system.content === KEY_POINTS_PROMPT) return { raw: `**Key Points**:\n1. ${user.content.replace('Task: ', '')}\n2. Done on the page` };
  if (system.content === SCREENSHOT_PROMPT) return { raw: '1. **Reasoning**: The page shows the size control.\n\n2. **Score**: 4' };
  if (system.content === OUTCOME_PROMPT) {
    const acted = /Action History:\n1\. /.test(user.content);
    return { raw: `Thoughts: ${acted ? 'The size was chosen.' : 'Nothing was done.'}\nStatus: "${acted ? 'success' : 'failure'}"` };
  }
  throw new Error(`not a judge request: ${system.content.slice(0, 80)}`);
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'agent-judge-'));
  site = await startSiteServer();
  agentModel = await startLlmServer({ tasks: {
    [TASKS.large]: [
      { actions: [{ select_option: { target: 'label=Size', text: 'Large' } }] },
      { actions: [{ done: { text: 'The large size is chosen.', success: true } }] },
    ],
    [TASKS.idle]: [{ actions: [{ done: { text: 'The medium size is chosen.', success: true } }] }],
  } });
  judgeModel = await startLlmServer(judging);
  // Online-Mind2Web's format (huggingface.co/datasets/osunlp/Online-Mind2Web), on a local site.
  taskFile = join(work, 'Online_Mind2Web.json');
  const website = `${site.origin}/actions/controlled.html`;
  await writeFile(taskFile, JSON.stringify([
    { task_id: 'local-large', confirmed_task: TASKS.large, website, reference_length: 2, level: 'easy' },
    { task_id: 'local-idle', confirmed_task: TASKS.idle, website, reference_length: 2, level: 'easy' },
  ], null, 2));
});

after(async () => {
  await agentModel?.close();
  await judgeModel?.close();
  await site?.close();
});

const evaluate = (args) => runEval(args, { cwd: work, env: { ...process.env, JUDGE_TEST_KEY: SECRET } });

const results = evalResults;
const agent = () => ['--base-url', agentModel.baseUrl, '--model', 'scripted', '--planning-interval', '0', '--no-validator', '--api-key-env', 'JUDGE_TEST_KEY'];
const judge = () => ['--judge-model', 'scripted-judge', '--judge-base-url', judgeModel.baseUrl];

/** The text and the images of a request's user message, as the judge was sent them. */
function userParts(request) {
  const content = request.raw.messages[1].content;
  return { text: content.filter((p) => p.type === 'text').map((p) => p.text).join(''), images: content.filter((p) => p.type === 'image_url').map((p) => p.image_url.url) };
}

test('Online-Mind2Web-format tasks are judged as WebJudge judges, from the task, key points, actions and screenshots', async () => {
  const out = join(work, 'judged');
  const published = join(work, 'published');
  const run = await evaluate(['--suite', 'online-mind2web', '--tasks', taskFile, ...agent(), ...judge(), '--out', out, '--publish', published]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^1\/2 runs succeeded/m);
  assert.match(run.stdout, /auto-judged by scripted-judge .* not human judgement/);
  const byId = Object.fromEntries((await results(out)).map((r) => [r.id, r]));
  assert.equal(byId['local-large'].success, true, JSON.stringify(byId['local-large']));
  assert.equal(byId['local-idle'].success, false);
  assert.equal(byId['local-idle'].claimed, true, 'the agent claimed it; the judge did not agree');
  assert.match(byId['local-large'].checks.judge.detail, /^success in the judge model's opinion \(WebJudge/);

  // The judge's inputs, call by call.
  const sent = judgeModel.requests;
  const of = (prompt, task) => sent.filter((r) => r.messages[0].content === prompt && userParts(r).text.includes(task));
  for (const [id, task] of [['local-large', TASKS.large], ['local-idle', TASKS.idle]]) {
    const result = byId[id];
    const keyPoints = of(KEY_POINTS_PROMPT, task);
    assert.equal(keyPoints.length, 1, id);
    assert.equal(userParts(keyPoints[0]).text, `Task: ${task}`);
    // Each step's screenshot, as a JPEG, with the task and the key points the judge found.
    const shots = of(SCREENSHOT_PROMPT, task);
    assert.equal(shots.length, result.screenshots.length, id);
    assert.ok(shots.length >= 1);
    for (const shot of shots) {
      const { text, images } = userParts(shot);
      assert.match(text, new RegExp(`^\\*\\*Task\\*\\*: ${task}\\n\\n\\*\\*Key Points for Task Completion\\*\\*: \\n?1\\. ${task}\\n2\\. Done on the page`));
      assert.equal(images.length, 1);
      assert.match(images[0], /^data:image\/jpeg;base64,\/9j\//);
    }
    // The outcome: task, key points, the actions done (never the final answer), key screenshots.
    const [outcome] = of(OUTCOME_PROMPT, task);
    const { text, images } = userParts(outcome);
    assert.match(text, new RegExp(`^User Task: ${task}\\n\\nKey Points: \\n?1\\. ${task}`));
    assert.doesNotMatch(text, /done:|chosen\./, 'the final answer is not in the action history');
    assert.equal(images.length, shots.length, 'every screenshot scored 4 is a key screenshot');
    if (id === 'local-large') {
      assert.match(text, /Action History:\n1\. select_option: .*Large/);
      assert.match(text, /The potentially important snapshots of the webpage in the agent's trajectory and their reasons:\n1\. The page shows the size control\./);
    } else {
      assert.match(text, /Action History:\n\n/);
    }
  }
  const report = await readFile(join(out, 'report.md'), 'utf8');
  assert.match(report, /auto-judged by scripted-judge \(openai-compatible\) following WebJudge .*not human judgement/);
  assert.match(report, /^\| easy \| 1\/2 \| 50\.0% \|/m);

  // The published folder: everything to read and check, and no key.
  const files = await readdir(published, { recursive: true });
  for (const name of ['report.md', 'report.html', 'results.jsonl', 'eval.json', 'suite.jsonl', 'agent.json', 'REPRODUCE.md', 'Online_Mind2Web.json']) assert.ok(files.includes(name), `${name} in ${files}`);
  for (const r of Object.values(byId)) {
    assert.ok(files.includes(r.record), r.record);
    for (const shot of r.screenshots) assert.ok(files.includes(shot), shot);
  }
  for (const name of files.filter((f) => /\.(json|jsonl|md|html)$/.test(f))) {
    assert.ok(!(await readFile(join(published, name), 'utf8')).includes(SECRET), `${name} holds the key`);
  }
  const agentFile = JSON.parse(await readFile(join(published, 'agent.json'), 'utf8'));
  assert.match(agentFile.version, /^\d+\.\d+/);
  assert.equal(agentFile.settings.model, 'scripted');
  const reproduce = await readFile(join(published, 'REPRODUCE.md'), 'utf8');
  assert.match(reproduce, /^\.\/build\.sh eval --suite online-mind2web --tasks PUBLISHED\/Online_Mind2Web\.json .*--judge-model scripted-judge .* --out eval-again$/m);
  assert.doesNotMatch(agentFile.name, /__MSG_/);
  assert.doesNotMatch(reproduce, /--publish|--out \S+judged/);
});

test('a malformed Online-Mind2Web task file, or judged tasks without a judge model, are refused before anything runs', async () => {
  const bad = join(work, 'bad.json');
  await writeFile(bad, JSON.stringify([{ task_id: 'a', confirmed_task: 'x', website: 'https://example.com/' }, { task_id: 'b', website: 'https://example.com/' }]));
  const refused = await evaluate(['--suite', 'online-mind2web', '--tasks', bad, ...agent(), ...judge(), '--out', join(work, 'bad')]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /bad\.json task 2 \(b\): "confirmed_task" must be a non-empty string; Online-Mind2Web's task file is a JSON list/);
  const noJudge = await evaluate(['--suite', 'online-mind2web', '--tasks', taskFile, ...agent(), '--out', join(work, 'no-judge')]);
  assert.equal(noJudge.code, 2);
  assert.match(noJudge.stderr, /--judge-model is required/);
});
