// The user's other tabs are private: the model is shown only the task's tabs (the one it started
// in, those it opened, those the user drags into its tab group), never the others' titles or
// addresses; reaching a tab that is not the task's asks the user; the group is dissolved at the end.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applySettings, openTarget, openPanel, runTask } from '../../runner/launch.mjs';
import { startLlmServer } from '../support/llm-server.mjs';
import { withSiteAndBrowser, waitUntil } from '../support/fixtures.mjs';

const TIMEOUT = 60_000;

let site;
let agent;
withSiteAndBrowser((started) => ({ site, agent } = started));

/** A promise and the function that resolves it. */
function gate() {
  let open;
  const opened = new Promise((resolve) => { open = resolve; });
  return { opened, open };
}

/** The state message of a navigator request (its last user message). */
const stateOf = (request) => request.messages.filter((m) => m.role === 'user').at(-1).content;

/** Each tab's group in the browser now: { tabId: groupId } (-1: none). */
const groupsNow = () => agent.worker.evaluate(async () =>
  Object.fromEntries((await chrome.tabs.query({})).map((tab) => [tab.id, tab.groupId])));

test("the user's other tabs never reach the model; the task's own and those the user adds do; reaching another asks", async () => {
  const task = 'compare the mugs with the shop front page';
  const toUser = gate();
  const draggedIn = gate();
  const draggedOut = gate();
  const llm = await startLlmServer([
    { next_goal: 'Open the front page', actions: [{ open_tab: { url: `${site.origin}/shop/index.html` } }] },
    // While the model thinks, the user drags their notes into the task's group...
    { hold: draggedIn.opened, next_goal: 'Back to the mugs', actions: [{ switch_tab: { tab: 't1' } }] },
    // ...and out again.
    { hold: draggedOut.opened, next_goal: 'Read the notes', actions: [{ switch_tab: { tab: 't3' } }] },
    { next_goal: 'Report', actions: [{ done: { text: 'Compared.', success: true } }] },
  ]);
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10, planningInterval: 0 });
    const bank = await openTarget(agent, `${site.origin}/private/bank.html`);
    const notes = await openTarget(agent, `${site.origin}/private/notes.html`);
    const { tabId } = await openTarget(agent, `${site.origin}/shop/mugs.html`);
    const windows = await agent.worker.evaluate((ids) => Promise.all(ids.map(async (id) => (await chrome.tabs.get(id)).windowId)),
      [bank.tabId, notes.tabId, tabId]);
    assert.equal(new Set(windows).size, 1, 'the private tabs share the task\'s window');
    const panel = await openPanel(agent, tabId);
    const approvals = [];
    const events = [];
    const finished = runTask(panel, {
      task,
      tabId,
      onEvent: (event) => events.push(event),
      onApproval: async (event) => {
        approvals.push(event);
        // Nobody answers for the user: the test's user refuses.
        toUser.open();
        return false;
      },
    });

    // Step 2: the task's tabs are its own and the one it opened, together in a group of its own.
    await waitUntil(() => llm.requests.length === 2, TIMEOUT);
    let groups = await groupsNow();
    const group = groups[tabId];
    assert.notEqual(group, -1, 'the task\'s tab is in a group');
    const ownTabs = Object.keys(groups).filter((id) => groups[id] === group).map(Number).sort((a, b) => a - b);
    assert.equal(ownTabs.length, 2, `the task's tab and the one it opened: ${JSON.stringify(groups)}`);
    assert.equal(groups[bank.tabId], -1);
    assert.equal(groups[notes.tabId], -1);
    const title = await agent.worker.evaluate((id) => chrome.tabGroups.get(id).then((g) => g.title), group);
    assert.equal(title, 'Agent: compare the mugs with th…');
    assert.match(stateOf(llm.requests[1]), /- t2 \(current\): [^\n]*\(http:\/\/127\.0\.0\.1:\d+\/shop\/index\.html\)\n/);

    // The user drags the notes into the task's group: it is the task's from the next step on.
    await agent.worker.evaluate(({ groupId, id }) => chrome.tabs.group({ groupId, tabIds: [id] }), { groupId: group, id: notes.tabId });
    draggedIn.open();
    await waitUntil(() => llm.requests.length === 3, TIMEOUT);
    assert.match(stateOf(llm.requests[2]), /- t3: Shopping notes \(http:\/\/127\.0\.0\.1:\d+\/private\/notes\.html\)\n/);

    // And out again: switching to it now asks the user, who is not there to allow it.
    await agent.worker.evaluate((id) => chrome.tabs.ungroup([id]), notes.tabId);
    draggedOut.open();
    await toUser.opened;
    assert.equal(approvals.length, 1);
    assert.match(approvals[0].question, /^The agent wants to use your tab “Shopping notes” \(127\.0\.0\.1\), which is not part of this task\. Allow it\?$/);
    const end = await finished;
    assert.equal(end.type, 'result', JSON.stringify(end));
    const outcomes = events.filter((e) => e.type === 'step').flatMap((e) => e.actions.map((a) => a.outcome));
    assert.equal(outcomes[2], "Did not switch to tab t3: it is not one of the task's tabs, and the user did not allow it.");
    assert.doesNotMatch(stateOf(llm.requests[3]), /notes/i, 'dragged out, the notes are not listed');

    // Not one request to the model named the bank, whose tab stayed open throughout.
    assert.equal(llm.requests.length, 4);
    for (const request of llm.requests) {
      const sent = JSON.stringify(request.raw);
      for (const secret of ['bank.html', 'Lovelace', '4711', 'private/bank']) assert.ok(!sent.includes(secret), `${secret} reached the model`);
    }
    // The notes reached it only while the user had them in the task.
    assert.deepEqual(llm.requests.map((r) => JSON.stringify(r.raw).includes('notes.html')), [false, false, true, false]);

    // The task is over: its group is gone, every tab still open where it was.
    groups = await groupsNow();
    for (const id of [bank.tabId, notes.tabId, ...ownTabs]) assert.equal(groups[id], -1, `tab ${id} is ungrouped`);
    await panel.close();
  } finally {
    await llm.close();
  }
});

