// A page that hunts for the agent's main-world listener probe (extension/page/listeners.js) and
// tries to speak in its name. It runs before anything else of the page, and reports into the page
// (#report) everything that gave the probe away. It also tries to make #plain (no listener) look
// clickable and to hide #real (a click listener), through every road the probe once had.

(() => {
  const found = new Set();
  const note = (what) => {
    found.add(what);
    const report = document.getElementById('report');
    if (report) report.textContent = `Probe detected: ${[...found].join('; ')}`;
  };
  const NATIVE = (name) => `function ${name}() { [native code] }`;
  const selfToString = Function.prototype.toString;

  // Dispatched events: any dispatch the page did not make itself, and any event of a type the page
  // never uses, on the window, the document or the elements.
  let dispatching = false;
  const ownDispatch = EventTarget.prototype.dispatchEvent;
  EventTarget.prototype.dispatchEvent = function dispatchEvent(event) {
    if (!dispatching) note(`a script dispatched "${event.type}"`);
    return ownDispatch.call(this, event);
  };
  for (const Kind of ['Event', 'CustomEvent', 'MouseEvent', 'InputEvent']) {
    const Original = globalThis[Kind];
    globalThis[Kind] = new Proxy(Original, {
      construct(target, args, newTarget) {
        if (!dispatching) note(`a script made a ${Kind} "${args[0]}"`);
        return Reflect.construct(target, args, newTarget === globalThis[Kind] ? target : newTarget);
      },
    });
  }
  const TYPES = ['load', 'query', 'listener', 'added', 'closed-shadow-host', '__agent_listeners_query__',
    '__agent_listener__', '__agent_listener_added__', '__agent_closed_shadow_host__'];
  for (const type of TYPES) {
    for (const target of [window, document]) {
      target.addEventListener(type, (event) => {
        if (type === 'load' && !event.relatedTarget) return; // the page's own loads
        if (!dispatching) note(`an event "${type}" reached the page`);
      }, true);
    }
  }

  // DOM attributes and elements the page did not write.
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'attributes') note(`attribute ${record.attributeName} set`);
      for (const node of record.addedNodes) {
        if (node.nodeType === 1 && !['report'].includes(node.id) && document.readyState === 'complete') note(`element <${node.localName}> added`);
      }
    }
  }).observe(document, { subtree: true, attributes: true, childList: true });

  // The patched functions: toString (here and from a fresh frame's realm), name, length, own
  // property names and descriptors, and the stacks of errors thrown through them.
  function inspect(where, realm) {
    const toString = realm.Function.prototype.toString;
    const checks = [
      [EventTarget.prototype.addEventListener, 'addEventListener', 2],
      [Element.prototype.attachShadow, 'attachShadow', 1],
      [EventTarget.prototype.removeEventListener, 'removeEventListener', 2],
      [EventTarget.prototype.dispatchEvent === ownDispatch ? ownDispatch : null, 'dispatchEvent', 1],
      [selfToString, 'toString', 0],
    ];
    for (const [fn, name, length] of checks) {
      if (!fn) continue;
      if (toString.call(fn) !== NATIVE(name)) note(`${where}: ${name}'s source shows`);
      if (fn.name !== name || fn.length !== length) note(`${where}: ${name}'s name or length`);
      if (Object.getOwnPropertyNames(fn).join() !== 'length,name' || 'prototype' in fn) note(`${where}: ${name}'s own properties`);
    }
    if (toString.call(toString) !== NATIVE('toString')) note(`${where}: toString's source shows`);
    // Web IDL operations are enumerable, ECMAScript's builtins not.
    for (const [proto, name, enumerable] of [[EventTarget.prototype, 'addEventListener', true],
      [Element.prototype, 'attachShadow', true], [Function.prototype, 'toString', false]]) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (!d || !d.writable || d.enumerable !== enumerable || !d.configurable || d.get || d.set) note(`${where}: ${name}'s descriptor`);
    }
    const stacks = [];
    try { toString.call({}); } catch (e) { stacks.push(e.stack); }
    try { EventTarget.prototype.addEventListener.call({}, 'click', () => {}); } catch (e) { stacks.push(e.stack); }
    try { document.body?.addEventListener('click'); } catch (e) { stacks.push(e.stack); }
    if (stacks.some((stack) => /extension:|listeners\.js/.test(stack))) note(`${where}: an error's stack names the probe`);
  }

  // Global names: anything on the window or the document that a fresh frame's window lacks, or
  // that names an agent.
  function globals(fresh) {
    const theirs = new Set(Object.getOwnPropertyNames(fresh));
    for (const name of Object.getOwnPropertyNames(window)) {
      // Frame indices and event handler properties (some created on first use) are the browser's.
      if (!theirs.has(name) && !/^\d+$|^on/.test(name)) note(`global ${name}`);
    }
    for (const name of [...Object.getOwnPropertyNames(document), ...Object.getOwnPropertySymbols(window).map(String)]) {
      if (/agent|probe|listener/i.test(name)) note(`document property ${name}`);
    }
  }

  inspect('here', window);

  // Forging: answer the probe's questions as the probe would (the old events), hand it a channel
  // of the page's own (a `load` event with a relatedTarget, as the probe hands over), and answer
  // any question on it; and hide #real's answers.
  const own = document.createElement('span');
  const fake = new EventTarget();
  const claim = (el, channel) => {
    dispatching = true;
    el.dispatchEvent(new CustomEvent('__agent_listener__', { bubbles: true, composed: true }));
    channel?.dispatchEvent(new MouseEvent('listener', { relatedTarget: el }));
    dispatching = false;
  };
  document.addEventListener('__agent_listeners_query__', () => claim(document.getElementById('plain')), true);
  fake.addEventListener('query', () => claim(document.getElementById('plain'), fake));
  window.addEventListener('__agent_listener__', (event) => {
    if (event.composedPath()[0]?.id === 'real') event.stopImmediatePropagation();
  }, true);
  const handOver = () => {
    dispatching = true;
    document.dispatchEvent(new MouseEvent('load', { relatedTarget: fake }));
    own.dispatchEvent(new MouseEvent('load', { relatedTarget: fake }));
    dispatching = false;
  };
  handOver();

  document.addEventListener('DOMContentLoaded', () => {
    handOver();
    document.getElementById('real').addEventListener('click', () => { document.title = 'clicked'; });
    const frame = document.createElement('iframe');
    frame.style.display = 'none';
    document.body.append(frame);
    inspect('from a fresh frame', frame.contentWindow);
    globals(frame.contentWindow);
    frame.remove();
    inspect('after load', window);
    const report = document.getElementById('report');
    if (!found.size) report.textContent = 'Probe detected: nothing';
  });
})();
