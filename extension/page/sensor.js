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
    'aria-selected', 'aria-pressed', 'aria-haspopup', 'aria-valuenow', 'for', 'contenteditable', 'aria-labelledby',
    'aria-valuemin', 'aria-valuemax', 'min', 'max', 'step', 'multiple', 'aria-multiselectable',
    'autocomplete', 'inputmode', 'draggable', 'aria-roledescription'];

  /** Recorded even without text or attributes, as the core may offer them. */
  const ALWAYS = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'DETAILS', 'OPTION', 'LABEL',
    'IFRAME', 'FRAME', 'IMG', 'VIDEO', 'AUDIO', 'CANVAS']);
  const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'META', 'LINK', 'HEAD', 'BASE', 'TITLE']);
  const SVG_NS = 'http://www.w3.org/2000/svg';
  /** Classes jQuery UI gives what its interactions drag and drop on (it listens on the container,
   * or on the document for drops), which no listener on them shows. */
  const DRAG_CLASSES = ['ui-sortable-handle', 'ui-draggable-handle', 'ui-droppable'];
  const isDragPart = (el) => el.classList.length > 0 && DRAG_CLASSES.some((name) => el.classList.contains(name));
  /** Cursors that mark a place to act: a click target, or something to drag. */
  const POINTING_CURSORS = new Set(['pointer', 'grab', 'move']);
  /** Text beyond this in one element is left out; the core shortens further to fit its budget. */
  const MAX_OWN_TEXT = 1000;
  /** Stands in an element's own text for each child element, where it sits among the words. */
  const SLOT = '\uFFFC';
  /** Icon-only controls: how much naming material (class names, titles) is read for a hint. */
  const MAX_HINT_ELEMENTS = 6;
  const MAX_HINT_CHARS = 200;
  const MAX_OPTIONS = 40;
  /** Bounds for hostile pages: what is left out is reported, never silently dropped. */
  const MAX_NODES = 40000;
  const MAX_COLLECT_MS = 2000;
  /** Hit tests cost more on crowded pages; past this many the rest are assumed reachable. */
  const MAX_HIT_TESTS = 400;
  const CANDIDATE_TAGS = new Set(['A', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'SUMMARY', 'DETAILS', 'LABEL']);
  /** `checkVisibility` as a person sees: transparent and visibility-hidden elements are not shown. */
  const AS_SEEN = { opacityProperty: true, visibilityProperty: true };
  /** Whether a box of some size lies at least partly in a viewport of `width` by `height`. */
  const inViewport = (rect, width, height) => rect.bottom > 0 && rect.right > 0 && rect.top < height
    && rect.left < width && rect.width > 0 && rect.height > 0;
  const FRAME_TOKEN = '__agent_frame_token__';
  const FRAME_HELLO = '__agent_frame_hello__';

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
    } else if (event.data?.[FRAME_HELLO] === true && event.source) {
      for (const frame of document.querySelectorAll('iframe, frame')) {
        if (frame.contentWindow === event.source) tellFrame(frame);
      }
      event.stopImmediatePropagation();
    }
  }, true);
  // A frame whose sensor came after its parent's announcement asks for its token.
  if (parent !== window) parent.postMessage({ [FRAME_HELLO]: true }, '*');

  /** Resolves once this frame knows where it is shown: at once in a top frame or when the
   * parent's token has come, else after `ms` (a cross-origin parent's message may still be on
   * its way when the worker asks this frame for its record). */
  function placed(ms) {
    if (hostToken || parent === window) return Promise.resolve();
    return Promise.race([tokenReceived, new Promise((resolve) => { setTimeout(resolve, ms); })]);
  }

  function tellFrame(frame) {
    frame.contentWindow?.postMessage({ [FRAME_TOKEN]: `${DOC}:${elementId(frame)}` }, '*');
  }

  function announce() {
    for (const frame of document.querySelectorAll('iframe, frame')) tellFrame(frame);
  }

  /** The element's own text nodes, with SLOT where each child element sits among them, so that
   * the core can put inline elements' text back in place. Empty when there are no words. */
  function ownText(el) {
    const first = el.firstChild;
    // Most elements hold a single text node or none of their own: no string to build.
    if (!first) return '';
    if (first === el.lastChild) return first.nodeType === 3 ? wordsOf(first.data) : '';
    // Nor do most containers, whose own text nodes are the spaces between their children.
    let n = first;
    while (n && (n.nodeType !== 3 || !WORD.test(n.data))) n = n.nextSibling;
    if (!n) return '';
    let text = '';
    for (n = first; n; n = n.nextSibling) {
      if (n.nodeType === 3) text += n.data;
      else if (n.nodeType === 1 && !SKIPPED.has(n.tagName)) text += SLOT;
    }
    return wordsOf(text);
  }

  const WORD = /\S/;
  /** Text with whitespace that collapsing would change: at either end, doubled, or other than a space. */
  const UNTIDY = /^\s|\s$|\s\s|[^\S ]/;

  /** `text` with its whitespace collapsed, bounded; empty when it has no words. */
  function wordsOf(text) {
    // Most labels are tidy already: one scan instead of three.
    if (!UNTIDY.test(text)) return text.length > MAX_OWN_TEXT ? text.slice(0, MAX_OWN_TEXT) : text;
    if (!WORD.test(text)) return '';
    const collapsed = text.replace(/\s+/g, ' ').trim();
    return collapsed.length > MAX_OWN_TEXT ? collapsed.slice(0, MAX_OWN_TEXT) : collapsed;
  }

  /** No words but perhaps an SVG's title (which is not shown). */
  function isWordless(el) {
    const words = el.textContent.trim();
    return !words || (words.length <= 60 && el.querySelector('svg') !== null);
  }

  /** Naming material of an element without text (an icon), from it and its first descendants,
   * one piece a line, each marked with where it came from, for the core to judge: `t:` words
   * written for people (an SVG title, a descendant's aria-label, title or alt), `n:` an icon's
   * name (data-icon, icon, name, data-testid), `f:` a picture's or sprite's file name, `c:`
   * class names and ids (often generated: the core reads only icon-set names from them). */
  function hintOf(el) {
    const parts = [];
    const add = (kind, value) => { if (value && value.trim()) parts.push(`${kind}:${value.replace(/\s+/g, ' ').trim()}`); };
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_ELEMENT);
    for (let n = el, seen = 0; n && seen < MAX_HINT_ELEMENTS; n = walker.nextNode(), seen += 1) {
      if (n.localName === 'title') add('t', n.textContent);
      if (n !== el) for (const name of ['aria-label', 'title', 'alt']) add('t', n.getAttribute(name));
      for (const name of ['data-icon', 'icon', 'name', 'data-testid']) add('n', n.getAttribute(name));
      for (const name of ['class', 'id']) add('c', n.getAttribute(name));
      const src = n.localName === 'use' ? n.getAttribute('href') ?? n.getAttribute('xlink:href')
        : n.localName === 'img' ? n.getAttribute('src') : null;
      if (src && !src.startsWith('data:')) add('f', src.slice(src.lastIndexOf('/') + 1));
    }
    return parts.join('\n').slice(0, MAX_HINT_CHARS);
  }

  /** Hosts of closed shadow roots, as listeners.js saw them attached (refreshed by each collect). */
  let closedHosts = new Set();

  /** Elements that page scripts gave click-like listeners, and the hosts of closed shadow roots,
   * asked of listeners.js (main world) through the channel channel.js took from it before the
   * page ran, which no page script can reach. Without it (the extension came after the page
   * loaded), none. */
  function askPage() {
    const listeners = new Set();
    const hosts = new Set();
    const channel = globalThis.agentProbe?.target;
    if (channel) {
      const record = (e) => (e.type === 'closed-shadow-host' ? hosts : listeners).add(e.relatedTarget);
      channel.addEventListener('listener', record);
      channel.addEventListener('closed-shadow-host', record);
      channel.dispatchEvent(new Event('query'));
      channel.removeEventListener('listener', record);
      channel.removeEventListener('closed-shadow-host', record);
    }
    closedHosts = hosts;
    return listeners;
  }

  /** The shadow root of `el`, open or closed: `chrome.dom` reaches closed roots too; outside an
   * extension (wasm tests) only open ones are reached. */
  const extensionDom = globalThis.chrome?.dom;
  function anyShadowRoot(el) {
    if (el.shadowRoot || !extensionDom) return el.shadowRoot;
    try {
      return extensionDom.openOrClosedShadowRoot(el) ?? null;
    } catch {
      return null;
    }
  }

  /** The shadow root of an element met in a walk: closed roots are asked for only of the hosts
   * listeners.js saw, and of custom elements, whose roots may come from markup. */
  function shadowRootOf(el) {
    if (el.shadowRoot) return el.shadowRoot;
    return closedHosts.has(el) || el.localName.includes('-') ? anyShadowRoot(el) : null;
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

  const ATTR_NAMES = new Set(ATTRS);

  function readAttrs(el) {
    let attrs = null;
    // Names first: far cheaper than the Attr objects of `el.attributes`.
    if (el.hasAttributes()) {
      for (const name of el.getAttributeNames()) if (ATTR_NAMES.has(name)) (attrs ??= {})[name] = el.getAttribute(name);
    }
    if (el.id && (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA')) (attrs ??= {}).id = el.id;
    if (attrs?.['aria-labelledby']) attrs['aria-labelledby'] = labelledBy(el, attrs['aria-labelledby']);
    return attrs;
  }

  /** The words of the elements an `aria-labelledby` names (ids in the element's own tree). */
  function labelledBy(el, ids) {
    const root = el.getRootNode();
    const find = (id) => (typeof root.getElementById === 'function' ? root : document).getElementById(id);
    const words = ids.split(/\s+/).map((id) => (id && id !== el.id ? find(id)?.textContent ?? '' : ''));
    return words.join(' ').replace(/\s+/g, ' ').trim().slice(0, MAX_OWN_TEXT);
  }

  // What may have changed since the last collect: an unchanged frame's record is not read again
  // (the check costs well under a millisecond; a read of a large page, hundreds). Anything that
  // may change what a read finds counts: a DOM change, a scroll or resize, input, focus, a load, an
  // animation, a new click listener; and form values, which scripts set without any of these.
  const CHANGE_EVENTS = ['scroll', 'resize', 'input', 'change', 'reset', 'load', 'error', 'focusin', 'focusout',
    'pointerdown', 'pointerover', 'keydown', 'toggle', 'transitionstart', 'transitionend', 'animationstart',
    'animationend', 'fullscreenchange'];
  const MUTATIONS = { subtree: true, childList: true, attributes: true, characterData: true };
  /** The highlights' own host coming and going is not a change of the page. */
  const isOwnChange = (record) => record.type === 'childList'
    && [...record.addedNodes, ...record.removedNodes].every((node) => node.localName === 'agent-highlights');
  /** Past this many changes since a read, no element is taken as untouched. */
  const MAX_TOUCHED = 2000;
  let watch = null;

  /** Notes the page's own changes among `records`: their kind and the node changed. */
  function noteChanges(records) {
    for (const record of records) {
      if (isOwnChange(record)) continue;
      watch.changed = true;
      if (watch.touched.length < MAX_TOUCHED) watch.touched.push([record.type, record.target]);
      else watch.overflow = true;
    }
  }

  function watchChanges() {
    if (watch) return watch;
    const changed = () => { watch.changed = true; };
    watch = {
      changed: true,
      observer: new MutationObserver(noteChanges),
      touched: [],
      overflow: false,
      view: '',
      href: '',
      controls: [],
    };
    watch.observer.observe(document, MUTATIONS);
    for (const type of CHANGE_EVENTS) addEventListener(type, changed, { capture: true, passive: true });
    document.fonts?.addEventListener('loadingdone', changed);
    if (globalThis.agentProbe) globalThis.agentProbe.changed = changed;
    return watch;
  }

  const viewKey = () => `${scrollX},${scrollY},${innerWidth},${innerHeight}`;
  const controlState = (el) => `${el.value}|${el.checked}|${el.selectedIndex}`;

  /** This document's id if it is one of `docs` and nothing has changed since its last collect;
   * otherwise null. */
  function unchangedDoc(docs) {
    if (!watch || watch.changed || !docs.includes(DOC)) return null;
    noteChanges(watch.observer.takeRecords());
    if (watch.changed || watch.view !== viewKey() || watch.href !== location.href
        || watch.controls.some(([el, state]) => controlState(el) !== state)
        || document.getAnimations().some((animation) => animation.playState === 'running')) {
      watch.changed = true;
      return null;
    }
    return DOC;
  }

  /** Whether element `id` of document `doc` is as the last collect found it, for acting on it: still
   * in the page at the same address, nothing changed in it nor in its ancestors' attributes since,
   * still shown, and (in the viewport) not covered. The rest of the page may have changed. */
  function untouched(doc, id) {
    if (doc !== DOC || !watch) return false;
    noteChanges(watch.observer.takeRecords());
    const el = byId.get(id)?.deref();
    if (!el?.isConnected || watch.overflow || watch.href !== location.href) return false;
    for (const [type, node] of watch.touched) {
      if (isWithin(node, el) || (type === 'attributes' && isWithin(el, node))) return false;
    }
    if (!el.checkVisibility(AS_SEEN)) return false;
    const rect = el.getBoundingClientRect();
    return !inViewport(rect, innerWidth, innerHeight) || getComputedStyle(el).pointerEvents === 'none'
      || reachable(el, rect);
  }

  function collect() {
    const started = performance.now();
    const controls = [];
    const { observer } = watchChanges();
    const listeners = askPage();
    let truncated = '';

    // Text colour against the background actually behind it, for hiding-in-plain-sight checks.
    // Colours go to the core as the browser writes them ("rgb(0, 0, 0)"); it parses them. A
    // translucent background (a 2% grey tint) is seen over what is behind it, so it is given
    // blended with that.
    const paperOf = new Map();
    const paper = (el, style) => {
      if (!el) return 'rgb(255, 255, 255)';
      let value = paperOf.get(el);
      if (value === undefined) {
        const background = (style ?? getComputedStyle(el)).backgroundColor;
        const tint = /^rgba\((\d+), (\d+), (\d+), ([\d.]+)\)$/.exec(background);
        if (background === 'transparent' || (tint && Number(tint[4]) === 0)) value = paper(el.parentElement);
        else if (tint) value = blended(tint.slice(1).map(Number), paper(el.parentElement));
        else value = background;
        paperOf.set(el, value);
      }
      return value;
    };
    /** `[r, g, b, alpha]` over the colour `behind` (as the browser writes it); `behind` when it is
     * not rgb (a colour space the core does not read either). */
    const blended = ([r, g, b, alpha], behind) => {
      const under = /^rgba?\((\d+), (\d+), (\d+)/.exec(behind);
      if (!under) return behind;
      const mix = (top, bottom) => Math.round(top * alpha + Number(bottom) * (1 - alpha));
      return `rgb(${mix(r, under[1])}, ${mix(g, under[2])}, ${mix(b, under[3])})`;
    };
    let hitTests = 0;
    // Bits of a record's flags (see raw.rs in the core).
    const VISIBLE = 1, LISTENER = 2, POINTER = 4, EDITABLE = 8, INERT = 16, COVERED = 32, INLINE = 64, GAP = 128,
      PASS_THROUGH = 256;
    /** Could the core offer it as interactive? Only those are worth a hit test. */
    const isCandidate = (el, attrs, flags) => CANDIDATE_TAGS.has(el.tagName) || (flags & (LISTENER | POINTER | EDITABLE))
      || (attrs && ('role' in attrs || 'tabindex' in attrs || 'onclick' in attrs));
    // Text colours and size come as an index into a table of the distinct ones (a page has few).
    const looks = [];
    const lookIndex = new Map();
    const lookOf = (ink, paper, fontSize) => {
      const key = `${ink}|${paper}|${fontSize}`;
      let index = lookIndex.get(key);
      if (index === undefined) {
        index = looks.push([ink, paper, fontSize]) - 1;
        lookIndex.set(key, index);
      }
      return index;
    };
    const { innerWidth: width, innerHeight: height } = window;
    /** Trailing fields of a record that may be left off (see raw.rs in the core). */
    const TAIL_DEFAULTS = [undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, '', -1, -1,
      null, null];

    /** What the walk learns of every element, as record flags (EDITABLE: the element is
     * editable, not yet whether it is where editing starts). */
    const ownFlags = (el, pointer) => (pointer ? POINTER : 0)
      | (typeof el.onclick === 'function' || listeners.has(el) || isDragPart(el) ? LISTENER : 0)
      | (el.isContentEditable ? EDITABLE : 0) | (el.inert ? INERT : 0);

    /** One element's record, an array: [id, parent, tag, x, y, width, height, flags, text, slot,
     * look, attrs, extra], trailing defaults left off, from what the walk found of it (`known` are
     * its ownFlags with INLINE and GAP), its box and whether it is shown. */
    const record = ([el, tag, parent, attrs, text, style, slot, known], rect, shown) => {
      let flags = known | (shown ? VISIBLE : 0);
      if ((flags & EDITABLE) && el.parentElement?.isContentEditable) flags &= ~EDITABLE;
      // Colours only where the model may read the text: the viewport and a viewport around it
      // (the core lists half a viewport beyond); text further away is read again when it nears.
      const look = text && rect.bottom > -height && rect.top < 2 * height
        ? lookOf(style.color, paper(el, style), style.fontSize) : -1;
      let extra = null;
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') {
        (extra ??= {}).value = el.value;
        controls.push([el, controlState(el)]);
      }
      if (tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) extra.checked = el.checked;
      if (tag === 'SELECT') {
        extra.options = Array.from(el.options).slice(0, MAX_OPTIONS).map((o) => o.text.trim());
        extra.value = el.multiple ? selectedTexts(el).join('|') : el.selectedOptions[0]?.text.trim() ?? '';
      }
      if (tag === 'IFRAME' || tag === 'FRAME') {
        (extra ??= {}).frameOrigin = [Math.round(rect.x + el.clientLeft), Math.round(rect.y + el.clientTop)];
      }
      if ((flags & VISIBLE) && inViewport(rect, width, height) && hitTests < MAX_HIT_TESTS
          && isCandidate(el, attrs, flags)) {
        // The pointer passes through such an element (a floating label over its field): no
        // click can reach it, and no hit test can find it.
        if (style.pointerEvents === 'none') flags |= PASS_THROUGH;
        else {
          hitTests += 1;
          if (!reachable(el, rect)) flags |= COVERED;
        }
      }
      // Bounded: icons have few children, and delegating containers are skipped by that.
      if (!text && el.childElementCount <= 4 && tag !== 'BODY'
          && ((flags & (LISTENER | POINTER)) || tag === 'BUTTON' || tag === 'A' || (attrs && 'role' in attrs))
          && isWordless(el)) {
        const hint = hintOf(el);
        if (hint) (extra ??= {}).hint = hint;
      }
      const node = [elementId(el), parent ?? -1, el.localName, Math.round(rect.x), Math.round(rect.y),
        Math.round(rect.width), Math.round(rect.height), flags, text, slot ?? -1, look, attrs, extra];
      while (node.length > 8 && node[node.length - 1] === TAIL_DEFAULTS[node.length - 1]) node.pop();
      return node;
    };

    const root = document.body ?? document.documentElement;
    if (!root) return JSON.stringify({ doc: DOC, host: hostToken, url: location.href, origin: self.origin, title: document.title, nodes: [], looks });
    const rootStyle = getComputedStyle(root);
    const rootText = ownText(root);
    // What the walk finds of each element worth recording, in document order; its record is
    // written once every box is read (see below).
    const found = [[root, root.tagName, null, readAttrs(root), rootText, rootStyle, undefined, ownFlags(root, false)]];
    // Depth-first in document order with an explicit stack: pages nest deeper than JS recursion goes.
    // A shadow root's content comes before the host's light children.
    // Each level remembers, for its children: the recorded ancestor they hang from; whether that
    // ancestor's text has SLOTs, and which one a child fills (a child of an unrecorded element
    // fills its parent's); whether an unrecorded block element separates them from it (then they
    // do not flow in its sentence).
    const levelOf = (next, parent, cursor, slotted, fixed, blockGap) => ({ next, parent, cursor, slotted, ordinal: -1,
      fixed, blockGap });
    const stack = [levelOf(root.firstElementChild, 0, rootStyle.cursor, rootText.includes(SLOT), undefined, false)];
    let visited = 0;
    while (stack.length) {
      const level = stack[stack.length - 1];
      const el = level.next;
      if (!el) {
        stack.pop();
        continue;
      }
      level.next = el.nextElementSibling;
      const tag = el.tagName;
      if (SKIPPED.has(tag) || el === overlay?.host) continue;
      if (found.length >= MAX_NODES) {
        truncated = `only the first ${MAX_NODES} elements were read`;
        break;
      }
      if ((++visited & 63) === 0 && performance.now() - started > MAX_COLLECT_MS) {
        truncated = `reading stopped after ${MAX_COLLECT_MS} ms`;
        break;
      }
      const slot = level.fixed ?? ++level.ordinal;
      const attrs = readAttrs(el);
      const text = ownText(el);
      const style = getComputedStyle(el);
      const elCursor = style.cursor;
      const display = style.display;
      const inline = display.startsWith('inline');
      // A pointer cursor marks a click target where it starts; inside a clickable area, only
      // where it is an icon of its own (an empty leaf: a star, a bin).
      // A grab or move cursor marks what can be dragged, as a pointer one marks what can be clicked.
      const pointer = POINTING_CURSORS.has(elCursor) && (level.cursor !== elCursor
        || (!el.firstElementChild && !el.textContent.trim() && (el.hasAttribute('class') || el.namespaceURI === SVG_NS)));
      const shadow = shadowRootOf(el);
      const flags = ownFlags(el, pointer);
      let position = level.parent;
      if (text || attrs || flags || shadow || ALWAYS.has(tag)) {
        position = found.length;
        found.push([el, tag, level.parent, attrs, text, style, level.slotted ? slot : undefined,
          flags | (inline ? INLINE : 0) | (level.blockGap ? GAP : 0)]);
      }
      if (el.namespaceURI === SVG_NS) continue; // Icons: their inner shapes say nothing.
      if (display === 'none' && tag !== 'SELECT') continue; // Nothing inside is rendered.
      const firstChild = el.firstElementChild;
      if (firstChild) {
        stack.push(position === level.parent
          ? levelOf(firstChild, level.parent, elCursor, level.slotted, slot, level.blockGap || !inline)
          : levelOf(firstChild, position, elCursor, text.includes(SLOT), undefined, false));
      }
      if (shadow) observer.observe(shadow, MUTATIONS);
      if (shadow?.firstElementChild) stack.push(levelOf(shadow.firstElementChild, position, elCursor, false, undefined, false));
    }
    // Boxes, then whether each element is shown, each asked in a run of its own: the browser answers
    // a run of one question faster than the questions taken in turns (a tenth of a large read).
    const boxes = found.map(([el]) => el.getBoundingClientRect());
    const shown = found.map(([el]) => el.checkVisibility(AS_SEEN));
    const nodes = found.map((facts, i) => record(facts, boxes[i], shown[i]));
    if (byId.size > 2 * nodes.length + 1000) {
      for (const [id, ref] of byId) if (!ref.deref()?.isConnected) byId.delete(id);
    }
    // Whatever happened before this read is in it; only what happens after is a change.
    observer.takeRecords();
    Object.assign(watch, { changed: Boolean(truncated), touched: [], overflow: false, view: viewKey(), href: location.href, controls });
    // JSON text crosses to the worker and into Rust far faster than a large object would.
    return JSON.stringify({
      doc: DOC,
      host: hostToken,
      url: location.href,
      // The document's real origin, which its address does not tell for about:srcdoc, about:blank
      // and blob: frames (their creator's), nor for data: and sandboxed ones ("null": opaque).
      origin: self.origin,
      title: document.title,
      viewport: {
        width,
        height,
        scrollX: Math.round(scrollX),
        scrollY: Math.round(scrollY),
        pageWidth: document.documentElement.scrollWidth,
        pageHeight: document.documentElement.scrollHeight,
      },
      nodes,
      looks,
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

  /** The topmost element at a point, looking inside shadow roots (open and closed). */
  function topmostAt(x, y) {
    let hit = document.elementFromPoint(x, y);
    for (let root = hit && shadowRootOf(hit); root; root = shadowRootOf(hit)) {
      const inner = root.elementFromPoint(x, y);
      if (!inner || inner === hit || inner.getRootNode() !== root) break;
      hit = inner;
    }
    return hit;
  }

  /** `node` is `el` or inside it, shadow trees included. */
  function isWithin(node, el) {
    for (let n = node; n; n = n.parentNode ?? n.host) if (n === el) return true;
    return false;
  }

  /** Where in an element's box a click is tried, nearest the centre first (fractions of the box). */
  const AIM_POINTS = [[0.5, 0.5], [0.25, 0.5], [0.75, 0.5], [0.5, 0.25], [0.5, 0.75], [0.25, 0.25], [0.75, 0.25],
    [0.25, 0.75], [0.75, 0.75], [0.1, 0.5], [0.9, 0.5], [0.5, 0.1], [0.5, 0.9], [0.1, 0.1], [0.9, 0.1], [0.1, 0.9],
    [0.9, 0.9]];
  /** Boxes of a wrapped inline element that are tried. */
  const AIM_BOXES = 4;

  /** Points over the part of each of the element's boxes inside the viewport. */
  function samplePoints(el) {
    const points = [];
    const boxes = el.getClientRects();
    for (const box of Array.from(boxes.length ? boxes : [el.getBoundingClientRect()]).slice(0, AIM_BOXES)) {
      const left = Math.max(box.left, 0);
      const right = Math.min(box.right, innerWidth);
      const top = Math.max(box.top, 0);
      const bottom = Math.min(box.bottom, innerHeight);
      if (right - left < 1 || bottom - top < 1) continue;
      for (const [fx, fy] of AIM_POINTS) points.push([left + (right - left) * fx, top + (bottom - top) * fy]);
    }
    return points;
  }

  /** The first sampled point whose topmost element is `el` or inside it, and that element; else
   * a point where `el` lets the pointer through to an ancestor (events then go to `el`). */
  function aimInView(el) {
    const points = samplePoints(el);
    let through = null;
    for (const [x, y] of points) {
      const hit = topmostAt(x, y);
      if (hit && isWithin(hit, el)) return { x, y, target: hit };
      if (!hit || hit.closest?.('label')?.control === el || isWithin(el, hit)) through ??= { x, y, target: el };
    }
    if (through) return through;
    if (!points.length) {
      const rect = el.getBoundingClientRect();
      return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2, target: el };
    }
    const [x, y] = points[0];
    return { error: `it is covered by ${describe(topmostAt(x, y))}` };
  }

  /** Scrolls `el` into view only as far as needed, as a person would. */
  function scrollNear(el) {
    el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
  }

  /** Where a person would click `el`: scrolled into view as little as needed (to the centre when
   * something covers it there), at a visible point of it, on the topmost element at that point. */
  function aim(el) {
    scrollNear(el);
    const aimed = aimInView(el);
    if (!aimed.error) return aimed;
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    return aimInView(el);
  }

  function mouseInit(x, y, button, buttons) {
    return { bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y, screenX: x,
      screenY: y, button, buttons, detail: 1 };
  }

  function pointerInit(mouse) {
    return { ...mouse, pointerId: 1, pointerType: 'mouse', isPrimary: true, width: 1, height: 1,
      pressure: mouse.buttons ? 0.5 : 0 };
  }

  /** The pointer arriving over `target`: over, enter on each element from `outer` in, move. */
  function moveOnto(target, outer, x, y) {
    const mouse = mouseInit(x, y, 0, 0);
    const pointer = pointerInit(mouse);
    target.dispatchEvent(new PointerEvent('pointerover', pointer));
    target.dispatchEvent(new MouseEvent('mouseover', mouse));
    const entered = [];
    for (let n = target; n && n.nodeType === 1; n = n.parentNode ?? n.host) {
      entered.push(n);
      if (n === outer) break;
    }
    for (const n of entered.reverse()) {
      n.dispatchEvent(new PointerEvent('pointerenter', { ...pointer, bubbles: false, cancelable: false }));
      n.dispatchEvent(new MouseEvent('mouseenter', { ...mouse, bubbles: false, cancelable: false }));
    }
    target.dispatchEvent(new PointerEvent('pointermove', pointer));
    target.dispatchEvent(new MouseEvent('mousemove', mouse));
  }

  /** What a mouse press focuses: the nearest focusable element at or above the target. */
  function focusableAt(target) {
    for (let n = target; n; n = n.parentNode ?? n.host) {
      if (n.nodeType === 1 && !n.disabled && (n.tabIndex >= 0 || n.hasAttribute('tabindex') || n.isContentEditable)) return n;
    }
    return null;
  }

  /** Press and release at the point, focusing as a browser does unless the page cancels the press.
   * `button` is 0 for the left button, 2 for the right; `detail` counts the clicks so far. */
  function pressAt(target, x, y, button = 0, detail = 1) {
    const down = { ...mouseInit(x, y, button, button === 2 ? 2 : 1), detail };
    const up = { ...mouseInit(x, y, button, 0), detail };
    target.dispatchEvent(new PointerEvent('pointerdown', pointerInit(down)));
    if (target.dispatchEvent(new MouseEvent('mousedown', down))) {
      const focusable = focusableAt(target);
      if (focusable) focusable.focus({ preventScroll: true });
      else if (deepActiveElement() !== document.body) deepActiveElement().blur();
    }
    target.dispatchEvent(new PointerEvent('pointerup', pointerInit(up)));
    target.dispatchEvent(new MouseEvent('mouseup', up));
    return up;
  }

  /** A right click: press and release with the right button, then the context menu event. */
  function rightClick(hit, x, y) {
    const up = pressAt(hit, x, y, 2);
    hit.dispatchEvent(new MouseEvent('contextmenu', up));
    return { ok: true, message: '' };
  }

  /** The form a click on `el` submits, with the submitting control, if it submits one. */
  function submitterOf(el) {
    const control = el.closest?.('button, input');
    const submits = control?.form && ((control instanceof HTMLButtonElement && control.type === 'submit')
      || (control instanceof HTMLInputElement && (control.type === 'submit' || control.type === 'image')));
    return submits ? control : null;
  }

  /** A form's fields as it would send them, read as FormData reads them but without firing the
   * page's `formdata` listeners (page code that could act before anything is held). */
  function formFields(form, submitter) {
    const fields = [];
    for (const el of form.elements) {
      if (!el.name || el.disabled || el.closest('datalist') || el instanceof HTMLFieldSetElement
        || el instanceof HTMLObjectElement || el instanceof HTMLOutputElement) continue;
      const button = el instanceof HTMLButtonElement
        || (el instanceof HTMLInputElement && ['submit', 'image', 'button', 'reset'].includes(el.type));
      if (button) {
        if (el === submitter) fields.push([el.name, el.value]);
      } else if (el instanceof HTMLSelectElement) {
        for (const option of el.selectedOptions) fields.push([el.name, option.value]);
      } else if (el instanceof HTMLInputElement && el.type === 'file') {
        for (const file of el.files ?? []) fields.push([el.name, file.name]);
      } else if (!(el instanceof HTMLInputElement && ['checkbox', 'radio'].includes(el.type) && !el.checked)) {
        fields.push([el.name, el.value]);
      }
    }
    return fields;
  }

  /** Where the page would go, with what: a form's action, method and fields (files by name). */
  function submissionOf(form, submitter) {
    if (!form) return { ok: true, message: '' };
    const method = (submitter?.getAttribute('formmethod') ? submitter.formMethod : form.method) || 'get';
    if (method === 'dialog') return { ok: true, message: '' };
    const fields = formFields(form, submitter);
    const action = submitter?.getAttribute('formaction') ? submitter.formAction : form.action;
    return { ok: true, message: '', submission: { action, method, fields } };
  }

  /** Where a click on `el` would go, as far as it can be read before pressing: its link, its form. */
  function destinationOf(el, hit) {
    const link = hit.closest('a[href]') ?? el.closest('a[href]');
    const submitter = submitterOf(hit) ?? submitterOf(el);
    return `${link?.href ?? ''} ${submitter ? submitter.formAction : ''}`;
  }

  function click(el, kind) {
    const aimed = aim(el);
    if (aimed.error) return { ok: false, message: aimed.error };
    const { x, y, target: hit } = aimed;
    // The core checked where the click leads; a page that changes it as it is pointed at or
    // pressed (a link rewritten on mousedown) does not get the click.
    const before = destinationOf(el, hit);
    const changed = () => (hit.isConnected && destinationOf(el, hit) !== before
      ? { ok: false, message: `where it leads changed as it was pressed (now ${destinationOf(el, hit).trim()}), so the click was not completed` }
      : null);
    moveOnto(hit, el, x, y);
    if (kind === 'right') return rightClick(hit, x, y);
    if (kind === 'double') {
      const first = pressAt(hit, x, y);
      const refused = changed();
      if (refused) return refused;
      hit.dispatchEvent(new MouseEvent('click', first));
      const second = pressAt(hit, x, y, 0, 2);
      hit.dispatchEvent(new MouseEvent('click', second));
      hit.dispatchEvent(new MouseEvent('dblclick', second));
      return { ok: true, message: '' };
    }
    const up = pressAt(hit, x, y);
    const refused = changed();
    if (refused) return refused;
    const link = hit.closest('a[href]') ?? el.closest('a[href]');
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
    if (hit.isConnected) hit.dispatchEvent(new MouseEvent('click', up));
    if (opensTab) removeEventListener('click', takeOver);
    return { ok: true, message: '', newTabUrl: pageLetItThrough ? link.href : undefined };
  }

  function setValue(el, value) {
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set;
    setter.call(el, value);
  }

  /** Input types whose value may hold any partial text, so that it can be typed key by key. */
  const KEYED_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'password']);

  /** Types as a keyboard does: for each character keydown, keypress, beforeinput, the value set
   * through the native setter (so that React-style trackers see it), input, keyup; then change.
   * Fields whose partial values are invalid (date, number...) get the whole value at once. Without
   * key presses the text goes in as one edit (beforeinput, the value, input), as a paste does: the
   * core sends a long text so, in pieces, each appending (`more` while pieces follow: change waits
   * for the last one, and the value is told only then). */
  function typeInto(el, text, presses, clear, more) {
    const focused = focusField(el, clear);
    if (!focused.ok) return focused;
    if (el instanceof HTMLInputElement && !KEYED_TYPES.has(el.type)) {
      setValue(el, clear ? text : el.value + text);
      el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
    } else if (presses.length || !text) {
      keys(presses);
    } else {
      insertText(el, text);
    }
    if (more) return { ok: true, message: '' };
    if (el.isContentEditable) return { ok: true, message: '', value: el.innerText };
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, message: '', value: el.value };
  }

  /** Where a trusted click should land: the same point a synthetic click would use. */
  function locate(el) {
    const aimed = aim(el);
    if (aimed.error) return { ok: false, message: aimed.error };
    return { ok: true, message: '', point: [aimed.x, aimed.y] };
  }

  /** Focus a text field; `clear` selects its text so that what is typed next replaces it. */
  function focusField(el, clear) {
    scrollNear(el);
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
    if (clear) {
      el.select();
      // A field without a caret (email) does not tell that its text is selected, so what is typed
      // next would be added to it: the text is erased here, as typing over the selection would.
      if (KEYED_TYPES.has(el.type) && el.selectionStart === null && el.value) {
        replaceText(el, 0, el.value.length, '', 'deleteContentBackward');
      }
    } else {
      try {
        el.setSelectionRange(el.value.length, el.value.length);
      } catch { /* types without a caret (email, number) append anyway */ }
    }
    return { ok: true, message: '' };
  }

  function hover(el) {
    const aimed = aim(el);
    if (aimed.error) return { ok: false, message: aimed.error };
    moveOnto(aimed.target, el, aimed.x, aimed.y);
    return { ok: true, message: '' };
  }

  const optionTexts = (select) => Array.from(select.options, (o) => o.text.trim());
  const selectedTexts = (select) => Array.from(select.selectedOptions, (o) => o.text.trim());

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
    scrollNear(el);
    el.focus({ preventScroll: true });
    // A multiple select: the option is added to those chosen, or taken out if it was chosen (as a
    // Control+click does); a single one: the option replaces the choice.
    if (el.multiple) option.selected = !option.selected;
    else setValue(el, option.value);
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    if (el.multiple) return { ok: true, message: '', value: option.text.trim(), selected: selectedTexts(el) };
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

  /** The element that has the focus, inside shadow roots, closed ones too (a focused field in a
   * closed root leaves only its host as the document's active element). */
  function deepActiveElement() {
    let el = document.activeElement;
    for (let root = el && anyShadowRoot(el); root?.activeElement; root = anyShadowRoot(el)) el = root.activeElement;
    return el ?? document.body;
  }

  function focusables() {
    return Array.from(document.querySelectorAll('a[href], button, input, select, textarea, [tabindex], [contenteditable="true"]'))
      .filter((el) => el.tabIndex >= 0 && !el.disabled && el.checkVisibility());
  }

  const isTextField = (el) => el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement;

  /** The default actions of keys that pages rely on, which synthetic key events do not perform. */
  function keyDefault(el, press) {
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
      return isTextField(el) ? el.select() : getSelection().selectAllChildren(el.isContentEditable ? el : document.body);
    }
    if (press.key === 'Backspace' && isTextField(el)) {
      const [start, end] = caretOf(el);
      const from = start === end ? Math.max(start - 1, 0) : start;
      return replaceText(el, from, end, '', 'deleteContentBackward');
    }
    if (press.key === 'Backspace' && el.isContentEditable) {
      const edit = { bubbles: true, composed: true, inputType: 'deleteContentBackward', cancelable: true };
      return el.dispatchEvent(new InputEvent('beforeinput', edit)) && document.execCommand('delete');
    }
    if (press.key.length === 1 && !shortcut && !press.alt) return insertText(el, press.key);
    return undefined;
  }

  /** The selection of a text field (its end when the type has no caret, such as email). */
  function caretOf(el) {
    const end = el.value.length;
    return [el.selectionStart ?? end, el.selectionEnd ?? end];
  }

  /** Replaces `from`..`to` of a field's value as an edit would: beforeinput (the page may take the
   * edit over by cancelling it), the value through the native setter, the caret, input. */
  function replaceText(el, from, to, text, inputType) {
    const edit = { bubbles: true, composed: true, inputType, data: text || null };
    if (!el.dispatchEvent(new InputEvent('beforeinput', { ...edit, cancelable: true }))) return false;
    setValue(el, el.value.slice(0, from) + text + el.value.slice(to));
    try {
      el.setSelectionRange(from + text.length, from + text.length);
    } catch { /* types without a caret */ }
    return el.dispatchEvent(new InputEvent('input', edit));
  }

  function insertText(el, text) {
    if (el.isContentEditable) {
      const edit = { bubbles: true, composed: true, inputType: 'insertText', data: text, cancelable: true };
      return el.dispatchEvent(new InputEvent('beforeinput', edit)) && document.execCommand('insertText', false, text);
    }
    if (!isTextField(el)) return undefined;
    const [start, end] = caretOf(el);
    // A field with a maximum length takes what fits, as it does from a paste.
    const room = el.maxLength >= 0 ? el.maxLength - (el.value.length - (end - start)) : text.length;
    if (room <= 0) return false;
    return replaceText(el, start, end, text.slice(0, room), 'insertText');
  }

  /** A key as a keyboard sends it to the focused element: keydown, keypress for a key that
   * produces a character, the key's default action unless the page cancelled it, keyup. Legacy
   * `keyCode`, `which` and `charCode` are set, as widget libraries still read them. */
  function keys(presses) {
    for (const press of presses) {
      const el = deepActiveElement();
      const init = {
        key: press.key, code: press.code, keyCode: press.keyCode, which: press.keyCode, ctrlKey: press.ctrl,
        shiftKey: press.shift, altKey: press.alt, metaKey: press.meta, bubbles: true, cancelable: true,
        composed: true, view: window,
      };
      // Enter submits the field's form where the core checked it goes, or not at all.
      const form = press.key === 'Enter' && el instanceof HTMLInputElement ? el.form : null;
      const action = form?.action;
      let proceed = el.dispatchEvent(new KeyboardEvent('keydown', init));
      const character = press.key.length === 1 ? press.key : press.key === 'Enter' ? '\r' : '';
      if (proceed && character && !press.ctrl && !press.meta) {
        const charCode = character.codePointAt(0);
        proceed = el.dispatchEvent(new KeyboardEvent('keypress', { ...init, charCode, keyCode: charCode, which: charCode }));
      }
      if (form && form.action !== action) {
        return { ok: false, message: `the form's address changed as Enter was pressed (now ${form.action}), so it was not sent` };
      }
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
        visible = parent.checkVisibility(AS_SEEN);
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
      // A file the browser shows in its own viewer (a PDF) has none of its text in the page.
      contentType: document.contentType,
      blocks: blocks.map(({ tag, landmark, parts }) => ({ tag, landmark, parts })),
    });
    return { ok: true, message: '', content: json };
  }

  // Uploads: the task's files (bytes in base64) put into a file input as the user's choice in the
  // file picker puts them (its files set, then input and change), or dropped onto a drop zone as
  // a drop from the desktop is (dragenter, dragover, drop, with the files in the DataTransfer).
  // An element takes a drop when its page cancels dragover, as the HTML drag and drop model asks
  // of a drop target.

  function fileOf({ name, mime, data }) {
    const binary = atob(data);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return new File([bytes], name, { type: mime, lastModified: Date.now() });
  }

  /** Whether a file input's `accept` list (extensions, types, `image/*`) takes the file. */
  function accepts(input, file) {
    const wanted = input.accept.split(',').map((item) => item.trim().toLowerCase()).filter(Boolean);
    if (wanted.length === 0) return true;
    const name = file.name.toLowerCase();
    const type = file.type.toLowerCase();
    return wanted.some((item) => (item.startsWith('.') ? name.endsWith(item)
      : item.endsWith('/*') ? type.startsWith(item.slice(0, -1)) : type === item));
  }

  /** The file input the element is, or is the label of. */
  function fileInputOf(el) {
    const input = el instanceof HTMLLabelElement ? el.control : el;
    return input instanceof HTMLInputElement && input.type === 'file' ? input : null;
  }

  function chooseFiles(input, files) {
    if (input.disabled) return { ok: false, message: `${describe(input)} is disabled` };
    const refused = files.find((file) => !accepts(input, file));
    if (refused) return { ok: false, message: `${describe(input)} accepts only ${input.accept}, which "${refused.name}" is not` };
    // A multiple input keeps the files chosen before (a file of the same name is replaced).
    const kept = input.multiple ? [...input.files].filter((old) => !files.some((file) => file.name === old.name)) : [];
    const chosen = [...kept, ...files];
    if (!input.multiple && chosen.length > 1) return { ok: false, message: `${describe(input)} takes one file only` };
    const transfer = new DataTransfer();
    for (const file of chosen) transfer.items.add(file);
    input.files = transfer.files;
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, message: '', value: [...input.files].map((file) => file.name).join(', ') };
  }

  /** Drops the files onto the element; null when it does not take a drop. */
  function dropFiles(el, files) {
    el.scrollIntoView({ block: 'center', inline: 'center' });
    const rect = el.getBoundingClientRect();
    const transfer = new DataTransfer();
    for (const file of files) transfer.items.add(file);
    const init = {
      bubbles: true, cancelable: true, composed: true, dataTransfer: transfer,
      clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2,
    };
    el.dispatchEvent(new DragEvent('dragenter', init));
    const over = new DragEvent('dragover', init);
    el.dispatchEvent(over);
    if (!over.defaultPrevented) {
      el.dispatchEvent(new DragEvent('dragleave', init));
      return null;
    }
    el.dispatchEvent(new DragEvent('drop', init));
    return { ok: true, message: '' };
  }

  function upload(el, op) {
    const files = op.files.map(fileOf);
    const input = fileInputOf(el);
    if (input) return chooseFiles(input, files);
    const dropped = dropFiles(el, files);
    if (dropped) return dropped;
    // A styled picker (a button or box around a hidden file input).
    const inside = el.querySelectorAll('input[type=file]');
    if (inside.length === 1) return chooseFiles(inside[0], files);
    return { ok: false, message: `${describe(el)} is neither a file input nor a drop zone (it does not take a dropped file)` };
  }

  /** Operations on the frame as a whole. */
  const FRAME_OPS = {
    scroll_page: (op) => scrollOf(pageScroller(), op.direction, op.pages),
    keys: (op) => keys(op.keys),
    find: (op) => find(op.text, op.reveal),
    content: () => content(),
    focused_submission: () => {
      const el = deepActiveElement();
      return submissionOf(el instanceof HTMLInputElement ? el.form : null, null);
    },
  };

  /** Operations on one element. */
  const ELEMENT_OPS = {
    click: (el, op) => click(el, op.click),
    type: (el, op) => typeInto(el, op.text, op.keys, op.clear, op.more),
    hover: (el) => hover(el),
    select: (el, op) => selectOption(el, op.text),
    options: (el) => (el instanceof HTMLSelectElement
      ? { ok: true, message: '', options: optionTexts(el) }
      : { ok: false, message: `${describe(el)} is not a list of options` }),
    scroll_element: (el, op) => scrollElement(el, op.direction, op.pages),
    locate: (el) => locate(el),
    focus: (el, op) => focusField(el, op.clear),
    value: (el) => ({ ok: true, message: '', value: el.isContentEditable ? el.innerText : String(el.value ?? '') }),
    submission: (el) => {
      const submitter = submitterOf(el);
      return submissionOf(submitter?.form, submitter);
    },
    upload: (el, op) => upload(el, op),
    set_value: (el, op) => setControlValue(el, op.value),
    step: (el, op) => stepControl(el, op.key, op.times),
    drag: (el, op) => drag(el, op),
    dragged: (el) => dragged(el),
  };

  function perform(op) {
    if (watch) watch.changed = true; // The operation is meant to change the page.
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

  /** CSS transitions and animations under way that will end (a spinner's never does). */
  function finiteAnimations() {
    return document.getAnimations().filter((animation) => animation.playState === 'running'
      && Number.isFinite(animation.effect?.getComputedTiming().endTime));
  }

  /** How long until the finite animations under way have ended, in ms (0 if none runs). Read
   * from the animations' clock rather than awaited, as a tab in the background draws no frames
   * and its animations' promises settle late. */
  function animationsLeftMs() {
    let left = 0;
    for (const animation of finiteAnimations()) {
      const now = animation.currentTime;
      if (typeof now !== 'number') continue;
      const end = animation.effect.getComputedTiming().endTime;
      left = Math.max(left, (end - now) / Math.abs(animation.playbackRate || 1));
    }
    return left;
  }

  /** Resolves true after the next frame and the tasks queued by it; false if no frame came
   * within `ms` (a tab in the background draws none). */
  function nextFrame(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      requestAnimationFrame(() => setTimeout(() => { clearTimeout(timer); resolve(true); }, 0));
    });
  }

  /** Ends the CSS transitions and animations under way as they would end. */
  function finishAnimations() {
    for (const animation of finiteAnimations()) {
      try {
        animation.finish();
      } catch {
        // An animation that cannot end (its timeline went away) changes nothing more.
      }
    }
  }

  /** Resolves 'quiet' once the DOM has not changed for `quietMs` and no finite animation runs
   * (a modal fades in after its backdrop has), at most after `maxMs`, or 'navigating'. */
  function settle(quietMs, maxMs) {
    return new Promise((resolve) => {
      let quietTimer;
      let settled = false;
      let changes = 0;
      const finish = (outcome) => {
        if (settled) return;
        settled = true;
        observer.disconnect();
        clearTimeout(quietTimer);
        clearTimeout(maxTimer);
        removeEventListener('pagehide', onLeave);
        removeEventListener('transitionend', onChange, true);
        removeEventListener('animationend', onChange, true);
        resolve(outcome);
      };
      const onLeave = () => finish('navigating');
      const onChange = () => {
        if (settled) return;
        changes += 1;
        clearTimeout(quietTimer);
        quietTimer = setTimeout(whenQuiet, quietMs);
      };
      const whenQuiet = () => {
        const left = animationsLeftMs();
        if (left > 0) {
          clearTimeout(quietTimer);
          nextFrame(50).then((drawn) => {
            if (settled) return;
            // A tab that draws no frames (in the background) does not run its transitions: they
            // stay at their start, a modal at opacity 0, until the tab is shown. They are ended as
            // they would end. Then the DOM must be quiet again (their end often changes it).
            if (!drawn) finishAnimations();
            clearTimeout(quietTimer);
            quietTimer = setTimeout(whenQuiet, (drawn ? left : 0) + quietMs);
          });
          return;
        }
        // A transition that ended just now has its handlers run at the next frame (Bootstrap
        // shows the modal once its backdrop has faded in): quiet only if that changed nothing.
        const seen = changes;
        nextFrame(25).then(() => {
          if (changes !== seen || settled) return;
          if (animationsLeftMs() > 0) whenQuiet();
          else finish('quiet');
        });
      };
      const observer = new MutationObserver(onChange);
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      addEventListener('transitionend', onChange, true);
      addEventListener('animationend', onChange, true);
      quietTimer = setTimeout(whenQuiet, quietMs);
      const maxTimer = setTimeout(() => finish('quiet'), maxMs);
      addEventListener('pagehide', onLeave);
    });
  }

  // Controls that hold a number (range inputs, sliders, spinners): their state as the page shows
  // it, an input's value set as the page's scripts notice it, and steps with the keys every
  // accessible slider and spinner takes; the core brings such a control to a value with these.

  const NUMBER_ROLES = new Set(['slider', 'spinbutton']);
  const holdsNumber = (el) => (el instanceof HTMLInputElement && (el.type === 'range' || el.type === 'number'))
    || NUMBER_ROLES.has(el.getAttribute('role'));

  /** The element that holds the value: `el`, or the one thumb or spinner inside it. */
  function numberHolder(el) {
    if (holdsNumber(el)) return el;
    const inside = el.querySelectorAll('input[type=range], input[type=number], [role=slider], [role=spinbutton]');
    return inside.length === 1 ? inside[0] : el;
  }

  const numberIn = (text) => {
    const number = parseFloat(text ?? '');
    return Number.isFinite(number) ? number : null;
  };

  /** A control's number, bounds and step as it shows them (an input's own, else its ARIA ones;
   * a range input's defaults are 0, 100 and 1, a number input's step 1). */
  function numberState(el) {
    const aria = (name) => numberIn(el.getAttribute(name));
    if (!(el instanceof HTMLInputElement)) {
      return { value: aria('aria-valuenow'), min: aria('aria-valuemin'), max: aria('aria-valuemax'), step: null,
        text: el.getAttribute('aria-valuetext') ?? '' };
    }
    const range = el.type === 'range';
    const step = el.step === 'any' ? null : numberIn(el.step) ?? (range || el.type === 'number' ? 1 : null);
    return {
      value: numberIn(el.value) ?? aria('aria-valuenow'),
      min: numberIn(el.min) ?? aria('aria-valuemin') ?? (range ? 0 : null),
      max: numberIn(el.max) ?? aria('aria-valuemax') ?? (range ? 100 : null),
      step,
      text: el.getAttribute('aria-valuetext') ?? '',
    };
  }

  /** One turn of the page's event loop: a framework renders after an event, in a microtask or a
   * task of its own (a message, as here, which background tabs do not slow down as timers). */
  const pageTurn = () => new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => resolve();
    port2.postMessage(null);
  });

  /** Sets the input's value as a person's edit ends: the value through the native setter, input,
   * change, and (but for a range) the focus leaving, when spinners read and round what was typed. */
  async function setControlValue(el, value) {
    const holder = numberHolder(el);
    if (!(holder instanceof HTMLInputElement)) return { ok: false, message: `${describe(el)} takes no typed value` };
    if (holder.readOnly || holder.disabled) return { ok: false, message: `${describe(holder)} is read-only` };
    scrollNear(holder);
    holder.focus({ preventScroll: true });
    setValue(holder, value);
    holder.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    holder.dispatchEvent(new Event('change', { bubbles: true }));
    if (holder.type !== 'range') holder.blur();
    await pageTurn();
    return { ok: true, message: '', control: numberState(holder) };
  }

  /** Presses `key` `times` in the control, letting the page render after each; `times` 0 only
   * reads its state. */
  async function stepControl(el, key, times) {
    const holder = numberHolder(el);
    if (times > 0) {
      scrollNear(holder);
      holder.focus({ preventScroll: true });
      if (deepActiveElement() !== holder) return { ok: false, message: `${describe(holder)} does not take the focus` };
    }
    for (let i = 0; i < times; i += 1) {
      keys([key]);
      await pageTurn();
    }
    return { ok: true, message: '', control: numberState(holder) };
  }

  // Drag and drop. A person's drag is a press, moves with the button held, and a release, and
  // libraries listen to different parts of it: pointer events (dnd-kit, noUiSlider), mouse events
  // (jQuery UI), or the HTML5 drag events a browser makes of the moves once they start dragging a
  // draggable element (SortableJS, which sets draggable on the press, and plain draggable="true"
  // pages). So the press and the first move go out as pointer and mouse events at the element
  // under each point (elementFromPoint: what follows the pointer, a helper or a placeholder, is
  // what a browser would hit too); if the pressed element is then draggable and the press was not
  // cancelled, the rest becomes HTML5 drag events with one DataTransfer (dragstart, drag,
  // dragenter and dragover on what is under the path, drop where it is let go, dragend), as a
  // browser does, which sends no more pointer or mouse events then; otherwise the moves and the
  // release stay pointer and mouse events. Each move waits a frame or so: libraries update on the
  // next frame or render (React), and wait for some distance (dnd-kit) or time before a drag starts.

  /** Moves along the path: about one per 20 px, at least 8 (some distance, then moves), at most 30. */
  const DRAG_STEP_PX = 20;
  const DRAG_MIN_STEPS = 8;
  const DRAG_MAX_STEPS = 30;
  /** Waits: after the press, between moves, and over the drop place before letting go. */
  const DRAG_HOLD_MS = 60;
  const DRAG_STEP_MS = 20;
  const DRAG_LINGER_MS = 120;
  /** The drag last aimed for trusted input: its element and the page as it was, for `dragged`. */
  let aimedDrag = null;

  const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

  /** The element under a point, or the document's root outside the viewport. */
  const dragHit = (x, y) => topmostAt(x, y) ?? document.documentElement;

  function inView(el) {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  }

  /** Both ends in view: the element scrolled near, then the drop element if it is not in view
   * (the element kept in view too); the point to take it at and the point to let go. */
  function aimDrag(el, onto, dx, dy) {
    scrollNear(el);
    if (onto && !inView(onto)) {
      onto.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
      if (!inView(el)) {
        const below = onto.getBoundingClientRect().top > el.getBoundingClientRect().top;
        el.scrollIntoView({ block: below ? 'start' : 'end', inline: 'nearest', behavior: 'instant' });
        if (!inView(onto)) return { error: `${describe(onto)} is too far from it to see both at once: drag it in steps, each onto an element on the way` };
      }
    }
    const taken = aimInView(el);
    if (taken.error) return { error: `the element to drag ${taken.error}` };
    let [x, y] = [taken.x, taken.y];
    if (onto) {
      const r = onto.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) return { error: `${describe(onto)} is not shown, so nothing can be dropped on it` };
      x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
      y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
    }
    return { from: [taken.x, taken.y], to: [x + dx, y + dy] };
  }

  /** The element's value, for a slider: what assistive technology reads, or a field's value. */
  function dragValue(el) {
    const holder = el.closest('[aria-valuenow], [aria-valuetext], input[type=range]') ?? el;
    return holder.getAttribute('aria-valuetext') ?? holder.getAttribute('aria-valuenow')
      ?? (holder instanceof HTMLInputElement ? holder.value : null);
  }

  /** Where the element is: its box, its list, its place among the siblings of its kind, its value. */
  function dragState(el) {
    const list = el.parentElement;
    const kin = list ? Array.from(list.children).filter((n) => n.localName === el.localName) : [el];
    return { box: el.getBoundingClientRect(), list, place: [kin.indexOf(el) + 1, kin.length], value: dragValue(el), connected: el.isConnected };
  }

  /** A list by its name: its label, or the heading just before it, or its words. */
  function listName(list) {
    const label = list.getAttribute('aria-label');
    if (label) return `"${label}"`;
    for (let n = list.previousElementSibling ?? list.parentElement?.firstElementChild; n; n = n.previousElementSibling) {
      if (/^(h[1-6]|label|legend)$/.test(n.localName)) return `the list under "${n.textContent.trim().slice(0, 60)}"`;
      if (n === list.parentElement?.firstElementChild) break;
    }
    return describe(list);
  }

  /** Notes changes to the page other than to the dragged element itself (its classes and style
   * change while it is dragged, whether or not anything comes of it). */
  function watchDrag(el) {
    const watched = { changed: false };
    watched.observer = new MutationObserver((records) => {
      if (records.some((r) => r.type !== 'attributes' || !isWithin(r.target, el))) watched.changed = true;
    });
    watched.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    return watched;
  }

  /** What the drag changed, from the state before (`dragState`). */
  function dragReport(el, before, points, changes, dropped) {
    changes.observer.disconnect();
    const after = dragState(el);
    const moved = after.connected ? [after.box.left - before.box.left, after.box.top - before.box.top] : null;
    const placeMoved = after.list !== before.list || after.place[0] !== before.place[0];
    const changed = changes.changed || placeMoved || after.value !== before.value || !after.connected
      || Math.abs(moved[0]) >= 1 || Math.abs(moved[1]) >= 1;
    return {
      ok: true,
      message: '',
      dragged: {
        from: points.from,
        to: points.to,
        changed,
        moved,
        placeBefore: before.place,
        placeAfter: after.connected ? after.place : null,
        newList: after.connected && after.list && after.list !== before.list ? listName(after.list) : null,
        valueBefore: before.value,
        valueAfter: after.connected ? after.value : null,
        dropped,
      },
    };
  }

  /** The HTML5 drag a browser starts from `source` (the draggable element pressed): dragstart with
   * a DataTransfer; null when the page cancels it. */
  function startNativeDrag(source, hit, x, y) {
    const transfer = new DataTransfer();
    const init = (px, py) => ({ bubbles: true, cancelable: true, composed: true, dataTransfer: transfer,
      clientX: px, clientY: py, screenX: px, screenY: py, buttons: 1 });
    if (!source.dispatchEvent(new DragEvent('dragstart', init(x, y)))) return null;
    // The browser ends the pointer's own events when its drag begins.
    hit.dispatchEvent(new PointerEvent('pointercancel', pointerInit(mouseInit(x, y, 0, 0))));
    return { source, transfer, init, over: null, accepted: false };
  }

  /** One move of an HTML5 drag: drag on the source, dragenter and dragleave as the element under
   * the point changes, dragover there (cancelled when a drop would be accepted). */
  function nativeDragMove(native, x, y) {
    native.source.dispatchEvent(new DragEvent('drag', native.init(x, y)));
    const under = dragHit(x, y);
    if (under !== native.over) {
      under.dispatchEvent(new DragEvent('dragenter', native.init(x, y)));
      native.over?.dispatchEvent(new DragEvent('dragleave', native.init(x, y)));
      native.over = under;
    }
    const over = new DragEvent('dragover', native.init(x, y));
    under.dispatchEvent(over);
    native.accepted = over.defaultPrevented;
  }

  /** The end of an HTML5 drag: drop where a dragover was accepted, else a dragleave; dragend on
   * the source. Whether a drop was taken. */
  function endNativeDrag(native, x, y) {
    const under = native.over ?? dragHit(x, y);
    if (native.accepted) {
      native.transfer.dropEffect = native.transfer.effectAllowed === 'copy' ? 'copy' : 'move';
      under.dispatchEvent(new DragEvent('drop', native.init(x, y)));
    } else {
      native.transfer.dropEffect = 'none';
      under.dispatchEvent(new DragEvent('dragleave', native.init(x, y)));
    }
    native.source.dispatchEvent(new DragEvent('dragend', { ...native.init(x, y), buttons: 0 }));
    return native.accepted;
  }

  /** One move of the pointer with the button held: over and out as the element under it changes,
   * then pointermove and mousemove there. */
  function pointerDragMove(from, x, y) {
    const under = dragHit(x, y);
    const mouse = mouseInit(x, y, 0, 1);
    if (under !== from) {
      from.dispatchEvent(new PointerEvent('pointerout', pointerInit(mouse)));
      from.dispatchEvent(new MouseEvent('mouseout', mouse));
      under.dispatchEvent(new PointerEvent('pointerover', pointerInit(mouse)));
      under.dispatchEvent(new MouseEvent('mouseover', mouse));
    }
    under.dispatchEvent(new PointerEvent('pointermove', { ...pointerInit(mouse), button: -1 }));
    under.dispatchEvent(new MouseEvent('mousemove', mouse));
    return under;
  }

  /** The whole drag from one point to the other; whether an HTML5 drop was taken (null when the
   * drag stayed pointer and mouse events). */
  async function dragAlong(el, [x0, y0], [x1, y1]) {
    let hit = dragHit(x0, y0);
    moveOnto(hit, el, x0, y0);
    const down = mouseInit(x0, y0, 0, 1);
    hit.dispatchEvent(new PointerEvent('pointerdown', pointerInit(down)));
    const pressed = hit.dispatchEvent(new MouseEvent('mousedown', down));
    await pause(DRAG_HOLD_MS);
    const steps = Math.min(Math.max(Math.round(Math.hypot(x1 - x0, y1 - y0) / DRAG_STEP_PX), DRAG_MIN_STEPS), DRAG_MAX_STEPS);
    let native = null;
    for (let i = 1; i <= steps; i++) {
      const [x, y] = [x0 + ((x1 - x0) * i) / steps, y0 + ((y1 - y0) * i) / steps];
      if (native) nativeDragMove(native, x, y);
      else hit = pointerDragMove(hit, x, y);
      if (i === 1 && pressed) {
        // The press made the element draggable (or it was): the browser would start its drag now,
        // from the nearest draggable element at or above the one pressed. (Links and pictures,
        // draggable by default, are left to pointer events: libraries that drag them cancel the
        // browser's drag.)
        const held = hit.isConnected ? hit : el;
        const source = el.isConnected ? held.closest?.('[draggable="true"]') ?? el.closest('[draggable="true"]') : null;
        if (source) native = startNativeDrag(source, hit, x, y);
      }
      await pause(DRAG_STEP_MS);
    }
    // Over the drop place again after a pause: lists move their items as the pointer comes, and
    // take the place under it as the pointer stays.
    await pause(DRAG_LINGER_MS);
    if (native) {
      nativeDragMove(native, x1, y1);
      await pause(DRAG_STEP_MS);
      return endNativeDrag(native, x1, y1);
    }
    hit = pointerDragMove(hit, x1, y1);
    await pause(DRAG_STEP_MS);
    // A drag is no click: none follows the release (libraries suppress it anyway).
    const up = mouseInit(x1, y1, 0, 0);
    const under = dragHit(x1, y1);
    under.dispatchEvent(new PointerEvent('pointerup', pointerInit(up)));
    under.dispatchEvent(new MouseEvent('mouseup', up));
    return null;
  }

  /** The element the drag drops on, from the operation, or an error. */
  function dropTarget(op) {
    if (!op.to) return {};
    const onto = byId.get(op.to.id)?.deref();
    if (!onto || !onto.isConnected) return { error: 'the element to drop it on is no longer on the page' };
    if (onto.localName !== op.to.tag) return { error: `the element to drop it on is now a <${onto.localName}>, not the <${op.to.tag}> that was seen` };
    return { onto };
  }

  async function drag(el, op) {
    const { onto, error } = dropTarget(op);
    if (error) return { ok: false, message: error };
    if (onto && (isWithin(onto, el) && onto !== el)) return { ok: false, message: 'the element to drop it on is inside the element dragged' };
    const points = aimDrag(el, onto, op.dx ?? 0, op.dy ?? 0);
    if (points.error) return { ok: false, message: points.error };
    const before = dragState(el);
    // Trusted input drags with the debugger's mouse: the points, and the page as it is now.
    if (op.aim_only) {
      aimedDrag?.changes.observer.disconnect();
      aimedDrag = { el, before, points, changes: watchDrag(el) };
      return { ok: true, message: '', dragged: { from: points.from, to: points.to } };
    }
    const changes = watchDrag(el);
    const dropped = await dragAlong(el, points.from, points.to);
    return dragReport(el, before, points, changes, dropped);
  }

  /** What the drag aimed at `el` for trusted input changed. */
  function dragged(el) {
    if (aimedDrag?.el !== el) return { ok: false, message: 'the drag was not aimed at this element' };
    const { before, points, changes } = aimedDrag;
    aimedDrag = null;
    return dragReport(el, before, points, changes, null);
  }

  globalThis.agentSensor = { doc: DOC, announce, placed, collect, unchangedDoc, untouched, perform, settle, highlight, clearHighlights };
})();
