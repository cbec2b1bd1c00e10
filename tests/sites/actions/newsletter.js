// A newsletter form inside a closed shadow root, as web components ship it: the page's own script
// cannot reach the field from outside, and records each submission as the form sent it.
customElements.define('news-letter', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: 'closed' });
    root.innerHTML = '<form action="/subscribe"><input type="email" name="email" placeholder="Your email">'
      + ' <button>Join</button></form>';
    root.querySelector('form').addEventListener('submit', (event) => {
      event.preventDefault();
      const sent = document.createElement('li');
      sent.textContent = JSON.stringify(Object.fromEntries(new FormData(event.target, event.submitter)));
      document.getElementById('submitted').append(sent);
    });
  }
});
