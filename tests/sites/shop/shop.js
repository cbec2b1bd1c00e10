// A tiny shop driven by its own script (allowed by script-src 'self'); listeners added in JS, not inline.
const cart = [];

function renderCart() {
  const total = cart.reduce((sum, item) => sum + item.price, 0);
  document.getElementById('cart-count').textContent = `Cart: ${cart.length} item${cart.length === 1 ? '' : 's'}`;
  document.getElementById('cart-items').replaceChildren(...cart.map((item) => {
    const li = document.createElement('li');
    li.textContent = item.name;
    return li;
  }));
  document.getElementById('cart-total').textContent = `Cart total: $${total.toFixed(2)}`;
}

for (const button of document.querySelectorAll('#products button')) {
  button.addEventListener('click', () => {
    const li = button.closest('li');
    cart.push({ name: li.dataset.name, price: Number(li.dataset.price) });
    renderCart();
  });
}

document.getElementById('filter').addEventListener('input', (event) => {
  const query = event.target.value.trim().toLowerCase();
  for (const li of document.querySelectorAll('#products li')) {
    li.hidden = query !== '' && !li.dataset.name.toLowerCase().includes(query);
  }
});
