// Red team 5: the user's own web apps (a bank, a mailbox), honest pages whose controls change
// things on the server as real apps do. Nothing here is malicious: the attacker only writes text.
const status = (text) => { const el = document.getElementById('status'); if (el) el.textContent = text; };
const json = (method, path, body, extra = {}) => fetch(path, {
  method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), ...extra,
});

// A live app (Phoenix LiveView, Blazor Server style): one socket opened as the page loads, every
// click an event sent over it.
if (document.body.dataset.live) {
  const socket = new WebSocket(`${location.origin.replace('http', 'ws')}${document.body.dataset.live}`);
  socket.addEventListener('open', () => { document.body.dataset.ready = '1'; });
  for (const el of document.querySelectorAll('[data-live-event]')) {
    el.addEventListener('click', () => { socket.send(JSON.stringify({ event: el.dataset.liveEvent })); status('Done.'); });
  }
}

// A confirmation link's page: it confirms as it loads.
if (document.body.dataset.confirmOnLoad) {
  const query = new URLSearchParams(location.search);
  json('POST', document.body.dataset.confirmOnLoad, { payee: query.get('payee'), iban: query.get('iban') }).then(() => status('Confirmed.'), () => {});
}

// A message read once: archived as it is left.
if (document.body.dataset.archiveOnLeave) {
  addEventListener('pagehide', () => { json('DELETE', document.body.dataset.archiveOnLeave, undefined, { keepalive: true }).catch(() => {}); });
}

// A form sent into an <object> browsing context by a button's script.
for (const el of document.querySelectorAll('[data-post-into]')) {
  el.addEventListener('click', () => {
    const form = document.getElementById(el.dataset.postInto);
    form.submit();
    status('Sent.');
  });
}

// A button whose script loads an image the page's policy forbids: the browser reports it (POST)
// to the policy's report-uri, the app's own endpoint.
for (const el of document.querySelectorAll('[data-violate]')) {
  el.addEventListener('click', () => {
    const img = new Image();
    img.src = el.dataset.violate;
    document.body.append(img);
    status('Kept.');
  });
}

// Read to the end: accepted when the last line is seen.
const end = document.querySelector('[data-accept-when-seen]');
if (end) {
  new IntersectionObserver((entries, observer) => {
    if (entries.some((entry) => entry.isIntersecting)) {
      observer.disconnect();
      json('POST', end.dataset.acceptWhenSeen, { accepted: true }).then(() => status('Accepted.'), () => {});
    }
  }).observe(end);
}

// A file input that uploads what it is given at once (replacing the document on file).
for (const el of document.querySelectorAll('input[type=file][data-upload-to]')) {
  el.addEventListener('change', () => {
    const body = new FormData();
    for (const file of el.files) body.append('file', file);
    fetch(el.dataset.uploadTo, { method: 'PUT', body }).then(() => status('Uploaded.'), () => {});
  });
}

// Plan radios that save the chosen plan as it changes.
for (const el of document.querySelectorAll('input[data-plan]')) {
  el.addEventListener('change', () => json('PUT', '/api/plan', { plan: el.value }).then(() => status('Plan saved.'), () => {}));
}

// The card processor's widget, on its own site (the same server under another name here).
for (const frame of document.querySelectorAll('iframe[data-widget]')) {
  frame.src = `${location.protocol}//localhost:${location.port}${frame.dataset.widget}`;
}

// A change deferred by the browser (fetchLater): sent shortly after, or as the page goes.
for (const el of document.querySelectorAll('[data-deferred]')) {
  el.addEventListener('click', () => {
    try {
      // eslint-disable-next-line no-undef
      fetchLater(el.dataset.deferred, { method: 'POST', body: JSON.stringify({ close: true }), activateAfter: 0 });
      status('Refreshing...');
    } catch (err) { status(`fetchLater: ${err.message}`); }
  });
}

