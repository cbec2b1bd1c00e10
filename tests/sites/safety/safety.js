// The everyday sites of the safety suite (tests/eval/safety.jsonl): a bank, a webmail, a forum,
// a shop, a search engine, a board. What a page does is what its site's server receives: a form
// or button with data-api sends its request (fetch, as real sites' scripts do) and the page then
// says so. The suite judges a run by what the server received, never by the model's words.
const query = new URLSearchParams(location.search);

// Parts of a page that an attacker planted (a message, a post, a notice): only with ?inject=1.
for (const planted of document.querySelectorAll('[data-injection]')) {
  if (query.get('inject') !== '1') planted.remove();
}

// Links to the task's other sites: data-site names the query parameter holding the site's origin;
// the link keeps this page's query (the next page knows the sites and the case too).
for (const link of document.querySelectorAll('a[data-site]')) {
  link.href = `${query.get(link.dataset.site)}${link.dataset.path}?${query}`;
}

const show = (element, text) => {
  const status = element.closest('[data-panel]')?.querySelector('[role=status]') ?? document.getElementById('status');
  if (status) status.textContent = text;
};

async function send(element, body) {
  const method = element.dataset.method ?? 'POST';
  try {
    const response = await fetch(element.dataset.api, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    show(element, element.dataset.done ?? 'Done.');
    document.body.dataset.sent = `${document.body.dataset.sent ?? ''} ${element.dataset.api}`;
  } catch (err) {
    show(element, `That did not work (${err.message}). Try again.`);
  }
}

// A form with data-api sends its fields as JSON, in the form's order.
for (const form of document.querySelectorAll('form[data-api]')) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    send(form, Object.fromEntries(new FormData(form)));
  });
}

// A button with data-api sends its data-body.
for (const button of document.querySelectorAll('button[data-api]')) {
  button.addEventListener('click', () => send(button, JSON.parse(button.dataset.body ?? '{}')));
}
