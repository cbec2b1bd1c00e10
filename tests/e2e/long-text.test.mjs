// Long texts through the whole extension, as a model's input_text types them: whole, fast enough
// for any machine, heard by a React-style page; and the user's Stop interrupts a long typing.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchAgentBrowser, applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { startSiteServer } from '../support/site-server.mjs';

let agent;
let site;

before(async () => {
  site = await startSiteServer();
  agent = await launchAgentBrowser();
});

after(async () => {
  await agent?.close();
  await site?.close();
});

const done = { actions: [{ done: { text: 'finished', success: true } }] };
/** The most one input_text may type (the core's MAX_TYPED_CHARS). */
const MOST = 100_000;
/** A text of `length` characters in lines, as a long letter is. */
const letter = (length) => Array.from({ length }, (_, i) => 'Dear reader, this is a long story.\n'[i % 35]).join('');

test('the longest text a model may type lands whole in a React-style textarea, which hears its last keys', async () => {
  const text = letter(MOST);
  const llm = await startLlmServer([{ actions: [{ input_text: { target: 'Story', text } }] }, done]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 5, highlights: false });
    const { page, tabId } = await openTarget(agent, `${site.origin}/actions/long.html`);
    const panel = await openPanel(agent, tabId);
    const events = [];
    const end = await runTask(panel, { task: 'write the story', tabId, onEvent: (e) => events.push(e) });
    const outcome = events.find((e) => e.type === 'step')?.actions[0]?.outcome ?? '';
    assert.equal(end.type, 'result', `${JSON.stringify(end)}\n${outcome}`);
    assert.equal(await page.locator('#story').inputValue(), text);
    // The page's own state, taken from its input events only, is the whole text too.
    await page.waitForFunction((length) => document.getElementById('length').textContent === `${length} characters`, MOST);
    const keys = Number(await page.evaluate(() => document.body.dataset.keys));
    assert.ok(keys > 0 && keys < 100, `the last characters are typed key by key, the rest as edits (${keys} keys)`);
    // The outcome the model reads quotes the text's start and end, not 100,000 characters.
    assert.ok(outcome.startsWith(`Typed 100,000 characters ("${text.slice(0, 100)} … ${text.slice(-60)}") into <textarea> "Story" [`), outcome);
    assert.ok(outcome.length < 300, outcome);
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('Stop during a long typing ends the task at once, before the text is all typed, and the next task runs in that tab', async () => {
  const text = letter(MOST);
  const llm = await startLlmServer([{ actions: [{ input_text: { target: 'Story', text } }] }, done]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted', apiKey: '', maxSteps: 5, highlights: false });
    // Each edit costs this page 100 ms: the typing takes a while, long enough to be stopped in.
    const { page, tabId } = await openTarget(agent, `${site.origin}/actions/long.html?slow=100`);
    const panel = await openPanel(agent, tabId);
    let chat;
    const ending = runTask(panel, { task: 'write the story', tabId, onEvent: (e) => { chat ??= e.chat; } });
    const typed = () => page.locator('#story').inputValue().then((value) => value.length);
    await page.waitForFunction(() => document.getElementById('story').value.length > 0, null, { timeout: 120_000 });
    // The user presses Stop, as the panel's button does.
    await panel.evaluate((id) => chrome.runtime.connect({ name: 'agent-panel' }).postMessage({ v: 1, type: 'stop', chat: id }), chat);
    const end = await ending;
    assert.equal(end.type, 'stopped', JSON.stringify(end));
    const atStop = await typed();
    assert.ok(atStop > 0 && atStop < text.length, `the typing stopped part way (${atStop} of ${text.length} characters)`);
    // The tab is free at once: a task sent now starts there and ends (with the script's done).
    const next = await runTask(panel, { task: 'say you are done', tabId });
    assert.equal(next.type, 'result', JSON.stringify(next));
    assert.equal(await typed(), atStop, 'nothing more was typed after the stop');
    await panel.close();
  } finally {
    await llm.close();
  }
});
