// Runs in the page's main world at document_start, in every frame: notes which elements get
// click-like and hover listeners from page scripts (directly, or through jQuery's or React's
// delegation), and which host closed shadow roots, none of which the isolated sensor can see
// cheaply. It answers one question from the sensor (a DOM event, synchronous across worlds) and
// keeps nothing but weak references, so it neither leaks elements nor changes how the page behaves.

(() => {
  const QUERY = '__agent_listeners_query__';
  const REPLY = '__agent_listener__';
  const SHADOW_REPLY = '__agent_closed_shadow_host__';
  /** Tells the sensor that what it last read may be out of date. */
  const ADDED = '__agent_listener_added__';
  const TYPES = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'mouseenter', 'mouseover']);
  const ElementClass = Element;
  const originalAdd = EventTarget.prototype.addEventListener;
  const seen = new WeakSet();
  let refs = [];
  let closedHosts = [];
  const originalAttachShadow = Element.prototype.attachShadow;

  Element.prototype.attachShadow = function attachShadow(init) {
    const root = originalAttachShadow.call(this, init);
    if (init?.mode === 'closed') {
      closedHosts.push(new WeakRef(this));
      document.dispatchEvent(new Event(ADDED));
    }
    return root;
  };

  /** The property names under which React roots keep their elements' handlers. */
  const reactPropsKeys = new Set();

  EventTarget.prototype.addEventListener = function addEventListener(type, listener, options) {
    if (TYPES.has(type) && this instanceof ElementClass && !seen.has(this)) {
      seen.add(this);
      refs.push(new WeakRef(this));
      const root = Object.keys(this).find((key) => key.startsWith('__reactContainer$'));
      if (root) reactPropsKeys.add(`__reactProps$${root.slice('__reactContainer$'.length)}`);
      document.dispatchEvent(new Event(ADDED));
    }
    return originalAdd.call(this, type, listener, options);
  };

  const reply = (el) => el.dispatchEvent(new CustomEvent(REPLY, { bubbles: true, composed: true }));

  /** jQuery's delegated handlers (`$(list).on('click', '.item', ...)`, as jQuery UI's menus use):
   * the elements their selectors match inside the element are what is really clicked. */
  function delegatedTargets(el) {
    const jq = globalThis.jQuery;
    const events = typeof jq?._data === 'function' ? jq._data(el, 'events') : null;
    if (!events) return [];
    const targets = [];
    for (const type of TYPES) {
      for (const handler of events[type] ?? []) {
        if (!handler.selector) continue;
        try {
          targets.push(...el.querySelectorAll(handler.selector));
        } catch {
          targets.push(...jq(handler.selector, el)); // jQuery's own selector extensions
        }
      }
    }
    return targets;
  }

  /** React 17+ listens at its root and keeps each element's handlers in a property named with the
   * root's own random suffix: the elements whose props have a click-like handler. */
  const REACT_HANDLERS = ['onClick', 'onMouseDown', 'onMouseUp', 'onPointerDown', 'onPointerUp', 'onTouchStart'];
  function reactTargets() {
    const targets = [];
    if (!reactPropsKeys.size) return targets;
    for (const el of document.querySelectorAll('*')) {
      for (const key of reactPropsKeys) {
        const props = el[key];
        if (props && REACT_HANDLERS.some((name) => typeof props[name] === 'function')) targets.push(el);
      }
    }
    return targets;
  }

  originalAdd.call(document, QUERY, () => {
    const alive = [];
    for (const ref of refs) {
      const el = ref.deref();
      if (!el) continue;
      alive.push(ref);
      if (!el.isConnected) continue;
      reply(el);
      for (const target of delegatedTargets(el)) reply(target);
    }
    refs = alive;
    for (const target of reactTargets()) reply(target);
    closedHosts = closedHosts.filter((ref) => {
      const host = ref.deref();
      if (host?.isConnected) host.dispatchEvent(new CustomEvent(SHADOW_REPLY, { composed: true }));
      return host !== undefined;
    });
  }, true);
})();
