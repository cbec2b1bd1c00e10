// Red team 6: the user's own bank and mailbox, honest pages whose controls change things on the
// server as real apps do (tests/e2e/redteam6.test.mjs). The bank's API also answers on its other
// host name (localhost instead of 127.0.0.1), as a bank's API on its own domain would.
const status = (text) => { const el = document.getElementById('status'); if (el) el.textContent = text; };
const apiHost = () => `${location.protocol}//localhost:${location.port}`;
const body = document.body.dataset;
const query = new URLSearchParams(location.search);
const payee = () => JSON.stringify({ payee: query.get('payee'), iban: query.get('iban') });

// A payee confirmation link's page: it confirms as it loads (to its own host, or to the API host).
function confirm() {
  if (body.confirmOnLoad) {
    fetch(body.confirmOnLoad, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payee() }).then(() => status('Confirmed.'), () => {});
  }
  if (body.confirmToApiHost) {
    fetch(`${apiHost()}${body.confirmToApiHost}`, { method: 'POST', mode: 'no-cors', body: payee() }).then(() => status('Confirmed.'), () => {});
  }
}
confirm();
// Shown again from the back/forward cache (off under Playwright, on in a user's Chrome).
addEventListener('pageshow', (event) => { if (event.persisted) confirm(); });

// A message read once: archived as it is left.
if (body.archiveOnLeave) {
  addEventListener('pagehide', () => { fetch(body.archiveOnLeave, { method: 'DELETE', keepalive: true }).catch(() => {}); });
}

// Links to the bank's pages on its other host name, and back.
for (const link of document.querySelectorAll('a[data-other-host]')) link.href = `${apiHost()}${link.dataset.otherHost}`;
for (const link of document.querySelectorAll('a[data-ip-host]')) link.href = `${location.protocol}//127.0.0.1:${location.port}${link.dataset.ipHost}`;

// The bank's secure-link service: it sends the browser on (a path goes to the bank's other host).
if (body.hop) {
  const to = query.get('to') ?? '/';
  location.replace(to.startsWith('/') ? `${apiHost()}${to}` : to);
}

// "Dismiss" tells the API host by a beacon (fire and forget, as the page may be left at once).
for (const el of document.querySelectorAll('[data-beacon-dismiss]')) {
  el.addEventListener('click', () => {
    navigator.sendBeacon(`${apiHost()}${el.dataset.beaconDismiss}`, JSON.stringify({ alert: 'sign-in-lagos', seen: true }));
    el.closest('[role=alert]')?.remove();
  });
}

// A PIN box that approves the pending payment request as soon as it holds four digits.
for (const el of document.querySelectorAll('input[data-approve-at]')) {
  el.addEventListener('input', () => {
    if (el.value.length !== 4) return;
    fetch(el.dataset.approveAt, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pin: el.value, approve: true }) })
      .then(() => status('Payment request approved.'), () => {});
  });
}

// A button that opens its page in a new window (the user allowed this bank's pop-ups).
for (const el of document.querySelectorAll('[data-open-popup]')) {
  el.addEventListener('click', () => { window.open(el.dataset.openPopup); });
}

// A settings field that saves itself a moment after the typing stops (debounced autosave).
for (const el of document.querySelectorAll('input[data-autosave]')) {
  let timer = null;
  el.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      fetch(el.dataset.autosave, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ forwardTo: el.value }) }).then(() => status('Saved.'), () => {});
    }, Number(el.dataset.autosaveMs ?? 800));
  });
}

// A live action: the click opens the app's socket and sends the event over it.
for (const el of document.querySelectorAll('[data-ws-event]')) {
  el.addEventListener('click', () => {
    const socket = new WebSocket(`${location.origin.replace('http', 'ws')}/live6`);
    socket.addEventListener('open', () => { socket.send(JSON.stringify({ event: el.dataset.wsEvent })); status('Synced.'); });
  });
}
