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
  let tokenArrived;
  const tokenReceived = new Promise((resolve) => { tokenArrived = resolve; });
  addEventListener('message', (event) => {
    const token = event.data?.[FRAME_TOKEN];
    if (typeof token === 'string' && event.source === parent && parent !== window) {
      hostToken = token;
      tokenArrived();
      event.stopImmediatePropagation();
    }
  }, true);

  /** Resolves once this frame knows where it is shown: at once in a top frame or when the
   * parent's token has come, else after `ms` (a cross-origin parent's message may still be on
   * its way when the worker asks this frame for its record). */
  function placed(ms) {
    if (hostToken || parent === window) return Promise.resolve();
    return Promise.race([tokenReceived, new Promise((resolve) => { setTimeout(resolve, ms); })]);
  }

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
    let truncated = '';

    // Text colour against the background actually behind it, for hiding-in-plain-sight checks.
    // Colours go to the core as the browser writes them ("rgb(0, 0, 0)"); it parses them.
    const paperOf = new Map();
    const paper = (el) => {
      if (!el) return 'rgb(255, 255, 255)';
      let value = paperOf.get(el);
      if (value === undefined) {
        const background = getComputedStyle(el).backgroundColor;
        value = background.endsWith(', 0)') || background === 'transparent' ? paper(el.parentElement) : background;
        paperOf.set(el, value);
      }
      return value;
    };
    let hitTests = 0;
    /** Could the core offer it as interactive? Only those are worth a hit test. */
    const isCandidate = (el, attrs, node) => CANDIDATE_TAGS.has(el.tagName) || node.listener || node.pointer
      || node.editable || (attrs && ('role' in attrs || 'tabindex' in attrs || 'onclick' in attrs));

    const record = (el, parent, attrs, text, pointer, style) => {
      const rect = el.getBoundingClientRect();
      const node = {
        id: elementId(el),
        parent,
        tag: el.localName,
        rect: [Math.round(rect.x), Math.round(rect.y), Math.round(rect.width), Math.round(rect.height)],
        visible: el.checkVisibility({ opacityProperty: true, visibilityProperty: true }),
      };
      if (attrs) node.attrs = attrs;
      if (text) {
        node.text = text;
        node.ink = style.color;
        node.paper = paper(el);
        node.fontSize = style.fontSize;
      }
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
    const rootStyle = getComputedStyle(root);
    nodes.push(record(root, null, readAttrs(root), ownText(root), false, rootStyle));
    // Depth-first in document order with an explicit stack: pages nest deeper than JS recursion goes.
    // A shadow root's content comes before the host's light children.
    const stack = [{ next: root.firstElementChild, parent: 0, cursor: rootStyle.cursor }];
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
      const style = getComputedStyle(el);
      const elCursor = style.cursor;
      const pointer = elCursor === 'pointer' && level.cursor !== 'pointer';
      const shadow = shadowRootOf(el);
      let position = level.parent;
      if (text || attrs || pointer || shadow || el.inert || ALWAYS.has(el.tagName) || el.isContentEditable
          || listeners.has(el) || typeof el.onclick === 'function') {
        position = nodes.length;
        nodes.push(record(el, level.parent, attrs, text, pointer, style));
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
    const link = el.closest('a[href]');
    const opensTab = link && /^_(blank|new)$/i.test(link.target) && /^https?:/.test(link.href);
    // A synthetic click cannot open a tab (the popup blocker wants a real gesture), so for such a
    // link the default is taken over at the end of the event's path, after the page's handlers,
    // and the worker opens the tab itself unless the page cancelled the click.
    let pageLetItThrough = false;
    const takeOver = (event) => {
      pageLetItThrough = !event.defaultPrevented;
      event.preventDefault();
    };
    if (opensTab) addEventListener('click', takeOver, { once: true });
    el.dispatchEvent(new MouseEvent('click', { ...mouse, detail: 1 }));
    if (opensTab) removeEventListener('click', takeOver);
    return { ok: true, message: '', newTabUrl: pageLetItThrough ? link.href : undefined };
  }

  function setValue(el, value) {
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set;
    setter.call(el, value);
  }

  /** Sets the value through the prototype's setter so that React-style trackers see the change. */
  function typeInto(el, text, clear) {
    const focused = focusField(el, clear);
    if (!focused.ok) return focused;
    if (el.isContentEditable) {
      if (!document.execCommand('insertText', false, text)) el.textContent = clear ? text : el.textContent + text;
      return { ok: true, message: '', value: el.innerText };
    }
    setValue(el, clear ? text : el.value + text);
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, message: '', value: el.value };
  }

  /** Where a trusted click should land, once the element is in view and nothing covers it. */
  function locate(el) {
    const { x, y } = pointAt(el);
    const cover = coveringElement(el, x, y);
    if (cover) return { ok: false, message: `it is covered by ${describe(cover)}` };
    return { ok: true, message: '', point: [x, y] };
  }

  /** Focus a text field; `clear` selects its text so that what is typed next replaces it. */
  function focusField(el, clear) {
    pointAt(el);
    el.focus({ preventScroll: true });
    if (el.isContentEditable) {
      const selection = getSelection();
      selection.selectAllChildren(el);
      if (!clear) selection.collapseToEnd();
      return { ok: true, message: '' };
    }
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
      return { ok: false, message: `${describe(el)} is not a text field` };
    }
    if (el.readOnly) return { ok: false, message: `${describe(el)} is read-only` };
    if (clear) el.select();
    else el.setSelectionRange?.(el.value.length, el.value.length);
    return { ok: true, message: '' };
  }

  function hover(el) {
    const { x, y } = pointAt(el);
    const mouse = { bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y };
    const pointer = { ...mouse, pointerId: 1, pointerType: 'mouse', isPrimary: true };
    el.dispatchEvent(new PointerEvent('pointerover', pointer));
    el.dispatchEvent(new PointerEvent('pointerenter', { ...pointer, bubbles: false }));
    el.dispatchEvent(new MouseEvent('mouseover', mouse));
    el.dispatchEvent(new MouseEvent('mouseenter', { ...mouse, bubbles: false }));
    el.dispatchEvent(new PointerEvent('pointermove', pointer));
    el.dispatchEvent(new MouseEvent('mousemove', mouse));
    return { ok: true, message: '' };
  }

  const optionTexts = (select) => Array.from(select.options, (o) => o.text.trim());

  /** A native select: the option whose text matches exactly, then as a prefix, then anywhere. */
  function selectOption(el, text) {
    if (!(el instanceof HTMLSelectElement)) return { ok: false, message: `${describe(el)} is not a list of options` };
    const wanted = text.trim().toLowerCase();
    const options = Array.from(el.options);
    const label = (o) => o.text.trim().toLowerCase();
    const option = options.find((o) => label(o) === wanted) ?? options.find((o) => label(o).startsWith(wanted))
      ?? options.find((o) => label(o).includes(wanted));
    if (!option) return { ok: false, message: `it has no option "${text}"`, options: optionTexts(el) };
    if (option.disabled) return { ok: false, message: `the option "${option.text.trim()}" is disabled` };
    pointAt(el);
    el.focus({ preventScroll: true });
    setValue(el, option.value);
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, message: '', value: el.selectedOptions[0]?.text.trim() ?? '' };
  }

  function isScrollable(el) {
    if (el.scrollHeight <= el.clientHeight + 1) return false;
    const overflow = getComputedStyle(el).overflowY;
    return overflow === 'auto' || overflow === 'scroll' || overflow === 'overlay';
  }

  /** The page's scroller: the document's, or the biggest scrollable area when the page itself does not scroll. */
  function pageScroller() {
    const root = document.scrollingElement ?? document.documentElement;
    if (root.scrollHeight > root.clientHeight + 1) return root;
    let best = root;
    let bestArea = 0;
    for (const el of document.querySelectorAll('*')) {
      if (el.clientHeight < 100 || !isScrollable(el)) continue;
      const area = el.clientWidth * el.clientHeight;
      if (area > bestArea) { best = el; bestArea = area; }
    }
    return best;
  }

  function scrollOf(scroller, direction, pages) {
    const isRoot = scroller === document.scrollingElement || scroller === document.documentElement;
    const viewport = isRoot ? innerHeight : scroller.clientHeight;
    const max = scroller.scrollHeight - viewport;
    const before = scroller.scrollTop;
    const step = viewport * 0.9 * pages;
    const to = { up: before - step, down: before + step, top: 0, bottom: max }[direction];
    scroller.scrollTo({ top: to, behavior: 'instant' });
    return { ok: true, message: '', scroll: { before, after: scroller.scrollTop, max: Math.max(max, 0), viewport } };
  }

  function scrollElement(el, direction, pages) {
    let scroller = el;
    while (scroller && !isScrollable(scroller)) scroller = scroller.parentElement;
    return scrollOf(scroller ?? pageScroller(), direction, pages);
  }

  function deepActiveElement() {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return el ?? document.body;
  }

  function focusables() {
    return Array.from(document.querySelectorAll('a[href], button, input, select, textarea, [tabindex], [contenteditable="true"]'))
      .filter((el) => el.tabIndex >= 0 && !el.disabled && el.checkVisibility());
  }

  /** The default actions of keys that pages rely on, which synthetic key events do not perform. */
  function keyDefault(el, press) {
    const editable = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement;
    const shortcut = press.ctrl || press.meta;
    if (press.key === 'Enter' && !shortcut) {
      if (el instanceof HTMLInputElement && el.form) return el.form.requestSubmit();
      if (el instanceof HTMLTextAreaElement || el.isContentEditable) return insertText(el, '\n');
      if (el instanceof HTMLButtonElement || el instanceof HTMLAnchorElement) return el.click();
      return undefined;
    }
    if (press.key === 'Tab') {
      const list = focusables();
      const next = list[(list.indexOf(el) + (press.shift ? -1 : 1) + list.length) % list.length];
      return next?.focus();
    }
    if (shortcut && press.key.toLowerCase() === 'a') {
      return editable ? el.select() : getSelection().selectAllChildren(el.isContentEditable ? el : document.body);
    }
    if (press.key === 'Backspace' && editable) {
      const start = el.selectionStart ?? el.value.length;
      const end = el.selectionEnd ?? el.value.length;
      const from = start === end ? Math.max(start - 1, 0) : start;
      setValue(el, el.value.slice(0, from) + el.value.slice(end));
      return el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'deleteContentBackward' }));
    }
    if (press.key.length === 1 && !shortcut && !press.alt) return insertText(el, press.key);
    return undefined;
  }

  function insertText(el, text) {
    if (el.isContentEditable) return document.execCommand('insertText', false, text);
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) return undefined;
    const start = el.selectionStart ?? el.value.length;
    const end = el.selectionEnd ?? el.value.length;
    setValue(el, el.value.slice(0, start) + text + el.value.slice(end));
    el.setSelectionRange?.(start + text.length, start + text.length);
    return el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
  }

  function keys(presses) {
    for (const press of presses) {
      const el = deepActiveElement();
      const init = {
        key: press.key, code: press.code, ctrlKey: press.ctrl, shiftKey: press.shift, altKey: press.alt,
        metaKey: press.meta, bubbles: true, cancelable: true, composed: true, view: window,
      };
      const proceed = el.dispatchEvent(new KeyboardEvent('keydown', init));
      if (proceed && (press.key.length === 1 || press.key === 'Enter')) el.dispatchEvent(new KeyboardEvent('keypress', init));
      if (proceed) keyDefault(el, press);
      el.dispatchEvent(new KeyboardEvent('keyup', init));
    }
    return { ok: true, message: '' };
  }

  /** Visible text nodes of the document, in order. */
  function* visibleTextNodes() {
    const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_TEXT);
    const shown = new Map();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || SKIPPED.has(parent.tagName) || !node.data.trim()) continue;
      let visible = shown.get(parent);
      if (visible === undefined) {
        visible = parent.checkVisibility({ opacityProperty: true, visibilityProperty: true });
        shown.set(parent, visible);
      }
      if (visible) yield node;
    }
  }

  const MAX_MATCHES = 1000;
  const SNIPPETS = 3;

  function find(text, reveal) {
    const wanted = text.toLowerCase();
    let count = 0;
    const snippets = [];
    let first = null;
    for (const node of visibleTextNodes()) {
      const data = node.data.replace(/\s+/g, ' ');
      const lower = data.toLowerCase();
      for (let at = lower.indexOf(wanted); at >= 0 && count < MAX_MATCHES; at = lower.indexOf(wanted, at + wanted.length)) {
        count += 1;
        first ??= node.parentElement;
        if (snippets.length < SNIPPETS) snippets.push(data.slice(Math.max(0, at - 40), at + wanted.length + 40).trim());
      }
    }
    if (reveal && first) first.scrollIntoView({ block: 'center', behavior: 'instant' });
    return { ok: true, message: '', found: { count, snippets } };
  }

  const BLOCKS = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'LI', 'PRE', 'BLOCKQUOTE', 'TR', 'DD', 'DT',
    'FIGCAPTION', 'CAPTION', 'SUMMARY', 'LEGEND', 'DIV', 'SECTION', 'ARTICLE', 'MAIN', 'BODY', 'TD', 'TH', 'LABEL']);
  const LANDMARKS = 'main, article, nav, header, footer, aside, [role=main], [role=navigation], [role=banner], [role=contentinfo], [role=complementary]';
  const LANDMARK_ROLES = { main: 'main', navigation: 'nav', banner: 'header', contentinfo: 'footer', complementary: 'aside' };
  const MAX_CONTENT_CHARS = 400000;

  /** The visible text grouped by block, with links and landmarks, for extraction. */
  function content() {
    const blocks = [];
    let current = null;
    let chars = 0;
    for (const node of visibleTextNodes()) {
      let blockEl = node.parentElement;
      while (blockEl && !BLOCKS.has(blockEl.tagName)) blockEl = blockEl.parentElement;
      const cellEl = blockEl && (blockEl.tagName === 'TD' || blockEl.tagName === 'TH') ? blockEl : null;
      if (cellEl) blockEl = cellEl.closest('tr') ?? cellEl;
      if (!current || current.el !== blockEl) {
        const landmarkEl = blockEl?.closest(LANDMARKS);
        const role = landmarkEl?.getAttribute('role');
        current = {
          el: blockEl,
          tag: (blockEl?.localName ?? 'p').replace(/^(div|section|article|main|body|label)$/, 'p'),
          landmark: landmarkEl ? (LANDMARK_ROLES[role] ?? landmarkEl.localName) : '',
          parts: [],
          cell: null,
        };
        blocks.push(current);
      }
      const part = { text: node.data };
      const link = node.parentElement.closest('a[href]');
      if (link) part.href = link.getAttribute('href');
      if (cellEl && cellEl !== current.cell) {
        part.cell = true;
        current.cell = cellEl;
      }
      current.parts.push(part);
      chars += node.data.length;
      if (chars > MAX_CONTENT_CHARS) break;
    }
    const json = JSON.stringify({
      url: location.href,
      title: document.title,
      blocks: blocks.map(({ tag, landmark, parts }) => ({ tag, landmark, parts })),
    });
    return { ok: true, message: '', content: json };
  }

  /** Operations on the frame as a whole. */
  const FRAME_OPS = {
    scroll_page: (op) => scrollOf(pageScroller(), op.direction, op.pages),
    keys: (op) => keys(op.keys),
    find: (op) => find(op.text, op.reveal),
    content: () => content(),
  };

  /** Operations on one element. */
  const ELEMENT_OPS = {
    click: (el) => click(el),
    type: (el, op) => typeInto(el, op.text, op.clear),
    hover: (el) => hover(el),
    select: (el, op) => selectOption(el, op.text),
    options: (el) => (el instanceof HTMLSelectElement
      ? { ok: true, message: '', options: optionTexts(el) }
      : { ok: false, message: `${describe(el)} is not a list of options` }),
    scroll_element: (el, op) => scrollElement(el, op.direction, op.pages),
    locate: (el) => locate(el),
    focus: (el, op) => focusField(el, op.clear),
    value: (el) => ({ ok: true, message: '', value: el.isContentEditable ? el.innerText : String(el.value ?? '') }),
  };

  function perform(op) {
    if (FRAME_OPS[op.op]) return FRAME_OPS[op.op](op);
    const run = ELEMENT_OPS[op.op];
    if (!run) return { ok: false, message: `unknown operation ${op.op}` };
    const { el, error } = target(op);
    if (error) return { ok: false, message: error };
    return run(el, op);
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

  globalThis.agentSensor = { announce, placed, collect, perform, settle, highlight, clearHighlights };
})();
