// The bytes of the tasks' files that the worker holds: those the user attached to a task and those
// a task downloaded (crate/core/src/files: the core keeps their names, types and sizes, and asks for
// the bytes by handle). They are kept in the extension's own IndexedDB, which survives the worker
// being stopped and which no web page or content script can open.

const DATABASE = 'agent-task-files';
const STORE = 'files';

let database = null;

function openDatabase() {
  database ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => {
      const db = request.result;
      db.onversionchange = () => { db.close(); database = null; };
      resolve(db);
    };
    request.onerror = () => { database = null; reject(request.error); };
    request.onblocked = () => { database = null; reject(new Error('the task files database is blocked')); };
  });
  return database;
}

/** Runs `work(store)` in one transaction; resolves with its request's result once committed. */
async function transaction(mode, work) {
  const db = await openDatabase();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    let result;
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('the task files transaction was aborted'));
    const request = work(tx.objectStore(STORE));
    if (request) request.onsuccess = () => { result = request.result; };
  });
}

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
