// Runs in the page's main world at document_start, in every frame, right after channel.js (the
// isolated world) and before any script of the page: notes which elements get click-like, hover and
// drop listeners from page scripts (directly, or through jQuery's or React's delegation), and which host
// closed shadow roots, none of which the isolated sensor can see cheaply.
//
// The page must neither notice it nor speak in its name. So it talks only through an EventTarget
// of its own, handed to channel.js before the page runs (as the relatedTarget of an event of type
// `load` dispatched on the document: such an event stops at the document, so not even a listener
// a parent frame left on this window sees it), which no page script can reach: no global names,
// no DOM attributes, no events in the page. Every builtin it uses is kept from before the page
// ran, so a page that patches builtins later is never called by it, and the functions it replaces
// look native (name, length, property descriptors, `toString`, errors' stacks). It keeps nothing
// but weak references, so it neither leaks elements nor changes how the page behaves.

(() => {
  'use strict';
  const { apply, getOwnPropertyDescriptor: descriptor, ownKeys } = Reflect;
  const hasOwn = Object.hasOwn;
  const captureStackTrace = Error.captureStackTrace;
  const getter = (proto, name) => descriptor(proto, name).get;
  const bound = (fn) => (self, ...args) => apply(fn, self, args);
  const setHas = bound(Set.prototype.has);
  const setAdd = bound(Set.prototype.add);
  const setDelete = bound(Set.prototype.delete);
  const setForEach = bound(Set.prototype.forEach);
  const weakHas = bound(WeakSet.prototype.has);
  const weakAdd = bound(WeakSet.prototype.add);
  const deref = bound(WeakRef.prototype.deref);
  const startsWith = bound(String.prototype.startsWith);
  const slice = bound(String.prototype.slice);
  const setSize = bound(getter(Set.prototype, 'size'));
  const nodeType = bound(getter(Node.prototype, 'nodeType'));
  const isConnected = bound(getter(Node.prototype, 'isConnected'));
  const shadowMode = bound(getter(ShadowRoot.prototype, 'mode'));
  const listLength = bound(getter(NodeList.prototype, 'length'));
  const listItem = bound(NodeList.prototype.item);
  const elementQuery = bound(Element.prototype.querySelectorAll);
  const documentQuery = bound(Document.prototype.querySelectorAll);
  const dispatch = bound(EventTarget.prototype.dispatchEvent);
  const originalAdd = EventTarget.prototype.addEventListener;
  const originalAttachShadow = Element.prototype.attachShadow;
  const originalToString = Function.prototype.toString;
  const { Map: Dictionary, EventTarget: Target, Event: PlainEvent, MouseEvent: Mouse, WeakRef: Ref, Set: List, WeakSet: WeakList } = globalThis;
  const doc = document;

  const channel = new Target();
  // A drop listener marks a place to drop on (a drop zone, a sortable list), as a click one marks a
  // place to click.
  const TYPE_LIST = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart', 'mouseenter', 'mouseover',
    'dragover', 'drop'];
  const TYPES = new List(TYPE_LIST);
  const REACT_HANDLERS = ['onClick', 'onMouseDown', 'onMouseUp', 'onPointerDown', 'onPointerUp', 'onTouchStart', 'onDrop'];
  const seen = new WeakList();
  /** WeakRefs to the elements given such listeners, and to the hosts of closed shadow roots. */
  const refs = new List();
  const closedHosts = new List();
  /** The property names under which React roots keep their elements' handlers. */
  const reactPropsKeys = new List();

  /** The value of `object`'s own data property `key`; never runs a getter. */
  const own = (object, key) => {
    if ((typeof object !== 'object' && typeof object !== 'function') || object === null) return undefined;
    const found = descriptor(object, key);
    return found !== undefined && hasOwn(found, 'value') ? found.value : undefined;
  };
  const isElement = (value) => {
    try {
      return nodeType(value) === 1;
    } catch {
      return false;
    }
  };
  const tell = (type, target) => {
    dispatch(channel, target === undefined ? new PlainEvent(type) : new Mouse(type, { __proto__: null, relatedTarget: target }));
  };

  // The replaced functions' source, as `toString` shows it, is the native one they replace; in
  // every frame of the page, as the same replacements of another frame (its same-origin frames'
  // toString is asked too) have the same source text.
  const mapGet = bound(Map.prototype.get);
  const mapSet = bound(Map.prototype.set);
  const disguised = new Dictionary();
  /** An error the native function threw, with a stack that starts where the page called. */
  const asNative = (error, replacement) => {
    if (typeof error === 'object' && error !== null) captureStackTrace(error, replacement);
    return error;
  };
  const replacements = {
    toString() {
      let source;
      try {
        source = apply(originalToString, this, []);
      } catch (error) {
        throw asNative(error, replacements.toString);
      }
      const text = mapGet(disguised, source);
      return text === undefined ? source : text;
    },
    addEventListener(type, listener) {
      if (setHas(TYPES, type) && isElement(this) && !weakHas(seen, this)) {
        weakAdd(seen, this);
        setAdd(refs, new Ref(this));
        const keys = ownKeys(this);
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          if (typeof key === 'string' && startsWith(key, '__reactContainer$')) {
            setAdd(reactPropsKeys, `__reactProps$${slice(key, 17)}`);
          }
        }
        tell('added');
      }
      const options = arguments.length > 2 ? arguments[2] : undefined;
      // With no page code run in it (a string type, no options object), an error is the native
      // function's own: its stack then starts at the page's call, as the native one does.
      if (typeof type !== 'string' || (typeof options === 'object' && options !== null)) {
        return apply(originalAdd, this, arguments);
      }
      try {
        return apply(originalAdd, this, arguments);
      } catch (error) {
        throw asNative(error, replacements.addEventListener);
      }
    },
    attachShadow(init) {
      let root;
      try {
        root = apply(originalAttachShadow, this, arguments);
      } catch (error) {
        throw asNative(error, replacements.attachShadow);
      }
      if (shadowMode(root) === 'closed') {
        setAdd(closedHosts, new Ref(this));
        tell('added');
      }
      return root;
    },
  };
  const disguise = (replacement, original) => {
    mapSet(disguised, apply(originalToString, replacement, []), apply(originalToString, original, []));
  };
  disguise(replacements.toString, originalToString);
  disguise(replacements.addEventListener, originalAdd);
  disguise(replacements.attachShadow, originalAttachShadow);

  Function.prototype.toString = replacements.toString;
  EventTarget.prototype.addEventListener = replacements.addEventListener;
  Element.prototype.attachShadow = replacements.attachShadow;

  /** The elements a NodeList holds, to `each`. */
  const forEachIn = (list, each) => {
    const length = listLength(list);
    for (let i = 0; i < length; i++) each(listItem(list, i));
  };

  /** jQuery's delegated handlers (`$(list).on('click', '.item', ...)`, as jQuery UI's menus use):
   * the elements their selectors match inside `el` are what is really clicked. Read from jQuery's
   * own record on the element (the property named `jQuery<digits>`), without calling jQuery. */
  function replyDelegated(el) {
    const keys = ownKeys(el);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      if (typeof key !== 'string' || !startsWith(key, 'jQuery')) continue;
      const events = own(own(el, key), 'events');
      if (events === undefined) continue;
      for (let t = 0; t < TYPE_LIST.length; t++) {
        const handlers = own(events, TYPE_LIST[t]);
        const count = own(handlers, 'length');
        if (typeof count !== 'number') continue;
        for (let h = 0; h < count; h++) {
          const selector = own(own(handlers, h), 'selector');
          if (typeof selector !== 'string' || !selector) continue;
          let matches;
          try {
            matches = elementQuery(el, selector);
          } catch {
            continue; // jQuery's own selector extensions: not without calling jQuery
          }
          forEachIn(matches, (target) => tell('listener', target));
        }
      }
    }
  }

  /** React 17+ listens at its root and keeps each element's handlers in a property named with the
   * root's own random suffix: the elements whose props have a click-like handler. */
  function replyReact() {
    if (!setSize(reactPropsKeys)) return;
    forEachIn(documentQuery(doc, '*'), (el) => {
      setForEach(reactPropsKeys, (key) => {
        const props = own(el, key);
        if (props === undefined) return;
        for (let i = 0; i < REACT_HANDLERS.length; i++) {
          if (typeof own(props, REACT_HANDLERS[i]) === 'function') {
            tell('listener', el);
            return;
          }
        }
      });
    });
  }

  // The sensor asks; the answer is one event per element, on the channel alone.
  apply(originalAdd, channel, ['query', () => {
    setForEach(refs, (ref) => {
      const el = deref(ref);
      if (el === undefined) {
        setDelete(refs, ref);
      } else if (isConnected(el)) {
        tell('listener', el);
        replyDelegated(el);
      }
    });
    replyReact();
    setForEach(closedHosts, (ref) => {
      const host = deref(ref);
      if (host === undefined) setDelete(closedHosts, ref);
      else if (isConnected(host)) tell('closed-shadow-host', host);
    });
  }]);

  dispatch(doc, new Mouse('load', { __proto__: null, relatedTarget: channel }));
})();
