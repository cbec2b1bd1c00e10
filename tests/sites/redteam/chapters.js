const list = document.getElementById('chapters');
for (const c of 'abcdefghijklmnopqrstuvwxyz') {
  const p = document.createElement('p');
  p.textContent = `Chapter ${c}. About mugs.`;
  list.append(p);
}
