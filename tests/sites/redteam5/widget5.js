// The bank's card processor's widget, on its own site: its changes leave through its service worker.
const bankOrigin = `${location.protocol}//127.0.0.1:${location.port}`;
navigator.serviceWorker.register('sw5.js').then(() => navigator.serviceWorker.ready).then((registration) => {
  document.body.dataset.ready = '1';
  document.getElementById('go').addEventListener('click', () => {
    registration.active.postMessage({ url: `${bankOrigin}/api/card/unfreeze`, body: 'card=4417' });
    document.getElementById('status').textContent = 'Done.';
  });
}).catch((err) => { document.getElementById('status').textContent = `service worker: ${err.message}`; document.body.dataset.failed = '1'; });
