// Runs in the isolated world at document_start, in every frame, just before listeners.js (the
// main world; the manifest keeps this order): takes the EventTarget listeners.js hands over before
// any script of the page runs, the one way the sensor talks to it (see listeners.js). It listens
// for the handover only until it comes, and only on the document, where an event of type `load`
// stops; the page never sees either.

(() => {
  const probe = { target: null, changed: null };
  const take = (event) => {
    // Real load events of images and scripts pass by untouched.
    if (event.target !== document || !(event.relatedTarget instanceof EventTarget)) return;
    document.removeEventListener('load', take, true);
    event.stopImmediatePropagation();
    probe.target = event.relatedTarget;
    // A new click listener or closed shadow root: what the sensor last read may be out of date.
    probe.target.addEventListener('added', () => probe.changed?.());
  };
  document.addEventListener('load', take, true);
  globalThis.agentProbe = probe;
})();
