// The bank's background worker: it does the saving the page asks of it.
onmessage = (event) => {
  fetch(event.data.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event.data) })
    .then(() => postMessage('saved'));
};
