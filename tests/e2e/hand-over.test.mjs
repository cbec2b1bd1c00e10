// Handing over to the user: a sign-in wall the task runs into pauses it; the test, playing the
// user, takes over (the task's tab comes forward), signs in in the tab itself and continues, and
// the task finishes on the signed-in page. A CAPTCHA frame shaped as reCAPTCHA's embed pauses a
// task before the model is asked. The runner prints the model's question and reads the answer
// from standard input, and ends with a clear status when no one is there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { applySettings, openTarget, openPanel, runTask, EXTENSION_DIR } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { withSiteAndBrowser, waitUntil } from '../support/fixtures.mjs';

const TIMEOUT = 60_000;
const ARTIFACTS = join(EXTENSION_DIR, 'tests', 'artifacts');
const PASSWORD = 'correct horse battery';

let agent;
let site;

withSiteAndBrowser((started) => ({ site, agent } = started));

async function useModel(llm, extra = {}) {
  await applySettings(agent, {
    baseUrl: llm.baseUrl, model: 'scripted-model', apiKey: '', maxSteps: 8, highlights: false, ...extra,
  });
}

const tabActive = (tabId) => agent.worker.evaluate(async (id) => (await chrome.tabs.get(id)).active, tabId);

/** The state message of navigator request `n` (its last message). */
const stateOf = (llm, n) => llm.requests[n].messages.at(-1).content;

async function screenshot(panel, colorScheme) {
  await panel.emulateMedia({ colorScheme });
  await panel.screenshot({ path: join(ARTIFACTS, `hand-over-${colorScheme}.png`) });
}

