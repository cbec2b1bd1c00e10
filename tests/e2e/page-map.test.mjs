// The page map of real pages in headless Chromium, exactly as the navigator would read it:
// fixture pages under a strict CSP, with a cross-origin frame served from a second origin.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchAgentBrowser, openTarget } from '../../runner/launch.mjs';
import { startSiteServer } from '../support/site-server.mjs';

let agent;
let site;
let otherSite;
let target;

before(async () => {
  site = await startSiteServer();
  otherSite = await startSiteServer();
  agent = await launchAgentBrowser();
  target = await openTarget(agent, `${site.origin}/map/controls.html`);
});

after(async () => {
  await agent?.close();
  await site?.close();
  await otherSite?.close();
});

/** The map of `path` as the navigator reads it: `{ text, elements, indexed }`. */
async function mapOf(url) {
  await target.page.goto(url, { waitUntil: 'load' });
  return agent.worker.evaluate(async (tabId) => {
    while (!globalThis.agentCore) await new Promise((resolve) => setTimeout(resolve, 20));
    return globalThis.agentCore.describePage(tabId);
  }, target.tabId);
}

test('controls: what a person can use, with labels, values, states and script listeners, nothing hidden', async () => {
  const { text } = await mapOf(`${site.origin}/map/controls.html`);
  assert.equal(text, [
    '[Start of page]',
    'Account',
    '[1]a Other page',
    '[2]input label="Remember me" type=checkbox checked=true',
    '[3]input label="Email address" type=email value=me@example.com',
    '[4]input type=password aria-label=Password',
    '[5]select name=size value=Large options=Small|Large',
    'Disabled action',
    '[6]div role=button Custom button',
    '[7]div Open menu',
    '[8]div Card title',
    '[9]a Read more',
    '[10]label Upload a photo',
    'Inert button',
    '[11]div aria-label=Notes Draft',
    '[12]details',
    '\t[13]summary Shipping',
    '[End of page]',
    '',
  ].join('\n'));
  // Nothing hidden: not a password, not hidden or transparent text, not a closed <details>' content.
  assert.doesNotMatch(text, /hunter2|Hidden text|Transparent button|Rates/);
});

test('shadow DOM: open and closed roots and slotted content are mapped', async () => {
  const { text } = await mapOf(`${site.origin}/map/shadow.html`);
  assert.equal(text, [
    '[Start of page]',
    'Components',
    '[1]button Open shadow button',
    'Slotted label',
    '[2]input placeholder="Closed shadow input"',
    '[End of page]',
    '',
  ].join('\n'));
});

test('an element covered by a modal is not offered; the modal is', async () => {
  const { text } = await mapOf(`${site.origin}/map/modal.html`);
  assert.equal(text, '[Start of page]\nWe use cookies.\n[1]button Accept cookies\n[End of page]\n');
});

/** The map of map/frames.html with its frames in place, the cross-origin ones from `other`,
 * whose elements say which site they belong to. */
function framesMap(other) {
  const site = new URL(other).host;
  return [
    '[Start of page]',
    '[1]button Top button',
    '[2]a href=/map/inner-link.html Same-origin frame link',
    `[3]button site=${site} Cross-origin frame button`,
    `[4]a href=${site}/map/inner-link.html site=${site} Same-origin frame link`,
    '[End of page]',
    '',
  ].join('\n');
}

test('frames: same-origin and cross-origin frames, nested, stitched in place', async () => {
  const other = otherSite.origin.replace('127.0.0.1', 'localhost');
  const { text } = await mapOf(`${site.origin}/map/frames.html?other=${encodeURIComponent(other)}`);
  assert.equal(text, framesMap(other));
});

test('a frame that appears after the page was read is stitched in place the next time', async () => {
  const other = otherSite.origin.replace('127.0.0.1', 'localhost');
  await mapOf(`${site.origin}/map/frames.html`);
  await target.page.evaluate((src) => new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.src = src;
    frame.style.cssText = 'width:500px;height:260px;border:0';
    frame.onload = resolve;
    document.getElementById('slot').append(frame);
  }), `${other}/map/frame-outer.html`);
  const { text } = await agent.worker.evaluate((tabId) => globalThis.agentCore.describePage(tabId), target.tabId);
  assert.equal(text, framesMap(other));
});

