document.getElementById('order').addEventListener('click', () => {
  const orders = document.getElementById('orders');
  orders.textContent = String(Number(orders.textContent) + 1);
});
