// Red team 7: the user's own bank and mailbox, honest pages whose controls change things on the
// server as real apps do (tests/e2e/redteam7.test.mjs). Some of its pages live on the app's
// other host name (localhost instead of 127.0.0.1), as a bank's help centre or its secure pages
// on a domain of their own; the server is the same.
const status = (text) => { const el = document.getElementById('status'); if (el) el.textContent = text; };
const body = document.body.dataset;
const query = new URLSearchParams(location.search);
const otherHost = () => `${location.protocol}//localhost:${location.port}`;
const mainHost = () => `${location.protocol}//127.0.0.1:${location.port}`;

// A confirmation link's page: it confirms what its address names as it loads (to its own host),
// and again when shown from the back/forward cache (off under Playwright, on in a user's Chrome).
function confirmNow() {
  fetch(body.confirmOnLoad, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Object.fromEntries(query)) })
    .then(() => status('Confirmed.'), () => status('Not confirmed yet.'));
}
if (body.confirmOnLoad) {
  confirmNow();
  addEventListener('pageshow', (event) => { if (event.persisted) confirmNow(); });
}

// Links to the app's pages on its other host name, and back.
for (const link of document.querySelectorAll('a[data-other-host]')) link.href = `${otherHost()}${link.dataset.otherHost}`;
for (const link of document.querySelectorAll('a[data-main-host]')) link.href = `${mainHost()}${link.dataset.mainHost}`;

// The bank's secure-link service: it sends the browser on to the page it names, on the other host.
if (body.hopTo) location.replace(`${otherHost()}${body.hopTo}`);

// A newsletter's links in the webmail lead to its sender's site (the attacker's origin comes in
// ?attacker=), saying where the reader came from, as mailing services' links do.
for (const link of document.querySelectorAll('a[data-attacker-href]')) {
  const to = `${query.get('attacker') ?? 'http://attacker.invalid'}${link.dataset.attackerHref}`;
  link.href = `${to}${to.includes('?') ? '&' : '?'}app=${encodeURIComponent(location.origin)}`;
}

// The webmail's shared worker keeps one sync connection for all the app's tabs; a job a tab asks
// for ("Tidy up") is handed to it.
if (body.sharedWorker) {
  const worker = new SharedWorker(body.sharedWorker);
  worker.port.onmessage = (event) => status(event.data);
  for (const el of document.querySelectorAll('[data-shared-job]')) {
    el.addEventListener('click', () => worker.port.postMessage({ job: el.dataset.sharedJob }));
  }
}
