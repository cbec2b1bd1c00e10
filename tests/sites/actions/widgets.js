// A custom combobox (ARIA listbox), a hover menu, and a buy button inside a closed shadow root.
const combo = document.getElementById('size-combo');
const list = document.getElementById('size-list');
combo.addEventListener('click', () => {
  list.hidden = !list.hidden;
  combo.setAttribute('aria-expanded', String(!list.hidden));
});
for (const option of list.querySelectorAll('[role=option]')) {
  option.addEventListener('click', () => {
    combo.textContent = option.textContent;
    document.getElementById('size-value').textContent = option.textContent;
    list.hidden = true;
    combo.setAttribute('aria-expanded', 'false');
  });
}
const account = document.getElementById('account');
account.addEventListener('mouseenter', () => { document.getElementById('account-menu').hidden = false; });

customElements.define('shadow-like', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: 'closed' });
    root.innerHTML = '<button>Like in shadow</button>';
    root.querySelector('button').addEventListener('click', () => {
      const liked = document.getElementById('liked');
      liked.textContent = String(Number(liked.textContent) + 1);
    });
  }
});
