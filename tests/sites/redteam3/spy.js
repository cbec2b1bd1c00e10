// The attacker's pages: each tells its server what it sees, by fetch (not a page load, not a ping).
const tell = (path) => fetch(path, { keepalive: true, mode: 'no-cors' }).catch(() => {});
const mode = document.body.dataset.spy ?? '';
if (mode.includes('visibility')) {
  document.addEventListener('visibilitychange', () => tell(`/vis?s=${document.visibilityState}&t=${Date.now()}`));
  addEventListener('pagehide', () => tell(`/gone?t=${Date.now()}`));
}
if (mode.includes('tick')) tell(`/tick?t=${Date.now()}`);
for (const key of document.querySelectorAll('[data-key]')) {
  key.addEventListener('click', () => tell(`/k/${encodeURIComponent(key.dataset.key)}`));
}
for (const select of document.querySelectorAll('select[data-field]')) {
  select.addEventListener('change', () => tell(`/dob?${select.dataset.field}=${encodeURIComponent(select.value)}`));
}
