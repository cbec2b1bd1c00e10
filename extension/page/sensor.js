// The page-side sensor and actuator, injected by the service worker into every frame (isolated
// world, invisible to the page's scripts). It is deliberately mechanical: one cheap pass that
// records facts about the elements worth recording, and primitive operations on elements by id.
// Every judgement (what is interactive, visible, in scope; what the model reads) is made in Rust.

(() => {
  if (globalThis.agentSensor) return;

  /** Identifies this document: ids are only meaningful within it. (`crypto.randomUUID` exists
   * only in secure contexts, and plain http pages are not.) */
  const DOC = Array.from(crypto.getRandomValues(new Uint32Array(4)), (n) => n.toString(36)).join('');
  const ATTRS = ['type', 'name', 'role', 'placeholder', 'aria-label', 'title', 'alt', 'href', 'disabled',
    'aria-disabled', 'aria-hidden', 'hidden', 'tabindex', 'onclick', 'aria-expanded', 'aria-checked',
    'aria-selected', 'aria-pressed', 'aria-haspopup', 'aria-valuenow', 'for', 'contenteditable'];
  /** Recorded even without text or attributes, as the core may offer them. */
  const ALWAYS = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'DETAILS', 'OPTION', 'LABEL',
    'IFRAME', 'FRAME', 'IMG', 'VIDEO', 'AUDIO', 'CANVAS']);
  const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'META', 'LINK', 'HEAD', 'BASE', 'TITLE']);
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const MAX_OWN_TEXT = 300;
  const MAX_OPTIONS = 40;
  /** Bounds for hostile pages: what is left out is reported, never silently dropped. */
  const MAX_NODES = 40000;
  const MAX_COLLECT_MS = 2000;
  /** Hit tests cost more on crowded pages; past this many the rest are assumed reachable. */
  const MAX_HIT_TESTS = 400;
  const CANDIDATE_TAGS = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'DETAILS', 'LABEL']);
  const FRAME_TOKEN = '__agent_frame_token__';
  const LISTENERS_QUERY = '__agent_listeners_query__';
  const LISTENER_REPLY = '__agent_listener__';

  // Ids stay with an element for as long as it lives, so indices are stable across steps.
  const idOf = new WeakMap();
  const byId = new Map();
  let nextId = 1;

  function elementId(el) {
    let id = idOf.get(el);
    if (id === undefined) {
      id = nextId++;
      idOf.set(el, id);
      byId.set(id, new WeakRef(el));
    }
    return id;
  }

  // Frames are stitched to the iframe that shows them by a token the parent's sensor posts to
  // each child window: "<parent doc>:<iframe id>". (Chrome's content scripts cannot ask for an
  // iframe's frame id.)
  let hostToken = '';
  addEventListener('message', (event) => {
    const token = event.data?.[FRAME_TOKEN];
    if (typeof token === 'string' && event.source === parent && parent !== window) {
      hostToken = token;
      event.stopImmediatePropagation();
    }
  }, true);

  function announce() {
    for (const frame of document.querySelectorAll('iframe, frame')) {
      frame.contentWindow?.postMessage({ [FRAME_TOKEN]: `${DOC}:${elementId(frame)}` }, '*');
    }
  }

  function ownText(el) {
    let text = '';
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3) text += n.data;
    if (!text) return '';
    text = text.replace(/\s+/g, ' ').trim();
    return text.length > MAX_OWN_TEXT ? text.slice(0, MAX_OWN_TEXT) : text;
  }

  /** Elements that page scripts gave click-like listeners (see listeners.js, main world). */
  function listenerElements() {
    const found = new Set();
    const record = (e) => {
      found.add(e.composedPath()[0]);
      e.stopImmediatePropagation();
    };
    document.addEventListener(LISTENER_REPLY, record, true);
    document.dispatchEvent(new CustomEvent(LISTENERS_QUERY));
    document.removeEventListener(LISTENER_REPLY, record, true);
    return found;
  }

  /** `chrome.dom` reaches closed roots too; outside an extension (wasm tests) only open ones. */
  const extensionDom = globalThis.chrome?.dom;
  function shadowRootOf(el) {
    if (el.shadowRoot) return el.shadowRoot;
    if (!extensionDom) return null;
    try {
      return extensionDom.openOrClosedShadowRoot(el) ?? null;
    } catch {
      return null;
    }
  }

  /** True when the topmost element at a point of `el` is `el` itself or related to it. */
  function reachable(el, rect) {
    const root = el.getRootNode();
    const hitRoot = typeof root.elementFromPoint === 'function' ? root : document;
    const left = Math.max(rect.left, 0);
    const right = Math.min(rect.right, innerWidth);
    const top = Math.max(rect.top, 0);
    const bottom = Math.min(rect.bottom, innerHeight);
    const points = [[(left + right) / 2, (top + bottom) / 2], [left + 2, top + 2], [right - 2, bottom - 2]];
    for (const [x, y] of points) {
      const hit = hitRoot.elementFromPoint(x, y);
      if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return true;
      if (hit instanceof HTMLLabelElement && hit.control === el) return true;
    }
    return false;
  }

  function readAttrs(el) {
    let attrs = null;
    for (const name of ATTRS) {
      const value = el.getAttribute(name);
      if (value !== null) (attrs ??= {})[name] = value;
    }
    if (el.id && (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA')) (attrs ??= {}).id = el.id;
    return attrs;
  }

  function collect() {
    const started = performance.now();
    const nodes = [];
    const listeners = listenerElements();
    const cursorOf = new Map();
    let truncated = '';

    const cursor = (el) => {
      let value = cursorOf.get(el);
      if (value === undefined) {
        value = getComputedStyle(el).cursor;
        cursorOf.set(el, value);
      }
      return value;
    };

    let hitTests = 0;
    /** Could the core offer it as interactive? Only those are worth a hit test. */
    const isCandidate = (el, attrs, node) => CANDIDATE_TAGS.has(el.tagName) || node.listener || node.pointer
      || node.editable || (attrs && ('role' in attrs || 'tabindex' in attrs || 'onclick' in attrs));

    const record = (el, parent, attrs, text, pointer) => {
      const rect = el.getBoundingClientRect();
      const node = {
        id: elementId(el),
        parent,
        tag: el.localName,
        rect: [Math.round(rect.x), Math.round(rect.y), Math.round(rect.width), Math.round(rect.height)],
        visible: el.checkVisibility({ opacityProperty: true, visibilityProperty: true }),
      };
      if (attrs) node.attrs = attrs;
      if (text) node.text = text;
      if (pointer) node.pointer = true;
      if (typeof el.onclick === 'function' || listeners.has(el)) node.listener = true;
      if (el.isContentEditable && !el.parentElement?.isContentEditable) node.editable = true;
      if (el.inert) node.inert = true;
      const tag = el.tagName;
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') node.value = el.value;
      if (tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) node.checked = el.checked;
      if (tag === 'SELECT') {
        node.options = Array.from(el.options).slice(0, MAX_OPTIONS).map((o) => o.text.trim());
        node.value = el.selectedOptions[0]?.text.trim() ?? '';
      }
      if (tag === 'IFRAME' || tag === 'FRAME') {
        node.frameOrigin = [Math.round(rect.x + el.clientLeft), Math.round(rect.y + el.clientTop)];
      }
      if (node.visible && rect.bottom > 0 && rect.right > 0 && rect.top < innerHeight && rect.left < innerWidth
          && rect.width > 0 && rect.height > 0 && hitTests < MAX_HIT_TESTS && isCandidate(el, attrs, node)) {
        hitTests += 1;
        if (!reachable(el, rect)) node.covered = true;
      }
      return node;
    };

    const root = document.body ?? document.documentElement;
    if (!root) return JSON.stringify({ doc: DOC, host: hostToken, url: location.href, title: document.title, nodes });
    nodes.push(record(root, null, readAttrs(root), ownText(root), false));
    // Depth-first in document order with an explicit stack: pages nest deeper than JS recursion goes.
    // A shadow root's content comes before the host's light children.
    const stack = [{ next: root.firstElementChild, parent: 0, cursor: cursor(root) }];
    let visited = 0;
    while (stack.length) {
      const level = stack[stack.length - 1];
      const el = level.next;
      if (!el) {
        stack.pop();
        continue;
      }
      level.next = el.nextElementSibling;
      if (SKIPPED.has(el.tagName) || el === overlay?.host) continue;
      if (nodes.length >= MAX_NODES) {
        truncated = `only the first ${MAX_NODES} elements were read`;
        break;
      }
      if ((++visited & 63) === 0 && performance.now() - started > MAX_COLLECT_MS) {
        truncated = `reading stopped after ${MAX_COLLECT_MS} ms`;
        break;
      }
      const attrs = readAttrs(el);
      const text = ownText(el);
      const elCursor = cursor(el);
      const pointer = elCursor === 'pointer' && level.cursor !== 'pointer';
      const shadow = shadowRootOf(el);
      let position = level.parent;
      if (text || attrs || pointer || shadow || el.inert || ALWAYS.has(el.tagName) || el.isContentEditable
          || listeners.has(el) || typeof el.onclick === 'function') {
        position = nodes.length;
        nodes.push(record(el, level.parent, attrs, text, pointer));
      }
      if (el.namespaceURI === SVG_NS) continue; // Icons: their inner shapes say nothing.
      if (el.firstElementChild) stack.push({ next: el.firstElementChild, parent: position, cursor: elCursor });
      if (shadow?.firstElementChild) stack.push({ next: shadow.firstElementChild, parent: position, cursor: elCursor });
    }
    if (byId.size > 2 * nodes.length + 1000) {
      for (const [id, ref] of byId) if (!ref.deref()?.isConnected) byId.delete(id);
    }
    // JSON text crosses to the worker and into Rust far faster than a large object would.
    return JSON.stringify({
      doc: DOC,
      host: hostToken,
      url: location.href,
      title: document.title,
      viewport: {
        width: innerWidth,
        height: innerHeight,
        scrollX: Math.round(scrollX),
        scrollY: Math.round(scrollY),
        pageWidth: document.documentElement.scrollWidth,
        pageHeight: document.documentElement.scrollHeight,
      },
      nodes,
      truncated,
    });
  }

  function describe(el) {
    const text = (el.innerText || el.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return `<${el.localName}>${text ? ` "${text}"` : ''}`;
  }

  function target(op) {
    if (op.doc !== DOC) return { error: 'the page was reloaded or replaced since it was read' };
    const el = byId.get(op.id)?.deref();
    if (!el || !el.isConnected) return { error: 'the element is no longer on the page' };
    if (el.localName !== op.tag) return { error: `the element is now a <${el.localName}>, not the <${op.tag}> that was seen` };
    return { el };
  }

  function pointAt(el) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const rect = el.getBoundingClientRect();
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  }

  /** The element that would receive a click at the point, if it is not `el` or part of it. */
  function coveringElement(el, x, y) {
    const root = el.getRootNode();
    const hit = (typeof root.elementFromPoint === 'function' ? root : document).elementFromPoint(x, y);
    if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return null;
    if (hit instanceof HTMLLabelElement && hit.control === el) return null;
    return hit;
  }

  function click(el) {
    const { x, y } = pointAt(el);
    const cover = coveringElement(el, x, y);
    if (cover) return { ok: false, message: `it is covered by ${describe(cover)}` };
    const mouse = { bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y, button: 0 };
    const pointer = { ...mouse, pointerId: 1, pointerType: 'mouse', isPrimary: true };
    el.dispatchEvent(new PointerEvent('pointerover', pointer));
    el.dispatchEvent(new MouseEvent('mouseover', mouse));
    el.dispatchEvent(new PointerEvent('pointerdown', { ...pointer, buttons: 1 }));
    el.dispatchEvent(new MouseEvent('mousedown', { ...mouse, buttons: 1 }));
    if (typeof el.focus === 'function') el.focus({ preventScroll: true });
    el.dispatchEvent(new PointerEvent('pointerup', pointer));
    el.dispatchEvent(new MouseEvent('mouseup', mouse));
    el.dispatchEvent(new MouseEvent('click', { ...mouse, detail: 1 }));
    return { ok: true, message: '' };
  }

  /** Sets the value through the prototype's setter so that React-style trackers see the change. */
  function typeInto(el, text) {
    pointAt(el);
    el.focus({ preventScroll: true });
    if (el.isContentEditable) {
      getSelection().selectAllChildren(el);
      if (!document.execCommand('insertText', false, text)) el.textContent = text;
      return { ok: true, message: '', value: el.innerText };
    }
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
      return { ok: false, message: `${describe(el)} is not a text field` };
    }
    if (el.readOnly) return { ok: false, message: `${describe(el)} is read-only` };
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set;
    setter.call(el, text);
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, message: '', value: el.value };
  }

  function perform(op) {
    const { el, error } = target(op);
    if (error) return { ok: false, message: error };
    switch (op.op) {
      case 'click': return click(el);
      case 'type': return typeInto(el, op.text);
      default: return { ok: false, message: `unknown operation ${op.op}` };
    }
  }

  // Highlights: numbered boxes over the indexed elements, for the user (and for screenshots). They
  // live in a closed shadow root, so the page's CSS cannot restyle them and its scripts cannot
  // reach them; they ignore the pointer and follow scrolling and resizing until cleared.
  const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#008080', '#9a6324', '#800000'];
  let overlay = null;

  function highlight(items) {
    clearHighlights();
    const host = document.createElement('agent-highlights');
    host.style.cssText = 'all:initial;position:fixed;inset:0;pointer-events:none;z-index:2147483647;contain:strict';
    const root = host.attachShadow({ mode: 'closed' });
    const boxes = [];
    for (const { id, index } of items) {
      const el = byId.get(id)?.deref();
      if (!el?.isConnected) continue;
      const color = PALETTE[index % PALETTE.length];
      const box = document.createElement('div');
      box.style.cssText = `position:fixed;box-sizing:border-box;border:2px solid ${color};border-radius:2px`;
      const label = document.createElement('span');
      label.textContent = String(index);
      label.style.cssText = `position:absolute;top:-2px;right:-2px;background:${color};color:#fff;font:bold 11px/14px sans-serif;padding:0 3px;border-radius:2px`;
      box.append(label);
      root.append(box);
      boxes.push({ el, box });
    }
    const place = () => {
      for (const { el, box } of boxes) {
        const r = el.getBoundingClientRect();
        box.style.left = `${r.left}px`;
        box.style.top = `${r.top}px`;
        box.style.width = `${r.width}px`;
        box.style.height = `${r.height}px`;
      }
    };
    const state = { host, boxes, frame: 0, onMove: null };
    state.onMove = () => {
      state.frame ||= requestAnimationFrame(() => {
        state.frame = 0;
        place();
      });
    };
    addEventListener('scroll', state.onMove, { capture: true, passive: true });
    addEventListener('resize', state.onMove, { passive: true });
    place();
    document.documentElement.append(host);
    overlay = state;
    return boxes.length;
  }

  function clearHighlights() {
    if (!overlay) return 0;
    const { host, boxes, frame, onMove } = overlay;
    removeEventListener('scroll', onMove, { capture: true });
    removeEventListener('resize', onMove);
    cancelAnimationFrame(frame);
    host.remove();
    overlay = null;
    return boxes.length;
  }

  /** Resolves 'quiet' after `quietMs` without DOM changes (at most `maxMs`), or 'navigating'. */
  function settle(quietMs, maxMs) {
    return new Promise((resolve) => {
      let quietTimer;
      const finish = (outcome) => {
        observer.disconnect();
        clearTimeout(quietTimer);
        clearTimeout(maxTimer);
        removeEventListener('pagehide', onLeave);
        resolve(outcome);
      };
      const onLeave = () => finish('navigating');
      const observer = new MutationObserver(() => {
        clearTimeout(quietTimer);
        quietTimer = setTimeout(() => finish('quiet'), quietMs);
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      quietTimer = setTimeout(() => finish('quiet'), quietMs);
      const maxTimer = setTimeout(() => finish('quiet'), maxMs);
      addEventListener('pagehide', onLeave);
    });
  }

  globalThis.agentSensor = { announce, collect, perform, settle, highlight, clearHighlights };
})();