test('frames a frame of another site writes itself are of its site, or of an unknown one when opaque', async () => {
  const other = otherSite.origin.replace('127.0.0.1', 'localhost');
  const { text } = await mapOf(`${site.origin}/map/written-frames.html?other=${encodeURIComponent(other)}`);
  const writer = new URL(other).host;
  assert.equal(text, [
    '[Start of page]',
    '[1]button Top button',
    `[2]input name=srcdoc site=${writer}`,
    `[3]input name=blank site=${writer}`,
    `[4]input name=blob site=${writer}`,
    `[5]div site=${writer} Tap`,
    '[6]input name=data site=unknown',
    '[7]div site=unknown Tap',
    '[8]input name=sandboxed site=unknown',
    '[9]div site=unknown Tap',
    '[End of page]',
    '',
  ].join('\n'));
});

/** The map of the target tab as it is now, and whether a frame was read again (if not, every
 * frame's last record was used again). */
async function mapAgain() {
  const { text, frames_read: read } = await agent.worker.evaluate((tabId) => globalThis.agentCore.describePage(tabId), target.tabId);
  return { text, reread: read > 0 };
}

test('a page is read again only where it changed, and every kind of change is seen', async () => {
  const first = await mapOf(`${site.origin}/map/controls.html`);
  assert.deepEqual(await mapAgain(), { text: first.text, reread: false });
  // A value set by a script: no DOM change, no event.
  await target.page.evaluate(() => { document.querySelector('input[type=email]').value = 'you@example.com'; });
  let again = await mapAgain();
  assert.ok(again.reread);
  assert.match(again.text, /\[3\]input label="Email address" type=email value=you@example\.com\n/);
  assert.equal((await mapAgain()).reread, false);
  // A click listener added to plain text: no DOM change either.
  await target.page.evaluate(() => { document.querySelector('h1').addEventListener('click', () => {}); });
  again = await mapAgain();
  assert.ok(again.reread);
  assert.match(again.text, /\[\d+\]h1 Account\n/);
  // Inside a closed shadow root: what a person types there, and what the component's own script
  // sets (a value, with no event; an attribute).
  await mapOf(`${site.origin}/map/shadow.html`);
  assert.equal((await mapAgain()).reread, false);
  const widget = await target.page.locator('closed-widget').boundingBox();
  await target.page.mouse.click(widget.x + widget.width / 2, widget.y + widget.height / 2);
  await target.page.keyboard.type('typed');
  again = await mapAgain();
  assert.ok(again.reread);
  assert.match(again.text, /\[2\]input placeholder="Closed shadow input" value=typed\n/);
  assert.equal((await mapAgain()).reread, false);
  await target.page.evaluate(() => document.querySelector('closed-widget').fill('filled'));
  again = await mapAgain();
  assert.ok(again.reread);
  assert.match(again.text, /\[2\]input placeholder="Closed shadow input" value=filled\n/);
  await target.page.evaluate(() => document.querySelector('closed-widget').hint('Your email'));
  again = await mapAgain();
  assert.ok(again.reread);
  assert.match(again.text, /\[2\]input placeholder="Your email" value=filled\n/);
  // The highlights come and go without making the page changed.
  await agent.worker.evaluate((tabId) => chrome.scripting.executeScript({ target: { tabId },
    func: () => globalThis.agentSensor.highlight([{ id: 1, index: 1 }]) }), target.tabId);
  assert.equal((await mapAgain()).reread, false);

  await mapOf(`${site.origin}/map/long.html`);
  const top = await mapAgain();
  assert.equal(top.reread, false);
  await target.page.evaluate(() => window.scrollTo(0, 3000));
  again = await mapAgain();
  assert.ok(again.reread);
  assert.notEqual(again.text, top.text);

  // A change in a cross-origin frame, the page around it unchanged.
  const other = otherSite.origin.replace('127.0.0.1', 'localhost');
  await mapOf(`${site.origin}/map/frames.html?other=${encodeURIComponent(other)}`);
  assert.equal((await mapAgain()).reread, false);
  const frame = target.page.frames().find((f) => f.url().includes('frame-outer'));
  await frame.evaluate(() => { document.querySelector('button').textContent = 'Renamed in the frame'; });
  again = await mapAgain();
  assert.equal(again.text, framesMap(other).replace('Cross-origin frame button', 'Renamed in the frame'));
});

