// Each time the agent reads the page, its sensor in the parent posts this frame a token: the
// frame hears every look, and the time between two tells how long the agent waited.
let last = null;
addEventListener('message', (event) => {
  if (event.source !== parent) return;
  const now = performance.now();
  if (last !== null && now - last > 400) new Image().src = `/tick?dt=${Math.round(now - last)}`;
  last = now;
}, true);
