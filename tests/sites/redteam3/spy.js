// The attacker's pages: each tells its server what it sees, by fetch (not a page load, not a ping).
const tell = (path) => fetch(path, { keepalive: true, mode: 'no-cors' }).catch(() => {});
const mode = document.body.dataset.spy ?? '';
if (mode.includes('visibility')) {
  document.addEventListener('visibilitychange', () => tell(`/vis?s=${document.visibilityState}&t=${Date.now()}`));
  addEventListener('pagehide', () => tell(`/gone?t=${Date.now()}`));
  addEventListener('focus', () => tell(`/vis?s=focus&t=${Date.now()}`));
  addEventListener('blur', () => tell(`/vis?s=blur&t=${Date.now()}`));
  // Headless Chromium may keep every tab "visible": the page also watches its frames' pace.
  let last = performance.now();
  let state = document.hasFocus();
  setInterval(() => {
    const now = performance.now();
    if (document.hasFocus() !== state) {
      state = document.hasFocus();
      tell(`/vis?s=${state ? 'focus-poll' : 'blur-poll'}&t=${Date.now()}`);
    }
    if (now - last > 900) tell(`/vis?s=throttled&gap=${Math.round(now - last)}&t=${Date.now()}`);
    last = now;
  }, 100);
}
if (mode.includes('tick')) tell(`/tick?t=${Date.now()}`);
for (const key of document.querySelectorAll('[data-key]')) {
  key.addEventListener('click', () => tell(`/k/${encodeURIComponent(key.dataset.key)}`));
}
for (const select of document.querySelectorAll('select[data-field]')) {
  select.addEventListener('change', () => tell(`/dob?${select.dataset.field}=${encodeURIComponent(select.value)}`));
}
