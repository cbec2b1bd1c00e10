// Controls that hold more than one value, or a number: a multiple select, spinners, number and
// range inputs, sliders from jQuery UI, noUiSlider, MUI and Ant Design, served from node_modules
// on strict-CSP pages and driven through the whole extension by a scripted model that reads the
// element's index from the page map it is sent. Every test checks the control's own state (the
// library's value, or the app state the page shows), then what the agent told the model.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptedPages, inPage } from '../support/scripted-page.mjs';

const runTaskOn = scriptedPages('set the controls');

/** Runs `steps` (each a list of actions) on the widget page `path`, then done. */
const run = (path, steps) => runTaskOn(`widgets/${path}`, steps.map((actions) => ({ actions })));

/** The text an app's <output> shows: what the component reported through its onChange. */
const output = (page, id) => page.evaluate((id) => document.getElementById(id).textContent, id);

// A native multiple select

const chosenPets = "Array.from(document.getElementById('pets').selectedOptions, (o) => o.text)";

test('a multiple select: a second option is added to the first', async () => {
  const { page, outcomes, states, seen } = await run('values.html', [
    [{ select_option: { target: 'name=pets', text: 'Miguelita' } }],
    [{ select_option: { target: 'name=pets', text: 'Lolita' } }],
  ]);
  assert.deepEqual(await inPage(page, chosenPets), ['Miguelita', 'Lolita'], seen);
  assert.match(outcomes[1], /^Added "Lolita" to the choice in .*; now selected: "Miguelita", "Lolita"\.$/, seen);
  // The map the model read next shows both, and that the list takes several.
  assert.match(states.at(-1), /\]select [^\n]*name=pets value=Miguelita\|Lolita multiple=true/, seen);
});

test('a multiple select: choosing a selected option again takes it out', async () => {
  const { page, outcomes, seen } = await run('values.html', [
    [{ select_option: { target: 'name=pets', text: 'Miguelita' } }],
    [{ select_option: { target: 'name=pets', text: 'Lolita' } }],
    [{ select_option: { target: 'name=pets', text: 'Miguelita' } }],
  ]);
  assert.deepEqual(await inPage(page, chosenPets), ['Lolita'], seen);
  assert.match(outcomes[2], /^Took "Miguelita" out of the choice in .*; now selected: "Lolita"\.$/, seen);
});

// Spinners and number fields

test('a jQuery UI spinner that blocks typing is set to 4', async () => {
  const { page, outcomes, seen } = await run('values.html', [[{ input_text: { target: 'name=visits', text: '4' } }]]);
  assert.equal(await inPage(page, "$('#visits').spinner('value')"), 4, seen);
  assert.match(outcomes[0], /^Typing "4" left it at "0"; Set .* to 4\.$/, seen);
});

test('a number field: a number within its bounds is typed, one beyond them becomes the bound', async () => {
  const { page, outcomes, seen } = await run('values.html', [
    [{ input_text: { target: 'name=nights', text: '7' } }],
    [{ input_text: { target: 'name=nights', text: '40' } }],
  ]);
  assert.equal(await inPage(page, "document.getElementById('nights').value"), '30', seen);
  assert.match(outcomes[0], /^Set .* to 7\.$/, seen);
  assert.match(outcomes[1], /cannot hold 40 \(from 1 to 30\); it is now at 30, the nearest it takes\.$/, seen);
});

test('Ant Design InputNumber: typed, within its bounds', async () => {
  const { page, outcomes, seen } = await run('values-react.html', [[{ input_text: { target: 'Rooms', text: '12' } }]]);
  assert.equal(await output(page, 'rooms'), '8', seen);
  assert.match(outcomes[0], /cannot hold 12 \(from 1 to 8, in steps of 1\); it is now at 8/, seen);
});

// Range inputs and sliders

