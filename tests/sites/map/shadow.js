customElements.define('open-widget', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = '<p><slot name="label"></slot></p><button>Open shadow button</button>';
  }
});
customElements.define('closed-widget', class extends HTMLElement {
  #root;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'closed' });
    this.#root.innerHTML = '<input placeholder="Closed shadow input">';
  }

  /** The component's own API: its script sets the value (no event, no DOM change) or the hint. */
  fill(value) {
    this.#root.querySelector('input').value = value;
  }

  hint(text) {
    this.#root.querySelector('input').placeholder = text;
  }
});
