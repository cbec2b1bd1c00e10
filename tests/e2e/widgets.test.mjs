// Widgets from the component libraries people build with, served from node_modules on strict-CSP
// pages, each driven through the whole extension by a scripted model that names elements by their
// visible text, as a model reading the map would. Every test checks the widget's own resulting
// state (the library's value), not what the agent reported.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptedPages, inPage } from '../support/scripted-page.mjs';

const runTaskOn = scriptedPages('use the widget');

/** Runs `steps` (each a list of actions) on the widget page `path`, then done. */
const run = (path, steps) => runTaskOn(`widgets/${path}`, steps.map((actions) => ({ actions })));

// jQuery UI

test('jQuery UI autocomplete: type, then click a suggestion', async () => {
  const { page, seen } = await run('jquery-ui.html', [
    [{ input_text: { target: 'Start typing a country', text: 'Eg' } }],
    [{ click_element: { target: 'Egypt' } }],
  ]);
  assert.equal(await inPage(page, "$('#country').val()"), 'Egypt', seen);
});

test('jQuery UI autocomplete: ArrowDown and Enter choose from the suggestions', async () => {
  const { page, seen } = await run('jquery-ui.html', [
    [{ input_text: { target: 'Start typing a country', text: 'Es' } }],
    [{ send_keys: { keys: 'ArrowDown Enter' } }],
  ]);
  assert.equal(await inPage(page, "$('#country').val()"), 'Estonia', seen);
});

test('jQuery UI datepicker: open it, click a day', async () => {
  const { page, seen } = await run('jquery-ui.html', [
    [{ click_element: { target: 'Pick a departure date' } }],
    [{ click_element: { target: ']a 15' } }],
  ]);
  assert.equal(await inPage(page, "$('#departure').val()"), '2030-05-15', seen);
});

test('jQuery UI menu: hover a submenu, click its item', async () => {
  const { page, seen } = await run('jquery-ui.html', [
    [{ hover: { target: 'Settings' } }],
    [{ click_element: { target: 'Privacy' } }],
  ]);
  assert.equal(await inPage(page, "$('#menu-choice').text()"), 'Privacy', seen);
});

test('jQuery UI tabs: click a tab', async () => {
  const { page, seen } = await run('jquery-ui.html', [[{ click_element: { target: 'Hotels' } }]]);
  assert.equal(await inPage(page, "$('#tabs').tabs('option', 'active')"), 1, seen);
  assert.equal(await inPage(page, "$('#tab-hotels').is(':visible')"), true, seen);
});

test('jQuery UI dialog: open the modal, press its button', async () => {
  const { page, seen } = await run('jquery-ui.html', [
    [{ click_element: { target: 'Change the trip' } }],
    [{ click_element: { target: 'Move to next year' } }],
  ]);
  assert.equal(await inPage(page, "$('#trip').text()"), 'moved', seen);
  assert.equal(await inPage(page, "$('#dialog').dialog('isOpen')"), false, seen);
});

// Bootstrap 5

test('Bootstrap dropdown: open it, choose an item', async () => {
  const { page, seen } = await run('plain.html', [
    [{ click_element: { target: 'Sort by' } }],
    [{ click_element: { target: 'Date joined' } }],
  ]);
  assert.equal(await inPage(page, "document.getElementById('sort').textContent"), 'date', seen);
  assert.equal(await inPage(page, "document.querySelector('.dropdown-menu').classList.contains('show')"), false, seen);
});

test('Bootstrap modal: open it, press its button', async () => {
  const { page, seen } = await run('plain.html', [
    [{ click_element: { target: 'Invite a member' } }],
    [{ click_element: { target: 'Add to the team' } }],
  ]);
  assert.equal(await inPage(page, "document.getElementById('invited').textContent"), '1', seen);
  await page.waitForFunction(() => !document.getElementById('invite').classList.contains('show'));
});

test('Bootstrap collapse: open a section', async () => {
  const { page, seen } = await run('plain.html', [[{ click_element: { target: 'Advanced options' } }]]);
  await page.waitForFunction(() => document.getElementById('advanced').classList.contains('show'), null, { timeout: 3000 })
    .catch(() => assert.fail(seen));
});

test('Bootstrap tabs: switch to a tab', async () => {
  const { page, seen } = await run('plain.html', [[{ click_element: { target: 'Billing' } }]]);
  assert.equal(await inPage(page, "document.getElementById('billing').classList.contains('active')"), true, seen);
});

// Tom Select

test('Tom Select: open the control, click an option', async () => {
  const { page, seen } = await run('plain.html', [
    [{ click_element: { target: 'Search a time zone' } }],
    [{ click_element: { target: 'Lisbon' } }],
  ]);
  assert.equal(await inPage(page, 'window.timezone.getValue()'), 'Europe/Lisbon', seen);
});

test('Tom Select: type to search, Enter chooses the match', async () => {
  const { page, seen } = await run('plain.html', [
    [{ input_text: { target: 'Search a time zone', text: 'tok' } }],
    [{ send_keys: { keys: 'Enter' } }],
  ]);
  assert.equal(await inPage(page, 'window.timezone.getValue()'), 'Asia/Tokyo', seen);
});

test('Tom Select multiple: add two items', async () => {
  const { page, seen } = await run('plain.html', [
    [{ click_element: { target: 'Add languages' } }],
    [{ click_element: { target: 'Spanish' } }],
    [{ click_element: { target: 'French' } }],
  ]);
  assert.deepEqual(await inPage(page, 'window.languages.getValue()'), ['es', 'fr'], seen);
});

// flatpickr

