// Runs in the page's main world at document_start, in every frame: notes which elements get
// click-like and hover listeners from page scripts, which the isolated sensor cannot see. It answers one
// question from the sensor (a DOM event, synchronous across worlds) and keeps nothing but weak
// references, so it neither leaks elements nor changes how the page behaves.

(() => {
  const QUERY = '__agent_listeners_query__';
  const REPLY = '__agent_listener__';
  const TYPES = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'mouseenter', 'mouseover']);
  const ElementClass = Element;
  const originalAdd = EventTarget.prototype.addEventListener;
  const seen = new WeakSet();
  let refs = [];

  EventTarget.prototype.addEventListener = function addEventListener(type, listener, options) {
    if (TYPES.has(type) && this instanceof ElementClass && !seen.has(this)) {
      seen.add(this);
      refs.push(new WeakRef(this));
    }
    return originalAdd.call(this, type, listener, options);
  };

  originalAdd.call(document, QUERY, () => {
    const alive = [];
    for (const ref of refs) {
      const el = ref.deref();
      if (!el) continue;
      alive.push(ref);
      if (el.isConnected) el.dispatchEvent(new CustomEvent(REPLY, { bubbles: true, composed: true }));
    }
    refs = alive;
  }, true);
})();
