// A page that accepts only input from a real person (event.isTrusted), as some sites do.
document.getElementById('press').addEventListener('click', (event) => {
  if (!event.isTrusted) return;
  const presses = document.getElementById('presses');
  presses.textContent = String(Number(presses.textContent) + 1);
});
const code = document.getElementById('code');
let accepted = '';
code.addEventListener('input', (event) => {
  if (event.isTrusted) accepted = code.value;
  else code.value = accepted;
});
code.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && event.isTrusted) document.getElementById('sent').textContent = `Sent ${accepted}`;
});
document.getElementById('form').addEventListener('submit', (event) => event.preventDefault());
