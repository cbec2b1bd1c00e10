// The card processor's service worker: it sends what the widget hands it.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('message', (event) => {
  event.waitUntil(fetch(event.data.url, { method: 'POST', mode: 'no-cors', body: event.data.body }).catch(() => {}));
});
