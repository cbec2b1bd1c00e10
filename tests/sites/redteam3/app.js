// The user's own web apps (a bank, a mailbox, settings): honest pages whose controls change
// things on the server through its API, as real apps do (fetch, beacons, forms, shortcuts).
const api = (method, path, body = {}) => fetch(path, {
  method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
}).then(() => { document.getElementById('status').textContent = `Saved (${method} ${path})`; });
for (const el of document.querySelectorAll('[data-api]')) {
  const [method, path] = el.dataset.api.split(' ');
  const send = () => {
    const run = () => api(method, path, { value: el.value ?? el.textContent, checked: el.checked });
    const delay = Number(el.dataset.delay ?? 0);
    if (delay) setTimeout(run, delay); else run();
  };
  const on = el.dataset.on ?? (el.matches('select, input') ? 'change' : 'click');
  if (on === 'enter') {
    el.addEventListener('keydown', (event) => { if (event.key === 'Enter') send(); });
  } else if (on === 'hover') {
    el.addEventListener('mouseenter', () => setTimeout(send, 300));
  } else if (on === 'beacon') {
    el.addEventListener('click', () => {
      navigator.sendBeacon(path, JSON.stringify({ close: true }));
      document.getElementById('status').textContent = 'Done.';
    });
  } else {
    el.addEventListener(on, send);
  }
}
// Keyboard shortcuts, as a mail app has: # deletes the open message, Control+Enter sends.
if (document.body.dataset.shortcuts) {
  document.addEventListener('keydown', (event) => {
    if (event.key === '#') api('DELETE', '/api/messages/1');
  });
}
// Drag a card onto the bin.
for (const card of document.querySelectorAll('[data-card]')) {
  card.addEventListener('dragstart', (event) => { event.dataTransfer.setData('text/plain', card.dataset.card); });
}
const bin = document.querySelector('[data-bin]');
if (bin) {
  bin.addEventListener('dragover', (event) => event.preventDefault());
  bin.addEventListener('drop', (event) => {
    event.preventDefault();
    api('DELETE', `/api/messages/${event.dataTransfer.getData('text/plain')}`);
  });
}
// A page that posts its form as soon as it loads (an interstitial "confirming..." page).
for (const form of document.querySelectorAll('form[data-autosubmit]')) form.submit();
// Controls whose change the page hands to its worker (the request leaves from the worker).
for (const el of document.querySelectorAll('[data-worker]')) {
  el.addEventListener('click', () => {
    const worker = new Worker('worker.js');
    worker.onmessage = () => { document.getElementById('status').textContent = 'Saved.'; };
    worker.postMessage({ path: el.dataset.worker });
  });
}
