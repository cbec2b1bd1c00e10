// The bytes of the tasks' files that the worker holds: those the user attached to a task and those
// a task downloaded (crate/core/src/files: the core keeps their names, types and sizes, and asks for
// the bytes by handle). They are kept in the extension's own IndexedDB, which survives the worker
// being stopped and which no web page or content script can open.

import { objectStore } from '../shared/object-store.js';

const DATABASE = 'agent-task-files';
const STORE = 'files';

const transaction = objectStore(DATABASE, STORE);

/** Keeps a file's bytes (a Uint8Array; null when they are not kept, with what the caller notes
 * of why) with its name and type, under `handle` (a new one unless given); resolves with it. */
export async function holdFile({ name, mime, bytes, ...notes }, handle = crypto.randomUUID()) {
  await transaction('readwrite', (store) => store.put({ name, mime, bytes, ...notes }, handle));
  return handle;
}

/** The file held under `handle` ({name, mime, bytes}), or null when there is none. */
export async function heldFile(handle) {
  return (await transaction('readonly', (store) => store.get(handle))) ?? null;
}

/** Lets go of the files held whose record (`{name, mime, bytes, ...notes}`) `test` accepts. */
export async function releaseFilesWhere(test) {
  await transaction('readwrite', (store) => {
    const walk = store.openCursor();
    walk.onsuccess = () => {
      const cursor = walk.result;
      if (!cursor) return;
      if (test(cursor.value)) cursor.delete();
      cursor.continue();
    };
  });
}

/** Lets go of the files held under these handles. */
export async function releaseFiles(handles) {
  await transaction('readwrite', (store) => { for (const handle of handles) store.delete(handle); });
}