test('a sign-in wall hands the tab over: the user signs in there, continues, and the task finishes', async () => {
  const llm = await startLlmServer([
    { next_goal: 'Open my account', actions: [{ click_element: { target: 'My account' } }] },
    (request) => {
      const state = request.messages.at(-1).content;
      // The model hears of the hand-over and sees the page as the user left it.
      assert.match(state, /The page needed the user \(This page asks you to sign in to 127\.0\.0\.1/);
      assert.match(state, /The user took over and pressed Continue\./);
      return { next_goal: 'Add the blue mug', actions: [{ click_element: { target: 'Add Blue mug to wishlist' } }] };
    },
    { next_goal: 'Report', actions: [{ done: { text: 'The blue mug is on your wishlist: {{(Wishlist: [a-z, ]+)}}', success: true } }] },
  ]);
  try {
    await useModel(llm, { planningInterval: 0, validator: false });
    const target = await openTarget(agent, `${site.origin}/handover/index.html`);
    const panel = await openPanel(agent, target.tabId);
    await panel.setViewportSize({ width: 400, height: 760 });
    await panel.fill('#task', 'add the blue mug to my wishlist at the mug club');
    await panel.press('#task', 'Enter');

    const card = panel.locator('.hand-over:not(.past)');
    await card.locator('button.continue:enabled').waitFor({ timeout: TIMEOUT });
    assert.equal(await card.locator('h2').textContent(), 'Sign-in needed');
    assert.match(await card.locator('.question').textContent(), /^This page asks you to sign in to 127\.0\.0\.1, and the task gave no sign-in for it\./);
    assert.equal(await card.locator('.url').textContent(), `${site.origin}/handover/account.html`);
    assert.equal(llm.requests.length, 1, 'the model is not asked while the user has the tab');
    await mkdir(ARTIFACTS, { recursive: true });
    for (const scheme of ['light', 'dark']) await screenshot(panel, scheme);
    await panel.emulateMedia({ colorScheme: 'light' });

    // Take over brings the task's tab forward (the panel's page was in front).
    assert.equal(await tabActive(target.tabId), false);
    await card.locator('button.take-over').click();
    await waitUntil(() => tabActive(target.tabId));

    // The user signs in in the tab itself.
    await target.page.fill('input[name=member]', 'ada');
    await target.page.fill('input[name=password]', PASSWORD);
    await target.page.click('button[type=submit]');
    await target.page.locator('#welcome', { hasText: 'Signed in as ada.' }).waitFor();

    await card.locator('button.continue').click();
    await panel.locator('.answer-card').waitFor({ timeout: TIMEOUT });
    assert.equal(await panel.locator('.answer').textContent(), 'The blue mug is on your wishlist: Wishlist: blue');
    assert.equal(await card.locator('.decision').textContent(), 'You continued: the agent reads the page again.');
    assert.equal(await card.locator('button:enabled').count(), 0, 'a hand-over answered is shown as past');
    // Judged by the page's own state: the signed-in member's wishlist.
    assert.equal(await target.page.evaluate(() => sessionStorage.getItem('wishlist')), '["blue"]');
    assert.equal(llm.requests.length, 3);
    assert.ok(!llm.requests.some((r) => JSON.stringify(r.messages).includes(PASSWORD)), 'the model never saw the password');
    await panel.close();
    await target.page.close();
  } finally {
    await llm.close();
  }
});

test('a CAPTCHA frame pauses the task before the model is asked, until the user passed it', async () => {
  const llm = await startLlmServer([
    { next_goal: 'Write the message', actions: [{ input_text: { target: 'Message', text: 'Please stock a green mug.' } }, { click_element: { target: 'Send' } }] },
    { next_goal: 'Report', actions: [{ done: { text: '{{(Thank you, your message was sent\\.)}}', success: true } }] },
  ]);
  try {
    await useModel(llm, { planningInterval: 0, validator: false });
    const target = await openTarget(agent, `${site.origin}/handover/contact.html`);
    const panel = await openPanel(agent, target.tabId);
    const handOvers = [];
    const end = await runTask(panel, {
      task: 'write to the mug club asking them to stock a green mug',
      tabId: target.tabId,
      onApproval: () => true,
      async onHandOver(event) {
        handOvers.push({ ...event, modelAsked: llm.requests.length });
        // The user passes the check in the widget's frame.
        await target.page.frameLocator('iframe[title=reCAPTCHA]').locator('#recaptcha-anchor').check();
        return { decision: 'continue' };
      },
    });
    assert.equal(end.type, 'result', JSON.stringify(end));
    assert.equal(handOvers.length, 1);
    assert.equal(handOvers[0].reason, 'captcha');
    assert.equal(handOvers[0].tab, target.tabId);
    assert.match(handOvers[0].question, /shows a reCAPTCHA check that only a person can pass/);
    assert.equal(handOvers[0].modelAsked, 0, 'the task paused before the model was asked');
    assert.equal(end.text, 'Thank you, your message was sent.');
    assert.equal(await target.page.locator('#sent').isVisible(), true);
    await panel.close();
    await target.page.close();
  } finally {
    await llm.close();
  }
});

test('with no one to take over, a hand-over ends the task saying why', async () => {
  const llm = await startLlmServer([{ actions: [{ click_element: { target: 'My account' } }] }]);
  try {
    await useModel(llm, { planningInterval: 0, validator: false });
    const target = await openTarget(agent, `${site.origin}/handover/index.html`);
    const panel = await openPanel(agent, target.tabId);
    const end = await runTask(panel, { task: 'add the blue mug to my wishlist at the mug club', tabId: target.tabId });
    assert.equal(end.type, 'error', JSON.stringify(end));
    assert.match(end.message, /^The task needed you and no one took over, so it ended: This page asks you to sign in/);
    assert.equal(llm.requests.length, 1);
    await panel.close();
    await target.page.close();
  } finally {
    await llm.close();
  }
});

/** Runs `./build.sh run ARGS`, answering each of its questions with the next of `answers` (on
 * standard input, a line each); without answers, standard input is closed (no one is there). */
function runRunner(args, answers = null) {
  return new Promise((resolvePromise) => {
    const child = spawn(join(EXTENSION_DIR, 'build.sh'), ['run', ...args], { stdio: [answers ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let asked = 0;
    child.stdout.on('data', (data) => {
      stdout += data;
      // A question is answered once it is asked, as a person at the terminal would.
      const questions = stdout.split('\n> ').length - 1;
      for (; answers && asked < questions; asked += 1) child.stdin.write(`${answers[asked] ?? ''}\n`);
    });
    child.stderr.on('data', (data) => { stderr += data; });
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

const ASKING = () => [
  { next_goal: 'Ask which mug', actions: [{ ask_user: { question: 'Which mug colour do you want on your wishlist?' } }] },
  (request) => {
    const said = request.messages.at(-1).content.match(/They said: "([^"]*)"/)?.[1] ?? 'nothing';
    return { actions: [{ done: { text: `You chose ${said}.`, success: true } }] };
  },
];

test('the runner asks the model\'s question on standard input and goes on with the answer', async () => {
  const llm = await startLlmServer(ASKING());
  try {
    const args = ['--task', 'put a mug on my wishlist', '--url', `${site.origin}/handover/index.html`, '--base-url', llm.baseUrl,
      '--model', 'scripted', '--no-validator', '--planning-interval', '0'];
    const { code, stdout, stderr } = await runRunner(args, ['blue']);
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /^The agent needs you \(ask\): Which mug colour do you want on your wishlist\?$/m);
    assert.match(stdout, /then press Enter to continue, or type an answer for the agent; "stop" stops the task:\n> /);
    assert.match(stdout, /^Answer: You chose blue\.$/m);
  } finally {
    await llm.close();
  }
});

test('the runner with no one there (standard input closed, or --no-input) ends with status 3', async () => {
  for (const extra of [[], ['--no-input']]) {
    const llm = await startLlmServer(ASKING());
    try {
      const args = ['--task', 'put a mug on my wishlist', '--url', `${site.origin}/handover/index.html`, '--base-url', llm.baseUrl,
        '--model', 'scripted', '--no-validator', '--planning-interval', '0', ...extra];
      const { code, stdout, stderr } = await runRunner(args);
      assert.equal(code, 3, stdout + stderr);
      assert.match(stdout, extra.length ? /no one is there to take over \(--no-input\): the task ends/ : /standard input has ended: no one is there to take over, the task ends/);
      assert.match(stdout, /^Error: The task needed you and no one took over, so it ended: Which mug colour do you want on your wishlist\? Run it again/m);
      assert.equal(llm.requests.length, 1, 'the model was not asked again');
    } finally {
      await llm.close();
    }
  }
});
