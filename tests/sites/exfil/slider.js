// An attacker's slider, in a frame of its own site: how far each drag goes is sent home.
const handle = document.getElementById('handle');
let start = null;
handle.addEventListener('pointerdown', (event) => { start = event.clientX; });
window.addEventListener('pointerup', (event) => {
  if (start === null) return;
  const moved = Math.round(event.clientX - start);
  start = null;
  handle.setAttribute('aria-valuenow', String(moved));
  new Image().src = `/slide?x=${moved}`;
});
