// What the worker does when the core panics (crate/wasm/src/panic.rs).
//
// The core's wasm instance is then dead for good: it is built with panic = "abort", so a panic
// traps, and a trap unwinds nothing (the instance's stack pointer, borrowed cells and half-done
// tasks stay as they were); no later call into it could be trusted. Reloading the extension
// would start clean but close every panel's port and lose what the panels show. Instead, the
// panic hook has wasm-bindgen's glue make a fresh instance of the same module at the next call
// into it (`schedule_reinit`), and the worker makes that call at once, from the hook
// (`replaceInstance`): the glue then counts every object and callback of the dead instance as
// stale (a call on one throws, and its finaliser frees nothing in the fresh one). It must be at
// once: the glue checks for staleness before it replaces the instance, so an old `Core` or
// callback called first would run on the fresh instance with the dead one's pointers. The worker
// then makes a fresh `Core` there and goes on.
//
// The tasks under way when it panicked are ended, each with an error saying so, and are not
// resumed from their checkpoints: a panic is a defect, and a resumed task would likely meet it
// again at the same step, over and over. Their checkpoints are cleared and their tabs given back.
// Tasks waiting for a place were saved as waiting, and the fresh Core takes them up as after a
// restart of the worker. If the fresh Core panics while it starts (resuming meets the defect
// again), it is not restarted once more: the panels are told the core failed and to reload.

import { t } from '../shared/i18n.js';
import { PROTOCOL_VERSION } from '../shared/worker.js';

const FINAL = new Set(['result', 'error', 'stopped']);

/** A fresh core is starting after a panic. */
let starting = false;

/** The tasks under way, as the panels were told (task_started or task_resumed, and no end yet),
 * each with the steps it has done. */
export function runningTasks() {
  const steps = new Map();
  return {
    /** Notes an event on its way to the panels. */
    note(event) {
      if (!event.chat) return;
      if (event.type === 'task_started' || event.type === 'task_resumed') steps.set(event.chat, steps.get(event.chat) ?? 0);
      else if (event.type === 'step' && steps.has(event.chat)) steps.set(event.chat, event.step);
      else if (FINAL.has(event.type)) steps.delete(event.chat);
    },
    /** The tasks under way, as `[chat, steps]`, forgetting them. */
    takeAll() {
      const all = [...steps];
      steps.clear();
      return all;
    },
  };
}

/**
 * Replaces the dead instance (`replaceInstance()`), ends the tasks `running` holds after the core
 * panicked with `panic` (what and where), then resolves to a fresh Core from `start()`. Called
 * from the panic hook, before the dead instance traps.
 */
export async function restartAfterPanic({ panic, running, host, broadcast, replaceInstance, start }) {
  replaceInstance();
  console.error(`The agent's core panicked, and is restarted: ${panic}`);
  const interrupted = running.takeAll();
  // The rest once the trap has ended the call that panicked.
  await null;
  const saved = await host.loadTasks().catch(() => ({}));
  for (const [chat, steps] of interrupted) {
    await host.saveTask(chat, null).catch(() => {});
    const tabs = saved[chat]?.taskTabs;
    if (Array.isArray(tabs)) await host.finish(tabs).catch(() => {});
    broadcast({ v: PROTOCOL_VERSION, type: 'error', chat, steps, message: t('worker_core_panicked', panic) });
  }
  if (starting) throw new Error(panic);
  starting = true;
  try {
    return await start();
  } finally {
    starting = false;
  }
}
