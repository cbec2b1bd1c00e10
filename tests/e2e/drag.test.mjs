// Drag and drop on real libraries from node_modules (SortableJS, dnd kit, jQuery UI's sortable,
// draggable, droppable and slider, noUiSlider) and on a plain HTML5 drop zone, each driven
// through the whole extension by a scripted model that finds the elements in the page map it is
// sent, as a model would, and asks for `drag`. Every test checks the library's own state.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchAgentBrowser } from '../../runner/launch.mjs';
import { scriptedPages, inPage, pageMap } from '../support/scripted-page.mjs';

/** The index of the first element of the page map whose line holds `text`. */
function indexOf(request, text) {
  const line = pageMap(request).split('\n').find((l) => /^\t*\*?\[\d+\]/.test(l) && l.includes(text));
  if (!line) throw new Error(`no element with "${text}" in the page map:\n${pageMap(request)}`);
  return Number(line.match(/\[(\d+)\]/)[1]);
}

/** A model's step: drag the element showing `from` onto the one showing `to`, or by an offset. */
const drag = (from, { to, dx, dy } = {}) => (request) => ({
  actions: [{ drag: { index: indexOf(request, from), to: to === undefined ? null : indexOf(request, to), dx: dx ?? null, dy: dy ?? null } }],
});

const runTaskOn = scriptedPages('drag as asked');

const run = (path, steps, options) => runTaskOn(path, steps, { maxSteps: 8, ...options });

// SortableJS (HTML5 drag and drop: it makes the item draggable on the press)

test('SortableJS: drag an item onto another reorders the list', async () => {
  const { page, outcomes, seen } = await run('drag/sortable.html', [drag('Write the report', { to: 'File the taxes' })]);
  assert.deepEqual(await inPage(page, 'window.priorities.toArray()'), ['bank', 'plants', 'taxes', 'report', 'car'], seen);
  assert.match(outcomes[0], /^Dragged <li> "Write the report" \[\d+\] onto <li> "File the taxes" \[\d+\]\. It is now 4th of 5 in its list \(was 1st\)\.$/, seen);
});

test('SortableJS kanban: drag a card into the other list', async () => {
  const { page, outcomes, seen } = await run('drag/sortable.html', [drag('Fix the bike', { to: 'Bake a cake' })]);
  assert.deepEqual(await inPage(page, 'window.todo.toArray()'), ['paint'], seen);
  assert.ok((await inPage(page, 'window.done.toArray()')).includes('bike'), seen);
  assert.match(outcomes[0], /It is now in the list under "Done"/, seen);
});

test('SortableJS kanban: drag a card into an empty list, which the page map offers as a drop place', async () => {
  const { page, outcomes, seen } = await run('drag/sortable.html', [drag('Paint the fence', { to: 'aria-label=Waiting' })]);
  assert.deepEqual(await inPage(page, 'window.waiting.toArray()'), ['paint'], seen);
  assert.deepEqual(await inPage(page, 'window.todo.toArray()'), ['bike'], seen);
  assert.match(outcomes[0], /It is now in "Waiting", 1st of 1\./, seen);
});

// dnd kit (pointer events, a 5 px activation distance, React state)

test('dnd kit sortable: drag a song onto another reorders the playlist', async () => {
  const { page, seen } = await run('drag/dnd-kit.html', [drag('All Blues', { to: 'Blue in Green' })]);
  assert.equal(await inPage(page, "document.getElementById('order').textContent"), 'All Blues | Blue in Green | So What | Freddie Freeloader', seen);
});

// jQuery UI (mouse events)

test('jQuery UI sortable: drag a step onto another reorders the list', async () => {
  const { page, seen } = await run('drag/jquery-ui.html', [drag('Serve', { to: 'Add the pasta' })]);
  assert.deepEqual(await inPage(page, "$('#steps').sortable('toArray')"), ['step-boil', 'step-serve', 'step-pasta', 'step-sauce'], seen);
});

test('jQuery UI draggable and droppable: the drop callback gets the parcel', async () => {
  const { page, seen } = await run('drag/jquery-ui.html', [drag('Parcel for Lisbon', { to: 'Truck to Portugal' })]);
  assert.equal(await inPage(page, 'window.loaded'), 'parcel', seen);
  assert.equal(await inPage(page, "$('#loaded').text()"), 'Parcel for Lisbon', seen);
});

