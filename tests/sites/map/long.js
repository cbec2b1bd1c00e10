const list = document.getElementById('list');
for (let i = 1; i <= 60; i++) {
  const button = document.createElement('button');
  button.textContent = `Item ${i}`;
  list.append(button);
}
