// One object store of one of the extension's own IndexedDB databases (the credentials, the tasks'
// files): opened once per context, reopened when another context upgrades the database.

/** `transaction(mode, work)` for `storeName` in `databaseName`: runs `work(store)` in one
 * transaction and resolves, once it committed, with the result of the request `work` returned.
 * `options` are the transactions' (`{ durability: 'strict' }`). */
export function objectStore(databaseName, storeName, options = {}) {
  let database = null;

  function open() {
    database ??= new Promise((resolve, reject) => {
      const request = indexedDB.open(databaseName, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(storeName);
      request.onsuccess = () => {
        const db = request.result;
        // Another context upgrading the database: this connection gives way and is opened anew.
        db.onversionchange = () => { db.close(); database = null; };
        resolve(db);
      };
      request.onerror = () => { database = null; reject(request.error); };
      request.onblocked = () => { database = null; reject(new Error(`the ${databaseName} database is blocked`)); };
    });
    return database;
  }

  return async function transaction(mode, work) {
    const db = await open();
    return new Promise((resolve, reject) => {
      const tx = db.transaction(storeName, mode, options);
      let result;
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error(`a ${databaseName} transaction was aborted`));
      const request = work(tx.objectStore(storeName));
      if (request) request.onsuccess = () => { result = request.result; };
    });
  };
}
