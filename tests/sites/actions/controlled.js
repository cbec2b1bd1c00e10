// A React-style controlled input: the page owns the value and writes it back on every render.
// A value set without the input event a framework listens to is reset by the next render.
const input = document.getElementById('name');
const valueSetter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
let state = '';
// Counted, so that a test can wait for the renders after an input instead of for a time.
window.renders = 0;
const render = () => {
  valueSetter.call(input, state);
  window.renders += 1;
};
input.addEventListener('input', (event) => {
  if (!event.isTrusted && !(event instanceof InputEvent)) return; // plain Events are ignored, like React does
  state = input.value;
  setTimeout(render, 0);
});
setInterval(render, 50);
document.getElementById('greet').addEventListener('submit', (event) => {
  event.preventDefault();
  document.getElementById('greeting').textContent = `Hello ${state}`;
});
