// A React-style controlled textarea: the page owns the value, takes it from input events only
// (as React does), and writes it back on every render; it counts the key events it sees. With
// ?slow=N each edit costs the page N ms of work, as an editor that re-renders on every change.
const story = document.getElementById('story');
const valueSetter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;
const slow = Number(new URLSearchParams(location.search).get('slow') ?? 0);
let state = '';
let keys = 0;
const render = () => {
  valueSetter.call(story, state);
  document.getElementById('length').textContent = `${state.length} characters`;
  document.body.dataset.keys = String(keys);
};
story.addEventListener('keydown', () => { keys += 1; });
story.addEventListener('input', (event) => {
  if (!(event instanceof InputEvent)) return; // plain Events are ignored, like React does
  state = story.value;
  for (const until = performance.now() + slow; performance.now() < until;) { /* the page at work */ }
  setTimeout(render, 0);
});
setInterval(render, 50);
