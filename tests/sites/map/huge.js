// 60,000 labelled elements and a 400-deep nesting: the map must come back, saying what it left out.
const root = document.getElementById('root');
const rows = [];
for (let i = 0; i < 60000; i++) rows.push(`<span title="cell ${i}">${i}</span>`);
root.innerHTML = rows.join('');
let deep = document.createElement('div');
document.body.prepend(deep);
for (let i = 0; i < 400; i++) {
  const child = document.createElement('div');
  deep.append(child);
  deep = child;
}
deep.innerHTML = '<button>Deep button</button>';