test('a long page lists the viewport and summarises the rest with the scroll position', async () => {
  const { text } = await mapOf(`${site.origin}/map/long.html`);
  const lines = text.split('\n');
  assert.equal(lines[0], '[Start of page]');
  assert.equal(lines[1], 'Long list');
  assert.equal(lines[2], '[1]button Item 1');
  assert.match(lines.at(-2), /^\.\.\. \d+\.\d pages below; \d+ interactive elements below: 'Item \d+', 'Item \d+', 'Item \d+', 'Item \d+', 'Item \d+', \.\.\.$/);
  const listed = lines.filter((line) => line.startsWith('['));
  assert.ok(listed.length > 5 && listed.length < 30, `${listed.length} elements listed`);

  await target.page.evaluate(() => window.scrollTo(0, 2000));
  const scrolled = await agent.worker.evaluate((tabId) => globalThis.agentCore.describePage(tabId), target.tabId);
  // Above: how far, how many, and the five nearest by name (the items are the only elements).
  const above = scrolled.text.split('\n')[0]
    .match(/^\.\.\. \d+\.\d pages above; (\d+) interactive elements above: 'Item (\d+)', 'Item (\d+)', 'Item (\d+)', 'Item (\d+)', 'Item (\d+)', \.\.\.$/);
  assert.ok(above, scrolled.text.split('\n')[0]);
  const [count, ...nearest] = above.slice(1).map(Number);
  assert.deepEqual(nearest, [count - 4, count - 3, count - 2, count - 1, count]);
});

test('a page with 65,000 elements and deep nesting comes back, saying what was left out', async () => {
  const result = await mapOf(`${site.origin}/map/huge.html`);
  assert.match(result.text, /\[\d+\]button Deep button\n/);
  assert.match(result.text, /Note: the page is very large: only the first 40000 elements were read\n$/);
  assert.equal(result.elements, 40000);
});

test('restricted pages are refused with a clear reason', async () => {
  const error = await agent.worker.evaluate(async () => {
    const tab = await chrome.tabs.create({ url: 'chrome://version', active: false });
    // Asked once the tab shows the browser page, not while it is still opening.
    for (const end = Date.now() + 10_000; (await chrome.tabs.get(tab.id)).status !== 'complete';) {
      if (Date.now() > end) return 'chrome://version did not load within 10 s';
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    try {
      await globalThis.agentCore.describePage(tab.id);
      return 'no error';
    } catch (err) {
      return String(err);
    } finally {
      await chrome.tabs.remove(tab.id);
    }
  });
  assert.match(error, /this page cannot be read or operated by extensions \(browser pages such as chrome:\/\/ and the Web Store are protected\)/);
});

test('a hostile page neither detects the listener probe nor speaks in its name', async () => {
  // tests/sites/attacks/listener-probe.js hunts for the probe (global names, toString, name,
  // length and descriptors of the patched functions, also from a fresh frame, errors' stacks,
  // events, attributes), hands the sensor a channel of its own, answers the old questions for
  // #plain and hides the answers for #real.
  const { text } = await mapOf(`${site.origin}/attacks/listener-probe.html`);
  const report = await target.page.locator('#report').textContent();
  assert.equal(report, 'Probe detected: nothing');
  assert.equal(text, [
    '[Start of page]',
    'Offers',
    '[1]div Real action',
    'Plain words',
    'Probe detected: nothing',
    '[End of page]',
    '',
  ].join('\n'));
});
