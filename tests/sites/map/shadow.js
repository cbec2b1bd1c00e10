customElements.define('open-widget', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = '<p><slot name="label"></slot></p><button>Open shadow button</button>';
  }
});
customElements.define('closed-widget', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'closed' }).innerHTML = '<input placeholder="Closed shadow input">';
  }
});
