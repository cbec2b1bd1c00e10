// Schedules on the local clock: Chromium runs in Berlin's time zone (the `TZ` variable), and the
// alarm the worker sets for a daily or weekly schedule comes at the first run's local time even
// with a daylight-saving change between them; an alarm that fires sets the next one, on the clock.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { askWorker, launchAgentBrowser, proposeWorkflow } from '../../runner/launch.mjs';
import { waitUntil } from '../support/fixtures.mjs';

const ZONE = 'Europe/Berlin';
const DAY = 24 * 3_600_000;
const NAME = 'Find a mug';
/** A run that succeeded, as the recorder keeps it: one field typed into. */
const RECORD = {
  task: 'find blue',
  outcome: { type: 'result', success: true },
  steps: [{ planned: [{ action: { input_text: { index: 2, text: 'blue' } }, element: { fingerprint: '00000000000000aa', description: '<input> "Search" [2]' } }] }],
};

let agent;
let workflow;

before(async () => {
  agent = await launchAgentBrowser({ env: { TZ: ZONE } });
  workflow = await proposeWorkflow(agent, RECORD);
  await ask({ type: 'save_workflow', workflow, name: NAME });
});

/** Asks the worker as the panel does; throws the problem it answers, if any. */
async function ask(request) {
  const answer = await askWorker(agent, request);
  assert.equal(answer.problem, null, JSON.stringify(answer));
  return answer;
}

after(async () => {
  await agent?.close();
});

/** What Berlin's clocks read at `ms` (worked out here, by Node, not by the browser under test). */
function berlin(ms) {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: ZONE, weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'shortOffset',
  }).formatToParts(ms);
  const part = Object.fromEntries(parts.map(({ type, value }) => [type, value]));
  return { day: `${part.year}-${part.month}-${part.day}`, weekday: part.weekday, time: `${part.hour}:${part.minute}:${part.second}`, offset: part.timeZoneName };
}

/** The instant Berlin's clocks read 08:00 on the date `days` before today's in UTC (negative: after). */
function eightOClock(days) {
  const day = new Date(Date.now() - days * DAY);
  const asUtc = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 8);
  const hours = Number(berlin(asUtc).offset.replace('GMT', '') || 0);
  return asUtc - hours * 3_600_000;
}

/** Schedules the workflow through the worker, as the panel does, in place of its earlier
 * schedule; resolves with the alarm the worker sets for it. */
async function schedule(repeat, firstMs) {
  await ask({ type: 'remove_schedule', workflow: NAME });
  await waitUntil(async () => (await agent.worker.evaluate((name) => chrome.alarms.get(name), `schedule:${NAME}`)) === undefined);
  await ask({ type: 'set_schedule', schedule: { workflow: NAME, values: {}, repeat, first_ms: firstMs } });
  return alarmOtherThan(undefined);
}

/** The schedule's alarm, once it is set for another time than `old`. */
async function alarmOtherThan(old, timeout = 5000) {
  let alarm;
  await waitUntil(async () => {
    alarm = await agent.worker.evaluate((name) => chrome.alarms.get(name), `schedule:${NAME}`);
    return alarm !== undefined && alarm.scheduledTime !== old;
  }, timeout);
  return alarm;
}

test('the browser under test keeps Berlin time', async () => {
  assert.equal(await agent.worker.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone), ZONE);
});

test('a daily or weekly schedule first run at 08:00 on the other side of a clock change gets its alarm at 08:00 local time', async () => {
  const now = Date.now();
  // Berlin's next 08:00s, worked out here: the alarms are due at the first of them, or at the
  // first on the first run's weekday.
  const next = [0, -1, -2, -3, -4, -5, -6, -7].map(eightOClock).filter((at) => at > now);
  // The latest day at least a month back whose 08:00 has another offset from UTC than the next.
  let days = 30;
  while (berlin(eightOClock(days)).offset === berlin(next[0]).offset && days < 366) days += 1;
  const first = eightOClock(days);
  assert.notEqual(berlin(first).offset, berlin(next[0]).offset, 'a day of the past year has another offset than the next');

  const daily = await schedule('daily', first);
  assert.equal(daily.periodInMinutes, undefined, 'a repeating alarm would keep a fixed period and drift');
  assert.equal(berlin(daily.scheduledTime).time, '08:00:00');
  assert.equal(daily.scheduledTime, next[0]);

  const weekly = await schedule('weekly', first);
  assert.deepEqual([berlin(weekly.scheduledTime).weekday, berlin(weekly.scheduledTime).time], [berlin(first).weekday, '08:00:00']);
  assert.equal(weekly.scheduledTime, next.find((at) => berlin(at).weekday === berlin(first).weekday));
});

test('a daily alarm that fires is set again for the next day at the same local time', async () => {
  const first = Date.now() + 2500;
  const set = await schedule('daily', first);
  assert.equal(set.scheduledTime, first);
  // It fires (the run itself, with no model set up, is not what this test is about) and is set
  // again.
  const next = await alarmOtherThan(first, 60_000);
  assert.equal(next.periodInMinutes, undefined);
  const [was, is] = [berlin(first), berlin(next.scheduledTime)];
  assert.equal(is.time, was.time);
  assert.equal(is.day, berlin(Date.parse(`${was.day}T12:00:00Z`) + DAY).day);
});