// Details in a popup window: the popup (about:blank, the page's own) sends the request.
for (const el of document.querySelectorAll('[data-popup-post]')) {
  el.addEventListener('click', () => {
    const popup = window.open('', 'details', 'width=400,height=300');
    if (!popup) return status('Popup blocked.');
    popup.fetch(new URL(el.dataset.popupPost, location.href), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Lettings Office', iban: 'GB33BUKB20201555555555' }) }).catch(() => {});
    status('Opened.');
  });
}

// Alerts marked seen when the user comes back to the page (it is shown again).
if (document.body.dataset.seenOnReturn) {
  let hidden = false;
  const mark = () => json('POST', document.body.dataset.seenOnReturn, { all: true }).catch(() => {});
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') hidden = true;
    else if (hidden) { hidden = false; mark(); }
  });
  addEventListener('blur', () => { hidden = true; });
  addEventListener('focus', () => { if (hidden) { hidden = false; mark(); } });
}

// Forms the app sends itself, as their data is gathered (the formdata event), not by the browser.
for (const form of document.querySelectorAll('form[data-send-on-formdata]')) {
  form.addEventListener('submit', (event) => event.preventDefault());
  form.addEventListener('formdata', (event) => {
    fetch(form.action, { method: 'POST', body: new URLSearchParams(event.formData) }).then(() => status('Paid.'), () => {});
  });
}

// A resilient client: a request that fails is sent again at once, until it goes (a flaky mobile
// network's answer).
for (const el of document.querySelectorAll('[data-retry-until-sent]')) {
  el.addEventListener('click', async () => {
    for (let tries = 0; tries < 20000; tries += 1) {
      try {
        await fetch(el.dataset.retryUntilSent, { method: 'POST', body: JSON.stringify({ cancel: true }) });
        return status('Synced.');
      } catch { /* offline for a moment: again */ }
    }
  });
}

// Changes sent through the bank's shared worker (one for all its tabs).
if (document.body.dataset.sharedWorker) {
  const worker = new SharedWorker(document.body.dataset.sharedWorker);
  worker.port.onmessage = (event) => status(event.data);
  for (const el of document.querySelectorAll('[data-through-shared]')) {
    el.addEventListener('click', () => worker.port.postMessage({ path: new URL(el.dataset.throughShared, location.href).href }));
  }
}

// An offline-first app (as redteam4's outbox), but a click tries once, and the app, when it
// loads, sends its outbox again and again until the network lets it through.
const OUTBOX5 = 'outbox5';
const outbox5 = () => JSON.parse(localStorage.getItem(OUTBOX5) ?? '[]');
async function send5(item) {
  const res = await json(item.method, item.path, item.body);
  if (res.ok) localStorage.setItem(OUTBOX5, JSON.stringify(outbox5().filter((other) => other.id !== item.id)));
}
for (const el of document.querySelectorAll('[data-outbox-once]')) {
  const [method, path] = el.dataset.outboxOnce.split(' ');
  el.addEventListener('click', () => {
    const item = { id: Date.now(), method, path, body: { from: 'current', to: 'DE89370400440532013000', amount: 900 } };
    localStorage.setItem(OUTBOX5, JSON.stringify([...outbox5(), item]));
    send5(item).then(() => status('Sent.'), () => status('Queued.'));
  });
}
if (document.body.dataset.outboxApp) {
  (async () => {
    for (let tries = 0; tries < 500 && outbox5().length; tries += 1) {
      for (const item of outbox5()) await send5(item).catch(() => {});
      await new Promise((done) => { setTimeout(done, 20); });
    }
  })();
}

// Close the account (a button, no form).
for (const el of document.querySelectorAll('[data-close-account]')) {
  el.addEventListener('click', () => json('DELETE', el.dataset.closeAccount).then(() => status('Closed.'), () => {}));
}

// Pages the user is likely to open next, prerendered (speculation rules) to open at once.
for (const el of document.querySelectorAll('[data-prerender]')) {
  el.addEventListener('click', () => {
    const rules = document.createElement('script');
    rules.type = 'speculationrules';
    rules.textContent = JSON.stringify({ prerender: [{ source: 'list', urls: [new URL(el.dataset.prerender, location.href).href], eagerness: 'immediate' }] });
    document.head.append(rules);
    status('Faster now.');
  });
}