test('a range input is set to the nearest value on its step', async () => {
  const { page, outcomes, states, seen } = await run('values.html', [[{ input_text: { target: 'name=budget', text: '620' } }]]);
  assert.equal(await inPage(page, "document.getElementById('budget').value"), '600', seen);
  assert.equal(await output(page, 'budget-value'), '600', 'the page heard the change');
  assert.match(outcomes[0], /cannot hold 620 \(from 0 to 1000, in steps of 50\); it is now at 600, the nearest it takes\.$/, seen);
  assert.match(states[0], /\]input [^\n]*type=range name=budget value=200 min=0 max=1000 step=50\n/, 'the map shows its range');
});

test('a jQuery UI slider is stepped with its keys to 120', async () => {
  const { page, outcomes, seen } = await run('values.html', [[{ input_text: { target: 'Garden size', text: '120' } }]]);
  assert.equal(await inPage(page, "$('#garden').slider('value')"), 120, seen);
  assert.match(outcomes[0], /^Set .*Garden size.* to 120\.$/, seen);
});

test('noUiSlider is stepped with its keys to 65', async () => {
  const { page, outcomes, seen } = await run('values.html', [[{ input_text: { target: 'Walking distance', text: '65' } }]]);
  assert.equal(await inPage(page, "Number(document.getElementById('distance').noUiSlider.get())"), 65, seen);
  assert.match(outcomes[0], /^Set .*Walking distance.* to 65\.$/, seen);
});

test('MUI Slider takes a value on its step', async () => {
  const { page, outcomes, seen } = await run('values-react.html', [[{ input_text: { target: 'Room temperature', text: '23.5' } }]]);
  assert.equal(await output(page, 'temperature'), '23.5', seen);
  assert.match(outcomes[0], /^Set .* to 23\.5\.$/, seen);
});

test('Ant Design Slider is stepped with arrows and pages to 35', async () => {
  const { page, outcomes, seen } = await run('values-react.html', [[{ input_text: { target: 'Discount', text: '35' } }]]);
  assert.equal(await output(page, 'discount'), '35', seen);
  assert.match(outcomes[0], /^Set .* to 35\.$/, seen);
});

// A custom multiple select

test('React Select multi: select_option adds a second option to the first', async () => {
  const { page, seen } = await run('react-select.html', [
    [{ select_option: { target: 'label=Toppings', text: 'Nuts' } }],
    [{ select_option: { target: 'label=Toppings', text: 'Caramel sauce' } }],
  ]);
  assert.equal(await output(page, 'toppings'), 'nuts,sauce', seen);
});

test('React Select multi: choosing a chosen option again takes it out', async () => {
  const { page, outcomes, seen } = await run('react-select.html', [
    [{ select_option: { target: 'label=Toppings', text: 'Nuts' } }],
    [{ select_option: { target: 'label=Toppings', text: 'Caramel sauce' } }],
    [{ select_option: { target: 'label=Toppings', text: 'Nuts' } }],
  ]);
  assert.equal(await output(page, 'toppings'), 'sauce', seen);
  assert.match(outcomes[2], /^Took "Nuts" out of the choice in /, seen);
});

test('Headless UI multiple Listbox: an option is added, a chosen one taken out, the list left open', async () => {
  const { page, outcomes, seen } = await run('values-react.html', [
    [{ select_option: { target: 'Labels', text: 'Urgent' } }],
    [{ select_option: { target: 'Labels', text: 'Bug' } }],
  ]);
  assert.equal(await output(page, 'tags'), 'Urgent', seen);
  assert.match(outcomes[0], /^Added "Urgent" to the choice in .*; now selected: "Bug", "Urgent"\.$/, seen);
  assert.match(outcomes[1], /^Took "Bug" out of the choice in .*; now selected: "Urgent"\.$/, seen);
});

test('MUI multiple Autocomplete: select_option adds a second option to the first', async () => {
  const { page, outcomes, seen } = await run('values-react.html', [
    [{ select_option: { target: 'Cities to visit', text: 'Porto' } }],
    [{ select_option: { target: 'Cities to visit', text: 'Rome' } }],
  ]);
  assert.equal(await output(page, 'cities'), 'Porto,Rome', seen);
  assert.match(outcomes[1], /^Selected "Rome" in /, seen);
});