test('jQuery UI slider: drag the handle by an offset', async () => {
  // 0 to 100 over 400 px, at 20: 120 px to the right is 30 more.
  const { page, outcomes, seen } = await run('drag/jquery-ui.html', [
    (request) => ({ actions: [{ drag: { index: indexOf(request, 'slider handle'), to: null, dx: 120, dy: 0 } }] }),
  ]);
  assert.equal(await inPage(page, "$('#volume').slider('value')"), 50, seen);
  assert.match(outcomes[0], /by 120, 0 px\. It moved 120 px right\./, seen);
});

// noUiSlider (pointer events; the handles are ARIA sliders)

test('noUiSlider: drag the upper handle of a range by an offset', async () => {
  // 0 to 1,000 over 500 px: 150 px to the left is 300 less.
  const { page, outcomes, seen } = await run('drag/nouislider.html', [drag('Highest price', { dx: -150, dy: 0 })]);
  assert.deepEqual(await inPage(page, 'window.price.noUiSlider.get()'), ['200', '500'], seen);
  assert.match(outcomes[0], /Its value went from 800 to 500\./, seen);
});

// A plain HTML5 drop zone (draggable="true", the data in the DataTransfer)

test('HTML5 drop zone: drag a photo into the trash', async () => {
  const { page, outcomes, seen } = await run('drag/drop-zone.html', [drag('Blurry street', { to: 'Trash' })]);
  assert.equal(await inPage(page, "document.getElementById('deleted').textContent"), 'blurry', seen);
  assert.equal(await inPage(page, "document.querySelectorAll('[data-photo]').length"), 2, seen);
  assert.match(outcomes[0], /The page replaced it/, seen);
});

test('a drag that changes nothing says so, and one without a place to go is refused', async () => {
  const { outcomes, told, seen } = await run('drag/drop-zone.html', [
    drag('Trash', { dx: 40, dy: 0 }),
    (request) => ({ actions: [{ drag: { index: indexOf(request, 'Trash'), to: null, dx: null, dy: null } }] }),
  ]);
  assert.match(outcomes[0], /^Dragged <div> "Trash" \[\d+\] by 40, 0 px\. Nothing on the page changed: the element may not be draggable/, seen);
  // The model is told what was wrong with its reply, in the request that asks again.
  assert.match(told[2], /drag needs "to" \(the element to drop it on\) or an offset "dx", "dy" in pixels/, seen);
});

// Trusted input (the debugger's mouse): the same drags with real events

test('with trusted input, jQuery UI, dnd kit, SortableJS and a plain drop zone are dragged with the debugger\'s mouse', async () => {
  const trusted = await launchAgentBrowser({ grant: ['debugger'] });
  try {
    const jqueryUi = await run('drag/jquery-ui.html', [drag('Serve', { to: 'Boil the water' })], { agentBrowser: trusted, trustedInput: true });
    assert.deepEqual(await inPage(jqueryUi.page, "$('#steps').sortable('toArray')"), ['step-serve', 'step-boil', 'step-pasta', 'step-sauce'], jqueryUi.seen);
    assert.equal(await inPage(jqueryUi.page, 'window.pressTrusted'), true, jqueryUi.seen);
    const dndKit = await run('drag/dnd-kit.html', [drag('Blue in Green', { to: 'Freddie Freeloader' })], { agentBrowser: trusted, trustedInput: true });
    assert.equal(await inPage(dndKit.page, "document.getElementById('order').textContent"), 'So What | Freddie Freeloader | Blue in Green | All Blues', dndKit.seen);
    assert.equal(await inPage(dndKit.page, 'window.pressTrusted'), true, dndKit.seen);
    // SortableJS's HTML5 drag, which the press lets begin, goes on as the browser's drag events.
    const sortableJs = await run('drag/sortable.html', [drag('Wash the car', { to: 'Call the bank' })], { agentBrowser: trusted, trustedInput: true });
    assert.deepEqual(await inPage(sortableJs.page, 'window.priorities.toArray()'), ['report', 'car', 'bank', 'plants', 'taxes'], sortableJs.seen);
    assert.equal(await inPage(sortableJs.page, 'window.pressTrusted'), true, sortableJs.seen);
    // A plain draggable="true" photo into a drop zone, its data carried by the browser's drag.
    const dropZone = await run('drag/drop-zone.html', [drag('The cat asleep', { to: 'Trash' })], { agentBrowser: trusted, trustedInput: true });
    assert.equal(await inPage(dropZone.page, "document.getElementById('deleted').textContent"), 'cat', dropZone.seen);
    assert.equal(await inPage(dropZone.page, 'window.pressTrusted'), true, dropZone.seen);
  } finally {
    await trusted.close();
  }
});