test('flatpickr: open the calendar, click a day', async () => {
  const { page, seen } = await run('plain.html', [
    [{ click_element: { target: 'Choose the start date' } }],
    [{ click_element: { target: 'March 21, 2030' } }],
  ]);
  assert.equal(await inPage(page, "document.getElementById('start').value"), '2030-03-21', seen);
  assert.equal(await inPage(page, 'window.start.selectedDates.length'), 1, seen);
});

// MUI (React)

/** The text an app's <output> shows: what the component reported through its onChange. */
const output = (page, id) => page.evaluate((id) => document.getElementById(id).textContent, id);

test('MUI Select: open it, choose an option', async () => {
  const { page, seen } = await run('mui.html', [
    [{ click_element: { target: 'Parcel size' } }],
    [{ click_element: { target: 'Medium' } }],
  ]);
  assert.equal(await output(page, 'size'), 'medium', seen);
});

test('MUI Autocomplete: type, then click a suggestion', async () => {
  const { page, seen } = await run('mui.html', [
    [{ input_text: { target: 'Destination city', text: 'Ber' } }],
    [{ click_element: { target: 'Bern' } }],
  ]);
  assert.equal(await output(page, 'city'), 'Bern', seen);
});

test('MUI Autocomplete: type, ArrowDown and Enter choose the first suggestion', async () => {
  const { page, seen } = await run('mui.html', [
    [{ input_text: { target: 'Destination city', text: 'Bra' } }],
    [{ send_keys: { keys: 'ArrowDown Enter' } }],
  ]);
  assert.equal(await output(page, 'city'), 'Bratislava', seen);
});

test('MUI Menu: open it, click an item', async () => {
  const { page, seen } = await run('mui.html', [
    [{ click_element: { target: 'Export' } }],
    [{ click_element: { target: 'As PDF' } }],
  ]);
  assert.equal(await output(page, 'exported'), 'pdf', seen);
});

test('MUI Dialog: open it, press its action', async () => {
  const { page, seen } = await run('mui.html', [
    [{ click_element: { target: 'Archive shipment' } }],
    [{ click_element: { target: 'Move to archive' } }],
  ]);
  assert.equal(await output(page, 'archived'), 'yes', seen);
});

// Ant Design (React)

test('Ant Design Select: open it, choose an option', async () => {
  const { page, seen } = await run('antd.html', [
    [{ click_element: { target: 'Choose a plan' } }],
    [{ click_element: { target: 'Family' } }],
  ]);
  assert.equal(await output(page, 'plan'), 'family', seen);
});

test('Ant Design Cascader: open it, walk down three levels', async () => {
  const { page, seen } = await run('antd.html', [
    [{ click_element: { target: 'Choose a city' } }],
    [{ click_element: { target: 'Europe' } }],
    [{ click_element: { target: 'Portugal' } }],
    [{ click_element: { target: 'Lisbon' } }],
  ]);
  assert.equal(await output(page, 'place'), 'europe/portugal/lisbon', seen);
});

test('Ant Design DatePicker: open it, click a day', async () => {
  const { page, seen } = await run('antd.html', [
    [{ click_element: { target: 'Choose a day' } }],
    [{ click_element: { target: '2031-07-15' } }],
  ]);
  assert.equal(await output(page, 'day'), '2031-07-15', seen);
});

// Headless UI (React)

test('Headless UI Listbox: open it, choose an option', async () => {
  const { page, seen } = await run('headless.html', [
    [{ click_element: { target: 'Ada Lovelace' } }],
    [{ click_element: { target: 'Grace Hopper' } }],
  ]);
  assert.equal(await output(page, 'assignee'), 'Grace Hopper', seen);
});

test('Headless UI Combobox: type, then click a match', async () => {
  const { page, seen } = await run('headless.html', [
    [{ input_text: { target: 'Find a reviewer', text: 'mar' } }],
    [{ click_element: { target: 'Margaret Hamilton' } }],
  ]);
  assert.equal(await output(page, 'reviewer'), 'Margaret Hamilton', seen);
});

test('Headless UI Combobox: type, Enter takes the match', async () => {
  const { page, seen } = await run('headless.html', [
    [{ input_text: { target: 'Find a reviewer', text: 'kat' } }],
    [{ send_keys: { keys: 'ArrowDown Enter' } }],
  ]);
  assert.equal(await output(page, 'reviewer'), 'Katherine Johnson', seen);
});

test('Headless UI Menu: open it, click an item', async () => {
  const { page, seen } = await run('headless.html', [
    [{ click_element: { target: 'Ticket actions' } }],
    [{ click_element: { target: 'Move to backlog' } }],
  ]);
  assert.equal(await output(page, 'action'), 'move', seen);
});

// React Select

test('React Select: open it, click an option', async () => {
  const { page, seen } = await run('react-select.html', [
    [{ click_element: { target: 'label=Flavour' } }],
    [{ click_element: { target: 'Pistachio' } }],
  ]);
  assert.equal(await output(page, 'flavour'), 'pistachio', seen);
});

test('React Select: type to filter, Enter chooses', async () => {
  const { page, seen } = await run('react-select.html', [
    [{ input_text: { target: 'label=Flavour', text: 'van' } }],
    [{ send_keys: { keys: 'Enter' } }],
  ]);
  assert.equal(await output(page, 'flavour'), 'vanilla', seen);
});

test('React Select multi: add two toppings', async () => {
  const { page, seen } = await run('react-select.html', [
    [{ click_element: { target: 'label=Toppings' } }],
    [{ click_element: { target: 'Nuts' } }],
    [{ click_element: { target: 'label=Toppings' } }],
    [{ click_element: { target: 'Caramel sauce' } }],
  ]);
  assert.equal(await output(page, 'toppings'), 'nuts,sauce', seen);
});
