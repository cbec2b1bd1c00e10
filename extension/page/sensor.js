// The page-side sensor and actuator, injected into pages by the service worker (isolated world).
// It is deliberately mechanical: one cheap pass that records facts about every element, and
// primitive operations on elements by id. Every judgement happens in the Rust core.
// Nothing here is reachable from the page's own scripts (content-script globals are isolated).

(() => {
  if (globalThis.agentSensor) return;

  /** Attributes the core may use; read only when present. */
  const ATTRS = ['type', 'name', 'role', 'placeholder', 'aria-label', 'title', 'alt', 'href', 'disabled',
    'aria-disabled', 'aria-hidden', 'hidden', 'tabindex', 'onclick'];
  const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'META', 'LINK', 'HEAD']);
  const MAX_OWN_TEXT = 300;

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

  function ownText(el) {
    let text = '';
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === Node.TEXT_NODE) text += n.data;
    text = text.replace(/\s+/g, ' ').trim();
    return text.length > MAX_OWN_TEXT ? text.slice(0, MAX_OWN_TEXT) : text;
  }

  function record(el, parent) {
    const rect = el.getBoundingClientRect();
    const node = {
      id: elementId(el),
      parent,
      tag: el.tagName.toLowerCase(),
      rect: [Math.round(rect.x), Math.round(rect.y), Math.round(rect.width), Math.round(rect.height)],
      visible: el.checkVisibility({ opacityProperty: true, visibilityProperty: true }),
    };
    const attrs = {};
    let anyAttr = false;
    for (const name of ATTRS) {
      const value = el.getAttribute(name);
      if (value !== null) { attrs[name] = value; anyAttr = true; }
    }
    if (anyAttr) node.attrs = attrs;
    const text = ownText(el);
    if (text) node.text = text;
    if (typeof el.onclick === 'function') node.listener = true;
    if (el.isContentEditable && !el.parentElement?.isContentEditable) node.editable = true;
    if (el.inert) node.inert = true;
    if ('value' in el && typeof el.value === 'string' && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)) node.value = el.value;
    if (el.tagName === 'INPUT' && /^(checkbox|radio)$/i.test(el.type)) node.checked = el.checked;
    return node;
  }

  /** One pass over the document in order; `parent` is the parent's position in `nodes`. */
  function collect() {
    const nodes = [];
    const position = new Map();
    const root = document.body ?? document.documentElement;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, {
      acceptNode: (el) => (SKIPPED.has(el.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    for (let el = root; el; el = walker.nextNode()) {
      const parent = position.get(el.parentElement) ?? null;
      position.set(el, nodes.length);
      nodes.push(record(el, parent));
    }
    if (byId.size > 2 * nodes.length + 1000) {
      for (const [id, ref] of byId) if (!ref.deref()?.isConnected) byId.delete(id);
    }
    return {
      url: location.href,
      title: document.title,
      viewport: {
        width: innerWidth,
        height: innerHeight,
        scrollY: Math.round(scrollY),
        pageHeight: document.documentElement.scrollHeight,
      },
      nodes,
    };
  }

  function describe(el) {
    const text = (el.innerText || el.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return `<${el.tagName.toLowerCase()}>${text ? ` "${text}"` : ''}`;
  }

  function target(op) {
    const el = byId.get(op.id)?.deref();
    if (!el || !el.isConnected) return { error: `element [${op.id}] is no longer on the page` };
    const tag = el.tagName.toLowerCase();
    if (tag !== op.tag) return { error: `element [${op.id}] is now a <${tag}>, not the <${op.tag}> that was seen` };
    return { el };
  }

  function pointAt(el) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const rect = el.getBoundingClientRect();
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  }

  /** The element that would receive a click at the point, if it is not `el` or part of it. */
  function coveringElement(el, x, y) {
    const hit = document.elementFromPoint(x, y);
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
      const selection = getSelection();
      selection.selectAllChildren(el);
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

  globalThis.agentSensor = { collect, perform, settle };
})();