test('a task cannot name a tab it was never given, and parallel tasks keep their own groups', async () => {
  const tasks = { first: 'first task in its own group', second: 'second task in its own group' };
  const release = gate();
  const replies = (name) => [
    { hold: release.opened, next_goal: 'Try another tab', actions: [{ switch_tab: { tab: 't2' } }] },
    { next_goal: 'Report', actions: [{ done: { text: `${name} done`, success: true } }] },
  ];
  const llm = await startLlmServer({ tasks: { [tasks.first]: replies('first'), [tasks.second]: replies('second') } });
  try {
    await applySettings(agent, { baseUrl: llm.baseUrl, model: 'scripted-model', maxSteps: 10, planningInterval: 0, parallelTasks: 2 });
    const bank = await openTarget(agent, `${site.origin}/private/bank.html`);
    const tabs = { first: await openTarget(agent, `${site.origin}/shop/mugs.html`), second: await openTarget(agent, `${site.origin}/shop/index.html`) };
    const panel = await openPanel(agent, tabs.first.tabId);
    const approvals = [];
    const runs = Object.fromEntries(Object.entries(tasks).map(([name, text]) => [name, runTask(panel, {
      task: text,
      tabId: tabs[name].tabId,
      onApproval: (event) => approvals.push(event) && false,
    })]));
    const asking = (name) => llm.requests.some((r) => JSON.stringify(r.messages).includes(tasks[name]));
    await waitUntil(() => asking('first') && asking('second'), TIMEOUT);
    const groups = await groupsNow();
    const [first, second] = [groups[tabs.first.tabId], groups[tabs.second.tabId]];
    assert.ok(first !== -1 && second !== -1 && first !== second, `each task has its own group: ${JSON.stringify(groups)}`);
    assert.equal(groups[bank.tabId], -1);
    release.open();
    const ends = await Promise.all([runs.first, runs.second]);
    assert.deepEqual(ends.map((e) => e.text), ['first done', 'second done']);
    // t2 was never given: there is nothing to ask about, and nothing of the bank is told.
    assert.equal(approvals.length, 0);
    const results = llm.requests.map(stateOf).filter((state) => state.includes('switch_tab: '));
    assert.equal(results.length, 2);
    for (const state of results) assert.match(state, /- switch_tab: There is no open tab t2; the open tabs are t1\.\n/);
    for (const request of llm.requests) assert.ok(!JSON.stringify(request.raw).includes('bank'), 'the bank reached the model');
    await panel.close();
  } finally {
    await llm.close();
  }
});
