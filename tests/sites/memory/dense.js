// A catalogue so dense that its page map alone is larger than a small token budget.
const grid = document.getElementById('grid');
const finishes = ['brass', 'steel', 'copper', 'nickel', 'zinc', 'chrome'];
for (let i = 1; i <= 1200; i++) {
  const button = document.createElement('button');
  button.textContent = `Part ${i} ${finishes[i % finishes.length]}`;
  grid.append(button);
}
document.getElementById('count').textContent = '1200 parts in stock';
